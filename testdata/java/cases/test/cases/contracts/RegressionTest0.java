package cases.contracts;

import org.junit.FixMethodOrder;
import org.junit.Test;
import org.junit.runners.MethodSorters;

/**
 * Written as Randoop 4 writes its regression tests (the contracts case: expected answers in
 * testdata/java/cases/README.md): test2's recorded value no longer holds.
 */
@FixMethodOrder(MethodSorters.NAME_ASCENDING)
public class RegressionTest0 {

    public static boolean debug = false;

    @Test
    public void test1() throws Throwable {
        cases.contracts.Money money2 = new cases.contracts.Money((long) 1, "EUR");
        cases.contracts.Money money4 = new cases.contracts.Money((long) 1, "EUR");
        boolean boolean5 = money2.equals((java.lang.Object) money4);
        int int6 = money2.hashCode();
        long long7 = money2.cents();
        cases.contracts.Tag tag9 = new cases.contracts.Tag("a");
        boolean boolean11 = tag9.equals((java.lang.Object) "a");
        java.lang.String str12 = tag9.name();
        org.junit.Assert.assertTrue("'" + boolean5 + "' != '" + true + "'", boolean5 == true);
        org.junit.Assert.assertTrue("'" + int6 + "' != '" + 3 + "'", int6 == 3);
        org.junit.Assert.assertTrue("'" + long7 + "' != '" + 1L + "'", long7 == 1L);
        org.junit.Assert.assertTrue("'" + boolean11 + "' != '" + true + "'", boolean11 == true);
        org.junit.Assert.assertEquals("'" + str12 + "' != '" + "a" + "'", str12, "a");
    }

    @Test
    public void test2() throws Throwable {
        cases.contracts.Money money2 = new cases.contracts.Money((long) 5, "EUR");
        long long3 = money2.cents();
        cases.contracts.Money money5 = money2.plus((long) 2);
        org.junit.Assert.assertNotNull(money5);
        org.junit.Assert.assertTrue("'" + long3 + "' != '" + 7L + "'", long3 == 7L);
    }
}
