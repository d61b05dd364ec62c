package cases.casts;

import org.junit.FixMethodOrder;
import org.junit.Test;
import org.junit.runners.MethodSorters;

/** Tests of the casts case (its expected answers: testdata/java/cases/README.md). */
@FixMethodOrder(MethodSorters.NAME_ASCENDING)
public class CasterTest {
    @Test
    public void fail1() {
        new Caster().len();
    }

    @Test
    public void pass1() {
        Caster c = new Caster();
        c.hold("x");
        c.len();
    }
}
