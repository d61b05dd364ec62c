package paf.rt;

import java.io.File;
import java.io.FileOutputStream;
import java.io.IOException;

/**
 * A JSON Lines file written through one pre-allocated byte buffer, one whole record at a time.
 *
 * <p>A record is started with {@link #mark}, appended to, and either committed ({@link #commit}:
 * its line end is written) or rolled back ({@link #rollback}): nothing of a rolled-back record
 * ever reaches the file. Only complete records are written out, with
 * {@link FileOutputStream#write(byte[], int, int)}, whose native write either happens entirely or
 * not at all when the stack overflows at the call; every state change after a call is a plain
 * field store. So a {@code StackOverflowError} or {@code OutOfMemoryError} raised anywhere while
 * a record is built leaves the file and this object consistent (docs/java.md, "Failures inside
 * the agent").
 */
final class Out {
    private byte[] buf;
    private int pos;
    /** Start of the record being built (relative to buf). */
    private int recStart;
    /** Bytes of the file before buf[0]. */
    private long fileOffset;
    private final FileOutputStream fos;
    private final File file;

    Out(File file, boolean append, int capacity) throws IOException {
        this.file = file;
        this.fos = new FileOutputStream(file, append);
        this.fileOffset = append ? file.length() : 0;
        this.buf = new byte[capacity];
    }

    File file() {
        return file;
    }

    /** Absolute position of the next byte (file bytes plus buffered ones). */
    long position() {
        return fileOffset + pos;
    }

    /** Whether no record is being built. */
    boolean betweenRecords() {
        return pos == recStart;
    }

    /** Starts a record; returns its absolute start for {@link #rollback}. */
    long mark() {
        recStart = pos;
        dKind = 0; // a record is described only by what its writer set after its start
        return fileOffset + pos;
    }

    /** Forgets the record started at {@code mark} (always still in the buffer). */
    void rollback(long mark) {
        int p = (int) (mark - fileOffset);
        if (p >= 0 && p <= pos) {
            pos = p;
            unlog(mark); // a committed record rolled back by a caller that failed after the commit
        }
        recStart = pos;
    }

    /** Ends the record with its line end. */
    void commit() {
        ensure(1);
        buf[pos++] = '\n';
        recStart = pos;
    }

    // ---- the record ends of the current test, for the compactor ----
    // The compactor reads every record of a test at the event cap, twice; finding each line's
    // end one byte at a time was a fifth of its time (docs/performance.md, "Twelfth round").
    // The log holds the records committed since the base and still in the file or the buffer:
    // R.commit adds each event's end after its commit (the common case written out there, not
    // here: with it, commit was too large for C1 to inline, two calls an event), rollback and
    // truncate take away, the compactor replaces (relog). R starts a test's log only when the
    // test is half way to the cap, so a test that never comes near it pays a compare an event;
    // the compactor searches for the line ends before the log's base. A record committed
    // without its end in the log makes the compactor find two lines where it expects one
    // record: it notices and searches for all the line ends instead.

    /** The ends of the records committed since {@link #logBase}, as offsets from it; null until {@link #logFrom}. */
    int[] ends;
    /** How many of {@link #ends} hold; -1: no log (none started, or a record ended 2 GiB or more past the base). */
    int nEnds = -1;
    long logBase;

    // ---- each logged record's fields, for the compactor (docs/performance.md, "Twentieth round") ----
    // The compactor parsed every record of a test at the cap, half its time: the writer describes
    // each event it logs (R.describe, just before its commit) and the compactor reads the record
    // from here. DESC ints a record, at its index in ends: [0] the kind (Compactor's ENTER ..
    // BRANCH; 0: not described, the compactor parses it), the kinds of two variables and flags;
    // [1] frame; [2] statement, or an enter's caller; [3..5] the first variable's name, a, b (an
    // enter's method); [6..8] the second's; [9] where the record starts, from logBase. The start
    // lets the compactor notice a record committed without its end in the log (two records in
    // one span), as its parse of the span did. Null when describing is off (PAF_DESCRIBE=0),
    // before the test's first compaction, when its array could not grow, and whenever there is
    // no log (so R asks only this). commit and mark stay within the 35 bytes of bytecode C1
    // inlines: a store more in commit made it a call an event, 0.15 s of la4j.
    static final int DESC = 10;
    /**
     * In [0]: the record's kind (Compactor's), the variables' kinds at these shifts, and flags
     * (a local's frame in either variable, an enter's caller).
     */
    static final int D_ENTER = 1, D_EXIT = 2, D_DEF = 3, D_USE = 4, D_BRANCH = 5;
    static final int D_V1 = 3, D_V2 = 7, D_FRAME1 = 1 << 11, D_FRAME2 = 1 << 12, D_CALLER = 1 << 13;
    static final boolean DESCRIBE = !"0".equals(System.getenv("PAF_DESCRIBE"));
    int[] desc;
    /** The record about to be committed, as R.describe sets it (dStart: its mark); dKind 0 once logged. */
    int dKind, dFrame, dStmt, d1n, d1a, d1b, d2n, d2a, d2b;
    long dStart;

    /** The described record's slot {@code i} of {@link #desc}; dKind back to 0. */
    void logDesc(int[] d, int i) {
        int w = dKind;
        int o = i * DESC;
        long at = dStart - logBase;
        if (w != 0 && at >= 0 && at <= Integer.MAX_VALUE) {
            d[o] = w;
            d[o + 1] = dFrame;
            d[o + 2] = dStmt;
            d[o + 3] = d1n;
            d[o + 4] = d1a;
            d[o + 5] = d1b;
            d[o + 6] = d2n;
            d[o + 7] = d2a;
            d[o + 8] = d2b;
            d[o + 9] = (int) at;
        } else d[o] = 0;
        dKind = 0;
    }

    /** {@link #desc} grown to {@code records} records; null past its share of the heap or when the memory is not there. */
    private int[] growDesc(int records) {
        if (desc == null || !descFits(records)) return null;
        try {
            return java.util.Arrays.copyOf(desc, records * DESC);
        } catch (OutOfMemoryError e) {
            return null; // the compactor parses the records, as without
        }
    }

    /**
     * Whether the fields of this many records take at most an eighth of the heap the JVM may
     * grow to (40 bytes a record: 80 MB at the default cap's 2 million), so that the test's own
     * objects keep their room; past it the compactor parses, as without.
     */
    private static boolean descFits(int records) {
        return (long) records * DESC * 4 <= Runtime.getRuntime().maxMemory() / 8;
    }

    /**
     * Describes the records logged from now on: called at a test's first compaction. Before it,
     * describing cost la4j's test of 1.9 million events, which never reaches the cap, 0.09 s
     * (its 42 MB of fields); a test compacted once is compacted again, as the cap comes round.
     */
    void describeFrom() {
        if (!DESCRIBE || desc != null || nEnds < 0 || !descFits(ends.length)) return;
        try {
            desc = new int[ends.length * DESC]; // the records logged so far: parsed
        } catch (OutOfMemoryError e) {
            desc = null;
        }
    }

    /** Keeps no log (until {@link #logFrom}). */
    void logOff() {
        nEnds = -1;
        desc = null; // R describes a record only while this is there
    }

    /** Keeps the ends of the records committed from {@code at} (a record boundary) on. */
    void logFrom(long at) {
        // a new array: a compaction running beside the test may still read the old one
        ends = new int[1 << 10];
        desc = null; // from the test's first compaction on (describeFrom)
        logBase = at;
        nEnds = 0;
    }

    /** Logs the end of the record just committed (R.commit: when the array is full or the end far). */
    void logEnd() {
        if (nEnds < 0) return;
        long e = position() - logBase;
        if (e > Integer.MAX_VALUE) {
            nEnds = -1;
            desc = null;
            return;
        }
        if (nEnds == ends.length) {
            ends = java.util.Arrays.copyOf(ends, nEnds * 2);
            desc = growDesc(nEnds * 2);
        }
        if (desc != null) logDesc(desc, nEnds);
        dKind = 0;
        ends[nEnds++] = (int) e;
    }

    /** Forgets the records logged past {@code at} (absolute): they are cut off. */
    private void unlog(long at) {
        if (nEnds < 0) return;
        long rel = at - logBase;
        while (nEnds > 0 && ends[nEnds - 1] > rel) nEnds--;
        if (rel < 0) {
            nEnds = -1;
            desc = null;
        }
    }

    /**
     * The number of records logged from {@link #logBase} on, which is {@code at} or later, whose
     * ends {@link #loggedEnds} holds; -1: no log from there.
     */
    int logged(long at) {
        return logBase >= at ? nEnds : -1;
    }

    int[] loggedEnds() {
        return ends;
    }

    /** The fields of the records {@link #loggedEnds} holds (null: none described). */
    int[] loggedDesc() {
        return desc;
    }

    /** The log after the compactor rewrote the records from {@code base} on: {@code n} records ending at {@code e}, none described. */
    void relog(long base, int[] e, int n) {
        relog(base, e, n, null);
    }

    /** {@link #relog(long, int[], int)} with the records' fields in {@code d} (null: none described). */
    private void relog(long base, int[] e, int n, int[] d) {
        logBase = base;
        ends = e;
        nEnds = n;
        if (!DESCRIBE || n < 0 || !descFits(e.length)) desc = null;
        else if (d != null && d.length == e.length * DESC) desc = d;
        else {
            try {
                desc = new int[e.length * DESC]; // none described
            } catch (OutOfMemoryError x) {
                desc = null;
            }
        }
    }

    /** Whether the buffer is full enough to be written out at the next record boundary. */
    boolean due() {
        return pos > (buf.length >> 1) + (buf.length >> 2);
    }

    /** Writes every complete record to the file. Call between records. */
    void flush() throws IOException {
        int n = recStart;
        if (n == 0) return;
        fos.write(buf, 0, n); // all or nothing (see the class comment)
        // the state first: should the copy below fail, the record in progress is rolled back
        // to position 0 by its caller, and nothing written is written twice
        int rest = pos - n;
        fileOffset += n;
        recStart = 0;
        pos = rest;
        if (rest > 0) System.arraycopy(buf, n, buf, 0, rest);
    }

    /**
     * Makes room for n more bytes of the current record. The check alone, so that C1 inlines it
     * into every append (with the flush in it, it was a call per append: docs/performance.md,
     * "Eleventh round").
     */
    private void ensure(int n) {
        if (pos + n > buf.length) grow(n);
    }

    /** {@link #ensure}'s slow path: flushes the complete records, or grows the buffer. */
    private void grow(int n) {
        try {
            flush(); // the complete records before this one
        } catch (IOException e) {
            R.ioError(e);
        }
        if (pos + n <= buf.length) return;
        byte[] b = new byte[Math.max(buf.length * 2, pos + n + 1024)];
        System.arraycopy(buf, 0, b, 0, pos);
        buf = b;
    }

    /**
     * Cuts the file back to {@code at} (absolute), which must be a record boundary: for a class
     * initializer's rolled-back events and for compaction.
     */
    void truncate(long at) throws IOException {
        unlog(at);
        if (at >= fileOffset) {
            pos = (int) (at - fileOffset);
            recStart = pos;
            return;
        }
        cuts++; // before the cut: a reader of the file may have read the bytes cut
        if (at < fenceAt) fenceBroken++;
        flush();
        fos.getChannel().truncate(at);
        fileOffset = at;
        pos = 0;
        recStart = 0;
    }

    /**
     * Times {@link #truncate} cut bytes already written to the file. While it is 0 the file
     * only ever grew, so paf's follower, which compressed it as it grew, holds the finished
     * file without reading it again (the agent reports it: {@code cut} in agent.N.txt).
     */
    private long cuts;

    long cuts() {
        return cuts;
    }

    // ---- the fence: how far paf's follower may read while the tests run ----
    // paf compresses the tests file as it grows (src/trace/tail.rs). A compaction or a rolled
    // back class initializer cuts the file inside the running test, and a follower that had
    // read past the cut had to give up and compress the whole file after the tests (joda-time:
    // 0.33 s for its 160 MB, docs/performance.md, "Twenty-first round"). So the writer
    // publishes, at each test's begin, where that test starts: the bytes below never change,
    // and the follower reads no further while the tests run. The file holds the position and
    // its complement (8 bytes each, little-endian), so that a reader that catches the two
    // halves of a store apart sees a mismatch, not a position.
    private java.nio.MappedByteBuffer fence;
    private long fenceAt;
    /** Cuts below the fence: none may happen (agent.N.txt "fence_broken", checked by e2e.sh). */
    private long fenceBroken;

    /** Publishes the fence in {@code f} (16 bytes, created if need be) from now on. */
    void fenceIn(File f) throws IOException {
        // the mapping takes identity hashes from this thread's sequence (the JVM's main thread),
        // so the program's own choices by identity hashes differ from a build without it:
        // joda-time's ConverterSet slots, la4j's order of loading classes (docs/performance.md,
        // "Twenty-first round"); each run of a build makes the same ones
        try (java.io.RandomAccessFile raf = new java.io.RandomAccessFile(f, "rw")) {
            java.nio.MappedByteBuffer m = raf.getChannel().map(java.nio.channels.FileChannel.MapMode.READ_WRITE, 0, 16);
            m.order(java.nio.ByteOrder.LITTLE_ENDIAN);
            fence = m;
        }
        setFence(fenceAt);
    }

    /** The file's bytes below {@code at} (absolute; a test's begin) never change from now on. */
    void setFence(long at) {
        fenceAt = at;
        java.nio.MappedByteBuffer m = fence;
        if (m == null) return;
        m.putLong(0, at);
        m.putLong(8, ~at);
    }

    long fenceBroken() {
        return fenceBroken;
    }

    /** A splice moving this many bytes or more does it through {@link #moveBuffer}, of that size. */
    private static final int MOVE_DIRECT = 1 << 20;
    private java.nio.ByteBuffer moveBuffer;

    /**
     * Puts the {@code n} records of {@code part} ({@code partLength} bytes, their ends in
     * {@code partEnds} as offsets from {@code start}, -1 past 2 GiB) in place of the file's bytes
     * from {@code start} to {@code end} (record boundaries, with nothing written below {@code end}
     * since they were), in front of the records written after {@code end}, which move up with
     * their ends in the log. Call between records.
     */
    void splice(long start, long end, File part, long partLength, int[] partEnds, int n) throws IOException {
        if (!betweenRecords()) throw new IllegalStateException("splice inside a record");
        flush();
        long fileEnd = fileOffset;
        long moved = end - start - partLength;
        // the log first (it reads the ends of the records after the region, as they are now)
        int[] e = partEnds;
        int ne = n > 0 && partEnds[n - 1] < 0 ? -1 : n;
        int first = 0, tail = 0; // the records after the region: [first, first + tail) of the log now
        if (ne >= 0 && fileEnd > end) {
            // the records after the region, all logged (the log starts at or before the region's end)
            if (nEnds > 0 && logBase <= end && logBase + ends[nEnds - 1] == fileEnd) {
                first = nEnds;
                while (first > 0 && logBase + ends[first - 1] > end) first--;
                tail = nEnds - first;
                if (fileEnd - moved - start > Integer.MAX_VALUE) ne = -1;
                else {
                    if (e.length < ne + tail) e = java.util.Arrays.copyOf(e, ne + tail);
                    for (int i = first; i < nEnds; i++) e[ne++] = (int) (logBase + ends[i] - moved - start);
                }
            } else ne = -1;
        }
        cuts++; // before the cut: a reader of the file may have read the bytes cut
        if (start < fenceAt) fenceBroken++;
        try (java.io.RandomAccessFile f = new java.io.RandomAccessFile(file, "rw");
                java.io.FileInputStream in = new java.io.FileInputStream(part)) {
            java.nio.channels.FileChannel ch = f.getChannel();
            // no larger than what it moves: a test compacted at a small cap splices often, and a
            // 1 MiB buffer zeroed each time was a sixth of hashmap's worker at --max-events 300.
            // A large move goes through one direct buffer, kept: a heap buffer's bytes are copied
            // once more each way, through the JDK's own direct one (joda-time's 173 MB moves took
            // 15 to 20 ms longer: docs/performance.md, "Twenty-first round").
            long most = Math.max(partLength, fileEnd - end);
            java.nio.ByteBuffer b;
            if (most >= MOVE_DIRECT) {
                if (moveBuffer == null) moveBuffer = java.nio.ByteBuffer.allocateDirect(MOVE_DIRECT);
                b = moveBuffer;
            } else b = java.nio.ByteBuffer.allocate((int) Math.max(1 << 12, most));
            copy(in.getChannel(), 0, ch, start, partLength, b);
            // forward, a block at a time: each block is read before the bytes it lands on are written
            copy(ch, end, ch, end - moved, fileEnd - end, b);
            ch.truncate(fileEnd - moved);
        }
        fileOffset = fileEnd - moved;
        fos.getChannel().position(fileOffset);
        relogAfterSplice(start, e, ne, n, first, tail, moved);
    }

    /**
     * The log after a splice from {@code start}: the {@code n} records kept (not described: the
     * compactor parses them) and the {@code tail} records after the region, at [first, first +
     * tail) of the log now and moved up by {@code moved}, with their fields; {@code ne} records
     * in all (-1: no log), ending at {@code e}. The log's arrays are reused when they hold it
     * (the compaction that read them is over): grown again from the few records kept, the
     * fields' array was allocated and copied some twenty times a compaction (docs/performance.md,
     * "Twentieth round").
     */
    private void relogAfterSplice(long start, int[] e, int ne, int n, int first, int tail, long moved) {
        boolean reuse = ne >= 0 && desc != null && ends.length >= ne && desc.length == ends.length * DESC;
        int[] d = reuse ? desc : null;
        if (!reuse && ne >= 0 && desc != null && tail > 0) {
            try {
                d = new int[e.length * DESC];
            } catch (OutOfMemoryError x) {
                d = null;
            }
        }
        if (d != null) {
            if (tail > 0) System.arraycopy(desc, first * DESC, d, n * DESC, tail * DESC);
            // the tail's starts move as their ends do; the records kept are parsed
            for (int i = n; i < n + tail; i++) {
                int o = i * DESC + 9;
                d[o] = (int) (logBase + d[o] - moved - start);
            }
            for (int i = 0; i < n; i++) d[i * DESC] = 0;
        }
        if (reuse) {
            System.arraycopy(e, 0, ends, 0, ne);
            relog(start, ends, ne, d);
        } else relog(start, e, ne, d);
    }

    private static void copy(java.nio.channels.FileChannel from, long at, java.nio.channels.FileChannel to, long dest,
            long n, java.nio.ByteBuffer b) throws IOException {
        long done = 0;
        while (done < n) {
            b.clear();
            b.limit((int) Math.min(b.capacity(), n - done));
            int r = from.read(b, at + done);
            if (r <= 0) throw new IOException("the tests file ended " + (n - done) + " bytes early while compacting");
            b.flip();
            while (b.hasRemaining()) dest += to.write(b, dest);
            done += r;
        }
    }

    void close() throws IOException {
        flush();
        fos.close();
    }

    // ---- appenders (no allocation unless the record outgrows the buffer, or at a literal's first use) ----

    Out b(char c) {
        ensure(1);
        buf[pos++] = (byte) c;
        return this;
    }

    /** A record-syntax literal and its bytes. */
    private static final class Literal {
        final String text;
        final byte[] bytes;

        Literal(String text) {
            this.text = text;
            this.bytes = ascii(text);
        }
    }

    /**
     * The bytes of the literals {@link #a} appended, by the literal's hash (cached in the String):
     * an array copy, where String.getBytes in C1 code was two out-of-line bounds checks and a
     * call per literal, several per event (docs/performance.md, "Ninth round"). Each slot holds
     * one immutable pair, so racing threads read a whole one.
     */
    private static final Literal[] LITERALS = new Literal[512];

    /**
     * Appends ASCII text verbatim (record syntax, never user data): the pieces of the rarer
     * records (a test's begin and end, an exception). An event's own pieces are byte constants of
     * R's, appended with {@link #raw}: this lookup was about 8 ns a call (docs/performance.md,
     * "Eleventh round").
     */
    Out a(String s) {
        int h = s.hashCode() & (LITERALS.length - 1);
        Literal l = LITERALS[h];
        if (l == null || l.text != s) {
            // a miss: the first use, a collision, or a string that is not a constant
            l = new Literal(s);
            LITERALS[h] = l;
        }
        return raw(l.bytes);
    }

    /** ASCII {@code text} as bytes, for a constant of the caller's. */
    @SuppressWarnings("deprecation")
    static byte[] ascii(String text) {
        byte[] b = new byte[text.length()];
        // the low byte of each char: the text is ASCII
        text.getBytes(0, text.length(), b, 0);
        return b;
    }

    /** {@link #ascii(String)} of each text. */
    static byte[][] ascii(String[] texts) {
        byte[][] b = new byte[texts.length][];
        for (int i = 0; i < texts.length; i++) b[i] = ascii(texts[i]);
        return b;
    }

    /** Appends pre-encoded bytes (an interned name's JSON literal, a constant of the caller's). */
    Out raw(byte[] b) {
        ensure(b.length);
        System.arraycopy(b, 0, buf, pos, b.length);
        pos += b.length;
        return this;
    }

    /** "00" to "99", two bytes each: num writes two digits per division. */
    private static final byte[] PAIRS = new byte[200];

    static {
        for (int i = 0; i < 100; i++) {
            PAIRS[2 * i] = (byte) ('0' + i / 10);
            PAIRS[2 * i + 1] = (byte) ('0' + i % 10);
        }
    }

    /**
     * An int's digits: frame, object and statement ids are ints, and this path has no long
     * comparisons (num(long) sends a long that fits here too).
     */
    Out num(int w) {
        if (w < 0) return num((long) w);
        ensure(10);
        // C1 divides with a division instruction: a multiplication by 2^37 / 100, rounded up, and
        // a shift give the same quotient for any non-negative int (OutCheck tries every one),
        // and each division gives two digits from PAIRS (docs/performance.md, "Ninth round": the
        // division was a tenth of the tracer's time on la4j; "Twentieth round": the pairs)
        int end = pos + digits(w);
        int p = end;
        byte[] b = buf;
        while (w >= 100) {
            int q = (int) ((w * 1374389535L) >>> 37);
            int r = (w - q * 100) << 1;
            b[--p] = PAIRS[r + 1];
            b[--p] = PAIRS[r];
            w = q;
        }
        if (w >= 10) {
            b[--p] = PAIRS[(w << 1) + 1];
            b[--p] = PAIRS[w << 1];
        } else b[--p] = (byte) ('0' + w);
        pos = end;
        return this;
    }

    Out num(long v) {
        if (v >= 0 && v <= Integer.MAX_VALUE) return num((int) v);
        ensure(20);
        if (v == Long.MIN_VALUE) return a("-9223372036854775808");
        if (v < 0) {
            buf[pos++] = '-';
            v = -v;
        }
        if (v <= Integer.MAX_VALUE) return num((int) v);
        int start = pos;
        // C1 compiles a long division into a runtime call; numbers this large are rare
        for (; v > 0; v /= 10) buf[pos++] = (byte) ('0' + (v % 10));
        for (int i = start, j = pos - 1; i < j; i++, j--) {
            byte t = buf[i];
            buf[i] = buf[j];
            buf[j] = t;
        }
        return this;
    }

    /** The decimal digits of a non-negative int. */
    private static int digits(int w) {
        if (w < 100000) return w < 100 ? (w < 10 ? 1 : 2) : w < 10000 ? (w < 1000 ? 3 : 4) : 5;
        return w < 10000000 ? (w < 1000000 ? 6 : 7) : w < 1000000000 ? (w < 100000000 ? 8 : 9) : 10;
    }

    /** Appends a JSON string literal of s, UTF-8 (lone surrogates escaped). */
    Out str(String s) {
        if (s == null) return a("null");
        int n = s.length();
        ensure(n * 3 + 2);
        buf[pos++] = '"';
        for (int i = 0; i < n; i++) {
            char c = s.charAt(i);
            if (c == '"' || c == '\\') {
                ensure(2 + (n - i) * 3);
                buf[pos++] = '\\';
                buf[pos++] = (byte) c;
            } else if (c < 0x20) {
                ensure(6 + (n - i) * 3);
                buf[pos++] = '\\';
                buf[pos++] = 'u';
                buf[pos++] = '0';
                buf[pos++] = '0';
                buf[pos++] = (byte) "0123456789abcdef".charAt(c >> 4);
                buf[pos++] = (byte) "0123456789abcdef".charAt(c & 15);
            } else if (c < 0x80) {
                buf[pos++] = (byte) c;
            } else if (c < 0x800) {
                buf[pos++] = (byte) (0xc0 | (c >> 6));
                buf[pos++] = (byte) (0x80 | (c & 0x3f));
            } else if (Character.isHighSurrogate(c) && i + 1 < n && Character.isLowSurrogate(s.charAt(i + 1))) {
                int cp = Character.toCodePoint(c, s.charAt(++i));
                buf[pos++] = (byte) (0xf0 | (cp >> 18));
                buf[pos++] = (byte) (0x80 | ((cp >> 12) & 0x3f));
                buf[pos++] = (byte) (0x80 | ((cp >> 6) & 0x3f));
                buf[pos++] = (byte) (0x80 | (cp & 0x3f));
            } else if (Character.isSurrogate(c)) {
                ensure(6 + (n - i) * 3);
                buf[pos++] = '\\';
                buf[pos++] = 'u';
                for (int k = 12; k >= 0; k -= 4) buf[pos++] = (byte) "0123456789abcdef".charAt((c >> k) & 15);
            } else {
                buf[pos++] = (byte) (0xe0 | (c >> 12));
                buf[pos++] = (byte) (0x80 | ((c >> 6) & 0x3f));
                buf[pos++] = (byte) (0x80 | (c & 0x3f));
            }
        }
        buf[pos++] = '"';
        return this;
    }

    /** The JSON string literal of s as UTF-8 bytes (for names encoded once). */
    static byte[] literal(String s) {
        return quote(s).getBytes(java.nio.charset.StandardCharsets.UTF_8);
    }

    /** JSON string literal (control characters and lone surrogates escaped). */
    static String quote(String s) {
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
                    if (c < 0x20 || Character.isSurrogate(c)) {
                        if (Character.isHighSurrogate(c) && i + 1 < s.length() && Character.isLowSurrogate(s.charAt(i + 1))) {
                            b.append(c).append(s.charAt(++i));
                        } else {
                            b.append(String.format("\\u%04x", (int) c));
                        }
                    } else b.append(c);
            }
        }
        return b.append('"').toString();
    }
}
