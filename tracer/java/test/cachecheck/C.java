//! A class CacheCheck instruments, records and replays; its record run pretends it cannot be instrumented (the agent's fail option).
package cachecheck;

public class C extends A {
    String name = "c";

    public String name() {
        return name + total;
    }
}
