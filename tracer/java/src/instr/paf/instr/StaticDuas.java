package paf.instr;

import static org.objectweb.asm.Opcodes.*;

import java.io.BufferedReader;
import java.io.File;
import java.io.FileInputStream;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Enumeration;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Supplier;
import java.util.jar.JarFile;
import java.util.zip.GZIPOutputStream;
import java.util.zip.ZipEntry;
import java.util.zip.ZipFile;

import org.objectweb.asm.ClassReader;
import org.objectweb.asm.Type;
import org.objectweb.asm.tree.AbstractInsnNode;
import org.objectweb.asm.tree.ClassNode;
import org.objectweb.asm.tree.FieldInsnNode;
import org.objectweb.asm.tree.FieldNode;
import org.objectweb.asm.tree.IincInsnNode;
import org.objectweb.asm.tree.IntInsnNode;
import org.objectweb.asm.tree.JumpInsnNode;
import org.objectweb.asm.tree.LabelNode;
import org.objectweb.asm.tree.LookupSwitchInsnNode;
import org.objectweb.asm.tree.MethodInsnNode;
import org.objectweb.asm.tree.MethodNode;
import org.objectweb.asm.tree.TableSwitchInsnNode;
import org.objectweb.asm.tree.TryCatchBlockNode;
import org.objectweb.asm.tree.VarInsnNode;
import org.objectweb.asm.tree.analysis.AnalyzerException;

import paf.rt.R;

/**
 * The static def-use associations of theta (PAF 3.3; docs/algorithm.md, "Static DUAs"): for each
 * crash statement's use of a crash variable (the queries paf writes after analyzing the failing
 * tests), every definition that reaches it along a def-clear path, written to the bundle's
 * {@code static-duas.jsonl}.
 *
 * <ul>
 *   <li>locals and parameters: intra-procedural reaching definitions over the method's control
 *       flow graph (exception edges included), by the same local names the agent writes;
 *   <li>temporaries ({@code $N}): the instruction(s) that produce them;
 *   <li>fields and statics: every store to the field (resolved to its declaring class) in the
 *       included classes, and for an instance field its declaration (the allocation default,
 *       bundled with the constructor);
 *   <li>array elements of an array held in a field: the stores through that field and the
 *       allocations stored into it; other elements: every store and allocation of the same
 *       element type;
 *   <li>return values: every return of the methods the call site can reach (the resolved method
 *       and its overrides among the included classes) whose name is the variable's.
 * </ul>
 *
 * Statements are those of the agent (same keys, so the same ids); the statements of code no test
 * loaded are added to the bundle's table.
 *
 * <p>Usage: StaticDuas --work DIR --bundle DIR --queries FILE --classpath CP --include PKGS
 * [--exclude PKGS] [--tests CLASSES] [--sourcepath DIRS]; prints "static-duas N" (the number
 * written) on stdout.
 */
public final class StaticDuas {
    /** A statement of the analyzed code, registered (given an id) only when a DUA needs it. */
    static class Site {
        final String key, cls, method, file, access;
        final int line, bci;

        Site(String key, String cls, String method, String file, int line, int bci, String access) {
            this.key = key;
            this.cls = cls;
            this.method = method;
            this.file = file;
            this.line = line;
            this.bci = bci;
            this.access = access;
        }

        int id() {
            return R.stmt(key, cls, method, file, line, bci, access);
        }
    }

    private final Hierarchy hierarchy;
    private final ClassLoader loader;
    private final Instrumenter filter;
    /** Included (instrumentable) classes by internal name. */
    private final Set<String> included = new LinkedHashSet<>();
    private final Map<String, List<Site>> fieldStores = new HashMap<>();
    /** Instance fields ("cls.name", dotted) to their class (internal name) and name. */
    private final Map<String, String[]> fieldDecls = new HashMap<>();
    private final Map<String, List<Site>> elemStores = new HashMap<>();
    private final Map<String, List<Site>> elemAllocs = new HashMap<>();
    private final Map<String, List<Site>> returns = new HashMap<>();
    private final Map<String, MethodInstrumenter> analyzed = new HashMap<>();
    private final Map<String, ClassNode> nodes = new HashMap<>();

    StaticDuas(ClassLoader loader, Instrumenter filter) {
        this.loader = loader;
        this.hierarchy = new Hierarchy(res -> {
            InputStream in = loader.getResourceAsStream(res);
            return in != null ? in : ClassLoader.getSystemResourceAsStream(res);
        });
        this.filter = filter;
    }

    /** By hand: {@code --queries -} reads the crash uses on stdin. */
    public static void main(String[] args) throws Exception {
        try {
            serve(args, () -> {}, () -> new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8)));
        } catch (IllegalArgumentException e) {
            System.err.println("StaticDuas: " + e.getMessage());
            System.exit(2);
        }
    }

    /**
     * The whole analysis: the index, then the queries ({@code --queries -}: from {@code stdin},
     * asked for only once the index is made), the files, and the line {@code static-duas N
     * queries M} on stdout. The supervisor runs this on a thread of its own JVM
     * ({@code --static-duas}), which is one JVM fewer on the run's two cores
     * (docs/performance.md, "Fifth round"); {@code tableDone.run()} then blocks until the last
     * worker is done (the statement table is whole), {@code stdin.get()} until the bundle is
     * written, and the reader's lines until paf sends the queries.
     */
    public static void serve(String[] args, Runnable tableDone, Supplier<BufferedReader> stdin) throws Exception {
        Map<String, String> o = new HashMap<>();
        for (int i = 0; i + 1 < args.length; i += 2) o.put(args[i].replaceFirst("^--", ""), args[i + 1]);
        for (String k : new String[] {"work", "bundle", "queries", "classpath", "include"})
            if (!o.containsKey(k)) throw new IllegalArgumentException("--" + k + " is required");
        File work = new File(o.get("work")), bundle = new File(o.get("bundle"));
        File table = new File(work, "statements.jsonl");
        List<URL> urls = new ArrayList<>();
        List<File> entries = new ArrayList<>();
        StringBuilder dirs = new StringBuilder(o.getOrDefault("sourcepath", ""));
        for (String e : o.get("classpath").split(File.pathSeparator)) {
            if (e.isEmpty()) continue;
            File f = new File(e);
            entries.add(f);
            urls.add(f.toURI().toURL());
            if (f.isDirectory()) dirs.append(File.pathSeparator).append(f.getPath());
        }
        Map<String, String> opts = new HashMap<>();
        opts.put("include", o.get("include"));
        opts.put("exclude", o.getOrDefault("exclude", ""));
        opts.put("tests", o.getOrDefault("tests", ""));
        opts.put("src", dirs.toString());
        ClassLoader loader = new URLClassLoader(urls.toArray(new URL[0]), ClassLoader.getPlatformClassLoader());
        StaticDuas s = new StaticDuas(loader, new Instrumenter(opts));
        // The index reads only the class path (it registers no statement), so paf starts this JVM
        // while the tests run and sends the queries on stdin ("--queries -") once the trace is
        // written: the JVM's start and the index overlap the tracing (docs/performance.md).
        s.index(entries);
        List<String> lines = new ArrayList<>();
        long before;
        Map<String, String> keys = new HashMap<>(); // statement ids to keys
        // The last worker is done, so the statement table is whole: it is read now, while the
        // supervisor writes the bundle and the worker exits, and paf then reads the failing
        // tests, not after them (joda-time's 10 MB table took 50 ms of the wait:
        // docs/performance.md, "Twenty-second round"; "Thirty-fifth round").
        tableDone.run();
        before = table.length();
        R.initStatements(table, keys);
        try (BufferedReader r = "-".equals(o.get("queries")) ? stdin.get()
                : new BufferedReader(new InputStreamReader(new FileInputStream(o.get("queries")), StandardCharsets.UTF_8))) {
            String line;
            while ((line = r.readLine()) != null) if (!line.trim().isEmpty()) lines.add(line);
        }
        Set<String> out = new TreeSet<>();
        int queries = 0;
        for (String line : lines) {
            queries++;
            int stmt = Integer.parseInt(jsonField(line, "stmt"));
            String var = jsonField(line, "var");
            String key = keys.get(String.valueOf(stmt));
            if (key == null) continue;
            for (int def : s.defs(key, var)) out.add("{\"def\":" + def + ",\"use\":" + stmt + ",\"var\":" + R.quote(var) + "}");
        }
        R.flush();
        boolean gz = new File(bundle, "statements.jsonl.gz").exists();
        write(new File(bundle, gz ? "static-duas.jsonl.gz" : "static-duas.jsonl"), String.join("\n", out) + (out.isEmpty() ? "" : "\n"));
        if (table.length() != before) writeStatements(table, bundle, gz);
        // the last thing done but the exit: paf goes on when it reads this line
        System.out.println("static-duas " + out.size() + " queries " + queries);
        System.out.flush();
    }

    // ---------------------------------------------------------------- index

    /** Methods ("cls.name+desc") that store (PUTFIELD/PUTSTATIC) or load a field, by its simple name. */
    private final Map<String, Set<String>> storesOf = new HashMap<>(), loadsOf = new HashMap<>();
    /**
     * The field stores' instructions, by the field's simple name: each owner and descriptor
     * ("owner desc") as the instruction names them, to the methods that hold such a store. A
     * field's query analyzes only the methods whose store resolves to that very field
     * ({@link #storesTo}), not every method storing a field of the same name: commons-math3
     * has hundreds that store an {@code x}.
     */
    private final Map<String, Map<String, Set<String>>> storeOwners = new HashMap<>();
    /** Methods with an array store or an array allocation. */
    private final Set<String> arrayMethods = new LinkedHashSet<>();
    /** Methods analyzed into the maps above. */
    private final Set<String> indexed = new HashSet<>();

    /**
     * Reads every included class on the class path once, cheaply: which methods store or load
     * which fields and which touch arrays, the instance fields, and the class's header for the
     * hierarchy. One pass of a visitor without debug information or frames, no tree: this runs
     * while the tests run, on the core they share with it. The methods a query needs are analyzed
     * (tree, frames, statements) only when it comes ({@link #ensureIndexed}), and a field's
     * declaration site is made then too ({@link #fieldDecl}).
     */
    void index(List<File> entries) throws IOException {
        Map<String, File> entryOf = new HashMap<>();
        for (File e : entries) for (String c : classesIn(e)) if (filter.wanted(c) && included.add(c)) entryOf.put(c, e);
        try (ClassFiles files = new ClassFiles(entries, loader)) {
            for (String c : new ArrayList<>(included)) if (!scan(c, files.read(c, entryOf.get(c)))) included.remove(c);
        }
    }

    /**
     * The class files of the class path, read straight from the entry that holds them first (as
     * {@link #classesIn} lists them), which is where the class loader finds them: its lookup
     * costs more than the read (the JDK's loaders are asked first, and each searches its modules
     * for a name in no package of theirs). Through the loader still where its answer could
     * differ: a class in a package of the JDK's modules, every class when a jar names other jars
     * (manifest Class-Path) or has a jar index, and a file that cannot be read directly.
     */
    static final class ClassFiles implements AutoCloseable {
        private final ClassLoader loader;
        private final Map<File, JarFile> jars = new HashMap<>();
        private final Set<String> jdkPackages = new HashSet<>();
        private boolean direct = true;

        ClassFiles(List<File> entries, ClassLoader loader) {
            this.loader = loader;
            for (Module m : ModuleLayer.boot().modules()) jdkPackages.addAll(m.getPackages());
            for (File e : entries) {
                if (!e.isFile() || jars.containsKey(e)) continue; // a jar named twice: opened once
                try {
                    // versioned as the loader opens it: a multi-release jar's entries for this JVM
                    JarFile j = new JarFile(e, true, ZipFile.OPEN_READ, JarFile.runtimeVersion());
                    jars.put(e, j);
                    java.util.jar.Manifest mf = j.getManifest();
                    if ((mf != null && mf.getMainAttributes().getValue("Class-Path") != null)
                            || j.getEntry("META-INF/INDEX.LIST") != null)
                        direct = false;
                } catch (IOException | RuntimeException x) {
                    direct = false;
                }
            }
        }

        /** The bytes of class {@code c} (internal name) found first in {@code entry}, or null. */
        byte[] read(String c, File entry) {
            String pkg = c.lastIndexOf('/') < 0 ? "" : c.substring(0, c.lastIndexOf('/')).replace('/', '.');
            if (direct && entry != null && !jdkPackages.contains(pkg)) {
                try {
                    if (entry.isDirectory()) return Files.readAllBytes(new File(entry, c + ".class").toPath());
                    JarFile j = jars.get(entry);
                    ZipEntry z = j == null ? null : j.getEntry(c + ".class");
                    if (z != null)
                        try (InputStream in = j.getInputStream(z)) {
                            return in.readAllBytes();
                        }
                } catch (IOException | RuntimeException x) {
                    // through the loader, below
                }
            }
            try (InputStream in = loader.getResourceAsStream(c + ".class")) {
                return in == null ? null : in.readAllBytes();
            } catch (IOException | RuntimeException x) {
                return null;
            }
        }

        @Override
        public void close() throws IOException {
            for (JarFile j : jars.values()) j.close();
        }
    }

    /**
     * PAF_INDEX=asm (a diagnostic): the index reads every class with ASM's visitor, as before the
     * thirty-third round, rather than from its bytes ({@link IndexScan#raw}).
     */
    private static final boolean RAW = !"asm".equals(System.getenv("PAF_INDEX"));

    /**
     * Indexes class {@code c} ({@code bytes}: its class file); false (not included) when it is a test class (as
     * {@link Instrumenter#isTestClass} decides), a module, or its class file cannot be read. What
     * it finds is kept only at the end, once the class is known not to be a test class, in the
     * order of the class file (the index's sets keep their insertion order).
     */
    private boolean scan(String c, byte[] bytes) {
        IndexScan s;
        try {
            if (bytes == null) return false;
            ClassReader cr = new ClassReader(bytes);
            s = RAW ? raw(cr) : null;
            if (s == null) s = IndexScan.asm(cr);
        } catch (RuntimeException e) {
            return false;
        }
        hierarchy.put(s.info);
        if (s.skip) return false;
        for (String f : s.fields) fieldDecls.put(c.replace('/', '.') + "." + f, new String[] {c, f});
        for (IndexScan.Method m : s.methods) {
            for (int i = 0; i < m.stores.size(); i++) {
                String f = m.stores.get(i);
                storesOf.computeIfAbsent(f, k -> new LinkedHashSet<>()).add(m.method);
                storeOwners.computeIfAbsent(f, k -> new HashMap<>())
                        .computeIfAbsent(m.storeOwners.get(i), k -> new HashSet<>()).add(m.method);
            }
            for (String f : m.loads) loadsOf.computeIfAbsent(f, k -> new LinkedHashSet<>()).add(m.method);
            if (m.arrays) arrayMethods.add(m.method);
        }
        return true;
    }

    /** {@link IndexScan#raw}, or null (ASM's visitor reads the class) when it declines or fails. */
    private static IndexScan raw(ClassReader cr) {
        try {
            return IndexScan.raw(cr);
        } catch (RuntimeException e) {
            return null;
        }
    }

    /** Analyzes these methods ("cls.name+desc") into the stores, allocations and returns maps. */
    private void ensureIndexed(Set<String> methods) {
        for (String m : methods) {
            if (!indexed.add(m)) continue;
            int dot = m.lastIndexOf('.', m.indexOf('('));
            ClassNode cn = node(m.substring(0, dot));
            if (cn == null) continue;
            for (MethodNode mn : cn.methods) {
                if (!(mn.name + mn.desc).equals(m.substring(dot + 1))) continue;
                MethodInstrumenter mi = analyze(cn, mn, false);
                if (mi != null) indexMethod(cn, mn, mi);
            }
        }
    }

    /**
     * The methods with a store that resolves to field {@code var} ("declaring.class.name", as
     * {@link MethodInstrumenter#fieldName} names it), in the index's order. Those are the only
     * ones that can add a store of {@code var} to {@link #fieldStores}.
     */
    private Set<String> storesTo(String var) {
        String name = simpleName(var);
        Set<String> all = storesOf.get(name), to = new HashSet<>();
        Map<String, Set<String>> owners = storeOwners.get(name);
        if (all == null || owners == null) return new LinkedHashSet<>();
        for (Map.Entry<String, Set<String>> e : owners.entrySet()) {
            int sp = e.getKey().indexOf(' ');
            String owner = e.getKey().substring(0, sp), desc = e.getKey().substring(sp + 1);
            if ((hierarchy.declaringClass(owner, name, desc).replace('/', '.') + "." + name).equals(var)) to.addAll(e.getValue());
        }
        Set<String> out = new LinkedHashSet<>(all);
        out.retainAll(to);
        return out;
    }

    private static Set<String> union(Set<String> a, Set<String> b) {
        Set<String> out = new LinkedHashSet<>();
        if (a != null) out.addAll(a);
        if (b != null) out.addAll(b);
        return out;
    }

    private static String simpleName(String qualified) {
        return qualified.substring(qualified.lastIndexOf('.') + 1);
    }

    /**
     * The statement of an instance field's declaration ({@code decl}: class, field), registered
     * through the instrumenter's own rule; the class is read (with its debug information) only
     * now. Null when its class file cannot be read.
     */
    private Integer fieldDecl(String[] decl) {
        ClassNode cn = node(decl[0]);
        if (cn == null) return null;
        FieldNode field = null; // the last one of that name, as the index's map kept it
        for (FieldNode f : cn.fields) if ((f.access & ACC_STATIC) == 0 && f.name.equals(decl[1])) field = f;
        return field == null ? null : filter.fieldDecl(cn, Instrumenter.sourceFile(cn), field);
    }

    private void indexMethod(ClassNode cn, MethodNode mn, MethodInstrumenter mi) {
        for (int i = 0; i < mi.insns.length; i++) {
            if (!mi.traced(i)) continue;
            AbstractInsnNode n = mi.insns[i];
            int op = n.getOpcode();
            if (op == PUTFIELD || op == PUTSTATIC) {
                String f = mi.fieldName((FieldInsnNode) n);
                add(fieldStores, f, site(cn, mn, mi, i));
                // arrays stored into the field: their allocations define the elements
                MethodInstrumenter.Src v = mi.operands(i).get(op == PUTFIELD ? 1 : 0).src;
                for (AbstractInsnNode p : producers(v))
                    if (isNewArray(p)) add(elemAllocs, f + "[]", site(cn, mn, mi, mi.index.get(p)));
            } else if (op >= IASTORE && op <= SASTORE) {
                String a = mi.arrayName(n);
                add(elemStores, a != null ? a + "[]" : "?" + family(op), site(cn, mn, mi, i));
                if (a != null) add(elemStores, "?" + family(op), site(cn, mn, mi, i));
            } else if (isNewArray(n)) {
                add(elemAllocs, "?" + allocFamily(n), site(cn, mn, mi, i));
            } else if (op >= IRETURN && op <= ARETURN) {
                add(returns, cn.name + "." + mn.name + mn.desc, site(cn, mn, mi, i));
            }
        }
    }

    private static Set<AbstractInsnNode> producers(MethodInstrumenter.Src v) {
        Set<AbstractInsnNode> out = new HashSet<>();
        if (v.kind == MethodInstrumenter.S_MERGE) out.addAll(v.producers);
        else if (v.p != null) out.add(v.p);
        return out;
    }

    private static boolean isNewArray(AbstractInsnNode n) {
        int op = n.getOpcode();
        return op == NEWARRAY || op == ANEWARRAY || op == MULTIANEWARRAY;
    }

    private static char family(int op) {
        switch (op) {
            case IALOAD: case IASTORE: return 'I';
            case LALOAD: case LASTORE: return 'J';
            case FALOAD: case FASTORE: return 'F';
            case DALOAD: case DASTORE: return 'D';
            case BALOAD: case BASTORE: return 'B';
            case CALOAD: case CASTORE: return 'C';
            case SALOAD: case SASTORE: return 'S';
            default: return 'A';
        }
    }

    private static char allocFamily(AbstractInsnNode n) {
        if (n.getOpcode() != NEWARRAY) return 'A';
        switch (((IntInsnNode) n).operand) {
            case T_INT: return 'I';
            case T_LONG: return 'J';
            case T_FLOAT: return 'F';
            case T_DOUBLE: return 'D';
            case T_CHAR: return 'C';
            case T_SHORT: return 'S';
            default: return 'B'; // boolean and byte share baload/bastore
        }
    }

    private static void add(Map<String, List<Site>> m, String k, Site s) {
        m.computeIfAbsent(k, x -> new ArrayList<>()).add(s);
    }

    private static Site site(ClassNode cn, MethodNode mn, MethodInstrumenter mi, int i) {
        return new Site(cn.name + "|" + mn.name + mn.desc + "|" + mi.bci[i], cn.name.replace('/', '.'), mn.name,
                Instrumenter.sourceFile(cn), mi.lines[i], mi.bci[i], Instrumenter.accessJson(cn, mn));
    }

    private ClassNode node(String c) {
        ClassNode cn = nodes.get(c);
        if (cn != null) return cn;
        try (InputStream in = loader.getResourceAsStream(c + ".class")) {
            if (in == null) return null;
            ClassReader cr = new ClassReader(in);
            cn = new ClassNode();
            cr.accept(cn, ClassReader.SKIP_FRAMES);
            bcis.put(c, BciMap.of(cr));
            hierarchy.add(cr);
            nodes.put(c, cn);
            return cn;
        } catch (IOException | RuntimeException e) {
            return null;
        }
    }

    private final Map<String, Map<String, int[]>> bcis = new HashMap<>();

    /** The analysis of a method ({@code keep}: cached, for the queries' methods). */
    private MethodInstrumenter analyze(ClassNode cn, MethodNode mn, boolean keep) {
        String k = cn.name + "." + mn.name + mn.desc;
        if (analyzed.containsKey(k)) return analyzed.get(k);
        MethodInstrumenter mi = new MethodInstrumenter(cn, mn, cn.name.replace('/', '.'), Instrumenter.sourceFile(cn),
                bcis.getOrDefault(cn.name, new HashMap<>()).get(mn.name + mn.desc), hierarchy);
        try {
            if (!mi.analyze()) mi = null;
        } catch (AnalyzerException | RuntimeException e) {
            mi = null;
        }
        if (keep) analyzed.put(k, mi);
        return mi;
    }

    /** The internal names of the classes in a class path entry. */
    static List<String> classesIn(File e) throws IOException {
        List<String> out = new ArrayList<>();
        if (e.isDirectory()) {
            ArrayDeque<File> todo = new ArrayDeque<>();
            todo.push(e);
            String root = e.getPath() + File.separator;
            while (!todo.isEmpty()) {
                File d = todo.pop();
                File[] kids = d.listFiles();
                if (kids == null) continue;
                for (File k : kids) {
                    if (k.isDirectory()) todo.push(k);
                    else if (k.getName().endsWith(".class") && !k.getName().equals("module-info.class"))
                        out.add(k.getPath().substring(root.length(), k.getPath().length() - 6).replace(File.separatorChar, '/'));
                }
            }
        } else if (e.isFile()) {
            try (JarFile jar = new JarFile(e)) {
                for (Enumeration<? extends ZipEntry> en = jar.entries(); en.hasMoreElements(); ) {
                    String n = en.nextElement().getName();
                    if (n.endsWith(".class") && !n.endsWith("module-info.class") && !n.startsWith("META-INF/"))
                        out.add(n.substring(0, n.length() - 6));
                }
            } catch (IOException | RuntimeException x) {
                // The JVM's class loader skips a class path entry it cannot open, and the tests ran
                // without it: so does the analysis, saying so (before, it failed, and paf reported
                // an internal error once the bundle was written).
                System.err.println("paf trace: " + e + ": not a jar that can be read (" + x.getMessage()
                        + "); the static analysis leaves it out, as the JVM did");
                out.clear();
            }
        }
        return out;
    }

    // ---------------------------------------------------------------- queries

    /** The statement ids of every definition of {@code var} that reaches its use at statement {@code key}. */
    Set<Integer> defs(String key, String var) {
        Set<Integer> out = new TreeSet<>();
        String[] k = key.split("\\|");
        if (k.length != 3 || k[0].equals("F") || k[2].equals("entry")) return out;
        String cls = k[0];
        int paren = k[1].indexOf('(');
        String name = k[1].substring(0, paren), desc = k[1].substring(paren);
        int bci = Integer.parseInt(k[2]);
        ClassNode cn = node(cls);
        if (cn == null) return out;
        MethodNode mn = null;
        for (MethodNode m : cn.methods) if (m.name.equals(name) && m.desc.equals(desc)) mn = m;
        if (mn == null) return out;
        MethodInstrumenter mi = analyze(cn, mn, true);
        if (mi == null) return out;
        int at = -1;
        for (int i = 0; i < mi.insns.length; i++) if (mi.bci[i] == bci && mi.insns[i].getOpcode() >= 0) at = i;
        if (at < 0) return out;
        for (MethodInstrumenter.Operand o : mi.operands(at)) defsOf(cn, mn, mi, o.src, var, out);
        return out;
    }

    private void defsOf(ClassNode cn, MethodNode mn, MethodInstrumenter mi, MethodInstrumenter.Src s, String var, Set<Integer> out) {
        switch (s.kind) {
            case MethodInstrumenter.S_LOCAL:
                if (s.name.equals(var)) locals(cn, mn, mi, mi.index.get(s.p), ((VarInsnNode) s.p).var, var, out);
                break;
            case MethodInstrumenter.S_MERGE:
                if (s.name.equals(var)) for (AbstractInsnNode p : s.producers) out.add(mi.stmt(mi.index.get(p)));
                break;
            case MethodInstrumenter.S_FIELD:
            case MethodInstrumenter.S_STATIC:
                if (!s.name.equals(var)) break;
                ensureIndexed(storesTo(var));
                for (Site x : fieldStores.getOrDefault(var, new ArrayList<>())) out.add(x.id());
                if (s.kind == MethodInstrumenter.S_FIELD && fieldDecls.containsKey(var)) {
                    Integer decl = fieldDecl(fieldDecls.get(var));
                    if (decl != null) out.add(decl);
                }
                break;
            case MethodInstrumenter.S_ELEM: {
                String n = (s.array == null ? "" : s.array) + "[]";
                if (!n.equals(var)) break;
                if (s.array != null) {
                    // the stores through the field, and the field's stores (of an allocation)
                    Set<String> through = new LinkedHashSet<>(arrayMethods);
                    Set<String> loads = loadsOf.get(simpleName(s.array));
                    through.retainAll(loads == null ? new HashSet<>() : loads);
                    ensureIndexed(union(through, storesOf.get(simpleName(s.array))));
                } else ensureIndexed(arrayMethods);
                String key = s.array != null ? n : "?" + family(s.p.getOpcode());
                for (Site x : elemStores.getOrDefault(key, new ArrayList<>())) out.add(x.id());
                String alloc = s.array != null ? n : "?" + family(s.p.getOpcode());
                for (Site x : elemAllocs.getOrDefault(alloc, new ArrayList<>())) out.add(x.id());
                break;
            }
            case MethodInstrumenter.S_RET:
                if (mi.hasTemp(s.p) && mi.tempName(s.p).equals(var)) out.add(mi.stmt(mi.index.get(s.p)));
                else if (s.p instanceof MethodInsnNode) returnsOf((MethodInsnNode) s.p, var, out);
                break;
            case MethodInstrumenter.S_CONST:
            case MethodInstrumenter.S_ARITH:
                if (mi.hasTemp(s.p) && mi.tempName(s.p).equals(var)) out.add(mi.stmt(mi.index.get(s.p)));
                break;
            default:
                break;
        }
    }

    /** Returns of the methods a call can reach whose return variable is {@code var}. */
    private void returnsOf(MethodInsnNode call, String var, Set<Integer> out) {
        Set<String> targets = new LinkedHashSet<>();
        for (String c : hierarchy.superChain(call.owner)) {
            Hierarchy.Info i = hierarchy.info(c);
            if (i != null && i.methods.contains(call.name + call.desc)) {
                targets.add(c);
                break;
            }
        }
        if (call.getOpcode() == INVOKEVIRTUAL || call.getOpcode() == INVOKEINTERFACE)
            for (String c : included) {
                Hierarchy.Info i = hierarchy.info(c);
                if (i == null || !i.methods.contains(call.name + call.desc)) continue;
                Integer acc = i.methodAccess.get(call.name + call.desc);
                if (acc != null && (acc & ACC_ABSTRACT) != 0) continue;
                if (hierarchy.isSubtype(c, call.owner)) targets.add(c);
            }
        for (String t : targets) {
            if (!(t.replace('/', '.') + "." + call.name + "()").equals(var)) continue;
            ensureIndexed(union(java.util.Collections.singleton(t + "." + call.name + call.desc), null));
            for (Site x : returns.getOrDefault(t + "." + call.name + call.desc, new ArrayList<>())) out.add(x.id());
        }
    }

    /** Reaching definitions of local slot {@code slot} (named {@code var}) at instruction {@code load}. */
    private void locals(ClassNode cn, MethodNode mn, MethodInstrumenter mi, int load, int slot, String var, Set<Integer> out) {
        List<List<Integer>> preds = predecessors(mn, mi);
        boolean[] seen = new boolean[mi.insns.length];
        ArrayDeque<Integer> work = new ArrayDeque<>(preds.get(load));
        if (load == 0) work.push(-1);
        while (!work.isEmpty()) {
            int j = work.pop();
            if (j < 0) {
                entry(mn, mi, slot, var, out);
                continue;
            }
            if (seen[j]) continue;
            seen[j] = true;
            if (mi.frames[j] == null) continue; // unreachable
            AbstractInsnNode n = mi.insns[j];
            boolean store = (n instanceof VarInsnNode && n.getOpcode() >= ISTORE && n.getOpcode() <= ASTORE
                    && ((VarInsnNode) n).var == slot) || (n instanceof IincInsnNode && ((IincInsnNode) n).var == slot);
            if (store) {
                if (mi.traced(j) && mi.localName(slot, j, true).equals(var)) out.add(mi.stmt(j));
                continue;
            }
            if (j == 0) entry(mn, mi, slot, var, out);
            work.addAll(preds.get(j));
        }
    }

    /** The method entry defines the parameters (at its entry statement). */
    private static void entry(MethodNode mn, MethodInstrumenter mi, int slot, String var, Set<Integer> out) {
        boolean isStatic = (mn.access & ACC_STATIC) != 0;
        Type[] args = Type.getArgumentTypes(mn.desc);
        String[] names = mi.paramNames();
        int s = isStatic ? 0 : 1;
        for (int j = 0; j < args.length; j++) {
            if (s == slot && names[j].equals(var)) out.add(mi.entryStmt());
            s += args[j].getSize();
        }
    }

    private final Map<MethodInstrumenter, List<List<Integer>>> predCache = new HashMap<>();

    /** Predecessors of every node of the instruction list (labels and line numbers included), with exception edges. */
    private List<List<Integer>> predecessors(MethodNode mn, MethodInstrumenter mi) {
        List<List<Integer>> cached = predCache.get(mi);
        if (cached != null) return cached;
        int n = mi.insns.length;
        List<List<Integer>> preds = new ArrayList<>();
        for (int i = 0; i < n; i++) preds.add(new ArrayList<>());
        for (int i = 0; i < n; i++) {
            AbstractInsnNode x = mi.insns[i];
            int op = x.getOpcode();
            List<Integer> succ = new ArrayList<>();
            if (x instanceof JumpInsnNode) {
                succ.add(mi.index.get(((JumpInsnNode) x).label));
                if (op != GOTO && op != JSR) succ.add(i + 1);
            } else if (x instanceof TableSwitchInsnNode) {
                TableSwitchInsnNode t = (TableSwitchInsnNode) x;
                succ.add(mi.index.get(t.dflt));
                for (LabelNode l : t.labels) succ.add(mi.index.get(l));
            } else if (x instanceof LookupSwitchInsnNode) {
                LookupSwitchInsnNode t = (LookupSwitchInsnNode) x;
                succ.add(mi.index.get(t.dflt));
                for (LabelNode l : t.labels) succ.add(mi.index.get(l));
            } else if (!((op >= IRETURN && op <= RETURN) || op == ATHROW)) {
                succ.add(i + 1);
            }
            for (int s : succ) if (s < n) preds.get(s).add(i);
        }
        for (TryCatchBlockNode t : mn.tryCatchBlocks) {
            int s = mi.index.get(t.start), e = mi.index.get(t.end), h = mi.index.get(t.handler);
            for (int i = s; i < e; i++) preds.get(h).add(i);
        }
        predCache.put(mi, preds);
        return preds;
    }

    // ---------------------------------------------------------------- files

    /** A string or number field of a flat JSON line the Rust side wrote (stmt, var). */
    static String jsonField(String line, String name) {
        int i = line.indexOf("\"" + name + "\":");
        if (i < 0) return null;
        i += name.length() + 3;
        while (line.charAt(i) == ' ') i++;
        if (line.charAt(i) != '"') {
            int e = i;
            while (e < line.length() && (Character.isDigit(line.charAt(e)) || line.charAt(e) == '-')) e++;
            return line.substring(i, e);
        }
        StringBuilder b = new StringBuilder();
        for (i++; i < line.length(); i++) {
            char c = line.charAt(i);
            if (c == '"') break;
            if (c == '\\') {
                char e = line.charAt(++i);
                if (e == 'u') {
                    b.append((char) Integer.parseInt(line.substring(i + 1, i + 5), 16));
                    i += 4;
                } else b.append(e == 'n' ? '\n' : e == 't' ? '\t' : e == 'r' ? '\r' : e);
            } else b.append(c);
        }
        return b.toString();
    }

    static void write(File f, String text) throws IOException {
        byte[] b = text.getBytes(StandardCharsets.UTF_8);
        File tmp = new File(f.getPath() + ".tmp");
        try (OutputStream o = f.getName().endsWith(".gz") ? new GZIPOutputStream(new FileOutputStream(tmp)) : new FileOutputStream(tmp)) {
            o.write(b);
        }
        Files.move(tmp.toPath(), f.toPath(), java.nio.file.StandardCopyOption.REPLACE_EXISTING);
    }

    /** The bundle's statement table again, with the statements this analysis added (first line per id, no key). */
    static void writeStatements(File table, File bundle, boolean gz) throws IOException {
        Set<String> seen = new HashSet<>();
        StringBuilder st = new StringBuilder();
        for (String line : Files.readAllLines(table.toPath(), StandardCharsets.UTF_8)) {
            if (!line.startsWith("{\"id\":") || !line.endsWith("}")) continue;
            if (!seen.add(line.substring(6, line.indexOf(',')))) continue;
            int k = line.lastIndexOf(",\"key\":");
            st.append(k > 0 ? line.substring(0, k) + "}" : line).append('\n');
        }
        write(new File(bundle, gz ? "statements.jsonl.gz" : "statements.jsonl"), st.toString());
    }
}
