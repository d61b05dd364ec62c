//! The class SplitCheck instruments: small methods that are split, and methods that are not.
package splitcheck;

public class Small {
    private int v;

    public Small(int v) {
        this.v = v;
    }

    /** Split: a getter. */
    public int get() {
        return v;
    }

    /** Split: arguments of two slots before one of one, so the copy's locals move past them. */
    public static long mix(long a, double b, int c) {
        return a + (long) b + c;
    }

    /** Split: throws when {@code a} is null or empty. */
    public static int first(int[] a) {
        return a[0];
    }

    /** Not split: synchronized. */
    public synchronized int locked() {
        return v + 1;
    }

    /** Not split: a handler. */
    public static int guarded(int x) {
        try {
            return 10 / x;
        } catch (ArithmeticException e) {
            return -1;
        }
    }

    /** Not split: too large for C1 to inline once the dispatch is added. */
    public int sum(int n) {
        int s = 0;
        for (int i = 0; i < n; i++) s += i * v + (i % 3 == 0 ? 1 : 2) - (i ^ v);
        return s;
    }
}
