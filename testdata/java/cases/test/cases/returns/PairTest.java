package cases.returns;

import org.junit.FixMethodOrder;
import org.junit.Test;
import org.junit.runners.MethodSorters;

/** Tests of the returns case (its expected answers: testdata/java/cases/README.md). */
@FixMethodOrder(MethodSorters.NAME_ASCENDING)
public class PairTest {
    @Test
    public void fail1() {
        new Pair("x").code(false);
    }

    @Test
    public void pass1() {
        new Pair("x").code(true);
    }
}
