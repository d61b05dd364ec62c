package cases.defaults;

/** Field defaults are bundled with the constructor (PAF 3.2). */
public class Account {
    private String owner; // @owner-decl
    private int limit = 10;

    public Account() {
    }

    public Account(String owner) {
        this.owner = owner; // @owner-set
    }

    public Account(boolean check) {
        if (check) limit = owner.length(); // @ctor-use
    }

    public int ownerLength() {
        return owner.length() + limit; // @owner-use
    }
}
