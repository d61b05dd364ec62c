//! A check of the static analysis's index (tracer/java/e2e.sh and load-check.sh run it): every class of the jars on the class path read from its bytes as ASM's visitor reads it.
package paf.instr;

import java.io.File;
import java.io.InputStream;
import java.util.Enumeration;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;

import org.objectweb.asm.ClassReader;

/**
 * Reads every class file of every jar on the class path both ways {@link IndexScan} can (its
 * bytes directly, and ASM's visitor) and compares the two readings whole: header, fields and
 * accesses, and each method's stores, loads, store owners and array use. Exits 1 with the first
 * difference; says how many classes it compared and how many the direct reading left to ASM
 * (those naming JUnit's {@code @Test}).
 *
 * <p>usage: {@code java -cp paf-rt.jar:paf-instr.jar:ASM:JARS:DIR paf.instr.IndexCheck WORKDIR}
 */
public final class IndexCheck {
    private IndexCheck() {}

    public static void main(String[] args) throws Exception {
        int compared = 0, declined = 0, jars = 0;
        for (String e : System.getProperty("java.class.path").split(File.pathSeparator)) {
            if (!e.endsWith(".jar") || !new File(e).isFile()) continue;
            jars++;
            try (JarFile j = new JarFile(e)) {
                for (Enumeration<JarEntry> it = j.entries(); it.hasMoreElements();) {
                    JarEntry z = it.nextElement();
                    if (!z.getName().endsWith(".class") || z.getName().startsWith("META-INF/")) continue;
                    byte[] bytes;
                    try (InputStream in = j.getInputStream(z)) {
                        bytes = in.readAllBytes();
                    }
                    ClassReader cr = new ClassReader(bytes);
                    IndexScan raw = IndexScan.raw(cr);
                    if (raw == null) {
                        declined++;
                        continue;
                    }
                    String want = IndexScan.asm(cr).toString(), got = raw.toString();
                    if (!got.equals(want)) {
                        System.err.println("FAIL: IndexCheck: " + e + "!" + z.getName() + " read from its bytes:\n" + got
                                + "\nby ASM's visitor:\n" + want);
                        System.exit(1);
                    }
                    compared++;
                }
            }
        }
        if (compared == 0) {
            System.err.println("FAIL: IndexCheck: no class compared (no jar on the class path)");
            System.exit(1);
        }
        System.out.println("ok: IndexCheck (" + compared + " classes of " + jars + " jars read the same both ways, "
                + declined + " left to ASM)");
    }
}
