package cases.cond;

/** Conditional expressions (defect 3): each arm is a copy, as in the paper's Jimple. */
public class Cache {
    private Object cache; // @cache-decl
    private final boolean useCache;

    public Cache(boolean useCache) {
        this.useCache = useCache;
    }

    public void fill(Object o) {
        cache = o;
    }

    public int code() {
        Object x = useCache ? cache : null; // @x-def
        return x.hashCode(); // @x-use
    }

    public int either(Object a, Object b) {
        Object y = a != null ? a : b; // @y-def
        return y.hashCode(); // @y-use
    }

    public void range(int lo, int hi) {
        boolean ok = lo >= 0 && hi > lo; // @ok-def
        if (!ok) throw new IllegalArgumentException("bad range"); // @ok-use
    }
}
