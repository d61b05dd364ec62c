package compact;

/** Loops for the compaction example: many events, a class initializer in the middle, live array elements. */
public class Work {
    private int total;

    /** {@code n} steps; at step {@code initAt} a class is initialized (its events are rolled back). */
    public int run(int n, int initAt) {
        for (int i = 0; i < n; i++) {
            if (i == initAt) total += Table.SIZE;
            total = step(total, i);
        }
        return total;
    }

    private int step(int t, int i) {
        int x = t + i;
        return x % 1000;
    }

    /** Fills an array: each element's definition can still be read, so a compaction keeps them all. */
    public int[] fill(int n) {
        int[] a = new int[n];
        for (int i = 0; i < n; i++) a[i] = i;
        return a;
    }
}
