package cases.lifecycle;

/** Code under test for the lifecycle cases (defect 7). */
public class Widget {
    private final String name; // @name-decl

    public Widget(String name) { // @ctor-entry
        this.name = name; // @name-set
    }

    public int size() {
        return name.length(); // @size-use
    }
}
