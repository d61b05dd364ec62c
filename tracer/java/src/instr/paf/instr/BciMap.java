package paf.instr;

import java.util.HashMap;
import java.util.Map;

import org.objectweb.asm.ClassReader;

/**
 * Bytecode offsets of every instruction of every method, read from the class file itself (ASM's
 * tree API does not keep offsets). The k-th real instruction of a MethodNode read without
 * EXPAND_FRAMES/EXPAND_ASM_INSNS is the k-th instruction of the Code attribute.
 */
final class BciMap {
    private static final int[] LEN = new int[256];

    static {
        java.util.Arrays.fill(LEN, 1);
        int[] two = {0x10, 0x12, 0x15, 0x16, 0x17, 0x18, 0x19, 0x36, 0x37, 0x38, 0x39, 0x3a, 0xa9, 0xbc};
        for (int op : two) LEN[op] = 2;
        int[] three = {0x11, 0x13, 0x14, 0x84, 0xa7, 0xa8, 0xc6, 0xc7, 0xbb, 0xbd, 0xc0, 0xc1};
        for (int op : three) LEN[op] = 3;
        for (int op = 0x99; op <= 0xa6; op++) LEN[op] = 3;
        for (int op = 0xb2; op <= 0xb8; op++) LEN[op] = 3;
        LEN[0xc5] = 4;
        LEN[0xb9] = 5;
        LEN[0xba] = 5;
        LEN[0xc8] = 5;
        LEN[0xc9] = 5;
    }

    static Map<String, int[]> of(ClassReader cr) {
        Map<String, int[]> out = new HashMap<>();
        try {
            byte[] b = cr.b;
            char[] buf = new char[cr.getMaxStringLength() + 16];
            int u = cr.header + 6;
            int ifc = cr.readUnsignedShort(u);
            u += 2 + 2 * ifc;
            int fc = cr.readUnsignedShort(u);
            u += 2;
            for (int i = 0; i < fc; i++) {
                int ac = cr.readUnsignedShort(u + 6);
                u += 8;
                for (int j = 0; j < ac; j++) u += 6 + cr.readInt(u + 2);
            }
            int mc = cr.readUnsignedShort(u);
            u += 2;
            for (int i = 0; i < mc; i++) {
                String name = cr.readUTF8(u + 2, buf);
                String desc = cr.readUTF8(u + 4, buf);
                int ac = cr.readUnsignedShort(u + 6);
                u += 8;
                for (int j = 0; j < ac; j++) {
                    String an = cr.readUTF8(u, buf);
                    int len = cr.readInt(u + 2);
                    if ("Code".equals(an)) {
                        int codeLen = cr.readInt(u + 6 + 4);
                        int start = u + 6 + 8;
                        out.put(name + desc, decode(b, start, codeLen));
                    }
                    u += 6 + len;
                }
            }
        } catch (RuntimeException e) {
            // leave the map partial: callers fall back to instruction ordinals
        }
        return out;
    }

    private static int readInt(byte[] b, int i) {
        return ((b[i] & 0xff) << 24) | ((b[i + 1] & 0xff) << 16) | ((b[i + 2] & 0xff) << 8) | (b[i + 3] & 0xff);
    }

    private static int[] decode(byte[] b, int start, int len) {
        int[] offs = new int[Math.max(4, len)];
        int n = 0;
        for (int pc = 0; pc < len; pc = next(b, start, pc)) offs[n++] = pc;
        return java.util.Arrays.copyOf(offs, n);
    }

    /** The offset of the instruction after the one at {@code pc} in the code at {@code start} of {@code b}. */
    static int next(byte[] b, int start, int pc) {
        int op = b[start + pc] & 0xff;
        if (op == 0xaa) { // tableswitch
            int p = pc + 1;
            p += (4 - (p % 4)) % 4;
            int lo = readInt(b, start + p + 4), hi = readInt(b, start + p + 8);
            return p + 12 + 4 * (hi - lo + 1);
        }
        if (op == 0xab) { // lookupswitch
            int p = pc + 1;
            p += (4 - (p % 4)) % 4;
            return p + 8 + 8 * readInt(b, start + p + 4);
        }
        if (op == 0xc4) return pc + ((b[start + pc + 1] & 0xff) == 0x84 ? 6 : 4); // wide (iinc: 6 bytes)
        return pc + LEN[op];
    }
}
