package cases.defaults;

import org.junit.FixMethodOrder;
import org.junit.Test;
import org.junit.runners.MethodSorters;

/** Tests of the defaults case (its expected answers: testdata/java/cases/README.md). */
@FixMethodOrder(MethodSorters.NAME_ASCENDING)
public class AccountTest {
    @Test
    public void fail1NoOwner() {
        new Account().ownerLength();
    }

    @Test
    public void fail2CheckInConstructor() {
        new Account(true);
    }

    @Test
    public void pass1() {
        new Account("bob").ownerLength();
        new Account(false);
    }
}
