import java.io.File;
import java.io.IOException;
import java.lang.reflect.InvocationTargetException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;

import org.shelf.Catalog;
import org.shelf.Channel;
import org.shelf.Grid;
import org.shelf.Parser;
import org.shelf.Report;
import org.shelf.RingLog;

/**
 * A small Randoop-like generator for the org.shelf library: builds random call sequences,
 * executing each call as it is added (so outcomes are real, as in Randoop's feedback-directed
 * generation). A sequence whose last call throws becomes an error test (ErrorTest*, failing, with
 * Randoop's "during test generation this statement threw" comment); a sequence that completes
 * becomes a regression test (RegressionTest*, passing, with assertions on the values it saw).
 *
 * Usage: java -cp LIBRARY_CLASSES:. Generate OUTDIR TRUTH_CSV [SEED]
 * Writes OUTDIR/ErrorTest*.java, OUTDIR/RegressionTest*.java and the ground truth: the failing
 * tests that reveal a real fault (F1: NPE in Catalog.priceOf; F2: AIOOBE in RingLog.get).
 */
public final class Generate {
    interface Exec {
        Object run(Object recv, Object[] args) throws Throwable;
    }

    static final class Op {
        final String recv; // receiver type (simple name), null for constructors and static methods
        final String[] params; // "String" or "int"
        final String result; // simple type, "int", "String" or null (void)
        final String code; // Java text with {r} and {0}, {1}...
        final Exec exec;
        final int weight;

        Op(String recv, String[] params, String result, String code, int weight, Exec exec) {
            this.recv = recv;
            this.params = params;
            this.result = result;
            this.code = code;
            this.weight = weight;
            this.exec = exec;
        }
    }

    static final class Var {
        final String type, name;
        final Object value;

        Var(String type, String name, Object value) {
            this.type = type;
            this.name = name;
            this.value = value;
        }
    }

    static final String[] STRINGS = {"pen", "Pen", "box", "Box", "hi!", "", " 12 ", "a,b,c", "{}:row", "x{}", "7", "Lamp", null};
    static final int[] INTS = {-1, 0, 1, 2, 3, 5, 10, 100};

    static final List<Op> OPS = new ArrayList<>();

    static {
        String[] none = {}, s = {"String"}, i = {"int"}, si = {"String", "int"}, ii = {"int", "int"}, iii = {"int", "int", "int"};
        OPS.add(new Op(null, none, "Catalog", "new org.shelf.Catalog()", 3, (r, a) -> new Catalog()));
        OPS.add(new Op("Catalog", si, null, "{r}.add({0}, {1})", 6, (r, a) -> { ((Catalog) r).add((String) a[0], (Integer) a[1]); return null; }));
        OPS.add(new Op("Catalog", s, "int", "{r}.priceOf({0})", 4, (r, a) -> ((Catalog) r).priceOf((String) a[0])));
        OPS.add(new Op("Catalog", s, "boolean", "{r}.contains({0})", 2, (r, a) -> ((Catalog) r).contains((String) a[0])));
        OPS.add(new Op("Catalog", none, "int", "{r}.size()", 1, (r, a) -> ((Catalog) r).size()));
        OPS.add(new Op("Catalog", none, "int", "{r}.total()", 1, (r, a) -> ((Catalog) r).total()));
        OPS.add(new Op(null, i, "RingLog", "new org.shelf.RingLog({0})", 3, (r, a) -> new RingLog((Integer) a[0])));
        OPS.add(new Op("RingLog", s, null, "{r}.append({0})", 7, (r, a) -> { ((RingLog) r).append((String) a[0]); return null; }));
        OPS.add(new Op("RingLog", i, "String", "{r}.get({0})", 4, (r, a) -> ((RingLog) r).get((Integer) a[0])));
        OPS.add(new Op("RingLog", none, "int", "{r}.size()", 1, (r, a) -> ((RingLog) r).size()));
        OPS.add(new Op(null, none, "Report", "new org.shelf.Report()", 3, (r, a) -> new Report()));
        OPS.add(new Op("Report", s, null, "{r}.setTemplate({0})", 3, (r, a) -> { ((Report) r).setTemplate((String) a[0]); return null; }));
        OPS.add(new Op("Report", s, null, "{r}.addLine({0})", 4, (r, a) -> { ((Report) r).addLine((String) a[0]); return null; }));
        OPS.add(new Op("Report", none, "String", "{r}.render()", 3, (r, a) -> ((Report) r).render()));
        OPS.add(new Op("Report", none, "int", "{r}.headerLength()", 2, (r, a) -> ((Report) r).headerLength()));
        OPS.add(new Op("Report", none, "int", "{r}.lineCount()", 1, (r, a) -> ((Report) r).lineCount()));
        OPS.add(new Op(null, none, "Channel", "new org.shelf.Channel()", 3, (r, a) -> new Channel()));
        OPS.add(new Op("Channel", none, null, "{r}.open()", 3, (r, a) -> { ((Channel) r).open(); return null; }));
        OPS.add(new Op("Channel", s, null, "{r}.send({0})", 4, (r, a) -> { ((Channel) r).send((String) a[0]); return null; }));
        OPS.add(new Op("Channel", none, "int", "{r}.pending()", 2, (r, a) -> ((Channel) r).pending()));
        OPS.add(new Op("Channel", none, null, "{r}.close()", 2, (r, a) -> { ((Channel) r).close(); return null; }));
        OPS.add(new Op("Channel", none, "boolean", "{r}.isOpen()", 1, (r, a) -> ((Channel) r).isOpen()));
        OPS.add(new Op(null, s, "int", "org.shelf.Parser.parseInt({0})", 2, (r, a) -> Parser.parseInt((String) a[0])));
        OPS.add(new Op(null, none, "Parser", "new org.shelf.Parser()", 2, (r, a) -> new Parser()));
        OPS.add(new Op("Parser", s, "int", "{r}.count({0})", 2, (r, a) -> ((Parser) r).count((String) a[0])));
        OPS.add(new Op(null, ii, "Grid", "new org.shelf.Grid({0}, {1})", 3, (r, a) -> new Grid((Integer) a[0], (Integer) a[1])));
        OPS.add(new Op("Grid", ii, "int", "{r}.get({0}, {1})", 3, (r, a) -> ((Grid) r).get((Integer) a[0], (Integer) a[1])));
        OPS.add(new Op("Grid", iii, null, "{r}.set({0}, {1}, {2})", 3, (r, a) -> { ((Grid) r).set((Integer) a[0], (Integer) a[1], (Integer) a[2]); return null; }));
        OPS.add(new Op("Grid", i, "int", "{r}.rowSum({0})", 2, (r, a) -> ((Grid) r).rowSum((Integer) a[0])));
    }

    /** How many failing tests of each kind (exception @ innermost org.shelf frame) to keep. */
    static final Map<String, Integer> QUOTA = new LinkedHashMap<>();

    static {
        QUOTA.put("java.lang.NullPointerException@org.shelf.Catalog.priceOf", 12);
        QUOTA.put("java.lang.ArrayIndexOutOfBoundsException@org.shelf.RingLog.get", 10);
        QUOTA.put("java.lang.NullPointerException@org.shelf.Report.render", 8);
        QUOTA.put("java.lang.NullPointerException@org.shelf.Report.headerLength", 6);
        QUOTA.put("java.lang.NullPointerException@org.shelf.Channel.send", 8);
        QUOTA.put("java.lang.NullPointerException@org.shelf.Channel.pending", 6);
        QUOTA.put("java.lang.IllegalStateException@org.shelf.Channel.close", 6);
        QUOTA.put("java.lang.NullPointerException@org.shelf.Parser.parseInt", 4);
        QUOTA.put("java.lang.NullPointerException@org.shelf.Parser.count", 3);
        QUOTA.put("java.lang.ArrayIndexOutOfBoundsException@org.shelf.Grid.get", 6);
        QUOTA.put("java.lang.ArrayIndexOutOfBoundsException@org.shelf.Grid.set", 4);
        QUOTA.put("java.lang.ArrayIndexOutOfBoundsException@org.shelf.Grid.rowSum", 3);
        QUOTA.put("java.lang.IllegalArgumentException@org.shelf.RingLog.<init>", 4);
        QUOTA.put("java.lang.IllegalArgumentException@org.shelf.RingLog.get", 5);
        QUOTA.put("java.lang.IllegalArgumentException@org.shelf.Catalog.add", 3);
        QUOTA.put("java.lang.IllegalArgumentException@org.shelf.Grid.<init>", 3);
    }

    static final int DEFAULT_QUOTA = 3, PASSING = 160, PER_CLASS = 50;

    static final class Test {
        final List<String> lines = new ArrayList<>();
        String kind; // null: passing
    }

    public static void main(String[] args) throws IOException {
        File out = new File(args[0]);
        File truth = new File(args[1]);
        long seed = args.length > 2 ? Long.parseLong(args[2]) : 20240601L;
        Random rnd = new Random(seed);
        Map<String, Integer> have = new LinkedHashMap<>();
        List<Test> fails = new ArrayList<>(), passes = new ArrayList<>();
        java.util.Set<String> seen = new java.util.HashSet<>();
        for (int attempt = 0; attempt < 400_000 && (passes.size() < PASSING || !full(have)); attempt++) {
            Test t = sequence(rnd);
            if (t == null || !seen.add(String.join("\n", t.lines))) continue;
            if (t.kind == null) {
                if (passes.size() < PASSING) passes.add(t);
            } else {
                int q = QUOTA.getOrDefault(t.kind, DEFAULT_QUOTA);
                if (have.getOrDefault(t.kind, 0) < q) {
                    have.merge(t.kind, 1, Integer::sum);
                    fails.add(t);
                }
            }
        }
        out.mkdirs();
        for (File f : out.listFiles()) if (f.getName().matches("(Error|Regression)Test\\d+\\.java")) f.delete();
        StringBuilder csv = new StringBuilder("test,fault\n");
        write(out, "ErrorTest", fails, csv);
        write(out, "RegressionTest", passes, null);
        Files.write(truth.toPath(), csv.toString().getBytes(StandardCharsets.UTF_8));
        System.err.println("Generate: " + fails.size() + " failing, " + passes.size() + " passing tests; failing kinds " + have);
    }

    static boolean full(Map<String, Integer> have) {
        for (Map.Entry<String, Integer> e : QUOTA.entrySet()) if (have.getOrDefault(e.getKey(), 0) < e.getValue()) return false;
        return true;
    }

    static String fault(String kind) {
        if (kind.equals("java.lang.NullPointerException@org.shelf.Catalog.priceOf")) return "F1";
        if (kind.equals("java.lang.ArrayIndexOutOfBoundsException@org.shelf.RingLog.get")) return "F2";
        return null;
    }

    static void write(File dir, String prefix, List<Test> tests, StringBuilder csv) throws IOException {
        for (int c = 0; c * PER_CLASS < tests.size(); c++) {
            String cls = prefix + c;
            StringBuilder b = new StringBuilder();
            b.append("import org.junit.FixMethodOrder;\nimport org.junit.Test;\nimport org.junit.runners.MethodSorters;\n\n");
            b.append("// Generated by testdata/java/library/gen/Generate.java (Randoop style); do not edit.\n");
            b.append("@FixMethodOrder(MethodSorters.NAME_ASCENDING)\npublic class ").append(cls).append(" {\n\n");
            b.append("    public static boolean debug = false;\n");
            for (int k = c * PER_CLASS; k < Math.min(tests.size(), (c + 1) * PER_CLASS); k++) {
                String m = String.format("test%03d", k - c * PER_CLASS + 1);
                Test t = tests.get(k);
                b.append("\n    @Test\n    public void ").append(m).append("() throws Throwable {\n");
                b.append("        if (debug)\n            System.out.format(\"%n%s%n\", \"").append(cls).append('.').append(m).append("\");\n");
                for (String l : t.lines) b.append("        ").append(l).append('\n');
                b.append("    }\n");
                if (csv != null && fault(t.kind) != null) csv.append(cls).append('.').append(m).append(',').append(fault(t.kind)).append('\n');
            }
            b.append("}\n");
            Files.write(new File(dir, cls + ".java").toPath(), b.toString().getBytes(StandardCharsets.UTF_8));
        }
    }

    static String lit(String s) {
        return s == null ? "null" : "\"" + s.replace("\\", "\\\\").replace("\"", "\\\"").replace("\n", "\\n") + "\"";
    }

    static String varName(String type, int n) {
        switch (type) {
            case "int": return "int" + n;
            case "boolean": return "boolean" + n;
            case "String": return "str" + n;
            default: return Character.toLowerCase(type.charAt(0)) + type.substring(1) + n;
        }
    }

    static String javaType(String type) {
        switch (type) {
            case "int": case "boolean": return type;
            case "String": return "java.lang.String";
            default: return "org.shelf." + type;
        }
    }

    /** One random sequence, executed as it is built. */
    static Test sequence(Random rnd) {
        Test t = new Test();
        List<Var> vars = new ArrayList<>();
        List<String> asserts = new ArrayList<>();
        int steps = 3 + rnd.nextInt(16);
        int n = 0;
        for (int s = 0; s < steps; s++) {
            List<Op> ok = new ArrayList<>();
            int total = 0;
            for (Op op : OPS) {
                if (op.recv != null && vars.stream().noneMatch(v -> v.type.equals(op.recv))) continue;
                ok.add(op);
                total += op.weight;
            }
            int pick = rnd.nextInt(total);
            Op op = null;
            for (Op o : ok) {
                pick -= o.weight;
                if (pick < 0) {
                    op = o;
                    break;
                }
            }
            Var recv = null;
            if (op.recv != null) {
                List<Var> rs = new ArrayList<>();
                for (Var v : vars) if (v.type.equals(op.recv)) rs.add(v);
                recv = rs.get(rnd.nextInt(rs.size()));
            }
            Object[] a = new Object[op.params.length];
            String[] text = new String[op.params.length];
            for (int k = 0; k < a.length; k++) {
                List<Var> pool = new ArrayList<>();
                for (Var v : vars) if (v.type.equals(op.params[k])) pool.add(v);
                if (!pool.isEmpty() && rnd.nextInt(3) == 0) {
                    Var v = pool.get(rnd.nextInt(pool.size()));
                    a[k] = v.value;
                    text[k] = v.name;
                } else if (op.params[k].equals("String")) {
                    String x = STRINGS[rnd.nextInt(STRINGS.length)];
                    a[k] = x;
                    text[k] = lit(x);
                } else {
                    int x = INTS[rnd.nextInt(INTS.length)];
                    a[k] = x;
                    text[k] = x < 0 ? "(" + x + ")" : Integer.toString(x);
                }
            }
            String code = op.code.replace("{r}", recv == null ? "" : recv.name);
            for (int k = 0; k < a.length; k++) code = code.replace("{" + k + "}", text[k]);
            Object result;
            try {
                result = op.exec.run(recv == null ? null : recv.value, a);
            } catch (Throwable e) {
                if (e instanceof InvocationTargetException) e = e.getCause();
                String where = "?";
                for (StackTraceElement f : e.getStackTrace())
                    if (f.getClassName().startsWith("org.shelf.")) {
                        where = f.getClassName() + "." + f.getMethodName();
                        break;
                    }
                t.kind = e.getClass().getName() + "@" + where;
                t.lines.add("// during test generation this statement threw an exception of type " + e.getClass().getName() + " in error");
                String stmt = op.result == null ? code + ";" : javaType(op.result) + " " + varName(op.result, n) + " = " + code + ";";
                t.lines.add(stmt);
                return t;
            }
            if (op.result == null) {
                t.lines.add(code + ";");
            } else {
                String name = varName(op.result, n);
                t.lines.add(javaType(op.result) + " " + name + " = " + code + ";");
                vars.add(new Var(op.result, name, result));
                if (op.result.equals("int"))
                    asserts.add("org.junit.Assert.assertTrue(\"'\" + " + name + " + \"' != '\" + " + result + " + \"'\", " + name + " == " + result + ");");
                else if (op.result.equals("boolean"))
                    asserts.add("org.junit.Assert.assertTrue(\"'\" + " + name + " + \"' != '\" + " + result + " + \"'\", " + name + " == " + result + ");");
                else if (op.result.equals("String"))
                    asserts.add(result == null ? "org.junit.Assert.assertNull(" + name + ");"
                            : "org.junit.Assert.assertEquals(\"'\" + " + name + " + \"' != '\" + " + lit((String) result) + " + \"'\", " + name + ", " + lit((String) result) + ");");
            }
            n++;
        }
        t.lines.addAll(asserts);
        return t;
    }
}
