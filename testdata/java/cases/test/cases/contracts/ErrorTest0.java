package cases.contracts;

import org.junit.FixMethodOrder;
import org.junit.Test;
import org.junit.runners.MethodSorters;

/**
 * Written as Randoop 4 writes its error-revealing tests (the contracts case: expected answers in
 * testdata/java/cases/README.md): contract checks of two classes, and a JDK call the test body
 * makes on a value the code under test returned.
 */
@FixMethodOrder(MethodSorters.NAME_ASCENDING)
public class ErrorTest0 {

    public static boolean debug = false;

    @Test
    public void test01() throws Throwable {
        if (debug)
            System.out.format("%n%s%n", "ErrorTest0.test01");
        cases.contracts.Money money2 = new cases.contracts.Money(100L, "EUR");
        cases.contracts.Money money5 = new cases.contracts.Money(100L, "GBP!");
        // Checks the contract:  equals-hashcode on money2 and money5
        org.junit.Assert.assertTrue("Contract failed: equals-hashcode on money2 and money5", money2.equals((java.lang.Object) money5) ? money2.hashCode() == money5.hashCode() : true);
    }

    @Test
    public void test02() throws Throwable {
        if (debug)
            System.out.format("%n%s%n", "ErrorTest0.test02");
        cases.contracts.Money money2 = new cases.contracts.Money((long) (byte) 1, "");
        cases.contracts.Money money4 = money2.plus((long) (short) 0);
        cases.contracts.Money money7 = new cases.contracts.Money((long) 1, "hi!");
        // Checks the contract:  equals-hashcode on money4 and money7
        org.junit.Assert.assertTrue("Contract failed: equals-hashcode on money4 and money7", money4.equals((java.lang.Object) money7) ? money4.hashCode() == money7.hashCode() : true);
    }

    @Test
    public void test03() throws Throwable {
        if (debug)
            System.out.format("%n%s%n", "ErrorTest0.test03");
        cases.contracts.Tag tag1 = new cases.contracts.Tag("a");
        // Checks the contract:  equals-symmetric on tag1 and str2.
        java.lang.String str2 = "a";
        org.junit.Assert.assertTrue("Contract failed: equals-symmetric on tag1 and str2.", tag1.equals((java.lang.Object) str2) == str2.equals((java.lang.Object) tag1));
    }

    @Test
    public void test04() throws Throwable {
        if (debug)
            System.out.format("%n%s%n", "ErrorTest0.test04");
        cases.contracts.Tag tag1 = new cases.contracts.Tag("");
        java.lang.String str3 = tag1.name();
        // Checks the contract:  equals-symmetric on tag1 and str3.
        org.junit.Assert.assertTrue("Contract failed: equals-symmetric on tag1 and str3.", tag1.equals((java.lang.Object) str3) == str3.equals((java.lang.Object) tag1));
    }

    @Test
    public void test05() throws Throwable {
        if (debug)
            System.out.format("%n%s%n", "ErrorTest0.test05");
        cases.contracts.Tag tag1 = new cases.contracts.Tag("x");
        int int3 = java.lang.Integer.parseInt(tag1.name());
    }
}
