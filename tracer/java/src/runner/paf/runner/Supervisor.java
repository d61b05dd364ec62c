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
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.zip.GZIPOutputStream;

/**
 * {@code paf trace java}: records a trace bundle (docs/trace-format.md) of JUnit test classes.
 *
 * <p>Runs the tests in a worker JVM with the paf agent ({@link TraceMain}) and watches it through
 * the worker's protocol lines. When a test does not end within the time-out, the worker is killed;
 * when the worker dies during a test (a crash, System.exit, halt), the test is recorded as a failed
 * test with {@code "truncated": true} and a new worker runs the remaining tests. The bundle always
 * holds every other test.
 */
public final class Supervisor {
    static String cp, include, exclude = "", tests, out, sourcepath = "", subject, java, failClass, shard;
    static int timeout = 60;
    static long cap = 0;
    static boolean gzip, keepWork, quiet;
    static List<String> jvmArgs = new ArrayList<>();

    static void usage(String msg) {
        System.err.println("paf trace java: " + msg);
        System.err.println("usage: trace.sh --classpath CP --include PKG[,PKG...] --tests CLASS[,CLASS...] -o BUNDLE\n"
                + "                [--exclude PKG[,PKG...]] [--timeout SECS] [--sourcepath DIRS] [--gzip]\n"
                + "                [--max-events N] [--subject TEXT] [--java PATH] [--jvm-arg ARG]... [--keep-work] [--shard i/N]");
        System.exit(2);
    }

    public static void main(String[] a) throws Exception {
        for (int i = 0; i < a.length; i++) {
            String k = a[i];
            java.util.function.Supplier<String> v = null;
            final int j = i;
            if (i + 1 >= a.length && !k.equals("--gzip") && !k.equals("--keep-work") && !k.equals("--quiet")) usage("missing value for " + k);
            switch (k) {
                case "--classpath": case "-cp": cp = a[++i]; break;
                case "--include": include = a[++i]; break;
                case "--exclude": exclude = a[++i]; break;
                case "--tests": tests = a[++i]; break;
                case "-o": case "--output": out = a[++i]; break;
                case "--timeout": timeout = Integer.parseInt(a[++i]); break;
                case "--sourcepath": sourcepath = a[++i]; break;
                case "--max-events": cap = Long.parseLong(a[++i]); break;
                case "--subject": subject = a[++i]; break;
                case "--java": java = a[++i]; break;
                case "--jvm-arg": jvmArgs.add(a[++i]); break;
                case "--fail-class": failClass = a[++i]; break;
                case "--shard": shard = a[++i]; break;
                case "--gzip": gzip = true; break;
                case "--keep-work": keepWork = true; break;
                case "--quiet": quiet = true; break;
                default: usage("unknown option " + k);
            }
        }
        if (cp == null || include == null || tests == null || out == null) usage("--classpath, --include, --tests and -o are required");
        if (java == null) java = System.getProperty("java.home") + File.separator + "bin" + File.separator + "java";
        if (subject == null) subject = tests;
        File jarDir = new File(Supervisor.class.getProtectionDomain().getCodeSource().getLocation().toURI()).getParentFile();
        File bundle = new File(out);
        bundle.mkdirs();
        File work = new File(bundle, ".work");
        deleteTree(work);
        work.mkdirs();
        for (String f : new String[] {"manifest.json", "statements.jsonl", "statements.jsonl.gz", "tests.jsonl", "tests.jsonl.gz"})
            new File(bundle, f).delete();

        Set<String> skip = new LinkedHashSet<>();
        int part = 0, lost = 0;
        long t0 = System.nanoTime();
        while (true) {
            File skipFile = new File(work, "skip.txt");
            Files.write(skipFile.toPath(), String.join("\n", skip).concat("\n").getBytes(StandardCharsets.UTF_8));
            List<String> cmd = new ArrayList<>();
            cmd.add(java);
            // repeated implicit exceptions must keep their stack traces (the crash site)
            cmd.add("-XX:-OmitStackTraceInFastThrow");
            cmd.addAll(jvmArgs);
            // Class#method (paf trace java --isolate) names the class to the agent.
            String agentOpts = "work=" + work.getAbsolutePath() + ";part=" + part + ";include=" + include + ";exclude=" + exclude
                    + ";tests=" + tests.replaceAll("#[^,]*", "") + ";src=" + sourcepath + (cap > 0 ? ";cap=" + cap : "")
                    + (failClass != null ? ";fail=" + failClass : "");
            cmd.add("-javaagent:" + new File(jarDir, "paf-agent.jar").getAbsolutePath() + "=" + agentOpts);
            cmd.add("-cp");
            cmd.add(new File(jarDir, "paf-runner.jar").getAbsolutePath() + File.pathSeparator + "/usr/share/java/junit4.jar"
                    + File.pathSeparator + "/usr/share/java/hamcrest-core.jar" + File.pathSeparator + cp);
            cmd.add("paf.runner.TraceMain");
            cmd.add("--tests");
            cmd.add(tests);
            cmd.add("--skip");
            cmd.add(skipFile.getAbsolutePath());
            if (shard != null) {
                cmd.add("--shard");
                cmd.add(shard);
            }
            if (part == 0 && !quiet) System.err.println("paf trace: " + String.join(" ", cmd));
            Worker w = new Worker(cmd);
            w.run(timeout);
            skip.addAll(w.done);
            if (w.finished) break;
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
        int recorded = assemble(bundle, work, part, wallMs, lost);
        if (!keepWork) deleteTree(work);
        if (recorded == 0) {
            System.err.println("paf trace: no test was recorded; the bundle " + bundle + " is empty");
            System.exit(1);
        }
    }

    /** One worker JVM and what its protocol lines said. */
    static final class Worker {
        final List<String> cmd;
        final List<String> done = new ArrayList<>();
        volatile String current;
        volatile long started;
        volatile boolean finished, timedOut;
        int exitCode;

        Worker(List<String> cmd) {
            this.cmd = cmd;
        }

        void run(int timeoutSecs) throws IOException, InterruptedException {
            ProcessBuilder pb = new ProcessBuilder(cmd);
            pb.redirectError(ProcessBuilder.Redirect.INHERIT);
            pb.redirectInput(ProcessBuilder.Redirect.PIPE);
            Process p = pb.start();
            p.getOutputStream().close();
            Thread reader = new Thread(() -> {
                try (BufferedReader r = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
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
                        } else {
                            System.err.println(line);
                        }
                    }
                } catch (IOException e) {
                    // the worker is gone
                }
            });
            reader.setDaemon(true);
            reader.start();
            while (p.isAlive()) {
                p.waitFor(50, TimeUnit.MILLISECONDS);
                synchronized (this) {
                    if (current != null && timeoutSecs > 0 && System.nanoTime() - started > timeoutSecs * 1_000_000_000L) {
                        timedOut = true;
                        p.destroyForcibly();
                        p.waitFor();
                        break;
                    }
                }
            }
            exitCode = p.waitFor();
            reader.join(5000);
            if (exitCode != 0) finished = false;
        }
    }

    /** Cuts a part file after its last complete test and, for a lost test, appends a truncated record. */
    static void repair(File part, String lostTest, String type, String why) throws IOException {
        long keep = 0;
        if (part.exists()) {
            try (InputStream in = new java.io.BufferedInputStream(new FileInputStream(part), 1 << 16)) {
                long pos = 0, lineStart = 0;
                byte[] head = new byte[10];
                int hn = 0, c;
                while ((c = in.read()) >= 0) {
                    pos++;
                    if (c == '\n') {
                        if (hn >= 10 && new String(head, StandardCharsets.UTF_8).equals("{\"k\":\"end\"")) keep = pos;
                        hn = 0;
                        lineStart = pos;
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

    static int assemble(File bundle, File work, int parts, long wallMs, int lost) throws IOException {
        // statements: complete lines, first occurrence of each id, without the agent's key
        Set<String> seen = new java.util.HashSet<>();
        StringBuilder st = new StringBuilder();
        int nStmts = 0;
        File sf = new File(work, "statements.jsonl");
        if (sf.exists()) {
            String all = new String(Files.readAllBytes(sf.toPath()), StandardCharsets.UTF_8);
            int end = all.lastIndexOf('\n');
            for (String line : (end < 0 ? "" : all.substring(0, end)).split("\n")) {
                if (!line.startsWith("{\"id\":")) continue;
                String id = line.substring(6, line.indexOf(','));
                if (!seen.add(id)) continue;
                int k = line.lastIndexOf(",\"key\":");
                st.append(k > 0 ? line.substring(0, k) + "}" : line).append('\n');
                nStmts++;
            }
        }
        write(new File(bundle, gzip ? "statements.jsonl.gz" : "statements.jsonl"), st.toString().getBytes(StandardCharsets.UTF_8));

        int nTests = 0, pass = 0, fail = 0, trunc = 0;
        long events = 0, bytes = 0;
        File tf = new File(bundle, gzip ? "tests.jsonl.gz" : "tests.jsonl");
        try (OutputStream o = gzip ? new GZIPOutputStream(new FileOutputStream(tf), 1 << 16)
                : new java.io.BufferedOutputStream(new FileOutputStream(tf), 1 << 16)) {
            for (int p = 0; p <= parts; p++) {
                File pf = new File(work, "tests." + p + ".jsonl");
                if (!pf.exists()) continue;
                try (BufferedReader r = new BufferedReader(new InputStreamReader(new FileInputStream(pf), StandardCharsets.UTF_8), 1 << 16)) {
                    String line;
                    while ((line = r.readLine()) != null) {
                        byte[] b = (line + "\n").getBytes(StandardCharsets.UTF_8);
                        o.write(b);
                        bytes += b.length;
                        if (line.startsWith("{\"k\":\"end\"")) {
                            nTests++;
                            if (line.contains("\"outcome\":\"pass\"")) pass++;
                            else fail++;
                            if (line.contains("\"truncated\":true")) trunc++;
                        } else if (!line.startsWith("{\"k\":\"begin\"")) events++;
                    }
                }
            }
        }
        // agent reports
        int classes = 0;
        List<String> errors = new ArrayList<>();
        for (int p = 0; p <= parts; p++) {
            File af = new File(work, "agent." + p + ".txt");
            if (!af.exists()) continue;
            for (String l : Files.readAllLines(af.toPath(), StandardCharsets.UTF_8)) {
                if (l.startsWith("classes ")) classes = Math.max(classes, Integer.parseInt(l.substring(8).trim()));
                else if (l.startsWith("error ") && !errors.contains(l.substring(6))) errors.add(l.substring(6));
            }
        }
        StringBuilder m = new StringBuilder();
        m.append("{\n \"format\": \"paf-trace\",\n \"version\": 1,\n \"producer\": \"paf java agent 0.1 (ASM 9, JUnit 4)\",\n")
                .append(" \"subject\": ").append(q(subject)).append(",\n")
                .append(" \"java\": {\"include\": ").append(q(include)).append(", \"exclude\": ").append(q(exclude))
                .append(", \"tests\": ").append(q(tests)).append(", \"jvms\": ").append(parts + 1)
                .append(", \"lost_tests\": ").append(lost).append(", \"classes_instrumented\": ").append(classes)
                .append(", \"instrumentation_errors\": [");
        for (int i = 0; i < errors.size(); i++) m.append(i > 0 ? ", " : "").append(q(errors.get(i)));
        m.append("], \"wall_ms\": ").append(wallMs).append("}\n}\n");
        write(new File(bundle, "manifest.json"), m.toString().getBytes(StandardCharsets.UTF_8));
        if (!quiet || !errors.isEmpty() || lost > 0) {
            System.err.printf("paf trace: %d tests (%d pass, %d fail, %d truncated), %d events, %d bytes of events, %d statements, "
                    + "%d classes instrumented, %d instrumentation errors, %d JVM(s), %.1f s -> %s%n",
                    nTests, pass, fail, trunc, events, bytes, nStmts, classes, errors.size(), parts + 1, wallMs / 1000.0, bundle);
            for (String e : errors) System.err.println("paf trace: instrumentation error: " + e);
        }
        return nTests;
    }

    static void write(File f, byte[] b) throws IOException {
        if (f.getName().endsWith(".gz")) {
            try (OutputStream o = new GZIPOutputStream(new FileOutputStream(f))) {
                o.write(b);
            }
        } else {
            Files.write(f.toPath(), b);
        }
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
}
