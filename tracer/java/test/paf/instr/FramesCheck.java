//! A check of the frames the instrumenter keeps (tracer/java/e2e.sh runs it): a class instrumented with its frames kept loads, verifies and computes what the original does, recorded or not.
package paf.instr;

import static org.objectweb.asm.Opcodes.*;
import static paf.instr.LoopExits.call;

import java.io.File;
import java.io.InputStream;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import org.objectweb.asm.tree.FrameNode;
import org.objectweb.asm.tree.InsnNode;
import org.objectweb.asm.tree.LabelNode;
import org.objectweb.asm.tree.MethodNode;
import org.objectweb.asm.tree.TypeInsnNode;

import paf.rt.R;

/**
 * Checks {@link Frames}: its slot lists one way and back, the test that sends a class whose
 * frames name a NEW the instrumentation moved to the class writer's computation, and
 * {@code framescheck.Shapes} (frames before {@code super()}, at offset 0, with longs and
 * doubles, with an uninitialized object on the stack, at a handler and a switch) instrumented
 * with its frames kept: loaded in a loader of its own, so the JVM verifies it, it returns what
 * the original returns, unrecorded and recorded, and a loop whose head is at offset 0 leaves for
 * the original code's clone once its test stops recording. Exits 1 with the first difference.
 *
 * <p>usage: {@code java -cp paf-rt.jar:paf-instr.jar:ASM:DIR paf.instr.FramesCheck WORKDIR}
 */
public final class FramesCheck {
    private FramesCheck() {}

    public static void main(String[] args) throws Exception {
        // a long or double is one entry of a frame and two slots; trailing TOPs are dropped
        List<Object> entries = Arrays.asList(INTEGER, LONG, "java/lang/String", DOUBLE);
        List<Object> slots = Frames.slots(entries);
        if (!slots.equals(Arrays.asList(INTEGER, LONG, TOP, "java/lang/String", DOUBLE, TOP))) fail("slots: " + slots);
        if (!Frames.entries(slots).equals(entries)) fail("entries: " + Frames.entries(slots));
        if (!Frames.entries(Arrays.asList(INTEGER, TOP, TOP)).equals(List.of(INTEGER))) fail("trailing TOPs kept");

        // a frame naming a NEW with code inserted between its label and the NEW
        for (boolean between : new boolean[] {false, true}) {
            MethodNode m = new MethodNode(ACC_STATIC, "m", "()V", null, null);
            LabelNode at = new LabelNode();
            m.instructions.add(at);
            if (between) m.instructions.add(new InsnNode(NOP));
            m.instructions.add(new TypeInsnNode(NEW, "java/lang/Object"));
            m.instructions.add(new FrameNode(F_NEW, 0, new Object[0], 1, new Object[] {at}));
            if (Frames.newsInPlace(m) == between)
                fail("a NEW " + (between ? "behind code" : "at its label") + " taken for the other");
        }

        File work = new File(args[0]);
        work.mkdirs();
        R.init(work.getPath(), 0, 0);
        ClassLoader parent = FramesCheck.class.getClassLoader();
        Map<String, byte[]> bytes = new HashMap<>();
        for (String c : new String[] {"framescheck/Shapes", "framescheck/Base"})
            try (InputStream in = parent.getResourceAsStream(c + ".class")) {
                bytes.put(c.replace('/', '.'), in.readAllBytes());
            }
        Map<String, String> opts = new HashMap<>();
        opts.put("include", "framescheck");
        byte[] out = new Instrumenter(opts).transform(parent, "framescheck/Shapes", null, null, bytes.get("framescheck.Shapes"));
        if (out == null) fail("the class was not instrumented");
        if (!"1 0".equals(R.stats().get("frames"))) fail("frames kept, computed: " + R.stats().get("frames") + ", want 1 0");
        bytes.put("framescheck.Shapes", out);

        Class<?> plain = Class.forName("framescheck.Shapes", true, parent);
        Class<?> kept = new ClassLoader(parent) {
            @Override
            protected Class<?> loadClass(String name, boolean resolve) throws ClassNotFoundException {
                if (!bytes.containsKey(name)) return super.loadClass(name, resolve);
                synchronized (getClassLoadingLock(name)) {
                    Class<?> c = findLoadedClass(name);
                    byte[] b = bytes.get(name);
                    return c != null ? c : defineClass(name, b, 0, b.length);
                }
            }
        }.loadClass("framescheck.Shapes");
        List<String> expected = results(plain);
        List<String> unrecorded;
        try {
            unrecorded = results(kept);
        } catch (VerifyError e) {
            fail("the instrumented class does not verify: " + e);
            return;
        }
        if (!unrecorded.equals(expected)) fail("unrecorded: got " + unrecorded + ", want " + expected);
        R.beginTest("framescheck.Shapes.recorded", "framescheck.ShapesTest", "recorded");
        List<String> recorded = results(kept);
        R.endTest("framescheck.Shapes.recorded", null, "test", new Throwable[0], new String[0], "framescheck.ShapesTest",
                "recorded", null);
        if (!recorded.equals(expected)) fail("recorded: got " + recorded + ", want " + expected);

        // down's loop head is at offset 0: once its test stops recording, the copy goes on in the
        // clone of the original code, which starts with a frame of its own
        Object left = LoopExits.leave(kept, "down", FramesCheck::fail);
        if (!Integer.valueOf(0).equals(left)) fail("down(100) returned " + left + ", want 0");
        System.out.println("ok: FramesCheck (" + expected.size() + " results, frames kept)");
    }

    /** Every method's result (or thrown class) on fixed arguments. */
    private static List<String> results(Class<?> c) throws Exception {
        List<String> r = new ArrayList<>();
        for (int x : new int[] {-2, 3}) r.add(call(c.getMethod("s"), c.getConstructor(int.class).newInstance(x)));
        r.add(call(c.getMethod("down", int.class, java.util.function.IntConsumer.class), null, 5,
                (java.util.function.IntConsumer) i -> {}));
        r.add(call(c.getMethod("sumLong", long.class, double.class, int.class), null, 1L << 40, 2.5, 10));
        for (boolean b : new boolean[] {false, true}) r.add(call(c.getMethod("make", boolean.class), null, b) + "");
        for (int x : new int[] {0, 3}) r.add(call(c.getMethod("guarded", int.class), null, x));
        for (int k : new int[] {-1, 0, 2, 9}) r.add(call(c.getMethod("kind", int.class), null, k));
        Method t = c.getMethod("ternary", Object.class, int[].class, int.class);
        int[] a = new int[3];
        r.add(call(t, null, null, a, 1) + Arrays.toString(a));
        r.add(call(t, null, "ab", a, 2) + Arrays.toString(a));
        r.add(call(t, null, "ab", a, 5));
        return r;
    }

    private static void fail(String why) {
        System.err.println("FAIL: FramesCheck: " + why);
        System.exit(1);
    }
}
