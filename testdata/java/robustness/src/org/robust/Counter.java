package org.robust;

/** A counter whose methods can crash the JVM or never end: for the supervisor's checks. */
public class Counter {
    private int value;

    public int inc() {
        return ++value;
    }

    /** Kills the JVM the way a native crash would: no shutdown hooks, no flush. */
    public void crash() {
        Runtime.getRuntime().halt(134);
    }

    /** Never returns. */
    public void spin() {
        while (value >= 0) {
            value = value + 1 - 1;
        }
    }
}
