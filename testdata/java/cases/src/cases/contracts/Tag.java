package cases.contracts;

/** Randoop's equals-symmetric contract: a Tag equals its name, but no String equals a Tag. */
public class Tag {
    private final String name; // @name-decl

    public Tag(String name) { // @t-ctor
        this.name = name; // @t-name
    }

    public String name() {
        return name; // @t-get
    }

    @Override
    public boolean equals(Object o) {
        if (o instanceof String) return name.equals(o); // @t-str
        if (!(o instanceof Tag)) return false;
        return name.equals(((Tag) o).name);
    }

    @Override
    public int hashCode() {
        return name.hashCode();
    }
}
