package cases.contracts;

/** Randoop's equals-hashcode contract: equals compares the amount, hashCode hashes the currency. */
public class Money {
    private final long cents; // @cents-decl
    private final String currency; // @cur-decl

    public Money(long cents, String currency) { // @m-ctor
        this.cents = cents; // @m-cents
        this.currency = currency; // @m-cur
    }

    public Money plus(long more) {
        return new Money(cents + more, currency);
    }

    public long cents() {
        return cents; // @m-get
    }

    @Override
    public boolean equals(Object o) {
        if (!(o instanceof Money)) return false;
        Money m = (Money) o;
        return cents == m.cents; // @m-eq
    }

    @Override
    public int hashCode() {
        return currency.length(); // @m-hash
    }
}
