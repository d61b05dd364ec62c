package cases.kinds;

import java.util.ArrayList;
import java.util.List;

/**
 * Exception kinds beyond PAF's four (issue 12): each crash variable is the operand the exception
 * is about, the index of a JDK call, the divisor, the cast operand or the array size.
 */
public class Kinds {
    private final List<String> names = new ArrayList<>();
    private int parts; // @parts-decl

    public void add(String n) {
        names.add(n);
    }

    public void split(int n) {
        parts = n;
    }

    /** The i-th name, counting from 1: ArrayList.get throws IndexOutOfBoundsException. */
    public String at(int i) {
        int k = i - 1; // @k-def
        return names.get(k); // @k-use
    }

    /** String.charAt throws StringIndexOutOfBoundsException. */
    public char initial(String s, int i) {
        String t = s; // @i-entry
        return t.charAt(i); // @i-use
    }

    /** An idiv by a field that was never set: ArithmeticException. */
    public int share(int total) {
        int p = parts; // @p-def
        return total / p; // @p-use
    }

    /** A checkcast: ClassCastException. */
    public String label(Object o) {
        Object v = o; // @v-def
        return (String) v; // @v-use
    }

    /** A newarray of a negative size: NegativeArraySizeException. */
    public int[] slots(int n) {
        int m = n - names.size(); // @m-def
        return new int[m]; // @m-use
    }
}
