package paf.rt;

import java.io.File;
import java.io.FileInputStream;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;

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
 * paf computes from it. The rewrite reads the file twice, with a scanner written for the
 * agent's own records; memory is a few ints per event of the test so far.
 */
final class Compactor {
    private Compactor() {}

    private static final int ENTER = 1, EXIT = 2, DEF = 3, USE = 4, BRANCH = 5, ALLOC = 6, OTHER = 7;
    /** The record kinds, in the order of ENTER .. ALLOC. */
    private static final Keys KINDS = new Keys("enter", "exit", "def", "use", "branch", "alloc");
    /** The keys of a record the compactor reads, and their indexes. */
    private static final Keys RECORD_KEYS = new Keys("k", "frame", "caller", "stmt", "method", "obj", "length", "var",
            "from", "uses", "fields",
            // keys it skips, known so that they are matched rather than scanned as unknown ones
            "role", "site", "this", "how");
    private static final int R_K = 0, R_FRAME = 1, R_CALLER = 2, R_STMT = 3, R_METHOD = 4, R_OBJ = 5, R_LENGTH = 6,
            R_VAR = 7, R_FROM = 8, R_USES = 9, R_FIELDS = 10;
    /** The keys of a variable object, and their indexes. */
    private static final Keys VAR_KEYS = new Keys("local", "field", "static", "name", "frame", "obj", "elem", "index", "ret",
            "null"); // skipped
    private static final int V_LOCAL = 0, V_FIELD = 1, V_STATIC = 2, V_NAME = 3, V_FRAME = 4, V_OBJ = 5, V_ELEM = 6,
            V_INDEX = 7, V_RET = 8;
    private static final Keys FIELD_KEY = new Keys("field");

    private static byte[][] ascii(String... s) {
        byte[][] out = new byte[s.length][];
        for (int k = 0; k < s.length; k++) out[k] = s[k].getBytes(StandardCharsets.US_ASCII);
        return out;
    }

    /**
     * A set of keys (at most 8 ASCII bytes each), found by their bytes packed into a long: a
     * multiplicative hash into a table of 64 slots, then one comparison. A key used to be looked
     * for among those with its first byte and compared a byte at a time, a fifth of the
     * compactor's time (docs/performance.md, "Seventeenth round"); five to eight keys a record.
     */
    private static final class Keys {
        final byte[][] keys;
        /** Each key's bytes, big-endian in a long (no key holds a zero byte, so lengths differ too). */
        final long[] packed;
        /** Slot -> key index + 1 (0: empty), linear probing. */
        final int[] table = new int[64];

        Keys(String... names) {
            keys = ascii(names);
            packed = new long[keys.length];
            for (int k = 0; k < keys.length; k++) {
                if (keys[k].length > 8) throw new IllegalArgumentException("a key longer than 8 bytes: " + names[k]);
                packed[k] = pack(keys[k]);
                int s = slot(packed[k]);
                while (table[s] != 0) s = (s + 1) & 63;
                table[s] = k + 1;
            }
        }

        static long pack(byte[] b) {
            long w = 0;
            for (byte x : b) w = (w << 8) | (x & 0xff);
            return w;
        }

        static int slot(long w) {
            return (int) ((w * 0x9E3779B97F4A7C15L) >>> 58);
        }
    }

    private static final int TAIL = 64;
    // variable kinds in keys
    private static final long K_LOCAL = 1, K_FIELD = 2, K_STATIC = 3, K_RET = 5, K_ARRAY = 6;

    /** How many compactions found the writer's log wrong and searched for the line ends (CompactorCheck reads it). */
    static volatile int logMismatches;
    /** Compactions done, the records they read, and how many of those from the writer's fields (agent.N.txt, for paf trace -v). */
    static volatile long compactions, recordsRead, recordsDescribed;

    /** A rewrite reads only the records kept when it keeps fewer than one in this many. */
    private static final int SPARSE = 8;
    /** Whether it may (CompactorCheck turns it off, to compare). */
    static volatile boolean sparse = true;

    /**
     * Compacts the events from {@code start} (the test's first event line) to the end of the file
     * of {@code out} (flushed), at once. Returns the number of events kept, or -1 when more than
     * {@code limit} would be kept (the file is then unchanged).
     */
    static long compact(Out out, long start, long limit) throws IOException {
        Job j = new Job(out, start, limit);
        j.run();
        Throwable f = j.failure;
        if (f instanceof IOException) throw (IOException) f;
        if (f instanceof RuntimeException) throw (RuntimeException) f;
        if (f != null) throw (Error) f;
        if (j.kept < 0) return -1;
        j.apply(out);
        return j.kept;
    }

    /**
     * One compaction: the region of the file from {@code start} to its end when the job was made
     * (a record boundary) is read, and the records kept are written to a file beside it
     * ({@link #run}, which reads nothing of {@link Out} but the file); {@link #apply} then puts
     * them in place of the region, before whatever the test wrote after it. So the rewrite can run
     * on a thread of its own while the test goes on (R, "compactions beside the test"): the
     * writer never writes below the region's end meanwhile, and the log of record ends it hands
     * over is a prefix of an array it only appends to past that prefix, or replaces.
     */
    static final class Job implements Runnable {
        final File file;
        final long start, end, limit;
        private final int[] ends;
        private final int records;
        private final long searched;
        /** The logged records' fields (Out.desc), and the runtime's names and methods as JSON strings then; null: all parsed. */
        private final int[] desc;
        private final byte[][] names, methods;
        /** The records kept (-1: more than the limit, or not run yet). */
        volatile long kept = -1;
        /** What went wrong, if anything did. */
        volatile Throwable failure;
        private volatile boolean done;
        private File part;
        private long partLength;
        private int[] partEnds;
        private Thread thread;

        /** The region from {@code start} to the end of {@code out}'s file, which must be flushed; every record parsed. */
        Job(Out out, long start, long limit) {
            this(out, start, limit, null, null);
        }

        /**
         * The same, with the writer's names and methods (the JSON strings of their ids) for the
         * records it described: those are read from its log of fields, not parsed.
         */
        Job(Out out, long start, long limit, byte[][] names, byte[][] methods) {
            this.file = out.file();
            this.start = start;
            this.end = out.position();
            this.limit = limit;
            int logged = out.logged(start);
            this.records = logged;
            this.ends = logged >= 0 ? out.loggedEnds() : null;
            this.searched = out.logBase - start;
            this.desc = logged >= 0 && names != null && methods != null ? out.loggedDesc() : null;
            this.names = names;
            this.methods = methods;
        }

        /** Runs the rewrite on a daemon thread of its own. */
        void start() {
            Thread t = new Thread(this, "paf-compactor");
            t.setDaemon(true);
            thread = t;
            t.start();
        }

        /** Whether the rewrite is over (it may have failed). */
        boolean done() {
            return done;
        }

        /** Waits for the rewrite started with {@link #start}. */
        void await() {
            boolean interrupted = false;
            while (thread != null && thread.isAlive()) {
                try {
                    thread.join();
                } catch (InterruptedException e) {
                    interrupted = true; // the test's interrupt: kept for it
                }
            }
            if (interrupted) Thread.currentThread().interrupt();
        }

        @Override
        public void run() {
            try {
                if (ends != null) {
                    try {
                        rewrite(ends, records, searched);
                        return;
                    } catch (LogMismatch e) {
                        // the log and the file disagree (a failure between them): find the line ends instead
                        logMismatches++;
                    }
                }
                rewrite(null, 0, 0);
            } catch (Throwable t) {
                failure = t;
                kept = -1;
            } finally {
                done = true;
            }
        }

        /**
         * Reads the region with the ends of the records from {@code searched} bytes into it on
         * from the writer's log (the ends before it searched for), or, with {@code ends == null},
         * every end searched for; writes the records kept to {@link #part}.
         */
        private void rewrite(int[] ends, int records, long searched) throws IOException {
            if (ends != null && searched + (records > 0 ? ends[records - 1] : 0) != end - start) throw new LogMismatch();
            Graph g = new Graph(tableSize(end - start));
            g.strict = ends != null;
            if (ends != null && desc != null) g.described(desc, names, methods);
            // each record's start in the region, for a rewrite that reads only the records kept
            int[] starts = end - start <= Integer.MAX_VALUE ? new int[tableSize(end - start)] : null;
            try (Lines lines = new Lines(file, start, end, ends, records, searched, g.desc)) {
                for (int i = 0; lines.next(); i++) {
                    if (starts != null) {
                        if (i == starts.length) starts = java.util.Arrays.copyOf(starts, 2 * i);
                        starts[i] = (int) lines.at();
                    }
                    g.add(lines);
                }
            }
            // one compaction runs at a time: these are not raced
            compactions++;
            recordsRead += g.n;
            recordsDescribed += g.nDescribed;
            boolean[] keep = g.keep();
            int n = 0;
            for (int i = 0; i < g.n; i++) if (keep[i]) n++;
            if (n > limit) return;
            int[] newEnds = new int[Math.max(16, n)];
            File tmp = new File(file.getPath() + ".compact");
            if (starts != null && (long) n * SPARSE < g.n && sparse) {
                part = tmp;
                partLength = copyKept(keep, g.n, starts, tmp, newEnds);
                partEnds = newEnds;
                kept = n;
                return;
            }
            long at = 0;
            try (Lines lines = new Lines(file, start, end, ends, records, searched, null); OutputStream o = new FileOutputStream(tmp)) {
                byte[] buf = new byte[bufferSize(end - start)];
                int b = 0, k = 0;
                for (int i = 0; lines.next(); i++) {
                    if (!keep[i]) continue;
                    int len = lines.end - lines.start + 1;
                    at += len;
                    newEnds[k++] = endOf(at);
                    if (b + len > buf.length) {
                        o.write(buf, 0, b);
                        b = 0;
                    }
                    if (len > buf.length) {
                        o.write(lines.buf, lines.start, len - 1);
                        o.write('\n');
                        continue;
                    }
                    System.arraycopy(lines.buf, lines.start, buf, b, len - 1);
                    buf[b + len - 1] = '\n';
                    b += len;
                }
                o.write(buf, 0, b);
            }
            part = tmp;
            partLength = at;
            partEnds = newEnds;
            kept = n;
        }

        /**
         * The records kept, read where they are (runs of consecutive ones at a time) rather than
         * with the whole region again: a compaction keeps a few thousand of millions of records,
         * and reading the region a second time was a tenth of its time (docs/performance.md,
         * "Seventeenth round"). Returns the bytes written; {@code newEnds} gets each record's end.
         */
        private long copyKept(boolean[] keep, int n, int[] starts, File tmp, int[] newEnds) throws IOException {
            long regionLength = end - start, at = 0;
            int k = 0;
            java.nio.ByteBuffer b = java.nio.ByteBuffer.allocate(1 << 16);
            try (java.nio.channels.FileChannel in = java.nio.channels.FileChannel.open(file.toPath());
                    OutputStream o = new java.io.BufferedOutputStream(new FileOutputStream(tmp), 1 << 16)) {
                for (int i = 0; i < n; i++) {
                    if (!keep[i]) continue;
                    int j = i;
                    while (j + 1 < n && keep[j + 1]) j++;
                    long from = starts[i], to = j + 1 < n ? starts[j + 1] : regionLength;
                    byte last = '\n';
                    for (long p = from; p < to; ) {
                        b.clear();
                        b.limit((int) Math.min(b.capacity(), to - p));
                        int r = in.read(b, start + p);
                        if (r <= 0) throw new IOException("the tests file ended while compacting");
                        o.write(b.array(), 0, r);
                        last = b.array()[r - 1];
                        p += r;
                    }
                    for (int q = i; q <= j; q++) newEnds[k++] = endOf(at + (q + 1 < n ? starts[q + 1] : regionLength) - from);
                    at += to - from;
                    if (last != '\n') {
                        // the region's last line without its line end, which the rewrite adds
                        o.write('\n');
                        at++;
                        newEnds[k - 1] = endOf(at);
                    }
                    i = j;
                }
            }
            return at;
        }

        /** A record's end in the log: -1 past 2 GiB from the start (found by search next time). */
        private static int endOf(long at) {
            return at > Integer.MAX_VALUE ? -1 : (int) at;
        }

        /**
         * Puts the records kept in place of the region (the rewrite is over and kept some), in
         * front of what was written after it; the log of the new file follows.
         */
        void apply(Out out) throws IOException {
            try {
                out.splice(start, end, part, partLength, partEnds, (int) kept);
            } finally {
                part.delete();
            }
        }

        /** The bytes the region lost (what positions past its end move by). */
        long shrink() {
            return end - start - partLength;
        }

        /** Forgets the rewrite's file (it will not be applied). */
        void discard() {
            if (part != null) part.delete();
        }
    }

    /** The writer's log of record ends does not match the file. */
    private static final class LogMismatch extends RuntimeException {
        private static final long serialVersionUID = 1L;

        LogMismatch() {
            super("the record log does not match the file", null, false, false);
        }
    }

    /**
     * The lines of a file region: {@code buf[start, end)} is the current line, without its line
     * end. With the writer's log of record ends, a line's end past the log's base is looked up
     * rather than searched for; with the fields the writer described the records with, a
     * described record's bytes are skipped, not read (the graph reads its fields): reading them
     * was about a tenth of a described compaction (docs/performance.md, "Twenty-first round").
     */
    private static final class Lines implements AutoCloseable {
        private final InputStream in;
        private long left;
        byte[] buf;
        private int len, pos;
        int start, end;
        private final int[] ends;
        private final int records;
        private int k;
        /** The current line's index in the log (-1: a line searched for), and its start from the log's base. */
        int logIndex = -1, logStart;
        /** Where the log starts, in bytes from the region's start; the bytes of the region before buf[0]. */
        private final long searched;
        private long bufStart;
        /** The records' fields (Out.desc: a described record is skipped), or null. */
        private final int[] desc;
        /** Bytes to skip in the file before the next read (the buffer is empty meanwhile). */
        private long skip;

        Lines(File f, long from, long to, int[] ends, int records, long searched, int[] desc) throws IOException {
            buf = new byte[bufferSize(to - from)];
            in = new FileInputStream(f);
            long skipped = 0;
            while (skipped < from) {
                long s = in.skip(from - skipped);
                if (s <= 0) break;
                skipped += s;
            }
            left = to - from;
            this.ends = ends;
            this.records = records;
            this.searched = searched;
            this.desc = ends != null ? desc : null;
        }

        /** The current line's start, in bytes from the region's start. */
        long at() {
            return logIndex >= 0 ? searched + logStart : bufStart + start;
        }

        boolean next() throws IOException {
            if (ends != null && bufStart + pos >= searched) return nextLogged();
            while (true) {
                for (int i = pos; i < len; i++)
                    if (buf[i] == '\n') {
                        // with a log, the lines searched for end where it starts
                        if (ends != null && bufStart + i + 1 > searched) throw new LogMismatch();
                        start = pos;
                        end = i;
                        pos = i + 1;
                        return true;
                    }
                if (!more()) {
                    if (ends != null) throw new LogMismatch();
                    if (len == pos) return false;
                    start = pos;
                    end = len; // a last line without its line end
                    pos = len;
                    return true;
                }
            }
        }

        private boolean nextLogged() throws IOException {
            if (k == records) {
                if (pos < len || left != skip) throw new LogMismatch();
                return false;
            }
            int from = k == 0 ? 0 : ends[k - 1];
            int size = ends[k] - from;
            if (size <= 0) throw new LogMismatch();
            if (desc != null && (desc[k * Out.DESC] & 7) != 0) {
                // described: its fields are read instead, and its start checked against theirs (Graph.addDescribed)
                int inBuf = len - pos;
                if (inBuf >= size) pos += size;
                else {
                    pos = len;
                    skip += size - inBuf;
                    if (skip > left) throw new LogMismatch();
                }
                start = end = -1;
                logStart = from;
                logIndex = k++;
                return true;
            }
            while (len - pos < size) if (!more()) throw new LogMismatch();
            start = pos;
            end = pos + size - 1;
            if (buf[end] != '\n') throw new LogMismatch();
            pos += size;
            logStart = from;
            logIndex = k++;
            return true;
        }

        /** Moves the unread bytes to the front and reads more after them; false at the region's end. */
        private boolean more() throws IOException {
            bufStart += pos;
            int rest = len - pos;
            if (rest > 0 && pos > 0) System.arraycopy(buf, pos, buf, 0, rest);
            len = rest;
            pos = 0;
            if (skip > 0) {
                // set only with the buffer read to its end: the bytes skipped follow it
                for (long s = skip; s > 0; ) {
                    long d = in.skip(s);
                    if (d <= 0) throw new LogMismatch(); // the file is shorter than the log says
                    s -= d;
                }
                bufStart += skip;
                left -= skip;
                skip = 0;
            }
            if (len == buf.length) buf = java.util.Arrays.copyOf(buf, buf.length * 2);
            if (left <= 0) return false;
            int n = in.read(buf, len, (int) Math.min(buf.length - len, left));
            if (n <= 0) {
                left = 0;
                return false;
            }
            len += n;
            left -= n;
            return true;
        }

        @Override
        public void close() throws IOException {
            in.close();
        }
    }

    /** A variable as a record names it. */
    private static final class Var {
        long kind = -1; // K_*; -1 none
        long a, b; // local: frame or -1, name id; field: obj, name id; static: name id; elem: arr, index; ret: frame
        int nameId = -1; // local/field/static name, elem array name (or -1)
        boolean explicitFrame;

        void clear() {
            kind = -1;
            a = b = 0;
            nameId = -1;
            explicitFrame = false;
        }
    }

    /**
     * Reads the agent's records (a JSON subset: objects, arrays, strings, integers, literals). A
     * compaction reads every event of the test so far, so keys and names are matched on their
     * bytes, without a String per token (docs/performance.md, "Ninth round").
     */
    private static final class Scanner {
        byte[] b;
        int i, end;
        final Names names = new Names();

        void reset(byte[] b, int start, int end) {
            this.b = b;
            this.i = start;
            this.end = end;
        }

        // Small enough for C1 to inline (35 bytes of bytecode): the agent writes no whitespace
        // between tokens, so the call that skips it is made only when the byte is not the one
        // expected (a call to ws per token was a tenth of the compactor: docs/performance.md,
        // "Twelfth round").
        boolean eat(char c) {
            if (i < end && b[i] == c) {
                i++;
                return true;
            }
            return eatAfterWs(c);
        }

        private boolean eatAfterWs(char c) {
            ws();
            if (i < end && b[i] == c) {
                i++;
                return true;
            }
            return false;
        }

        void ws() {
            while (i < end && b[i] <= ' ') i++;
        }

        /** The id of a name (a string token): equal decoded strings, equal ids. */
        int name() {
            if (i < end && b[i] <= ' ') ws();
            int s = ++i; // past '"'
            boolean plain = true;
            while (i < end && b[i] != '"') {
                if (b[i] == '\\') {
                    plain = false;
                    i++;
                }
                i++;
            }
            int e = Math.min(i, end);
            i++; // '"'
            if (plain) return names.id(b, s, e - s);
            // an escaped name is keyed by its decoded text's UTF-8, which is what a plain token of
            // the same text holds; a text UTF-8 cannot hold (a lone surrogate, which the agent
            // always escapes) by its UTF-16 code units after 0xFF, a byte no UTF-8 token holds
            String text = unescape(new String(b, s, e - s, StandardCharsets.UTF_8));
            byte[] d = text.getBytes(StandardCharsets.UTF_8);
            if (!new String(d, StandardCharsets.UTF_8).equals(text)) {
                // by hand: the JDK's UTF-16 encoder replaces a lone surrogate too
                d = new byte[1 + 2 * text.length()];
                d[0] = (byte) 0xFF;
                for (int k = 0; k < text.length(); k++) {
                    d[1 + 2 * k] = (byte) (text.charAt(k) >> 8);
                    d[2 + 2 * k] = (byte) text.charAt(k);
                }
            }
            return names.id(d, 0, d.length);
        }

        /**
         * A key (a string token, the opening quote at i): its index in {@code keys}, or -1 for
         * any other key (keys hold no escapes, and none is longer than 8 bytes).
         */
        int key(Keys keys) {
            return key(keys, false);
        }

        /** A member's key and the colon after it ({@link #key}, without a call to eat the colon). */
        int member(Keys keys) {
            return key(keys, true);
        }

        private int key(Keys keys, boolean colon) {
            if (i < end && b[i] <= ' ') ws();
            int s = ++i; // past '"'
            int stop = Math.min(end, s + 9);
            long w = 0;
            for (int p = s; p < stop; p++) {
                byte x = b[p];
                if (x == '"') {
                    i = p + 1;
                    if (colon) {
                        if (i < end && b[i] == ':') i++;
                        else eatAfterWs(':');
                    }
                    // Keys.find written out: C1 inlines no method with a loop
                    int[] t = keys.table;
                    long[] packed = keys.packed;
                    for (int sl = Keys.slot(w); ; sl = (sl + 1) & 63) {
                        int e = t[sl];
                        if (e == 0) return -1;
                        if (packed[e - 1] == w) return e - 1;
                    }
                }
                if (x == '\\') break;
                w = (w << 8) | (x & 0xff);
            }
            // longer than any key, escaped, or cut short: none of them
            while (i < end && b[i] != '"') i += b[i] == '\\' ? 2 : 1;
            i++; // '"'
            if (colon) eat(':');
            return -1;
        }

        long number() {
            if (i < end && b[i] <= ' ') ws();
            boolean neg = i < end && b[i] == '-';
            if (neg) i++;
            long v = 0;
            while (i < end && b[i] >= '0' && b[i] <= '9') v = v * 10 + (b[i++] - '0');
            return neg ? -v : v;
        }

        /** Skips any value. */
        void skip() {
            if (i < end && b[i] <= ' ') ws();
            if (i >= end) return;
            byte c = b[i];
            if (c == '"') {
                i++;
                while (i < end && b[i] != '"') i += b[i] == '\\' ? 2 : 1;
                i++;
            } else if (c == '{' || c == '[') {
                int depth = 0;
                while (i < end) {
                    byte x = b[i];
                    if (x == '"') {
                        skip();
                        continue;
                    }
                    i++;
                    if (x == '{' || x == '[') depth++;
                    else if ((x == '}' || x == ']') && --depth == 0) break;
                }
            } else {
                while (i < end && b[i] != ',' && b[i] != '}' && b[i] != ']') i++;
            }
        }

        /** A variable object into v. */
        void var(Var v) {
            v.clear();
            if (!eat('{')) {
                skip();
                return;
            }
            if (eat('}')) return;
            do {
                int k = member(VAR_KEYS);
                switch (k) {
                    case V_LOCAL: v.kind = K_LOCAL; v.nameId = name(); break;
                    case V_FIELD: v.kind = K_FIELD; v.nameId = name(); break;
                    case V_STATIC: v.kind = K_STATIC; v.nameId = name(); break;
                    case V_NAME: v.nameId = name(); break;
                    case V_FRAME: v.a = number(); v.explicitFrame = true; break;
                    case V_OBJ: v.a = number(); break;
                    case V_ELEM: v.kind = 4; v.a = number(); break;
                    case V_INDEX: v.b = number(); break;
                    case V_RET: v.kind = K_RET; v.a = number(); break;
                    default: skip();
                }
            } while (eat(','));
            eat('}');
        }

        private static String unescape(String s) {
            StringBuilder out = new StringBuilder(s.length());
            for (int k = 0; k < s.length(); k++) {
                char c = s.charAt(k);
                if (c != '\\' || k + 1 >= s.length()) {
                    out.append(c);
                    continue;
                }
                char e = s.charAt(++k);
                switch (e) {
                    case 'n': out.append('\n'); break;
                    case 'r': out.append('\r'); break;
                    case 't': out.append('\t'); break;
                    case 'b': out.append('\b'); break;
                    case 'f': out.append('\f'); break;
                    case 'u':
                        out.append((char) Integer.parseInt(s.substring(k + 1, k + 5), 16));
                        k += 4;
                        break;
                    default: out.append(e);
                }
            }
            return out.toString();
        }
    }

    /** Per frame: its enter and exit events, its last branch, whether the test body called it. */
    private static final class FrameInfo {
        int enter = -1, exit = -1, lastBranch = -1;
        boolean top;
        int method = -1;
        /**
         * The frame's locals: name ids, and the event of the definition reaching each, in
         * [0, nLocals). Kept here rather than in the map of all variables, which held the locals
         * of every frame the region entered and was never emptied (docs/performance.md, "Twelfth
         * round"); a frame has a few.
         */
        int[] localNames, localDefs;
        int nLocals;

        /** A frame id entered again: its locals stay its own, as in a map by (frame, name). */
        void inherit(FrameInfo before) {
            localNames = before.localNames;
            localDefs = before.localDefs;
            nLocals = before.nLocals;
        }

        /** The event of the definition reaching local {@code name}, or -1. */
        int local(int name) {
            for (int k = 0; k < nLocals; k++) if (localNames[k] == name) return localDefs[k];
            return -1;
        }

        void setLocal(int name, int event) {
            for (int k = 0; k < nLocals; k++)
                if (localNames[k] == name) {
                    localDefs[k] = event;
                    return;
                }
            if (localNames == null) {
                localNames = new int[4];
                localDefs = new int[4];
            } else if (nLocals == localNames.length) {
                localNames = java.util.Arrays.copyOf(localNames, nLocals * 2);
                localDefs = java.util.Arrays.copyOf(localDefs, nLocals * 2);
            }
            localNames[nLocals] = name;
            localDefs[nLocals++] = event;
        }
    }

    // A compaction's tables and buffers start at the size its region calls for, up to the sizes
    // they grow from: a test compacted at a small cap is compacted often, and the graph's tables
    // at their large sizes, zeroed each time, were 6% of TheAlgorithms hashmap's worker at
    // --max-events 300.

    /** Records a region of this many bytes may hold, as a power of two from 16 to 1,024 (about one in 64 bytes; they grow if need be). */
    static int tableSize(long bytes) {
        long records = Math.max(16, Math.min(1 << 10, bytes / 64));
        return Integer.highestOneBit((int) records - 1) << 1;
    }

    /** A buffer for reading or writing a region of this many bytes: from 1 KiB to 64 KiB. */
    static int bufferSize(long bytes) {
        return (int) Math.max(1 << 10, Math.min(1 << 16, bytes + 1));
    }

    /** The events of the test and what each depends on. */
    private static final class Graph {
        int n;
        int[] kind, frameOf, stmt;
        /** Dependencies: deps[depStart[i] .. depStart[i+1]). */
        int[] depStart;
        int[] deps;
        int depCount;
        final Frames frames = new Frames();
        final LongIntMap reaching; // (kind, a) x b -> defining event
        /** The DUAs seen: (def statement, use statement) x variable name. */
        final LongIntMap duas;
        final Ints roots = new Ints();
        final Scanner sc = new Scanner();
        final Var v1 = new Var(), v2 = new Var();
        int[] fieldIds = new int[16];
        /** The records come from the writer's log: each must be one object, or the log is wrong. */
        boolean strict;
        /** The writer's fields of its logged records (null: every record parsed), and what their name ids stand for. */
        private int[] desc;
        private byte[][] nameLits, methodLits;
        /** A writer's name or method id -> this compaction's name id + 1 (0: not looked up yet). */
        private int[] nameMap, methodMap;
        /** The records read from the writer's fields. */
        int nDescribed;

        void described(int[] d, byte[][] names, byte[][] methods) {
            desc = d;
            nameLits = names;
            methodLits = methods;
            nameMap = new int[names.length];
            methodMap = new int[methods.length];
        }

        /** For about {@code size} records (a power of two). */
        Graph(int size) {
            kind = new int[size];
            frameOf = new int[size];
            stmt = new int[size];
            depStart = new int[size + 1];
            deps = new int[4 * size];
            reaching = new LongIntMap(4 * size);
            duas = new LongIntMap(4 * size);
        }

        void add(Lines line) {
            if (n == kind.length) grow();
            int i = n++;
            depStart[i] = depCount;
            int li = line.logIndex;
            if (desc != null && li >= 0 && (desc[li * Out.DESC] & 7) != 0) {
                addDescribed(i, li * Out.DESC, line.logStart);
                return;
            }
            Scanner s = sc;
            s.reset(line.buf, line.start, line.end);
            int k = OTHER, st = -1;
            long frame = -1, caller = -1, obj = -1;
            boolean hasCaller = false, length = false;
            int method = -1;
            int fields = -1; // the alloc's field names in fieldIds[0, fields); -1: no "fields"
            Var var = null, from = null;
            boolean first = true;
            FrameInfo fi = null;
            if (!s.eat('{')) {
                if (strict) throw new LogMismatch();
                roots.add(i);
                finish(i, k, (int) frame, st);
                return;
            }
            do {
                int key = s.member(RECORD_KEYS);
                switch (key) {
                    case R_K: {
                        if (s.i < s.end && s.b[s.i] <= ' ') s.ws();
                        if (s.i < s.end && s.b[s.i] == '"') {
                            // the kinds' indexes in KINDS are ENTER - 1 .. ALLOC - 1
                            int kk = s.key(KINDS);
                            k = kk < 0 ? OTHER : kk + 1;
                        } else {
                            s.skip();
                            k = OTHER;
                        }
                        break;
                    }
                    case R_FRAME: frame = s.number(); break;
                    case R_CALLER: caller = s.number(); hasCaller = true; break;
                    case R_STMT: st = (int) s.number(); break;
                    case R_METHOD: method = s.name(); break;
                    case R_OBJ: obj = s.number(); break;
                    case R_LENGTH: s.number(); length = true; break;
                    case R_VAR: s.var(v1); var = v1; break;
                    case R_FROM: s.var(v2); from = v2; break;
                    case R_USES: {
                        fi = finishHeader(i, k, frame, st);
                        first = false;
                        if (s.eat('[') && !s.eat(']')) {
                            do {
                                s.var(v1);
                                read(i, (int) frame, st, v1);
                            } while (s.eat(','));
                            s.eat(']');
                        }
                        break;
                    }
                    case R_FIELDS: {
                        fields = 0;
                        if (s.eat('[') && !s.eat(']')) {
                            do {
                                s.eat('{');
                                do {
                                    int fk = s.member(FIELD_KEY);
                                    if (fk == 0) {
                                        if (fields == fieldIds.length) fieldIds = java.util.Arrays.copyOf(fieldIds, fields * 2);
                                        fieldIds[fields++] = s.name();
                                    }
                                    else s.skip();
                                } while (s.eat(','));
                                s.eat('}');
                            } while (s.eat(','));
                            s.eat(']');
                        }
                        break;
                    }
                    default: s.skip();
                }
            } while (s.eat(','));
            // a record from the writer's log is one object: anything after it, and the log missed
            // a record end
            if (strict && !(s.eat('}') && s.i == s.end)) throw new LogMismatch();
            if (first) fi = finishHeader(i, k, frame, st);
            switch (k) {
                case ENTER:
                    entered(i, frame, method, hasCaller, caller);
                    break;
                case EXIT:
                    if (fi != null) fi.exit = i;
                    break;
                case DEF:
                    if (from != null) read(i, (int) frame, st, from);
                    if (var != null) put(var, frame, i);
                    break;
                case USE:
                    if (var != null) read(i, (int) frame, st, var);
                    break;
                case BRANCH:
                    if (fi != null) fi.lastBranch = i;
                    break;
                case ALLOC:
                    for (int f = 0; f < fields; f++) reaching.put(K_FIELD, obj, fieldIds[f], i);
                    if (length) reaching.put(K_ARRAY, obj, 0, i);
                    break;
                default:
                    roots.add(i); // a record this compactor does not know: kept
                    break;
            }
            depStart[i + 1] = depCount;
        }

        /**
         * A record the writer described (Out.desc at {@code o}): what the parse below does with
         * it, from its fields. It must start where the log's span for it starts, or the log missed
         * the end of a record before it.
         */
        private void addDescribed(int i, int o, int spanStart) {
            int[] d = desc;
            int w = d[o];
            if (d[o + 9] != spanStart) throw new LogMismatch();
            int k = w & 7;
            long frame = d[o + 1];
            int st = k == ENTER || k == EXIT ? -1 : d[o + 2];
            FrameInfo fi = finishHeader(i, k, frame, st);
            nDescribed++;
            switch (k) {
                case ENTER:
                    entered(i, frame, lookUp(d[o + 3], methodLits, methodMap), (w & Out.D_CALLER) != 0, d[o + 2]);
                    break;
                case EXIT:
                    if (fi != null) fi.exit = i;
                    break;
                case DEF: {
                    Var from = describedVar(v2, o + 6, w >>> Out.D_V2 & 15, (w & Out.D_FRAME2) != 0);
                    if (from != null) read(i, (int) frame, st, from);
                    Var var = describedVar(v1, o + 3, w >>> Out.D_V1 & 15, (w & Out.D_FRAME1) != 0);
                    if (var != null) put(var, frame, i);
                    break;
                }
                case USE: {
                    Var var = describedVar(v1, o + 3, w >>> Out.D_V1 & 15, (w & Out.D_FRAME1) != 0);
                    if (var != null) read(i, (int) frame, st, var);
                    break;
                }
                case BRANCH: {
                    Var a = describedVar(v1, o + 3, w >>> Out.D_V1 & 15, (w & Out.D_FRAME1) != 0);
                    if (a != null) read(i, (int) frame, st, a);
                    Var b = describedVar(v2, o + 6, w >>> Out.D_V2 & 15, (w & Out.D_FRAME2) != 0);
                    if (b != null) read(i, (int) frame, st, b);
                    if (fi != null) fi.lastBranch = i;
                    break;
                }
                default:
                    throw new LogMismatch();
            }
            depStart[i + 1] = depCount;
        }

        /** The variable at {@code desc[o .. o + 2]} (name, a, b) of kind {@code c} into v, as Scanner.var reads it; null for none. */
        private Var describedVar(Var v, int o, int c, boolean explicitFrame) {
            if (c == 0) return null;
            v.clear();
            v.kind = c;
            v.nameId = c == K_RET ? -1 : lookUp(desc[o], nameLits, nameMap);
            v.a = desc[o + 1];
            v.b = desc[o + 2];
            v.explicitFrame = explicitFrame;
            return v;
        }

        /** This compaction's id of the writer's name (or method) {@code n}: its JSON string read as a record's name is. */
        private int lookUp(int n, byte[][] lits, int[] map) {
            if (n < 0) return -1;
            if (n >= lits.length) throw new LogMismatch(); // not a name the writer had: its log is wrong
            int m = map[n];
            if (m != 0) return m - 1;
            byte[] lit = lits[n];
            sc.reset(lit, 0, lit.length);
            int id = sc.name();
            map[n] = id + 1;
            return id;
        }

        /** Record i enters frame {@code frame} of method {@code method} (a name id), called from {@code caller} if it has one. */
        private void entered(int i, long frame, int method, boolean hasCaller, long caller) {
            FrameInfo nf = new FrameInfo();
            nf.enter = i;
            nf.method = method;
            nf.top = !hasCaller;
            FrameInfo c = hasCaller ? frames.get(caller) : null;
            if (c != null) dep(c.enter);
            frames.put(frame, nf);
        }

        /** Sets the record's kind, frame and statement; returns its frame's info (null for an enter, which starts a frame). */
        private FrameInfo finishHeader(int i, int k, long frame, int st) {
            kind[i] = k;
            frameOf[i] = (int) frame;
            stmt[i] = st;
            if (k == ENTER) return null;
            FrameInfo fi = frames.get(frame);
            if (fi != null) dep(fi.enter);
            return fi;
        }

        private void finish(int i, int k, int frame, int st) {
            kind[i] = k;
            frameOf[i] = frame;
            stmt[i] = st;
            depStart[i + 1] = depCount;
        }

        private void grow() {
            int m = kind.length * 2;
            kind = java.util.Arrays.copyOf(kind, m);
            frameOf = java.util.Arrays.copyOf(frameOf, m);
            stmt = java.util.Arrays.copyOf(stmt, m);
            depStart = java.util.Arrays.copyOf(depStart, m + 1);
        }

        private void dep(int d) {
            if (d < 0) return;
            if (depCount == deps.length) deps = java.util.Arrays.copyOf(deps, deps.length * 2);
            deps[depCount++] = d;
        }

        private void put(Var v, long frame, int i) {
            if (v.kind == K_LOCAL) {
                long a = v.explicitFrame ? v.a : frame;
                // a frame's id is new at its enter record (the agent numbers frames from one
                // counter), so a local of a known frame was never put in the map below
                FrameInfo f = frames.get(a);
                if (f != null) f.setLocal(v.nameId, i);
                else reaching.put(K_LOCAL, a, v.nameId, i);
                return;
            }
            long a = v.a;
            long b = v.kind == K_FIELD || v.kind == K_STATIC ? v.nameId : v.b;
            if (v.kind == K_STATIC) a = 0;
            if (v.kind >= 0) reaching.put(v.kind, a, b, i);
        }

        /** A read of variable v by event i: its reaching definition is a dependency, a new DUA a root. */
        private void read(int i, int frame, int st, Var v) {
            if (v.kind < 0) return;
            if (v.explicitFrame || v.kind == K_RET) {
                FrameInfo o = frames.get(v.a);
                if (o != null) dep(o.enter);
            }
            int r;
            if (v.kind == K_LOCAL) {
                long a = v.explicitFrame ? v.a : frame;
                FrameInfo f = frames.get(a);
                r = f != null ? f.local(v.nameId) : reaching.get(K_LOCAL, a, v.nameId);
            } else {
                long a = v.a;
                long b = v.kind == K_FIELD || v.kind == K_STATIC ? v.nameId : v.b;
                if (v.kind == K_STATIC) a = 0;
                r = reaching.get(v.kind, a, b);
                if (r < 0 && v.kind == 4) r = reaching.get(K_ARRAY, v.a, 0);
            }
            if (r < 0) return;
            dep(r);
            // the DUA (def statement, use statement, variable name)
            long name;
            if (v.kind == K_RET) {
                FrameInfo f = frames.get(v.a);
                name = f == null ? -2 : f.method;
                name = (name << 3) | K_RET;
            } else {
                name = ((long) v.nameId << 3) | (v.kind == 4 ? 4 : 1);
            }
            long pair = ((long) stmt[r] << 32) | (st & 0xffffffffL);
            if (duas.get(1, pair, name) < 0) {
                duas.put(1, pair, name, i);
                roots.add(i);
            }
        }

        boolean[] keep() {
            frames.forEach(f -> {
                if (f.top) {
                    roots.add(f.enter);
                    if (f.exit >= 0) roots.add(f.exit);
                }
                if (f.exit < 0) {
                    roots.add(f.enter);
                    if (f.lastBranch >= 0) roots.add(f.lastBranch);
                    // the definitions reaching an active frame's locals
                    for (int k = 0; k < f.nLocals; k++) roots.add(f.localDefs[k]);
                }
            });
            reaching.forEach((kind, a, b, event) -> {
                if (kind == K_LOCAL) {
                    FrameInfo f = frames.get(a);
                    if (f == null || f.exit < 0) roots.add(event);
                } else if (kind == K_RET) {
                    FrameInfo f = frames.get(a);
                    if (f == null || f.exit < 0 || f.exit >= n - TAIL) roots.add(event);
                } else roots.add(event);
            });
            for (int i = Math.max(0, n - TAIL); i < n; i++) roots.add(i);
            boolean[] keep = new boolean[n];
            int[] work = new int[Math.max(16, roots.n)];
            int top = 0;
            for (int r = 0; r < roots.n; r++) work[top++] = roots.a[r];
            while (top > 0) {
                int i = work[--top];
                if (i < 0 || i >= n || keep[i]) continue;
                keep[i] = true;
                int more = depStart[i + 1] - depStart[i] + 2;
                if (top + more > work.length) work = java.util.Arrays.copyOf(work, Math.max(work.length * 2, top + more));
                for (int d = depStart[i]; d < depStart[i + 1]; d++) if (!keep[deps[d]]) work[top++] = deps[d];
                if (kind[i] == ENTER || kind[i] == EXIT) {
                    // a frame is kept whole: its enter and its exit
                    FrameInfo f = frames.get((long) frameOf[i]);
                    if (f != null) {
                        if (f.enter >= 0 && !keep[f.enter]) work[top++] = f.enter;
                        if (f.exit >= 0 && !keep[f.exit]) work[top++] = f.exit;
                    }
                }
            }
            return keep;
        }
    }

    /** A growing list of ints (no boxing: the roots are many, one per live definition). */
    private static final class Ints {
        int[] a = new int[1 << 10];
        int n;

        void add(int v) {
            if (n == a.length) a = java.util.Arrays.copyOf(a, n * 2);
            a[n++] = v;
        }
    }

    /**
     * Frame ids -> their info. The agent numbers frames in the order it writes their enter
     * records, so a region's frames are nearly consecutive ids: they go in an array indexed from
     * the first one seen, where a hash table spread them over memory (a cache miss a lookup, a
     * tenth of the compactor's time on joda-time: docs/performance.md, "Seventeenth round");
     * ids below the first or far past it, in a hash table.
     */
    private static final class Frames {
        /** How far past the first id the array reaches at most (4 Mi references, 16 MiB or less). */
        private static final long DENSE = 1 << 22;
        private long base = Long.MIN_VALUE;
        FrameInfo[] dense = new FrameInfo[1 << 10];
        long[] keys = new long[1 << 4];
        FrameInfo[] vals = new FrameInfo[1 << 4];
        private int size;

        private static int slot(long k, int mask) {
            long h = k * 0x9E3779B97F4A7C15L;
            return (int) (h ^ (h >>> 32)) & mask;
        }

        FrameInfo get(long k) {
            long i = k - base;
            if (i >= 0 && i < dense.length) return dense[(int) i];
            int mask = keys.length - 1;
            for (int s = slot(k, mask); ; s = (s + 1) & mask) {
                FrameInfo v = vals[s];
                if (v == null || keys[s] == k) return v;
            }
        }

        void put(long k, FrameInfo v) {
            if (base == Long.MIN_VALUE && k >= 0) base = k;
            long i = k - base;
            if (i >= 0 && i < DENSE) {
                if (i >= dense.length) dense = java.util.Arrays.copyOf(dense, (int) Math.min(DENSE, Math.max(i + 1, 2L * dense.length)));
                FrameInfo old = dense[(int) i];
                if (old != null && old != v) v.inherit(old);
                dense[(int) i] = v;
                return;
            }
            int mask = keys.length - 1;
            int s = slot(k, mask);
            while (vals[s] != null && keys[s] != k) s = (s + 1) & mask;
            if (vals[s] == null) size++;
            else if (vals[s] != v) v.inherit(vals[s]);
            keys[s] = k;
            vals[s] = v;
            if (size * 2 > keys.length) {
                long[] ok = keys;
                FrameInfo[] ov = vals;
                keys = new long[ok.length * 2];
                vals = new FrameInfo[ok.length * 2];
                size = 0;
                for (int j = 0; j < ok.length; j++) if (ov[j] != null) put(ok[j], ov[j]);
            }
        }

        /** Every frame's info, each once. */
        void forEach(java.util.function.Consumer<FrameInfo> each) {
            for (FrameInfo f : dense) if (f != null) each.accept(f);
            for (FrameInfo f : vals) if (f != null) each.accept(f);
        }
    }

    /** Names (byte strings) -> dense ids in order of first sight, open addressing over plain arrays. */
    private static final class Names {
        private int[] slots = new int[1 << 10]; // id + 1, 0 empty
        private byte[][] keys = new byte[1 << 9][];
        private int[] hashes = new int[1 << 9];
        private int size;

        int id(byte[] b, int off, int len) {
            int h = 1;
            for (int k = off; k < off + len; k++) h = 31 * h + b[k];
            h ^= h >>> 16;
            int mask = slots.length - 1;
            for (int s = h & mask; ; s = (s + 1) & mask) {
                int e = slots[s];
                if (e == 0) {
                    if (size == keys.length) {
                        keys = java.util.Arrays.copyOf(keys, size * 2);
                        hashes = java.util.Arrays.copyOf(hashes, size * 2);
                    }
                    keys[size] = java.util.Arrays.copyOfRange(b, off, off + len);
                    hashes[size] = h;
                    slots[s] = ++size;
                    if (size * 2 > slots.length) rehash();
                    return size - 1;
                }
                byte[] x = keys[e - 1];
                if (hashes[e - 1] == h && x.length == len && java.util.Arrays.equals(x, 0, len, b, off, off + len))
                    return e - 1;
            }
        }

        private void rehash() {
            slots = new int[slots.length * 2];
            int mask = slots.length - 1;
            for (int id = 0; id < size; id++) {
                int s = hashes[id] & mask;
                while (slots[s] != 0) s = (s + 1) & mask;
                slots[s] = id + 1;
            }
        }
    }

    /** (kind, a, b) -> int, open addressing over plain arrays. */
    private static final class LongIntMap {
        private long[] ka, kb;
        private int[] vals;
        private int size;

        /** With room for {@code slots} (a power of two) before it grows. */
        LongIntMap(int slots) {
            ka = new long[slots];
            kb = new long[slots];
            vals = new int[slots];
        }

        interface Each {
            void accept(long kind, long a, long b, int value);
        }

        private static long hash(long ka, long kb) {
            long h = ka * 0x9E3779B97F4A7C15L ^ kb * 0xC2B2AE3D27D4EB4FL;
            return h ^ (h >>> 29);
        }

        private static long pack(long kind, long a) {
            return (kind << 56) ^ (a + 1);
        }

        int get(long kind, long a, long b) {
            long x = pack(kind, a);
            int mask = ka.length - 1;
            for (int h = (int) hash(x, b) & mask; ; h = (h + 1) & mask) {
                if (ka[h] == 0) return -1;
                if (ka[h] == x && kb[h] == b) return vals[h];
            }
        }

        void put(long kind, long a, long b, int v) {
            if ((size + 1) * 2 > ka.length) rehash();
            long x = pack(kind, a);
            int mask = ka.length - 1;
            int h = (int) hash(x, b) & mask;
            while (ka[h] != 0 && !(ka[h] == x && kb[h] == b)) h = (h + 1) & mask;
            if (ka[h] == 0) size++;
            ka[h] = x;
            kb[h] = b;
            vals[h] = v;
        }

        void forEach(Each e) {
            for (int h = 0; h < ka.length; h++)
                if (ka[h] != 0) e.accept(ka[h] >>> 56, (ka[h] & ((1L << 56) - 1)) - 1, kb[h], vals[h]);
        }

        private void rehash() {
            long[] oa = ka, ob = kb;
            int[] ov = vals;
            ka = new long[oa.length * 2];
            kb = new long[oa.length * 2];
            vals = new int[oa.length * 2];
            int mask = ka.length - 1;
            for (int i = 0; i < oa.length; i++) {
                if (oa[i] == 0) continue;
                int h = (int) hash(oa[i], ob[i]) & mask;
                while (ka[h] != 0) h = (h + 1) & mask;
                ka[h] = oa[i];
                kb[h] = ob[i];
                vals[h] = ov[i];
            }
        }
    }
}
