//! Times the agent's compactor alone on a file of event records, and writes what it keeps (a measuring aid: docs/performance.md, "Twelfth round").
package paf.rt;

import java.io.BufferedReader;
import java.io.File;
import java.io.FileInputStream;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.StandardCopyOption;

/**
 * usage: java -XX:TieredStopAtLevel=1 -cp paf-rt.jar:DIR paf.rt.CompactBench EVENTS OUT [ROUNDS [nolog]]
 *
 * <p>Writes EVENTS (one record a line, as the agent writes them: for instance the lines of a
 * worker's part file) through the runtime's writer with its log of record ends, as a test's
 * events are written, then compacts a copy ROUNDS times (default 1), printing the time of each;
 * OUT is left holding what the compactor kept. {@code nolog}: the compactor searches for the
 * line ends, as it does without the log. Not a check: e2e.sh compiles it, and runs only the
 * {@code *Check} classes.
 */
public final class CompactBench {
    private CompactBench() {}

    public static void main(String[] args) throws Exception {
        File in = new File(args[0]), out = new File(args[1]);
        int rounds = args.length > 2 ? Integer.parseInt(args[2]) : 1;
        boolean log = !(args.length > 3 && args[3].equals("nolog"));
        File copy = new File(out.getPath() + ".in");
        Out w = new Out(copy, false, 1 << 20);
        w.logFrom(0);
        try (BufferedReader r = new BufferedReader(new InputStreamReader(new FileInputStream(in), StandardCharsets.UTF_8))) {
            String line;
            while ((line = r.readLine()) != null) {
                w.mark();
                w.raw(line.getBytes(StandardCharsets.UTF_8));
                w.commit();
                w.logEnd(); // as R.commit does
                if (w.due()) w.flush();
            }
        }
        w.close();
        int records = w.logged(0);
        if (records < 0) throw new IllegalStateException("no log: a record ends 2 GiB or more into " + in);
        int[] ends = java.util.Arrays.copyOf(w.loggedEnds(), records);
        for (int round = 0; round < rounds; round++) {
            Files.copy(copy.toPath(), out.toPath(), StandardCopyOption.REPLACE_EXISTING);
            Out o = new Out(out, true, 1 << 20);
            if (log) {
                o.logFrom(0);
                o.relog(0, ends.clone(), records);
            }
            long t0 = System.nanoTime();
            long kept = Compactor.compact(o, 0, Long.MAX_VALUE);
            long t1 = System.nanoTime();
            o.close();
            System.out.printf("round %d: %d records, kept %d, in %.3f s%n", round, records, kept, (t1 - t0) / 1e9);
        }
        copy.delete();
    }
}
