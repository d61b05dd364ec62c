package cases.statics;

/** A static field written by two methods and read through a subclass. */
public class Registry {
    static Object current;

    public static void install(Object o) {
        current = o; // @install
    }

    public static void clear() {
        current = null; // @clear
    }
}
