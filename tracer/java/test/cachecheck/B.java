//! A class CacheCheck instruments, records and replays: a static method A calls.
package cachecheck;

public class B {
    static int twice(int x) {
        return 2 * x;
    }
}
