package paf.runner;

import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.Enumeration;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;
import java.util.jar.JarOutputStream;

/**
 * {@code CdsList LOADED OUT JOINED JAR... [-- LISTED...]}: writes to OUT the class list
 * {@code java -Xshare:dump} archives (paf's {@code trace/cds.rs} runs both; docs/java.md, "The
 * class archive").
 *
 * <p>LOADED is what the worker and the supervisor loaded in a traced run
 * ({@code -XX:DumpLoadedClassList}, the two lists one after the other). The JDK lists only the
 * classes of its built-in loaders; the instrumenter and ASM (the JARs) live in a class loader of
 * their own (the agent's, the static analysis's) so that a project's own ASM is not theirs. The
 * JDK archives such classes too when the list names each with an id, its superclass's and
 * interfaces' ids, and the jar it comes from; at run time it uses an archived one when a loader
 * defines a class of the same name and bytes. The dump reads them through one loader per jar, so
 * the JARs' classes are written into one jar, JOINED, for it: ASM's tree classes refer to its
 * core ones. Every class of the JARs is listed, with its supertypes first. So is every class of
 * the LISTED jars (the archive's class path: the runner's and JUnit's), which a built-in loader
 * finds by name: what the run that made the list did not load (the static analysis, where that
 * run had no failing test) is in the archive too.
 */
public final class CdsList {
    /** The ids of the built-in loaders' classes, by name. */
    private final Map<String, Integer> ids = new HashMap<>();
    /**
     * The ids of the JARs' classes: apart from {@link #ids}, since the project's class path may
     * hold a class of the same name (ASM itself, for cglib), which the app loader loaded in the
     * run and which the JARs' classes must not take for their supertype (the dump stopped at
     * "Super class id N is not yet loaded", and no archive was made).
     */
    private final Map<Class<?>, Integer> joinedIds = new HashMap<>();
    private int nextId;
    private final List<String> out = new ArrayList<>();
    private final Map<Class<?>, String> joined = new LinkedHashMap<>();
    private final String source;

    private CdsList(String source) {
        this.source = source;
    }

    public static void main(String[] args) throws IOException {
        if (args.length < 3) {
            System.err.println("usage: CdsList LOADED OUT JOINED JAR... [-- LISTED...]");
            System.exit(2);
        }
        CdsList list = new CdsList(new File(args[2]).getAbsolutePath());
        for (String line : Files.readAllLines(Paths.get(args[0]), StandardCharsets.UTF_8)) list.loaded(line);
        List<String> rest = List.of(args).subList(3, args.length);
        int cut = rest.indexOf("--");
        if (cut >= 0) {
            for (String jar : rest.subList(cut + 1, rest.size())) {
                try (JarFile in = new JarFile(jar)) {
                    for (Enumeration<JarEntry> e = in.entries(); e.hasMoreElements();) {
                        String n = e.nextElement().getName();
                        if (n.endsWith(".class") && !n.startsWith("META-INF/") && !n.equals("module-info.class"))
                            list.loaded(n.substring(0, n.length() - ".class".length()));
                    }
                }
            }
            rest = rest.subList(0, cut);
        }
        List<String> names = join(args[2], rest);
        URLClassLoader loader = new URLClassLoader(new URL[] {new File(args[2]).toURI().toURL()},
                ClassLoader.getPlatformClassLoader());
        for (String name : names) {
            try {
                list.joined.put(Class.forName(name.replace('/', '.'), false, loader), name);
            } catch (LinkageError | ClassNotFoundException e) {
                // a class whose own dependencies are absent (an optional part of ASM): not archived
            }
        }
        for (Class<?> c : list.joined.keySet()) list.add(c);
        Files.write(Paths.get(args[1]), list.out, StandardCharsets.UTF_8);
    }

    /** A line of the loaded list: a class gets an id (once); the rest (comments, {@code @} lines) stays. */
    private void loaded(String line) {
        String name = line.trim();
        if (name.isEmpty() || name.startsWith("#") || name.startsWith("@") || name.contains(" ")) {
            if (!name.isEmpty()) out.add(line);
            return;
        }
        if (!ids.containsKey(name)) named(name);
    }

    private int named(String name) {
        int id = nextId++;
        ids.put(name, id);
        out.add(name + " id: " + id);
        return id;
    }

    /** The id of {@code c}, listing it (after its supertypes) if it is not yet. */
    private int add(Class<?> c) {
        String name = c.getName().replace('.', '/');
        if (!joined.containsKey(c)) {
            // the JDK's: a built-in loader finds it
            Integer known = ids.get(name);
            return known != null ? known : named(name);
        }
        Integer known = joinedIds.get(c);
        if (known != null) return known;
        // an interface's superclass is Object, for the dump as for the class file
        int sup = add(c.getSuperclass() == null ? Object.class : c.getSuperclass());
        StringBuilder line = new StringBuilder();
        List<Integer> interfaces = new ArrayList<>();
        for (Class<?> i : c.getInterfaces()) interfaces.add(add(i));
        int id = nextId++;
        joinedIds.put(c, id);
        line.append(name).append(" id: ").append(id).append(" super: ").append(sup);
        if (!interfaces.isEmpty()) {
            line.append(" interfaces:");
            for (int i : interfaces) line.append(' ').append(i);
        }
        out.add(line.append(" source: ").append(source).toString());
        return id;
    }

    /** Writes the jars' classes into one jar (the first of a name wins, as on a class path); returns their names. */
    private static List<String> join(String to, List<String> jars) throws IOException {
        List<String> names = new ArrayList<>();
        Set<String> seen = new HashSet<>();
        try (OutputStream f = Files.newOutputStream(Paths.get(to)); JarOutputStream j = new JarOutputStream(f)) {
            for (String jar : jars) {
                try (JarFile in = new JarFile(jar)) {
                    for (Enumeration<JarEntry> e = in.entries(); e.hasMoreElements();) {
                        JarEntry entry = e.nextElement();
                        String n = entry.getName();
                        if (!n.endsWith(".class") || n.startsWith("META-INF/") || n.equals("module-info.class") || !seen.add(n))
                            continue;
                        j.putNextEntry(new JarEntry(n));
                        try (InputStream s = in.getInputStream(entry)) {
                            s.transferTo(j);
                        }
                        j.closeEntry();
                        names.add(n.substring(0, n.length() - ".class".length()));
                    }
                }
            }
        }
        return names;
    }
}
