package paf.instr;

import java.util.ArrayList;
import java.util.List;

import org.objectweb.asm.ClassReader;
import org.objectweb.asm.ClassWriter;
import org.objectweb.asm.Label;
import org.objectweb.asm.MethodVisitor;
import org.objectweb.asm.Opcodes;
import org.objectweb.asm.tree.AbstractInsnNode;
import org.objectweb.asm.tree.ClassNode;
import org.objectweb.asm.tree.IntInsnNode;
import org.objectweb.asm.tree.MethodInsnNode;
import org.objectweb.asm.tree.MethodNode;
import org.objectweb.asm.tree.VarInsnNode;

/**
 * Checks {@link TestSites} on a test method made with ASM: which calls get a site, the receiver's
 * local each instance site loads, no site for a call at an offset with two line entries, and that
 * the rewritten class still verifies and runs. Exits 1 with the first difference.
 * {@code java -cp paf-rt.jar:paf-instr.jar:ASM:DIR paf.instr.TestSitesCheck}.
 */
public final class TestSitesCheck {
    private TestSitesCheck() {}

    private static final String LIB = "sitecheck/Lib", GEN = "sitecheck/GenTest";

    public static void main(String[] args) throws Exception {
        byte[] lib = lib(), gen = gen();
        byte[] out = TestSites.rewrite(GEN, gen);
        if (out == null) fail("the test class was not rewritten");
        // per call, in order: the local the site loads (-1: null, a static call or a constructor), or none
        List<String> got = new ArrayList<>();
        ClassNode cn = new ClassNode();
        new ClassReader(out).accept(cn, 0);
        for (MethodNode mn : cn.methods) {
            if (!mn.name.equals("body")) continue;
            for (AbstractInsnNode n = mn.instructions.getFirst(); n != null; n = n.getNext()) {
                if (!(n instanceof MethodInsnNode) || ((MethodInsnNode) n).owner.equals("paf/rt/R")) continue;
                MethodInsnNode call = (MethodInsnNode) n;
                AbstractInsnNode p = call.getPrevious();
                String site = "none";
                if (p instanceof MethodInsnNode && ((MethodInsnNode) p).owner.equals("paf/rt/R")) {
                    AbstractInsnNode number = p.getPrevious(), cls = number.getPrevious(), recv = cls.getPrevious();
                    if (!(number instanceof IntInsnNode) || !(cls instanceof IntInsnNode))
                        fail("a site pushes its class and number with sipush: " + call.name);
                    site = recv instanceof VarInsnNode ? "aload " + ((VarInsnNode) recv).var
                            : recv.getOpcode() == Opcodes.ACONST_NULL ? "null" : "?";
                }
                got.add(call.name + ":" + site);
            }
        }
        List<String> want = List.of("m:aload 0", "s:none", "<init>:null", "make:null", "m:none", "nanoTime:none",
                "i:aload 0", "m:aload 3", "m:none");
        if (!got.equals(want)) fail("sites\n  got  " + got + "\n  want " + want);
        // the rewritten class verifies (max_stack, frames) and runs, its sites unrecorded
        ClassLoader l = new ClassLoader(TestSitesCheck.class.getClassLoader()) {
            @Override
            protected Class<?> findClass(String name) throws ClassNotFoundException {
                byte[] b = name.equals("sitecheck.Lib") ? lib : name.equals("sitecheck.GenTest") ? out : null;
                if (b == null) throw new ClassNotFoundException(name);
                return defineClass(name, b, 0, b.length);
            }
        };
        Class<?> g = Class.forName("sitecheck.GenTest", true, l);
        Object r = g.getMethod("run").invoke(null);
        if (!"ok".equals(r)) fail("the rewritten class returned " + r);
        System.out.println("ok: TestSitesCheck (" + got.size() + " calls, " + got.stream().filter(x -> !x.endsWith(":none")).count()
                + " sites)");
    }

    private static void fail(String why) {
        System.err.println("FAIL: TestSitesCheck: " + why);
        System.exit(1);
    }

    /** The library: a class with the methods the test calls. */
    private static byte[] lib() {
        ClassWriter cw = new ClassWriter(ClassWriter.COMPUTE_FRAMES | ClassWriter.COMPUTE_MAXS);
        cw.visit(Opcodes.V11, Opcodes.ACC_PUBLIC, LIB, null, "java/lang/Object", null);
        MethodVisitor mv = cw.visitMethod(Opcodes.ACC_PUBLIC, "<init>", "(Ljava/lang/Object;)V", null, null);
        mv.visitCode();
        mv.visitVarInsn(Opcodes.ALOAD, 0);
        mv.visitMethodInsn(Opcodes.INVOKESPECIAL, "java/lang/Object", "<init>", "()V", false);
        mv.visitInsn(Opcodes.RETURN);
        mv.visitMaxs(0, 0);
        mv.visitEnd();
        for (String name : new String[] {"m", "i"}) {
            mv = cw.visitMethod(Opcodes.ACC_PUBLIC, name, "(Ljava/lang/Object;)V", null, null);
            mv.visitCode();
            mv.visitInsn(Opcodes.RETURN);
            mv.visitMaxs(0, 0);
            mv.visitEnd();
        }
        mv = cw.visitMethod(Opcodes.ACC_PUBLIC | Opcodes.ACC_STATIC, "s", "()V", null, null);
        mv.visitCode();
        mv.visitInsn(Opcodes.RETURN);
        mv.visitMaxs(0, 0);
        mv.visitEnd();
        mv = cw.visitMethod(Opcodes.ACC_PUBLIC | Opcodes.ACC_STATIC, "make", "()L" + LIB + ";", null, null);
        mv.visitCode();
        mv.visitTypeInsn(Opcodes.NEW, LIB);
        mv.visitInsn(Opcodes.DUP);
        mv.visitInsn(Opcodes.ACONST_NULL);
        mv.visitMethodInsn(Opcodes.INVOKESPECIAL, LIB, "<init>", "(Ljava/lang/Object;)V", false);
        mv.visitInsn(Opcodes.ARETURN);
        mv.visitMaxs(0, 0);
        mv.visitEnd();
        cw.visitEnd();
        return cw.toByteArray();
    }

    /**
     * The test class: {@code body(Lib x, Object y)} makes the calls, one line each, and {@code run()}
     * calls it. ({@code Lib.i} is called with invokevirtual: only the opcode's kind matters here.)
     */
    private static byte[] gen() {
        ClassWriter cw = new ClassWriter(ClassWriter.COMPUTE_FRAMES | ClassWriter.COMPUTE_MAXS);
        cw.visit(Opcodes.V11, Opcodes.ACC_PUBLIC, GEN, null, "java/lang/Object", null);
        MethodVisitor mv = cw.visitMethod(Opcodes.ACC_PUBLIC | Opcodes.ACC_STATIC, "body", "(L" + LIB + ";Ljava/lang/Object;)V",
                null, null);
        mv.visitCode();
        line(mv, 10); // x.m(y): a site loading x
        mv.visitVarInsn(Opcodes.ALOAD, 0);
        mv.visitVarInsn(Opcodes.ALOAD, 1);
        mv.visitMethodInsn(Opcodes.INVOKEVIRTUAL, LIB, "m", "(Ljava/lang/Object;)V", false);
        Label two = new Label(); // Lib.s() at an offset with two line entries: no site
        mv.visitLabel(two);
        mv.visitLineNumber(11, two);
        mv.visitLineNumber(12, two);
        mv.visitMethodInsn(Opcodes.INVOKESTATIC, LIB, "s", "()V", false);
        line(mv, 14); // new Lib(y): a constructor's site
        mv.visitTypeInsn(Opcodes.NEW, LIB);
        mv.visitInsn(Opcodes.DUP);
        mv.visitVarInsn(Opcodes.ALOAD, 1);
        mv.visitMethodInsn(Opcodes.INVOKESPECIAL, LIB, "<init>", "(Ljava/lang/Object;)V", false);
        mv.visitInsn(Opcodes.POP);
        line(mv, 15); // Lib.make().m(y): a static site; the receiver is a call's result: no site
        mv.visitMethodInsn(Opcodes.INVOKESTATIC, LIB, "make", "()L" + LIB + ";", false);
        mv.visitVarInsn(Opcodes.ALOAD, 1);
        mv.visitMethodInsn(Opcodes.INVOKEVIRTUAL, LIB, "m", "(Ljava/lang/Object;)V", false);
        line(mv, 16); // a JDK call: no site
        mv.visitMethodInsn(Opcodes.INVOKESTATIC, "java/lang/System", "nanoTime", "()J", false);
        mv.visitInsn(Opcodes.POP2);
        line(mv, 17); // ((Lib) x).i(null): the cast keeps the receiver's local
        mv.visitVarInsn(Opcodes.ALOAD, 0);
        mv.visitTypeInsn(Opcodes.CHECKCAST, LIB);
        mv.visitInsn(Opcodes.ACONST_NULL);
        mv.visitMethodInsn(Opcodes.INVOKEVIRTUAL, LIB, "i", "(Ljava/lang/Object;)V", false);
        line(mv, 18); // Lib z = x; z.m(new Object[] {y}): an array built in the arguments
        mv.visitVarInsn(Opcodes.ALOAD, 0);
        mv.visitVarInsn(Opcodes.ASTORE, 3);
        mv.visitVarInsn(Opcodes.ALOAD, 3);
        mv.visitInsn(Opcodes.ICONST_1);
        mv.visitTypeInsn(Opcodes.ANEWARRAY, "java/lang/Object");
        mv.visitInsn(Opcodes.DUP);
        mv.visitInsn(Opcodes.ICONST_0);
        mv.visitVarInsn(Opcodes.ALOAD, 1);
        mv.visitInsn(Opcodes.AASTORE);
        mv.visitMethodInsn(Opcodes.INVOKEVIRTUAL, LIB, "m", "(Ljava/lang/Object;)V", false);
        line(mv, 19); // x.m(x = null): the receiver's local stored over after it was loaded: no site
        mv.visitVarInsn(Opcodes.ALOAD, 0);
        mv.visitInsn(Opcodes.ACONST_NULL);
        mv.visitTypeInsn(Opcodes.CHECKCAST, LIB);
        mv.visitInsn(Opcodes.DUP);
        mv.visitVarInsn(Opcodes.ASTORE, 0);
        mv.visitMethodInsn(Opcodes.INVOKEVIRTUAL, LIB, "m", "(Ljava/lang/Object;)V", false);
        mv.visitInsn(Opcodes.RETURN);
        mv.visitMaxs(0, 0);
        mv.visitEnd();
        mv = cw.visitMethod(Opcodes.ACC_PUBLIC | Opcodes.ACC_STATIC, "run", "()Ljava/lang/Object;", null, null);
        mv.visitCode();
        mv.visitMethodInsn(Opcodes.INVOKESTATIC, LIB, "make", "()L" + LIB + ";", false);
        mv.visitInsn(Opcodes.ACONST_NULL);
        mv.visitMethodInsn(Opcodes.INVOKESTATIC, GEN, "body", "(L" + LIB + ";Ljava/lang/Object;)V", false);
        mv.visitLdcInsn("ok");
        mv.visitInsn(Opcodes.ARETURN);
        mv.visitMaxs(0, 0);
        mv.visitEnd();
        cw.visitEnd();
        return cw.toByteArray();
    }

    private static void line(MethodVisitor mv, int line) {
        Label l = new Label();
        mv.visitLabel(l);
        mv.visitLineNumber(line, l);
    }
}
