package cases.clinit;

import org.junit.FixMethodOrder;
import org.junit.Test;
import org.junit.runners.MethodSorters;

/** Tests of the clinit case (its expected answers: testdata/java/cases/README.md). */
@FixMethodOrder(MethodSorters.NAME_ASCENDING)
public class SeedsTest {
    @Test
    public void fail1() {
        new Lookup().find();
    }
}
