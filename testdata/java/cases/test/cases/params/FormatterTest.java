package cases.params;

import org.junit.FixMethodOrder;
import org.junit.Test;
import org.junit.runners.MethodSorters;

/** Tests of the params case (its expected answers: testdata/java/cases/README.md). */
@FixMethodOrder(MethodSorters.NAME_ASCENDING)
public class FormatterTest {
    @Test
    public void fail1() {
        new Formatter().width(null);
    }

    @Test
    public void pass1() {
        new Formatter().width("ab");
    }
}
