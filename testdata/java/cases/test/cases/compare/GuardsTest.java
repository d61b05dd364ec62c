package cases.compare;

import org.junit.FixMethodOrder;
import org.junit.Test;
import org.junit.runners.MethodSorters;

/** Tests of the compare case (its expected answers: testdata/java/cases/README.md). */
@FixMethodOrder(MethodSorters.NAME_ASCENDING)
public class GuardsTest {
    @Test
    public void failBool() {
        Guards.enabled(false);
    }

    @Test
    public void failDouble() {
        Guards.positiveDouble(0.25);
    }

    @Test
    public void failDoubleL() {
        Guards.smallDouble(2.5);
    }

    @Test
    public void failFloat() {
        Guards.positiveFloat(-1f);
    }

    @Test
    public void failFloatL() {
        Guards.smallFloat(2f);
    }

    @Test
    public void failInt() {
        Guards.positiveInt(0);
    }

    @Test
    public void failLong() {
        Guards.positiveLong(-5L);
    }

    @Test
    public void failNull() {
        Guards.present(null);
    }

    @Test
    public void failRange() {
        Guards.ordered(3, 1);
    }

    @Test
    public void failRef() {
        Object o = new Object();
        Guards.distinct(o, o);
    }

    @Test
    public void failSwitch() {
        Guards.known(7);
    }

    @Test
    public void pass1() {
        Guards.enabled(true);
        Guards.positiveDouble(1.0);
        Guards.smallDouble(1.0);
        Guards.positiveFloat(1f);
        Guards.smallFloat(1f);
        Guards.positiveInt(1);
        Guards.positiveLong(1L);
        Guards.present("x");
        Guards.ordered(1, 3);
        Guards.distinct("a", "b");
        Guards.known(2);
    }
}
