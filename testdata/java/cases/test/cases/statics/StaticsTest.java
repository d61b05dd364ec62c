package cases.statics;

import org.junit.FixMethodOrder;
import org.junit.Test;
import org.junit.runners.MethodSorters;

/** Tests of the statics case (its expected answers: testdata/java/cases/README.md). */
@FixMethodOrder(MethodSorters.NAME_ASCENDING)
public class StaticsTest {
    @Test
    public void fail1() {
        Registry.install("a");
        Registry.clear();
        new Client().code();
    }

    @Test
    public void pass1() {
        Registry.install("b");
        new Client().code();
    }
}
