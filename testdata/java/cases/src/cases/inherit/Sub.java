package cases.inherit;

/** Reads the inherited field: the bytecode names it Sub.f, the JVM resolves it to Base.f. */
public class Sub extends Base {
    public int len() {
        return f.hashCode(); // @f-use
    }
}
