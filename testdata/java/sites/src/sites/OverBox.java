package sites;

/** Overrides get and calls Box's: the override is the callee, Box.get its callee. */
public class OverBox extends Box {
    public OverBox(int value) {
        super(value);
    }

    @Override
    public int get() {
        return super.get() + 1;
    }
}
