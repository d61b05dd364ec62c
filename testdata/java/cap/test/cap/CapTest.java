package cap;

import org.junit.FixMethodOrder;
import org.junit.Test;
import org.junit.runners.MethodSorters;

/** Tests of the cap case (its expected answers: testdata/java/cap/README.md). */
@FixMethodOrder(MethodSorters.NAME_ASCENDING)
public class CapTest {
    @Test
    public void fail1AfterInitializer() {
        new Tables().lookup(3);
    }

    @Test
    public void fail2LongRun() {
        new Churn().run(20000);
    }

    @Test
    public void pass1() {
        Tables t = new Tables();
        t.setName("n");
        t.lookup(2);
        Churn c = new Churn();
        c.setLabel("x");
        c.run(3);
    }
}
