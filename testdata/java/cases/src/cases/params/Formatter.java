package cases.params;

/** Parameters: the argument of width reaches pad's parameter t through an instrumented call. */
public class Formatter {
    public int width(String s) {
        return pad(s, 2); // @width-entry
    }

    int pad(String t, int n) {
        return t.length() + n; // @t-use
    }
}
