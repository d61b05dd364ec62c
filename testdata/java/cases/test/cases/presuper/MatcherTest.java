package cases.presuper;

import org.junit.FixMethodOrder;
import org.junit.Test;
import org.junit.runners.MethodSorters;

/** Tests of the presuper case (its expected answers: testdata/java/cases/README.md). */
@FixMethodOrder(MethodSorters.NAME_ASCENDING)
public class MatcherTest {
    @Test
    public void fail1() {
        new Matcher(new Source());
    }

    @Test
    public void pass1() {
        new Matcher(new Source("ab"));
    }
}
