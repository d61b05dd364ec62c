package cases.presuper;

/** A name that the no-argument constructor leaves null. */
public class Source {
    private String name; // @src-decl

    public Source() {
    }

    public Source(String name) {
        this.name = name;
    }

    public String name() {
        return name; // @src-get
    }
}
