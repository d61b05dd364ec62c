package cases.locals;

import org.junit.FixMethodOrder;
import org.junit.Test;
import org.junit.runners.MethodSorters;

/** Tests of the locals case (its expected answers: testdata/java/cases/README.md). */
@FixMethodOrder(MethodSorters.NAME_ASCENDING)
public class NamesTest {
    @Test
    public void fail1() {
        new Names().length("missing");
    }

    @Test
    public void pass1() {
        Names n = new Names();
        n.put("k", "value");
        n.length("k");
    }
}
