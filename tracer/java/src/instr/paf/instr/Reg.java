//! The instrumenter's registrations with the runtime, journaled for the class cache.
package paf.instr;

import java.util.ArrayList;
import java.util.List;

import paf.rt.R;

/**
 * The instrumenter's registrations with the runtime {@link R}: each passes through here, and while
 * a class is recorded for the class cache ({@link ClassCache}) it is also written, with the id it
 * got, into that class's journal. A later run replays the journal instead of instrumenting the
 * class again: the same calls, in the same order, give the same ids, which the class's recorded
 * bytes hold.
 */
final class Reg {
    private Reg() {}

    /** Journal operations: the registration each names ({@link R}'s method of that name). */
    static final byte NAME = 1, STMT = 2, METHOD = 3, FIELDS = 4, KEYS = 5, INSTRUMENTED = 6, FRAMES = 7, SPLIT = 8,
            ERROR = 9, PRINT = 10, PASS = 11;

    /** The journal of the class this thread records; null: none. */
    private static final ThreadLocal<List<Object[]>> JOURNAL = new ThreadLocal<>();

    /** Starts a journal on this thread; returns the one it replaces (a nested transform), to be put back. */
    static List<Object[]> begin() {
        List<Object[]> was = JOURNAL.get();
        JOURNAL.set(new ArrayList<>());
        return was;
    }

    /** Ends this thread's journal, puts {@code was} back, and returns the journal. */
    static List<Object[]> end(List<Object[]> was) {
        List<Object[]> j = JOURNAL.get();
        JOURNAL.set(was);
        return j;
    }

    private static void log(Object... op) {
        List<Object[]> j = JOURNAL.get();
        if (j != null) j.add(op);
    }

    static int name(String s) {
        int id = R.name(s);
        log(NAME, s, id);
        return id;
    }

    static int stmt(String key, String cls, String method, String file, int line, int bci, String access) {
        List<Object[]> j = JOURNAL.get();
        if (j == null) return R.stmt(key, cls, method, file, line, bci, access);
        // the statement's record is kept whole: replayed, it is written as it is (R.stmtRecord)
        byte[][] record = new byte[1][];
        int id = R.stmt(key, cls, method, file, line, bci, access, record);
        j.add(new Object[] {STMT, key, record[0], id});
        return id;
    }

    static int method(String qname, String key, String[] params, int flags, int entryStmt) {
        int id = R.method(qname, key, params, flags, entryStmt);
        log(METHOD, qname, key, params.clone(), flags, entryStmt, id);
        return id;
    }

    static void classFields(String cls, String[] fields, int[] declStmts) {
        R.classFields(cls, fields, declStmts);
        log(FIELDS, cls, fields.clone(), declStmts.clone());
    }

    static void classKeys(String cls, int[] keys) {
        R.classKeys(cls, keys);
        log(KEYS, cls, keys.clone());
    }

    static void instrumented(String cls) {
        R.instrumented(cls);
        log(INSTRUMENTED, cls);
    }

    static void frames(boolean kept) {
        R.frames(kept);
        log(FRAMES, kept ? 1 : 0);
    }

    static void split(int methods) {
        R.split(methods);
        log(SPLIT, methods);
    }

    static void instrumentError(String msg) {
        R.instrumentError(msg);
        log(ERROR, msg);
    }

    /** A line for stderr (a warning the user sees again when the class comes from the cache). */
    static void print(String line) {
        System.err.println(line);
        log(PRINT, line);
    }

    /** The class is a test class the instrumenter leaves to {@link TestSites}: the cache does not replay it. */
    static void pass() {
        log(PASS);
    }

    /**
     * Replays one journaled operation; false when an id differs from the recorded one (the
     * registry was not what it was when the class was recorded: another thread registered
     * meanwhile), so that the class's recorded bytes are not this run's.
     */
    static boolean replay(Object[] op) {
        switch ((Byte) op[0]) {
            case NAME:
                return R.name((String) op[1]) == (Integer) op[2];
            case STMT:
                return R.stmtRecord((String) op[1], (Integer) op[3], (byte[]) op[2]) == (Integer) op[3];
            case METHOD:
                return R.method((String) op[1], (String) op[2], (String[]) op[3], (Integer) op[4], (Integer) op[5])
                        == (Integer) op[6];
            case FIELDS:
                R.classFields((String) op[1], (String[]) op[2], (int[]) op[3]);
                return true;
            case KEYS:
                R.classKeys((String) op[1], (int[]) op[2]);
                return true;
            case INSTRUMENTED:
                R.instrumented((String) op[1]);
                return true;
            case FRAMES:
                R.frames((Integer) op[1] != 0);
                return true;
            case SPLIT:
                R.split((Integer) op[1]);
                return true;
            case ERROR:
                R.instrumentError((String) op[1]);
                return true;
            case PRINT:
                System.err.println((String) op[1]);
                return true;
            case PASS:
                return true;
            default:
                throw new IllegalStateException("unknown journal operation " + op[0]);
        }
    }
}
