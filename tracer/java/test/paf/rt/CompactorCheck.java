//! A check of the compactor's names (tracer/java/e2e.sh runs it): a name written plain and the same name escaped are one variable, two texts are two.
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
 * "Ninth round").
 *
 * <p>usage: java -cp paf-rt.jar:DIR paf.rt.CompactorCheck WORKDIR
 */
public final class CompactorCheck {
    private CompactorCheck() {}

    /** Whether the first def survives when the def writes {@code def} and the use reads {@code use} (JSON tokens). */
    static boolean firstDefKept(File dir, String def, String use) throws Exception {
        File f = new File(dir, "events.jsonl");
        f.delete();
        Out out = new Out(f, false, 1 << 16);
        List<String> lines = new ArrayList<>();
        lines.add("{\"k\":\"enter\",\"frame\":1,\"method\":\"C.m\"}");
        lines.add("{\"k\":\"def\",\"frame\":1,\"stmt\":1,\"var\":{\"local\":" + def + "},\"how\":\"const\"}");
        lines.add("{\"k\":\"use\",\"frame\":1,\"stmt\":2,\"var\":{\"local\":" + use + "},\"role\":\"deref\"}");
        lines.add("{\"k\":\"def\",\"frame\":1,\"stmt\":3,\"var\":{\"local\":" + def + "},\"how\":\"const\"}");
        for (int i = 0; i < 100; i++) lines.add("{\"k\":\"branch\",\"frame\":1,\"stmt\":4,\"uses\":[]}");
        for (String l : lines) {
            out.raw(l.getBytes(StandardCharsets.UTF_8)).b('\n');
            out.commit();
        }
        out.flush();
        long kept = Compactor.compact(out, 0, 1000);
        out.flush();
        List<String> after = Files.readAllLines(f.toPath(), StandardCharsets.UTF_8);
        if (after.size() != kept) throw new AssertionError("compact said " + kept + " kept, the file has " + after.size());
        return after.contains(lines.get(1));
    }

    private static void expect(File dir, String what, String def, String use, boolean kept) throws Exception {
        boolean got = firstDefKept(dir, def, use);
        if (got != kept) throw new AssertionError(what + ": the first def " + (got ? "was" : "was not") + " kept");
        System.out.println("ok: " + what);
    }

    public static void main(String[] args) throws Exception {
        File dir = new File(args[0]);
        dir.mkdirs();
        expect(dir, "one name, plain", "\"a\"", "\"a\"", true);
        expect(dir, "two names", "\"a\"", "\"b\"", false);
        expect(dir, "one name, written plain and escaped", "\"\u00e9\"", "\"\\u00e9\"", true);
        expect(dir, "one name with a quote, escaped both times", "\"a\\\"b\"", "\"a\\\"b\"", true);
        expect(dir, "two lone surrogates (no UTF-8 for either)", "\"\\ud800\"", "\"\\udc00\"", false);
        expect(dir, "one lone surrogate, twice", "\"\\ud800\"", "\"\\ud800\"", true);
        expect(dir, "a lone surrogate and the text UTF-8 would replace it with", "\"\\ud800\"", "\"?\"", false);
    }
}
