//! A class of the robustness example first loaded after the last test, by ShutdownTest's shutdown hook.
package org.robust;

/** A class first loaded after the last test, by a shutdown hook: for the worker's end. */
public class Late {
    private int seen;

    public int touch() {
        return ++seen;
    }
}
