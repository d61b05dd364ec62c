package cases.arrays;

/** Array elements: the element held in field slots, defined by its allocation or by put. */
public class Slots {
    private final Object[] slots = new Object[4]; // @alloc

    public void put(int i, Object o) {
        slots[i] = o; // @put
    }

    public int code(int i) {
        return slots[i].hashCode(); // @use
    }
}
