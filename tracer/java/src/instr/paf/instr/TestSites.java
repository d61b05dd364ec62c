package paf.instr;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import org.objectweb.asm.ClassReader;
import org.objectweb.asm.ClassVisitor;
import org.objectweb.asm.ClassWriter;
import org.objectweb.asm.Handle;
import org.objectweb.asm.Label;
import org.objectweb.asm.MethodVisitor;
import org.objectweb.asm.Opcodes;
import org.objectweb.asm.Type;

import paf.rt.R;

/**
 * A test class's call sites, told to the runtime (docs/java.md, "Test lines"): before each call
 * a test method makes, one call {@code R.site(receiver, class, site)}, two numbers that name
 * the site in the runtime's table (its line, the callee's name and descriptor, its owner). When the
 * callee is an instrumented method entered from the test body, the runtime takes the test line
 * from the site instead of walking the stack, which cost a fifth of the worker's time on
 * commons-dbutils (docs/performance.md, "Tenth round").
 *
 * <p>Nothing else of the class changes: no method, field or local is added, and the inserted
 * code pushes three values (the receiver or null, two {@code sipush}) and pops them before the
 * call, so the stack map frames stay valid (only {@code max_stack} grows by three) and the
 * constant pool gains one entry, the runtime's method. The line table is the class's own, so the runtime's
 * stack walk, exceptions' stack traces and the line of every call are those of the original
 * class. For that, a call at the very start of a line entry that shares its offset with another
 * entry gets no site: the JVM takes the first of such entries for an instruction at their offset
 * and the last for one after it, and the inserted code would move the call after it.
 *
 * <p>A site of an instance call names the local its receiver was loaded from, and is made only
 * when that is sure: the receiver and every argument were pushed, since the last label, frame or
 * branch, by instructions whose effect on the stack is modelled here (loads, constants, {@code
 * new}, {@code dup}, field and array reads, calls), and no local was stored in between. Any
 * other call gets no site, and the runtime walks the stack for it as before.
 */
final class TestSites {
    private TestSites() {}

    /** Site kinds, as {@link R#testSites} takes them. */
    static final byte INSTANCE = R.SITE_INSTANCE, STATIC = R.SITE_STATIC, CTOR = R.SITE_CTOR;

    /**
     * The test class {@code bytes} with its call sites told to the runtime, or null to leave it
     * unchanged (the runtime has no room for another class, or ASM fails: a method grown too large).
     */
    /** Test classes of fewer bytes in all keep their walks ({@link Ahead}), unless PAF_TEST_SITES=all. */
    static final long LEAST = 1 << 20;

    static byte[] rewrite(String internalName, byte[] bytes) {
        String cls = internalName.replace('/', '.');
        int index = R.testSiteClass(cls);
        if (index < 0) return null;
        Sites sites = new Sites(index);
        ClassReader cr = new ClassReader(bytes);
        ClassWriter cw = new ClassWriter(cr, 0);
        cr.accept(new ClassVisitor(Opcodes.ASM9, cw) {
            @Override
            public MethodVisitor visitMethod(int access, String name, String desc, String sig, String[] exceptions) {
                MethodVisitor mv = super.visitMethod(access, name, desc, sig, exceptions);
                if ((access & (Opcodes.ACC_ABSTRACT | Opcodes.ACC_NATIVE)) != 0) return mv;
                return new SiteVisitor(mv, sites, sites.method(name));
            }
        }, 0);
        byte[] out = cw.toByteArray();
        R.testSites(index, sites.methods.toArray(new String[0]), sites.ints(sites.method), sites.ints(sites.line),
                sites.key.toArray(new String[0]), sites.owner.toArray(new String[0]), sites.kinds());
        return out;
    }

    /**
     * Test classes rewritten ahead of their loading, on a thread of their own: the runner loads
     * every test class before the first test runs, one after another, and rewriting them on the
     * runner's thread took two thirds of what the walks they save had cost (commons-dbutils: 20 MB
     * of test classes). Test classes of less than {@link #LEAST} bytes in all keep their walks:
     * their calls cost less to walk than rewriting the classes and starting the thread
     * (commons-email, 0.3 MB: 30 ms slower with sites). The thread starts with the agent, sums
     * the class files' sizes, and rewrites the classes in the runner's order, at most {@link #LEAD}
     * ahead of their loading, the first one too. A class loaded before the thread decided keeps
     * its walks; one it has not started when the JVM loads it is rewritten then; one loaded with
     * other bytes than it read is rewritten from those bytes.
     */
    static final class Ahead {
        private static final int LEAD = 4;
        /** Per class: the bytes read and the class rewritten (null: unchanged), or {@link #MINE} or {@link #BUSY}. */
        private final Map<String, Object> slots = new HashMap<>();
        private final List<String> order;
        /** Classes rewritten and not yet taken. */
        private int ready;
        /** A slot the loading thread took before the thread came to it, or one the thread is rewriting. */
        private static final Object MINE = new Object(), BUSY = new Object();
        /** A slot the thread could not read or rewrite: rewritten again as the class loads, where a failure is reported. */
        private static final byte[][] FAILED = new byte[0][];

        /** The test classes' bytes from which they get sites; 0: whatever their size. */
        private final long least;
        /** Whether the test classes get sites: decided by the thread first (null until then, true for any size). */
        private Boolean on;
        /** The thread has ended. */
        private boolean ended;

        /**
         * Rewrites the test classes {@code internalNames}, in that order, on a thread, if their
         * class files hold at least {@code least} bytes in all.
         */
        Ahead(List<String> internalNames, long least) {
            order = new ArrayList<>(internalNames);
            this.least = least;
            if (least == 0) on = true;
            Thread t = new Thread(this::run, "paf-test-sites");
            t.setDaemon(true);
            t.start();
        }

        /**
         * Whether the test classes' files hold at least {@link #least} bytes, found on the class
         * path's directories, then in its jars (a class found in neither counts as empty). Not
         * through the class loader's resources: that took 17 ms for the 58 classes of
         * commons-math3's suite, on a start where both cores are busy.
         */
        private boolean large() {
            List<java.io.File> dirs = new ArrayList<>(), jars = new ArrayList<>();
            for (String e : System.getProperty("java.class.path", "").split(java.io.File.pathSeparator)) {
                if (e.isEmpty()) continue;
                java.io.File f = new java.io.File(e);
                if (f.isDirectory()) dirs.add(f);
                else if (f.isFile()) jars.add(f);
            }
            java.util.jar.JarFile[] open = new java.util.jar.JarFile[jars.size()];
            long total = 0;
            try {
                for (String name : order) {
                    if (total >= least) break;
                    String file = name + ".class";
                    long size = 0;
                    for (java.io.File d : dirs)
                        if ((size = new java.io.File(d, file).length()) > 0) break;
                    for (int i = 0; size <= 0 && i < open.length; i++) {
                        try {
                            if (open[i] == null) open[i] = new java.util.jar.JarFile(jars.get(i));
                            java.util.jar.JarEntry je = open[i].getJarEntry(file);
                            if (je != null) size = je.getSize();
                        } catch (java.io.IOException x) {
                            // not a jar: holds nothing
                        }
                    }
                    total += Math.max(size, 0);
                }
            } finally {
                for (java.util.jar.JarFile j : open) {
                    try {
                        if (j != null) j.close();
                    } catch (java.io.IOException x) {
                        // read only
                    }
                }
            }
            return total >= least;
        }

        // Plain monitors, not java.util.concurrent: its classes cost the worker's start more than
        // the small suites' walks that sites save (docs/performance.md, "Tenth round").
        private void run() {
            try {
                work();
            } finally { // however the thread ends, the runner's thread never waits for it in vain
                synchronized (this) {
                    if (on == null) on = false;
                    ended = true;
                    notifyAll();
                }
            }
        }

        private void work() {
            if (least > 0) {
                boolean large = large();
                synchronized (this) {
                    on = large;
                }
                if (!large) return;
            }
            ClassLoader l = ClassLoader.getSystemClassLoader();
            for (String name : order) {
                synchronized (this) {
                    while (ready >= LEAD) {
                        try {
                            wait();
                        } catch (InterruptedException x) {
                            return;
                        }
                    }
                    if (slots.containsKey(name)) continue; // taken, or named twice
                    slots.put(name, BUSY);
                }
                byte[][] r = FAILED;
                try (java.io.InputStream in = l.getResourceAsStream(name + ".class")) {
                    if (in != null) {
                        byte[] b = in.readAllBytes();
                        r = new byte[][] {b, rewrite(name, b)};
                    }
                } catch (Throwable t) {
                    r = FAILED;
                }
                synchronized (this) {
                    slots.put(name, r);
                    ready++;
                    notifyAll();
                }
            }
        }

        /** Test class {@code name} as loaded from {@code bytes}, rewritten: by the thread if it did, else now. */
        byte[] take(String name, byte[] bytes) {
            byte[][] r;
            synchronized (this) {
                // not decided yet (the thread started late): this class keeps its walks, rather
                // than the runner's thread waiting
                if (on != Boolean.TRUE) return null;
                Object s = slots.get(name);
                if (s == null || s == MINE) {
                    slots.put(name, MINE);
                    s = null;
                }
                while (s == BUSY && !ended) {
                    try {
                        wait();
                    } catch (InterruptedException x) {
                        Thread.currentThread().interrupt();
                        break;
                    }
                    s = slots.get(name);
                }
                r = s instanceof byte[][] ? (byte[][]) s : null;
                if (r != null) {
                    slots.put(name, MINE);
                    ready--;
                    notifyAll();
                }
            }
            if (r != null && r != FAILED && java.util.Arrays.equals(r[0], bytes)) return r[1];
            return rewrite(name, bytes);
        }
    }

    /** The sites of one class, in the order of their local numbers. */
    static final class Sites {
        final int index;
        final List<String> methods = new ArrayList<>();
        final List<Integer> method = new ArrayList<>(), line = new ArrayList<>();
        final List<String> key = new ArrayList<>(), owner = new ArrayList<>();
        final List<Byte> kind = new ArrayList<>();
        private final Map<String, String> keys = new HashMap<>();
        private final Map<String, String> owners = new HashMap<>();

        Sites(int index) {
            this.index = index;
        }

        int method(String name) {
            methods.add(name);
            return methods.size() - 1;
        }

        /** The number of a new site in its class, or -1 when the class has no room left. */
        int add(int m, int ln, String name, String desc, String own, byte k) {
            int local = line.size();
            if (local > R.SITE_MAX) return -1;
            method.add(m);
            line.add(ln);
            key.add(keys.computeIfAbsent(name + desc, x -> x));
            owner.add(owners.computeIfAbsent(own, o -> o.replace('/', '.')));
            kind.add(k);
            return local;
        }

        int[] ints(List<Integer> l) {
            int[] a = new int[l.size()];
            for (int i = 0; i < a.length; i++) a[i] = l.get(i);
            return a;
        }

        byte[] kinds() {
            byte[] a = new byte[kind.size()];
            for (int i = 0; i < a.length; i++) a[i] = kind.get(i);
            return a;
        }
    }

    /**
     * Inserts the sites of one method. {@link #stack} is the top of the operand stack as far as
     * it is known since the last reset: per value, the local it was loaded from by {@code aload},
     * or -1 (anything else). Values below it are unknown, so a receiver deeper than it gets no site.
     */
    static final class SiteVisitor extends MethodVisitor {
        private final Sites sites;
        private final int method;
        private int[] stack = new int[16];
        private int size;
        private int line = -1;
        /** Line entries at the label just visited, when no instruction followed it yet; -1 otherwise. */
        private int entriesHere = -1;

        SiteVisitor(MethodVisitor mv, Sites sites, int method) {
            super(Opcodes.ASM9, mv);
            this.sites = sites;
            this.method = method;
        }

        private void reset() {
            size = 0;
        }

        private void push(int v) {
            if (size == stack.length) stack = java.util.Arrays.copyOf(stack, size * 2);
            stack[size++] = v;
        }

        private void pop(int n) {
            if (n > size) size = 0; // below what is known: nothing is known any more
            else size -= n;
        }

        private void insn() {
            entriesHere = -1;
        }

        /** An instruction whose effect on the stack is not modelled: nothing is known any more. */
        private void unmodelled() {
            insn();
            reset();
        }

        @Override
        public void visitLabel(Label label) {
            super.visitLabel(label);
            reset();
            entriesHere = 0;
        }

        @Override
        public void visitLineNumber(int ln, Label start) {
            super.visitLineNumber(ln, start);
            line = ln;
            if (entriesHere >= 0) entriesHere++;
        }

        @Override
        public void visitFrame(int type, int numLocal, Object[] local, int numStack, Object[] stk) {
            super.visitFrame(type, numLocal, local, numStack, stk);
            reset();
        }

        @Override
        public void visitInsn(int op) {
            super.visitInsn(op);
            insn();
            if (op >= Opcodes.ACONST_NULL && op <= Opcodes.DCONST_1) push(-1);
            else if (op == Opcodes.DUP) push(size > 0 ? stack[size - 1] : -1);
            else if (op == Opcodes.POP) pop(1);
            else if (op >= Opcodes.IALOAD && op <= Opcodes.SALOAD) {
                pop(2);
                push(-1);
            } else if (op >= Opcodes.IASTORE && op <= Opcodes.SASTORE) pop(3);
            else if (op == Opcodes.ARRAYLENGTH) {
                pop(1);
                push(-1);
            } else reset();
        }

        @Override
        public void visitIntInsn(int op, int operand) {
            super.visitIntInsn(op, operand);
            insn();
            if (op == Opcodes.NEWARRAY) pop(1);
            if (op == Opcodes.BIPUSH || op == Opcodes.SIPUSH || op == Opcodes.NEWARRAY) push(-1);
            else reset();
        }

        @Override
        public void visitVarInsn(int op, int var) {
            super.visitVarInsn(op, var);
            insn();
            if (op == Opcodes.ALOAD) push(var);
            else if (op >= Opcodes.ILOAD && op <= Opcodes.DLOAD) push(-1);
            else reset(); // a store changes a local a value below may have been loaded from
        }

        @Override
        public void visitTypeInsn(int op, String type) {
            super.visitTypeInsn(op, type);
            insn();
            if (op == Opcodes.NEW) push(-1);
            else if (op == Opcodes.ANEWARRAY || op == Opcodes.INSTANCEOF) {
                pop(1);
                push(-1);
            } else if (op != Opcodes.CHECKCAST) reset(); // a cast leaves the same object on the stack
        }

        @Override
        public void visitFieldInsn(int op, String owner, String name, String desc) {
            super.visitFieldInsn(op, owner, name, desc);
            insn();
            if (op == Opcodes.GETSTATIC) push(-1);
            else if (op == Opcodes.GETFIELD) {
                pop(1);
                push(-1);
            } else reset();
        }

        @Override
        public void visitLdcInsn(Object value) {
            super.visitLdcInsn(value);
            insn();
            push(-1);
        }

        @Override
        public void visitIincInsn(int var, int increment) {
            super.visitIincInsn(var, increment);
            unmodelled();
        }

        @Override
        public void visitJumpInsn(int op, Label label) {
            super.visitJumpInsn(op, label);
            unmodelled();
        }

        @Override
        public void visitTableSwitchInsn(int min, int max, Label dflt, Label... labels) {
            super.visitTableSwitchInsn(min, max, dflt, labels);
            unmodelled();
        }

        @Override
        public void visitLookupSwitchInsn(Label dflt, int[] keys, Label[] labels) {
            super.visitLookupSwitchInsn(dflt, keys, labels);
            unmodelled();
        }

        @Override
        public void visitMultiANewArrayInsn(String desc, int dims) {
            super.visitMultiANewArrayInsn(desc, dims);
            unmodelled();
        }

        @Override
        public void visitInvokeDynamicInsn(String name, String desc, Handle bsm, Object... bsmArgs) {
            super.visitInvokeDynamicInsn(name, desc, bsm, bsmArgs);
            unmodelled();
        }

        @Override
        public void visitMethodInsn(int op, String owner, String name, String desc, boolean itf) {
            int args = Type.getArgumentTypes(desc).length;
            if (entriesHere <= 1 && sited(owner)) {
                int recv = -1;
                byte kind = -1;
                if (op == Opcodes.INVOKESTATIC) kind = STATIC;
                else if (op == Opcodes.INVOKESPECIAL && name.equals("<init>")) kind = CTOR;
                else if ((op == Opcodes.INVOKEVIRTUAL || op == Opcodes.INVOKEINTERFACE) && size > args
                        && stack[size - 1 - args] >= 0) {
                    kind = INSTANCE;
                    recv = stack[size - 1 - args];
                }
                int local = kind < 0 ? -1 : sites.add(method, line, name, desc, owner, kind);
                if (local >= 0) {
                    if (recv >= 0) super.visitVarInsn(Opcodes.ALOAD, recv);
                    else super.visitInsn(Opcodes.ACONST_NULL);
                    super.visitIntInsn(Opcodes.SIPUSH, sites.index);
                    super.visitIntInsn(Opcodes.SIPUSH, local);
                    super.visitMethodInsn(Opcodes.INVOKESTATIC, "paf/rt/R", "site", "(Ljava/lang/Object;II)V", false);
                }
            }
            super.visitMethodInsn(op, owner, name, desc, itf);
            insn();
            pop(args + (op == Opcodes.INVOKESTATIC ? 0 : 1));
            if (Type.getReturnType(desc).getSort() != Type.VOID) push(-1);
        }

        @Override
        public void visitMaxs(int maxStack, int maxLocals) {
            super.visitMaxs(maxStack + 3, maxLocals);
        }

        /**
         * Whether calls to {@code owner} get sites: not the JDK's, JUnit's or paf's, which are
         * never the instrumented callee (a JDK interface's call that reaches an instrumented
         * class, rare in generated tests, is found by a stack walk). Fewer sites, less code to verify.
         */
        private static boolean sited(String owner) {
            return !(owner.startsWith("java/") || owner.startsWith("javax/") || owner.startsWith("jdk/")
                    || owner.startsWith("sun/") || owner.startsWith("org/junit/") || owner.startsWith("junit/")
                    || owner.startsWith("paf/"));
        }
    }
}
