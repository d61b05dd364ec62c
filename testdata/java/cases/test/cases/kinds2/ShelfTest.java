package cases.kinds2;

import org.junit.FixMethodOrder;
import org.junit.Test;
import org.junit.runners.MethodSorters;

/** Tests of the kinds2 case (its expected answers: testdata/java/cases/README.md). */
@FixMethodOrder(MethodSorters.NAME_ASCENDING)
public class ShelfTest {
    @Test
    public void fail1ArrayStore() {
        new Shelf().put(Integer.valueOf(1));
    }

    @Test
    public void fail2NumberFormat() {
        new Shelf().parse(" 1x ");
    }

    @Test
    public void fail3ConcurrentModification() {
        Shelf s = new Shelf();
        s.add("");
        s.add("a");
        s.add("b");
        s.dropEmpty();
    }

    @Test
    public void fail4Unsupported() {
        Shelf s = new Shelf();
        s.freeze();
        s.show("x");
    }

    @Test
    public void fail5IllegalStateInJdk() {
        Shelf s = new Shelf();
        s.add("a");
        s.dropFirst(2);
    }

    @Test
    public void pass1() {
        Shelf s = new Shelf();
        s.put("x");
        s.parse(" 12 ");
        s.add("a");
        s.add("b");
        s.dropEmpty();
        s.thaw();
        s.show("c");
        s.dropFirst(1);
    }
}
