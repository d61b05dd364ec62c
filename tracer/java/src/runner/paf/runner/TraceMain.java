package paf.runner;

import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

import org.junit.runner.Description;
import org.junit.runner.JUnitCore;
import org.junit.runner.Request;
import org.junit.runner.manipulation.Filter;
import org.junit.runner.notification.Failure;
import org.junit.runner.notification.RunListener;

import paf.rt.R;

/**
 * The traced worker JVM (run with the paf agent by {@link Supervisor}): runs the JUnit 4 / JUnit
 * 3-style test classes through JUnit 4's runner, test by test, and marks each test's boundaries
 * and outcome in the trace. Protocol lines for the supervisor go to the original stdout
 * ({@code @@PAF begin ID}, {@code @@PAF end ID}); the tests' own output goes to stderr.
 *
 * <p>Usage: TraceMain --tests C1,C2 [--skip FILE] [--shard i/N]. A test class may be given as
 * {@code Class#method} to run that method only ({@code paf trace java --isolate}); with
 * {@code --shard i/N} only the i-th of N contiguous blocks of all the tests runs
 * ({@code paf trace java --shard}), see {@link #shardOf}.
 */
public final class TraceMain {
    static PrintStream proto;

    public static void main(String[] args) throws Exception {
        List<String> classes = new ArrayList<>();
        Set<String> skip = new HashSet<>();
        java.util.Map<String, Set<String>> only = new java.util.HashMap<>();
        String shard = null;
        for (int i = 0; i < args.length; i++) {
            if (args[i].equals("--tests")) {
                for (String c : args[++i].split(",")) if (!c.isEmpty()) addTest(c.trim(), classes, only);
            } else if (args[i].equals("--skip")) {
                for (String l : Files.readAllLines(Paths.get(args[++i]), StandardCharsets.UTF_8)) if (!l.isEmpty()) skip.add(l.trim());
            } else if (args[i].equals("--shard")) {
                shard = args[++i];
            }
        }
        final Set<String> block = shard == null ? null : shardOf(classes, shard);
        proto = new PrintStream(new java.io.FileOutputStream(java.io.FileDescriptor.out), true, "UTF-8");
        System.setOut(System.err);
        int failures = 0;
        for (String name : classes) {
            Class<?> cls;
            try {
                cls = Class.forName(name, false, TraceMain.class.getClassLoader());
            } catch (Throwable t) {
                String id = name + ".<class>";
                if (skip.contains(id) || (block != null && !block.contains(id))) continue;
                System.err.println("paf: cannot load test class " + name + ": " + t);
                protocol("begin " + id);
                R.syntheticTest(id, name, "<class>", t, "the test class could not be loaded");
                protocol("end " + id);
                continue;
            }
            Request req = Request.aClass(cls).filterWith(new Filter() {
                @Override
                public boolean shouldRun(Description d) {
                    if (d.getMethodName() == null) return true;
                    String id = d.getClassName() + "." + d.getMethodName();
                    Set<String> methods = only.get(d.getClassName());
                    if (methods != null && !methods.contains(d.getMethodName())) return false;
                    if (block != null && !block.contains(id)) return false;
                    return !skip.contains(id);
                }

                @Override
                public String describe() {
                    return "not yet traced";
                }
            });
            JUnitCore core = new JUnitCore();
            Listener l = new Listener(name);
            core.addListener(l);
            core.run(req);
        }
        R.flush();
        proto.println("@@PAF done");
        proto.flush();
        System.exit(0);
    }

    /** {@code Class} runs the class, {@code Class#method} only that method of it. */
    static void addTest(String entry, List<String> classes, java.util.Map<String, Set<String>> only) {
        int hash = entry.indexOf('#');
        String cls = hash < 0 ? entry : entry.substring(0, hash);
        if (!classes.contains(cls)) classes.add(cls);
        if (hash >= 0) only.computeIfAbsent(cls, k -> new HashSet<>()).add(entry.substring(hash + 1));
    }

    /**
     * The test ids of shard {@code i/N}: every test of the classes, in the order JUnit runs them
     * (a class that cannot be loaded counts as its one {@code Class.<class>} test), cut into N
     * contiguous blocks of nearly equal size; the i-th (1-based). Contiguous blocks keep the
     * default order when the shards' bundles are concatenated (paf trace merge).
     */
    static Set<String> shardOf(List<String> classes, String shard) {
        String[] in = shard.split("/");
        int i = Integer.parseInt(in[0].trim()), n = Integer.parseInt(in[1].trim());
        List<String> all = new ArrayList<>();
        for (String name : classes) {
            try {
                Class<?> cls = Class.forName(name, false, TraceMain.class.getClassLoader());
                for (Description d : Request.aClass(cls).getRunner().getDescription().getChildren()) {
                    if (d.getMethodName() != null) all.add(d.getClassName() + "." + d.getMethodName());
                }
            } catch (Throwable t) {
                all.add(name + ".<class>");
            }
        }
        int from = (int) ((long) all.size() * (i - 1) / n), to = (int) ((long) all.size() * i / n);
        return new HashSet<>(all.subList(from, to));
    }

    static void protocol(String s) {
        proto.println("@@PAF " + s);
        proto.flush();
    }

    static String id(Description d) {
        return d.getClassName() + "." + d.getMethodName();
    }

    static final class Listener extends RunListener {
        final String testClass;
        String current;
        Throwable failure;
        String note;

        Listener(String testClass) {
            this.testClass = testClass;
        }

        @Override
        public void testStarted(Description d) {
            current = id(d);
            failure = null;
            note = null;
            protocol("begin " + current);
            R.beginTest(current, d.getClassName(), d.getMethodName());
        }

        @Override
        public void testFailure(Failure f) {
            Description d = f.getDescription();
            if (current != null && d.getMethodName() != null && current.equals(id(d))) {
                failure = f.getException();
                return;
            }
            // a failure outside a test method (@BeforeClass, @AfterClass, class initialization)
            String id = d.getClassName() + "." + (d.getMethodName() == null ? "<class>" : d.getMethodName());
            System.err.println("paf: failure outside a test method in " + id + ": " + f.getException());
            protocol("begin " + id);
            R.syntheticTest(id, d.getClassName(), "<class>", f.getException(), "failure outside a test method");
            protocol("end " + id);
        }

        @Override
        public void testAssumptionFailure(Failure f) {
            note = "assumption failed: " + f.getMessage();
        }

        @Override
        public void testFinished(Description d) {
            String id = id(d);
            if (!id.equals(current)) return;
            R.endTest(id, failure, d.getClassName(), d.getMethodName(), note);
            protocol("end " + id);
            current = null;
        }
    }
}
