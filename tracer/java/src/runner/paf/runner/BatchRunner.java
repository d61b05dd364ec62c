package paf.runner;

import java.io.File;
import java.io.FileOutputStream;
import java.io.InputStream;
import java.io.OutputStreamWriter;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Properties;
import java.util.TimeZone;

/**
 * The batch runner of the order-dependence filter ({@code paf od detect --batch N}): runs many
 * schedules in this one JVM, each in a fresh class loader over the classpath of the code under
 * test and the tests, so that each schedule starts with its own static state (VMVM's unit-test
 * virtualization, by class loader). JUnit and this runner live in the parent loader and are
 * shared. What a class loader cannot isolate is put back after every schedule where the JDK
 * allows: the system properties, the default locale and time zone, System.out/err/in, the
 * context class loader and the default uncaught-exception handler. Files, sockets, threads a
 * test left running and other JDK-wide state (security providers, URL handlers, JDBC drivers,
 * loaded native libraries) are not isolated: paf confirms every dependency in fresh JVMs.
 *
 * <p>Usage: BatchRunner --classpath CP --batch SCHEDULES -o OUT.jsonl; SCHEDULES holds the
 * schedules one test id per line, separated by blank lines; OUT gets one JSON object per test
 * with the schedule's number (0-based): {"schedule": k, "test": id, "outcome", ...}.
 */
public final class BatchRunner {
    public static void main(String[] args) throws Exception {
        String cp = null, in = null, out = null;
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--classpath": cp = args[++i]; break;
                case "--batch": in = args[++i]; break;
                case "-o": out = args[++i]; break;
                default: in = args[i];
            }
        }
        if (cp == null || in == null || out == null) {
            System.err.println("usage: BatchRunner --classpath CP --batch SCHEDULES -o OUT.jsonl");
            System.exit(2);
        }
        List<List<String>> schedules = new ArrayList<>();
        List<String> current = new ArrayList<>();
        for (String l : Files.readAllLines(Paths.get(in), StandardCharsets.UTF_8)) {
            l = l.trim();
            if (l.isEmpty()) {
                if (!current.isEmpty()) schedules.add(current);
                current = new ArrayList<>();
            } else if (!l.startsWith("#")) {
                current.add(l);
            }
        }
        if (!current.isEmpty()) schedules.add(current);
        List<URL> urls = new ArrayList<>();
        for (String p : cp.split(File.pathSeparator)) if (!p.isEmpty()) urls.add(new File(p).toURI().toURL());
        URL[] path = urls.toArray(new URL[0]);
        ClassLoader parent = BatchRunner.class.getClassLoader();
        PrintStream stdout = System.out;
        System.setOut(System.err);
        try (PrintWriter w = new PrintWriter(new OutputStreamWriter(new FileOutputStream(out), StandardCharsets.UTF_8))) {
            for (int k = 0; k < schedules.size(); k++) {
                JdkState saved = JdkState.save();
                try (URLClassLoader loader = new URLClassLoader(path, parent)) {
                    Thread.currentThread().setContextClassLoader(loader);
                    for (String id : schedules.get(k)) {
                        w.println(OrderRunner.runOne(id, loader, k));
                        w.flush();
                    }
                } finally {
                    saved.restore();
                }
            }
        }
        stdout.flush();
        System.exit(0);
    }

    /** The JDK-wide state a test can change that one class loader per schedule does not isolate. */
    static final class JdkState {
        final Properties properties = new Properties();
        final Locale locale = Locale.getDefault();
        final Locale display = Locale.getDefault(Locale.Category.DISPLAY);
        final Locale format = Locale.getDefault(Locale.Category.FORMAT);
        final TimeZone zone = TimeZone.getDefault();
        final PrintStream out = System.out, err = System.err;
        final InputStream sin = System.in;
        final ClassLoader context = Thread.currentThread().getContextClassLoader();
        final Thread.UncaughtExceptionHandler handler = Thread.getDefaultUncaughtExceptionHandler();

        static JdkState save() {
            JdkState s = new JdkState();
            s.properties.putAll(System.getProperties());
            return s;
        }

        void restore() {
            Properties now = new Properties();
            now.putAll(properties);
            System.setProperties(now);
            Locale.setDefault(locale);
            Locale.setDefault(Locale.Category.DISPLAY, display);
            Locale.setDefault(Locale.Category.FORMAT, format);
            TimeZone.setDefault(zone);
            System.setOut(out);
            System.setErr(err);
            System.setIn(sin);
            Thread.currentThread().setContextClassLoader(context);
            Thread.setDefaultUncaughtExceptionHandler(handler);
        }
    }
}
