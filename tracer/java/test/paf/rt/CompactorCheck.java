//! A check of the compactor (tracer/java/e2e.sh runs it): a name written plain and the same name escaped are one variable, two texts are two; with the writer's log of record ends or without, the same records are kept; a compaction beside the test makes the file one at once makes; reading only the records kept, the file reading them all makes.
package paf.rt;

import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.List;

/**
 * A def of local {@code a} is read once, then {@code a} is defined again and 100 branches
 * follow: the first def is kept only as the def the read reached (the last 64 events are kept
 * anyway, and the second def is the reaching one at the end). So the first def survives exactly
 * when the read names the same local as the def. The compactor matches names on their bytes;
 * an escaped token must still meet the plain token of the same text (docs/performance.md,
 * "Ninth round"). Each case runs without the writer's log of record ends, with it, with it from
 * half way on, and with a log that does not match the file; all must keep the same records, and
 * the log after the rewrite must be the new file's (docs/performance.md, "Twelfth round").
 *
 * <p>usage: java -cp paf-rt.jar:DIR paf.rt.CompactorCheck WORKDIR
 */
public final class CompactorCheck {
    private CompactorCheck() {}

    /** How the compactor finds the records' ends. */
    enum Log {
        /** no log kept: it searches for line ends */
        NONE,
        /** the writer's log */
        KEPT,
        /** the writer's log from half way on, as R keeps it: the line ends before it searched for */
        HALF,
        /** a log with a record's end one byte off: it must notice, and search */
        WRONG,
        /** a log without a record's end (two lines for one record): it must notice, and search */
        MISSING
    }

    /** Whether the first def survives when the def writes {@code def} and the use reads {@code use} (JSON tokens). */
    static boolean firstDefKept(File dir, String def, String use) throws Exception {
        Boolean kept = null;
        String file = null;
        for (Log log : Log.values()) {
            File f = new File(dir, "events.jsonl");
            f.delete();
            Out out = new Out(f, false, 1 << 16);
            if (log != Log.NONE && log != Log.HALF) out.logFrom(0);
            List<String> lines = new ArrayList<>();
            lines.add("{\"k\":\"enter\",\"frame\":1,\"method\":\"C.m\"}");
            lines.add("{\"k\":\"def\",\"frame\":1,\"stmt\":1,\"var\":{\"local\":" + def + "},\"how\":\"const\"}");
            lines.add("{\"k\":\"use\",\"frame\":1,\"stmt\":2,\"var\":{\"local\":" + use + "},\"role\":\"deref\"}");
            lines.add("{\"k\":\"def\",\"frame\":1,\"stmt\":3,\"var\":{\"local\":" + def + "},\"how\":\"const\"}");
            for (int i = 0; i < 100; i++) lines.add("{\"k\":\"branch\",\"frame\":1,\"stmt\":4,\"uses\":[]}");
            for (int i = 0; i < lines.size(); i++) {
                if (log == Log.HALF && i == lines.size() / 2) out.logFrom(out.position());
                out.mark();
                out.raw(lines.get(i).getBytes(StandardCharsets.UTF_8));
                out.commit();
                out.logEnd(); // as R.commit does
            }
            out.flush();
            if (log == Log.WRONG) {
                // one record's end moved by a byte: the ends still add up to the file's length
                int[] ends = out.loggedEnds().clone();
                ends[1]++;
                out.relog(0, ends, out.logged(0));
            } else if (log == Log.MISSING) {
                // the second record's end left out: every end logged is still a line's end
                int n = out.logged(0);
                int[] ends = new int[n - 1];
                ends[0] = out.loggedEnds()[0];
                System.arraycopy(out.loggedEnds(), 2, ends, 1, n - 2);
                out.relog(0, ends, n - 1);
            }
            int mismatches = Compactor.logMismatches;
            long n = Compactor.compact(out, 0, 1000);
            // a log that matches is used (not searched past), one that does not is noticed
            boolean wrong = log == Log.WRONG || log == Log.MISSING;
            if (Compactor.logMismatches - mismatches != (wrong ? 1 : 0))
                throw new AssertionError(log + ": the compactor " + (wrong ? "took the wrong log" : "did not use the log"));
            out.flush();
            List<String> after = Files.readAllLines(f.toPath(), StandardCharsets.UTF_8);
            if (after.size() != n) throw new AssertionError(log + ": compact said " + n + " kept, the file has " + after.size());
            checkLog(out, f, log);
            String text = new String(Files.readAllBytes(f.toPath()), StandardCharsets.UTF_8);
            boolean k = after.contains(lines.get(1));
            if (kept == null) {
                kept = k;
                file = text;
            } else if (kept != k || !file.equals(text)) {
                throw new AssertionError(log + ": the compactor kept other records than without a log");
            }
        }
        return kept;
    }

    /** After a compaction, the writer's log holds the ends of the file's records, whatever it held before. */
    private static void checkLog(Out out, File f, Log log) throws Exception {
        int n = out.logged(0);
        if (out.logBase != 0) throw new AssertionError(log + ": the log after compacting starts at " + out.logBase);
        byte[] b = Files.readAllBytes(f.toPath());
        int k = 0;
        for (int i = 0; i < b.length; i++)
            if (b[i] == '\n' && (k >= n || out.loggedEnds()[k++] != i + 1))
                throw new AssertionError(log + ": the log after compacting is not the file's record ends");
        if (k != n) throw new AssertionError(log + ": the log after compacting has " + n + " records, the file " + k);
    }

    private static void expect(File dir, String what, String def, String use, boolean kept) throws Exception {
        boolean got = firstDefKept(dir, def, use);
        if (got != kept) throw new AssertionError(what + ": the first def " + (got ? "was" : "was not") + " kept");
        System.out.println("ok: " + what);
    }

    /**
     * A compaction beside the test: the region is read while records are written after it, and
     * put in place then. The file must be the region compacted at once followed by the records
     * written after it, and the log its record ends, whether the records after the region are
     * in the log or not.
     */
    static void beside(File dir) throws Exception {
        List<String> region = new ArrayList<>(), after = new ArrayList<>();
        region.add("{\"k\":\"enter\",\"frame\":1,\"method\":\"C.m\"}");
        for (int i = 0; i < 300; i++)
            region.add("{\"k\":\"def\",\"frame\":1,\"stmt\":" + (i % 7) + ",\"var\":{\"local\":\"v" + (i % 5)
                    + "\"},\"how\":\"const\"}");
        for (int i = 0; i < 50; i++)
            after.add("{\"k\":\"use\",\"frame\":1,\"stmt\":9,\"var\":{\"local\":\"v" + (i % 5) + "\"},\"role\":\"arg\"}");
        for (boolean logged : new boolean[] {true, false}) {
            // at once: the region alone, compacted
            File once = new File(dir, "once.jsonl");
            Out o = written(once, region);
            long kept = Compactor.compact(o, 0, 1000);
            o.flush();
            StringBuilder want = new StringBuilder(new String(Files.readAllBytes(once.toPath()), StandardCharsets.UTF_8));
            for (String l : after) want.append(l).append('\n');
            // beside: the same region, the records after it written before the rewrite is put in place
            File f = new File(dir, "beside.jsonl");
            Out out = written(f, region);
            Compactor.Job j = new Compactor.Job(out, 0, 1000);
            for (int i = 0; i < after.size(); i++) {
                if (i == 10) j.start(); // some records before the rewrite starts, the rest while it runs
                write(out, after.get(i));
                if (!logged && i == 20) out.logOff();
                if (i == 30) out.flush(); // some written to the file, the rest still in the buffer
            }
            j.await();
            if (j.kept != kept || j.failure != null)
                throw new AssertionError("beside: kept " + j.kept + " (" + j.failure + "), at once " + kept);
            j.apply(out);
            out.flush();
            String got = new String(Files.readAllBytes(f.toPath()), StandardCharsets.UTF_8);
            if (!got.equals(want.toString())) throw new AssertionError("beside: the file is not the region compacted, then the rest");
            if (logged) checkLog(out, f, Log.KEPT);
            else if (out.logged(0) >= 0) throw new AssertionError("beside: a log without the records after the region");
            System.out.println("ok: a compaction beside the test, the records after it " + (logged ? "" : "not ") + "logged");
        }
    }

    /**
     * A rewrite that keeps few records reads only those (runs of them at a time): the file and
     * the log are the ones a rewrite reading the whole region again makes.
     */
    static void sparse(File dir) throws Exception {
        String[] got = new String[2];
        for (int mode = 0; mode < 2; mode++) {
            Compactor.sparse = mode == 0;
            File f = new File(dir, "sparse" + mode + ".jsonl");
            f.delete();
            Out out = new Out(f, false, 1 << 16);
            out.logFrom(0);
            write(out, "{\"k\":\"enter\",\"frame\":1,\"method\":\"C.m\"}");
            for (int i = 0; i < 3000; i++) {
                // a def of one of a few locals now and then (the last of each is kept), branches between
                if (i % 500 == 7) write(out, "{\"k\":\"def\",\"frame\":1,\"stmt\":1,\"var\":{\"local\":\"v" + (i % 3)
                        + "\"},\"how\":\"const\"}");
                else write(out, "{\"k\":\"branch\",\"frame\":1,\"stmt\":" + (i % 11) + ",\"uses\":[]}");
            }
            out.flush();
            long n = Compactor.compact(out, 0, 1000);
            out.flush();
            if (n * 8 >= 3001) throw new AssertionError("sparse: " + n + " records kept, too many for the check");
            checkLog(out, f, Log.KEPT);
            got[mode] = new String(Files.readAllBytes(f.toPath()), StandardCharsets.UTF_8);
        }
        Compactor.sparse = true;
        if (!got[0].equals(got[1])) throw new AssertionError("sparse: reading the records kept wrote another file");
        System.out.println("ok: a rewrite reading only the records kept");
    }

    /** A new file of {@code lines} written as the agent writes a test's, with the log of their ends, flushed. */
    private static Out written(File f, List<String> lines) throws Exception {
        f.delete();
        Out out = new Out(f, false, 1 << 16);
        out.logFrom(0);
        for (String l : lines) write(out, l);
        out.flush();
        return out;
    }

    private static void write(Out out, String line) {
        out.mark();
        out.raw(line.getBytes(StandardCharsets.UTF_8));
        out.commit();
        out.logEnd(); // as R.commit does
    }

    public static void main(String[] args) throws Exception {
        File dir = new File(args[0]);
        dir.mkdirs();
        beside(dir);
        sparse(dir);
        expect(dir, "one name, plain", "\"a\"", "\"a\"", true);
        expect(dir, "two names", "\"a\"", "\"b\"", false);
        expect(dir, "one name, written plain and escaped", "\"\u00e9\"", "\"\\u00e9\"", true);
        expect(dir, "one name with a quote, escaped both times", "\"a\\\"b\"", "\"a\\\"b\"", true);
        expect(dir, "two lone surrogates (no UTF-8 for either)", "\"\\ud800\"", "\"\\udc00\"", false);
        expect(dir, "one lone surrogate, twice", "\"\\ud800\"", "\"\\ud800\"", true);
        expect(dir, "a lone surrogate and the text UTF-8 would replace it with", "\"\\ud800\"", "\"?\"", false);
    }
}
