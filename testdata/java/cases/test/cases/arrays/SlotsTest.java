package cases.arrays;

import org.junit.FixMethodOrder;
import org.junit.Test;
import org.junit.runners.MethodSorters;

/** Tests of the arrays case (its expected answers: testdata/java/cases/README.md). */
@FixMethodOrder(MethodSorters.NAME_ASCENDING)
public class SlotsTest {
    @Test
    public void fail1() {
        new Slots().code(1);
    }

    @Test
    public void pass1() {
        Slots s = new Slots();
        s.put(0, "x");
        s.code(0);
    }
}
