package cap;

/**
 * Defect 9: a class initializer that builds a table (far more events than the cap the e2e run
 * sets), and a failure after that initializer ran in the same test.
 */
public class Tables {
    static final int[] SQUARES = build(20000);

    static int[] build(int n) {
        int[] t = new int[n];
        for (int i = 0; i < n; i++) t[i] = i * i;
        return t;
    }

    private Object name; // @name-decl

    public void setName(Object n) {
        name = n; // @name-set
    }

    public int lookup(int i) {
        return SQUARES[i] + name.hashCode(); // @name-use
    }
}
