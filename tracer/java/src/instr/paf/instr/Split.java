//! Splits methods into a dispatcher that runs the original body when nothing is recorded and an instrumented private copy.
package paf.instr;

import static org.objectweb.asm.Opcodes.*;

import org.objectweb.asm.Type;
import org.objectweb.asm.tree.AbstractInsnNode;
import org.objectweb.asm.tree.ClassNode;
import org.objectweb.asm.tree.InsnList;
import org.objectweb.asm.tree.InsnNode;
import org.objectweb.asm.tree.JumpInsnNode;
import org.objectweb.asm.tree.LabelNode;
import org.objectweb.asm.tree.LineNumberNode;
import org.objectweb.asm.tree.MethodInsnNode;
import org.objectweb.asm.tree.MethodNode;
import org.objectweb.asm.tree.VarInsnNode;

/**
 * Methods split in two, so that code running unrecorded runs them as the compiler sees them
 * uninstrumented. The method keeps its name, descriptor and access and becomes a
 * <em>dispatcher</em>: {@code if (R.on()) return m(args..., null); <the original body>}. The
 * instrumented body moves to a private synthetic overload {@code m(args..., R)} (same name, so a
 * stack trace names the method as before; the extra parameter only tells the two apart). A
 * small method's dispatcher is small enough for C1 to inline (C1MaxInlineSize, 35 bytes of
 * bytecode), so a getter called in a loop that runs past the event cap costs what it costs
 * without the agent, where its instrumented body cost a call and a check per event
 * (docs/performance.md, "Fourteenth round"). A larger method runs its original body, several
 * times smaller than the instrumented one and without its checks: joda-time with next to nothing
 * recorded took 2.05 s instead of 2.70 s once every method was split, not only the small ones,
 * and runs that record throughout took as long ("Nineteenth round"). Recorded, such a call costs
 * one more call (the dispatcher is not inlined). A copy with a loop can also leave for the
 * original code at the loop's head once nothing is recorded ({@link #addExits}).
 *
 * <p>The dispatcher's call to the instrumented copy carries line {@link #LINE}: its frame is in
 * every stack between the copy and its caller, and the runtime leaves frames of that line out
 * of what it records and walks ({@code R.DISPATCH_LINE}), so traces are the same as without it.
 */
final class Split {
    private Split() {}

    /** The line of a dispatcher's call: the largest a class file can name (a u2), so no real line but the 65,535th of a file. */
    static final int LINE = paf.rt.R.DISPATCH_LINE;
    /** The most bytecode a method may have (a class file's code_length is under 65,536). */
    static final int MAX_CODE = 65535;
    static final String RT = "paf/rt/R";

    /**
     * The dispatcher for {@code original} (before instrumentation); null when the method is not
     * split: a kind the instrumenter treats apart (a constructor, a class initializer, a method of
     * an interface, synchronized, abstract, native or a bridge), one with an exception handler or
     * JSR/RET, or one whose bytecode with the dispatch might not fit in a method. {@code frames}:
     * the original's frames are kept ({@link Frames}), and the jump to its code gets one.
     */
    static MethodNode dispatcher(ClassNode cn, MethodNode original, boolean frames) {
        if (!splitKind(cn, original)) return null;
        Type[] args = Type.getArgumentTypes(original.desc);
        boolean isStatic = (original.access & ACC_STATIC) != 0;
        int size = 3 + 3 + 1 + 3 + 1; // on(), ifeq, aconst_null, invoke, return
        int slot = 0;
        if (!isStatic) {
            size += 1;
            slot = 1;
        }
        for (Type t : args) {
            size += slot <= 3 ? 1 : 2;
            slot += t.getSize();
        }
        if (slot + 1 > 255) return null;
        int body = bodySize(original);
        if (body < 0 || size + body > MAX_CODE) return null;

        MethodNode d = new MethodNode(ASM9, original.access, original.name, original.desc, original.signature,
                original.exceptions.toArray(new String[0]));
        original.accept(d); // annotations, parameters and the original code
        InsnList pre = new InsnList();
        LabelNode start = new LabelNode(), plain = new LabelNode();
        pre.add(start);
        pre.add(new LineNumberNode(LINE, start));
        pre.add(new MethodInsnNode(INVOKESTATIC, RT, "on", "()Z", false));
        pre.add(new JumpInsnNode(IFEQ, plain));
        slot = 0;
        if (!isStatic) pre.add(new VarInsnNode(ALOAD, slot++));
        for (Type t : args) {
            pre.add(new VarInsnNode(t.getOpcode(ILOAD), slot));
            slot += t.getSize();
        }
        pre.add(new InsnNode(ACONST_NULL));
        pre.add(new MethodInsnNode(isStatic ? INVOKESTATIC : INVOKESPECIAL, cn.name, original.name, copyDesc(original.desc),
                false));
        pre.add(new InsnNode(Type.getReturnType(original.desc).getOpcode(IRETURN)));
        pre.add(plain);
        // a frame at offset 0 of the original code is now where the jump lands
        if (frames && !Frames.startsWithFrame(d.instructions)) pre.add(Frames.frame(Frames.initial(cn.name, original)));
        d.instructions.insert(pre);
        return d;
    }

    /**
     * Whether {@code m} (its original code) is of a kind that is split, whatever its size: not a
     * constructor, a class initializer, a method of an interface, synchronized, abstract, native
     * or a bridge, and without an exception handler or JSR/RET. (The instrumenter asks before it
     * clones a method's code for {@link #addExits}.)
     */
    static boolean splitKind(ClassNode cn, MethodNode m) {
        if ((cn.access & ACC_INTERFACE) != 0) return false;
        if ((m.access & (ACC_ABSTRACT | ACC_NATIVE | ACC_SYNCHRONIZED | ACC_BRIDGE)) != 0) return false;
        if (m.name.startsWith("<") || !m.tryCatchBlocks.isEmpty()) return false;
        for (AbstractInsnNode n = m.instructions.getFirst(); n != null; n = n.getNext())
            if (n.getOpcode() == JSR || n.getOpcode() == RET) return false; // left whole, as the instrumenter leaves them
        return true;
    }

    /** The original method's descriptor of an instrumented copy's {@code desc} ({@link #copyDesc}); any other unchanged. */
    static String originalDesc(String desc) {
        String marker = "L" + RT + ";)";
        int at = desc.indexOf(marker);
        return at < 0 ? desc : desc.substring(0, at) + desc.substring(at + marker.length() - 1);
    }

    /** {@code desc} with an {@code R} parameter last: the instrumented copy's descriptor. */
    static String copyDesc(String desc) {
        int close = desc.indexOf(')');
        return desc.substring(0, close) + "L" + RT + ";" + desc.substring(close);
    }

    /**
     * Makes the instrumented {@code mn} the private copy. The extra parameter takes the slot after
     * the arguments, where the body keeps its first local: the body never reads the parameter,
     * so its own stores there are as before (the verifier lets a slot change its type), and no
     * local has to move. The class writer computes the copy's maxima again, and its frames too
     * unless they are kept ({@link Frames}): those of the original body stay right, as the body's
     * locals keep their slots.
     */
    static void toCopy(MethodNode mn) {
        mn.desc = copyDesc(mn.desc);
        mn.signature = null;
        mn.access = (mn.access & ~(ACC_PUBLIC | ACC_PROTECTED | ACC_FINAL | ACC_VARARGS)) | ACC_PRIVATE | ACC_SYNTHETIC;
        // annotations stay on the dispatcher: it is the method that reflection and callers see
        mn.visibleAnnotations = null;
        mn.invisibleAnnotations = null;
        mn.visibleParameterAnnotations = null;
        mn.invisibleParameterAnnotations = null;
        mn.visibleAnnotableParameterCount = 0;
        mn.invisibleAnnotableParameterCount = 0;
        mn.visibleTypeAnnotations = null;
        mn.invisibleTypeAnnotations = null;
        mn.visibleLocalVariableAnnotations = null;
        mn.invisibleLocalVariableAnnotations = null;
        mn.annotationDefault = null;
        mn.parameters = null;
    }

    /**
     * Lets the instrumented copy {@code copy} leave for the original code at its loops' heads:
     * {@code original} (the method's code cloned before it was instrumented) is appended to the
     * copy, and at each loop head of {@code exits} (a label the instrumented code kept) the copy
     * goes to the same label of the clone when {@code R.on()} is false. A test that stops being
     * recorded (past its event budget) inside a loop of a copy so runs the rest of the call as
     * the original code does, where it ran the instrumented code to the call's end, each event
     * reduced to a check: joda-time's {@code RegressionTest0.test0096} loops in one call of
     * {@code addWrapPartial} long after its last event (docs/performance.md, "Nineteenth round").
     * The trace is the same: nothing is recorded once a test stopped recording (the flag only
     * turns on again at the next test's start), and the original's locals keep their slots in
     * the instrumented code, whose stack is empty at a loop head as the original's is. Nothing
     * is added when the copy with the clone might not fit in a method. {@code owner} (the class)
     * not null: the frames are kept ({@link Frames}), so each check goes after the frame of its
     * loop head, and the clone, which nothing falls into, starts with the copy's initial frame.
     */
    static void addExits(String owner, MethodNode copy, InsnList original, java.util.Map<LabelNode, LabelNode> exits) {
        int size = bodySize(copy.instructions), more = bodySize(original);
        // per exit: invokestatic (3 bytes) and ifeq, 8 bytes at most once widened to reach the clone
        if (exits.isEmpty() || size < 0 || more < 0 || (long) size + more + 11L * exits.size() > MAX_CODE) return;
        for (java.util.Map.Entry<LabelNode, LabelNode> e : exits.entrySet()) {
            InsnList check = new InsnList();
            check.add(new MethodInsnNode(INVOKESTATIC, RT, "on", "()Z", false));
            check.add(new JumpInsnNode(IFEQ, e.getValue()));
            copy.instructions.insert(owner == null ? e.getKey() : Frames.endOfOffset(e.getKey()), check);
        }
        if (owner != null && !Frames.startsWithFrame(original)) original.insert(Frames.frame(Frames.initial(owner, copy)));
        // after the instrumented code, which ends in its handler's athrow: nothing falls into it
        copy.instructions.add(original);
    }

    /** An upper bound of the method's bytecode length; -1 for an instruction not counted. */
    static int bodySize(MethodNode mn) {
        return bodySize(mn.instructions);
    }

    /** An upper bound of the code's length in bytes; -1 for an instruction not counted. */
    static int bodySize(InsnList code) {
        int n = 0;
        for (AbstractInsnNode i = code.getFirst(); i != null; i = i.getNext()) {
            int op = i.getOpcode();
            if (op < 0) continue; // labels, lines, frames
            switch (i.getType()) {
                case AbstractInsnNode.INSN:
                    n += 1;
                    break;
                case AbstractInsnNode.INT_INSN:
                    n += op == SIPUSH ? 3 : 2;
                    break;
                case AbstractInsnNode.VAR_INSN:
                    n += ((VarInsnNode) i).var > 255 ? 4 : 2;
                    break;
                case AbstractInsnNode.IINC_INSN:
                    n += 6;
                    break;
                case AbstractInsnNode.TYPE_INSN:
                case AbstractInsnNode.FIELD_INSN:
                case AbstractInsnNode.LDC_INSN:
                    n += 3;
                    break;
                case AbstractInsnNode.JUMP_INSN: // a conditional jump too far for 16 bits: the opposite test and goto_w
                    n += 8;
                    break;
                case AbstractInsnNode.METHOD_INSN:
                case AbstractInsnNode.INVOKE_DYNAMIC_INSN:
                    n += 5;
                    break;
                case AbstractInsnNode.MULTIANEWARRAY_INSN:
                    n += 4;
                    break;
                case AbstractInsnNode.TABLESWITCH_INSN: // opcode, padding, default, low, high, the offsets
                    n += 16 + 4 * ((org.objectweb.asm.tree.TableSwitchInsnNode) i).labels.size();
                    break;
                case AbstractInsnNode.LOOKUPSWITCH_INSN: // opcode, padding, default, count, the pairs
                    n += 12 + 8 * ((org.objectweb.asm.tree.LookupSwitchInsnNode) i).labels.size();
                    break;
                default:
                    return -1;
            }
        }
        return n;
    }
}
