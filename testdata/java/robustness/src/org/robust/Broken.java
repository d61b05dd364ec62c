package org.robust;

/** A class the agent is told (test hook --fail-class) it cannot instrument: it still runs, uninstrumented. */
public class Broken {
    public String name() {
        return "broken";
    }
}
