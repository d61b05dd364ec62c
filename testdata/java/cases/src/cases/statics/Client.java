package cases.statics;

/** Reads Registry.current as an inherited static (bytecode owner: Client). */
public class Client extends Registry {
    public int code() {
        return current.hashCode(); // @use
    }
}
