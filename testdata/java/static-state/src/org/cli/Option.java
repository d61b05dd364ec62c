package org.cli;

/** A command line option (after Apache Commons CLI 1.x). */
public class Option {
    private final String name;
    private String longName;
    private boolean required;

    public Option(String name) {
        this.name = name;
    }

    public String getName() {
        return name;
    }

    public String getLongName() {
        return longName;
    }

    public void setLongName(String longName) {
        this.longName = longName;
    }

    public boolean isRequired() {
        return required;
    }

    public void setRequired(boolean required) {
        this.required = required;
    }
}
