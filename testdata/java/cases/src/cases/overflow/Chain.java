package cases.overflow;

import java.util.ArrayList;
import java.util.List;

/** A recursive structure (StackOverflowError) and a memory hog (OutOfMemoryError): defects 5 and 6. */
public class Chain {
    private Chain next; // @next-decl

    public void link(Chain n) {
        next = n; // @link
    }

    public int depth() {
        return next == null ? 1 : 1 + next.depth(); // @depth
    }

    public static int hog() {
        List<long[]> l = new ArrayList<>();
        while (true) l.add(new long[1 << 20]);
    }
}
