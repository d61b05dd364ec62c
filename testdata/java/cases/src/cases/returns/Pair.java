package cases.returns;

/** Return values: pick has two returns; the crash variable is its return value. */
public class Pair {
    private Object a;
    private Object b; // @b-decl

    public Pair(Object a) {
        this.a = a;
    }

    public Object pick(boolean first) {
        if (first) return a; // @ret-a
        return b; // @ret-b
    }

    public int code(boolean first) {
        return pick(first).hashCode(); // @use
    }
}
