package cases.clinit;

/** The method under test whose first access to Seeds runs (and fails) Seeds' initializer. */
public class Lookup {
    public int find() {
        return Seeds.hash() + 1;
    }
}
