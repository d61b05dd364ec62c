//! A check of the class archive's list (tracer/java/e2e.sh runs it): a project whose class path holds ASM (cglib's) still gets its archive.
package paf.runner;

import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * A traced run of a project that uses cglib loads ASM's classes from the project's class path in
 * the app loader, so the worker's loaded list names them as the app loader's. {@link CdsList}
 * took those ids for the supertypes of the instrumenter's classes (which its own loader takes
 * from ASM's jars), and {@code java -Xshare:dump} stopped at "Super class id N is not yet
 * loaded": mockachino's first run made no archive, and no run after it had one (docs/performance.md,
 * "Thirty-fifth round"). Here the list is made from such a loaded list, checked line by line (the
 * supertypes of every class of the joined jar are the JDK's or the joined jar's), and dumped as
 * {@code src/cli/cmd/trace/cds.rs} dumps it; the dump must succeed.
 *
 * <p>usage: java -cp paf-runner.jar:paf-instr.jar:paf-rt.jar:ASM...:DIR paf.runner.CdsListCheck WORKDIR
 */
public final class CdsListCheck {
    private CdsListCheck() {}

    public static void main(String[] args) throws Exception {
        File dir = new File(args[0]);
        dir.mkdirs();
        String runner = null, rt = null;
        List<String> jars = new ArrayList<>(); // paf-instr.jar and ASM's, as cds.rs names them
        for (String e : System.getProperty("java.class.path").split(File.pathSeparator)) {
            String n = new File(e).getName();
            if (n.equals("paf-runner.jar")) runner = new File(e).getAbsolutePath();
            else if (n.equals("paf-rt.jar")) rt = new File(e).getAbsolutePath();
            else if (n.equals("paf-instr.jar") || n.startsWith("asm")) jars.add(new File(e).getAbsolutePath());
        }
        if (runner == null || rt == null || jars.size() < 4)
            throw new AssertionError("the class path must hold paf-runner.jar, paf-rt.jar, paf-instr.jar and ASM's three jars");
        // what the worker of a cglib project lists: the JDK's classes, the runner, and ASM's from
        // the project's class path (the app loader's), before the instrumenter's
        File loaded = new File(dir, "loaded.txt");
        Files.write(loaded.toPath(), List.of("java/lang/Object", "paf/runner/TraceMain", "org/objectweb/asm/ClassVisitor",
                "org/objectweb/asm/Opcodes", "org/objectweb/asm/ClassReader", "paf/runner/Supervisor"), StandardCharsets.UTF_8);
        File list = new File(dir, "list.txt"), joined = new File(dir, "joined.jar");
        List<String> a = new ArrayList<>(List.of(loaded.getPath(), list.getPath(), joined.getPath()));
        a.addAll(jars);
        a.add("--");
        a.add(runner);
        CdsList.main(a.toArray(new String[0]));

        Map<Integer, String> byId = new HashMap<>();
        List<String> lines = Files.readAllLines(list.toPath(), StandardCharsets.UTF_8);
        for (String l : lines) {
            String[] w = l.split(" ");
            if (w.length >= 3 && w[1].equals("id:")) byId.put(Integer.parseInt(w[2]), l);
        }
        int joinedVisitors = 0, ownVisitors = 0;
        for (String l : lines) {
            if (l.startsWith("org/objectweb/asm/ClassVisitor id: ")) {
                if (l.contains(" source: ")) joinedVisitors++;
                else ownVisitors++;
            }
            if (!l.contains(" source: ")) continue;
            String[] w = l.substring(0, l.indexOf(" source: ")).split(" ");
            for (int i = 3; i < w.length; i++) {
                if (w[i].endsWith(":")) continue; // "super:", "interfaces:"
                String sup = byId.get(Integer.parseInt(w[i]));
                if (sup == null) throw new AssertionError("id " + w[i] + " is not listed: " + l);
                if (!sup.contains(" source: ") && !sup.startsWith("java/"))
                    throw new AssertionError("a supertype of a joined jar's class is the app loader's " + sup + ": " + l);
            }
        }
        if (joinedVisitors != 1 || ownVisitors != 1)
            throw new AssertionError("ClassVisitor must be listed once for the app loader and once from the joined jar: "
                    + ownVisitors + " and " + joinedVisitors);

        File archive = new File(dir, "check.jsa"), log = new File(dir, "dump.log");
        String java = System.getProperty("java.home") + File.separator + "bin" + File.separator + "java";
        Process p = new ProcessBuilder(java, "-Xshare:dump", "-XX:SharedClassListFile=" + list.getPath(),
                "-XX:SharedArchiveFile=" + archive.getPath(), "-Xbootclasspath/a:" + rt, "-cp", runner)
                .redirectErrorStream(true).redirectOutput(log).start();
        int code = p.waitFor();
        if (code != 0 || !archive.isFile())
            throw new AssertionError("java -Xshare:dump failed (exit code " + code + "):\n"
                    + new String(Files.readAllBytes(log.toPath()), StandardCharsets.UTF_8));
        System.out.println("ok: the class archive's list with ASM on the project's class path: " + lines.size()
                + " lines, every joined class's supertypes the JDK's or the joined jar's; java -Xshare:dump made it");
    }
}
