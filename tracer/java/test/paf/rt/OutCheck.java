//! A check of the trace writer's appenders (tracer/java/e2e.sh runs it): numbers as Long.toString writes them, literals as their text.
package paf.rt;

import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.Random;

/**
 * {@link Out#num} formats an int without a division (docs/performance.md, "Ninth round"), so every
 * digit count, both ends of the int range, the longs past it and a seeded sample are written (as
 * longs, and those that are ints as ints too) and compared with {@link Long#toString}. {@link Out#a} copies a literal's cached bytes: two strings
 * whose hashes share a slot of the cache, and a string that is not a constant, must still come
 * out as their own text.
 *
 * <p>usage: java -cp paf-rt.jar:DIR paf.rt.OutCheck WORKDIR
 */
public final class OutCheck {
    private OutCheck() {}

    public static void main(String[] args) throws Exception {
        // num's quotient by 100, a multiplication and a shift, against the division for every
        // non-negative int (a few seconds)
        for (int w = 0;; w++) {
            if ((int) ((w * 1374389535L) >>> 37) != w / 100) throw new AssertionError("quotient of " + w + " by 100");
            if (w == Integer.MAX_VALUE) break;
        }
        File dir = new File(args[0]);
        dir.mkdirs();
        File f = new File(dir, "out.txt");
        Out out = new Out(f, false, 1 << 10);
        StringBuilder expected = new StringBuilder();
        long[] edges = {0, 1, 9, 10, 11, 99, 100, 101, 999_999_999L, 1_000_000_000L, Integer.MAX_VALUE - 1L,
                Integer.MAX_VALUE, Integer.MAX_VALUE + 1L, -1, -10, Integer.MIN_VALUE, Integer.MIN_VALUE - 1L,
                Long.MAX_VALUE, Long.MIN_VALUE, Long.MIN_VALUE + 1};
        Random random = new Random(17);
        long[] numbers = new long[edges.length + 100_000];
        System.arraycopy(edges, 0, numbers, 0, edges.length);
        for (int p = 1, i = edges.length; p < 1_000_000_000 && i < numbers.length; p *= 10) {
            numbers[i++] = p - 1;
            numbers[i++] = p;
        }
        for (int i = edges.length + 20; i < numbers.length; i++)
            numbers[i] = i % 2 == 0 ? random.nextInt() & Integer.MAX_VALUE : random.nextLong();
        int ints = 0;
        for (long n : numbers) {
            out.num(n).b('\n');
            out.commit();
            expected.append(n).append("\n\n");
            // num(int), which the runtime's int ids take, on every number that is an int
            if (n == (int) n) {
                out.num((int) n).b('\n');
                out.commit();
                expected.append(n).append("\n\n");
                ints++;
            }
        }
        // "Aa" and "BB" have the same hash, so they share the literal cache's slot
        String[] literals = {"Aa", "BB", "Aa", new String("BB".toCharArray()), "{\"k\":\"use\",\"frame\":", "BB"};
        for (String l : literals) {
            out.a(l);
            out.commit();
            expected.append(l).append('\n');
        }
        out.flush();
        String got = new String(Files.readAllBytes(f.toPath()), StandardCharsets.UTF_8);
        if (!got.equals(expected.toString())) {
            String[] g = got.split("\n", -1), e = expected.toString().split("\n", -1);
            for (int i = 0; i < Math.min(g.length, e.length); i++)
                if (!g[i].equals(e[i])) throw new AssertionError("line " + (i + 1) + ": wrote " + g[i] + ", expected " + e[i]);
            throw new AssertionError("wrote " + g.length + " lines, expected " + e.length);
        }
        System.out.println("ok: the quotient by 100 of every non-negative int; " + numbers.length + " numbers (" + ints + " ints also as ints) as Long.toString writes them, " + literals.length
                + " literals as their text (two sharing a cache slot)");
    }
}
