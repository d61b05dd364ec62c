package sites;

/** A value holder: the instrumented class whose calls from the test body get their lines from sites. */
public class Box {
    private int value;

    public Box(int value) {
        this.value = value;
    }

    public static Box of(int value) {
        return new Box(value);
    }

    public int get() {
        return value;
    }

    public void set(int v) {
        if (v < 0) throw new IllegalArgumentException("negative: " + v);
        value = v;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Box && ((Box) o).value == value;
    }

    @Override
    public int hashCode() {
        return value;
    }
}
