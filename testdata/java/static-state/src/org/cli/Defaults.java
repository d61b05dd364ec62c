package org.cli;

import java.util.ArrayList;
import java.util.List;

/**
 * Options every parser knows, registered in a static list (state reachable from a static field),
 * and the first one registered (a static field that stays null until some test registers one).
 */
public final class Defaults {
    private static final List<Option> OPTIONS = new ArrayList<>();
    private static Option first;

    private Defaults() {}

    public static void register(Option o) {
        OPTIONS.add(o);
        if (first == null) {
            first = o;
        }
    }

    public static Option first() {
        return first;
    }

    public static List<Option> all() {
        return OPTIONS;
    }
}
