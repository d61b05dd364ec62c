package cases.compare;

/** Explicit guards on every comparison opcode family (defect 2): the crash variables are the operands. */
public class Guards {
    public static void positiveInt(int a) {
        if (a <= 0) throw new IllegalArgumentException("int"); // @int-if
    }

    public static void positiveLong(long a) {
        if (a <= 0L) throw new IllegalArgumentException("long"); // @long-if
    }

    public static void positiveFloat(float a) {
        if (a <= 0f) throw new IllegalArgumentException("float"); // @float-if
    }

    public static void smallFloat(float a) {
        if (a > 1.5f) throw new IllegalArgumentException("float l"); // @floatl-if
    }

    public static void positiveDouble(double a) {
        if (a < 0.5) throw new IllegalArgumentException("double"); // @double-if
    }

    public static void smallDouble(double a) {
        if (a > 1.5) throw new IllegalArgumentException("double l"); // @doublel-if
    }

    public static void ordered(int lo, int hi) {
        if (lo > hi) throw new IllegalArgumentException("range"); // @range-if
    }

    public static void distinct(Object a, Object b) {
        if (a == b) throw new IllegalArgumentException("same"); // @ref-if
    }

    public static void present(Object a) {
        if (a == null) throw new IllegalArgumentException("null"); // @null-if
    }

    public static void known(int k) {
        switch (k) { // @switch-if
            case 1:
            case 2:
            case 3:
                return;
            default:
                throw new IllegalArgumentException("switch");
        }
    }

    public static void enabled(boolean on) {
        if (!on) throw new IllegalStateException("off"); // @bool-if
    }
}
