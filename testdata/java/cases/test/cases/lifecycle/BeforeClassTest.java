package cases.lifecycle;

import org.junit.BeforeClass;
import org.junit.Test;

/** Defect 7: a failing @BeforeClass; no test method runs. */
public class BeforeClassTest {
    @BeforeClass
    public static void setUpClass() {
        new Widget(null).size();
    }

    @Test
    public void never() {
        new Widget("ok").size();
    }
}
