package org.cli;

/**
 * Builds options from static state, as Commons CLI 1.x's OptionBuilder does (the DTDetector
 * paper's CLI case): withLongName and isRequired set static fields that create() reads and then
 * resets. create() validates the name BEFORE it resets, so a create() that throws leaves the
 * static fields set for whatever test runs next.
 */
public final class OptionBuilder {
    private static String longName;
    private static boolean required;

    private OptionBuilder() {}

    public static void withLongName(String name) {
        longName = name;
    }

    public static void isRequired() {
        required = true;
    }

    public static Option create(String name) {
        if (name == null || name.isEmpty() || !Character.isLetter(name.charAt(0))) {
            throw new IllegalArgumentException("invalid option name: " + name);
        }
        Option o = new Option(name);
        o.setLongName(longName);
        o.setRequired(required);
        reset();
        return o;
    }

    private static void reset() {
        longName = null;
        required = false;
    }
}
