import org.junit.FixMethodOrder;
import org.junit.Test;
import org.junit.runners.MethodSorters;

// Randoop style. test1 passes, but its create("1x") throws before OptionBuilder resets its
// static state: OptionBuilder.required stays true for the tests that run after it. test4 passes
// only because test3 registered a default option before it: alone it fails with a
// NullPointerException in Parser.defaultNameLength, a failure the default order masks.
@FixMethodOrder(MethodSorters.NAME_ASCENDING)
public class RegressionTest0 {

    public static boolean debug = false;

    @Test
    public void test1() throws Throwable {
        if (debug)
            System.out.format("%n%s%n", "RegressionTest0.test1");
        org.cli.OptionBuilder.withLongName("verbose");
        org.cli.OptionBuilder.isRequired();
        // during test generation this statement threw an exception of type java.lang.IllegalArgumentException in error
        try {
            org.cli.Option option2 = org.cli.OptionBuilder.create("1x");
            org.junit.Assert.fail("Expected exception of type java.lang.IllegalArgumentException; message: invalid option name: 1x");
        } catch (java.lang.IllegalArgumentException e) {
            // Expected exception.
        }
    }

    @Test
    public void test2() throws Throwable {
        if (debug)
            System.out.format("%n%s%n", "RegressionTest0.test2");
        org.cli.Option option1 = new org.cli.Option("a");
        option1.setRequired(true);
        org.cli.Options options2 = new org.cli.Options();
        org.cli.Options options3 = options2.add(option1);
        org.cli.Parser parser4 = new org.cli.Parser();
        java.lang.String[] str_array5 = new java.lang.String[] { "-a" };
        int int6 = parser4.parse(options3, str_array5);
        org.junit.Assert.assertTrue("'" + int6 + "' != '" + 1 + "'", int6 == 1);
    }

    @Test
    public void test3() throws Throwable {
        if (debug)
            System.out.format("%n%s%n", "RegressionTest0.test3");
        org.cli.Option option1 = new org.cli.Option("v");
        option1.setRequired(true);
        org.cli.Defaults.register(option1);
        org.cli.Parser parser3 = new org.cli.Parser();
        java.lang.String[] str_array4 = new java.lang.String[] { "-v" };
        int int5 = parser3.parseDefaults(str_array4);
        org.junit.Assert.assertTrue("'" + int5 + "' != '" + 1 + "'", int5 == 1);
    }

    @Test
    public void test4() throws Throwable {
        if (debug)
            System.out.format("%n%s%n", "RegressionTest0.test4");
        org.cli.Parser parser1 = new org.cli.Parser();
        int int2 = parser1.defaultNameLength();
        org.junit.Assert.assertTrue("'" + int2 + "' != '" + 1 + "'", int2 == 1);
    }
}
