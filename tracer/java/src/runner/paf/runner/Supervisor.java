package paf.runner;

import java.io.BufferedReader;
import java.io.File;
import java.io.FileInputStream;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.io.RandomAccessFile;
import java.lang.reflect.InvocationTargetException;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Enumeration;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import java.util.jar.JarFile;
import java.util.zip.Deflater;
import java.util.zip.GZIPOutputStream;
import java.util.zip.ZipEntry;

/**
 * {@code paf trace java}: records a trace bundle (docs/trace-format.md) of JUnit test classes.
 *
 * <p>Runs the tests in a worker JVM with the paf agent ({@link TraceMain}) and watches it through
 * the worker's protocol lines. When a test does not end within the time-out, the worker is killed;
 * when the worker dies during a test (a crash, System.exit, halt), the test is recorded as a failed
 * test with {@code "truncated": true} and a new worker runs the remaining tests. The bundle always
 * holds every other test.
 *
 * <p>Exit codes: 0 the bundle was written; 2 a usage error (one line on stderr naming the flag);
 * 1 anything else.
 */
public final class Supervisor {
    static String cp, include, exclude = "", tests, out, sourcepath = "", subject, java, failClass, junit, asm, shownAs, shard;
    /**
     * {@code --cds FILE}: the class archive of the tracer's JVMs (paf's {@code trace/cds.rs}, docs/java.md, "The class
     * archive"), which the workers map.
     */
    static String cds;
    /**
     * {@code --junit-first}: JUnit's jars come before the project's classes in the workers' class path, where the class
     * archive has them (paf gives it only when the project's class path holds neither JUnit nor hamcrest, so no class
     * of it is shadowed).
     */
    static boolean junitFirst;
    static int timeout = 60;
    static long cap = 0;
    /**
     * {@code --attached PID}: paf started worker 0 itself (it starts before this JVM is up) and
     * relays its output on this JVM's stdin: its stdout lines, its stderr lines after
     * {@code "@@PAF err "}, then {@code "@@PAF exit CODE"} (src/cli/cmd/trace/worker.rs).
     */
    static long attached;
    /** Worker 0 (attached) has not exited yet: a usage error must stop it. */
    static volatile boolean attachedRunning;
    static boolean gzip, keepWork, quiet, verbose;
    /**
     * {@code --done-line}: prints {@link #DONE} on stdout once the bundle is complete and this JVM
     * has nothing left to do but exit, so that paf goes on without waiting for the exit (5 to 18
     * ms; docs/performance.md, "Fourth round"). Exit code 0 follows it.
     */
    static boolean doneLine;
    static final String DONE = "@@PAF bundle written";
    /**
     * {@code --static-duas}: this JVM runs the static analysis too ({@code
     * paf.instr.StaticDuas.serve}, on a thread, in a class loader of its own over paf-instr.jar,
     * paf-rt.jar and ASM): it indexes the class path while the tests run and, after {@link
     * #DONE}, reads paf's crash uses on stdin, writes the static DUAs into the bundle, prints
     * {@code static-duas N queries M} and exits (code 1 if the analysis failed). Before, it was a
     * JVM of its own, which started beside the tests on the same two cores: the run took 30 to 40
     * ms longer (docs/performance.md, "Fifth round"). Requires {@code --done-line}.
     */
    static boolean staticDuas;
    /** Whether the static analysis failed (its error is on stderr). */
    static volatile boolean staticFailed;
    /** Completed once the last worker is done: the statement table is whole from then on. */
    static final CompletableFuture<Void> TABLE = new CompletableFuture<>();
    /** This JVM's stdin, once the bundle is written: the static analysis reads its queries there. */
    static final CompletableFuture<BufferedReader> QUERIES = new CompletableFuture<>();
    /** Stdin as the attached worker's relay read it (the queries follow on it). */
    static volatile BufferedReader stdin;
    static List<String> jvmArgs = new ArrayList<>();

    static final String DEBIAN = "/usr/share/java";

    /** A usage error: one line naming the flag, exit code 2. */
    static void usage(String msg) {
        System.err.println("paf trace java: " + msg);
        stopAttached();
        System.exit(2);
    }

    /** The worker this JVM started and runs now; null between workers. Guarded by {@link #WORKERS}. */
    private static Process running;
    /** This JVM is shutting down: no worker starts from then on. Guarded by {@link #WORKERS}. */
    private static boolean stopping;
    private static final Object WORKERS = new Object();

    /**
     * At SIGTERM, which paf makes the kernel send this JVM when paf exits however it exits (its
     * {@code dies_with_paf}), the worker dies with it: without this hook, the worker ran on,
     * and this JVM took worker 0's end for a death and started the next (docs/robustness.md,
     * "Signals"). A normal exit finds no worker running.
     */
    static void killWorkersAtShutdown() {
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            synchronized (WORKERS) {
                stopping = true;
                if (running != null) running.destroyForcibly();
            }
            stopAttached();
        }, "paf-stop-workers"));
    }

    /** The pid of paf, which started this JVM with worker 0 attached; -1 when this JVM runs alone. */
    static long pafPid = -1;

    /** Whether paf is gone: this JVM then has another parent, from the moment paf exits. */
    static boolean pafGone() {
        return pafPid > 0 && ProcessHandle.current().parent().map(ProcessHandle::pid).orElse(-1L) != pafPid;
    }

    /** Kills worker 0 when paf started it and it still runs (this JVM is about to exit). */
    static void stopAttached() {
        if (attachedRunning) ProcessHandle.of(attached).ifPresent(ProcessHandle::destroyForcibly);
    }

    static void help(String msg) {
        stopAttached();
        System.err.println("paf trace java: " + msg);
        System.err.println("usage: trace.sh --classpath CP --include PKG[,PKG...] --tests CLASS[,CLASS...] -o BUNDLE\n"
                + "                [--exclude PKG[,PKG...]] [--timeout SECS] [--sourcepath DIRS] [--gzip]\n"
                + "                [--max-events N] [--subject TEXT] [--java PATH] [--jvm-arg ARG]... [--keep-work]\n"
                + "                [--junit CP] [--asm CP] [--quiet] [-v] [--shard i/N]");
        System.exit(2);
    }

    private static long number(String flag, String v) {
        try {
            long n = Long.parseLong(v.trim());
            if (n < 0) throw new NumberFormatException();
            return n;
        } catch (NumberFormatException e) {
            usage(flag + " " + v + ": expected a non-negative whole number");
            return 0;
        }
    }

    public static void main(String[] a) throws Exception {
        for (int i = 0; i < a.length; i++) {
            String k = a[i];
            boolean flag = k.equals("--gzip") || k.equals("--keep-work") || k.equals("--quiet") || k.equals("-v")
                    || k.equals("--verbose") || k.equals("--done-line") || k.equals("--static-duas") || k.equals("--junit-first");
            if (!flag && i + 1 >= a.length) help("missing value for " + k);
            switch (k) {
                case "--classpath": case "-cp": cp = a[++i]; break;
                case "--include": include = a[++i]; break;
                case "--exclude": exclude = a[++i]; break;
                case "--tests": tests = a[++i]; break;
                case "-o": case "--output": out = a[++i]; break;
                case "--timeout": timeout = (int) number("--timeout", a[++i]); break;
                case "--sourcepath": sourcepath = a[++i]; break;
                case "--max-events": cap = number("--max-events", a[++i]); break;
                case "--subject": subject = a[++i]; break;
                case "--java": java = a[++i]; break;
                case "--jvm-arg": jvmArgs.add(a[++i]); break;
                case "--fail-class": failClass = a[++i]; break;
                case "--shard": shard = a[++i]; break;
                case "--junit": junit = a[++i]; break;
                case "--asm": asm = a[++i]; break;
                case "--cds": cds = a[++i]; break;
                case "--junit-first": junitFirst = true; break;
                case "--shown-as": shownAs = a[++i]; break; // paf writes aside and moves the bundle into place
                case "--attached": attached = number("--attached", a[++i]); attachedRunning = attached > 0; break;
                case "--gzip": gzip = true; break;
                case "--keep-work": keepWork = true; break;
                case "--done-line": doneLine = true; break;
                case "--static-duas": staticDuas = true; break;
                case "--quiet": quiet = true; break;
                case "-v": case "--verbose": verbose = true; break;
                default: help("unknown option " + k);
            }
        }
        if (cp == null || include == null || tests == null || out == null) help("--classpath, --include, --tests and -o are required");
        if (staticDuas && !doneLine) help("--static-duas requires --done-line");
        if (java == null) java = System.getProperty("java.home") + File.separator + "bin" + File.separator + "java";
        if (subject == null) subject = tests;
        File jarDir = new File(Supervisor.class.getProtectionDomain().getCodeSource().getLocation().toURI()).getParentFile();
        String junitCp = checkFlags();
        killWorkersAtShutdown();
        if (attached > 0) pafPid = ProcessHandle.current().parent().map(ProcessHandle::pid).orElse(-1L);
        File bundle = new File(out);
        boolean created = !bundle.exists();
        bundle.mkdirs();
        File work = new File(bundle, ".work");
        if (attached == 0) deleteTree(work); // else paf made it for worker 0, which runs already
        work.mkdirs();
        Thread analysis = staticDuas ? startStaticDuas(jarDir, bundle, work) : null;
        for (String f : new String[] {"manifest.json", "statements.jsonl", "statements.jsonl.gz", "tests.jsonl", "tests.jsonl.gz",
                "static-duas.jsonl", "static-duas.jsonl.gz"})
            new File(bundle, f).delete();

        Set<String> skip = new LinkedHashSet<>();
        int part = 0, lost = 0;
        boolean lastClean = false;
        long t0 = System.nanoTime();
        if (!quiet) System.err.println("paf trace: tracing " + count(tests.split(",").length, "test class", "test classes") + " -> " + shown(bundle));
        Worker last = null;
        while (true) {
            Worker w = new Worker(part == 0 && attached > 0 ? null : workerCommand(part, work, skip, jarDir, junitCp));
            last = w;
            w.run(timeout);
            if (pafGone()) {
                // worker 0 ended because paf did (its relay closed): nothing is traced further and
                // nothing reported; the shutdown hook, which paf's death also starts, kills workers
                stopAttached();
                System.exit(143);
            }
            if (w.usage != null) {
                if (!keepWork) deleteTree(work);
                if (created) deleteTree(bundle);
                usage(w.usage);
            }
            skip.addAll(w.done);
            if (w.finished) {
                lastClean = true;
                break;
            }
            File partFile = new File(work, "tests." + part + ".jsonl");
            truncateToLastLine(new File(work, "statements.jsonl"));
            if (w.current != null) {
                String why;
                String type;
                if (w.timedOut) {
                    type = "paf.Timeout";
                    why = "the test did not end within " + timeout + " s; its JVM was killed";
                } else {
                    type = "paf.JvmDied";
                    why = "the JVM died during the test (exit code " + w.exitCode + ")";
                }
                System.err.println("paf trace: " + w.current + ": " + why + "; recorded as truncated; "
                        + "a new JVM runs the remaining tests");
                repair(partFile, w.current, type, why);
                skip.add(w.current);
                lost++;
            } else {
                repair(partFile, null, null, null);
                if (w.done.isEmpty()) {
                    System.err.println("paf trace: the JVM exited (code " + w.exitCode + ") outside any test, without progress; "
                            + "the remaining tests, if any, are not in the bundle");
                    break;
                }
                System.err.println("paf trace: the JVM exited (code " + w.exitCode + ") between tests; restarting for the rest");
            }
            part++;
        }
        long wallMs = (System.nanoTime() - t0) / 1_000_000;
        // the work directory's files are complete: the static analysis reads the statement table
        // while the bundle is written
        TABLE.complete(null);
        Summary s = assemble(bundle, work, part, lastClean, wallMs, lost);
        // the last worker exited meanwhile, as a rule; its exit ends its output and its relay,
        // and paf, once it reads the done line below, kills a worker 0 that still runs
        last.awaitExit();
        if (!keepWork) deleteTree(work);
        if (s.tests == 0) {
            System.err.println("paf trace: no test was recorded; the bundle " + shown(bundle) + " is empty");
            System.exit(1);
        }
        if (s.classes == 0)
            usage("--include " + include + ": the tests loaded no class of these packages (0 classes instrumented); "
                    + "the bundle records no event");
        if (doneLine) {
            System.out.println(DONE);
            System.out.flush();
        }
        if (analysis != null) {
            BufferedReader in = stdin;
            QUERIES.complete(in != null ? in : new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8)));
            analysis.join();
            System.exit(staticFailed ? 1 : 0);
        }
    }

    /**
     * Starts the static analysis on a daemon thread (a usage error or a failed run ends this JVM
     * without waiting for it): {@code paf.instr.StaticDuas.serve} with the flags paf gave its own
     * JVM before, loaded from paf-instr.jar, paf-rt.jar and ASM beside this JVM's jar.
     */
    static Thread startStaticDuas(File jarDir, File bundle, File work) {
        String[] args = {"--work", work.getPath(), "--bundle", bundle.getPath(), "--queries", "-", "--classpath", cp,
            "--include", include, "--exclude", exclude, "--tests", tests, "--sourcepath", sourcepath};
        Thread t = new Thread(() -> {
            try {
                List<URL> urls = new ArrayList<>();
                urls.add(new File(jarDir, "paf-instr.jar").toURI().toURL());
                urls.add(new File(jarDir, "paf-rt.jar").toURI().toURL());
                for (String a : asmClasspath().split(File.pathSeparator)) if (!a.isEmpty()) urls.add(new File(a).toURI().toURL());
                ClassLoader l = new URLClassLoader(urls.toArray(new URL[0]), ClassLoader.getPlatformClassLoader());
                Runnable table = TABLE::join;
                Supplier<BufferedReader> queries = QUERIES::join;
                l.loadClass("paf.instr.StaticDuas").getMethod("serve", String[].class, Runnable.class, Supplier.class)
                        .invoke(null, args, table, queries);
            } catch (Throwable e) {
                staticFailed = true;
                Throwable cause = e instanceof InvocationTargetException ? e.getCause() : e;
                System.err.println("paf trace: the static analysis failed:");
                cause.printStackTrace();
            }
        }, "paf-static-duas");
        t.setDaemon(true);
        t.start();
        return t;
    }

    /**
     * Worker {@code part}'s command line (paf builds part 0's the same way when it starts it:
     * src/cli/cmd/trace/worker.rs); writes its skip list.
     */
    static List<String> workerCommand(int part, File work, Set<String> skip, File jarDir, String junitCp) throws IOException {
        File skipFile = new File(work, "skip.txt");
        Files.write(skipFile.toPath(), String.join("\n", skip).concat("\n").getBytes(StandardCharsets.UTF_8));
        List<String> cmd = new ArrayList<>();
        cmd.add(java);
        // repeated implicit exceptions must keep their stack traces (the crash site)
        cmd.add("-XX:-OmitStackTraceInFastThrow");
        // the worker lives seconds: C1 alone compiles the instrumented code soon and cheaply,
        // where C2 spent a core recompiling it (docs/performance.md, "The tracer"). The parallel
        // collector: as fast as the serial one on every suite measured, and a test that fills
        // the heap took half the time (the serial one copied its large arrays and filled a
        // larger old generation first: docs/performance.md, "Eleventh round"). --jvm-arg comes
        // after, so a user's own -XX:TieredStopAtLevel wins; a user's collector replaces the
        // parallel one (the JVM refuses two)
        cmd.add("-XX:TieredStopAtLevel=1");
        // the runtime's entry points check a flag and call the recording half: C1 inlines them,
        // but not these two, whose ten and twelve arguments its size rule refuses; a test past
        // its event budget then runs them as the flag check alone (docs/performance.md, "Ninth
        // round"). "quiet" keeps the JVM from printing the commands on the tests' output
        cmd.add("-XX:CompileCommand=quiet");
        cmd.add("-XX:CompileCommand=inline,paf.rt.R::def");
        cmd.add("-XX:CompileCommand=inline,paf.rt.R::branch");
        if (jvmArgs.stream().noneMatch(x -> x.matches("-XX:\\+Use\\w*GC"))) cmd.add("-XX:+UseParallelGC");
        // one compiler thread for C1 alone: with two on two cores, the compilations of a short
        // run took the tests' core (commons-dbutils 2.23 -> 2.12 s, mockachino 0.71 -> 0.65 s,
        // la4j and joda-time no slower: docs/performance.md, "Twenty-third round"); with C2 back
        // (a user's -XX:TieredStopAtLevel) the JVM refuses fewer than two
        if (jvmArgs.stream().noneMatch(x -> x.contains("Tiered"))) cmd.add("-XX:CICompilerCount=1");
        if (cds != null) cmd.add("-XX:SharedArchiveFile=" + cds);
        cmd.addAll(jvmArgs);
        // Class#method (paf trace java --isolate) names the class to the agent.
        String agentOpts = "work=" + work.getAbsolutePath() + ";part=" + part + ";include=" + include + ";exclude=" + exclude
                + ";tests=" + tests.replaceAll("#[^,]*", "") + ";src=" + sourcepath + ";asm=" + asmClasspath() + (cap > 0 ? ";cap=" + cap : "")
                + (failClass != null ? ";fail=" + failClass : "");
        cmd.add("-agentlib:instrument=" + new File(jarDir, "paf-agent.jar").getAbsolutePath() + "=" + agentOpts);
        cmd.add("-cp");
        // the project's own JUnit, when its class path has one, comes first and alone
        String runnerCp = new File(jarDir, "paf-runner.jar").getAbsolutePath();
        if (junitCp.isEmpty()) cmd.add(runnerCp + File.pathSeparator + cp);
        // the archive's class path is the runner's and JUnit's jars: the worker's must begin with it
        else if (junitFirst) cmd.add(runnerCp + File.pathSeparator + junitCp + File.pathSeparator + cp);
        else cmd.add(runnerCp + File.pathSeparator + cp + File.pathSeparator + junitCp);
        cmd.add("paf.runner.TraceMain");
        cmd.add("--tests");
        cmd.add(tests);
        cmd.add("--skip");
        cmd.add(skipFile.getAbsolutePath());
        if (shard != null) {
            cmd.add("--shard");
            cmd.add(shard);
        }
        // the tests' output is dropped (Relayed below): the worker drops it itself
        if (quiet) cmd.add("--drop-out");
        if (verbose) System.err.println("paf trace: " + String.join(" ", cmd));
        return cmd;
    }

    /** The flags' checks before any JVM starts; returns the JUnit class path to add ("" if the project has one). */
    static String checkFlags() {
        File o = new File(out);
        if (o.exists() && !o.isDirectory()) usage("-o " + out + ": exists and is not a directory");
        if (o.isDirectory() && !new File(o, "manifest.json").exists()) {
            String[] kids = o.list();
            if (kids != null && kids.length > 0 && !(kids.length == 1 && kids[0].equals(".work")))
                usage("-o " + out + ": the directory is not empty and is not a paf bundle (no manifest.json)");
        }
        File j = new File(java);
        if (!j.isFile() || !j.canExecute()) usage("--java " + java + ": no such executable");
        if (timeout < 0) usage("--timeout must not be negative");
        List<File> entries = new ArrayList<>();
        for (String e : cp.split(File.pathSeparator)) {
            if (e.isEmpty()) continue;
            File f = e.endsWith("/*") ? new File(e.substring(0, e.length() - 2)) : new File(e);
            if (!f.exists()) usage("--classpath: " + e + " does not exist");
            if (e.endsWith("/*")) {
                File[] jars = f.listFiles((d, n) -> n.endsWith(".jar") || n.endsWith(".JAR"));
                if (jars != null) for (File x : jars) entries.add(x);
            } else entries.add(f);
        }
        for (String p : include.split(",")) {
            p = p.trim();
            if (p.isEmpty()) continue;
            if (!anyClassUnder(entries, p.replace('.', '/') + "/"))
                usage("--include " + p + ": no class of this package is on the --classpath");
        }
        for (String t : tests.split(",")) {
            t = t.trim().replaceAll("#.*", ""); // Class#method (paf trace java --isolate)
            if (t.isEmpty()) continue;
            if (!hasResource(entries, t.replace('.', '/') + ".class"))
                usage("--tests: class " + t + " is not on the --classpath");
        }
        for (String a : asmClasspath().split(File.pathSeparator))
            if (!new File(a).isFile())
                usage("--asm: " + a + " does not exist (pass ASM's asm, asm-tree and asm-analysis jars with --asm or "
                        + "$PAF_ASM_CLASSPATH; Debian: apt-get install libasm-java)");
        if (hasResource(entries, "org/junit/runner/JUnitCore.class")) return "";
        String jcp = junitClasspath();
        for (String x : jcp.split(File.pathSeparator))
            if (!new File(x).isFile())
                usage("--junit: " + x + " does not exist (pass JUnit 4 and hamcrest with --junit or $PAF_JUNIT_CLASSPATH; "
                        + "Debian: apt-get install junit4 libhamcrest-java)");
        return jcp;
    }

    /** JUnit 4 and hamcrest: --junit, else $PAF_JUNIT_CLASSPATH, else Debian's jars. */
    static String junitClasspath() {
        if (junit != null) return junit;
        String env = System.getenv("PAF_JUNIT_CLASSPATH");
        if (env != null && !env.isEmpty()) return env;
        String hamcrest = new File(DEBIAN, "hamcrest-core.jar").isFile() ? DEBIAN + "/hamcrest-core.jar" : DEBIAN + "/hamcrest.jar";
        return DEBIAN + "/junit4.jar" + File.pathSeparator + hamcrest;
    }

    /** ASM (asm, asm-tree, asm-analysis): --asm, else $PAF_ASM_CLASSPATH, else Debian's jars. */
    static String asmClasspath() {
        if (asm != null) return asm;
        String env = System.getenv("PAF_ASM_CLASSPATH");
        if (env != null && !env.isEmpty()) return env;
        return DEBIAN + "/asm.jar" + File.pathSeparator + DEBIAN + "/asm-tree.jar" + File.pathSeparator + DEBIAN
                + "/asm-analysis.jar";
    }

    /** Whether a class path entry holds a class file under the package directory {@code dir} ("a/b/"). */
    static boolean anyClassUnder(List<File> entries, String dir) {
        for (File e : entries) {
            if (e.isDirectory()) {
                if (anyClassIn(new File(e, dir))) return true;
            } else if (e.isFile()) {
                try (JarFile jar = new JarFile(e)) {
                    for (Enumeration<? extends ZipEntry> en = jar.entries(); en.hasMoreElements(); ) {
                        String n = en.nextElement().getName();
                        if (n.startsWith(dir) && n.endsWith(".class")) return true;
                    }
                } catch (IOException ex) {
                    // not a jar: nothing in it
                }
            }
        }
        return false;
    }

    private static boolean anyClassIn(File d) {
        File[] kids = d.listFiles();
        if (kids == null) return false;
        for (File k : kids) if (k.isFile() ? k.getName().endsWith(".class") : anyClassIn(k)) return true;
        return false;
    }

    static boolean hasResource(List<File> entries, String res) {
        for (File e : entries) {
            if (e.isDirectory()) {
                if (new File(e, res).isFile()) return true;
            } else if (e.isFile()) {
                try (JarFile jar = new JarFile(e)) {
                    if (jar.getEntry(res) != null) return true;
                } catch (IOException ex) {
                    // not a jar
                }
            }
        }
        return false;
    }

    /** One worker JVM and what its protocol lines said. */
    static final class Worker {
        final List<String> cmd;
        final List<String> done = new ArrayList<>();
        volatile String current, usage;
        volatile long started;
        volatile boolean finished, timedOut;
        int exitCode;

        Worker(List<String> cmd) {
            this.cmd = cmd;
        }

        /**
         * Runs the worker (or watches the attached one: no command) until it says {@code @@PAF
         * done} or exits. After its done line every file of the worker's is complete (R.finish),
         * so the bundle is written while it exits; {@link #awaitExit} waits for that.
         */
        void run(int timeoutSecs) throws IOException, InterruptedException {
            if (cmd == null) {
                runAttached(timeoutSecs);
                return;
            }
            ProcessBuilder pb = new ProcessBuilder(cmd);
            pb.redirectError(ProcessBuilder.Redirect.PIPE);
            pb.redirectInput(ProcessBuilder.Redirect.PIPE);
            Process p;
            synchronized (WORKERS) {
                if (stopping) throw new InterruptedException("shutting down");
                p = pb.start();
                running = p;
            }
            p.getOutputStream().close();
            Thread reader = new Thread(() -> read(p.getInputStream()));
            Thread errors = new Thread(() -> {
                Relayed relayed = new Relayed();
                try (BufferedReader r = new BufferedReader(new InputStreamReader(p.getErrorStream(), StandardCharsets.UTF_8))) {
                    String line;
                    while ((line = r.readLine()) != null) {
                        relayed.add(line);
                        relayed.flushBeforeWaiting(r);
                    }
                } catch (IOException e) {
                    // the worker is gone
                } finally {
                    relayed.flush();
                }
            });
            reader.setDaemon(true);
            errors.setDaemon(true);
            reader.start();
            errors.start();
            process = p;
            readers = new Thread[] {reader, errors};
            while (p.isAlive() && !finished) {
                // wakes at the done line, not only at the exit, 14 ms later on mockachino
                if (said.getCount() > 0) said.await(50, TimeUnit.MILLISECONDS);
                else p.waitFor(50, TimeUnit.MILLISECONDS);
                synchronized (this) {
                    if (current != null && timeoutSecs > 0 && System.nanoTime() - started > timeoutSecs * 1_000_000_000L) {
                        timedOut = true;
                        p.destroyForcibly();
                        p.waitFor();
                        break;
                    }
                }
            }
            if (!finished) awaitExit();
        }

        /** Counted down at the done line, or when the worker's output ends. */
        private final CountDownLatch said = new CountDownLatch(1);
        private Process process;
        private Thread[] readers;
        private Thread attachedReader;
        private boolean exited;

        /**
         * Waits for the worker's exit once it is done (or dead), and relays the rest of its output;
         * the exit code of a worker that said done is only reported, since its tests are all
         * recorded.
         */
        void awaitExit() throws InterruptedException {
            if (exited) return;
            exited = true;
            if (process == null) {
                awaitAttachedExit();
                return;
            }
            // a shutdown hook of the code under test may hang: the time-out bounds the exit too
            if (finished && timeout > 0 && !process.waitFor(timeout, TimeUnit.SECONDS)) {
                hung = true;
                process.destroyForcibly();
            }
            exitCode = process.waitFor();
            synchronized (WORKERS) {
                running = null;
            }
            for (Thread t : readers) t.join(5000);
            if (finished) afterDone();
        }

        /** Set when a worker that said done did not exit within the time-out and was killed. */
        private boolean hung;

        /** Reports how a worker that said done ended, if not with code 0. */
        private void afterDone() {
            if (hung)
                System.err.println("paf trace: the JVM did not exit within " + timeout + " s after its last test "
                        + "(a shutdown hook?); killed; every test is recorded");
            else if (exitCode != 0)
                System.err.println("paf trace: the JVM exited with code " + exitCode + " after its last test "
                        + "(in a shutdown hook?); every test is recorded");
        }

        /** Exit code of an attached worker, from paf's {@code @@PAF exit} line; null until then. */
        private volatile Integer attachedExit;

        /**
         * Watches worker 0, which paf started ({@code --attached}): the same protocol, on this
         * JVM's stdin, where paf relays the worker's output and then its exit code.
         */
        private void runAttached(int timeoutSecs) throws InterruptedException {
            Thread reader = new Thread(() -> read(null));
            reader.setDaemon(true);
            reader.start();
            attachedReader = reader;
            boolean killed = false;
            while (reader.isAlive() && attachedExit == null && !finished) {
                if (said.getCount() > 0) said.await(50, TimeUnit.MILLISECONDS);
                else reader.join(50);
                synchronized (this) {
                    if (!killed && current != null && timeoutSecs > 0 && System.nanoTime() - started > timeoutSecs * 1_000_000_000L) {
                        timedOut = true;
                        killed = true;
                        // paf sees the pipes close, reaps it and sends its exit code
                        ProcessHandle.of(attached).ifPresent(ProcessHandle::destroyForcibly);
                    }
                }
            }
            if (!finished) awaitExit();
        }

        /** The rest of {@link #runAttached}: up to paf's exit line for worker 0. */
        private void awaitAttachedExit() throws InterruptedException {
            // after its done line, worker 0 only exits: its relay ends at paf's exit line, which
            // must be read before the static analysis reads its queries from the same stdin
            if (finished) {
                attachedReader.join(timeout > 0 ? timeout * 1000L : 0);
                if (attachedReader.isAlive()) {
                    // paf sees the pipes close, reaps it and sends its exit line
                    hung = true;
                    ProcessHandle.of(attached).ifPresent(ProcessHandle::destroyForcibly);
                    attachedReader.join();
                }
            } else attachedReader.join(5000);
            // No exit line: paf's relay ended. A dying paf closes its pipes a moment before it is
            // gone (and this JVM gets another parent), so wait that moment out before taking the
            // worker for dead and starting the next.
            for (int i = 0; i < 100 && attachedExit == null && !pafGone(); i++) Thread.sleep(10);
            attachedRunning = false;
            // no exit line: paf is gone or its relay broke; the worker is treated as dead
            exitCode = attachedExit != null ? attachedExit : 1;
            if (finished) afterDone();
        }

        /**
         * Reads the worker's protocol lines until the stream ends; {@code null}: paf's relay of the
         * attached worker on this JVM's stdin, up to its exit line, leaving stdin open (the static
         * analysis's queries follow on it).
         */
        private void read(InputStream in) {
            BufferedReader r = new BufferedReader(new InputStreamReader(in != null ? in : System.in, StandardCharsets.UTF_8));
            if (in == null) stdin = r;
            Relayed relayed = new Relayed();
            try {
                String line;
                while ((line = r.readLine()) != null) {
                    if (line.startsWith("@@PAF begin ")) {
                        synchronized (this) {
                            current = line.substring(12);
                            started = System.nanoTime();
                        }
                    } else if (line.startsWith("@@PAF end ")) {
                        synchronized (this) {
                            done.add(line.substring(10));
                            current = null;
                        }
                    } else if (line.equals("@@PAF done")) {
                        finished = true;
                        said.countDown();
                    } else if (line.startsWith("@@PAF usage ")) {
                        usage = line.substring(12);
                    } else if (cmd == null && line.startsWith("@@PAF err ")) {
                        relayed.add(line.substring(10));
                    } else if (cmd == null && line.startsWith("@@PAF exit ")) {
                        try {
                            attachedExit = Integer.parseInt(line.substring(11).trim());
                        } catch (NumberFormatException e) {
                            attachedExit = 1;
                        }
                        return;
                    } else {
                        relayed.add(line);
                    }
                    // after every line, protocol lines too: a line kept back because more was read
                    // must not wait, past the protocol line that followed, for the worker's next
                    relayed.flushBeforeWaiting(r);
                }
            } catch (IOException e) {
                // the worker is gone
            } finally {
                relayed.flush();
                said.countDown();
            }
            if (in != null) {
                try {
                    r.close();
                } catch (IOException e) {
                    // nothing to do: the worker is gone
                }
            }
        }
    }

    /**
     * The worker's output that one reading thread passes on to this JVM's stderr: the agent's
     * and the runner's problems always, the tests' own output unless --quiet. The lines read at
     * once are written together, before the thread waits for more: a line shows as soon as it
     * did one by one, and a chatty test costs a write per read, not one per line
     * (docs/performance.md, "Sixteenth round").
     */
    private static final class Relayed {
        private final StringBuilder pending = new StringBuilder();

        void add(String line) {
            if (!quiet || line.startsWith("paf")) pending.append(line).append('\n');
        }

        /** Writes the pending lines when {@code r} has nothing more read (its next read would wait) or they are many. */
        void flushBeforeWaiting(BufferedReader r) throws IOException {
            if (pending.length() > 0 && (pending.length() >= 1 << 16 || !r.ready())) flush();
        }

        void flush() {
            if (pending.length() == 0) return;
            System.err.print(pending);
            System.err.flush();
            pending.setLength(0);
        }
    }

    /** Cuts a part file after its last complete test and, for a lost test, appends a truncated record. */
    static void repair(File part, String lostTest, String type, String why) throws IOException {
        long keep = 0;
        if (part.exists()) {
            try (InputStream in = new java.io.BufferedInputStream(new FileInputStream(part), 1 << 16)) {
                long pos = 0;
                byte[] head = new byte[10];
                int hn = 0, c;
                while ((c = in.read()) >= 0) {
                    pos++;
                    if (c == '\n') {
                        if (hn >= 10 && new String(head, StandardCharsets.UTF_8).equals("{\"k\":\"end\"")) keep = pos;
                        hn = 0;
                    } else if (hn < 10) head[hn++] = (byte) c;
                }
            }
            try (RandomAccessFile raf = new RandomAccessFile(part, "rw")) {
                raf.setLength(keep);
            }
        }
        if (lostTest == null) return;
        int dot = lostTest.lastIndexOf('.');
        String cls = dot > 0 ? lostTest.substring(0, dot) : lostTest, m = dot > 0 ? lostTest.substring(dot + 1) : "";
        String rec = "{\"k\":\"begin\",\"test\":" + q(lostTest) + ",\"class\":" + q(cls) + ",\"method\":" + q(m) + "}\n"
                + "{\"k\":\"end\",\"test\":" + q(lostTest) + ",\"outcome\":\"fail\",\"events\":0,\"truncated\":true,"
                + "\"exception\":{\"type\":" + q(type) + ",\"message\":" + q(why) + ",\"frames\":[]},\"note\":" + q(why) + "}\n";
        try (OutputStream o = new FileOutputStream(part, true)) {
            o.write(rec.getBytes(StandardCharsets.UTF_8));
        }
    }

    /** A worker that died may have left half a line at the end of the shared statement table. */
    static void truncateToLastLine(File f) throws IOException {
        if (!f.exists()) return;
        try (RandomAccessFile raf = new RandomAccessFile(f, "rw")) {
            long n = raf.length();
            while (n > 0) {
                raf.seek(n - 1);
                if (raf.read() == '\n') break;
                n--;
            }
            raf.setLength(n);
        }
    }

    /** What the bundle holds, for the summary and the exit code. */
    static final class Summary {
        int tests, classes;
    }

    /**
     * Counts of a tests file's records, read as bytes (never decoded: a part file can be
     * gigabytes): tests, passing tests, truncated tests, events and bytes. A line is a test's
     * end when it starts with the agent's end prefix, an event when it is neither begin nor end.
     */
    static final class Counts {
        int tests, pass, truncated;
        long events, bytes;
        private static final byte[] END = "{\"k\":\"end\"".getBytes(StandardCharsets.UTF_8);
        private static final byte[] BEGIN = "{\"k\":\"begin\"".getBytes(StandardCharsets.UTF_8);
        private static final byte[] PASS = "\"outcome\":\"pass\"".getBytes(StandardCharsets.UTF_8);
        private static final byte[] TRUNCATED = "\"truncated\":true".getBytes(StandardCharsets.UTF_8);
        /** The line being read: its first bytes, and all of it when it is an end record. */
        private byte[] line = new byte[256];
        private int len;
        /** 0: not known yet (fewer bytes than a begin prefix), 1: an end record, 2: another record. */
        private int kind;

        /**
         * Adds a part's counts as its agent wrote them ({@code known}: tests, passing, truncated,
         * event lines); false when there are none, and the file must be read.
         */
        boolean add(long[] known, File f) {
            if (known == null) return false;
            tests += (int) known[0];
            pass += (int) known[1];
            truncated += (int) known[2];
            events += known[3];
            bytes += f.length();
            return true;
        }

        void count(File f) throws IOException {
            copy(f, null);
        }

        /** Counts f's records and, when {@code o} is not null, appends its bytes to o. */
        void copy(File f, OutputStream o) throws IOException {
            byte[] buf = new byte[1 << 20];
            try (InputStream in = new FileInputStream(f)) {
                int n;
                while ((n = in.read(buf)) > 0) {
                    if (o != null) o.write(buf, 0, n);
                    bytes += n;
                    for (int i = 0; i < n; i++) {
                        byte b = buf[i];
                        if (b == '\n') lineEnd();
                        else if (kind != 2) take(b);
                    }
                }
            }
            if (len > 0 || kind != 0) lineEnd(); // a last line without its line end
        }

        private void take(byte b) {
            if (len == line.length) line = Arrays.copyOf(line, len * 2);
            line[len++] = b;
            if (kind == 0 && len == BEGIN.length) kind = startsWith(END) ? 1 : 2;
            if (kind == 2 && !startsWith(BEGIN)) events++; // counted now: the rest is skipped
        }

        private boolean startsWith(byte[] p) {
            if (len < p.length) return false;
            for (int i = 0; i < p.length; i++) if (line[i] != p[i]) return false;
            return true;
        }

        private void lineEnd() {
            if (kind == 1 || (kind == 0 && startsWith(END))) {
                tests++;
                if (contains(PASS)) pass++;
                if (contains(TRUNCATED)) truncated++;
            } else if (kind == 0) {
                events++; // a line shorter than a begin prefix: an event
            }
            kind = 0;
            len = 0;
        }

        private boolean contains(byte[] p) {
            outer:
            for (int i = 0; i + p.length <= len; i++) {
                for (int j = 0; j < p.length; j++) if (line[i + j] != p[j]) continue outer;
                return true;
            }
            return false;
        }
    }

    /**
     * The counts the agent of part {@code p} wrote at its JVM's clean exit, or null. Only a part
     * the supervisor did not repair may use them: a repair cuts and appends records.
     */
    static long[] agentCounts(File work, int p) throws IOException {
        String v = agentSays(work, p, "counts");
        if (v == null) return null;
        String[] f = v.split(" ");
        if (f.length != 4) return null;
        long[] n = new long[4];
        try {
            for (int i = 0; i < 4; i++) n[i] = Long.parseLong(f[i]);
        } catch (NumberFormatException e) {
            return null;
        }
        return n;
    }

    /** How many times the agent of part {@code p} cut its tests file ({@code cut} in its report); -1 when it did not say. */
    static long agentCuts(File work, int p) throws IOException {
        String v = agentSays(work, p, "cut");
        try {
            return v == null ? -1 : Long.parseLong(v);
        } catch (NumberFormatException e) {
            return -1;
        }
    }

    /** The value of the first line {@code KEY VALUE} of the agent of part {@code p}'s report (trimmed), or null. */
    static String agentSays(File work, int p, String key) throws IOException {
        File af = new File(work, "agent." + p + ".txt");
        if (!af.exists()) return null;
        for (String l : Files.readAllLines(af.toPath(), StandardCharsets.UTF_8)) {
            if (l.startsWith(key + " ")) return l.substring(key.length() + 1).trim();
        }
        return null;
    }

    /** {@code lastClean}: the last part's JVM finished its tests (its part file was not repaired). */
    static Summary assemble(File bundle, File work, int parts, boolean lastClean, long wallMs, int lost) throws IOException {
        int nStmts = writeStatements(new File(work, "statements.jsonl"), bundle, gzip);

        Counts c = new Counts();
        File tf = new File(bundle, gzip ? "tests.jsonl.gz" : "tests.jsonl");
        File only = new File(work, "tests.0.jsonl");
        if (!gzip && parts == 0 && only.exists()) {
            // one JVM, no compression: the part file is the tests file (a rename, no copy)
            if (!c.add(lastClean ? agentCounts(work, 0) : null, only)) c.count(only);
            boolean appended = lastClean && agentCuts(work, 0) == 0;
            boolean fenced = lastClean && "0".equals(agentSays(work, 0, "fence_broken"));
            long length = only.length();
            Files.move(only.toPath(), tf.toPath(), StandardCopyOption.REPLACE_EXISTING);
            // paf's follower compressed the part file as it grew; this says it only grew, so
            // that paf keeps what it compressed without reading the file again (docs/java.md)
            if (appended) Files.write(new File(work, "tests.appended").toPath(),
                    (length + "\n").getBytes(StandardCharsets.UTF_8));
            // or that it was never cut below the fence its agent published for the follower
            // (Out.setFence): what the follower read below the fence never changed
            if (fenced) Files.write(new File(work, "tests.fenced").toPath(),
                    (length + "\n").getBytes(StandardCharsets.UTF_8));
            // where its tests' begin and end records are, as the agent counted them: paf's
            // first read of the bundle takes them instead of searching (docs/java.md)
            File marks = new File(work, "marks.0.txt");
            if (lastClean && marks.exists()) Files.move(marks.toPath(), new File(work, "tests.marks").toPath(),
                    StandardCopyOption.REPLACE_EXISTING);
        } else {
            try (OutputStream o = gzip ? fastGzip(tf) : new FileOutputStream(tf)) {
                for (int p = 0; p <= parts; p++) {
                    File pf = new File(work, "tests." + p + ".jsonl");
                    if (!pf.exists()) continue;
                    if (c.add(p == parts && lastClean ? agentCounts(work, p) : null, pf)) {
                        try (InputStream in = new FileInputStream(pf)) {
                            in.transferTo(o);
                        }
                    } else {
                        c.copy(pf, o);
                    }
                }
            }
        }
        int nTests = c.tests, pass = c.pass, fail = c.tests - c.pass, trunc = c.truncated;
        long events = c.events, bytes = c.bytes;
        // agent reports
        int classes = 0;
        long siteHits = 0, siteWalks = 0, split = 0;
        long[] frames = new long[2]; // classes whose frames were kept, computed
        long[] cached = new long[2]; // worker 0's classes from the class cache, instrumented and recorded
        long[] compactions = new long[4]; // compactions, records read, from the writer's fields, log mismatches
        List<String> errors = new ArrayList<>();
        for (int p = 0; p <= parts; p++) {
            File af = new File(work, "agent." + p + ".txt");
            if (!af.exists()) continue;
            for (String l : Files.readAllLines(af.toPath(), StandardCharsets.UTF_8)) {
                if (l.startsWith("classes ")) classes = Math.max(classes, Integer.parseInt(l.substring(8).trim()));
                else if (l.startsWith("error ") && !errors.contains(l.substring(6))) errors.add(l.substring(6));
                else if (l.startsWith("split ")) { // a figure for -v only; per JVM, as classes
                    try {
                        split = Math.max(split, Long.parseLong(l.substring(6).trim()));
                    } catch (RuntimeException e) {
                        // not a number
                    }
                } else if (l.startsWith("frames ")) { // for -v only; per JVM, as classes
                    String[] f = l.substring(7).trim().split(" ");
                    try {
                        for (int i = 0; i < 2; i++) frames[i] = Math.max(frames[i], Long.parseLong(f[i]));
                    } catch (RuntimeException e) {
                        // a line cut short
                    }
                } else if (l.startsWith("cache ") && p == 0) { // for -v only; worker 0 alone has the cache
                    String[] f = l.substring(6).trim().split(" ");
                    try {
                        long[] v = new long[2];
                        for (int i = 0; i < 2; i++) v[i] = Long.parseLong(f[i]);
                        cached = v;
                    } catch (RuntimeException e) {
                        // a line cut short
                    }
                } else if (l.startsWith("compactions ")) { // figures for -v only: a line cut short counts nothing
                    String[] f = l.substring(12).trim().split(" ");
                    try {
                        long[] v = new long[4];
                        for (int i = 0; i < 4; i++) v[i] = Long.parseLong(f[i]);
                        for (int i = 0; i < 4; i++) compactions[i] += v[i];
                    } catch (RuntimeException e) {
                        // not four numbers
                    }
                } else if (l.startsWith("sites ")) { // a figure for -v only: a line cut short counts nothing
                    String[] hw = l.substring(6).trim().split(" ");
                    try {
                        long h = Long.parseLong(hw[0]), w = Long.parseLong(hw[1]);
                        siteHits += h;
                        siteWalks += w;
                    } catch (RuntimeException e) {
                        // not both numbers
                    }
                }
            }
        }
        StringBuilder m = new StringBuilder();
        m.append("{\n \"format\": \"paf-trace\",\n \"version\": 1,\n \"producer\": \"paf java agent 0.2 (ASM 9, JUnit 4)\",\n")
                .append(" \"subject\": ").append(q(subject)).append(",\n")
                .append(sourceRoots())
                .append(" \"java\": {\"include\": ").append(q(include)).append(", \"exclude\": ").append(q(exclude))
                .append(", \"tests\": ").append(q(tests)).append(", \"jvms\": ").append(parts + 1)
                .append(", \"lost_tests\": ").append(lost).append(", \"classes_instrumented\": ").append(classes)
                .append(", \"instrumentation_errors\": [");
        for (int i = 0; i < errors.size(); i++) m.append(i > 0 ? ", " : "").append(q(errors.get(i)));
        m.append("], \"wall_ms\": ").append(wallMs).append("}\n}\n");
        write(new File(bundle, "manifest.json"), m.toString().getBytes(StandardCharsets.UTF_8));
        // concatenated, not printf: java.util.Formatter's first use costs this JVM 10-15 ms, on
        // the run's critical path (docs/performance.md, "Fourth round")
        long tenths = (wallMs + 50) / 100; // %.1f of the seconds, rounding half up as it does
        System.err.println("paf trace: " + count(nTests, "test", "tests") + " (" + pass + " pass, " + fail + " fail, " + trunc
                + " truncated), " + count(events, "event", "events") + ", " + bytes + " bytes of events, "
                + count(nStmts, "statement", "statements") + ", " + count(classes, "class", "classes") + " instrumented, "
                + count(errors.size(), "instrumentation error", "instrumentation errors") + ", " + count(parts + 1, "JVM", "JVMs")
                + ", " + tenths / 10 + "." + tenths % 10 + " s -> " + shown(bundle));
        for (String e : errors) System.err.println("paf trace: instrumentation error: " + e);
        if (verbose)
            System.err.println("paf trace: test lines of calls from the test body: " + siteHits
                    + " from the test classes' call sites, " + siteWalks + " from stack walks");
        if (verbose) System.err.println("paf trace: methods split in two (a copy runs recorded): " + split);
        if (verbose)
            System.err.println("paf trace: instrumented classes' stack map frames: " + frames[0] + " kept from the class file, "
                    + frames[1] + " computed");
        if (verbose && cached[0] + cached[1] > 0)
            System.err.println("paf trace: instrumented classes from the class cache: " + cached[0] + " replayed, "
                    + cached[1] + " instrumented and recorded");
        if (verbose)
            System.err.println("paf trace: compactions at the event cap: " + compactions[0] + ", reading " + compactions[1]
                    + " records, " + compactions[2] + " of them from the writer's fields, " + compactions[3]
                    + " with the writer's log wrong");
        Summary s = new Summary();
        s.tests = nTests;
        s.classes = classes;
        return s;
    }

    /**
     * The bundle's statement table from the agents' shared one: complete lines, the first line of
     * each id, without the agent's key. Returns the number of statements.
     */
    static int writeStatements(File sf, File bundle, boolean gz) throws IOException {
        // Bytes, not strings: this runs after the tests, on the way to paf's analysis of them, in
        // a JVM whose code is still cold; joda-time's 10 MB table took about 0.1 s as strings
        // (docs/performance.md, "Twenty-second round"). The keys and the records are ASCII
        // around any UTF-8 in the values, so the byte offsets are the characters' offsets.
        byte[] all = sf.exists() ? Files.readAllBytes(sf.toPath()) : new byte[0];
        byte[] out = new byte[all.length];
        Set<String> seen = new java.util.HashSet<>();
        int o = 0, n = 0;
        int end = all.length; // complete lines only: a line cut short by a dead JVM is left out
        while (end > 0 && all[end - 1] != '\n') end--;
        for (int i = 0; i < end; ) {
            int nl = i;
            while (all[nl] != '\n') nl++;
            if (startsWith(all, i, nl, ID)) {
                int comma = indexOf(all, (byte) ',', i + ID.length, nl);
                if (comma < 0) comma = nl; // no field after the id: the line is the statement
                if (seen.add(new String(all, i + ID.length, comma - i - ID.length, StandardCharsets.ISO_8859_1))) {
                    int k = lastIndexOf(all, KEY, i, nl);
                    int stop = k > i ? k : nl;
                    System.arraycopy(all, i, out, o, stop - i);
                    o += stop - i;
                    if (k > i) out[o++] = '}';
                    out[o++] = '\n';
                    n++;
                }
            }
            i = nl + 1;
        }
        new File(bundle, "statements.jsonl").delete();
        new File(bundle, "statements.jsonl.gz").delete();
        write(new File(bundle, gz ? "statements.jsonl.gz" : "statements.jsonl"), Arrays.copyOf(out, o));
        return n;
    }

    private static final byte[] ID = "{\"id\":".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] KEY = ",\"key\":".getBytes(StandardCharsets.US_ASCII);

    private static boolean startsWith(byte[] b, int from, int to, byte[] p) {
        if (to - from < p.length) return false;
        for (int j = 0; j < p.length; j++) if (b[from + j] != p[j]) return false;
        return true;
    }

    private static int indexOf(byte[] b, byte c, int from, int to) {
        for (int j = from; j < to; j++) if (b[j] == c) return j;
        return -1;
    }

    /** The last start of {@code p} within {@code b[from, to)}, or -1. */
    private static int lastIndexOf(byte[] b, byte[] p, int from, int to) {
        for (int j = to - p.length; j >= from; j--) if (startsWith(b, j, to, p)) return j;
        return -1;
    }

    /**
     * A gzip stream at deflate's fastest level (trace.sh --gzip; paf trace java compresses in paf):
     * the default level took as long as the tracing itself, for a file a few percent smaller.
     */
    static OutputStream fastGzip(File f) throws IOException {
        return new GZIPOutputStream(new FileOutputStream(f), 1 << 16) {
            {
                def.setLevel(Deflater.BEST_SPEED);
            }
        };
    }

    static void write(File f, byte[] b) throws IOException {
        if (f.getName().endsWith(".gz")) {
            try (OutputStream o = fastGzip(f)) {
                o.write(b);
            }
        } else {
            Files.write(f.toPath(), b);
        }
    }

    /** The bundle's path as the user named it. */
    static String shown(File bundle) {
        return shownAs != null ? shownAs : bundle.getPath();
    }

    static String q(String s) {
        StringBuilder b = new StringBuilder("\"");
        for (char c : s.toCharArray()) {
            if (c == '"' || c == '\\') b.append('\\').append(c);
            else if (c == '\n') b.append("\\n");
            else if (c < 0x20) b.append(String.format("\\u%04x", (int) c));
            else b.append(c);
        }
        return b.append('"').toString();
    }

    static void deleteTree(File f) {
        File[] kids = f.listFiles();
        if (kids != null) for (File k : kids) deleteTree(k);
        f.delete();
    }

    /** {@code n} and its noun in the number it needs ("1 JVM", "2 JVMs"). */
    static String count(long n, String one, String many) {
        return n + " " + (n == 1 ? one : many);
    }

    /**
     * The manifest's {@code source_roots} line (docs/trace-format.md): each {@code --sourcepath}
     * root relative to the directory paf runs in (taken as the repository root) when it lies
     * under it, else as given; nothing without {@code --sourcepath}.
     */
    static String sourceRoots() {
        List<String> roots = new ArrayList<>();
        java.nio.file.Path here = new File("").getAbsoluteFile().toPath().normalize();
        for (String r : sourcepath.split(File.pathSeparator)) {
            if (r.isEmpty()) continue;
            java.nio.file.Path p = new File(r).getAbsoluteFile().toPath().normalize();
            String shown = p.startsWith(here) && !p.equals(here) ? here.relativize(p).toString() : r;
            if (!roots.contains(shown)) roots.add(shown);
        }
        if (roots.isEmpty()) return "";
        StringBuilder b = new StringBuilder(" \"source_roots\": [");
        for (int i = 0; i < roots.size(); i++) b.append(i > 0 ? ", " : "").append(q(roots.get(i)));
        return b.append("],\n").toString();
    }
}
