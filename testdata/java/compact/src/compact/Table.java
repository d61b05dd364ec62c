package compact;

/** A class whose initializer does some work (about 600 events). */
public class Table {
    static final int SIZE;
    static final int[] VALUES = new int[100];

    static {
        for (int i = 0; i < VALUES.length; i++) VALUES[i] = i * 3;
        SIZE = VALUES.length;
    }
}
