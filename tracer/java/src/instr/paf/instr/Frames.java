//! The class file's stack map frames kept and extended for instrumented code, so that ASM need not compute them again.
package paf.instr;

import static org.objectweb.asm.Opcodes.*;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;

import org.objectweb.asm.Type;
import org.objectweb.asm.tree.AbstractInsnNode;
import org.objectweb.asm.tree.FrameNode;
import org.objectweb.asm.tree.InsnList;
import org.objectweb.asm.tree.LabelNode;
import org.objectweb.asm.tree.LineNumberNode;
import org.objectweb.asm.tree.MethodNode;

/**
 * The stack map frames of instrumented code, kept from the class file and extended, so that the
 * class writer does not compute them again (docs/performance.md, "Thirty-third round": ASM's
 * frame computation was a third of the instrumenting time). A class read with {@code
 * EXPAND_FRAMES} has a {@link FrameNode} (all {@code F_NEW}) at every branch target of its
 * code. The instrumentation adds no branch to the original code but at the method's entry, its
 * handler, a split method's dispatcher and its loops' exits; these get frames here, and the
 * original frames get the locals the instrumentation added (the frame id and the capture slots,
 * ints set at the entry; the spill slots are never live at a branch target, so they are TOP).
 *
 * <p>Locals are handled one slot a value: {@link #slots} spreads a frame's list (where a long or
 * double is one entry for two slots) and {@link #entries} folds it back.
 */
final class Frames {
    private Frames() {}

    /** A frame's locals one slot an entry: a long or double is followed by TOP. */
    static List<Object> slots(List<Object> local) {
        List<Object> out = new ArrayList<>();
        if (local == null) return out;
        for (Object o : local) {
            out.add(o);
            if (o == LONG || o == DOUBLE) out.add(TOP);
        }
        return out;
    }

    /** The frame list of per-slot locals: a long's or double's second slot folded, trailing TOPs dropped. */
    static List<Object> entries(List<Object> slots) {
        int end = slots.size();
        while (end > 0 && slots.get(end - 1) == TOP) end--;
        List<Object> out = new ArrayList<>();
        for (int i = 0; i < end; i++) {
            Object o = slots.get(i);
            out.add(o);
            if (o == LONG || o == DOUBLE) i++;
        }
        return out;
    }

    /** The type of a value of {@code t} in a frame. */
    static Object type(Type t) {
        switch (t.getSort()) {
            case Type.BOOLEAN: case Type.BYTE: case Type.CHAR: case Type.SHORT: case Type.INT:
                return INTEGER;
            case Type.FLOAT:
                return FLOAT;
            case Type.LONG:
                return LONG;
            case Type.DOUBLE:
                return DOUBLE;
            case Type.ARRAY:
                return t.getDescriptor();
            default:
                return t.getInternalName();
        }
    }

    /** The locals at a method's entry, one slot an entry: the receiver (uninitialized in a constructor), then the arguments. */
    static List<Object> initial(String owner, MethodNode mn) {
        List<Object> out = new ArrayList<>();
        if ((mn.access & ACC_STATIC) == 0) out.add(mn.name.equals("<init>") ? UNINITIALIZED_THIS : owner);
        for (Type t : Type.getArgumentTypes(mn.desc)) {
            out.add(type(t));
            if (t.getSize() == 2) out.add(TOP);
        }
        return out;
    }

    /** A frame with these per-slot locals and this stack. */
    static FrameNode frame(List<Object> slots, Object... stack) {
        List<Object> local = entries(slots);
        return new FrameNode(F_NEW, local.size(), local.toArray(), stack.length, stack);
    }

    /** Whether the code holds a frame before its first instruction (one at offset 0). */
    static boolean startsWithFrame(InsnList code) {
        for (AbstractInsnNode n = code.getFirst(); n != null && n.getOpcode() < 0; n = n.getNext())
            if (n instanceof FrameNode) return true;
        return false;
    }

    /**
     * The last node of the labels, line numbers and frame that begin at {@code label}: code
     * inserted after it runs at that offset with that frame, whichever of the labels a jump
     * names.
     */
    static AbstractInsnNode endOfOffset(LabelNode label) {
        AbstractInsnNode last = label;
        for (AbstractInsnNode n = label.getNext(); n != null; n = n.getNext()) {
            if (!(n instanceof LabelNode || n instanceof LineNumberNode || n instanceof FrameNode)) break;
            last = n;
            if (n instanceof FrameNode) break;
        }
        return last;
    }

    /**
     * Sets the slots {@code from} to {@code to} (exclusive) of every frame of {@code code}:
     * {@code ints} INTEGER, the others TOP.
     */
    static void extend(InsnList code, int from, int to, Set<Integer> ints) {
        for (AbstractInsnNode n = code.getFirst(); n != null; n = n.getNext()) {
            if (!(n instanceof FrameNode)) continue;
            FrameNode f = (FrameNode) n;
            List<Object> s = slots(f.local);
            while (s.size() < from) s.add(TOP);
            for (int i = from; i < to; i++) {
                Object t = ints.contains(i) ? INTEGER : TOP;
                if (i < s.size()) s.set(i, t);
                else s.add(t);
            }
            f.local = entries(s);
        }
    }

    /**
     * Whether every uninitialized type of the method's frames names a label that a NEW follows
     * (labels, lines and frames between): the instrumentation inserts no code before a NEW, and
     * a class where it would have gets its frames computed instead.
     */
    static boolean newsInPlace(MethodNode mn) {
        for (AbstractInsnNode n = mn.instructions.getFirst(); n != null; n = n.getNext()) {
            if (!(n instanceof FrameNode)) continue;
            FrameNode f = (FrameNode) n;
            for (List<Object> l : java.util.Arrays.asList(f.local, f.stack)) {
                if (l == null) continue;
                for (Object o : l) {
                    if (!(o instanceof LabelNode)) continue;
                    AbstractInsnNode x = ((LabelNode) o).getNext();
                    while (x != null && x.getOpcode() < 0) x = x.getNext();
                    if (x == null || x.getOpcode() != NEW) return false;
                }
            }
        }
        return true;
    }
}
