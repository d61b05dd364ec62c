package cases.presuper;

/** The arguments of this(...) run before the object exists: the tracer records them (issue 12). */
public class Matcher {
    private final String name;
    private final int arity;

    public Matcher(Source s) {
        this(s.name(), s.name().length()); // @this-call
    }

    public Matcher(String name, int arity) {
        this.name = name;
        this.arity = arity;
    }
}
