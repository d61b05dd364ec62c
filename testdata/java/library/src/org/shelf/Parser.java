package org.shelf;

/**
 * Parsing helpers.
 *
 * PRECONDITION TRAP: the text must not be null.
 */
public class Parser {
    private int parsed;

    public static int parseInt(String text) {
        String t = text.trim();
        if (t.isEmpty()) {
            return 0;
        }
        return Integer.parseInt(t);
    }

    public int count(String csv) {
        String[] parts = csv.split(",");
        parsed += parts.length;
        return parts.length;
    }

    public int parsed() {
        return parsed;
    }
}
