package cases.overflow;

import org.junit.FixMethodOrder;
import org.junit.Test;
import org.junit.runners.MethodSorters;

/** Tests of the overflow case (its expected answers: testdata/java/cases/README.md). */
@FixMethodOrder(MethodSorters.NAME_ASCENDING)
public class ChainTest {
    @Test
    public void fail1Overflow() {
        Chain c = new Chain();
        c.link(c);
        c.depth();
    }

    @Test
    public void fail2OutOfMemory() {
        Chain.hog();
    }

    @Test
    public void pass1() {
        Chain a = new Chain();
        a.link(new Chain());
        a.depth();
    }
}
