package paf.rt;

import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.ByteArrayOutputStream;
import java.io.File;
import java.io.FileInputStream;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;

/**
 * The event cap without losing the crash (docs/java.md, "Class initializers and the event cap").
 * When a test has written as many events as the cap allows, its events so far are rewritten
 * keeping only:
 *
 * <ul>
 *   <li>every definition that still reaches a variable that can be read later (locals of active
 *       frames, fields, array elements, statics, recent return values), and the copy chain behind
 *       each (the backward analysis of a failure that happens later starts from these);
 *   <li>for every def-use association the test exercised, its first use and the definition it
 *       reached (so the test's def-use coverage, what theta is scored against, is unchanged);
 *   <li>the frames these belong to, with their callers (enter and exit records), every call of
 *       the test body (the method under test is one of them), the last branch of each active
 *       frame, and the last events.
 * </ul>
 *
 * The order of the kept events is unchanged and every kept read still sees the same definition,
 * so the analysis of the compacted stream equals the analysis of the full one for everything
 * paf computes from it. The rewrite works on the file, with memory proportional to the events
 * of the test so far.
 */
final class Compactor {
    private Compactor() {}

    private static final int ENTER = 1, EXIT = 2, DEF = 3, USE = 4, BRANCH = 5, ALLOC = 6, OTHER = 7;
    private static final int TAIL = 64;

    /** Per frame: its enter and exit events, its last branch, whether the test body called it. */
    private static final class FrameInfo {
        int enter = -1, exit = -1, lastBranch = -1;
        boolean top;
        String method;
    }

    /**
     * Compacts the events from {@code start} (the test's first event line) to the end of the file
     * of {@code out} (flushed). Returns the number of events kept, or -1 when more than
     * {@code limit} would be kept (the file is then unchanged).
     */
    static long compact(Out out, long start, long limit) throws IOException {
        File file = out.file();
        long end = out.position();
        Graph g = new Graph();
        try (InputStream in = region(file, start, end)) {
            Lines lines = new Lines(in);
            byte[] line;
            while ((line = lines.next()) != null) g.add(new String(line, StandardCharsets.UTF_8));
        }
        boolean[] keep = g.keep();
        long kept = 0;
        for (boolean k : keep) if (k) kept++;
        if (kept > limit) return -1;
        File tmp = new File(file.getPath() + ".compact");
        try (InputStream in = region(file, start, end);
                OutputStream o = new BufferedOutputStream(new FileOutputStream(tmp), 1 << 16)) {
            Lines lines = new Lines(in);
            byte[] line;
            for (int i = 0; (line = lines.next()) != null; i++) {
                if (!keep[i]) continue;
                o.write(line);
                o.write('\n');
            }
        }
        out.truncate(start);
        try (InputStream in = new BufferedInputStream(new FileInputStream(tmp), 1 << 16)) {
            byte[] b = new byte[1 << 16];
            int n;
            while ((n = in.read(b)) > 0) out.appendRaw(b, 0, n);
        }
        tmp.delete();
        return kept;
    }

    private static InputStream region(File f, long start, long end) throws IOException {
        FileInputStream in = new FileInputStream(f);
        long skipped = 0;
        while (skipped < start) {
            long s = in.skip(start - skipped);
            if (s <= 0) break;
            skipped += s;
        }
        return new BufferedInputStream(new Bounded(in, end - start), 1 << 16);
    }

    /** At most n bytes of a stream. */
    private static final class Bounded extends InputStream {
        private final InputStream in;
        private long left;

        Bounded(InputStream in, long n) {
            this.in = in;
            this.left = n;
        }

        @Override
        public int read() throws IOException {
            if (left <= 0) return -1;
            int c = in.read();
            if (c >= 0) left--;
            return c;
        }

        @Override
        public int read(byte[] b, int off, int len) throws IOException {
            if (left <= 0) return -1;
            int n = in.read(b, off, (int) Math.min(len, left));
            if (n > 0) left -= n;
            return n;
        }

        @Override
        public void close() throws IOException {
            in.close();
        }
    }

    /** The lines of a stream, without their line ends. */
    private static final class Lines {
        private final InputStream in;
        private final ByteArrayOutputStream cur = new ByteArrayOutputStream(256);

        Lines(InputStream in) {
            this.in = in;
        }

        byte[] next() throws IOException {
            cur.reset();
            int c;
            while ((c = in.read()) >= 0 && c != '\n') cur.write(c);
            if (c < 0 && cur.size() == 0) return null;
            return cur.toByteArray();
        }
    }

    /** The events of the test and what each depends on. */
    private static final class Graph {
        final List<int[]> deps = new ArrayList<>();
        final List<Integer> kinds = new ArrayList<>(), frameOf = new ArrayList<>();
        final Map<Integer, FrameInfo> frames = new HashMap<>();
        final Map<String, Integer> reaching = new HashMap<>();
        final HashSet<String> duas = new HashSet<>();
        final List<Integer> stmts = new ArrayList<>();
        final HashSet<Integer> roots = new HashSet<>();

        void add(String line) {
            int i = kinds.size();
            Map<String, Object> e = Json.object(line);
            String k = (String) e.get("k");
            int kind = k == null ? OTHER : k.equals("enter") ? ENTER : k.equals("exit") ? EXIT : k.equals("def") ? DEF
                    : k.equals("use") ? USE : k.equals("branch") ? BRANCH : k.equals("alloc") ? ALLOC : OTHER;
            int frame = num(e.get("frame"));
            int stmt = num(e.get("stmt"));
            kinds.add(kind);
            frameOf.add(frame);
            stmts.add(stmt);
            IntList d = new IntList();
            FrameInfo fi = frames.get(frame);
            if (fi != null && kind != ENTER) d.add(fi.enter);
            switch (kind) {
                case ENTER: {
                    FrameInfo n = new FrameInfo();
                    n.enter = i;
                    n.method = (String) e.get("method");
                    Object caller = e.get("caller");
                    n.top = caller == null;
                    FrameInfo c = caller == null ? null : frames.get(num(caller));
                    if (c != null) d.add(c.enter);
                    frames.put(frame, n);
                    break;
                }
                case EXIT:
                    if (fi != null) fi.exit = i;
                    break;
                case DEF: {
                    Object from = e.get("from");
                    if (from != null) read(i, frame, stmt, from, d);
                    reaching.put(key(e.get("var"), frame), i);
                    break;
                }
                case USE:
                    read(i, frame, stmt, e.get("var"), d);
                    break;
                case BRANCH: {
                    Object uses = e.get("uses");
                    if (uses instanceof List) for (Object u : (List<?>) uses) read(i, frame, stmt, u, d);
                    if (fi != null) fi.lastBranch = i;
                    break;
                }
                case ALLOC: {
                    long obj = lnum(e.get("obj"));
                    Object fields = e.get("fields");
                    if (fields instanceof List)
                        for (Object f : (List<?>) fields)
                            if (f instanceof Map) reaching.put("F" + obj + "|" + ((Map<?, ?>) f).get("field"), i);
                    if (e.get("length") != null) reaching.put("A" + obj, i);
                    break;
                }
                default:
                    roots.add(i); // a record this compactor does not know: kept
                    break;
            }
            deps.add(d.toArray());
        }

        /** A read of variable v by event i: its reaching definition is a dependency, a new DUA a root. */
        private void read(int i, int frame, int stmt, Object v, IntList d) {
            if (!(v instanceof Map)) return;
            Map<?, ?> m = (Map<?, ?>) v;
            Object f = m.get("frame");
            if (f != null) {
                FrameInfo o = frames.get(num(f));
                if (o != null) d.add(o.enter);
            }
            Object ret = m.get("ret");
            if (ret != null) {
                FrameInfo o = frames.get(num(ret));
                if (o != null) d.add(o.enter);
            }
            Integer r = reaching.get(key(m, frame));
            if (r == null && m.get("elem") != null) r = reaching.get("A" + lnum(m.get("elem")));
            if (r == null) return;
            d.add(r);
            if (duas.add(stmts.get(r) + "|" + stmt + "|" + name(m))) roots.add(i);
        }

        private String key(Object v, int frame) {
            if (!(v instanceof Map)) return "?";
            Map<?, ?> m = (Map<?, ?>) v;
            if (m.get("local") != null) {
                Object f = m.get("frame");
                return "L" + (f != null ? num(f) : frame) + "|" + m.get("local");
            }
            if (m.get("field") != null) return "F" + lnum(m.get("obj")) + "|" + m.get("field");
            if (m.get("static") != null) return "S" + m.get("static");
            if (m.get("elem") != null) return "E" + lnum(m.get("elem")) + "|" + lnum(m.get("index"));
            if (m.get("ret") != null) return "R" + num(m.get("ret"));
            return "?";
        }

        /** The variable name of a DUA (docs/trace-format.md, "Variable names"). */
        private String name(Map<?, ?> m) {
            if (m.get("local") != null) return (String) m.get("local");
            if (m.get("field") != null) return (String) m.get("field");
            if (m.get("static") != null) return (String) m.get("static");
            if (m.get("elem") != null) return (m.get("name") == null ? "" : m.get("name")) + "[]";
            FrameInfo f = frames.get(num(m.get("ret")));
            return (f == null ? "?" : f.method) + "()";
        }

        boolean[] keep() {
            int n = kinds.size();
            for (FrameInfo f : frames.values()) {
                if (f.top) {
                    roots.add(f.enter);
                    if (f.exit >= 0) roots.add(f.exit);
                }
                if (f.exit < 0) {
                    roots.add(f.enter);
                    if (f.lastBranch >= 0) roots.add(f.lastBranch);
                }
            }
            for (Map.Entry<String, Integer> r : reaching.entrySet()) {
                String k = r.getKey();
                if (k.startsWith("L")) {
                    FrameInfo f = frames.get(Integer.parseInt(k.substring(1, k.indexOf('|'))));
                    if (f == null || f.exit < 0) roots.add(r.getValue());
                } else if (k.startsWith("R")) {
                    FrameInfo f = frames.get(Integer.parseInt(k.substring(1)));
                    if (f == null || f.exit < 0 || f.exit >= n - TAIL) roots.add(r.getValue());
                } else roots.add(r.getValue());
            }
            for (int i = Math.max(0, n - TAIL); i < n; i++) roots.add(i);
            boolean[] keep = new boolean[n];
            ArrayDeque<Integer> work = new ArrayDeque<>(roots);
            while (!work.isEmpty()) {
                int i = work.pop();
                if (i < 0 || i >= n || keep[i]) continue;
                keep[i] = true;
                for (int d : deps.get(i)) if (d >= 0 && !keep[d]) work.push(d);
                int kind = kinds.get(i);
                if (kind == ENTER || kind == EXIT) {
                    // a frame is kept whole: its enter and its exit
                    FrameInfo f = frames.get(frameOf.get(i));
                    if (f != null) {
                        if (f.enter >= 0 && !keep[f.enter]) work.push(f.enter);
                        if (f.exit >= 0 && !keep[f.exit]) work.push(f.exit);
                    }
                }
            }
            return keep;
        }
    }

    private static int num(Object o) {
        return o instanceof Long ? (int) (long) (Long) o : -1;
    }

    private static long lnum(Object o) {
        return o instanceof Long ? (Long) o : -1;
    }

    private static final class IntList {
        int[] a = new int[4];
        int n;

        void add(int v) {
            if (v < 0) return;
            if (n == a.length) a = java.util.Arrays.copyOf(a, n * 2);
            a[n++] = v;
        }

        int[] toArray() {
            return java.util.Arrays.copyOf(a, n);
        }
    }

    /** A small JSON reader for the agent's own records (objects, arrays, strings, integers, literals). */
    static final class Json {
        private final String s;
        private int i;

        private Json(String s) {
            this.s = s;
        }

        @SuppressWarnings("unchecked")
        static Map<String, Object> object(String line) {
            Object v = new Json(line).value();
            return v instanceof Map ? (Map<String, Object>) v : new HashMap<>();
        }

        private void ws() {
            while (i < s.length() && s.charAt(i) <= ' ') i++;
        }

        private Object value() {
            ws();
            if (i >= s.length()) return null;
            char c = s.charAt(i);
            if (c == '{') {
                i++;
                Map<String, Object> m = new HashMap<>();
                ws();
                if (i < s.length() && s.charAt(i) == '}') {
                    i++;
                    return m;
                }
                while (i < s.length()) {
                    ws();
                    String k = string();
                    ws();
                    i++; // ':'
                    m.put(k, value());
                    ws();
                    if (i < s.length() && s.charAt(i++) == '}') break;
                }
                return m;
            }
            if (c == '[') {
                i++;
                List<Object> l = new ArrayList<>();
                ws();
                if (i < s.length() && s.charAt(i) == ']') {
                    i++;
                    return l;
                }
                while (i < s.length()) {
                    l.add(value());
                    ws();
                    if (i < s.length() && s.charAt(i++) == ']') break;
                }
                return l;
            }
            if (c == '"') return string();
            int st = i;
            while (i < s.length() && ",}] ".indexOf(s.charAt(i)) < 0) i++;
            String t = s.substring(st, i);
            if (t.equals("null")) return null;
            if (t.equals("true")) return Boolean.TRUE;
            if (t.equals("false")) return Boolean.FALSE;
            try {
                return Long.parseLong(t);
            } catch (NumberFormatException e) {
                return t; // a float (entry values): not needed here
            }
        }

        private String string() {
            StringBuilder b = new StringBuilder();
            i++; // '"'
            while (i < s.length()) {
                char c = s.charAt(i++);
                if (c == '"') break;
                if (c != '\\') {
                    b.append(c);
                    continue;
                }
                char e = s.charAt(i++);
                switch (e) {
                    case 'n': b.append('\n'); break;
                    case 'r': b.append('\r'); break;
                    case 't': b.append('\t'); break;
                    case 'b': b.append('\b'); break;
                    case 'f': b.append('\f'); break;
                    case 'u': b.append((char) Integer.parseInt(s.substring(i, i + 4), 16)); i += 4; break;
                    default: b.append(e);
                }
            }
            return b.toString();
        }
    }
}
