import org.junit.FixMethodOrder;
import org.junit.Test;
import org.junit.runners.MethodSorters;

// Randoop style. test1 fails only after RegressionTest0.test1 ran in the same JVM (which left
// OptionBuilder.required set), test2 only after RegressionTest0.test3 (which registered a
// required default option in the static list Defaults.OPTIONS); run alone, each passes.
// Order-dependent false alarms.
@FixMethodOrder(MethodSorters.NAME_ASCENDING)
public class ErrorTest0 {

    public static boolean debug = false;

    @Test
    public void test1() throws Throwable {
        if (debug)
            System.out.format("%n%s%n", "ErrorTest0.test1");
        org.cli.Option option1 = org.cli.OptionBuilder.create("x");
        org.cli.Options options2 = new org.cli.Options();
        org.cli.Options options3 = options2.add(option1);
        org.cli.Parser parser4 = new org.cli.Parser();
        java.lang.String[] str_array5 = new java.lang.String[] {};
        // during test generation this statement threw an exception of type org.cli.MissingOptionException in error
        int int6 = parser4.parse(options3, str_array5);
    }

    @Test
    public void test2() throws Throwable {
        if (debug)
            System.out.format("%n%s%n", "ErrorTest0.test2");
        org.cli.Parser parser1 = new org.cli.Parser();
        java.lang.String[] str_array2 = new java.lang.String[] {};
        // during test generation this statement threw an exception of type org.cli.MissingOptionException in error
        int int3 = parser1.parseDefaults(str_array2);
    }
}
