package cases.lifecycle;

import org.junit.Before;
import org.junit.Test;

/** Defect 7: a failing @Before; the body never runs. */
public class BeforeTest {
    @Before
    public void setUp() {
        new Widget(null).size();
    }

    @Test
    public void fail1() {
        new Widget("ok").size();
    }
}
