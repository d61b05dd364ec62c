//! A check of the class cache (tracer/java/e2e.sh runs it): a run replays what the run before recorded, byte for byte and id for id, and instruments again from the first class that differs.
package paf.instr;

import java.io.File;
import java.io.InputStream;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import paf.rt.R;

/**
 * Checks {@link ClassCache} through the {@link Instrumenter}, each step in a JVM of its own (the
 * runtime's registry is per JVM), on the classes {@code cachecheck.A}, {@code B} and {@code C}:
 *
 * <ul>
 *   <li>record: A, B, C instrumented (C fails by the agent's {@code fail} option) and recorded;
 *   <li>replay: the same three replayed, the same bytes (C unchanged), the same registry after,
 *       C's failure reported again;
 *   <li>order: B before A: nothing replayed, both instrumented and recorded, the same bytes as
 *       in the record run (B's registrations are the first: its ids differ, so compared by
 *       loading only);
 *   <li>registry: a name registered first: nothing replayed;
 *   <li>corrupt: a byte of the file changed: the file is ignored, and written anew;
 *   <li>tail: A replayed, then C without the fail option: instrumented after the hierarchy
 *       learned A (its superclass), and the file then holds A and C, which a last run replays.
 * </ul>
 *
 * Exits 1 with the first difference.
 *
 * <p>usage: {@code java -cp paf-rt.jar:paf-instr.jar:ASM:DIR paf.instr.CacheCheck WORKDIR}
 */
public final class CacheCheck {
    private CacheCheck() {}

    private static final String[] ABC = {"A", "B", "C"};

    public static void main(String[] args) throws Exception {
        File work = new File(args[0]);
        if (args.length > 1) {
            step(work, args[1]);
            return;
        }
        work.mkdirs();
        for (File f : work.listFiles()) if (f.isFile()) f.delete();
        for (String s : new String[] {"record", "replay", "order", "registry", "corrupt", "tail", "tail-replay"}) {
            if (s.equals("corrupt")) {
                // the file as the record run wrote it, one byte of a class's bytes changed
                byte[] b = Files.readAllBytes(new File(work, "saved").toPath());
                b[b.length / 2] ^= 1;
                Files.write(new File(work, "cache").toPath(), b);
            }
            if (s.equals("order") || s.equals("registry") || s.equals("tail"))
                Files.copy(new File(work, "saved").toPath(), new File(work, "cache").toPath(),
                        java.nio.file.StandardCopyOption.REPLACE_EXISTING);
            List<String> cmd = new ArrayList<>(Arrays.asList(new File(System.getProperty("java.home"), "bin/java").getPath(),
                    "-cp", System.getProperty("java.class.path"), CacheCheck.class.getName(), work.getPath(), s));
            Process p = new ProcessBuilder(cmd).inheritIO().start();
            if (p.waitFor() != 0) fail("step " + s + " failed");
            if (s.equals("record"))
                Files.copy(new File(work, "cache").toPath(), new File(work, "saved").toPath());
        }
        System.out.println("ok: CacheCheck (recorded, replayed byte for byte, stopped at another order, another registry, "
                + "a corrupt file, and replayed a head then instrumented the rest)");
    }

    /** One step, in its own JVM. */
    private static void step(File work, String s) throws Exception {
        File rt = new File(work, "rt-" + s);
        rt.mkdirs();
        R.init(rt.getPath(), 0, 0);
        Map<String, String> opts = new HashMap<>();
        opts.put("include", "cachecheck");
        opts.put("cache", new File(work, "cache").getPath());
        if (!s.startsWith("tail")) opts.put("fail", "cachecheck.C");
        if (s.equals("registry")) R.name("a name the record run did not register first");
        Instrumenter in = new Instrumenter(opts);
        ClassLoader loader = CacheCheck.class.getClassLoader();
        String[] order = s.equals("order") ? new String[] {"B", "A", "C"} : s.startsWith("tail") ? new String[] {"A", "C"} : ABC;
        Map<String, byte[]> out = new HashMap<>();
        for (String c : order) out.put(c, in.transform(loader, "cachecheck/" + c, null, null, bytes(loader, c)));
        String cache = (String) R.stats().get("cache");
        String reg = Arrays.toString(R.registry());
        switch (s) {
            case "record":
                want(cache, "0 3", "cache");
                for (String c : ABC) save(work, c, out.get(c));
                Files.write(new File(work, "registry").toPath(), reg.getBytes());
                break;
            case "replay":
                want(cache, "3 0", "cache");
                for (String c : ABC) same(work, c, out.get(c));
                want(reg, new String(Files.readAllBytes(new File(work, "registry").toPath())), "registry");
                if (!R.stats().get("errors").toString().contains("cannot instrument class cachecheck.C: "))
                    fail("replay: C's failure not reported again: " + R.stats().get("errors"));
                break;
            case "order":
            case "registry":
            case "corrupt":
                want(cache, "0 3", s + ": cache");
                if (out.get("A") == null || out.get("B") == null || out.get("C") != null) fail(s + ": A, B instrumented, C not");
                if (s.equals("corrupt")) same(work, "A", out.get("A"));
                break;
            case "tail":
                want(cache, "1 1", "tail: cache");
                same(work, "A", out.get("A"));
                if (out.get("C") == null) fail("tail: C not instrumented");
                save(work, "C-tail", out.get("C"));
                break;
            case "tail-replay":
                want(cache, "2 0", "tail-replay: cache");
                same(work, "A", out.get("A"));
                same(work, "C-tail", out.get("C"));
                break;
            default:
                fail("no step " + s);
        }
    }

    private static byte[] bytes(ClassLoader loader, String c) throws Exception {
        try (InputStream in = loader.getResourceAsStream("cachecheck/" + c + ".class")) {
            return in.readAllBytes();
        }
    }

    private static void save(File work, String c, byte[] b) throws Exception {
        Files.write(new File(work, c + ".out").toPath(), b == null ? new byte[0] : b);
    }

    private static void same(File work, String c, byte[] b) throws Exception {
        byte[] want = Files.readAllBytes(new File(work, c + ".out").toPath());
        if (!Arrays.equals(b == null ? new byte[0] : b, want)) fail(c + ": not the bytes recorded");
    }

    private static void want(String got, String want, String what) {
        if (!got.equals(want)) fail(what + ": got " + got + ", want " + want);
    }

    private static void fail(String why) {
        System.err.println("FAIL: CacheCheck: " + why);
        System.exit(1);
    }
}
