package cases.lifecycle;

import org.junit.After;
import org.junit.FixMethodOrder;
import org.junit.Test;
import org.junit.runners.MethodSorters;

/** Defect 7: a failing body followed by a failing @After (its own exception), and an @After failing alone. */
@FixMethodOrder(MethodSorters.NAME_ASCENDING)
public class LifecycleTest {
    private boolean breakTearDown;

    @After
    public void tearDown() {
        if (breakTearDown) throw new IllegalStateException("tearDown failed");
    }

    @Test
    public void fail1BodyAndTearDown() {
        breakTearDown = true;
        new Widget(null).size();
    }

    @Test
    public void fail2OnlyTearDown() {
        breakTearDown = true;
        new Widget("ok").size();
    }

    @Test
    public void pass1() {
        new Widget("ok").size();
    }
}
