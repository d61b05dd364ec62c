//! A check of the split of methods (tracer/java/e2e.sh runs it): which methods are split, that both halves compute what the original does, recorded or not, that a recorded stack has no dispatcher frame, and that a loop leaves for the original code once nothing is recorded.
package paf.instr;

import static paf.instr.LoopExits.call;

import java.io.File;
import java.io.InputStream;
import java.lang.reflect.InvocationTargetException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;

import org.objectweb.asm.ClassReader;
import org.objectweb.asm.Opcodes;
import org.objectweb.asm.tree.ClassNode;
import org.objectweb.asm.tree.MethodInsnNode;
import org.objectweb.asm.tree.MethodNode;

import paf.rt.R;

/**
 * Instruments {@code splitcheck.Small} as the agent does and checks {@link Split}: the methods
 * split (a dispatcher with the method's own name, descriptor and access, which checks
 * {@code R.on()} first, and a private synthetic copy taking an extra {@code R}), the methods
 * left whole (a constructor, a synchronized method, one with a handler; one too large to take
 * the dispatch, made up here), the
 * results of every method with recording off and on against the uninstrumented class, and the
 * frames of an exception raised in a split method while recorded: the method once, no frame of
 * line {@link Split#LINE}; and a loop whose test stops recording half way, whose later turns must
 * run in the clone of the original code ({@link Split#addExits}). Exits 1 with the first
 * difference.
 *
 * <p>usage: {@code java -Xbootclasspath/a:paf-rt.jar -cp paf-instr.jar:ASM:DIR paf.instr.SplitCheck WORKDIR}
 */
public final class SplitCheck {
    private SplitCheck() {}

    private static final String NAME = "splitcheck/Small";

    public static void main(String[] args) throws Exception {
        File work = new File(args[0]);
        work.mkdirs();
        R.init(work.getPath(), 0, 0);
        byte[] original;
        try (InputStream in = SplitCheck.class.getClassLoader().getResourceAsStream(NAME + ".class")) {
            original = in.readAllBytes();
        }
        Map<String, String> opts = new HashMap<>();
        opts.put("include", "splitcheck");
        ClassLoader parent = SplitCheck.class.getClassLoader();
        byte[] out = new Instrumenter(opts).transform(parent, NAME, null, null, original);
        if (out == null) fail("the class was not instrumented");

        // the shape: dispatchers and copies
        ClassNode cn = new ClassNode();
        new ClassReader(out).accept(cn, 0);
        TreeSet<String> dispatchers = new TreeSet<>(), copies = new TreeSet<>();
        for (MethodNode mn : cn.methods) {
            if (mn.desc.contains("Lpaf/rt/R;)")) {
                if ((mn.access & (Opcodes.ACC_PRIVATE | Opcodes.ACC_SYNTHETIC)) != (Opcodes.ACC_PRIVATE | Opcodes.ACC_SYNTHETIC))
                    fail("the copy " + mn.name + mn.desc + " is not private and synthetic");
                copies.add(mn.name);
                continue;
            }
            MethodInsnNode firstCall = null;
            for (var n = mn.instructions.getFirst(); n != null && firstCall == null; n = n.getNext())
                if (n instanceof MethodInsnNode) firstCall = (MethodInsnNode) n;
            if (firstCall != null && firstCall.owner.equals("paf/rt/R") && firstCall.name.equals("on")) dispatchers.add(mn.name);
        }
        TreeSet<String> want = new TreeSet<>(List.of("first", "get", "kind", "mix", "sparse", "spin", "sum"));
        if (!dispatchers.equals(want)) fail("dispatchers: got " + dispatchers + ", want " + want);
        if (!copies.equals(want)) fail("copies: got " + copies + ", want " + want);

        // a method whose code with the dispatch might not fit in a method (65,535 bytes) is left whole
        ClassNode big = new ClassNode();
        big.name = "splitcheck/Big";
        big.access = Opcodes.ACC_PUBLIC;
        // the dispatch of a static method without arguments is 11 bytes (on(), ifeq, aconst_null,
        // invoke, return): 65,524 bytes of code take it, 65,525 do not
        for (int size : new int[] {65524, 65525}) {
            MethodNode m = new MethodNode(Opcodes.ACC_PUBLIC | Opcodes.ACC_STATIC, "m", "()V", null, null);
            for (int i = 0; i < size - 1; i++) m.instructions.add(new org.objectweb.asm.tree.InsnNode(Opcodes.NOP));
            m.instructions.add(new org.objectweb.asm.tree.InsnNode(Opcodes.RETURN));
            boolean splits = Split.dispatcher(big, m, false) != null;
            if (splits != (size == 65524)) fail("a method of " + size + " bytes split: " + splits);
        }

        // a split method too large once instrumented is left whole, named by its own descriptor
        // (the copy's, with the R parameter, used to be skipped instead, and the class gave up)
        for (String d : new String[] {"()V", "(IJ)Ljava/lang/String;", "([I)I"})
            if (!Split.originalDesc(Split.copyDesc(d)).equals(d) || !Split.originalDesc(d).equals(d))
                fail("originalDesc(copyDesc(" + d + ")) is " + Split.originalDesc(Split.copyDesc(d)));
        ClassNode huge = new ClassNode();
        huge.visit(Opcodes.V11, Opcodes.ACC_PUBLIC, "splitcheck/Huge", null, "java/lang/Object", null);
        MethodNode m = new MethodNode(Opcodes.ACC_PUBLIC | Opcodes.ACC_STATIC, "m", "(I)I", null, null);
        for (int i = 0; i < 8000; i++) { // 32,000 bytes: an event per store takes it past 65,535
            m.instructions.add(new org.objectweb.asm.tree.VarInsnNode(Opcodes.ILOAD, 0));
            m.instructions.add(new org.objectweb.asm.tree.InsnNode(Opcodes.ICONST_1));
            m.instructions.add(new org.objectweb.asm.tree.InsnNode(Opcodes.IADD));
            m.instructions.add(new org.objectweb.asm.tree.VarInsnNode(Opcodes.ISTORE, 0));
        }
        m.instructions.add(new org.objectweb.asm.tree.VarInsnNode(Opcodes.ILOAD, 0));
        m.instructions.add(new org.objectweb.asm.tree.InsnNode(Opcodes.IRETURN));
        huge.methods.add(m);
        org.objectweb.asm.ClassWriter hw = new org.objectweb.asm.ClassWriter(org.objectweb.asm.ClassWriter.COMPUTE_MAXS);
        huge.accept(hw);
        byte[] hugeOut = new Instrumenter(opts).transform(parent, "splitcheck/Huge", null, null, hw.toByteArray());
        if (hugeOut == null) fail("splitcheck.Huge was not instrumented: " + R.stats().get("errors"));
        if (!R.stats().get("errors").toString().contains("method too large once instrumented: splitcheck.Huge.m(I)I"))
            fail("no error names splitcheck.Huge.m(I)I: " + R.stats().get("errors"));

        // the same results as the uninstrumented class, unrecorded and recorded
        Class<?> plain = Class.forName("splitcheck.Small", true, parent);
        Class<?> split = new ClassLoader(parent) {
            @Override
            protected Class<?> loadClass(String name, boolean resolve) throws ClassNotFoundException {
                if (!name.equals("splitcheck.Small")) return super.loadClass(name, resolve);
                synchronized (getClassLoadingLock(name)) {
                    Class<?> c = findLoadedClass(name);
                    return c != null ? c : defineClass(name, out, 0, out.length);
                }
            }
        }.loadClass("splitcheck.Small");
        List<String> expected = results(plain);
        if (!results(split).equals(expected)) fail("unrecorded: got " + results(split) + ", want " + expected);
        R.beginTest("splitcheck.Small.recorded", "splitcheck.SmallTest", "recorded");
        List<String> recorded = results(split);
        Throwable thrown = null;
        try {
            split.getMethod("first", int[].class).invoke(null, (Object) new int[0]);
        } catch (InvocationTargetException e) {
            thrown = e.getCause();
        }
        R.endTest("splitcheck.Small.recorded", thrown, "test", new Throwable[0], new String[0], "splitcheck.SmallTest",
                "recorded", null);
        R.flush();
        if (!recorded.equals(expected)) fail("recorded: got " + recorded + ", want " + expected);
        if (!(thrown instanceof ArrayIndexOutOfBoundsException)) fail("first(new int[0]) threw " + thrown);
        String trace = new String(Files.readAllBytes(new File(work, "tests.0.jsonl").toPath()), StandardCharsets.UTF_8);
        String end = null;
        for (String line : trace.split("\n")) if (line.startsWith("{\"k\":\"end\"")) end = line;
        if (end == null) fail("no end record in " + work + "/tests.0.jsonl");
        if (!trace.contains("\"method\":\"splitcheck.Small.get\"")) fail("the recorded test entered no copy of get:\n" + trace);
        if (end.contains("\"line\":" + Split.LINE)) fail("a dispatcher frame was recorded: " + end);
        int firsts = end.split("\"method\":\"first\"", -1).length - 1;
        if (firsts != 1) fail("first() is " + firsts + " frames of the recorded stack, want 1: " + end);

        // a copy leaves for the original code at its loop's head once the test stops recording
        // (Split.addExits): spin's turns before the stop run the instrumented code, the turns
        // after it the original's clone, appended after the instrumented code (higher offsets)
        Object spun = LoopExits.leave(split, "spin", SplitCheck::fail);
        if (!Integer.valueOf(4950).equals(spun)) fail("spin(100) returned " + spun + ", want 4950");
        System.out.println("ok: SplitCheck (" + dispatchers.size() + " methods split, " + expected.size() + " results)");
    }

    /** Every method's result (or thrown class) on fixed arguments. */
    private static List<String> results(Class<?> c) throws Exception {
        List<String> r = new ArrayList<>();
        Object o = c.getConstructor(int.class).newInstance(7);
        r.add(call(c.getMethod("get"), o));
        r.add(call(c.getMethod("mix", long.class, double.class, int.class), null, 1L << 40, 2.5, -3));
        r.add(call(c.getMethod("first", int[].class), null, (Object) new int[] {5, 6}));
        r.add(call(c.getMethod("first", int[].class), null, (Object) null));
        r.add(call(c.getMethod("locked"), o));
        r.add(call(c.getMethod("guarded", int.class), null, 0));
        r.add(call(c.getMethod("guarded", int.class), null, 3));
        r.add(call(c.getMethod("sum", int.class), o, 50));
        for (int k : new int[] {-1, 0, 3, 4}) r.add(call(c.getMethod("kind", int.class), null, k));
        for (int k : new int[] {-1000, 7, 100000, 8}) r.add(call(c.getMethod("sparse", int.class), null, k));
        return r;
    }

    private static void fail(String why) {
        System.err.println("FAIL: SplitCheck: " + why);
        System.exit(1);
    }
}
