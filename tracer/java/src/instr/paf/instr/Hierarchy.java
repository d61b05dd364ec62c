package paf.instr;

import java.io.IOException;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;

import org.objectweb.asm.ClassReader;
import org.objectweb.asm.ClassVisitor;
import org.objectweb.asm.FieldVisitor;
import org.objectweb.asm.MethodVisitor;
import org.objectweb.asm.Opcodes;

/**
 * What the instrumenter and the static analysis need to know about classes they do not load:
 * superclass, interfaces, declared fields and methods, read from class files through a resource
 * lookup (a class loader's {@code getResourceAsStream}), never by loading the class. Used for
 * the JVM's field resolution (JVMS 5.4.3.2), for ASM's common superclass during frame
 * computation, and for the overrides of a method among the included classes.
 */
final class Hierarchy {
    /** One class file's header. */
    static final class Info {
        final String name, superName;
        final String[] interfaces;
        final int access;
        final Set<String> fields = new HashSet<>(); // name + " " + descriptor
        final Set<String> methods = new HashSet<>(); // name + descriptor
        final Map<String, Integer> methodAccess = new HashMap<>();

        Info(String name, String superName, String[] interfaces, int access) {
            this.name = name;
            this.superName = superName;
            this.interfaces = interfaces == null ? new String[0] : interfaces;
            this.access = access;
        }

        boolean isInterface() {
            return (access & Opcodes.ACC_INTERFACE) != 0;
        }
    }

    private final Function<String, InputStream> open;
    private final Map<String, Info> cache = new HashMap<>();
    private static final Info MISSING = new Info("", null, null, 0);

    /** {@code open}: internal name + ".class" -> the class file's bytes, or null. */
    Hierarchy(Function<String, InputStream> open) {
        this.open = open;
    }

    /** A hierarchy reading through {@code loader} (the bootstrap classes through the system loader). */
    static Hierarchy of(ClassLoader loader) {
        return new Hierarchy(res -> {
            InputStream in = loader == null ? null : loader.getResourceAsStream(res);
            return in != null ? in : ClassLoader.getSystemResourceAsStream(res);
        });
    }

    /** The class's header, or null when its class file cannot be found or read. */
    synchronized Info info(String internalName) {
        Info i = cache.get(internalName);
        if (i != null) return i == MISSING ? null : i;
        i = read(internalName);
        cache.put(internalName, i == null ? MISSING : i);
        return i;
    }

    /** Registers a class header read by other means (the static analysis's index, {@link IndexScan}). */
    synchronized void put(Info i) {
        cache.put(i.name, i);
    }

    /** Registers a class whose bytes are at hand (the class being transformed). */
    synchronized void add(ClassReader cr) {
        Info i = parse(cr);
        cache.put(i.name, i);
    }

    private Info read(String internalName) {
        try (InputStream in = open.apply(internalName + ".class")) {
            if (in == null) return null;
            return parse(new ClassReader(in));
        } catch (IOException | RuntimeException e) {
            return null;
        }
    }

    private static Info parse(ClassReader cr) {
        Info info = new Info(cr.getClassName(), cr.getSuperName(), cr.getInterfaces(), cr.getAccess());
        cr.accept(recorder(info, null), ClassReader.SKIP_CODE | ClassReader.SKIP_DEBUG | ClassReader.SKIP_FRAMES);
        return info;
    }

    /** A visitor recording the declared fields and methods into {@code info}, then passing them on to {@code next}. */
    private static ClassVisitor recorder(Info info, ClassVisitor next) {
        return new ClassVisitor(Opcodes.ASM9, next) {
            @Override
            public FieldVisitor visitField(int access, String name, String desc, String sig, Object value) {
                info.fields.add(name + " " + desc);
                return super.visitField(access, name, desc, sig, value);
            }

            @Override
            public MethodVisitor visitMethod(int access, String name, String desc, String sig, String[] exc) {
                info.methods.add(name + desc);
                info.methodAccess.put(name + desc, access);
                return super.visitMethod(access, name, desc, sig, exc);
            }
        };
    }

    /**
     * The class that declares the field {@code owner.name:desc}, by the JVM's field resolution
     * (JVMS 5.4.3.2): the class itself, then its superinterfaces (recursively), then its
     * superclass (recursively). {@code owner} itself when a class file on the way is missing.
     */
    String declaringClass(String owner, String name, String desc) {
        String d = lookup(owner, name + " " + desc, new HashSet<>());
        return d != null ? d : owner;
    }

    private String lookup(String c, String field, Set<String> seen) {
        if (c == null || !seen.add(c)) return null;
        Info i = info(c);
        if (i == null) return null;
        if (i.fields.contains(field)) return c;
        for (String itf : i.interfaces) {
            String d = lookup(itf, field, seen);
            if (d != null) return d;
        }
        return lookup(i.superName, field, seen);
    }

    /** The superclass chain of {@code c}, itself first (as far as class files are found). */
    List<String> superChain(String c) {
        List<String> out = new ArrayList<>();
        Set<String> seen = new HashSet<>();
        for (String t = c; t != null && seen.add(t); ) {
            out.add(t);
            Info i = info(t);
            t = i == null ? null : i.superName;
        }
        return out;
    }

    /** Whether {@code sub} is {@code sup} or extends or implements it (transitively). */
    boolean isSubtype(String sub, String sup) {
        return isSubtype(sub, sup, new HashSet<>());
    }

    private boolean isSubtype(String sub, String sup, Set<String> seen) {
        if (sub == null || !seen.add(sub)) return false;
        if (sub.equals(sup)) return true;
        Info i = info(sub);
        if (i == null) return false;
        for (String itf : i.interfaces) if (isSubtype(itf, sup, seen)) return true;
        return isSubtype(i.superName, sup, seen);
    }

    /** ASM's common superclass of two classes (java/lang/Object for interfaces or unknown classes). */
    String commonSuperClass(String a, String b) {
        if (a.equals(b)) return a;
        // A split method's copy takes a paf.rt.R as its extra parameter, in the slot where the
        // body keeps its first local, so the frames merge R with the body's types. R is final and
        // extends Object: the answer is known without reading R's class file, which took 3 to 7
        // ms once per JVM (docs/performance.md, "Twenty-fourth round").
        if (a.equals(Split.RT) || b.equals(Split.RT)) return "java/lang/Object";
        Info ia = info(a), ib = info(b);
        if (ia == null || ib == null || ia.isInterface() || ib.isInterface()) return "java/lang/Object";
        List<String> chainA = superChain(a);
        for (String t : superChain(b)) if (chainA.contains(t)) return t;
        return "java/lang/Object";
    }
}
