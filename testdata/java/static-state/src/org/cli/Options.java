package org.cli;

import java.util.ArrayList;
import java.util.List;

/** A set of options. */
public class Options {
    private final List<Option> options = new ArrayList<>();

    public Options add(Option o) {
        options.add(o);
        return this;
    }

    public List<Option> all() {
        return options;
    }
}
