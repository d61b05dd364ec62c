package cases.inherit;

import org.junit.FixMethodOrder;
import org.junit.Test;
import org.junit.runners.MethodSorters;

/** Tests of the inherit case (its expected answers: testdata/java/cases/README.md). */
@FixMethodOrder(MethodSorters.NAME_ASCENDING)
public class InheritTest {
    @Test
    public void fail1() {
        new Sub().len();
    }

    @Test
    public void pass1() {
        Sub s = new Sub();
        s.set("x");
        s.len();
    }
}
