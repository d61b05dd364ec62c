//! A class CacheCheck instruments, records and replays: a field, a loop and a call to B.
package cachecheck;

public class A {
    int total;

    public int add(int[] xs) {
        for (int x : xs) total += B.twice(x);
        return total;
    }
}
