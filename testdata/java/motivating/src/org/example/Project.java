package org.example;

/** The project a ProjectEntry belongs to (PAF Figure 2 uses it without showing it). */
public class Project {
    private final String name;

    public Project() {
        this("default");
    }

    public Project(String name) {
        this.name = name;
    }

    public String getName() {
        return name;
    }

    /** Consumes {@code buffer} from {@code offset}; returns the new offset. */
    public int input(byte[] buffer, int offset) {
        int consumed = 0;
        for (int i = offset; i < buffer.length; i++) consumed++;
        return offset + consumed;
    }
}
