package paf.instr;

import java.io.File;
import java.lang.instrument.ClassFileTransformer;
import java.security.ProtectionDomain;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import org.objectweb.asm.ClassReader;
import org.objectweb.asm.ClassWriter;
import org.objectweb.asm.MethodTooLargeException;
import org.objectweb.asm.Opcodes;
import org.objectweb.asm.tree.AbstractInsnNode;
import org.objectweb.asm.tree.ClassNode;
import org.objectweb.asm.tree.FieldNode;
import org.objectweb.asm.tree.InnerClassNode;
import org.objectweb.asm.tree.LineNumberNode;
import org.objectweb.asm.tree.MethodNode;

import paf.rt.R;

/**
 * The class file transformer of the paf agent. Instruments the classes of the included packages
 * (prefix + "/" on the internal name), minus the excluded ones and the test classes, with calls to
 * {@link R}. Every failure is caught, reported on stderr and counted: the JVM would otherwise load
 * the class uninstrumented without a word. With option {@code cache} (a file), the classes of an
 * earlier run of the same suite are taken from it ({@link ClassCache}) as long as they load as
 * they did then.
 */
public final class Instrumenter implements ClassFileTransformer {
    private final List<String> include = new ArrayList<>();
    private final List<String> exclude = new ArrayList<>();
    private final Set<String> testClasses = new HashSet<>();
    private final String failFor; // test hook: pretend this class cannot be instrumented
    private final FieldLines fieldLines;
    private final boolean verbose;
    /** The test classes' call sites ({@link TestSites}), rewritten ahead; null with PAF_TEST_SITES=0 or no test classes. */
    private final TestSites.Ahead ahead;
    /** Per class loader: class headers read without loading (field resolution, frames). */
    private final Map<ClassLoader, Hierarchy> hierarchies = new java.util.WeakHashMap<>();
    /** The classes of an earlier run of the same suite ({@link ClassCache}); null: option cache not given. */
    private final ClassCache cache;

    /** {@code options}: the agent's option map (include, exclude, tests, src, fail, verbose). */
    public Instrumenter(Map<String, String> options) {
        for (String p : split(options.get("include"))) include.add(p.replace('.', '/') + "/");
        for (String p : split(options.get("exclude"))) exclude.add(p.replace('.', '/') + "/");
        for (String t : split(options.get("tests"))) testClasses.add(t.replace('.', '/'));
        failFor = options.get("fail");
        verbose = "1".equals(options.get("verbose"));
        List<String> tests = new ArrayList<>();
        for (String t : split(options.get("tests"))) tests.add(t.replace('.', '/'));
        // PAF_TEST_SITES (a diagnostic, docs/java.md, "Test lines"): 0, test classes unchanged and
        // every test line from a stack walk; all, sites however few bytes the test classes hold
        String sites = System.getenv("PAF_TEST_SITES");
        ahead = "0".equals(sites) || tests.isEmpty() ? null
                : new TestSites.Ahead(tests, "all".equals(sites) ? 0 : TestSites.LEAST);
        List<File> roots = new ArrayList<>();
        for (String s : options.getOrDefault("src", "").split(File.pathSeparator)) if (!s.isEmpty()) roots.add(new File(s));
        for (String s : System.getProperty("java.class.path", "").split(File.pathSeparator)) {
            File f = new File(s);
            if (f.isDirectory()) roots.add(f);
        }
        fieldLines = new FieldLines(roots);
        String cachePath = options.get("cache");
        cache = cachePath == null || cachePath.isEmpty() ? null : ClassCache.open(cachePath, verbose);
        if (cache != null) Runtime.getRuntime().addShutdownHook(new Thread(cache::save, "paf-class-cache"));
    }

    private static List<String> split(String s) {
        List<String> out = new ArrayList<>();
        if (s == null) return out;
        for (String x : s.split(",")) if (!x.trim().isEmpty()) out.add(x.trim());
        return out;
    }

    boolean wanted(String name) {
        if (name.startsWith("paf/") || name.startsWith("java/") || name.startsWith("jdk/") || name.startsWith("sun/")
                || name.startsWith("org/junit/") || name.startsWith("junit/") || name.startsWith("org/objectweb/asm/"))
            return false;
        boolean in = false;
        for (String p : include) if (name.startsWith(p)) in = true;
        if (!in) return false;
        for (String p : exclude) if (name.startsWith(p)) return false;
        for (String t : testClasses) if (name.equals(t) || name.startsWith(t + "$")) return false;
        return true;
    }

    @Override
    public byte[] transform(ClassLoader loader, String name, Class<?> redefined, ProtectionDomain pd, byte[] bytes) {
        if (name != null && loader != null && redefined == null && testClasses.contains(name)) return testClass(name, bytes);
        if (name == null || loader == null || redefined != null || !wanted(name)) return null;
        if (cache == null) return make(loader, name, bytes);
        ClassCache.Hit hit = cache.replay(loader, name, bytes);
        if (hit == ClassCache.PASS) return make(loader, name, bytes);
        if (hit != null) return hit.out;
        // the classes replayed so far were not read by the hierarchy: it learns them as
        // instrumenting them would have taught it (Hierarchy.add), before this class asks
        for (Object[] lb : cache.takeReplayed()) hierarchy((ClassLoader) lb[0]).add(new ClassReader((byte[]) lb[1]));
        long[] reg = R.registry();
        List<Object[]> was = Reg.begin();
        byte[] out = null;
        try {
            out = make(loader, name, bytes);
        } finally {
            cache.record(loader, name, bytes, reg, Reg.end(was), out);
        }
        return out;
    }

    /** The class instrumented, or null (unchanged) when that fails: the failure is reported and counted. */
    private byte[] make(ClassLoader loader, String name, byte[] bytes) {
        try {
            if (name.replace('/', '.').equals(failFor)) throw new IllegalStateException("test hook: fail=" + failFor);
            byte[] out = instrument(loader, name, bytes);
            Reg.instrumented(name);
            return out;
        } catch (Throwable t) {
            String msg = "cannot instrument class " + name.replace('/', '.') + ": " + t;
            Reg.print("paf-agent: " + msg + " (the class runs uninstrumented: its events are missing)");
            Reg.instrumentError(msg);
            return null;
        }
    }

    private Hierarchy hierarchy(ClassLoader loader) {
        synchronized (hierarchies) {
            return hierarchies.computeIfAbsent(loader, Hierarchy::of);
        }
    }

    /**
     * PAF_FRAMES=compute (a diagnostic): the class writer computes every instrumented class's
     * frames, as before the thirty-third round, rather than keeping the class file's ({@link Frames}).
     */
    private static final boolean KEEP_FRAMES = !"compute".equals(System.getenv("PAF_FRAMES"));

    private byte[] instrument(ClassLoader loader, String name, byte[] bytes) {
        ClassReader cr = new ClassReader(bytes);
        // frames kept from the class file (Frames) where it has them: Java 6 on
        boolean keep = KEEP_FRAMES && cr.readUnsignedShort(6) >= (Opcodes.V1_6 & 0xffff);
        ClassNode probe = new ClassNode();
        cr.accept(probe, keep ? ClassReader.EXPAND_FRAMES : ClassReader.SKIP_FRAMES);
        if ((probe.access & Opcodes.ACC_MODULE) != 0) return null;
        if (isTestClass(probe)) { // a test body's calls are the MUT calls
            Reg.pass(); // the class cache leaves it to this path in every run
            return testClass(name, bytes);
        }
        String cls = name.replace('/', '.');
        String file = sourceFile(probe);
        Map<String, int[]> bcis = BciMap.of(cr);
        Hierarchy hierarchy = hierarchy(loader);
        hierarchy.add(cr);

        // field declarations: the statements where allocations define fields to their defaults
        List<String> fnames = new ArrayList<>();
        List<Integer> fstmts = new ArrayList<>();
        for (FieldNode f : probe.fields) {
            if ((f.access & Opcodes.ACC_STATIC) != 0) continue;
            fnames.add(cls + "." + f.name);
            fstmts.add(fieldDecl(probe, file, f));
        }
        int[] fs = new int[fstmts.size()];
        for (int i = 0; i < fs.length; i++) fs[i] = fstmts.get(i);
        Reg.classFields(cls, fnames.toArray(new String[0]), fs);
        int[] keys = new int[probe.methods.size()];
        for (int i = 0; i < keys.length; i++) keys[i] = Reg.name(probe.methods.get(i).name + probe.methods.get(i).desc);
        Reg.classKeys(cls, keys);

        Set<String> skip = new HashSet<>();
        for (int attempt = 0; attempt < probe.methods.size() + 2; attempt++) {
            ClassNode cn = new ClassNode();
            cr.accept(cn, keep ? ClassReader.EXPAND_FRAMES : ClassReader.SKIP_FRAMES);
            String failed = null;
            boolean recompute = false;
            Map<MethodNode, MethodInstrumenter> done = new java.util.IdentityHashMap<>();
            for (MethodNode mn : cn.methods) {
                String key = mn.name + mn.desc;
                if (skip.contains(key)) continue;
                try {
                    MethodInstrumenter mi = new MethodInstrumenter(cn, mn, cls, file, bcis.get(key), hierarchy, keep);
                    mi.run();
                    done.put(mn, mi);
                    if (keep && !Frames.newsInPlace(mn)) {
                        recompute = true; // code before a NEW its frames name: the writer computes them
                        break;
                    }
                } catch (Throwable t) {
                    failed = key;
                    String msg = "cannot instrument method " + cls + "." + key + ": " + t;
                    Reg.print("paf-agent: " + msg + " (the method runs uninstrumented)");
                    Reg.instrumentError(msg);
                    if (verbose) t.printStackTrace();
                    break;
                }
            }
            if (failed != null) {
                skip.add(failed);
                continue;
            }
            if (recompute) {
                keep = false;
                continue;
            }
            if (SPLIT) split(probe, cn, skip, done, keep);
            int flags = keep || (cn.version & 0xffff) < Opcodes.V1_6 ? ClassWriter.COMPUTE_MAXS : ClassWriter.COMPUTE_FRAMES;
            ClassWriter cw = new LoaderClassWriter(flags, hierarchy);
            try {
                cn.accept(cw);
                byte[] out = cw.toByteArray();
                Reg.frames(keep);
                return out;
            } catch (MethodTooLargeException e) {
                // a split method's copy is named by its own descriptor: the method left whole
                // is the original (before, the copy's key was skipped, which no method has, and
                // every attempt failed the same way until the class ran uninstrumented)
                String key = e.getMethodName() + Split.originalDesc(e.getDescriptor());
                String msg = "method too large once instrumented: " + cls + "." + key;
                Reg.print("paf-agent: " + msg + " (the method runs uninstrumented)");
                Reg.instrumentError(msg);
                skip.add(key);
            } catch (RuntimeException e) {
                if (!keep) throw e;
                keep = false; // ASM refused a kept frame: the writer computes them
                if (verbose) Reg.print("paf-agent: " + cls + ": frames computed: " + e);
            }
        }
        throw new IllegalStateException("gave up after " + skip.size() + " uninstrumentable methods");
    }

    /** PAF_SPLIT=0 (a diagnostic): no method is split ({@link Split}). */
    private static final boolean SPLIT = !"0".equals(System.getenv("PAF_SPLIT"));
    /** PAF_SPLIT_EXITS=0 (a diagnostic): no copy leaves for the original code at its loops' heads ({@link Split#addExits}). */
    private static final boolean EXITS = !"0".equals(System.getenv("PAF_SPLIT_EXITS"));

    /**
     * Splits the instrumented methods of {@code cn} ({@link Split}), their original code taken
     * from {@code orig} (the class as read, which nothing changes); {@code skip}: the methods left
     * uninstrumented; {@code done}: each instrumented method's instrumenter, whose clone of the
     * original code gives a copy with loops its ways out ({@link Split#addExits}).
     */
    private static void split(ClassNode orig, ClassNode cn, Set<String> skip, Map<MethodNode, MethodInstrumenter> done,
            boolean frames) {
        if ((cn.access & Opcodes.ACC_INTERFACE) != 0) return;
        List<MethodNode> added = new ArrayList<>();
        for (int i = 0; i < cn.methods.size(); i++) {
            MethodNode mn = cn.methods.get(i), o = orig.methods.get(i);
            if (skip.contains(mn.name + mn.desc) || !o.desc.equals(mn.desc) || !o.name.equals(mn.name)) continue;
            MethodNode d = Split.dispatcher(cn, o, frames);
            if (d == null) continue;
            Split.toCopy(mn);
            MethodInstrumenter mi = done.get(mn);
            if (mi != null && mi.originalCode != null && EXITS)
                Split.addExits(frames ? cn.name : null, mn, mi.originalCode, mi.loopExits);
            added.add(d);
        }
        cn.methods.addAll(added);
        if (!added.isEmpty()) Reg.split(added.size());
    }

    /** The source file name of a class (its SourceFile attribute, else guessed from its name). */
    static String sourceFile(ClassNode cn) {
        String simple = cn.name.substring(cn.name.lastIndexOf('/') + 1);
        int dollar = simple.indexOf('$');
        return cn.sourceFile != null ? cn.sourceFile : (dollar > 0 ? simple.substring(0, dollar) : simple) + ".java";
    }

    /**
     * The statement of an instance field's declaration, where an allocation defines it to its
     * default (PAF 3.2). Its line is the declaration's in the source (--sourcepath), else the
     * line of the class's first constructor.
     */
    int fieldDecl(ClassNode cn, String file, FieldNode f) {
        int line = fieldLines.find(cn.name, file, f.name);
        if (line < 0) {
            int ctorLine = Integer.MAX_VALUE;
            for (MethodNode m : cn.methods) {
                if (!m.name.equals("<init>")) continue;
                for (AbstractInsnNode n = m.instructions.getFirst(); n != null; n = n.getNext())
                    if (n instanceof LineNumberNode) {
                        ctorLine = Math.min(ctorLine, ((LineNumberNode) n).line);
                        break;
                    }
            }
            line = ctorLine == Integer.MAX_VALUE ? 0 : ctorLine;
        }
        return Reg.stmt("F|" + cn.name + "|" + f.name, cn.name.replace('/', '.'), null, file, line, -1, accessJson(cn, null));
    }

    /**
     * A test class is not instrumented: its line table is kept for the lines its failures read
     * (from the bytes as loaded), and its calls are told to the runtime as sites ({@link TestSites};
     * unchanged, null, if that fails: its calls' lines are then found by stack walks).
     */
    private byte[] testClass(String name, byte[] bytes) {
        bodyLines(name, bytes);
        if (ahead == null) return null;
        try {
            return ahead.take(name, bytes);
        } catch (Throwable t) {
            if (verbose) System.err.println("paf-agent: test class " + name.replace('/', '.') + " keeps its stack walks: " + t);
            return null;
        }
    }

    /** The lines each line of a test class's methods reads its values from; optional, so a failure loses only them. */
    private static void bodyLines(String name, byte[] bytes) {
        // read at the class's first failure raised in a test body (R.readLines), not now
        R.testClass(name.replace('/', '.'), bytes, Instrumenter::readBodyLines);
    }

    private static void readBodyLines(String cls, byte[] bytes) {
        try {
            BodyLines.register(cls.replace('.', '/'), bytes);
        } catch (Throwable t) {
            System.err.println("paf-agent: cannot read the line table of test class " + cls + ": " + t);
        }
    }

    /** A JUnit 3 TestCase subclass or a class with JUnit 4 @Test methods (tests reached through a suite class). */
    static boolean isTestClass(ClassNode cn) {
        if ("junit/framework/TestCase".equals(cn.superName) || "junit/framework/TestSuite".equals(cn.superName)) return true;
        for (MethodNode m : cn.methods) {
            if (m.visibleAnnotations == null) continue;
            for (org.objectweb.asm.tree.AnnotationNode a : m.visibleAnnotations)
                if (a.desc.equals("Lorg/junit/Test;")) return true;
        }
        return false;
    }

    /** COMPUTE_FRAMES needs common super classes: read them through the class's own loader, without loading classes. */
    static final class LoaderClassWriter extends ClassWriter {
        private final Hierarchy hierarchy;

        LoaderClassWriter(int flags, Hierarchy hierarchy) {
            super(flags);
            this.hierarchy = hierarchy;
        }

        @Override
        protected String getCommonSuperClass(String a, String b) {
            return hierarchy.commonSuperClass(a, b);
        }
    }

    /**
     * The {@code access} field of a statement record (docs/trace-format.md): the modifiers of the
     * class (for a nested class, those of its InnerClasses entry, as reflection reports them), of
     * the method ({@code mn} null: a field declaration, no method) and the direct superclass.
     */
    static String accessJson(ClassNode cn, MethodNode mn) {
        int ca = cn.access;
        if (cn.innerClasses != null)
            for (InnerClassNode ic : cn.innerClasses)
                if (ic.name.equals(cn.name)) {
                    ca = ic.access;
                    break;
                }
        StringBuilder b = new StringBuilder("{\"class\":");
        modifiers(b, ca & (java.lang.reflect.Modifier.classModifiers() | Opcodes.ACC_INTERFACE));
        if (mn != null) {
            b.append(",\"method\":");
            modifiers(b, mn.access & java.lang.reflect.Modifier.methodModifiers());
        }
        if (cn.superName != null) b.append(",\"superclass\":").append(R.quote(cn.superName.replace('/', '.')));
        return b.append('}').toString();
    }

    /** Appends the modifier keywords of {@code flags} as a JSON array of strings. */
    private static void modifiers(StringBuilder b, int flags) {
        b.append('[');
        boolean first = true;
        for (String w : java.lang.reflect.Modifier.toString(flags).split(" ")) {
            if (w.isEmpty()) continue;
            if (!first) b.append(',');
            b.append('"').append(w).append('"');
            first = false;
        }
        b.append(']');
    }
}
