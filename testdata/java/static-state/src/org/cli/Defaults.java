package org.cli;

import java.util.ArrayList;
import java.util.List;

/** Options every parser knows, registered in a static list (state reachable from a static field). */
public final class Defaults {
    private static final List<Option> OPTIONS = new ArrayList<>();

    private Defaults() {}

    public static void register(Option o) {
        OPTIONS.add(o);
    }

    public static List<Option> all() {
        return OPTIONS;
    }
}
