package paf.rt;

import java.io.BufferedReader;
import java.io.File;
import java.io.FileInputStream;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
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
 * {@code @BeforeClass}) and during {@code @After} methods are dropped.
 *
 * <p>Failures of the code under test inside the agent (docs/java.md, "Failures inside the agent"):
 * every event is one record of {@link Out}, built in a pre-allocated buffer and rolled back when a
 * {@code StackOverflowError} or {@code OutOfMemoryError} interrupts it, then rethrown, so the
 * program sees the error where it would have happened and the trace never holds a partial line
 * or a counted event that is missing. The object-id table drops its references when an
 * {@code OutOfMemoryError} leaves an instrumented frame, so the test's garbage can be collected
 * and the failure recorded.
 *
 * <p>Class initializers (docs/java.md, "Class initializers and the event cap"): their events do not
 * count against the test's event cap, and when an initializer completes normally they are rolled
 * back (the work belongs to no test); when it fails they stay, as the events of the call that
 * triggered it. When a test reaches the cap, {@link Compactor} keeps only what the backward
 * analysis and the def-use coverage need.
 *
 * <p>Every entry point that instrumented code calls is a few bytes: it reads {@link #recording}
 * and calls its {@code ...Slow} half only when the test is being recorded. C1, the worker's only
 * compiler, inlines such a method into the instrumented code, so code that runs unrecorded (past
 * a test's event budget, between tests) pays a field read and a branch per event instead of a
 * call (docs/performance.md, "Ninth round"; the worker's {@code -XX:CompileCommand=inline} for
 * the two with too many arguments for C1's own rule).
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

    // the JSON around each event's values, as bytes: Out.a(String) looked each literal up by
    // its hash, about 8 ns a call, four or five calls an event (docs/performance.md, "Eleventh round")
    private static final byte[] J_BRANCH = Out.ascii("{\"k\":\"branch\",\"frame\":");
    private static final byte[] J_CALLBACK = Out.ascii(",\"callback\":true");
    private static final byte[] J_CALLEE = Out.ascii(",\"callee\":");
    private static final byte[] J_CALLER = Out.ascii(",\"caller\":");
    private static final byte[] J_CAST = Out.ascii(",\"cast\":true");
    private static final byte[] J_DEF = Out.ascii("{\"k\":\"def\",\"frame\":");
    private static final byte[] J_ELEM = Out.ascii("{\"elem\":");
    private static final byte[] J_ENTER = Out.ascii("{\"k\":\"enter\",\"frame\":");
    private static final byte[] J_EXIT = Out.ascii("{\"k\":\"exit\",\"frame\":");
    private static final byte[] J_FIELD = Out.ascii("{\"field\":");
    private static final byte[] J_FRAME = Out.ascii(",\"frame\":");
    private static final byte[] J_FROM = Out.ascii(",\"from\":");
    private static final byte[] J_HOW = Out.ascii(",\"how\":\"");
    private static final byte[] J_HOW_CALL = Out.ascii(",\"how\":\"call\",\"callee\":");
    private static final byte[] J_INDEX = Out.ascii(",\"index\":");
    private static final byte[] J_LOCAL = Out.ascii("{\"local\":");
    private static final byte[] J_METHOD = Out.ascii(",\"method\":");
    private static final byte[] J_NAME = Out.ascii(",\"name\":");
    private static final byte[] J_NULL = Out.ascii(",\"null\":true");
    private static final byte[] J_OBJ = Out.ascii(",\"obj\":");
    private static final byte[] J_QUOTE_END = Out.ascii("\"}");
    private static final byte[] J_RET = Out.ascii("{\"ret\":");
    private static final byte[] J_ROLE = Out.ascii(",\"role\":\"");
    private static final byte[] J_SITE = Out.ascii(",\"site\":");
    private static final byte[] J_STATIC = Out.ascii("{\"static\":");
    private static final byte[] J_STMT = Out.ascii(",\"stmt\":");
    private static final byte[] J_TEST_LINE = Out.ascii(",\"test_line\":");
    private static final byte[] J_THIS = Out.ascii(",\"this\":");
    private static final byte[] J_THROW = Out.ascii(",\"throw\":");
    private static final byte[] J_USE = Out.ascii("{\"k\":\"use\",\"frame\":");
    private static final byte[] J_USES = Out.ascii(",\"uses\":[");
    private static final byte[] J_USES_END = Out.ascii("]}");
    private static final byte[] J_VALUES = Out.ascii(",\"values\":");
    private static final byte[] J_VAR = Out.ascii(",\"var\":");
    private static final byte[][] HOW_JSON = Out.ascii(HOW);
    private static final byte[][] ROLE_JSON = Out.ascii(ROLE);
    /** Method flags for {@link #method}. */
    public static final int M_CTOR = 1, M_CLINIT = 2, M_LAMBDA = 4;
    /** Test phases (set by the runner): @Before methods, the test method, @After methods. */
    public static final int PHASE_BEFORE = 0, PHASE_BODY = 1, PHASE_AFTER = 2;

    private static final Object LOCK = new Object();

    // ---- configuration and files ----
    private static File workDir;
    private static Out tests; // tests part file of this JVM
    private static Out stmts; // shared statement table (work/statements.jsonl)
    private static long cap = 2_000_000L;
    /**
     * A test is recorded for at most this many times the cap (compactions included): past it,
     * it is truncated and runs at nearly full speed, so that a loop of a billion iterations ends
     * within the time-out instead of being killed.
     */
    private static final long BUDGET = 5;
    private static boolean initialized;

    // ---- registration tables (filled at instrumentation time) ----
    private static final ArrayList<String> names = new ArrayList<>();
    private static final ArrayList<byte[]> namesJson = new ArrayList<>();
    private static final HashMap<String, Integer> nameIds = new HashMap<>();
    private static final HashMap<String, Integer> stmtIds = new HashMap<>();
    private static int nextStmt = 0;
    private static final ArrayList<MethodInfo> methods = new ArrayList<>();
    /**
     * A hash of every registration that gave out an id, in order (new names, new statements,
     * methods): with the three counts, {@link #registry} tells the class cache (paf.instr.ClassCache)
     * that this JVM gave out the same ids as the run that recorded a class, so the ids in the
     * class's recorded bytes are this run's too.
     */
    private static long registryHash;
    /** Classes the instrumenter took from its cache, and instrumented and recorded there (paf.instr.ClassCache): for {@code -v}. */
    private static long cacheHits, cacheMisses;
    /** Instance field declarations per class (binary name with dots): JSON fragments. */
    private static final HashMap<String, String[]> classFields = new HashMap<>();
    private static final HashMap<Class<?>, byte[]> allocFieldsCache = new HashMap<>();
    /** The name ids of the methods each instrumented class declares, sorted ({@link #dispatchesTo}). */
    private static final HashMap<String, int[]> classKeys = new HashMap<>();
    /** Diagnostics from the instrumenter. */
    public static final List<String> instrumentErrors = new ArrayList<>();
    public static int classesInstrumented = 0;

    static final class MethodInfo {
        String qname; // "Cls.m"
        byte[] qnameJson; // the same as a JSON string
        int key; // name id of "m(desc)"
        int[] params; // name ids of parameter locals
        int flags;
        int entryStmt;
        String keyText; // "m(desc)", the text of key
        String cls; // the declaring class (binary name with dots)
        /** The last receiver class a test-body call was found to dispatch to this method from ({@link #dispatchesTo}). */
        Class<?> direct;
    }

    // ---- per-test state ----
    private static volatile boolean active;
    /** Events are recorded (a test is running and was not truncated): the instrumented code's fast check. */
    private static volatile boolean recording;
    private static volatile int phase;
    private static String testId;
    /** The running test's class and method: the frame whose line a call from the test body gets. */
    private static String testCls, testMth;
    private static long events; // event lines of the test in the file
    private static long capCount; // events counted against the cap since the last compaction's region
    private static long compacted; // events compaction dropped
    private static long total; // events committed in the test, compacted ones included
    private static long testStart; // file position of the test's first event line
    private static boolean truncated;
    private static String truncatedWhy;
    private static int nextFrame = 1; // never reset: frame ids are unique in the JVM
    private static int firstFrame = 1; // frames below this belong to earlier tests
    private static int nextObj = 1;
    private static final IdMap ids = new IdMap();
    private static final TreeSet<String> staticReads = new TreeSet<>();
    private static final TreeSet<String> staticWrites = new TreeSet<>();
    /** Objects reached from a static field in this test, with the static field (root, a name id + 1) they hang from. */
    private static final IdMap reach = new IdMap();
    private static volatile boolean reachOn;
    private static final TreeSet<String> reachRead = new TreeSet<>();
    private static final TreeSet<String> reachWritten = new TreeSet<>();
    private static long outsideEvents = 0;
    /** Set while the agent calls code it does not control (getMessage, reflection): events are dropped. */
    private static boolean busy;

    // ---- class initializer being recorded (one at a time) ----
    private static Thread initThread;
    private static long initMark, initMarkEvents, initMarkSeq, initOwn, initEvents;
    private static boolean initOverflow;
    private static String initClass;
    private static long seq; // records written in this test (any thread)
    /** Set while the enter record of a class initializer about to be recorded is committed: no compaction then. */
    private static boolean startingInit;

    // ---- compactions beside the test ----
    // A compaction reads every event of the test so far, twice, and the test used to wait for
    // it: on joda-time, whose one long test is compacted five times, half of the worker's time,
    // with the other core idle (docs/performance.md, "Seventeenth round"). Now the rewrite runs
    // on a thread of its own (Compactor.Job) while the test goes on writing after the region it
    // reads. A test is compacted when it reaches the cap, and again each time it wrote as many
    // events again (counted against the cap) after the last compaction's region: whatever that
    // compaction keeps, so that where the next one starts does not depend on when the rewrite
    // ends. Its records are put in place at the start of an event once the rewrite is over, and
    // at the latest when the next compaction is due or the test ends, where the test waits for
    // it if need be. The file is then the one the same compactions done at once make, byte for
    // byte (PAF_COMPACT=now; tracer/java/e2e.sh compares them): the same regions are read, and
    // what was written after a region moves by what the region lost. A rewrite that fails (more
    // than half the cap kept, an error) is acted on only at those fixed points, never "as soon
    // as", so that runs agree, and so is one done at once: the events written after its region
    // are cut and the test truncated at its end (frames and objects entered meanwhile keep the
    // ids they took, and the end record's statics may name statics read meanwhile).
    //
    // A small region is compacted at once: starting a thread and waiting for it cost more than
    // the rewrite (TheAlgorithms hashmap at --max-events 1, a compaction tried in each of its
    // 7,525 tests: 3.7 s beside against 1.9 s at once).
    /** Regions of at least this many bytes are compacted beside the test (1 MiB, about 10,000 events). */
    private static final long BESIDE_MIN = besideMin(System.getenv("PAF_COMPACT"),
            Runtime.getRuntime().availableProcessors());

    /** PAF_COMPACT=now: every compaction is done at once; =beside: every one runs beside the test (both for checks and diagnosis). */
    static long besideMin(String mode, int cores) {
        if ("beside".equals(mode)) return 0;
        if ("now".equals(mode) || cores < 2) return Long.MAX_VALUE;
        return 1 << 20;
    }
    /** The compaction running beside the test, if any. */
    private static Compactor.Job pending;
    /** The test's events at the end of the pending compaction's region. */
    private static long pendingEvents;

    static final class Frame {
        int id, thisId, method;
        int pendingKey = -1, pendingSite = -1, lastCallee = -1;
        Object pendingRecv; // the receiver of the pending call (null: static call or constructor)
        boolean pendingSuper, clinit;
        int nArgs;
        int[] aKind = new int[4], aName = new int[4], aX = new int[4], aY = new int[4], aHow = new int[4];

        void reset() {
            pendingKey = -1;
            pendingSite = -1;
            lastCallee = -1;
            pendingRecv = null;
            pendingSuper = false;
            clinit = false;
            nArgs = 0;
            thisId = 0;
        }
    }

    static final class TState {
        Frame[] stack = new Frame[64];
        int depth;
        int initDepth;

        Frame top() {
            return depth == 0 ? null : stack[depth - 1];
        }

        Frame find(int id) {
            for (int i = depth - 1; i >= 0; i--) if (stack[i].id == id) return stack[i];
            return null;
        }

        /** The next frame object (reused), the stack grown first so that pushing allocates nothing. */
        Frame next() {
            if (depth == stack.length) stack = java.util.Arrays.copyOf(stack, depth * 2);
            Frame f = stack[depth];
            if (f == null) {
                f = new Frame();
                stack[depth] = f;
            }
            return f;
        }
    }

    private static final ThreadLocal<TState> TS = ThreadLocal.withInitial(TState::new);

    /** A thread and its state: the last pair {@link #ts} looked up. */
    private static final class LastState {
        final Thread thread;
        final TState state;

        LastState(Thread thread, TState state) {
            this.thread = thread;
            this.state = state;
        }
    }

    private static volatile LastState lastState;

    /**
     * This thread's state. Most events come from one thread, so the last lookup is kept: in C1
     * code a ThreadLocal lookup calls into the JVM for its weak reference, a twentieth of the
     * tracer's time on la4j (docs/performance.md, "Ninth round"). One immutable pair, read once,
     * so that threads racing on it each get their own state.
     */
    private static TState ts() {
        Thread t = Thread.currentThread();
        LastState last = lastState;
        if (last != null && last.thread == t) return last.state;
        TState s = TS.get();
        lastState = new LastState(t, s);
        return s;
    }

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
            initStatements(new File(workDir, "statements.jsonl"));
            // the fence's file before the tests file: a follower that finds the tests file
            // finds it too (16 zero bytes: no fence yet, so nothing may be read yet)
            File fence = new File(workDir, "tests." + part + ".fence");
            try (java.io.RandomAccessFile raf = new java.io.RandomAccessFile(fence, "rw")) {
                raf.setLength(16); // zeros
            } catch (IOException e) {
                fence = null; // no fence: paf's follower reads as the file grows, and gives up at a cut
            }
            tests = new Out(new File(workDir, "tests." + part + ".jsonl"), false, 1 << 20);
            if (fence != null) {
                try {
                    tests.fenceIn(fence);
                } catch (IOException | RuntimeException e) {
                    // the follower reads nothing more until the tests are over, then all of it
                }
            }
            initialized = true;
        }
    }

    /**
     * Opens only the statement table (the static analysis registers the statements of code no test
     * loaded, with the same keys and ids).
     */
    public static void initStatements(File st) throws IOException {
        initStatements(st, null);
    }

    /**
     * As {@link #initStatements(File)}, and fills {@code keysById} (when not null) with each id's
     * key, its first line's: the static analysis's queries name statements by id, and one read of
     * the table serves both (reading it twice cost commons-email's 455 KB table 30 ms in the cold
     * JVM, after the tests: docs/performance.md, "Fourth round").
     */
    public static void initStatements(File st, Map<String, String> keysById) throws IOException {
        synchronized (LOCK) {
            if (st.exists()) loadStatements(st, keysById);
            stmts = new Out(st, true, 1 << 16);
        }
    }

    /** Reads the statement ids earlier JVMs of the same run assigned, so ids stay stable across restarts. */
    private static void loadStatements(File f, Map<String, String> keysById) throws IOException {
        try (BufferedReader r = new BufferedReader(new InputStreamReader(new FileInputStream(f), StandardCharsets.UTF_8))) {
            String line;
            while ((line = r.readLine()) != null) {
                int k = line.lastIndexOf(",\"key\":\"");
                if (!line.startsWith("{\"id\":") || k < 0 || !line.endsWith("\"}")) continue;
                String digits = line.substring(6, line.indexOf(','));
                int id = Integer.parseInt(digits);
                String key = line.substring(k + 8, line.length() - 2);
                stmtIds.put(key, id);
                registryHash = mix(registryHash, 'L', key, id);
                if (keysById != null) keysById.putIfAbsent(digits, key);
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
            registryHash = mix(registryHash, 'N', s, n);
            byte[] lit = Out.literal(s);
            names.add(s);
            namesJson.add(lit);
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
        return stmt(key, cls, method, file, line, bci, access, null);
    }

    /**
     * As {@link #stmt(String, String, String, String, int, int, String)}, and, when this call
     * registers the statement and {@code record} is not null, its record (the line of the
     * statement table) in {@code record[0]}: the class cache keeps it (paf.instr.Reg).
     */
    public static int stmt(String key, String cls, String method, String file, int line, int bci, String access,
            byte[][] record) {
        synchronized (LOCK) {
            Integer id = stmtIds.get(key);
            if (id != null) return id;
            StringBuilder b = new StringBuilder(160);
            int n = nextStmt;
            b.append("{\"id\":").append(n).append(",\"class\":").append(quote(cls));
            if (method != null) b.append(",\"method\":").append(quote(method));
            b.append(",\"file\":").append(quote(file)).append(",\"line\":").append(Math.max(0, line));
            if (bci >= 0) b.append(",\"bci\":").append(bci);
            if (access != null) b.append(",\"access\":").append(access);
            b.append(",\"key\":").append(quote(key)).append('}');
            byte[] line0 = b.toString().getBytes(StandardCharsets.UTF_8);
            addStmt(key, n, line0);
            if (record != null) record[0] = line0;
            return n;
        }
    }

    /**
     * A statement replayed from the class cache (paf.instr.ClassCache) with the record it got
     * when it was registered: its id if the statement is known, else {@code id} if that is the
     * next id (the record, which holds it, is then written), else -1 (nothing registered).
     */
    public static int stmtRecord(String key, int id, byte[] record) {
        synchronized (LOCK) {
            Integer known = stmtIds.get(key);
            if (known != null) return known;
            if (nextStmt != id || record == null) return -1;
            addStmt(key, id, record);
            return id;
        }
    }

    /** Writes statement {@code n}'s record and registers it (caller holds LOCK). */
    private static void addStmt(String key, int n, byte[] record) {
        if (stmts != null) {
            long m = stmts.mark();
            try {
                stmts.raw(record).commit();
            } catch (Throwable t) {
                stmts.rollback(m);
                throw t;
            }
        }
        nextStmt = n + 1;
        stmtIds.put(key, n);
        registryHash = mix(registryHash, 'S', key, n);
    }

    /** Registers an instrumented method; returns its id for {@link #enter}. */
    public static int method(String qname, String key, String[] params, int flags, int entryStmt) {
        synchronized (LOCK) {
            MethodInfo m = new MethodInfo();
            m.qname = qname;
            m.qnameJson = Out.literal(qname);
            m.key = name(key);
            m.keyText = key;
            m.cls = qname.substring(0, qname.length() - key.indexOf('(') - 1);
            m.params = new int[params.length];
            for (int i = 0; i < params.length; i++) m.params[i] = name(params[i]);
            m.flags = flags;
            m.entryStmt = entryStmt;
            methods.add(m);
            registryHash = mix(registryHash, 'M', qname + key, flags ^ (long) entryStmt << 32);
            return methods.size() - 1;
        }
    }

    /** Per test method and line ("Cls#method#line"): the earlier lines that stored the locals it reads. */
    private static final HashMap<String, int[]> bodyLines = new HashMap<>();

    /**
     * The bytecode of test classes whose line tables are not read yet: they are read at the first
     * failure raised in one of their methods ({@link #readLines}), not as the class loads, since
     * most test classes of a Randoop suite never need them (scanning them all showed in a fifth
     * of a coarse profile's samples; docs/performance.md).
     */
    private static final HashMap<String, byte[]> unreadTestClasses = new HashMap<>();
    /** paf.instr.BodyLines#register, set by the agent: reads a test class's line table into {@link #bodyLines}. */
    private static volatile java.util.function.BiConsumer<String, byte[]> lineReader;

    /** Keeps a test class's bytecode for its line table, read at its first failure. */
    public static void testClass(String cls, byte[] bytes, java.util.function.BiConsumer<String, byte[]> reader) {
        synchronized (LOCK) {
            lineReader = reader;
            unreadTestClasses.put(cls, bytes);
        }
    }

    /** The lines line {@code line} of test method cls.method reads its values from (caller holds LOCK). */
    private static int[] readLines(String cls, String method, int line) {
        byte[] bytes = unreadTestClasses.remove(cls);
        if (bytes != null && lineReader != null) {
            boolean was = busy;
            busy = true; // the reader runs no instrumented code, but be sure
            try {
                lineReader.accept(cls, bytes);
            } catch (Throwable t) {
                // the lines are optional: a failure to read them loses only them
            } finally {
                busy = was;
            }
        }
        return bodyLines.get(cls + "#" + method + "#" + line);
    }

    /** Registers the lines line {@code line} of test method {@code cls.method} reads its values from (paf.instr.BodyLines). */
    public static void bodyLines(String cls, String method, int line, int[] from) {
        synchronized (LOCK) {
            bodyLines.put(cls + "#" + method + "#" + line, from);
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

    /** Methods split into a dispatcher and an instrumented copy (paf.instr.Split): a figure for {@code -v}. */
    private static long splitMethods;
    /** Instrumented classes whose frames were kept from the class file, and computed by ASM (paf.instr.Frames): for {@code -v}. */
    private static long framesKept, framesComputed;

    public static void frames(boolean kept) {
        synchronized (LOCK) {
            if (kept) framesKept++;
            else framesComputed++;
        }
    }

    public static void split(int methods) {
        synchronized (LOCK) {
            splitMethods += methods;
        }
    }

    public static void instrumentError(String msg) {
        synchronized (LOCK) {
            instrumentErrors.add(msg);
        }
    }

    /**
     * The ids given out so far: names, statements, methods, and the hash of their registrations
     * in order ({@link #registryHash}). Two JVMs with the same registry give the same ids to the
     * same registrations that follow.
     */
    public static long[] registry() {
        synchronized (LOCK) {
            return new long[] {names.size(), nextStmt, methods.size(), registryHash};
        }
    }

    /** Folds one registration into the registry's hash (a 64-bit mix: no adversary here). */
    private static long mix(long h, char kind, String text, long id) {
        long x = h ^ kind;
        for (int i = 0; i < text.length(); i++) x = (x ^ text.charAt(i)) * 0x100000001b3L;
        x = (x ^ id) * 0x9E3779B97F4A7C15L;
        return x ^ (x >>> 31);
    }

    /** A class taken from the class cache ({@code hit}) or instrumented and recorded in it. */
    public static void cached(boolean hit) {
        synchronized (LOCK) {
            if (hit) cacheHits++;
            else cacheMisses++;
        }
    }

    static void ioError(IOException e) {
        System.err.println("paf-agent: cannot write the trace: " + e);
    }

    // =====================================================================================
    // Test boundaries (called by the runner)
    // =====================================================================================

    public static void beginTest(String id, String cls, String method) {
        synchronized (LOCK) {
            if (pending != null) settle(); // a test before without its end
            testId = id;
            testCls = cls;
            testMth = method;
            siteThread = Thread.currentThread();
            siteClass = -1;
            siteRecv = null;
            events = 0;
            capCount = 0;
            compacted = 0;
            total = 0;
            seq = 0;
            truncated = false;
            truncatedWhy = null;
            firstFrame = nextFrame;
            ids.clear();
            staticReads.clear();
            staticWrites.clear();
            reach.clear();
            reachOn = false;
            reachRead.clear();
            reachWritten.clear();
            initThread = null;
            ts().depth = 0;
            ts().initDepth = 0;
            phase = PHASE_BEFORE;
            long m = tests.mark();
            tests.setFence(m); // the tests before are written: no cut goes below this test's begin
            try {
                tests.a("{\"k\":\"begin\",\"test\":").str(id);
                if (cls != null) tests.a(",\"class\":").str(cls);
                if (method != null) tests.a(",\"method\":").str(method);
                tests.b('}').commit();
            } catch (Throwable t) {
                tests.rollback(m);
                marksLost = true;
                throw t;
            }
            if (begun) marksLost = true; // the test before has no end record
            begun = true;
            beginLine = nextLine;
            mark(m, beginLine);
            testStart = tests.position();
            tests.logOff(); // until the test is half way to the cap (Out, "the record ends")
            active = true;
            recording = true;
        }
    }

    /** The runner's marks of the test's phases (events of @After methods are not recorded). */
    public static void phase(int p) {
        phase = p;
    }

    /**
     * Ends the test. {@code failure == null}: it passed. {@code testClass}/{@code testMethod} cut
     * the stack traces below the test method; {@code failurePhase} is the phase the failure came
     * from (null: the test method); {@code lifecycle} holds the failures of @Before/@After
     * methods besides it, {@code phases} their phases.
     */
    public static void endTest(String id, Throwable failure, String failurePhase, Throwable[] lifecycle, String[] phases,
            String testClass, String testMethod, String note) {
        synchronized (LOCK) {
            if (pending != null) settle();
            active = false;
            recording = false;
            // first of all, let the test's objects go (the failure may be an OutOfMemoryError)
            ids.release();
            reach.release();
            reachOn = false;
            ts().depth = 0;
            boolean wrote = false;
            for (int attempt = 0; attempt < 3 && !wrote; attempt++) {
                long m = tests.mark();
                try {
                    endRecord(id, failure, failurePhase, lifecycle, phases, testClass, testMethod, note, attempt);
                    tests.commit();
                    wrote = true;
                    // its line: the begin's, then one per event line the end record counts
                    if (begun) mark(m, beginLine + events + 1);
                    else marksLost = true;
                    nextLine = beginLine + events + 2;
                    begun = false;
                } catch (Throwable t) {
                    tests.rollback(m);
                    if (attempt == 2) {
                        marksLost = true;
                        throw t;
                    }
                }
            }
            ids.clear();
            reach.clear();
            endedTests++;
            if (failure == null) passedTests++;
            if (truncated) truncatedTests++;
            eventLines += events;
            flush();
        }
    }

    // ---- the marks of the tests file: where each test's begin and end records are ----
    // paf reads the failing tests of the bundle it gets right after the run; with these it
    // goes to their lines instead of searching 2 GB for them (docs/performance.md, "Fifteenth
    // round"). A line's number is counted, not read: the begin's is the line after the last
    // end's, the end's is the begin's plus the test's event lines (its end record's events,
    // which paf checks), so they hold while every record is one line and only tests write
    // lines. Anything else (a begin or end record that could not be written) loses them.
    /** Byte offset and line of each begin and end record, in pairs, in file order. */
    private static long[] marks = new long[256];
    private static int nMarks;
    private static long nextLine = 1, beginLine;
    private static boolean begun, marksLost;

    private static void mark(long at, long line) {
        if (nMarks + 2 > marks.length) marks = java.util.Arrays.copyOf(marks, marks.length * 2);
        marks[nMarks++] = at;
        marks[nMarks++] = line;
    }

    /**
     * Writes the marks to {@code f} (at the agent's exit, after the last flush): a line
     * {@code paf-marks 1 LENGTH} (the tests file's length then), then {@code b BYTE LINE} and
     * {@code e BYTE LINE} per test. Nothing when they were lost or a test has no end.
     */
    public static void writeMarks(File f) throws IOException {
        synchronized (LOCK) {
            if (tests == null || marksLost || begun) return;
            StringBuilder b = new StringBuilder(32 + nMarks * 12);
            b.append("paf-marks 1 ").append(tests.position()).append('\n');
            for (int i = 0; i < nMarks; i += 2) {
                b.append((i & 2) == 0 ? "b " : "e ").append(marks[i]).append(' ').append(marks[i + 1]).append('\n');
            }
            java.nio.file.Files.write(f.toPath(), b.toString().getBytes(StandardCharsets.UTF_8));
        }
    }

    /** The tests ended in this JVM and their event lines: the supervisor's summary, without reading the file. */
    private static long endedTests, passedTests, truncatedTests, eventLines;

    /**
     * The end record. {@code attempt} > 0 after the first one failed (no memory, no stack): 1
     * leaves out the lifecycle failures and the statics, 2 also the frames and message.
     */
    private static void endRecord(String id, Throwable t, String tPhase, Throwable[] lifecycle, String[] phases,
            String testClass, String testMethod, String note, int attempt) {
        Out o = tests;
        o.a("{\"k\":\"end\",\"test\":").str(id).a(",\"outcome\":").a(t == null ? "\"pass\"" : "\"fail\"")
                .a(",\"events\":").num(events);
        if (truncated) o.a(",\"truncated\":true");
        if (compacted > 0) o.a(",\"compacted\":").num(compacted);
        if (t != null) {
            o.a(",\"exception\":");
            exceptionJson(o, t, tPhase, testClass, testMethod, attempt < 2, 0);
        }
        if (attempt == 0 && lifecycle != null && lifecycle.length > 0) {
            o.a(",\"lifecycle\":[");
            for (int i = 0; i < lifecycle.length; i++) {
                if (i > 0) o.b(',');
                exceptionJson(o, lifecycle[i], phases[i], testClass, testMethod, true, 0);
            }
            o.b(']');
        }
        if (attempt == 0) {
            o.a(",\"statics\":{\"read\":");
            strings(o, staticReads);
            o.a(",\"written\":");
            strings(o, staticWrites);
            o.a(",\"reachable_read\":");
            strings(o, reachRead);
            o.a(",\"reachable_written\":");
            strings(o, reachWritten);
            o.b('}');
        }
        String why = truncatedWhy != null ? truncatedWhy : note;
        if (truncatedWhy != null && note != null) why = truncatedWhy + "; " + note;
        if (why != null) o.a(",\"note\":").str(why);
        o.b('}');
    }

    /**
     * What the agent writes once the tests are over (its counts and the marks: paf.agent.Agent);
     * run once, by {@link #finish}.
     */
    private static Runnable finisher;
    private static boolean finished;

    /** Sets what {@link #finish} runs after the last flush (the agent, at its start). */
    public static void onFinish(Runnable r) {
        synchronized (LOCK) {
            finisher = r;
        }
    }

    /**
     * The tests are over: flushes, closes the statement table and runs the agent's finisher, once
     * (the runner calls it before it prints {@code @@PAF done}, the agent's shutdown hook after).
     * From then on this JVM writes nothing into the work directory: a class loaded later (by a
     * shutdown hook of the code under test) is registered but not written to the table, and runs
     * unrecorded, since no test is running. So the supervisor takes the files as complete at
     * {@code @@PAF done} and writes the bundle while this JVM exits (docs/java.md, "The worker's
     * end").
     */
    public static void finish() {
        Runnable f;
        synchronized (LOCK) {
            if (finished) return;
            finished = true;
            flush();
            if (stmts != null) {
                try {
                    stmts.close();
                } catch (IOException e) {
                    ioError(e);
                }
                stmts = null;
            }
            f = finisher;
        }
        if (f != null) f.run();
    }

    public static void flush() {
        synchronized (LOCK) {
            if (pending != null) settle(); // the JVM exits in a test
            try {
                if (stmts != null) stmts.flush();
                if (tests != null) tests.flush();
            } catch (IOException e) {
                ioError(e);
            }
        }
    }

    public static long outsideEvents() {
        return outsideEvents;
    }

    private static void strings(Out o, TreeSet<String> s) {
        o.b('[');
        boolean first = true;
        for (String x : s) {
            if (!first) o.b(',');
            first = false;
            o.str(x);
        }
        o.b(']');
    }

    /** Whether a stack frame belongs to the agent (never reported). */
    private static boolean agentFrame(String cls) {
        return cls.startsWith("paf.rt.");
    }

    /**
     * An exception object: type, message, frames (innermost first, cut below the test method, the
     * agent's own frames left out), the type's superclasses, the phase it came from when not the
     * test method, and its cause.
     */
    static void exceptionJson(Out o, Throwable t, String tPhase, String testClass, String testMethod, boolean full,
            int depth) {
        o.a("{\"type\":").str(t.getClass().getName());
        if (tPhase != null) o.a(",\"phase\":").str(tPhase);
        o.a(",\"message\":");
        String msg = null;
        if (full) {
            boolean was = busy;
            busy = true; // getMessage may run instrumented code
            try {
                msg = t.getMessage();
            } catch (Throwable e) {
                msg = null;
            } finally {
                busy = was;
            }
        }
        o.str(msg).a(",\"frames\":[");
        StackTraceElement[] st = full ? t.getStackTrace() : new StackTraceElement[0];
        if (full) frames(o, st, testClass, testMethod);
        o.b(']');
        // raised in the test method: the earlier lines whose stored values its failing line reads
        for (StackTraceElement e : st) {
            if (!e.getClassName().equals(testClass) || !e.getMethodName().equals(testMethod)) continue;
            int[] from = readLines(testClass, testMethod, e.getLineNumber());
            if (from != null) {
                o.a(",\"read_lines\":[");
                for (int i = 0; i < from.length; i++) {
                    if (i > 0) o.b(',');
                    o.num(from[i]);
                }
                o.b(']');
            }
            break;
        }
        if (full) {
            // the thrown type's superclasses, nearest first, up to Throwable: paf eval's JCrasher
            // baseline tells errors, checked and runtime exceptions apart by them
            o.a(",\"superclasses\":[");
            boolean comma = false;
            for (Class<?> k = t.getClass().getSuperclass(); k != null && k != Object.class; k = k.getSuperclass()) {
                if (comma) o.b(',');
                comma = true;
                o.str(k.getName());
            }
            o.b(']');
        }
        Throwable c = full && depth < 4 ? t.getCause() : null;
        if (c != null && c != t) {
            o.a(",\"cause\":");
            exceptionJson(o, c, null, testClass, testMethod, true, depth + 1);
        }
        o.b('}');
    }

    private static void frames(Out o, StackTraceElement[] st, String testClass, String testMethod) {
        // cut below the test method; without it on the stack (a lifecycle method), at the first
        // frame of JUnit's or the runner's machinery. The test method is looked for first: an
        // assertion's stack starts in org.junit.Assert, above the test method.
        int end = -1;
        for (int i = 0; i < st.length && end < 0; i++) {
            if (st[i].getClassName().equals(testClass) && st[i].getMethodName().equals(testMethod)) end = i + 1;
        }
        for (int i = 0; i < st.length && end < 0; i++) {
            String c = st[i].getClassName();
            if (c.startsWith("org.junit.runner") || c.startsWith("org.junit.internal.runners")
                    || c.startsWith("org.junit.runners") || c.startsWith("junit.framework.TestCase")
                    || c.startsWith("junit.framework.TestResult") || c.startsWith("jdk.internal.reflect.")
                    || c.startsWith("sun.reflect.") || c.startsWith("paf.runner.")) {
                end = i;
            }
        }
        if (end < 0) end = st.length;
        // an error raised inside the agent (a stack overflow, no memory): its frames, and the JDK
        // frames the agent called, are not the program's
        int first = 0;
        for (int i = 0; i < end; i++) {
            String c = st[i].getClassName();
            if (agentFrame(c)) first = i + 1;
            else if (!(c.startsWith("java.") || c.startsWith("jdk.") || c.startsWith("sun."))) break;
        }
        boolean comma = false;
        for (int i = first; i < end; i++) {
            StackTraceElement e = st[i];
            if (agentFrame(e.getClassName()) || e.getLineNumber() == DISPATCH_LINE) continue;
            if (comma) o.b(',');
            comma = true;
            o.a("{\"class\":").str(e.getClassName()).a(",\"method\":").str(e.getMethodName()).a(",\"file\":")
                    .str(e.getFileName()).a(",\"line\":").num(e.getLineNumber() < 0 ? -1 : e.getLineNumber()).b('}');
        }
    }

    // =====================================================================================
    // Events (called by instrumented code)
    // =====================================================================================

    private static boolean live(int frame) {
        return recording && frame >= firstFrame;
    }

    /**
     * Whether an event of this thread is recorded now (caller holds LOCK): not outside a test,
     * not in @After methods, not after truncation, not while the agent runs foreign code, and not
     * past the class initializer's own budget.
     */
    private static boolean accepting(TState ts) {
        if (pending != null) settleIfDone();
        if (!active || busy || truncated || phase == PHASE_AFTER) {
            if (!active) outsideEvents++;
            return false;
        }
        return !(initOverflow && ts.initDepth > 0);
    }

    /** Ends an event record: counts it, then compacts the test when it reached the cap. */
    private static void commit(TState ts) {
        Out t = tests;
        t.commit();
        // the event's end in the compactor's log (Out.logEnd's common case, written out here)
        int ne = t.nEnds;
        if (ne >= 0) {
            long e = t.position() - t.logBase;
            if (ne < t.ends.length && e <= Integer.MAX_VALUE) {
                int[] d = t.desc;
                if (d != null) t.logDesc(d, ne);
                t.ends[ne] = (int) e;
                t.nEnds = ne + 1;
            } else t.logEnd();
        }
        events++;
        seq++;
        if (ts.initDepth > 0 && initThread == Thread.currentThread()) {
            initOwn++;
            if (++initEvents >= cap) initOverflow = true;
        } else {
            if (++capCount >= cap && initThread == null && !startingInit) capReached();
            else if (capCount == cap >> 1 && tests.nEnds < 0) tests.logFrom(tests.position()); // for a compaction to come
            if (++total >= cap * BUDGET && !truncated) {
                truncated = true;
                recording = false;
                truncatedWhy = "the test ran more than " + BUDGET + " times the event cap (" + cap * BUDGET
                        + " events); the events after that are not recorded";
            }
        }
        if (tests.due()) {
            try {
                tests.flush();
            } catch (IOException e) {
                ioError(e);
            }
        }
    }

    /** The test reached the event cap: keep what the analysis needs, or stop recording it. */
    private static void capReached() {
        if (pending != null && !settle()) return;
        Compactor.Job j;
        try {
            tests.flush();
            j = new Compactor.Job(tests, testStart, cap / 2, Out.DESCRIBE ? nameLiterals() : null,
                    Out.DESCRIBE ? methodLiterals() : null);
        } catch (Throwable t) {
            stopRecording(t);
            return;
        }
        tests.describeFrom(); // the compactions to come read what the writer describes from now on
        pendingEvents = events;
        capCount = 0;
        if (j.end - j.start >= BESIDE_MIN) {
            try {
                j.start();
                pending = j;
                return;
            } catch (Throwable t) {
                // no thread to be had (no memory): the test waits
            }
        }
        j.run();
        // a failure is acted on where it would be beside the test: at the next compaction or the test's end
        if (j.failure == null && j.kept >= 0) finish(j);
        else pending = j;
    }

    /**
     * At the start of an event: the pending compaction's records put in place if its rewrite is
     * over and kept some. Not while a class initializer is recorded (its start would move), nor
     * inside another record (the agent running code it does not control while it builds one).
     */
    private static void settleIfDone() {
        Compactor.Job j = pending;
        if (j.done() && j.kept >= 0 && j.failure == null && initThread == null && !busy && tests.betweenRecords())
            finish(j);
    }

    // the last copies made for a compaction: names and methods are only ever added, so a copy of
    // the same length is the same (a test compacted at a small cap is compacted thousands of times)
    private static byte[][] nameCopy = new byte[0][], methodCopy = new byte[0][];

    /** The JSON strings of the names, by id (for the compactor; caller holds LOCK). */
    private static byte[][] nameLiterals() {
        if (nameCopy.length != namesJson.size()) nameCopy = namesJson.toArray(new byte[0][]);
        return nameCopy;
    }

    /** The JSON strings of the methods' names, by id (for the compactor; caller holds LOCK). */
    private static byte[][] methodLiterals() {
        if (methodCopy.length == methods.size()) return methodCopy;
        byte[][] m = new byte[methods.size()][];
        for (int i = 0; i < m.length; i++) m[i] = methods.get(i).qnameJson;
        methodCopy = m;
        return m;
    }

    /** Waits for the pending compaction and acts on it; whether its records were put in place. */
    private static boolean settle() {
        Compactor.Job j = pending;
        j.await();
        return finish(j);
    }

    /**
     * Acts on a compaction whose rewrite is over: its records in place of its region, the counts
     * moved; or, when it failed, the test truncated at the region's end. Returns whether it was
     * put in place.
     */
    private static boolean finish(Compactor.Job j) {
        pending = null;
        Throwable why = j.failure;
        long kept = j.kept;
        if (why == null && kept >= 0) {
            try {
                j.apply(tests);
                compacted += pendingEvents - kept;
                events -= pendingEvents - kept;
                if (initThread != null) {
                    // a class initializer that began after the region (the JVM exits in it): its start moved with it
                    initMark -= j.shrink();
                    initMarkEvents -= pendingEvents - kept;
                }
                return true;
            } catch (Throwable t) {
                why = t;
            }
        }
        j.discard();
        try {
            tests.truncate(j.end);
        } catch (Throwable t) {
            // the file keeps the events after the region; its count below does not
        }
        events = pendingEvents;
        initThread = null; // its start was past the cut: nothing to roll back
        stopRecording(why);
        return false;
    }

    private static void stopRecording(Throwable why) {
        truncated = true;
        recording = false;
        truncatedWhy = "the test ran past the event cap of " + cap + " events and compaction could not keep it under "
                + cap / 2 + (why == null ? "" : " (" + why + ")") + "; the events after that are not recorded";
    }

    public static int id(Object o) {
        if (o == null || !recording) return 0;
        synchronized (LOCK) {
            return idLocked(o);
        }
    }

    private static int idLocked(Object o) {
        int i = ids.get(o);
        if (i != 0) return i;
        int n = nextObj;
        ids.put(o, n);
        nextObj = n + 1;
        return n;
    }

    /**
     * The line of a split method's dispatcher frame (paf.instr.Split.LINE): it sits between the
     * instrumented copy and its caller, and is left out of recorded stacks and test-line walks.
     */
    public static final int DISPATCH_LINE = 65535;

    /** Whether events are recorded: the check of a split method's dispatcher (paf.instr.Split). */
    public static boolean on() {
        return recording;
    }

    /** Whether a method entered now on this thread is called by the test body (no instrumented frame is active). */
    public static boolean topLevel() {
        return recording && topLevelSlow();
    }

    private static boolean topLevelSlow() {
        if (!recording || phase == PHASE_AFTER) return false;
        Frame top = ts().top();
        return top == null || top.id < firstFrame;
    }

    /** Method entry from the test body, with the argument values (primitives boxed) for the enter's "values". */
    public static int enterTop(int mid, Object self, Object[] args) {
        if (!recording) return -1;
        synchronized (LOCK) {
            if (!recording) return -1;
            byte[] values = null;
            boolean was = busy;
            busy = true; // reflection on the receiver's fields runs no instrumented code, but be sure
            try {
                values = entryValues(methods.get(mid), self, args);
            } catch (Throwable t) {
                values = null; // values are optional: a failure to read them loses only them
            } finally {
                busy = was;
            }
            return enter(mid, self, values);
        }
    }

    /** Method entry. {@code self}: the receiver, null for static methods and constructors. */
    public static int enter(int mid, Object self) {
        return recording ? enter(mid, self, null) : -1;
    }

    /**
     * On a stack walk from the runtime: the line of the test method below the method being
     * entered, times 2, plus 1 when the call is a callback (its caller is neither the test method
     * nor JUnit's assertions, which call equals for assertEquals, but other uninstrumented code:
     * AbstractMap.equals calling entrySet); -1 without the test method (a lifecycle method).
     */
    private static final java.util.function.Function<java.util.stream.Stream<StackWalker.StackFrame>, Integer> TEST_LINE = s -> {
        java.util.Iterator<StackWalker.StackFrame> it = s.iterator();
        boolean callee = false, callback = false;
        while (it.hasNext()) {
            StackWalker.StackFrame f = it.next();
            String c = f.getClassName();
            if (c.startsWith("paf.rt.") || reflectionFrame(c) || f.getLineNumber() == DISPATCH_LINE) continue;
            if (!callee) { // the instrumented method being entered
                callee = true;
                continue;
            }
            if (c.equals(testCls) && f.getMethodName().equals(testMth))
                return f.getLineNumber() < 0 ? -1 : 2 * f.getLineNumber() + (callback ? 1 : 0);
            if (!(c.startsWith("org.junit.") || c.startsWith("junit.framework."))) callback = true;
        }
        return -1;
    };

    /**
     * The stack walker of {@link #testLine}. It shows reflection frames and {@link #TEST_LINE}
     * skips them by name: the JDK's own filter asks {@code Class.isAssignableFrom} through JNI of
     * every frame, a tenth of the walk (docs/performance.md, "The tracer").
     */
    private static final StackWalker WALKER = StackWalker.getInstance(StackWalker.Option.SHOW_REFLECT_FRAMES);

    /** The frames StackWalker hides unless asked for reflection frames (StackStreamFactory.isReflectionFrame). */
    private static boolean reflectionFrame(String c) {
        return c.startsWith("jdk.internal.reflect.") || c.equals("java.lang.reflect.Method")
                || c.equals("java.lang.reflect.Constructor") || c.startsWith("java.lang.invoke.LambdaForm");
    }

    // ---- test call sites (paf.instr.TestSites) ----
    public static final byte SITE_INSTANCE = 0, SITE_STATIC = 1, SITE_CTOR = 2;
    /** The largest class index and site number: both are pushed by {@code sipush}. */
    public static final int SITE_MAX = Short.MAX_VALUE;
    private static final int NO_SITE = Integer.MIN_VALUE;

    /** The call sites of one test class, by their number in it. */
    private static final class SiteClass {
        final String cls;
        final String[] methods; // the class's method names
        final int[] method, line; // per site: index in methods, line (-1: none)
        final String[] key, owner; // per site: the callee's "m(desc)", the call's owner class (dots)
        final byte[] kind;

        SiteClass(String cls, String[] methods, int[] method, int[] line, String[] key, String[] owner, byte[] kind) {
            this.cls = cls;
            this.methods = methods;
            this.method = method;
            this.line = line;
            this.key = key;
            this.owner = owner;
            this.kind = kind;
        }
    }

    /**
     * The site tables' lock: the agent's thread that rewrites test classes registers them while
     * the runner's thread records events, and a second thread on {@link #LOCK} would make the
     * JVM inflate it for good (joda-time: a tenth of a second more in monitor enters and exits).
     */
    private static final Object SITE_LOCK = new Object();
    private static final ArrayList<String> siteClassNames = new ArrayList<>();
    private static volatile SiteClass[] siteClasses = new SiteClass[0];
    /** The thread running the test: only its sites are kept. */
    private static volatile Thread siteThread;
    /** The last site the test thread passed (its class and number) and its receiver (instance calls); -1: none since the last entry. */
    private static int siteClass = -1, siteNumber;
    private static Object siteRecv;
    /** Entries from the test body whose test line came from a site, and from a stack walk (the agent's report). */
    private static long siteHits, siteWalks;

    /** A new test class's index for its sites, or -1 when there is no room (its calls are then found by stack walks). */
    public static int testSiteClass(String cls) {
        synchronized (SITE_LOCK) {
            if (siteClassNames.size() > SITE_MAX) return -1;
            siteClassNames.add(cls);
            return siteClassNames.size() - 1;
        }
    }

    /** The sites of test class {@code index}, before its code runs (paf.instr.TestSites). */
    public static void testSites(int index, String[] methodNames, int[] method, int[] line, String[] key, String[] owner,
            byte[] kind) {
        synchronized (SITE_LOCK) {
            SiteClass[] a = siteClasses;
            if (a.length <= index) a = java.util.Arrays.copyOf(a, Math.max(index + 1, 2 * a.length));
            a[index] = new SiteClass(siteClassNames.get(index), methodNames, method, line, key, owner, kind);
            siteClasses = a;
        }
    }

    /** The methods an instrumented class declares (name ids of "m(desc)"), for {@link #dispatchesTo}. */
    public static void classKeys(String cls, int[] keys) {
        int[] k = keys.clone();
        java.util.Arrays.sort(k);
        synchronized (LOCK) {
            classKeys.put(cls, k);
        }
    }

    /** A test method is about to make call {@code number} of test class {@code cls}; {@code recv}: its receiver, for an instance call. */
    public static void site(Object recv, int cls, int number) {
        if (recording && Thread.currentThread() == siteThread) {
            siteRecv = recv;
            siteClass = cls;
            siteNumber = number;
        }
    }

    /**
     * The test line of an entry from the test body, as {@link #testLine} would find it, when the
     * last site the test thread passed is sure to be the call of method {@code m} on {@code self}:
     * the site is in the test method, its callee has m's name and descriptor, and it is m itself,
     * not an uninstrumented method between them (an instance call's receiver is {@code self} and
     * dispatches to m; a static call or a constructor names m's class). {@link #NO_SITE} otherwise.
     * The site is used up either way: the next entry from the test body needs a site of its own.
     */
    private static int siteLine(MethodInfo m, Object self) {
        int c = siteClass, i = siteNumber;
        if (c < 0 || Thread.currentThread() != siteThread) return NO_SITE;
        Object recv = siteRecv;
        siteClass = -1;
        siteRecv = null;
        SiteClass[] a = siteClasses;
        SiteClass sc = c < a.length ? a[c] : null;
        if (sc == null || i >= sc.key.length || !sc.key[i].equals(m.keyText)) return NO_SITE;
        if (!sc.cls.equals(testCls) || !sc.methods[sc.method[i]].equals(testMth)) return NO_SITE;
        if (sc.kind[i] == SITE_INSTANCE) {
            if (self == null || self != recv || !dispatchesTo(self.getClass(), m)) return NO_SITE;
        } else if (!sc.owner[i].equals(m.cls)) {
            return NO_SITE;
        }
        return sc.line[i] < 0 ? -1 : 2 * sc.line[i];
    }

    /**
     * Whether a call of m's name and descriptor on an object of class {@code c} runs m: going up
     * from c, m's class is reached before any class that declares a method of that name and
     * descriptor, and every class passed is instrumented (its methods known). Otherwise an
     * uninstrumented override may stand between the test body and m: false, and the stack is walked.
     */
    private static boolean dispatchesTo(Class<?> c, MethodInfo m) {
        if (m.direct == c) return true;
        for (Class<?> k = c; k != null; k = k.getSuperclass()) {
            String n = k.getName();
            if (n.equals(m.cls)) {
                m.direct = c;
                return true;
            }
            int[] keys = classKeys.get(n);
            if (keys == null || java.util.Arrays.binarySearch(keys, m.key) >= 0) return false;
        }
        return false;
    }

    /**
     * The line of the test method that made the call being entered (a call from the test body,
     * directly or through JUnit's assertions): what the analysis of a failure raised in the test
     * body matches the exception's line against. -1 when the test method is not its caller (a
     * lifecycle method, a JDK callback) or has no line table.
     */
    private static int testLine() {
        if (testCls == null || testMth == null) return -1;
        boolean was = busy;
        busy = true; // the walk runs no instrumented code, but be sure
        try {
            return WALKER.walk(TEST_LINE);
        } catch (Throwable t) {
            return -1; // the line is optional: a failure to find it loses only it
        } finally {
            busy = was;
        }
    }

    /** The class of a lambda proxy (the JDK's generated implementation of a functional interface). */
    private static boolean lambdaProxy(Object o) {
        Class<?> c = o.getClass();
        return c.isSynthetic() && c.getName().contains("$$Lambda");
    }

    private static int enter(int mid, Object self, byte[] values) {
        if (!recording) return -1;
        synchronized (LOCK) {
            TState ts = ts();
            if (!accepting(ts)) return -1;
            MethodInfo m = methods.get(mid);
            Frame top = ts.top();
            Frame caller = (top != null && top.id >= firstFrame) ? top : null;
            // the callee of the pending call site: same name and descriptor and, for an instance
            // method, the same receiver (not a callback from uninstrumented code in between)
            boolean matched = caller != null && caller.pendingKey == m.key
                    && (self == null || caller.pendingRecv == null || caller.pendingRecv == self);
            // a lambda body or method reference called by the JDK's lambda proxy: the interface
            // call's arguments are the last parameters (after captured values) or, for an unbound
            // method reference, the receiver and the parameters
            int shift = 0;
            boolean viaProxy = false;
            if (!matched && caller != null && caller.pendingKey >= 0 && caller.pendingRecv != null
                    && lambdaProxy(caller.pendingRecv)) {
                int np = m.params.length, na = caller.nArgs;
                if ((m.flags & M_LAMBDA) != 0 && np >= na) {
                    viaProxy = true;
                    shift = na - np;
                } else if (np == na) {
                    viaProxy = true;
                } else if (self != null && np == na - 1) {
                    viaProxy = true;
                    shift = 1;
                }
            }
            boolean clinit = (m.flags & M_CLINIT) != 0;
            boolean startsInit = clinit && ts.initDepth == 0 && initThread == null;
            long before = tests.position(), eventsBefore = events, seqBefore = seq;
            Frame f = ts.next();
            int fid = nextFrame;
            int thisId = 0;
            if (self != null) thisId = idLocked(self);
            else if ((m.flags & M_CTOR) != 0) thisId = (matched && caller.pendingSuper) ? caller.thisId : nextObj++;
            long mark = tests.mark();
            try {
                Out o = tests;
                o.raw(J_ENTER).num(fid).raw(J_METHOD).raw(m.qnameJson);
                if (caller != null) {
                    o.raw(J_CALLER).num(caller.id);
                    if ((matched || viaProxy) && caller.pendingSite >= 0) o.raw(J_SITE).num(caller.pendingSite);
                }
                if (thisId != 0) o.raw(J_THIS).num(thisId);
                if (caller == null && !clinit) {
                    int line = siteLine(m, self);
                    if (line != NO_SITE) siteHits++;
                    else {
                        line = testLine();
                        siteWalks++;
                    }
                    if (line >= 0) {
                        o.raw(J_TEST_LINE).num(line / 2);
                        if ((line & 1) != 0) o.raw(J_CALLBACK);
                    }
                }
                if (values != null && caller == null) o.raw(J_VALUES).raw(values);
                o.b('}');
                if (o.desc != null) {
                    describe(o, mark, Out.D_ENTER, fid, caller != null ? caller.id : -1, K_NONE, 0, 0, 0, -1, K_NONE, 0, 0, 0, -1);
                    o.d1n = mid; // the method
                    if (caller != null) o.dKind |= Out.D_CALLER;
                }
                // no compaction at this record: the initializer's start (before it) must stay where it is
                startingInit = startsInit;
                commit(ts);
            } catch (Throwable t) {
                tests.rollback(mark);
                throw t;
            } finally {
                startingInit = false;
            }
            if (startsInit) {
                // a class initializer's events are rolled back when it completes (endInit)
                initThread = Thread.currentThread();
                initMark = before;
                initMarkEvents = eventsBefore;
                initMarkSeq = seqBefore;
                initOwn = 1;
                initEvents = 1;
                initOverflow = false;
                initClass = m.qname;
            }
            // from here the frame is on the stack (nothing below allocates before it is pushed), so
            // that an error in a parameter's record still ends in an exit for it
            f.reset();
            f.id = fid;
            f.method = mid;
            f.thisId = thisId;
            f.clinit = clinit;
            nextFrame = fid + 1;
            ts.depth++;
            if (clinit) ts.initDepth++;
            for (int i = 0; i < m.params.length && accepting(ts); i++) {
                int j = i + shift;
                boolean known = (matched || viaProxy) && j >= 0 && j < caller.nArgs;
                long pm = tests.mark();
                try {
                    Out o = tests;
                    o.raw(J_DEF).num(fid);
                    stmtVar(o, m.entryStmt, SEP_VAR, K_LOCAL, m.params[i], 0, 0);
                    if (known && caller.aKind[j] != K_NONE) {
                        o.raw(J_FROM);
                        var(o, caller.aKind[j], caller.aName[j], caller.aX[j], caller.aY[j], caller.id);
                    } else {
                        int how = known ? caller.aHow[j] : H_PARAM;
                        o.raw(J_HOW).raw(HOW_JSON[how]).b('"');
                    }
                    o.b('}');
                    if (o.desc != null) {
                        boolean from = known && caller.aKind[j] != K_NONE;
                        describe(o, pm, Out.D_DEF, fid, m.entryStmt, K_LOCAL, m.params[i], 0, 0, -1, from ? caller.aKind[j] : K_NONE,
                                from ? caller.aName[j] : 0, from ? caller.aX[j] : 0, from ? caller.aY[j] : 0, from ? caller.id : -1);
                    }
                    commit(ts);
                } catch (Throwable t) {
                    tests.rollback(pm);
                    throw t;
                }
            }
            if (matched || viaProxy) {
                caller.pendingKey = -1;
                caller.pendingRecv = null;
                caller.lastCallee = fid;
            }
            return fid;
        }
    }

    /** Instance fields of instrumented classes in a class chain, readable by reflection. */
    private static final HashMap<Class<?>, java.lang.reflect.Field[]> entryFields = new HashMap<>();
    /** The JSON literals of those fields' names ("Cls.field"), made once per field. */
    private static final HashMap<java.lang.reflect.Field, String> fieldLiterals = new HashMap<>();
    /** The JSON literals of parameter names (by name id), made once per name. */
    private static final HashMap<Integer, String> paramLiterals = new HashMap<>();
    /** The buffer "values" are built in (under LOCK). */
    private static final StringBuilder valuesBuf = new StringBuilder(256);

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
    private static byte[] entryValues(MethodInfo m, Object self, Object[] args) throws IllegalAccessException {
        StringBuilder b = valuesBuf;
        b.setLength(0);
        b.append("{\"args\":{");
        boolean first = true;
        for (int i = 0; i < args.length && i < m.params.length; i++) {
            if (!valueWritable(args[i])) continue;
            if (!first) b.append(',');
            String lit = paramLiterals.get(m.params[i]);
            if (lit == null) {
                String name = names.get(m.params[i]);
                lit = name == null ? "" : quote(name);
                paramLiterals.put(m.params[i], lit);
            }
            b.append(lit).append(':');
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
                String lit = fieldLiterals.get(f);
                if (lit == null) {
                    lit = quote(f.getDeclaringClass().getName() + "." + f.getName());
                    fieldLiterals.put(f, lit);
                }
                b.append(lit).append(':');
                value(b, v);
                first = false;
            }
            b.append('}');
        }
        return b.append('}').toString().getBytes(StandardCharsets.UTF_8);
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
        if (recording) ctorReadySlow(self, frame);
    }

    private static void ctorReadySlow(Object self, int frame) {
        if (!live(frame)) return;
        synchronized (LOCK) {
            if (!live(frame)) return; // the test may have ended while this thread waited
            TState ts = ts();
            if (!accepting(ts) || ids.get(self) != 0) return;
            Frame f = ts.find(frame);
            if (f == null) return;
            byte[] fields = allocFields(self.getClass());
            long mark = tests.mark();
            try {
                tests.a("{\"k\":\"alloc\",\"obj\":").num(f.thisId).a(",\"class\":").str(self.getClass().getName())
                        .a(",\"frame\":").num(frame).a(",\"fields\":").raw(fields).b('}');
                commit(ts);
            } catch (Throwable t) {
                tests.rollback(mark);
                throw t;
            }
            ids.put(self, f.thisId);
        }
    }

    private static byte[] allocFields(Class<?> c) {
        byte[] s = allocFieldsCache.get(c);
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
        s = b.append(']').toString().getBytes(StandardCharsets.UTF_8);
        allocFieldsCache.put(c, s);
        return s;
    }

    public static void allocArray(Object arr, int frame, int stmt) {
        if (recording) allocArraySlow(arr, frame, stmt);
    }

    private static void allocArraySlow(Object arr, int frame, int stmt) {
        if (!live(frame) || arr == null) return;
        synchronized (LOCK) {
            if (!live(frame) || arr == null) return; // the test may have ended while this thread waited
            TState ts = ts();
            if (!accepting(ts)) return;
            int id = idLocked(arr);
            long mark = tests.mark();
            try {
                tests.a("{\"k\":\"alloc\",\"obj\":").num(id).a(",\"class\":")
                        .str(arr.getClass().getComponentType().getName() + "[]").a(",\"frame\":").num(frame)
                        .a(",\"stmt\":").num(stmt).a(",\"length\":").num(java.lang.reflect.Array.getLength(arr)).b('}');
                commit(ts);
            } catch (Throwable t) {
                tests.rollback(mark);
                throw t;
            }
        }
    }

    public static void exit(int frame) {
        if (recording) exitSlow(frame);
    }

    private static void exitSlow(int frame) {
        if (!live(frame)) return;
        synchronized (LOCK) {
            if (!live(frame)) return; // the test may have ended while this thread waited
            pop(frame, null);
        }
    }

    public static void exitThrow(Throwable t, int frame) {
        if (recording || t instanceof OutOfMemoryError) exitThrowSlow(t, frame);
    }

    private static void exitThrowSlow(Throwable t, int frame) {
        if (t instanceof OutOfMemoryError) {
            // the test's objects must be collectable for the failure to be recorded at all
            synchronized (LOCK) {
                ids.release();
                reach.release();
            }
        }
        if (!live(frame)) return;
        synchronized (LOCK) {
            if (!live(frame)) return; // the test may have ended while this thread waited
            pop(frame, t == null ? "java.lang.Throwable" : t.getClass().getName());
        }
    }

    private static void pop(int frame, String threw) {
        TState ts = ts();
        if (ts.find(frame) == null) return;
        boolean write = accepting(ts);
        while (ts.depth > 0) {
            Frame f = ts.stack[ts.depth - 1];
            // frames above `frame` were left by an exception no handler of ours saw
            String th = f.id == frame ? threw : (threw != null ? threw : "java.lang.Throwable");
            if (write) {
                long mark = tests.mark();
                try {
                    tests.raw(J_EXIT).num(f.id);
                    if (th != null) tests.raw(J_THROW).str(th);
                    tests.b('}');
                    if (tests.desc != null) describe(tests, mark, Out.D_EXIT, f.id, -1, K_NONE, 0, 0, 0, -1, K_NONE, 0, 0, 0, -1);
                    commit(ts);
                } catch (Throwable t) {
                    tests.rollback(mark);
                    throw t;
                }
            }
            ts.depth--;
            f.pendingRecv = null;
            if (f.clinit) endInit(ts, th == null);
            if (f.id == frame) break;
            write = accepting(ts);
        }
    }

    /** A class initializer frame ended: roll its events back when it completed and no other thread wrote meanwhile. */
    private static void endInit(TState ts, boolean normally) {
        ts.initDepth--;
        if (ts.initDepth > 0 || initThread != Thread.currentThread()) return;
        boolean alone = seq - initMarkSeq == initOwn;
        if (normally && alone) {
            try {
                tests.truncate(initMark);
                events = initMarkEvents;
                seq = initMarkSeq;
            } catch (Throwable e) {
                // the file and the counts may disagree now: stop recording this test
                truncated = true;
                recording = false;
                truncatedWhy = "the class initializer " + initClass + "'s events could not be rolled back (" + e + ")";
            }
        } else if (initOverflow) {
            truncated = true;
            truncatedWhy = "the class initializer " + initClass + " ran more than " + cap + " events"
                    + (normally ? " while other threads wrote events" : " and failed") + "; its events are incomplete";
        }
        initThread = null;
        initOverflow = false;
    }

    /** Before a call: the next frame entered with this key from this frame is the callee. */
    public static void preCall(Object recv, int frame, int site, int key, boolean superInit) {
        if (recording) preCallSlow(recv, frame, site, key, superInit);
    }

    private static void preCallSlow(Object recv, int frame, int site, int key, boolean superInit) {
        if (!live(frame)) return;
        Frame f = ts().top();
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
        return recording ? postCallSlow(frame, stmt, temp, callee) : -1;
    }

    private static int postCallSlow(int frame, int stmt, int temp, int callee) {
        if (!live(frame)) return -1;
        synchronized (LOCK) {
            if (!live(frame)) return -1; // the test may have ended while this thread waited
            TState ts = ts();
            Frame f = ts.top();
            int h = -1;
            if (f != null && f.id == frame) {
                h = f.lastCallee;
                if (h < 0) uninstrumentedCall(f);
                f.lastCallee = -1;
                f.pendingKey = -1;
                f.pendingRecv = null;
            }
            if (h < 0 && temp >= 0 && accepting(ts)) {
                long mark = tests.mark();
                try {
                    tests.raw(J_DEF).num(frame);
                    stmtVar(tests, stmt, SEP_VAR, K_LOCAL, temp, 0, 0);
                    tests.raw(J_HOW_CALL).raw(namesJson.get(callee)).b('}');
                    if (tests.desc != null) describe(tests, mark, Out.D_DEF, frame, stmt, K_LOCAL, temp, 0, 0, -1, K_NONE, 0, 0, 0, -1);
                    commit(ts);
                } catch (Throwable t) {
                    tests.rollback(mark);
                    throw t;
                }
            }
            return h;
        }
    }

    public static void postCallVoid(int frame) {
        if (recording) postCallVoidSlow(frame);
    }

    private static void postCallVoidSlow(int frame) {
        if (!live(frame)) return;
        Frame f = ts().top();
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
        if (recording) useRefSlow(v, frame, stmt, role, kind, name, x, y, how);
    }

    private static void useRefSlow(Object v, int frame, int stmt, int role, int kind, int name, int x, int y, int how) {
        if (!live(frame)) return;
        synchronized (LOCK) {
            if (!live(frame)) return; // the test may have ended while this thread waited
            use0(frame, stmt, role, kind, name, x, y, how, v == null);
        }
    }

    /**
     * The value an {@code aastore} stores, recorded (role value) only when the store is about to
     * fail with ArrayStoreException (the JVM's own check, made first): the crash variable of that
     * exception (docs/algorithm.md), at no cost to the stores that succeed.
     */
    public static void useStore(Object arr, Object v, int frame, int stmt, int kind, int name, int x, int y, int how) {
        if (recording) useStoreSlow(arr, v, frame, stmt, kind, name, x, y, how);
    }

    private static void useStoreSlow(Object arr, Object v, int frame, int stmt, int kind, int name, int x, int y, int how) {
        if (v == null || arr == null || arr.getClass().getComponentType().isInstance(v)) return;
        useRef(v, frame, stmt, ROLE_VALUE, kind, name, x, y, how);
    }

    /** A use of a primitive value. */
    public static void use(int frame, int stmt, int role, int kind, int name, int x, int y, int how) {
        if (recording) useSlow(frame, stmt, role, kind, name, x, y, how);
    }

    private static void useSlow(int frame, int stmt, int role, int kind, int name, int x, int y, int how) {
        if (!live(frame)) return;
        synchronized (LOCK) {
            if (!live(frame)) return; // the test may have ended while this thread waited
            use0(frame, stmt, role, kind, name, x, y, how, false);
        }
    }

    private static void use0(int frame, int stmt, int role, int kind, int name, int x, int y, int how, boolean isNull) {
        TState ts = ts();
        if (role == ROLE_ARG) {
            Frame f = ts.top();
            if (f != null && f.id == frame && f.pendingKey >= 0) {
                int i = f.nArgs;
                if (i == f.aKind.length) {
                    int n = i * 2;
                    int[] k = java.util.Arrays.copyOf(f.aKind, n), nm = java.util.Arrays.copyOf(f.aName, n),
                            ax = java.util.Arrays.copyOf(f.aX, n), ay = java.util.Arrays.copyOf(f.aY, n),
                            ah = java.util.Arrays.copyOf(f.aHow, n);
                    f.aKind = k;
                    f.aName = nm;
                    f.aX = ax;
                    f.aY = ay;
                    f.aHow = ah;
                }
                f.aKind[i] = kind == K_RET && x < 0 ? K_TEMP : kind;
                f.aName[i] = name;
                f.aX[i] = x;
                f.aY[i] = y;
                f.aHow[i] = how;
                f.nArgs = i + 1;
            }
        }
        if (kind == K_NONE) return;
        if (kind == K_STATIC) staticReads.add(names.get(name));
        if (!accepting(ts)) return;
        long mark = tests.mark();
        try {
            tests.raw(J_USE).num(frame);
            stmtVar(tests, stmt, SEP_VAR, kind, name, x, y);
            if (role != ROLE_VALUE) tests.raw(J_ROLE).raw(ROLE_JSON[role]).b('"');
            if (isNull) tests.raw(J_NULL);
            tests.b('}');
            if (tests.desc != null) describe(tests, mark, Out.D_USE, frame, stmt, kind, name, x, y, -1, K_NONE, 0, 0, 0, -1);
            commit(ts);
        } catch (Throwable t) {
            tests.rollback(mark);
            throw t;
        }
    }

    /** A static field read (for the per-test static read set; no event). */
    public static void sread(int frame, int name) {
        if (recording) sreadSlow(frame, name);
    }

    private static void sreadSlow(int frame, int name) {
        if (!live(frame)) return;
        synchronized (LOCK) {
            if (!live(frame)) return; // the test may have ended while this thread waited
            staticReads.add(names.get(name));
        }
    }

    private static boolean plainValue(Object v) {
        return v instanceof String || v instanceof Number || v instanceof Boolean || v instanceof Character
                || v instanceof Class;
    }

    /** A reference read from a static field: the root of the objects reachable from it. */
    public static void sroot(Object v, int frame, int name) {
        if (recording) srootSlow(v, frame, name);
    }

    private static void srootSlow(Object v, int frame, int name) {
        if (!live(frame)) return;
        synchronized (LOCK) {
            if (!live(frame)) return; // the test may have ended while this thread waited
            staticReads.add(names.get(name));
            if (v == null || plainValue(v)) return;
            if (reach.get(v) == 0) reach.put(v, name + 1);
            reachOn = true;
        }
    }

    /** A field or element load from {@code from}: if it is reachable from a static, so is the value. */
    public static void reachLoad(Object value, Object from) {
        if (reachOn && recording) reachLoadSlow(value, from);
    }

    private static void reachLoadSlow(Object value, Object from) {
        // not after the test stopped recording (truncated: sroot and idw stop there too), where a
        // lookup per field load was a fifth of the time of a test looping past its budget
        if (!reachOn || from == null || !recording) return;
        synchronized (LOCK) {
            if (!active) return;
            int root = reach.get(from);
            if (root == 0) return;
            reachRead.add(names.get(root - 1));
            if (value != null && reach.get(value) == 0 && !plainValue(value)) reach.put(value, root);
        }
    }

    /** The id of an object about to be written (field or element): records writes to static state. */
    public static int idw(Object o) {
        return recording && o != null ? idwSlow(o) : 0;
    }

    private static int idwSlow(Object o) {
        if (o == null || !recording) return 0;
        synchronized (LOCK) {
            if (reachOn) {
                int root = reach.get(o);
                if (root != 0) reachWritten.add(names.get(root - 1));
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
            int root = reach.get(f.pendingRecv);
            if (root != 0) {
                String r = names.get(root - 1);
                reachRead.add(r);
                String m = f.pendingKey >= 0 ? names.get(f.pendingKey) : "";
                int paren = m.indexOf('(');
                // conservative: an uninstrumented callee may have changed it, unless it is a
                // well-known query (a later mutation through a returned iterator or view is missed)
                if (!READ_ONLY.contains(paren < 0 ? m : m.substring(0, paren))) reachWritten.add(r);
            }
        }
    }

    /** A def of a temporary (a constant or computed operand that a use needs a name for). */
    public static void defTemp(int frame, int stmt, int name, int how) {
        if (recording) defTempSlow(frame, stmt, name, how);
    }

    private static void defTempSlow(int frame, int stmt, int name, int how) {
        if (!live(frame)) return;
        synchronized (LOCK) {
            if (!live(frame)) return; // the test may have ended while this thread waited
            TState ts = ts();
            if (!accepting(ts)) return;
            long mark = tests.mark();
            try {
                tests.raw(J_DEF).num(frame);
                stmtVar(tests, stmt, SEP_VAR, K_LOCAL, name, 0, 0);
                tests.raw(J_HOW).raw(HOW_JSON[how]).raw(J_QUOTE_END);
                if (tests.desc != null) describe(tests, mark, Out.D_DEF, frame, stmt, K_LOCAL, name, 0, 0, -1, K_NONE, 0, 0, 0, -1);
                commit(ts);
            } catch (Throwable t) {
                tests.rollback(mark);
                throw t;
            }
        }
    }

    /**
     * A definition of variable (vk, vn, vx, vy) at stmt. The source: a variable (sk != K_NONE; a
     * K_RET source with sx < 0 means an uninstrumented callee: how=call, callee=sn) or a how code.
     */
    public static void def(int frame, int stmt, int vk, int vn, int vx, int vy, int sk, int sn, int sx, int sy, int how,
            boolean cast) {
        if (recording) defSlow(frame, stmt, vk, vn, vx, vy, sk, sn, sx, sy, how, cast);
    }

    private static void defSlow(int frame, int stmt, int vk, int vn, int vx, int vy, int sk, int sn, int sx, int sy, int how,
            boolean cast) {
        if (!live(frame)) return;
        synchronized (LOCK) {
            if (!live(frame)) return; // the test may have ended while this thread waited
            if (sk == vk && sn == vn && sx == vx && sy == vy && sk != K_NONE && sk != K_ELEM) return; // x = x
            if (sk == K_ELEM && vk == K_ELEM && sx == vx && sy == vy) return; // a[i] = a[i]
            if (vk == K_STATIC) staticWrites.add(names.get(vn));
            if (sk == K_STATIC) staticReads.add(names.get(sn));
            TState ts = ts();
            if (!accepting(ts)) return;
            long mark = tests.mark();
            try {
                Out o = tests;
                o.raw(J_DEF).num(frame);
                stmtVar(o, stmt, SEP_VAR, vk, vn, vx, vy);
                if (sk == K_RET && sx < 0) {
                    o.raw(J_HOW_CALL).raw(namesJson.get(sn));
                } else if (sk != K_NONE) {
                    stmtVar(o, stmt, SEP_FROM, sk, sn, sx, sy);
                    if (cast) o.raw(J_CAST);
                } else {
                    o.raw(J_HOW).raw(HOW_JSON[how]).b('"');
                    if (how == H_CALL && sn >= 0) o.raw(J_CALLEE).raw(namesJson.get(sn));
                }
                o.b('}');
                if (o.desc != null) {
                    boolean from = sk != K_NONE && !(sk == K_RET && sx < 0);
                    describe(o, mark, Out.D_DEF, frame, stmt, vk, vn, vx, vy, -1, from ? sk : K_NONE, sn, sx, sy, -1);
                }
                commit(ts);
            } catch (Throwable t) {
                tests.rollback(mark);
                throw t;
            }
        }
    }

    /** A conditional branch reading up to two variables (kind K_NONE: not a variable). */
    public static void branch(int frame, int stmt, int k1, int n1, int x1, int y1, int k2, int n2, int x2, int y2) {
        if (recording) branchSlow(frame, stmt, k1, n1, x1, y1, k2, n2, x2, y2);
    }

    private static void branchSlow(int frame, int stmt, int k1, int n1, int x1, int y1, int k2, int n2, int x2, int y2) {
        if (!live(frame)) return;
        synchronized (LOCK) {
            if (!live(frame)) return; // the test may have ended while this thread waited
            if (k1 == K_STATIC) staticReads.add(names.get(n1));
            if (k2 == K_STATIC) staticReads.add(names.get(n2));
            TState ts = ts();
            if (!accepting(ts)) return;
            long mark = tests.mark();
            try {
                Out o = tests;
                o.raw(J_BRANCH).num(frame);
                stmtVar(o, stmt, SEP_USES, k1 == K_NONE ? HK_NONE : k1, n1, x1, y1);
                if (k2 != K_NONE) {
                    if (k1 != K_NONE) o.b(',');
                    var(o, k2, n2, x2, y2, -1);
                }
                o.raw(J_USES_END);
                if (o.desc != null) describe(o, mark, Out.D_BRANCH, frame, stmt, k1, n1, x1, y1, -1, k2, n2, x2, y2, -1);
                commit(ts);
            } catch (Throwable t) {
                tests.rollback(mark);
                throw t;
            }
        }
    }

    // ---- the constant bytes of an event after its frame (docs/performance.md, "Twentieth round") ----
    // An event's statement, and the name and kind of its first variable, are the same every time
    // its instruction runs: `,"stmt":776,"var":{"local":"local2"}` is one array copy from a
    // cache, where writing it was a dozen appends and a number's digits. What follows the
    // constant start (an object id, an array index) is written as before. Callers hold LOCK.
    /** What comes before the variable: `,"stmt":S,"var":`, `,"stmt":S,"uses":[`, or `,"from":` (no statement). */
    private static final int SEP_VAR = 0, SEP_USES = 1, SEP_FROM = 2;
    private static final byte[][] SEPS = {J_VAR, J_USES, J_FROM};
    /** Head kinds past the variable kinds: a K_RET of an uninstrumented callee (a local), no variable. */
    private static final int HK_RET_LOCAL = 7, HK_NONE = 8;
    /**
     * The cache's slots: 65,536, or PAF_HEADS=N (a power of two, for the checks: 4 makes its
     * slots change hands all the time), or PAF_HEADS=0, no cache: the statement and the variable
     * written as before it ({@code tracer/java/e2e.sh} compares the three traces).
     */
    private static final int HEADS = heads(System.getenv("PAF_HEADS"));
    private static final int HEAD_MASK = Math.max(HEADS, 1) - 1;
    /** A slot's key: statement << 32 | (name + 1) << 8 | head kind << 2 | sep. */
    private static final long[] headKey = new long[Math.max(HEADS, 1)];
    private static final byte[][] headBytes = new byte[Math.max(HEADS, 1)][];

    private static int heads(String v) {
        if (v == null) return 1 << 16;
        try {
            int n = Integer.parseInt(v.trim());
            if (n == 0 || (n > 0 && n <= 1 << 16 && Integer.bitCount(n) == 1)) return n;
        } catch (NumberFormatException e) {
            // the default below
        }
        return 1 << 16;
    }

    /** `,"stmt":S` (unless SEP_FROM), {@code sep} and the variable: {@link #head} and {@link #varRest}. */
    private static void stmtVar(Out o, int stmt, int sep, int kind, int name, int x, int y) {
        if (HEADS != 0) {
            head(o, stmt, sep, kind, name, x);
            varRest(o, kind, name, x, y);
        } else {
            if (sep != SEP_FROM) o.raw(J_STMT).num(stmt);
            o.raw(SEPS[sep]);
            if (kind != HK_NONE) var(o, kind, name, x, y, -1);
        }
    }

    /**
     * Appends the statement (unless {@code sep} is SEP_FROM), {@code sep} and the constant start
     * of the variable (kind, name; {@code x} tells a K_RET's two forms apart): all of a local or a
     * static, up to the object id of a field, the array id of an element, the frame of a return
     * value. {@link #varRest} writes the rest.
     */
    private static void head(Out o, int stmt, int sep, int kind, int name, int x) {
        int k = kind == K_RET && x < 0 ? HK_RET_LOCAL : kind;
        int n1 = name + 1; // -1: an element without a name
        if ((n1 & 0xFF000000) != 0) { // more names than a key holds: not cached
            o.raw(headOf(stmt, sep, k, name));
            return;
        }
        long key = (long) stmt << 32 | (long) n1 << 8 | k << 2 | sep;
        int i = ((stmt * 0x9E3779B1) ^ (n1 * 0x85EBCA6B) ^ (k << 2 | sep)) >>> 16 & HEAD_MASK;
        byte[] h = headBytes[i];
        if (h == null || headKey[i] != key) {
            h = headOf(stmt, sep, k, name);
            // plain stores after the only call, so an error in it leaves the slot as it was
            headKey[i] = key;
            headBytes[i] = h;
        }
        o.raw(h);
    }

    /** The bytes {@link #head} caches: what {@link #var} writes up to its first number. */
    private static byte[] headOf(int stmt, int sep, int k, int name) {
        java.io.ByteArrayOutputStream h = new java.io.ByteArrayOutputStream(64);
        if (sep != SEP_FROM) {
            h.writeBytes(J_STMT);
            h.writeBytes(Out.ascii(Integer.toString(stmt)));
        }
        h.writeBytes(SEPS[sep]);
        switch (k) {
            case K_LOCAL:
            case K_TEMP:
            case HK_RET_LOCAL:
                h.writeBytes(J_LOCAL);
                h.writeBytes(namesJson.get(name));
                h.write('}');
                break;
            case K_FIELD:
                h.writeBytes(J_FIELD);
                h.writeBytes(namesJson.get(name));
                h.writeBytes(J_OBJ);
                break;
            case K_STATIC:
                h.writeBytes(J_STATIC);
                h.writeBytes(namesJson.get(name));
                h.write('}');
                break;
            case K_ELEM:
                h.writeBytes(J_ELEM);
                break;
            case K_RET:
                h.writeBytes(J_RET);
                break;
            case HK_NONE:
                break;
            default:
                h.writeBytes(Out.ascii("{}"));
        }
        return h.toByteArray();
    }

    /** The rest of a variable after its {@link #head}. */
    private static void varRest(Out o, int kind, int name, int x, int y) {
        switch (kind) {
            case K_FIELD:
                o.num(x).b('}');
                break;
            case K_ELEM:
                o.num(x).raw(J_INDEX).num(y);
                if (name >= 0) o.raw(J_NAME).raw(namesJson.get(name));
                o.b('}');
                break;
            case K_RET:
                if (x >= 0) o.num(x).b('}');
                break;
            default: // the head holds all of it
        }
    }

    // ---- the fields of a logged record, for the compactor (Out.desc) ----

    /**
     * The compactor's kind of each variable kind as {@link #var} writes it (K_NONE .. K_TEMP): 0
     * none, 1 local, 2 field, 3 static, 4 element, 5 return value (a local when its frame is
     * negative: an uninstrumented callee's).
     */
    private static final int[] D_KINDS = {0, 1, 2, 3, 4, 5, 1};

    /**
     * Describes the record about to be committed (while {@code o.desc} is there), which started
     * at {@code start} (its mark): its kind, frame and statement, and up to two variables as
     * {@link #var} writes them (kind K_NONE: none; {@code f1}, {@code f2}: a local's frame, or
     * -1). Field stores only, right before the commit, so nothing fails between them and it.
     */
    private static void describe(Out o, long start, int kind, int frame, int stmt, int k1, int n1, int x1, int y1, int f1, int k2,
            int n2, int x2, int y2, int f2) {
        // a table, not a method: this runs for every event of a test after its first compaction
        int c1 = k1 >= 0 && k1 < D_KINDS.length ? D_KINDS[k1] : 0, c2 = k2 >= 0 && k2 < D_KINDS.length ? D_KINDS[k2] : 0;
        if (c1 == 5 && x1 < 0) c1 = 1;
        if (c2 == 5 && x2 < 0) c2 = 1;
        int w = kind | c1 << Out.D_V1 | c2 << Out.D_V2;
        if (c1 == 1 && f1 >= 0) w |= Out.D_FRAME1;
        if (c2 == 1 && f2 >= 0) w |= Out.D_FRAME2;
        o.dFrame = frame;
        o.dStmt = stmt;
        o.d1n = c1 == 5 ? -1 : n1;
        o.d1a = c1 == 1 ? (f1 >= 0 ? f1 : 0) : c1 == 3 ? 0 : x1;
        o.d1b = c1 == 4 ? y1 : 0;
        o.d2n = c2 == 5 ? -1 : n2;
        o.d2a = c2 == 1 ? (f2 >= 0 ? f2 : 0) : c2 == 3 ? 0 : x2;
        o.d2b = c2 == 4 ? y2 : 0;
        o.dStart = start;
        o.dKind = w;
    }

    private static void var(Out o, int kind, int name, int x, int y, int frameOfLocal) {
        switch (kind) {
            case K_LOCAL:
            case K_TEMP:
                o.raw(J_LOCAL).raw(namesJson.get(name));
                if (frameOfLocal >= 0) o.raw(J_FRAME).num(frameOfLocal);
                o.b('}');
                break;
            case K_FIELD:
                o.raw(J_FIELD).raw(namesJson.get(name)).raw(J_OBJ).num(x).b('}');
                break;
            case K_STATIC:
                o.raw(J_STATIC).raw(namesJson.get(name)).b('}');
                break;
            case K_ELEM:
                o.raw(J_ELEM).num(x).raw(J_INDEX).num(y);
                if (name >= 0) o.raw(J_NAME).raw(namesJson.get(name));
                o.b('}');
                break;
            case K_RET:
                if (x >= 0) o.raw(J_RET).num(x).b('}');
                else {
                    o.raw(J_LOCAL).raw(namesJson.get(name));
                    if (frameOfLocal >= 0) o.raw(J_FRAME).num(frameOfLocal);
                    o.b('}');
                }
                break;
            default:
                o.a("{}");
        }
    }

    /** JSON string literal. */
    public static String quote(String s) {
        return Out.quote(s);
    }

    /** For the runner: a synthetic test (a class-level failure, a lost test), its failure from {@code failurePhase}. */
    public static void syntheticTest(String id, String cls, String method, Throwable t, String failurePhase, String note) {
        beginTest(id, cls, method);
        endTest(id, t, failurePhase, null, null, cls, method, note);
    }

    public static Map<String, Object> stats() {
        Map<String, Object> m = new HashMap<>();
        synchronized (LOCK) {
            m.put("classes", classesInstrumented);
            m.put("errors", new ArrayList<>(instrumentErrors));
            m.put("counts", endedTests + " " + passedTests + " " + truncatedTests + " " + eventLines);
            m.put("sites", siteHits + " " + siteWalks);
            m.put("split", splitMethods);
            m.put("frames", framesKept + " " + framesComputed);
            m.put("cache", cacheHits + " " + cacheMisses);
            m.put("cut", tests != null ? tests.cuts() : 0L);
            m.put("fence_broken", tests != null ? tests.fenceBroken() : 0L);
            m.put("compactions", Compactor.compactions + " " + Compactor.recordsRead + " " + Compactor.recordsDescribed + " "
                    + Compactor.logMismatches);
        }
        return m;
    }
}
