package cases.theta;

import org.junit.FixMethodOrder;
import org.junit.Test;
import org.junit.runners.MethodSorters;

/** Tests of the theta case (its expected answers: testdata/java/cases/README.md). */
@FixMethodOrder(MethodSorters.NAME_ASCENDING)
public class PickerTest {
    @Test
    public void fail1() {
        new Picker().pick(0, null, "b");
    }

    @Test
    public void pass1() {
        new Picker().pick(1, null, "b");
    }
}
