import static org.junit.Assert.assertEquals;

import org.junit.FixMethodOrder;
import org.junit.Test;
import org.junit.runners.MethodSorters;

/** Tests for the supervisor: one kills its JVM, one never ends; every other test must be in the bundle. */
@FixMethodOrder(MethodSorters.NAME_ASCENDING)
public class RobustTest {
    @Test
    public void test1Passes() {
        assertEquals(1, new org.robust.Counter().inc());
    }

    @Test
    public void test2KillsTheJvm() {
        new org.robust.Counter().crash();
    }

    @Test
    public void test3Passes() {
        assertEquals(1, new org.robust.Counter().inc());
    }

    @Test
    public void test4NeverEnds() {
        new org.robust.Counter().spin();
    }

    @Test
    public void test5UsesAnUninstrumentedClass() {
        assertEquals("broken", new org.robust.Broken().name());
    }

    @Test
    public void test6Fails() {
        org.robust.Counter c = null;
        c.inc();
    }
}
