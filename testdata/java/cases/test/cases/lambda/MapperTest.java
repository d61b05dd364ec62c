package cases.lambda;

import org.junit.FixMethodOrder;
import org.junit.Test;
import org.junit.runners.MethodSorters;

/** Tests of the lambda case (its expected answers: testdata/java/cases/README.md). */
@FixMethodOrder(MethodSorters.NAME_ASCENDING)
public class MapperTest {
    @Test
    public void fail1() {
        new Mapper().apply(null);
    }

    @Test
    public void pass1() {
        new Mapper().apply(" x ");
    }
}
