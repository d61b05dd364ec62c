//! The class FramesCheck instruments: code whose stack map frames the instrumenter keeps and extends.
package framescheck;

import java.util.function.IntConsumer;

public class Shapes extends Base {
    private final String s;

    /** Frames before super(): an uninitialized this, and a ternary in the call's arguments. */
    public Shapes(int x) {
        super(x > 0 ? "pos" : "neg");
        s = x > 0 ? "p" : "n";
    }

    public String s() {
        return s + name;
    }

    /** A loop head at offset 0: the dispatcher's jump and the clone's start land on its frame. */
    public static int down(int n, IntConsumer hook) {
        while (n > 0) {
            hook.accept(n);
            n--;
        }
        return n;
    }

    /** Locals of two slots, before and in a loop. */
    public static long sumLong(long a, double d, int n) {
        long t = a;
        for (int i = 0; i < n; i++) t += i + (long) d;
        return t;
    }

    /** An uninitialized object on the stack at a frame (a NEW before a ternary). */
    public static Object make(boolean b) {
        return new StringBuilder(b ? "x" : "y").append(b ? 1 : 2);
    }

    /** A handler's frame. */
    public static int guarded(int x) {
        try {
            return 10 / x;
        } catch (ArithmeticException e) {
            return -1;
        }
    }

    /** A switch's frames. */
    public static int kind(int k) {
        switch (k) {
            case 0: return 10;
            case 1: return 11;
            case 2: return 12;
            default: return -1;
        }
    }

    /** Merged values and a field stored through a ternary. */
    public static String ternary(Object o, int[] a, int i) {
        String t = o == null ? "null" : o.toString();
        a[i] = t.length() > 3 ? a.length : i;
        return t.length() > 3 ? t : t + "!";
    }
}

class Base {
    final String name;

    Base(String name) {
        this.name = name;
    }
}
