package cases.kinds2;

import java.util.ArrayList;
import java.util.Collections;
import java.util.Iterator;
import java.util.List;

/**
 * More exception kinds (issue 12): each crash variable is the value stored into an array, the
 * string a JDK parse call was given, or the receiver of the JDK call that refused its state.
 */
public class Shelf {
    private final List<String> names = new ArrayList<>();
    private final Object[] slots = new String[2];
    private List<String> shown;

    public void add(String n) {
        names.add(n);
    }

    /** shown: a read-only view of the names. */
    public void freeze() {
        shown = Collections.unmodifiableList(names); // @shown-freeze
    }

    /** shown: the names themselves. */
    public void thaw() {
        shown = names; // @shown-thaw
    }

    /** An aastore of an Integer into a String[]: ArrayStoreException. */
    public void put(Object v) {
        Object w = v; // @w-def
        slots[0] = w; // @w-use
    }

    /** Integer.parseInt throws NumberFormatException. */
    public int parse(String s) {
        String t = s.trim(); // @t-def
        return Integer.parseInt(t); // @t-use
    }

    /** Removing while iterating: the iterator's next() throws ConcurrentModificationException. */
    public int dropEmpty() {
        int kept = 0;
        for (String n : names) { // @for
            if (n.isEmpty()) names.remove(n);
            else kept++;
        }
        return kept;
    }

    /** UnmodifiableCollection.add throws UnsupportedOperationException. */
    public void show(String n) {
        List<String> l = shown; // @l-def
        l.add(n); // @l-use
    }

    /** A second Iterator.remove() throws IllegalStateException inside the JDK. */
    public void dropFirst(int times) {
        Iterator<String> it = names.iterator(); // @it-def
        it.next();
        for (int j = 0; j < times; j++) {
            it.remove(); // @it-use
        }
    }
}
