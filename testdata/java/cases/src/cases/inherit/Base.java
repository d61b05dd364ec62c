package cases.inherit;

/** Declares the field that Sub reads (defect 1: inherited fields). */
public class Base {
    protected Object f; // @f-decl

    public void set(Object o) {
        f = o; // @f-set
    }
}
