package org.shelf;

/**
 * A log that keeps the last {@code capacity} lines.
 *
 * REAL FAULT F2: get(i) indexes slots[head + i] without wrapping around, so once the log has
 * overwritten its oldest line (head > 0), get of a valid position runs past the array.
 */
public class RingLog {
    private final String[] slots;
    private int head;
    private int size;

    public RingLog(int capacity) {
        if (capacity <= 0) {
            throw new IllegalArgumentException("capacity must be positive: " + capacity);
        }
        slots = new String[capacity];
    }

    public void append(String line) {
        int at = (head + size) % slots.length;
        slots[at] = line;
        if (size < slots.length) {
            size++;
        } else {
            head = (head + 1) % slots.length;
        }
    }

    public String get(int i) {
        if (i < 0 || i >= size) {
            throw new IllegalArgumentException("no line " + i + " in a log of " + size);
        }
        return slots[head + i]; // F2: should be slots[(head + i) % slots.length]
    }

    public int size() {
        return size;
    }

    public int capacity() {
        return slots.length;
    }
}
