//! The class SplitCheck instruments: methods that are split, small and large, and methods that are not.
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

    /** Split: too large for C1 to inline once the dispatch is added, with a loop. */
    public int sum(int n) {
        int s = 0;
        for (int i = 0; i < n; i++) s += i * v + (i % 3 == 0 ? 1 : 2) - (i ^ v);
        return s;
    }

    /** Split, with a loop: the hook runs at each turn (SplitCheck stops the recording from it half way). */
    public static int spin(int n, java.util.function.IntConsumer hook) {
        int s = 0;
        for (int i = 0; i < n; i++) {
            hook.accept(i);
            s += i;
        }
        return s;
    }

    /** Split: a table switch (its size is counted, padding included). */
    public static String kind(int k) {
        switch (k) {
            case 0: return "zero";
            case 1: return "one";
            case 2: return "two";
            case 3: return "three";
            default: return "many";
        }
    }

    /** Split: a lookup switch. */
    public static int sparse(int k) {
        switch (k) {
            case -1000: return 1;
            case 7: return 2;
            case 100000: return 3;
            default: return 0;
        }
    }
}
