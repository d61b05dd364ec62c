package paf.runner;

import java.io.BufferedOutputStream;
import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.PrintStream;
import java.lang.annotation.Annotation;
import java.lang.reflect.Method;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

import org.junit.After;
import org.junit.AfterClass;
import org.junit.Before;
import org.junit.BeforeClass;
import org.junit.internal.builders.AllDefaultPossibilitiesBuilder;
import org.junit.internal.builders.JUnit4Builder;
import org.junit.runner.Description;
import org.junit.runner.JUnitCore;
import org.junit.runner.Runner;
import org.junit.runner.manipulation.Filter;
import org.junit.runner.manipulation.NoTestsRemainException;
import org.junit.runner.notification.Failure;
import org.junit.runner.notification.RunListener;
import org.junit.runner.notification.RunNotifier;
import org.junit.runners.BlockJUnit4ClassRunner;
import org.junit.runners.model.FrameworkMethod;
import org.junit.runners.model.InitializationError;
import org.junit.runners.model.Statement;

import paf.rt.R;

/**
 * The traced worker JVM (run with the paf agent by {@link Supervisor}): runs the JUnit 4 / JUnit
 * 3-style test classes through JUnit 4's runner, test by test, and marks each test's boundaries,
 * phases and outcome in the trace. Protocol lines for the supervisor go to the original stdout
 * ({@code @@PAF begin ID}, {@code @@PAF end ID}, {@code @@PAF usage MESSAGE}); the tests' own
 * output goes to stderr.
 *
 * <p>Lifecycle failures (docs/java.md, "Lifecycle failures"): plain JUnit 4 classes run through
 * {@link PhasedRunner}, which marks where the test method starts and ends, so that a failure of
 * the test method is the test's failure even when an {@code @After} method fails too, the
 * {@code @After} methods' events are not recorded, and every other failure is recorded with its
 * phase. Class-level failures ({@code @BeforeClass}, {@code @AfterClass}) become one test per
 * phase, {@code Class.<before-class>} or {@code Class.<after-class>}.
 *
 * <p>Usage: TraceMain --tests C1,C2 [--skip FILE] [--shard i/N] [--drop-out] ({@code --drop-out}:
 * the tests' System.out goes nowhere, as {@code paf trace --quiet} drops it). A test class
 * may be given as
 * {@code Class#method} to run that method only ({@code paf trace java --isolate}); with
 * {@code --shard i/N} only the i-th of N contiguous blocks of all the tests runs
 * ({@code paf trace java --shard}), see {@link #shardOf}.
 */
public final class TraceMain {
    private static FileOutputStream proto;

    public static void main(String[] args) throws Exception {
        List<String> classes = new ArrayList<>();
        Set<String> skip = new HashSet<>();
        java.util.Map<String, Set<String>> only = new java.util.HashMap<>();
        String shard = null;
        boolean dropOut = false;
        for (int i = 0; i < args.length; i++) {
            if (args[i].equals("--tests")) {
                for (String c : args[++i].split(",")) if (!c.trim().isEmpty()) addTest(c.trim(), classes, only);
            } else if (args[i].equals("--skip")) {
                for (String l : Files.readAllLines(Paths.get(args[++i]), StandardCharsets.UTF_8)) if (!l.isEmpty()) skip.add(l.trim());
            } else if (args[i].equals("--shard")) {
                shard = args[++i];
            } else if (args[i].equals("--drop-out")) {
                dropOut = true;
            }
        }
        final Set<String> block = shard == null ? null : shardOf(classes, shard);
        proto = new FileOutputStream(FileDescriptor.out);
        if (dropOut) {
            // paf trace --quiet: the supervisor would drop the tests' output, so it is not written
            // at all: written in blocks, it still cost a chatty suite half a million system calls
            // in paf's relay and the supervisor (docs/performance.md, "Sixteenth round").
            // System.err (stack traces, the agent's problems) is written as before.
            System.setOut(new PrintStream(java.io.OutputStream.nullOutputStream(), false));
        } else {
            // The default, where the supervisor shows the tests' output: System.out and System.err
            // are one stream, as they were (System.out went to System.err), written in 64 KiB
            // blocks at each protocol line, at exit and every 50 ms, so the output of a running
            // test still shows and a test killed at its time-out loses at most its last 50 ms.
            // A write per line cost a chatty suite a tenth of its run, in this JVM, paf's relay
            // and the supervisor (docs/performance.md, "Sixteenth round").
            PrintStream both = new PrintStream(new BufferedOutputStream(new FileOutputStream(FileDescriptor.err), 1 << 16), false);
            out = both;
            System.setOut(both);
            System.setErr(both);
            Thread flusher = new Thread(() -> {
                while (true) {
                    try {
                        Thread.sleep(50);
                    } catch (InterruptedException e) {
                        return;
                    }
                    both.flush();
                }
            }, "paf-output");
            flusher.setDaemon(true);
            flusher.start();
            Runtime.getRuntime().addShutdownHook(new Thread(both::flush));
        }
        AllDefaultPossibilitiesBuilder builder = new AllDefaultPossibilitiesBuilder() {
            @Override
            protected JUnit4Builder junit4Builder() {
                return new JUnit4Builder() {
                    @Override
                    public Runner runnerForClass(Class<?> c) throws Throwable {
                        return new PhasedRunner(c);
                    }
                };
            }
        };
        // every test class must load and be a test class before anything runs: a wrong --tests
        // or --classpath is a usage error, not a failing test
        Map<String, Runner> runners = new LinkedHashMap<>();
        for (String name : classes) {
            Class<?> cls;
            try {
                cls = Class.forName(name, false, TraceMain.class.getClassLoader());
            } catch (ClassNotFoundException e) {
                usage("--tests: class " + name + " is not on the --classpath");
                return;
            } catch (LinkageError e) {
                usage("--tests: class " + name + " cannot be loaded from the --classpath: " + e);
                return;
            }
            Runner r = builder.safeRunnerForClass(cls);
            String error = initializationError(r.getDescription());
            if (error != null) {
                usage("--tests: " + name + " is not a JUnit test class: " + error);
                return;
            }
            runners.put(name, r);
        }
        // Class#method (paf trace java --isolate) runs only those methods; --shard only its block.
        Filter notYetTraced = new Filter() {
            @Override
            public boolean shouldRun(Description d) {
                // nothing to filter out (the first JVM of a run without --isolate or --shard): no
                // need for the method's name, which JUnit parses with a regular expression
                if (only.isEmpty() && block == null && skip.isEmpty()) return true;
                String method = methodName(d);
                if (method == null) return true;
                String id = d.getClassName() + "." + method;
                Set<String> methods = only.get(d.getClassName());
                if (methods != null && !methods.contains(method)) return false;
                if (block != null && !block.contains(id)) return false;
                return !skip.contains(id);
            }

            @Override
            public String describe() {
                return "not yet traced";
            }
        };
        for (Map.Entry<String, Runner> e : runners.entrySet()) {
            Runner r = e.getValue();
            try {
                notYetTraced.apply(r);
            } catch (NoTestsRemainException done) {
                continue; // every test of the class was traced by an earlier JVM
            }
            JUnitCore core = new JUnitCore();
            Listener l = new Listener(e.getKey(), skip);
            core.addListener(l);
            core.run(r);
            l.classFailures();
        }
        // every file of this JVM's is complete before "done": the supervisor writes the bundle
        // while this JVM exits (R.finish)
        R.finish();
        protocol("done");
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
                for (Description d : org.junit.runner.Request.aClass(cls).getRunner().getDescription().getChildren()) {
                    if (d.getMethodName() != null) all.add(d.getClassName() + "." + d.getMethodName());
                }
            } catch (Throwable t) {
                all.add(name + ".<class>");
            }
        }
        int from = (int) ((long) all.size() * (i - 1) / n), to = (int) ((long) all.size() * i / n);
        return new HashSet<>(all.subList(from, to));
    }

    /** The message of JUnit's initializationError for a class that is not a test class, or null. */
    private static String initializationError(Description d) {
        if (d.getChildren().isEmpty()) return d.getMethodName() == null && d.isSuite() ? "it has no tests" : null;
        for (Description c : d.getChildren())
            if (!"initializationError".equals(c.getMethodName())) return null;
        return "JUnit reports an initializationError (no public constructor, no @Test method, ...)";
    }

    private static void usage(String message) {
        protocol("usage " + message);
        System.exit(2);
    }

    /** The tests' output when it is shown (written in blocks), else null. */
    private static PrintStream out;

    /**
     * Writes a protocol line in one write (no buffer in between), retrying once if memory runs
     * out; the tests' output written so far goes first, so a test's output is out by its end.
     */
    static void protocol(String s) {
        if (out != null) out.flush();
        for (int attempt = 0; attempt < 2; attempt++) {
            try {
                proto.write(("@@PAF " + s + "\n").getBytes(StandardCharsets.UTF_8));
                return;
            } catch (Throwable t) {
                if (attempt == 1) System.exit(3); // the supervisor records the test as lost
            }
        }
    }

    static String id(Description d) {
        return d.getClassName() + "." + methodName(d);
    }

    /** A description and its method's name. */
    private static final class Named {
        final Description d;
        final String method;

        Named(Description d, String method) {
            this.d = d;
            this.method = method;
        }
    }

    private static volatile Named lastNamed;

    /**
     * {@code d.getMethodName()}, kept for the last description asked about: JUnit 4 parses it
     * out of the display name with a regular expression at every call, and the listener asks
     * several times per test (6 to 7% of a traced Randoop suite's time; docs/performance.md).
     */
    static String methodName(Description d) {
        Named n = lastNamed;
        if (n != null && n.d == d) return n.method;
        String m = d.getMethodName();
        lastNamed = new Named(d, m);
        return m;
    }

    /** Where the test method runs, for the listener: set by {@link PhasedRunner}. */
    static volatile boolean bodyStarted, bodyEnded;
    static volatile Throwable bodyThrew;
    /** Whether the class's test methods started and ended running (class-level failures). */
    static volatile boolean childrenStarted, childrenEnded;

    /** JUnit 4's runner, marking where the test method starts and ends. */
    static final class PhasedRunner extends BlockJUnit4ClassRunner {
        PhasedRunner(Class<?> c) throws InitializationError {
            super(c);
        }

        @Override
        protected Statement methodInvoker(FrameworkMethod method, Object test) {
            Statement inner = super.methodInvoker(method, test);
            return new Statement() {
                @Override
                public void evaluate() throws Throwable {
                    bodyStarted = true;
                    R.phase(R.PHASE_BODY);
                    try {
                        inner.evaluate();
                    } catch (Throwable t) {
                        bodyThrew = t;
                        throw t;
                    } finally {
                        bodyEnded = true;
                        R.phase(R.PHASE_AFTER);
                    }
                }
            };
        }

        @Override
        protected Statement childrenInvoker(RunNotifier notifier) {
            Statement inner = super.childrenInvoker(notifier);
            return new Statement() {
                @Override
                public void evaluate() throws Throwable {
                    childrenStarted = true;
                    try {
                        inner.evaluate();
                    } finally {
                        childrenEnded = true;
                    }
                }
            };
        }
    }

    static final class Listener extends RunListener {
        final String testClass;
        final Set<String> skip;
        String current;
        final List<Throwable> failures = new ArrayList<>();
        final List<String> phases = new ArrayList<>();
        String note;
        /** Class-level failures by phase, reported as tests when the class is done. */
        final Map<String, List<Throwable>> classLevel = new LinkedHashMap<>();

        Listener(String testClass, Set<String> skip) {
            this.testClass = testClass;
            this.skip = skip;
            childrenStarted = false;
            childrenEnded = false;
        }

        @Override
        public void testStarted(Description d) {
            current = id(d);
            failures.clear();
            phases.clear();
            note = null;
            bodyStarted = false;
            bodyEnded = false;
            bodyThrew = null;
            protocol("begin " + current);
            R.beginTest(current, d.getClassName(), methodName(d));
        }

        @Override
        public void testFailure(Failure f) {
            Description d = f.getDescription();
            Throwable t = f.getException();
            if (current != null && methodName(d) != null && current.equals(id(d))) {
                failures.add(t);
                phases.add(methodPhase(d, t));
                return;
            }
            // a failure outside a test method (@BeforeClass, @AfterClass, a class rule)
            classLevel.computeIfAbsent(classPhase(d, t), k -> new ArrayList<>()).add(t);
        }

        /** Which phase a test's failure came from: null for the test method, else "before" or "after". */
        private String methodPhase(Description d, Throwable t) {
            if (t == bodyThrew) return null;
            String byStack = lifecycleFrame(d.getTestClass(), t, Before.class, After.class);
            if (byStack != null) return byStack;
            if (bodyStarted && !bodyEnded) return null; // e.g. a time-out of the test method
            if (bodyEnded) return "after";
            return bodyStarted || bodyThrew != null ? null : "before";
        }

        private String classPhase(Description d, Throwable t) {
            String byStack = lifecycleFrame(d.getTestClass(), t, BeforeClass.class, AfterClass.class);
            if (byStack != null) return byStack + "-class";
            if (childrenEnded) return "after-class";
            if (!childrenStarted) return "before-class";
            return "class";
        }

        /**
         * "before"/"after" when the innermost frame of the test class on the exception's stack is a
         * method with that annotation (or JUnit 3's setUp/tearDown), else null.
         */
        private static String lifecycleFrame(Class<?> cls, Throwable t, Class<? extends Annotation> before,
                Class<? extends Annotation> after) {
            if (cls == null || t == null) return null;
            for (StackTraceElement e : t.getStackTrace()) {
                Class<?> owner = null;
                for (Class<?> k = cls; k != null; k = k.getSuperclass())
                    if (k.getName().equals(e.getClassName())) owner = k;
                if (owner == null) continue;
                String m = e.getMethodName();
                if (before == Before.class && m.equals("setUp") && junit3(cls)) return "before";
                if (before == Before.class && m.equals("tearDown") && junit3(cls)) return "after";
                for (Method x : owner.getDeclaredMethods()) {
                    if (!x.getName().equals(m)) continue;
                    if (x.isAnnotationPresent(before)) return "before";
                    if (x.isAnnotationPresent(after)) return "after";
                }
                return null;
            }
            return null;
        }

        private static boolean junit3(Class<?> cls) {
            for (Class<?> k = cls; k != null; k = k.getSuperclass())
                if (k.getName().equals("junit.framework.TestCase")) return true;
            return false;
        }

        @Override
        public void testAssumptionFailure(Failure f) {
            note = "assumption failed: " + f.getMessage();
        }

        @Override
        public void testFinished(Description d) {
            String id = id(d);
            if (!id.equals(current)) return;
            // the test's failure: the test method's, else the first lifecycle failure (with its phase)
            int main = phases.indexOf(null);
            if (main < 0 && !failures.isEmpty()) main = 0;
            Throwable failure = main < 0 ? null : failures.get(main);
            String failurePhase = main < 0 ? null : phases.get(main);
            List<Throwable> others = new ArrayList<>();
            List<String> otherPhases = new ArrayList<>();
            for (int i = 0; i < failures.size(); i++) {
                if (i == main) continue;
                others.add(failures.get(i));
                otherPhases.add(phases.get(i) == null ? "test" : phases.get(i));
            }
            R.endTest(id, failure, failurePhase, others.toArray(new Throwable[0]), otherPhases.toArray(new String[0]),
                    d.getClassName(), methodName(d), note);
            protocol("end " + id);
            current = null;
            failures.clear();
            phases.clear();
        }

        /** The class-level failures, one test per phase: Class.<before-class>, Class.<after-class>, Class.<class>. */
        void classFailures() {
            for (Map.Entry<String, List<Throwable>> e : classLevel.entrySet()) {
                String phase = e.getKey();
                String id = testClass + ".<" + phase + ">";
                if (skip.contains(id)) continue;
                List<Throwable> ts = e.getValue();
                System.err.println("paf: failure outside a test method in " + id + ": " + ts.get(0));
                protocol("begin " + id);
                R.beginTest(id, testClass, "<" + phase + ">");
                Throwable[] more = ts.subList(1, ts.size()).toArray(new Throwable[0]);
                String[] morePhases = new String[more.length];
                java.util.Arrays.fill(morePhases, phase);
                R.endTest(id, ts.get(0), phase, more, morePhases, testClass, "<" + phase + ">",
                        "failure outside a test method (" + phase + ")");
                protocol("end " + id);
            }
            classLevel.clear();
        }
    }
}
