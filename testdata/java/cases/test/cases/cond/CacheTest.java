package cases.cond;

import org.junit.FixMethodOrder;
import org.junit.Test;
import org.junit.runners.MethodSorters;

/** Tests of the cond case (its expected answers: testdata/java/cases/README.md). */
@FixMethodOrder(MethodSorters.NAME_ASCENDING)
public class CacheTest {
    @Test
    public void fail1CacheNeverFilled() {
        new Cache(true).code();
    }

    @Test
    public void fail2CacheOff() {
        new Cache(false).code();
    }

    @Test
    public void fail3BothNull() {
        new Cache(true).either(null, null);
    }

    @Test
    public void fail4BadRange() {
        new Cache(true).range(5, 1);
    }

    @Test
    public void pass1() {
        Cache c = new Cache(true);
        c.fill("x");
        c.code();
    }

    @Test
    public void pass2() {
        Cache c = new Cache(true);
        c.either("a", null);
        c.range(1, 5);
    }
}
