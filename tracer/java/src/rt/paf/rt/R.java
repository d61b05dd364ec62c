package paf.rt;

import java.io.BufferedReader;
import java.io.BufferedWriter;
import java.io.File;
import java.io.FileInputStream;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;

/**
 * The runtime of the paf agent: instrumented code calls these static methods, which write trace
 * format v1 events (docs/trace-format.md) for the test that is running.
 *
 * <p>This class is on the bootstrap class path (Boot-Class-Path of paf-agent.jar), so code in any
 * class loader can call it. All event writing is serialized on one lock; a test's events are the
 * lines between its {@code begin} and {@code end}. Events outside a test (JUnit discovery,
 * {@code @BeforeClass}) are dropped.
 */
public final class R {
    private R() {}

    // ---- variable kinds and codes shared with the instrumenter ----
    public static final int K_NONE = 0, K_LOCAL = 1, K_FIELD = 2, K_STATIC = 3, K_ELEM = 4, K_RET = 5,
            K_TEMP = 6;
    public static final int H_OTHER = 0, H_CONST = 1, H_NEW = 2, H_ARITH = 3, H_CALL = 4, H_PARAM = 5;
    private static final String[] HOW = {"other", "const", "new", "arith", "call", "param"};
    public static final int ROLE_VALUE = 0, ROLE_DEREF = 1, ROLE_INDEX = 2, ROLE_ARG = 3;
    private static final String[] ROLE = {"value", "deref", "index", "arg"};

    private static final Object LOCK = new Object();

    // ---- configuration and files ----
    private static File workDir;
    private static Writer tests; // tests part file of this JVM
    private static Writer stmts; // shared statement table (work/statements.jsonl)
    private static long cap = 2_000_000L;
    private static boolean initialized;

    // ---- registration tables (filled at instrumentation time) ----
    private static final ArrayList<String> names = new ArrayList<>();
    private static final ArrayList<String> namesJson = new ArrayList<>();
    private static final HashMap<String, Integer> nameIds = new HashMap<>();
    private static final HashMap<String, Integer> stmtIds = new HashMap<>();
    private static int nextStmt = 0;
    private static final ArrayList<MethodInfo> methods = new ArrayList<>();
    /** Instance field declarations per class (binary name with dots): JSON fragments. */
    private static final HashMap<String, String[]> classFields = new HashMap<>();
    private static final HashMap<Class<?>, String> allocFieldsCache = new HashMap<>();
    /** Diagnostics from the instrumenter. */
    public static final List<String> instrumentErrors = new ArrayList<>();
    public static int classesInstrumented = 0;

    static final class MethodInfo {
        String qnameJson; // "Cls.m" as a JSON string
        int key; // name id of "m(desc)"
        int[] params; // name ids of parameter locals
        boolean ctor;
        int entryStmt;
    }

    // ---- per-test state ----
    private static volatile boolean active;
    private static String testId;
    private static long events;
    private static boolean truncated;
    private static int nextFrame = 1; // never reset: frame ids are unique in the JVM
    private static int firstFrame = 1; // frames below this belong to earlier tests
    private static int nextObj = 1;
    private static IdentityHashMap<Object, Integer> ids = new IdentityHashMap<>();
    private static final TreeSet<String> staticReads = new TreeSet<>();
    private static final TreeSet<String> staticWrites = new TreeSet<>();
    /** Objects reached from a static field in this test, with the static field (root) they hang from. */
    private static IdentityHashMap<Object, String> reach = new IdentityHashMap<>();
    private static volatile boolean reachOn;
    private static final TreeSet<String> reachRead = new TreeSet<>();
    private static final TreeSet<String> reachWritten = new TreeSet<>();
    private static final StringBuilder sb = new StringBuilder(256);
    private static long outsideEvents = 0;

    static final class Frame {
        int id, thisId, method;
        int pendingKey = -1, pendingSite = -1, lastCallee = -1;
        Object pendingRecv; // the receiver of the pending call (null: static call or constructor)
        boolean pendingSuper;
        int nArgs;
        int[] aKind = new int[4], aName = new int[4], aX = new int[4], aY = new int[4], aHow = new int[4];
    }

    static final class TState {
        Frame[] stack = new Frame[32];
        int depth;

        Frame top() {
            return depth == 0 ? null : stack[depth - 1];
        }

        Frame find(int id) {
            for (int i = depth - 1; i >= 0; i--) if (stack[i].id == id) return stack[i];
            return null;
        }
    }

    private static final ThreadLocal<TState> TS = ThreadLocal.withInitial(TState::new);

    // =====================================================================================
    // Setup (called by the agent's premain and by the instrumenter)
    // =====================================================================================

    /** Opens the output files. {@code work}: the supervisor's work directory; {@code part}: this JVM's number. */
    public static void init(String work, int part, long eventCap) throws IOException {
        synchronized (LOCK) {
            if (initialized) return;
            workDir = new File(work);
            workDir.mkdirs();
            if (eventCap > 0) cap = eventCap;
            File st = new File(workDir, "statements.jsonl");
            if (st.exists()) loadStatements(st);
            stmts = new BufferedWriter(new OutputStreamWriter(new FileOutputStream(st, true), StandardCharsets.UTF_8), 1 << 16);
            tests = new BufferedWriter(new OutputStreamWriter(
                    new FileOutputStream(new File(workDir, "tests." + part + ".jsonl")), StandardCharsets.UTF_8), 1 << 16);
            initialized = true;
        }
    }

    /** Reads the statement ids earlier JVMs of the same run assigned, so ids stay stable across restarts. */
    private static void loadStatements(File f) throws IOException {
        try (BufferedReader r = new BufferedReader(new InputStreamReader(new FileInputStream(f), StandardCharsets.UTF_8))) {
            String line;
            while ((line = r.readLine()) != null) {
                int k = line.lastIndexOf(",\"key\":\"");
                if (!line.startsWith("{\"id\":") || k < 0 || !line.endsWith("\"}")) continue;
                int id = Integer.parseInt(line.substring(6, line.indexOf(',')));
                String key = line.substring(k + 8, line.length() - 2);
                stmtIds.put(key, id);
                nextStmt = Math.max(nextStmt, id + 1);
            }
        }
    }

    /** Interns a name (local, field, method, class) and returns its id. */
    public static int name(String s) {
        synchronized (LOCK) {
            Integer id = nameIds.get(s);
            if (id != null) return id;
            int n = names.size();
            names.add(s);
            namesJson.add(quote(s));
            nameIds.put(s, n);
            return n;
        }
    }

    /** The id of a statement, registering it on first sight. {@code bci < 0}: no bytecode index. */
    public static int stmt(String key, String cls, String method, String file, int line, int bci) {
        return stmt(key, cls, method, file, line, bci, null);
    }

    /**
     * The id of a statement, registering it on first sight, with its {@code access} field (a JSON
     * object: class and method modifiers, superclass; null: none).
     */
    public static int stmt(String key, String cls, String method, String file, int line, int bci, String access) {
        synchronized (LOCK) {
            Integer id = stmtIds.get(key);
            if (id != null) return id;
            int n = nextStmt++;
            stmtIds.put(key, n);
            StringBuilder b = new StringBuilder(160);
            b.append("{\"id\":").append(n).append(",\"class\":").append(quote(cls));
            if (method != null) b.append(",\"method\":").append(quote(method));
            b.append(",\"file\":").append(quote(file)).append(",\"line\":").append(Math.max(0, line));
            if (bci >= 0) b.append(",\"bci\":").append(bci);
            if (access != null) b.append(",\"access\":").append(access);
            b.append(",\"key\":").append(quote(key)).append("}\n");
            try {
                if (stmts != null) stmts.write(b.toString());
            } catch (IOException e) {
                System.err.println("paf-agent: cannot write the statement table: " + e);
            }
            return n;
        }
    }

    /** Registers an instrumented method; returns its id for {@link #enter}. */
    public static int method(String qname, String key, String[] params, boolean ctor, int entryStmt) {
        synchronized (LOCK) {
            MethodInfo m = new MethodInfo();
            m.qnameJson = quote(qname);
            m.key = name(key);
            m.params = new int[params.length];
            for (int i = 0; i < params.length; i++) m.params[i] = name(params[i]);
            m.ctor = ctor;
            m.entryStmt = entryStmt;
            methods.add(m);
            return methods.size() - 1;
        }
    }

    /** Registers the instance fields of a class and their declaration statements. */
    public static void classFields(String cls, String[] fields, int[] declStmts) {
        synchronized (LOCK) {
            String[] frag = new String[fields.length];
            for (int i = 0; i < fields.length; i++)
                frag[i] = "{\"field\":" + quote(fields[i]) + ",\"stmt\":" + declStmts[i] + "}";
            classFields.put(cls, frag);
            allocFieldsCache.clear();
        }
    }

    public static void instrumented(String cls) {
        synchronized (LOCK) {
            classesInstrumented++;
        }
    }

    public static void instrumentError(String msg) {
        synchronized (LOCK) {
            instrumentErrors.add(msg);
        }
    }

    // =====================================================================================
    // Test boundaries (called by the runner's RunListener)
    // =====================================================================================

    public static void beginTest(String id, String cls, String method) {
        synchronized (LOCK) {
            testId = id;
            events = 0;
            truncated = false;
            firstFrame = nextFrame;
            ids = new IdentityHashMap<>();
            staticReads.clear();
            staticWrites.clear();
            reach = new IdentityHashMap<>();
            reachOn = false;
            reachRead.clear();
            reachWritten.clear();
            TState ts = TS.get();
            ts.depth = 0;
            sb.setLength(0);
            sb.append("{\"k\":\"begin\",\"test\":").append(quote(id));
            if (cls != null) sb.append(",\"class\":").append(quote(cls));
            if (method != null) sb.append(",\"method\":").append(quote(method));
            sb.append("}\n");
            raw(sb);
            active = true;
        }
    }

    /**
     * Ends the test. {@code t == null}: it passed. {@code testClass}/{@code testMethod} cut the stack
     * trace below the test method.
     */
    public static void endTest(String id, Throwable t, String testClass, String testMethod, String note) {
        synchronized (LOCK) {
            active = false;
            sb.setLength(0);
            sb.append("{\"k\":\"end\",\"test\":").append(quote(id)).append(",\"outcome\":")
                    .append(t == null ? "\"pass\"" : "\"fail\"").append(",\"events\":").append(events);
            if (truncated) sb.append(",\"truncated\":true");
            if (t != null) {
                sb.append(",\"exception\":");
                exceptionJson(sb, t, testClass, testMethod);
            }
            sb.append(",\"statics\":{\"read\":");
            strings(sb, staticReads);
            sb.append(",\"written\":");
            strings(sb, staticWrites);
            sb.append(",\"reachable_read\":");
            strings(sb, reachRead);
            sb.append(",\"reachable_written\":");
            strings(sb, reachWritten);
            sb.append('}');
            if (note != null) sb.append(",\"note\":").append(quote(note));
            sb.append("}\n");
            raw(sb);
            ids = new IdentityHashMap<>();
            reach = new IdentityHashMap<>();
            reachOn = false;
            TS.get().depth = 0;
            flush();
        }
    }

    public static void flush() {
        synchronized (LOCK) {
            try {
                if (stmts != null) stmts.flush();
                if (tests != null) tests.flush();
            } catch (IOException e) {
                System.err.println("paf-agent: cannot write the trace: " + e);
            }
        }
    }

    public static long outsideEvents() {
        return outsideEvents;
    }

    private static void strings(StringBuilder b, TreeSet<String> s) {
        b.append('[');
        boolean first = true;
        for (String x : s) {
            if (!first) b.append(',');
            first = false;
            b.append(quote(x));
        }
        b.append(']');
    }

    static void exceptionJson(StringBuilder b, Throwable t, String testClass, String testMethod) {
        b.append("{\"type\":").append(quote(t.getClass().getName())).append(",\"message\":");
        String msg;
        try {
            msg = t.getMessage();
        } catch (Throwable e) {
            msg = null;
        }
        b.append(msg == null ? "null" : quote(msg)).append(",\"frames\":[");
        StackTraceElement[] st = t.getStackTrace();
        int end = st.length;
        for (int i = 0; i < st.length; i++) {
            if (st[i].getClassName().equals(testClass) && st[i].getMethodName().equals(testMethod)) {
                end = i + 1;
                break;
            }
            String c = st[i].getClassName();
            if (c.startsWith("org.junit.") || c.startsWith("junit.framework.") || c.startsWith("jdk.internal.reflect.")
                    || c.startsWith("sun.reflect.")) {
                end = i;
                break;
            }
        }
        for (int i = 0; i < end; i++) {
            if (i > 0) b.append(',');
            StackTraceElement e = st[i];
            b.append("{\"class\":").append(quote(e.getClassName())).append(",\"method\":").append(quote(e.getMethodName()))
                    .append(",\"file\":").append(e.getFileName() == null ? "null" : quote(e.getFileName()))
                    .append(",\"line\":").append(e.getLineNumber() < 0 ? -1 : e.getLineNumber()).append('}');
        }
        b.append("]}");
    }

    // =====================================================================================
    // Events (called by instrumented code)
    // =====================================================================================

    private static boolean live(int frame) {
        return active && frame >= firstFrame;
    }

    /** Writes one event line (sb), counting it and applying the cap. Caller holds LOCK. */
    private static void emit(StringBuilder line) {
        if (!active) {
            outsideEvents++;
            return;
        }
        if (events >= cap) {
            truncated = true;
            return;
        }
        events++;
        line.append('\n');
        raw(line);
    }

    private static void raw(StringBuilder line) {
        try {
            if (tests != null) tests.append(line);
        } catch (IOException e) {
            System.err.println("paf-agent: cannot write the trace: " + e);
        }
    }

    public static int id(Object o) {
        if (o == null || !active) return 0;
        synchronized (LOCK) {
            return idLocked(o);
        }
    }

    private static int idLocked(Object o) {
        Integer i = ids.get(o);
        if (i != null) return i;
        int n = nextObj++;
        ids.put(o, n);
        return n;
    }

    /** Whether a method entered now on this thread is called by the test body (no instrumented frame is active). */
    public static boolean topLevel() {
        if (!active) return false;
        Frame top = TS.get().top();
        return top == null || top.id < firstFrame;
    }

    /** Method entry from the test body, with the argument values (primitives boxed) for the enter's "values". */
    public static int enterTop(int mid, Object self, Object[] args) {
        if (!active) return -1;
        synchronized (LOCK) {
            if (!active) return -1;
            String values = null;
            try {
                values = entryValues(methods.get(mid), self, args);
            } catch (Throwable t) {
                values = null; // values are optional: a failure to read them loses only them
            }
            return enter(mid, self, values);
        }
    }

    /** Method entry. {@code self}: the receiver, null for static methods and constructors. */
    public static int enter(int mid, Object self) {
        return enter(mid, self, null);
    }

    private static int enter(int mid, Object self, String values) {
        if (!active) return -1;
        synchronized (LOCK) {
            if (!active) return -1;
            MethodInfo m = methods.get(mid);
            TState ts = TS.get();
            Frame top = ts.top();
            Frame caller = (top != null && top.id >= firstFrame) ? top : null;
            // the callee of the pending call site: same name and descriptor and, for an instance
            // method, the same receiver (not a callback from uninstrumented code in between)
            boolean matched = caller != null && caller.pendingKey == m.key
                    && (self == null || caller.pendingRecv == null || caller.pendingRecv == self);
            Frame f = new Frame();
            f.id = nextFrame++;
            f.method = mid;
            if (self != null) f.thisId = idLocked(self);
            else if (m.ctor) f.thisId = (matched && caller.pendingSuper) ? caller.thisId : nextObj++;
            if (ts.depth == ts.stack.length) ts.stack = java.util.Arrays.copyOf(ts.stack, ts.depth * 2);
            ts.stack[ts.depth++] = f;
            sb.setLength(0);
            sb.append("{\"k\":\"enter\",\"frame\":").append(f.id).append(",\"method\":").append(m.qnameJson);
            if (caller != null) {
                sb.append(",\"caller\":").append(caller.id);
                if (matched && caller.pendingSite >= 0) sb.append(",\"site\":").append(caller.pendingSite);
            }
            if (f.thisId != 0) sb.append(",\"this\":").append(f.thisId);
            if (values != null && caller == null) sb.append(",\"values\":").append(values);
            sb.append('}');
            emit(sb);
            for (int i = 0; i < m.params.length; i++) {
                sb.setLength(0);
                sb.append("{\"k\":\"def\",\"frame\":").append(f.id).append(",\"stmt\":").append(m.entryStmt)
                        .append(",\"var\":{\"local\":").append(namesJson.get(m.params[i])).append('}');
                if (matched && i < caller.nArgs && caller.aKind[i] != K_NONE) {
                    sb.append(",\"from\":");
                    var(sb, caller.aKind[i], caller.aName[i], caller.aX[i], caller.aY[i], caller.id);
                } else {
                    int how = (matched && i < caller.nArgs) ? caller.aHow[i] : H_PARAM;
                    sb.append(",\"how\":\"").append(HOW[how]).append('"');
                }
                sb.append('}');
                emit(sb);
            }
            if (matched) {
                caller.pendingKey = -1;
                caller.pendingRecv = null;
                caller.lastCallee = f.id;
            }
            return f.id;
        }
    }

    /** Instance fields of instrumented classes in a class chain, readable by reflection. */
    private static final HashMap<Class<?>, java.lang.reflect.Field[]> entryFields = new HashMap<>();

    private static java.lang.reflect.Field[] instanceFields(Class<?> c) {
        ArrayList<java.lang.reflect.Field> out = new ArrayList<>();
        for (Class<?> k = c; k != null && k != Object.class; k = k.getSuperclass()) {
            if (!classFields.containsKey(k.getName())) continue;
            for (java.lang.reflect.Field f : k.getDeclaredFields()) {
                if (java.lang.reflect.Modifier.isStatic(f.getModifiers())) continue;
                try {
                    f.setAccessible(true);
                    out.add(f);
                } catch (RuntimeException e) {
                    // not accessible (a named module): the field is left out
                }
            }
        }
        return out.toArray(new java.lang.reflect.Field[0]);
    }

    /**
     * The "values" of an enter: {"args": {name: value}, "fields": {Cls.field: value}} (docs/trace-format.md).
     * A value is null, a boolean, a number, or for a non-null reference an object with the length of
     * an array or string; a float that is not finite is left out.
     */
    private static String entryValues(MethodInfo m, Object self, Object[] args) throws IllegalAccessException {
        StringBuilder b = new StringBuilder(64);
        b.append("{\"args\":{");
        boolean first = true;
        for (int i = 0; i < args.length && i < m.params.length; i++) {
            if (!valueWritable(args[i])) continue;
            if (!first) b.append(',');
            b.append(namesJson.get(m.params[i])).append(':');
            value(b, args[i]);
            first = false;
        }
        b.append('}');
        if (self != null) {
            java.lang.reflect.Field[] fs = entryFields.get(self.getClass());
            if (fs == null) {
                fs = instanceFields(self.getClass());
                entryFields.put(self.getClass(), fs);
            }
            b.append(",\"fields\":{");
            first = true;
            for (java.lang.reflect.Field f : fs) {
                Object v = f.get(self);
                if (!valueWritable(v)) continue;
                if (!first) b.append(',');
                b.append(quote(f.getDeclaringClass().getName() + "." + f.getName())).append(':');
                value(b, v);
                first = false;
            }
            b.append('}');
        }
        return b.append('}').toString();
    }

    private static boolean valueWritable(Object v) {
        if (v instanceof Double || v instanceof Float) return Double.isFinite(((Number) v).doubleValue());
        return true;
    }

    private static void value(StringBuilder b, Object v) {
        if (v == null) b.append("null");
        else if (v instanceof Boolean) b.append(((Boolean) v).booleanValue());
        else if (v instanceof Integer || v instanceof Long || v instanceof Short || v instanceof Byte)
            b.append(((Number) v).longValue());
        else if (v instanceof Character) b.append((int) ((Character) v).charValue());
        else if (v instanceof Double || v instanceof Float) b.append(((Number) v).doubleValue());
        else if (v instanceof String) b.append("{\"length\":").append(((String) v).length()).append('}');
        else if (v.getClass().isArray()) b.append("{\"length\":").append(java.lang.reflect.Array.getLength(v)).append('}');
        else b.append("{}");
    }

    /** A constructor's super()/this() call returned: the object exists; record its allocation. */
    public static void ctorReady(Object self, int frame) {
        if (!live(frame)) return;
        synchronized (LOCK) {
            if (ids.containsKey(self)) return;
            Frame f = TS.get().find(frame);
            if (f == null) return;
            ids.put(self, f.thisId);
            sb.setLength(0);
            sb.append("{\"k\":\"alloc\",\"obj\":").append(f.thisId).append(",\"class\":")
                    .append(quote(self.getClass().getName())).append(",\"frame\":").append(frame)
                    .append(",\"fields\":").append(allocFields(self.getClass())).append('}');
            emit(sb);
        }
    }

    private static String allocFields(Class<?> c) {
        String s = allocFieldsCache.get(c);
        if (s != null) return s;
        StringBuilder b = new StringBuilder("[");
        boolean first = true;
        for (Class<?> k = c; k != null; k = k.getSuperclass()) {
            String[] fs = classFields.get(k.getName());
            if (fs == null) continue;
            for (String x : fs) {
                if (!first) b.append(',');
                first = false;
                b.append(x);
            }
        }
        s = b.append(']').toString();
        allocFieldsCache.put(c, s);
        return s;
    }

    public static void allocArray(Object arr, int frame, int stmt) {
        if (!live(frame) || arr == null) return;
        synchronized (LOCK) {
            int id = idLocked(arr);
            sb.setLength(0);
            sb.append("{\"k\":\"alloc\",\"obj\":").append(id).append(",\"class\":")
                    .append(quote(arr.getClass().getComponentType().getName() + "[]")).append(",\"frame\":").append(frame)
                    .append(",\"stmt\":").append(stmt).append(",\"length\":").append(java.lang.reflect.Array.getLength(arr))
                    .append('}');
            emit(sb);
        }
    }

    public static void exit(int frame) {
        if (!live(frame)) return;
        synchronized (LOCK) {
            pop(frame, null);
        }
    }

    public static void exitThrow(Throwable t, int frame) {
        if (!live(frame)) return;
        synchronized (LOCK) {
            pop(frame, t == null ? "java.lang.Throwable" : t.getClass().getName());
        }
    }

    private static void pop(int frame, String threw) {
        TState ts = TS.get();
        if (ts.find(frame) == null) return;
        while (ts.depth > 0) {
            Frame f = ts.stack[--ts.depth];
            ts.stack[ts.depth] = null;
            sb.setLength(0);
            sb.append("{\"k\":\"exit\",\"frame\":").append(f.id);
            // frames above `frame` were left by an exception no handler of ours saw
            String th = f.id == frame ? threw : (threw != null ? threw : "java.lang.Throwable");
            if (th != null) sb.append(",\"throw\":").append(quote(th));
            sb.append('}');
            emit(sb);
            if (f.id == frame) break;
        }
    }

    /** Before a call: the next frame entered with this key from this frame is the callee. */
    public static void preCall(Object recv, int frame, int site, int key, boolean superInit) {
        if (!live(frame)) return;
        Frame f = TS.get().top();
        if (f == null || f.id != frame) return;
        f.pendingRecv = recv;
        f.pendingKey = key;
        f.pendingSite = site;
        f.pendingSuper = superInit;
        f.nArgs = 0;
        f.lastCallee = -1;
    }

    /**
     * After a call that returned a value: the callee's frame id when it was instrumented, else -1
     * (and, when {@code temp >= 0}, a def of the temporary local that holds the result).
     */
    public static int postCall(int frame, int stmt, int temp, int callee) {
        if (!live(frame)) return -1;
        synchronized (LOCK) {
            Frame f = TS.get().top();
            int h = -1;
            if (f != null && f.id == frame) {
                h = f.lastCallee;
                if (h < 0) uninstrumentedCall(f);
                f.lastCallee = -1;
                f.pendingKey = -1;
                f.pendingRecv = null;
            }
            if (h < 0 && temp >= 0) {
                sb.setLength(0);
                sb.append("{\"k\":\"def\",\"frame\":").append(frame).append(",\"stmt\":").append(stmt)
                        .append(",\"var\":{\"local\":").append(namesJson.get(temp)).append("},\"how\":\"call\",\"callee\":")
                        .append(namesJson.get(callee)).append('}');
                emit(sb);
            }
            return h;
        }
    }

    public static void postCallVoid(int frame) {
        if (!live(frame)) return;
        Frame f = TS.get().top();
        if (f != null && f.id == frame) {
            if (f.lastCallee < 0 && reachOn) {
                synchronized (LOCK) {
                    uninstrumentedCall(f);
                }
            }
            f.lastCallee = -1;
            f.pendingKey = -1;
            f.pendingRecv = null;
        }
    }

    /** A use of a reference value (its nullness is recorded). */
    public static void useRef(Object v, int frame, int stmt, int role, int kind, int name, int x, int y, int how) {
        if (!live(frame)) return;
        synchronized (LOCK) {
            use0(frame, stmt, role, kind, name, x, y, how, v == null);
        }
    }

    /** A use of a primitive value. */
    public static void use(int frame, int stmt, int role, int kind, int name, int x, int y, int how) {
        if (!live(frame)) return;
        synchronized (LOCK) {
            use0(frame, stmt, role, kind, name, x, y, how, false);
        }
    }

    private static void use0(int frame, int stmt, int role, int kind, int name, int x, int y, int how, boolean isNull) {
        if (role == ROLE_ARG) {
            Frame f = TS.get().top();
            if (f != null && f.id == frame && f.pendingKey >= 0) {
                int i = f.nArgs++;
                if (i == f.aKind.length) {
                    int n = i * 2;
                    f.aKind = java.util.Arrays.copyOf(f.aKind, n);
                    f.aName = java.util.Arrays.copyOf(f.aName, n);
                    f.aX = java.util.Arrays.copyOf(f.aX, n);
                    f.aY = java.util.Arrays.copyOf(f.aY, n);
                    f.aHow = java.util.Arrays.copyOf(f.aHow, n);
                }
                f.aKind[i] = kind;
                f.aName[i] = name;
                f.aX[i] = x;
                f.aY[i] = y;
                f.aHow[i] = how;
                if (kind == K_RET && x < 0) f.aKind[i] = K_TEMP;
            }
        }
        if (kind == K_NONE) return;
        if (kind == K_STATIC) staticReads.add(names.get(name));
        sb.setLength(0);
        sb.append("{\"k\":\"use\",\"frame\":").append(frame).append(",\"stmt\":").append(stmt).append(",\"var\":");
        var(sb, kind, name, x, y, -1);
        if (role != ROLE_VALUE) sb.append(",\"role\":\"").append(ROLE[role]).append('"');
        if (isNull) sb.append(",\"null\":true");
        sb.append('}');
        emit(sb);
    }

    /** A static field read (for the per-test static read set; no event). */
    public static void sread(int frame, int name) {
        if (!live(frame)) return;
        synchronized (LOCK) {
            staticReads.add(names.get(name));
        }
    }

    /** A reference read from a static field: the root of the objects reachable from it. */
    public static void sroot(Object v, int frame, int name) {
        if (!live(frame)) return;
        synchronized (LOCK) {
            String root = names.get(name);
            staticReads.add(root);
            if (v == null || v instanceof String || v instanceof Number || v instanceof Boolean || v instanceof Character
                    || v instanceof Class) return;
            if (!reach.containsKey(v)) reach.put(v, root);
            reachOn = true;
        }
    }

    /** A field or element load from {@code from}: if it is reachable from a static, so is the value. */
    public static void reachLoad(Object value, Object from) {
        if (!reachOn || from == null) return;
        synchronized (LOCK) {
            if (!active) return;
            String root = reach.get(from);
            if (root == null) return;
            reachRead.add(root);
            if (value != null && !reach.containsKey(value) && !(value instanceof String || value instanceof Number
                    || value instanceof Boolean || value instanceof Character || value instanceof Class))
                reach.put(value, root);
        }
    }

    /** The id of an object about to be written (field or element): records writes to static state. */
    public static int idw(Object o) {
        if (o == null || !active) return 0;
        synchronized (LOCK) {
            if (reachOn) {
                String root = reach.get(o);
                if (root != null) reachWritten.add(root);
            }
            return idLocked(o);
        }
    }

    private static final java.util.Set<String> READ_ONLY = new java.util.HashSet<>(java.util.Arrays.asList(
            "clone", "ordinal", "name", "hashCode", "equals", "toString", "getClass", "size", "isEmpty", "get",
            "getOrDefault", "contains", "containsKey", "containsValue", "containsAll", "length", "charAt", "compareTo",
            "indexOf", "lastIndexOf", "iterator", "listIterator", "stream", "keySet", "values", "entrySet", "toArray",
            "peek", "first", "last", "firstKey", "lastKey", "getKey", "getValue", "hasNext", "subList", "intValue",
            "longValue", "doubleValue", "booleanValue", "getName", "getSimpleName"));

    /** An uninstrumented call on a receiver reachable from a static may change it. */
    private static void uninstrumentedCall(Frame f) {
        if (reachOn && f.pendingRecv != null) {
            String root = reach.get(f.pendingRecv);
            if (root != null) {
                reachRead.add(root);
                String m = f.pendingKey >= 0 ? names.get(f.pendingKey) : "";
                int paren = m.indexOf('(');
                // conservative: an uninstrumented callee may have changed it, unless it is a
                // well-known query (a later mutation through a returned iterator or view is missed)
                if (!READ_ONLY.contains(paren < 0 ? m : m.substring(0, paren))) reachWritten.add(root);
            }
        }
    }

    /** A def of a temporary (a constant or computed operand that a use needs a name for). */
    public static void defTemp(int frame, int stmt, int name, int how) {
        if (!live(frame)) return;
        synchronized (LOCK) {
            sb.setLength(0);
            sb.append("{\"k\":\"def\",\"frame\":").append(frame).append(",\"stmt\":").append(stmt)
                    .append(",\"var\":{\"local\":").append(namesJson.get(name)).append("},\"how\":\"").append(HOW[how])
                    .append("\"}");
            emit(sb);
        }
    }

    /**
     * A definition of variable (vk, vn, vx, vy) at stmt. The source: a variable (sk != K_NONE; a
     * K_RET source with sx < 0 means an uninstrumented callee: how=call, callee=sn) or a how code.
     */
    public static void def(int frame, int stmt, int vk, int vn, int vx, int vy, int sk, int sn, int sx, int sy, int how,
            boolean cast) {
        if (!live(frame)) return;
        synchronized (LOCK) {
            if (sk == vk && sn == vn && sx == vx && sy == vy && sk != K_NONE) return; // x = x: no new value
            if (vk == K_STATIC) staticWrites.add(names.get(vn));
            if (sk == K_STATIC) staticReads.add(names.get(sn));
            sb.setLength(0);
            sb.append("{\"k\":\"def\",\"frame\":").append(frame).append(",\"stmt\":").append(stmt).append(",\"var\":");
            var(sb, vk, vn, vx, vy, -1);
            if (sk == K_RET && sx < 0) {
                sb.append(",\"how\":\"call\",\"callee\":").append(namesJson.get(sn));
            } else if (sk != K_NONE) {
                sb.append(",\"from\":");
                var(sb, sk, sn, sx, sy, -1);
                if (cast) sb.append(",\"cast\":true");
            } else {
                sb.append(",\"how\":\"").append(HOW[how]).append('"');
                if (how == H_CALL && sn >= 0) sb.append(",\"callee\":").append(namesJson.get(sn));
            }
            sb.append('}');
            emit(sb);
        }
    }

    /** A conditional branch reading up to two variables (kind K_NONE: not a variable). */
    public static void branch(int frame, int stmt, int k1, int n1, int x1, int y1, int k2, int n2, int x2, int y2) {
        if (!live(frame)) return;
        synchronized (LOCK) {
            sb.setLength(0);
            sb.append("{\"k\":\"branch\",\"frame\":").append(frame).append(",\"stmt\":").append(stmt).append(",\"uses\":[");
            boolean first = true;
            if (k1 != K_NONE) {
                var(sb, k1, n1, x1, y1, -1);
                if (k1 == K_STATIC) staticReads.add(names.get(n1));
                first = false;
            }
            if (k2 != K_NONE) {
                if (!first) sb.append(',');
                var(sb, k2, n2, x2, y2, -1);
                if (k2 == K_STATIC) staticReads.add(names.get(n2));
            }
            sb.append("]}");
            emit(sb);
        }
    }

    private static void var(StringBuilder b, int kind, int name, int x, int y, int frameOfLocal) {
        switch (kind) {
            case K_LOCAL:
            case K_TEMP:
                b.append("{\"local\":").append(namesJson.get(name));
                if (frameOfLocal >= 0) b.append(",\"frame\":").append(frameOfLocal);
                b.append('}');
                break;
            case K_FIELD:
                b.append("{\"field\":").append(namesJson.get(name)).append(",\"obj\":").append(x).append('}');
                break;
            case K_STATIC:
                b.append("{\"static\":").append(namesJson.get(name)).append('}');
                break;
            case K_ELEM:
                b.append("{\"elem\":").append(x).append(",\"index\":").append(y).append('}');
                break;
            case K_RET:
                if (x >= 0) b.append("{\"ret\":").append(x).append('}');
                else {
                    b.append("{\"local\":").append(namesJson.get(name));
                    if (frameOfLocal >= 0) b.append(",\"frame\":").append(frameOfLocal);
                    b.append('}');
                }
                break;
            default:
                b.append("{}");
        }
    }

    /** JSON string literal. */
    public static String quote(String s) {
        StringBuilder b = new StringBuilder(s.length() + 2);
        b.append('"');
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '"': b.append("\\\""); break;
                case '\\': b.append("\\\\"); break;
                case '\n': b.append("\\n"); break;
                case '\r': b.append("\\r"); break;
                case '\t': b.append("\\t"); break;
                default:
                    if (c < 0x20 || (c >= 0xd800 && c <= 0xdfff)) {
                        // control characters and lone surrogates (kept valid UTF-8)
                        if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length() && Character.isLowSurrogate(s.charAt(i + 1))) {
                            b.append(c).append(s.charAt(++i));
                        } else {
                            b.append(String.format("\\u%04x", (int) c));
                        }
                    } else b.append(c);
            }
        }
        return b.append('"').toString();
    }

    /** For the runner: a synthetic test (a class-level failure, a lost test). */
    public static void syntheticTest(String id, String cls, String method, Throwable t, String note) {
        beginTest(id, cls, method);
        endTest(id, t, cls, method, note);
    }

    public static Map<String, Object> stats() {
        Map<String, Object> m = new HashMap<>();
        synchronized (LOCK) {
            m.put("classes", classesInstrumented);
            m.put("errors", new ArrayList<>(instrumentErrors));
        }
        return m;
    }
}
