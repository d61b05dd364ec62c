package sites;

/** Inherits get and set: a call on it dispatches to Box's, through an instrumented class. */
public class SubBox extends Box {
    public SubBox(int value) {
        super(value);
    }
}
