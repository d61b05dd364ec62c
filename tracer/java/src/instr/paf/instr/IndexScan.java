//! What the static analysis's index keeps of one class file, read straight from its bytes, or by ASM's visitor where that reading declines.
package paf.instr;

import static org.objectweb.asm.Opcodes.*;

import java.util.ArrayList;
import java.util.List;

import org.objectweb.asm.AnnotationVisitor;
import org.objectweb.asm.ClassReader;
import org.objectweb.asm.ClassVisitor;
import org.objectweb.asm.FieldVisitor;
import org.objectweb.asm.MethodVisitor;

/**
 * One class file as the static analysis's index ({@link StaticDuas#index}) keeps it: its header
 * for the hierarchy, its instance fields, and per method the fields it stores and loads and
 * whether it touches arrays. {@link #raw} reads these from the class file's bytes (the constant
 * pool through ASM's reader, the code a byte at a time, as {@link BciMap} does); {@link #asm}
 * with ASM's visitor. The index runs in the supervisor's JVM while the tests run, on the core
 * they share, and the direct reading does a fraction of the visitor's work
 * (docs/performance.md, "Thirty-third round"). {@code tracer/java/test/paf/instr/IndexCheck.java}
 * holds the two readings to the same result.
 */
final class IndexScan {
    /** What the index keeps of one method: the fields (simple names) it stores and loads, whether it touches arrays. */
    static final class Method {
        final String method; // "cls.name+desc"
        final List<String> stores = new ArrayList<>(), loads = new ArrayList<>();
        /** The stores' "owner desc", in the order of {@link #stores}. */
        final List<String> storeOwners = new ArrayList<>();
        boolean arrays;

        Method(String method) {
            this.method = method;
        }

        @Override
        public String toString() {
            return method + " stores " + stores + " " + storeOwners + " loads " + loads + " arrays " + arrays;
        }
    }

    /** The class's header, fields and methods, as {@link Hierarchy} keeps them. */
    final Hierarchy.Info info;
    /** A test class (as {@link Instrumenter#isTestClass} decides) or a module: not indexed. */
    boolean skip;
    /** The instance fields' names, in the class file's order. */
    final List<String> fields = new ArrayList<>();
    final List<Method> methods = new ArrayList<>();

    private IndexScan(ClassReader cr) {
        info = new Hierarchy.Info(cr.getClassName(), cr.getSuperName(), cr.getInterfaces(), cr.getAccess());
        String sup = cr.getSuperName();
        skip = "junit/framework/TestCase".equals(sup) || "junit/framework/TestSuite".equals(sup) || (cr.getAccess() & ACC_MODULE) != 0;
    }

    /**
     * The class file read from its bytes, or null when ASM's visitor must read it: when its
     * constant pool names JUnit's {@code @Test}, whose methods' annotations decide whether it is
     * a test class.
     */
    static IndexScan raw(ClassReader cr) {
        char[] buf = new char[cr.getMaxStringLength() + 16];
        byte[] b = cr.b;
        for (int i = 1; i < cr.getItemCount(); i++) {
            int at = cr.getItem(i); // a Utf8 entry: its tag before, its length at
            if (at > 0 && b[at - 1] == 1 && ascii(b, at, TEST)) return null;
        }
        IndexScan s = new IndexScan(cr);
        String name = s.info.name;
        int u = cr.header + 6;
        u += 2 + 2 * cr.readUnsignedShort(u);
        int fc = cr.readUnsignedShort(u);
        u += 2;
        for (int i = 0; i < fc; i++) {
            String fn = cr.readUTF8(u + 2, buf);
            s.info.fields.add(fn + " " + cr.readUTF8(u + 4, buf));
            if ((cr.readUnsignedShort(u) & ACC_STATIC) == 0) s.fields.add(fn);
            u = skipAttributes(cr, u + 6);
        }
        int mc = cr.readUnsignedShort(u);
        u += 2;
        for (int i = 0; i < mc; i++) {
            int access = cr.readUnsignedShort(u);
            String key = cr.readUTF8(u + 2, buf) + cr.readUTF8(u + 4, buf);
            Method m = new Method(name + "." + key);
            s.methods.add(m);
            int ac = cr.readUnsignedShort(u + 6);
            u += 8;
            for (int j = 0; j < ac; j++) {
                String an = cr.readUTF8(u, buf);
                if ("Code".equals(an)) code(cr, u + 6 + 8, cr.readInt(u + 6 + 4), m, buf);
                else if ("Deprecated".equals(an)) access |= ACC_DEPRECATED; // as ASM's visitor reports it
                else if ("Synthetic".equals(an)) access |= ACC_SYNTHETIC;
                u += 6 + cr.readInt(u + 2);
            }
            s.info.methods.add(key);
            s.info.methodAccess.put(key, access);
        }
        return s;
    }

    private static final byte[] TEST = "Lorg/junit/Test;".getBytes(java.nio.charset.StandardCharsets.US_ASCII);

    /** Whether the Utf8 entry whose length is at {@code at} holds {@code s}. */
    private static boolean ascii(byte[] b, int at, byte[] s) {
        if ((((b[at] & 0xff) << 8) | (b[at + 1] & 0xff)) != s.length) return false;
        for (int i = 0; i < s.length; i++) if (b[at + 2 + i] != s[i]) return false;
        return true;
    }

    /** The offset after the attributes whose count is at {@code u}. */
    private static int skipAttributes(ClassReader cr, int u) {
        int ac = cr.readUnsignedShort(u);
        u += 2;
        for (int j = 0; j < ac; j++) u += 6 + cr.readInt(u + 2);
        return u;
    }

    /** The field and array instructions of the code at {@code start} ({@code len} bytes), into {@code m}. */
    private static void code(ClassReader cr, int start, int len, Method m, char[] buf) {
        byte[] b = cr.b;
        for (int pc = 0; pc < len; pc = BciMap.next(b, start, pc)) {
            int op = b[start + pc] & 0xff;
            if (op >= GETSTATIC && op <= PUTFIELD) {
                int ref = cr.getItem(cr.readUnsignedShort(start + pc + 1)); // a Fieldref: class, name and type
                int nat = cr.getItem(cr.readUnsignedShort(ref + 2));
                String field = cr.readUTF8(nat, buf);
                if (op == PUTFIELD || op == PUTSTATIC) {
                    m.stores.add(field);
                    m.storeOwners.add(cr.readClass(ref, buf) + " " + cr.readUTF8(nat + 2, buf));
                } else m.loads.add(field);
            } else if ((op >= IASTORE && op <= SASTORE) || op == NEWARRAY || op == ANEWARRAY || op == MULTIANEWARRAY) {
                m.arrays = true;
            }
        }
    }

    /** The class file read by ASM's visitor (without debug information or frames; no tree). */
    static IndexScan asm(ClassReader cr) {
        IndexScan s = new IndexScan(cr);
        ClassVisitor v = new ClassVisitor(ASM9) {
            @Override
            public FieldVisitor visitField(int access, String name, String desc, String sig, Object value) {
                s.info.fields.add(name + " " + desc);
                if ((access & ACC_STATIC) == 0) s.fields.add(name);
                return null;
            }

            @Override
            public MethodVisitor visitMethod(int access, String mname, String desc, String sig, String[] exc) {
                s.info.methods.add(mname + desc);
                s.info.methodAccess.put(mname + desc, access);
                Method m = new Method(s.info.name + "." + mname + desc);
                s.methods.add(m);
                return new MethodVisitor(ASM9) {
                    @Override
                    public AnnotationVisitor visitAnnotation(String desc, boolean visible) {
                        if (visible && desc.equals("Lorg/junit/Test;")) s.skip = true;
                        return null;
                    }

                    @Override
                    public void visitFieldInsn(int op, String owner, String name, String desc) {
                        if (op == PUTFIELD || op == PUTSTATIC) {
                            m.stores.add(name);
                            m.storeOwners.add(owner + " " + desc);
                        } else m.loads.add(name);
                    }

                    @Override
                    public void visitInsn(int op) {
                        if (op >= IASTORE && op <= SASTORE) m.arrays = true;
                    }

                    @Override
                    public void visitIntInsn(int op, int operand) {
                        if (op == NEWARRAY) m.arrays = true;
                    }

                    @Override
                    public void visitTypeInsn(int op, String type) {
                        if (op == ANEWARRAY) m.arrays = true;
                    }

                    @Override
                    public void visitMultiANewArrayInsn(String desc, int dims) {
                        m.arrays = true;
                    }
                };
            }
        };
        cr.accept(v, ClassReader.SKIP_DEBUG | ClassReader.SKIP_FRAMES);
        return s;
    }

    /** The whole reading as text, for {@code IndexCheck}'s comparisons. */
    @Override
    public String toString() {
        StringBuilder b = new StringBuilder();
        b.append(info.name).append(" super ").append(info.superName).append(" interfaces ")
                .append(java.util.Arrays.toString(info.interfaces)).append(" access ").append(info.access)
                .append(" skip ").append(skip).append("\nfields ").append(new java.util.TreeSet<>(info.fields))
                .append(" instance ").append(fields).append("\nmethods ")
                .append(new java.util.TreeMap<>(info.methodAccess)).append(' ').append(new java.util.TreeSet<>(info.methods));
        for (Method m : methods) b.append('\n').append(m);
        return b.toString();
    }
}
