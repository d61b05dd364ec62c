package cases.clinit;

/** A class initializer that fails (defect 8): NPE in <clinit>, seen by the test as ExceptionInInitializerError. */
public class Seeds {
    static final Object SEED = seed(); // @seed-def
    static final int HASH = SEED.hashCode(); // @seed-use

    static Object seed() {
        return null; // @seed-null
    }

    public static int hash() {
        return HASH;
    }
}
