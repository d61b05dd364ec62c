package paf.rt;

/**
 * An identity map from objects to positive ints (object ids, the static-reachability roots), open
 * addressing over plain arrays. Unlike {@link java.util.IdentityHashMap} it never leaves a
 * half-moved table behind when a {@code StackOverflowError} or {@code OutOfMemoryError}
 * interrupts it: a resize fills new arrays and only then swaps them in.
 */
final class IdMap {
    private static final int SMALL = 1024;
    private Object[] keys = new Object[SMALL];
    private int[] vals = new int[SMALL];
    private int size;

    /** The value of {@code o}, 0 if none. */
    int get(Object o) {
        Object[] k = keys;
        int mask = k.length - 1;
        for (int h = hash(o) & mask; ; h = (h + 1) & mask) {
            Object x = k[h];
            if (x == null) return 0;
            if (x == o) return vals[h];
        }
    }

    /** Sets the value of {@code o} (v != 0). */
    void put(Object o, int v) {
        int hash = hash(o);
        if ((size + 1) * 2 > keys.length) grow();
        Object[] k = keys;
        int mask = k.length - 1;
        int h = hash & mask;
        while (k[h] != null && k[h] != o) h = (h + 1) & mask;
        if (k[h] == null) size++;
        vals[h] = v;
        k[h] = o;
    }

    int size() {
        return size;
    }

    /** Forgets every entry (and the memory of a large table). */
    void clear() {
        if (size == 0) return; // already empty (a test's table is cleared at its end and its start)
        if (keys.length > SMALL * 8) {
            keys = new Object[SMALL];
            vals = new int[SMALL];
        } else {
            java.util.Arrays.fill(keys, null);
        }
        size = 0;
    }

    /** Drops every reference at once, without allocating (after an OutOfMemoryError). */
    void release() {
        if (size == 0) return;
        java.util.Arrays.fill(keys, null);
        size = 0;
    }

    private void grow() {
        Object[] ok = keys;
        int[] ov = vals;
        Object[] nk = new Object[ok.length * 2];
        int[] nv = new int[ok.length * 2];
        int mask = nk.length - 1;
        for (int i = 0; i < ok.length; i++) {
            Object o = ok[i];
            if (o == null) continue;
            int h = hash(o) & mask;
            while (nk[h] != null) h = (h + 1) & mask;
            nk[h] = o;
            nv[h] = ov[i];
        }
        vals = nv;
        keys = nk;
    }

    private static int hash(Object o) {
        int h = System.identityHashCode(o);
        return h ^ (h >>> 16);
    }
}
