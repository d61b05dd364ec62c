//! Loads and initializes every class of the given jars (tracer/java/load-check.sh runs it under the agent, with -Xverify:all).
package loadcheck;

import java.io.File;
import java.util.Enumeration;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;

/**
 * Every class of every jar named on the command line, in the jar's order, is loaded and
 * initialized ({@code Class.forName(name, true, loader)}). A {@link VerifyError} or
 * {@link ClassFormatError} is a class the instrumenter broke: each is printed as a line
 * {@code BAD class: error}. Any other failure (a class that needs a dependency the class path
 * lacks, an initializer that throws) is the library's and only counted. The last line is
 * {@code loaded N, verify errors N, other failures N}; the exit code is 1 if any class was BAD.
 *
 * <p>usage: {@code java [agent] -Xverify:all -cp DIR:JARS loadcheck.LoadAll JAR[:JAR...]}
 */
public final class LoadAll {
    private LoadAll() {}

    public static void main(String[] args) throws Exception {
        int loaded = 0, bad = 0, other = 0;
        ClassLoader loader = LoadAll.class.getClassLoader();
        for (String jar : args[0].split(File.pathSeparator)) {
            try (JarFile j = new JarFile(jar)) {
                for (Enumeration<JarEntry> e = j.entries(); e.hasMoreElements();) {
                    String n = e.nextElement().getName();
                    if (!n.endsWith(".class") || n.startsWith("META-INF/") || n.endsWith("module-info.class")
                            || n.endsWith("package-info.class"))
                        continue;
                    String name = n.substring(0, n.length() - ".class".length()).replace('/', '.');
                    try {
                        Class.forName(name, true, loader);
                        loaded++;
                    } catch (VerifyError | ClassFormatError v) {
                        bad++;
                        System.out.println("BAD " + name + ": " + v);
                    } catch (Throwable t) {
                        other++;
                    }
                }
            }
        }
        System.out.println("loaded " + loaded + ", verify errors " + bad + ", other failures " + other);
        System.exit(bad > 0 ? 1 : 0);
    }
}
