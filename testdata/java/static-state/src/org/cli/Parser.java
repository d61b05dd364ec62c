package org.cli;

/** Parses a command line against options. */
public class Parser {
    /** The number of the given arguments that name an option; a required option must be given. */
    public int parse(Options options, String[] args) {
        int matched = 0;
        for (Option o : options.all()) {
            boolean seen = false;
            for (String a : args) {
                if (a.equals("-" + o.getName())) {
                    seen = true;
                    matched++;
                }
            }
            boolean required = o.isRequired();
            if (!seen && required) {
                throw new MissingOptionException("missing required option " + o.getName());
            }
        }
        return matched;
    }

    /** The length of the first default option's name (there must be one). */
    public int defaultNameLength() {
        Option o = Defaults.first();
        return o.getName().length();
    }

    /** Parses against the registered default options. */
    public int parseDefaults(String[] args) {
        Options options = new Options();
        for (Option o : Defaults.all()) {
            options.add(o);
        }
        return parse(options, args);
    }
}
