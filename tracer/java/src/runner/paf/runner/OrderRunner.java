package paf.runner;

import java.io.FileOutputStream;
import java.io.OutputStreamWriter;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;

import org.junit.runner.Description;
import org.junit.runner.JUnitCore;
import org.junit.runner.Request;
import org.junit.runner.notification.Failure;
import org.junit.runner.notification.RunListener;

/**
 * The runner of the order-dependence filter: runs the listed test methods, in the listed order, in
 * this one JVM (no agent), and writes one JSON object per test:
 * {"test": id, "outcome": "pass"|"fail", "exception": type-or-null, "class": throwing class or null,
 * "line": int or null}. The throwing class and line are those of the innermost stack frame.
 *
 * <p>Usage: OrderRunner TESTS_FILE [-o OUT.jsonl]; TESTS_FILE has one {@code ClassName.method} per
 * line (fully qualified class name; blank lines and lines starting with # ignored). Without -o
 * the results go to stdout, and the tests' own output to stderr. {@link BatchRunner} runs many
 * schedules in one JVM with {@link #runOne}.
 */
public final class OrderRunner {
    public static void main(String[] args) throws Exception {
        String in = null, out = null;
        for (int i = 0; i < args.length; i++) {
            if (args[i].equals("-o")) out = args[++i];
            else if (args[i].equals("--tests")) in = args[++i];
            else in = args[i];
        }
        if (in == null) {
            System.err.println("usage: OrderRunner TESTS_FILE [-o OUT.jsonl]");
            System.exit(2);
        }
        List<String> ids = new ArrayList<>();
        for (String l : Files.readAllLines(Paths.get(in), StandardCharsets.UTF_8)) {
            l = l.trim();
            if (!l.isEmpty() && !l.startsWith("#")) ids.add(l);
        }
        PrintStream stdout = System.out;
        System.setOut(System.err);
        PrintWriter w = out == null ? new PrintWriter(new OutputStreamWriter(stdout, StandardCharsets.UTF_8))
                : new PrintWriter(new OutputStreamWriter(new FileOutputStream(out), StandardCharsets.UTF_8));
        for (String id : ids) {
            w.println(runOne(id, OrderRunner.class.getClassLoader(), null));
            w.flush();
        }
        w.close();
        System.exit(0);
    }

    /**
     * Runs test {@code id} ({@code ClassName.method}), its class loaded by {@code loader}, and
     * returns its result record; {@code schedule}, when not null, is added as the record's
     * "schedule" (the batch protocol).
     */
    static String runOne(String id, ClassLoader loader, Integer schedule) {
        int dot = id.lastIndexOf('.');
        if (dot <= 0) return record(schedule, id, "fail", "paf.BadTestId", null, -1);
        String cn = id.substring(0, dot), mn = id.substring(dot + 1);
        try {
            Class<?> c = Class.forName(cn, false, loader);
            final Throwable[] fail = {null};
            final boolean[] ran = {false};
            JUnitCore core = new JUnitCore();
            core.addListener(new RunListener() {
                @Override
                public void testStarted(Description d) {
                    if (mn.equals(d.getMethodName())) ran[0] = true;
                }

                @Override
                public void testFailure(Failure f) {
                    if (fail[0] == null) fail[0] = f.getException();
                }
            });
            core.run(Request.method(c, mn));
            if (!ran[0]) return record(schedule, id, "fail", "paf.NoSuchTest", null, -1);
            if (fail[0] == null) return record(schedule, id, "pass", null, null, -1);
            Throwable t = fail[0];
            StackTraceElement[] st = t.getStackTrace();
            return record(schedule, id, "fail", t.getClass().getName(), st.length > 0 ? st[0].getClassName() : null,
                    st.length > 0 ? st[0].getLineNumber() : -1);
        } catch (Throwable t) {
            return record(schedule, id, "fail", t.getClass().getName(), null, -1);
        }
    }

    static String record(Integer schedule, String id, String outcome, String exc, String cls, int line) {
        return "{" + (schedule == null ? "" : "\"schedule\":" + schedule + ",") + "\"test\":" + Supervisor.q(id)
                + ",\"outcome\":\"" + outcome + "\",\"exception\":" + (exc == null ? "null" : Supervisor.q(exc))
                + ",\"class\":" + (cls == null ? "null" : Supervisor.q(cls))
                + ",\"line\":" + (line < 0 ? "null" : Integer.toString(line)) + "}";
    }
}
