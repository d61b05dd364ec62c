package paf.instr;

import java.util.ArrayList;
import java.util.List;
import java.util.TreeSet;

import org.objectweb.asm.ClassReader;
import org.objectweb.asm.Opcodes;
import org.objectweb.asm.tree.AbstractInsnNode;
import org.objectweb.asm.tree.ClassNode;
import org.objectweb.asm.tree.IincInsnNode;
import org.objectweb.asm.tree.LineNumberNode;
import org.objectweb.asm.tree.MethodNode;
import org.objectweb.asm.tree.VarInsnNode;

import paf.rt.R;

/**
 * The lines of a test method each line reads its values from (issue 12): for every line, the
 * earlier lines that last stored the local variables it loads, from the test class's bytecode
 * (javac's line table; no source needed). A failure raised in the test body (a regression
 * assertion on {@code int13}, stored on an earlier line by {@code int13 = d.get(f)}) is analyzed
 * at the calls of the lines it reads. Straight-line code, as Randoop writes it, is exact; with
 * loops or branches the last store in bytecode order stands for every store (docs/algorithm.md).
 */
final class BodyLines {
    private BodyLines() {}

    /** Registers, for every method of the test class {@code bytes}, its lines' read lines with the runtime. */
    static void register(String internalName, byte[] bytes) {
        ClassNode cn = new ClassNode();
        new ClassReader(bytes).accept(cn, ClassReader.SKIP_FRAMES);
        String cls = internalName.replace('/', '.');
        for (MethodNode mn : cn.methods) {
            if ((mn.access & Opcodes.ACC_ABSTRACT) != 0 || mn.instructions.size() == 0) continue;
            scan(cls, mn);
        }
    }

    private static void scan(String cls, MethodNode mn) {
        int[] stored = new int[Math.max(mn.maxLocals, 1)];
        java.util.Arrays.fill(stored, -1);
        List<Integer> lines = new ArrayList<>();
        List<TreeSet<Integer>> reads = new ArrayList<>();
        int line = -1;
        TreeSet<Integer> cur = null;
        for (AbstractInsnNode n = mn.instructions.getFirst(); n != null; n = n.getNext()) {
            if (n instanceof LineNumberNode) {
                line = ((LineNumberNode) n).line;
                cur = null;
                continue;
            }
            if (line < 0) continue;
            if (n instanceof VarInsnNode) {
                VarInsnNode v = (VarInsnNode) n;
                if (v.var >= stored.length) continue;
                int op = v.getOpcode();
                if (op >= Opcodes.ILOAD && op <= Opcodes.ALOAD) {
                    int from = stored[v.var];
                    if (from >= 0 && from != line) {
                        if (cur == null) {
                            cur = new TreeSet<>();
                            lines.add(line);
                            reads.add(cur);
                        }
                        cur.add(from);
                    }
                } else if (op >= Opcodes.ISTORE && op <= Opcodes.ASTORE) {
                    stored[v.var] = line;
                }
            } else if (n instanceof IincInsnNode) {
                int var = ((IincInsnNode) n).var;
                if (var < stored.length) stored[var] = line;
            }
        }
        for (int i = 0; i < lines.size(); i++) {
            int[] from = new int[reads.get(i).size()];
            int j = 0;
            for (int f : reads.get(i)) from[j++] = f;
            R.bodyLines(cls, mn.name, lines.get(i), from);
        }
    }
}
