package paf.agent;

import java.io.File;
import java.io.FileOutputStream;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.lang.instrument.ClassFileTransformer;
import java.lang.instrument.Instrumentation;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import paf.rt.R;

/**
 * The paf JVM agent. Options (after {@code -agentlib:instrument=paf-agent.jar=} or
 * {@code -javaagent:paf-agent.jar=}): {@code key=value} pairs
 * separated by {@code ;}: work (output directory, required), part (this JVM's number),
 * include / exclude (package prefixes, comma separated), tests (test classes, never
 * instrumented), src (source path, for field declaration lines), cap (events per test),
 * asm (ASM's asm, asm-tree and asm-analysis jars, ':'-separated, or a directory holding asm.jar,
 * asm-tree.jar and asm-analysis.jar; default /usr/share/java),
 * cache (a file: the class cache, paf.instr.ClassCache), fail (test hook: a class to pretend
 * cannot be instrumented), verbose=1.
 *
 * <p>The instrumenter and ASM are loaded in their own class loader, so the program under test never
 * sees them; the runtime {@link R} is on the boot class path, so every class loader sees it.
 */
public final class Agent {
    private Agent() {}

    public static void premain(String args, Instrumentation inst) throws Exception {
        Map<String, String> opts = parse(args);
        String work = opts.get("work");
        if (work == null) throw new IllegalArgumentException("paf-agent: option work=DIR is required");
        int part = Integer.parseInt(opts.getOrDefault("part", "0"));
        R.init(work, part, Long.parseLong(opts.getOrDefault("cap", "0")));
        File here = new File(Agent.class.getProtectionDomain().getCodeSource().getLocation().toURI()).getParentFile();
        List<URL> urls = new ArrayList<>();
        urls.add(new File(here, "paf-instr.jar").toURI().toURL());
        String asm = opts.getOrDefault("asm", "/usr/share/java");
        if (new File(asm).isDirectory()) {
            for (String j : new String[] {"asm.jar", "asm-tree.jar", "asm-analysis.jar"})
                urls.add(new File(asm, j).toURI().toURL());
        } else {
            for (String j : asm.split(File.pathSeparator)) if (!j.isEmpty()) urls.add(new File(j).toURI().toURL());
        }
        ClassLoader l = new URLClassLoader(urls.toArray(new URL[0]), ClassLoader.getPlatformClassLoader());
        ClassFileTransformer t = (ClassFileTransformer) l.loadClass("paf.instr.Instrumenter").getConstructor(Map.class)
                .newInstance(opts);
        inst.addTransformer(t);
        // The counts and the marks, written once the tests are over: before the runner's "@@PAF
        // done" (R.finish), or at exit if the JVM ends otherwise.
        R.onFinish(() -> {
            try (Writer w = new OutputStreamWriter(new FileOutputStream(new File(work, "agent." + part + ".txt")),
                    StandardCharsets.UTF_8)) {
                Map<String, Object> s = R.stats();
                w.write("classes " + s.get("classes") + "\n");
                w.write("counts " + s.get("counts") + "\n"); // tests, passing, truncated, event lines
                w.write("sites " + s.get("sites") + "\n"); // test lines from call sites, from stack walks
                w.write("split " + s.get("split") + "\n"); // methods split (paf.instr.Split)
                w.write("frames " + s.get("frames") + "\n"); // classes with frames kept, computed (paf.instr.Frames)
                w.write("cache " + s.get("cache") + "\n"); // classes from the class cache, recorded in it (paf.instr.ClassCache)
                w.write("cut " + s.get("cut") + "\n"); // times the tests part file was cut (Out.truncate)
                w.write("fence_broken " + s.get("fence_broken") + "\n"); // cuts below paf's fence: none may be
                // compactions, records they read, of those from the writer's fields, log mismatches
                w.write("compactions " + s.get("compactions") + "\n");
                for (Object e : (List<?>) s.get("errors")) w.write("error " + e + "\n");
            } catch (Exception e) {
                // nothing to do at shutdown
            }
            try {
                R.writeMarks(new File(work, "marks." + part + ".txt"));
            } catch (Exception e) {
                // without them paf searches the file
            }
        });
        Runtime.getRuntime().addShutdownHook(new Thread(R::finish));
    }

    static Map<String, String> parse(String args) {
        Map<String, String> m = new HashMap<>();
        if (args == null) return m;
        for (String kv : args.split(";")) {
            int eq = kv.indexOf('=');
            if (eq > 0) m.put(kv.substring(0, eq).trim(), kv.substring(eq + 1));
        }
        return m;
    }
}
