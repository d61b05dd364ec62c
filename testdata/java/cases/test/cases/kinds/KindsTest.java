package cases.kinds;

import org.junit.FixMethodOrder;
import org.junit.Test;
import org.junit.runners.MethodSorters;

/** Tests of the kinds case (its expected answers: testdata/java/cases/README.md). */
@FixMethodOrder(MethodSorters.NAME_ASCENDING)
public class KindsTest {
    @Test
    public void fail1Index() {
        Kinds k = new Kinds();
        k.add("a");
        k.at(0);
    }

    @Test
    public void fail2StringIndex() {
        new Kinds().initial("ab", 5);
    }

    @Test
    public void fail3Divide() {
        new Kinds().share(10);
    }

    @Test
    public void fail4Cast() {
        new Kinds().label(Integer.valueOf(42));
    }

    @Test
    public void fail5NegativeSize() {
        new Kinds().slots(-1);
    }

    @Test
    public void pass1() {
        Kinds k = new Kinds();
        k.add("a");
        k.at(1);
        k.initial("ab", 0);
        k.split(2);
        k.share(10);
        k.label("x");
        k.slots(3);
    }
}
