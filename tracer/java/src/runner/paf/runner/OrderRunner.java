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
import org.junit.runner.Result;
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
 * the results go to stdout, and the tests' own output to stderr.
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
        int failed = 0;
        for (String id : ids) {
            int dot = id.lastIndexOf('.');
            String json;
            if (dot <= 0) {
                json = record(id, "fail", "paf.BadTestId", null, -1);
            } else {
                String cn = id.substring(0, dot), mn = id.substring(dot + 1);
                Class<?> c;
                try {
                    c = Class.forName(cn, false, OrderRunner.class.getClassLoader());
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
                    Result r = core.run(Request.method(c, mn));
                    if (!ran[0]) json = record(id, "fail", "paf.NoSuchTest", null, -1);
                    else if (fail[0] == null) json = record(id, "pass", null, null, -1);
                    else {
                        Throwable t = fail[0];
                        StackTraceElement[] st = t.getStackTrace();
                        json = record(id, "fail", t.getClass().getName(), st.length > 0 ? st[0].getClassName() : null,
                                st.length > 0 ? st[0].getLineNumber() : -1);
                    }
                } catch (Throwable t) {
                    json = record(id, "fail", t.getClass().getName(), null, -1);
                }
            }
            if (json.contains("\"fail\"")) failed++;
            w.println(json);
            w.flush();
        }
        w.close();
        System.exit(0);
    }

    static String record(String id, String outcome, String exc, String cls, int line) {
        return "{\"test\":" + Supervisor.q(id) + ",\"outcome\":\"" + outcome + "\",\"exception\":"
                + (exc == null ? "null" : Supervisor.q(exc)) + ",\"class\":" + (cls == null ? "null" : Supervisor.q(cls))
                + ",\"line\":" + (line < 0 ? "null" : Integer.toString(line)) + "}";
    }
}
