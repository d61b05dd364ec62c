//! The class cache: instrumented classes and their registrations, recorded by one run and replayed by the next.
package paf.instr;

import java.io.File;
import java.io.FileInputStream;
import java.io.FileOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.zip.CRC32;
import java.util.zip.CRC32C;

import paf.rt.R;

/**
 * The classes a run instrumented, in the order they loaded, each with its journal of
 * registrations ({@link Reg}) and its instrumented bytes, kept in one file for the next run of the
 * same suite (docs/java.md, "The class cache"). A run replays the file from its start: as long as
 * each class that loads is the next one recorded (same name, same class loader's class, same
 * bytes) and the runtime's registry ({@link R#registry}) is what it was when that class was
 * recorded, replaying the journal gives the same ids, so the recorded bytes are what instrumenting
 * would make now. At the first class that differs the run goes on instrumenting (every later
 * class too), and the file is written again with this run's classes.
 *
 * <p>paf names the file by a key of everything else the instrumentation reads: the JDK, the
 * tracer's and ASM's jars, the agent's options, the diagnostics' variables, and the class path's
 * and source path's files (their names, sizes and times). So a class differs from its record only
 * when the same files load in another order, or a file changed and kept its size and time.
 *
 * <p>The file: "PAFC", version, then per class: its entry's length, its strings (each once), its
 * name, class loader's class, the length and CRCs of its bytes as loaded, the registry before
 * it, its journal (strings by their number) and its instrumented bytes; last, a CRC-32 of all
 * before it. A file that does not check is ignored. Each class's entry stands alone, so that the
 * next file copies the entries of the classes replayed as they are.
 */
final class ClassCache {
    private static final int MAGIC = 0x50414643, VERSION = 1;

    private final File file;
    /** The recorded file, checked, past its version, short of its CRC; null: none, or no longer needed. */
    private ByteBuffer old;
    /** No class is replayed any more: one differed from its record. */
    private boolean diverged;
    /**
     * This run's entries, in order, once it records one: the old file's entries of the classes
     * replayed before (copied then, so that a run that records nothing copies nothing), then the
     * new ones.
     */
    private final Buf now = new Buf(1 << 16);
    /** Where the old file's entries of the classes replayed end (they are its first ones). */
    private int keptEnd;
    private int entries, recorded;
    /** The classes replayed since the last miss: each (loader, bytes), for the instrumenter's {@link Hierarchy}. */
    private final List<Object[]> replayed = new ArrayList<>();
    private final boolean verbose;

    private ClassCache(File file, byte[] old, boolean verbose) {
        this.file = file;
        this.old = old == null ? null : ByteBuffer.wrap(old, 8, old.length - 16).slice();
        this.verbose = verbose;
    }

    /**
     * Reads and writes of the file go in pieces of this size: Files.readAllBytes and Files.write
     * of mockachino's 2.6 MB took 3 to 8 and 12 ms, copying through a temporary direct buffer
     * of the whole size, against about 1 ms in pieces (docs/performance.md, "Thirty-fourth round").
     */
    private static final int CHUNK = 1 << 16;

    private static byte[] read(File f) throws IOException {
        try (FileInputStream in = new FileInputStream(f)) {
            long n = f.length();
            if (n > Integer.MAX_VALUE - 16) throw new IOException("a class cache of " + n + " bytes");
            byte[] b = new byte[(int) n];
            for (int off = 0; off < b.length; ) {
                int r = in.read(b, off, Math.min(CHUNK, b.length - off));
                if (r < 0) throw new IOException("the class cache ended early");
                off += r;
            }
            return b;
        }
    }

    /** The cache in {@code path}: its recorded classes if it holds a file that checks. */
    static ClassCache open(String path, boolean verbose) {
        File f = new File(path);
        byte[] b = null;
        try {
            if (f.isFile()) b = read(f);
        } catch (IOException | RuntimeException e) {
            b = null;
        }
        if (b != null && !checks(b)) {
            if (verbose) System.err.println("paf-agent: the class cache " + path + " does not check: ignored");
            b = null;
        }
        return new ClassCache(f, b, verbose);
    }

    private static boolean checks(byte[] b) {
        if (b.length < 16) return false;
        ByteBuffer bb = ByteBuffer.wrap(b);
        if (bb.getInt(0) != MAGIC || bb.getInt(4) != VERSION) return false;
        CRC32 crc = new CRC32();
        crc.update(b, 0, b.length - 8);
        return bb.getLong(b.length - 8) == crc.getValue();
    }

    /** The CRC-32 and CRC-32C of a class's bytes, in one long. */
    static long crcs(byte[] bytes) {
        CRC32 a = new CRC32();
        a.update(bytes);
        CRC32C c = new CRC32C();
        c.update(bytes);
        return a.getValue() << 32 | c.getValue();
    }

    /** What a replay gives: the recorded bytes (null: the class unchanged), or that the instrumenter must make the class. */
    static final class Hit {
        final byte[] out;

        Hit(byte[] out) {
            this.out = out;
        }
    }

    /** The instrumenter makes this class (a test class found by its annotations): replaying it does not diverge. */
    static final Hit PASS = new Hit(null);

    /**
     * The class {@code name}'s recorded bytes, its journal replayed, if it is the next class
     * recorded and the registry is as recorded; null otherwise (from then on, always null).
     */
    synchronized Hit replay(ClassLoader loader, String name, byte[] bytes) {
        if (diverged || old == null) return null;
        if (!old.hasRemaining()) return diverge("no class recorded after " + entries);
        int start = old.position();
        try {
            int end = start + 4 + old.getInt();
            if (end > old.limit()) throw new IllegalStateException("an entry past the file's end");
            String[] strs = new String[count(old, 4)];
            for (int i = 0; i < strs.length; i++) {
                int n = count(old, 1);
                strs[i] = new String(old.array(), old.arrayOffset() + old.position(), n, StandardCharsets.UTF_8);
                old.position(old.position() + n);
            }
            if (!name.equals(strs[old.getInt()]) || !loader.getClass().getName().equals(strs[old.getInt()])
                    || old.getInt() != bytes.length || old.getLong() != crcs(bytes))
                return diverge(name.replace('/', '.') + " is not the next class recorded, or not its bytes");
            long[] reg = R.registry();
            for (int i = 0; i < 4; i++)
                if (old.getLong() != reg[i]) return diverge("the registry is not as recorded before " + name.replace('/', '.'));
            Object[][] journal = new Object[count(old, 2)][];
            boolean pass = false;
            for (int i = 0; i < journal.length; i++) {
                journal[i] = op(old, strs);
                if ((Byte) journal[i][0] == Reg.PASS) pass = true;
            }
            byte[] out = bytes(old);
            if (old.position() != end) throw new IllegalStateException("an entry of another length than it says");
            if (pass) {
                keep(end);
                return PASS;
            }
            for (Object[] op : journal)
                if (!Reg.replay(op)) return diverge("an id differs from the record of " + name.replace('/', '.'));
            keep(end);
            replayed.add(new Object[] {loader, bytes});
            R.cached(true);
            return new Hit(out);
        } catch (RuntimeException e) {
            return diverge("the record of " + name.replace('/', '.') + " cannot be read: " + e);
        }
    }

    private Hit diverge(String why) {
        diverged = true;
        if (verbose) System.err.println("paf-agent: the class cache stops: " + why);
        return null;
    }

    /** Keeps the old file's entry that ends at {@code end} (the next after those kept) in this run's. */
    private void keep(int end) {
        keptEnd = end;
        entries++;
    }

    /** The classes replayed since the last call, each (loader, bytes): the instrumenter's hierarchy learns them before it instruments. */
    synchronized List<Object[]> takeReplayed() {
        List<Object[]> r = new ArrayList<>(replayed);
        replayed.clear();
        return r;
    }

    /** Records a class the instrumenter made: {@code reg} the registry before it, {@code journal} its registrations. */
    synchronized void record(ClassLoader loader, String name, byte[] bytes, long[] reg, List<Object[]> journal, byte[] out) {
        diverged = true; // the classes after it are not the recorded ones' sequel
        if (old != null) {
            now.put(old.array(), old.arrayOffset(), keptEnd);
            old = null;
        }
        Map<String, Integer> numbers = new HashMap<>();
        List<String> strs = new ArrayList<>();
        Buf e = new Buf(out == null ? 1024 : out.length + 1024);
        e.putInt(number(numbers, strs, name));
        e.putInt(number(numbers, strs, loader.getClass().getName()));
        e.putInt(bytes.length);
        e.putLong(crcs(bytes));
        for (long x : reg) e.putLong(x);
        e.putInt(journal.size());
        for (Object[] op : journal) op(e, op, numbers, strs);
        e.putBytes(out);
        Buf t = new Buf(strs.size() * 32 + 8);
        t.putInt(strs.size());
        for (String s : strs) t.putBytes(s.getBytes(StandardCharsets.UTF_8));
        now.putInt(t.size + e.size);
        now.put(t.b, 0, t.size);
        now.put(e.b, 0, e.size);
        entries++;
        recorded++;
        R.cached(false);
    }

    /** Writes this run's classes over the file if it recorded any (atomically: a file beside, renamed). */
    synchronized void save() {
        if (recorded == 0) return;
        File tmp = new File(file.getPath() + "." + ProcessHandle.current().pid() + ".tmp");
        try {
            file.getParentFile().mkdirs();
            Buf head = new Buf(8), tail = new Buf(8);
            head.putInt(MAGIC);
            head.putInt(VERSION);
            CRC32 crc = new CRC32();
            crc.update(head.b, 0, head.size);
            crc.update(now.b, 0, now.size);
            tail.putLong(crc.getValue());
            try (FileOutputStream o = new FileOutputStream(tmp)) {
                o.write(head.b, 0, head.size);
                for (int off = 0; off < now.size; off += CHUNK) o.write(now.b, off, Math.min(CHUNK, now.size - off));
                o.write(tail.b, 0, tail.size);
            }
            Files.move(tmp.toPath(), file.toPath(), StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        } catch (IOException | RuntimeException e) {
            tmp.delete();
            if (verbose) System.err.println("paf-agent: cannot write the class cache " + file + ": " + e);
        }
    }

    // the journal's operations: each element tagged with its type, strings by their number

    private static final byte T_NULL = 0, T_BYTE = 1, T_INT = 2, T_STR = 3, T_STRS = 4, T_INTS = 5, T_BYTES = 6;

    private static int number(Map<String, Integer> numbers, List<String> strs, String s) {
        Integer n = numbers.get(s);
        if (n != null) return n;
        numbers.put(s, strs.size());
        strs.add(s);
        return strs.size() - 1;
    }

    private static void op(Buf d, Object[] op, Map<String, Integer> numbers, List<String> strs) {
        d.putByte(op.length);
        for (Object x : op) {
            if (x == null) d.putByte(T_NULL);
            else if (x instanceof Byte) {
                d.putByte(T_BYTE);
                d.putByte((Byte) x);
            } else if (x instanceof Integer) {
                d.putByte(T_INT);
                d.putInt((Integer) x);
            } else if (x instanceof String) {
                d.putByte(T_STR);
                d.putInt(number(numbers, strs, (String) x));
            } else if (x instanceof String[]) {
                d.putByte(T_STRS);
                String[] a = (String[]) x;
                d.putInt(a.length);
                for (String s : a) d.putInt(number(numbers, strs, s));
            } else if (x instanceof int[]) {
                d.putByte(T_INTS);
                int[] a = (int[]) x;
                d.putInt(a.length);
                for (int v : a) d.putInt(v);
            } else if (x instanceof byte[]) {
                d.putByte(T_BYTES);
                d.putBytes((byte[]) x);
            } else throw new IllegalArgumentException("journal element " + x.getClass());
        }
    }

    private static Object[] op(ByteBuffer in, String[] strs) {
        Object[] op = new Object[in.get() & 0xff];
        for (int i = 0; i < op.length; i++) {
            byte t = in.get();
            switch (t) {
                case T_NULL:
                    break;
                case T_BYTE:
                    op[i] = in.get();
                    break;
                case T_INT:
                    op[i] = in.getInt();
                    break;
                case T_STR:
                    op[i] = strs[in.getInt()];
                    break;
                case T_STRS: {
                    String[] a = new String[count(in, 4)];
                    for (int k = 0; k < a.length; k++) a[k] = strs[in.getInt()];
                    op[i] = a;
                    break;
                }
                case T_INTS: {
                    int[] a = new int[count(in, 4)];
                    for (int k = 0; k < a.length; k++) a[k] = in.getInt();
                    op[i] = a;
                    break;
                }
                case T_BYTES:
                    op[i] = bytes(in);
                    break;
                default:
                    throw new IllegalStateException("journal element of type " + t);
            }
        }
        return op;
    }

    /**
     * A count read from the file, of items of at least {@code size} bytes each: one the rest of
     * the file cannot hold is refused before anything is allocated for it.
     */
    private static int count(ByteBuffer in, int size) {
        int n = in.getInt();
        if (n < 0 || (long) n * size > in.remaining()) throw new IllegalStateException("a count of " + n + " past the file's end");
        return n;
    }

    /** A byte array written by {@link Buf#putBytes}: its length (-1: null), its bytes. */
    private static byte[] bytes(ByteBuffer in) {
        if (in.getInt(in.position()) < 0) {
            in.getInt();
            return null;
        }
        byte[] b = new byte[count(in, 1)];
        in.get(b);
        return b;
    }

    /**
     * A growing byte array written big-endian, as {@link ByteBuffer} reads it: no stream, no lock
     * per write (a ByteArrayOutputStream's writes are synchronized, and a DataOutputStream's
     * writeInt is four of them).
     */
    private static final class Buf {
        byte[] b;
        int size;

        Buf(int capacity) {
            b = new byte[Math.max(capacity, 16)];
        }

        private void room(int n) {
            if (size + n > b.length) b = Arrays.copyOf(b, Math.max(b.length * 2, size + n));
        }

        void putByte(int v) {
            room(1);
            b[size++] = (byte) v;
        }

        void putInt(int v) {
            room(4);
            b[size++] = (byte) (v >>> 24);
            b[size++] = (byte) (v >>> 16);
            b[size++] = (byte) (v >>> 8);
            b[size++] = (byte) v;
        }

        void putLong(long v) {
            putInt((int) (v >>> 32));
            putInt((int) v);
        }

        void put(byte[] src, int off, int len) {
            room(len);
            System.arraycopy(src, off, b, size, len);
            size += len;
        }

        /** A byte array: its length (-1: null), its bytes. */
        void putBytes(byte[] a) {
            putInt(a == null ? -1 : a.length);
            if (a != null) put(a, 0, a.length);
        }
    }
}
