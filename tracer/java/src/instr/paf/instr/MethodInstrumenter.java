package paf.instr;

import static org.objectweb.asm.Opcodes.*;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.IdentityHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import org.objectweb.asm.Type;
import org.objectweb.asm.tree.AbstractInsnNode;
import org.objectweb.asm.tree.ClassNode;
import org.objectweb.asm.tree.FieldInsnNode;
import org.objectweb.asm.tree.IincInsnNode;
import org.objectweb.asm.tree.InsnList;
import org.objectweb.asm.tree.InsnNode;
import org.objectweb.asm.tree.IntInsnNode;
import org.objectweb.asm.tree.InvokeDynamicInsnNode;
import org.objectweb.asm.tree.JumpInsnNode;
import org.objectweb.asm.tree.LabelNode;
import org.objectweb.asm.tree.LdcInsnNode;
import org.objectweb.asm.tree.LineNumberNode;
import org.objectweb.asm.tree.LocalVariableNode;
import org.objectweb.asm.tree.MethodInsnNode;
import org.objectweb.asm.tree.MethodNode;
import org.objectweb.asm.tree.MultiANewArrayInsnNode;
import org.objectweb.asm.tree.TryCatchBlockNode;
import org.objectweb.asm.tree.TypeInsnNode;
import org.objectweb.asm.tree.VarInsnNode;
import org.objectweb.asm.tree.analysis.Analyzer;
import org.objectweb.asm.tree.analysis.AnalyzerException;
import org.objectweb.asm.tree.analysis.Frame;
import org.objectweb.asm.tree.analysis.SourceInterpreter;
import org.objectweb.asm.tree.analysis.SourceValue;

import paf.rt.R;

/**
 * Instruments one method. The plan is computed on the original instruction list (Analyzer frames
 * are indexed by it), then code is inserted around the original instructions, whose node
 * references stay valid. The analysis half ({@link #analyze}, {@link #operands}, {@link #resolve})
 * is also what the static def-use analysis ({@link StaticDuas}) reads, so both name every value the
 * same way.
 *
 * <p>Copy versus non-copy: the value a store (or use) consumes is traced to the instruction that
 * produced it with a SourceInterpreter that looks through DUP* / SWAP and CHECKCAST. A load of a
 * local, a field, a static or an array element, or the result of an instrumented call, makes the
 * store a copy; anything else is a non-copy whose "how" is the producer's kind. A value with
 * several producers (the arms of {@code c ? a : b}, of {@code a && b}, of a switch expression) is a
 * temporary local {@code $N} (N: the smallest bytecode index among its producers) that each
 * producer defines as it runs, as the paper's Jimple has one copy per arm; the consumer copies
 * from it. A {@code long}, {@code float} or {@code double} comparison feeding a branch is a branch
 * on the comparison's two operands.
 */
final class MethodInstrumenter {
    private static final String RT = "paf/rt/R";

    /** A value after CHECKCAST: the same sources, flagged as cast. */
    static final class CastValue extends SourceValue {
        CastValue(SourceValue v) {
            super(v.size, v.insns);
        }
    }

    /**
     * The sources of the operand stack's values. A local's value is no source of anything: a load
     * is its value's producer (a new value, whatever the local holds), and nothing here reads a
     * frame's locals. So every store and IINC leaves the same empty value in its local, and the
     * locals of two frames always merge to what they were: the analysis no longer builds and
     * compares a set of stores per local at every join (about a quarter of the instrumenter's
     * samples on la4j: docs/performance.md, "Fourteenth round"). InterpCheck holds the stack's
     * sources to ASM's.
     */
    static final class Interp extends SourceInterpreter {
        /** What a local holds after a store or an IINC: no source, of one or two slots. */
        private static final SourceValue LOCAL1 = new SourceValue(1), LOCAL2 = new SourceValue(2);

        /** Whether locals keep their stores as sources, as ASM's SourceInterpreter does (InterpCheck's reference). */
        private final boolean localSources;

        Interp() {
            this(false);
        }

        Interp(boolean localSources) {
            super(ASM9);
            this.localSources = localSources;
        }

        @Override
        public SourceValue copyOperation(AbstractInsnNode insn, SourceValue value) {
            int op = insn.getOpcode();
            if (op >= DUP && op <= SWAP) return value; // look through DUP*, SWAP
            if (op >= ISTORE && op <= ASTORE && !localSources) return value.getSize() == 2 ? LOCAL2 : LOCAL1;
            return super.copyOperation(insn, value);
        }

        @Override
        public SourceValue unaryOperation(AbstractInsnNode insn, SourceValue value) {
            if (insn.getOpcode() == CHECKCAST) return new CastValue(value);
            if (insn.getOpcode() == IINC && !localSources) return LOCAL1;
            return super.unaryOperation(insn, value);
        }
    }

    // source kinds (static view of a consumed value)
    static final int S_NONE = 0, S_LOCAL = 1, S_FIELD = 2, S_STATIC = 3, S_ELEM = 4, S_RET = 5, S_CONST = 6, S_NEW = 7,
            S_ARITH = 8, S_THIS = 9, S_MERGE = 10;

    static final class Src {
        int kind;
        AbstractInsnNode p; // the producer (for S_MERGE: null)
        String name; // local, field, static or merge temporary name
        boolean cast;
        String array; // S_ELEM: the field or static the array was loaded from, if any
        Set<AbstractInsnNode> producers; // S_MERGE
    }

    /** A value an instruction consumes and its role: S stored, D dereferenced, X index, B branch, A argument. */
    static final class Operand {
        final Src src;
        final char role;

        Operand(Src src, char role) {
            this.src = src;
            this.role = role;
        }
    }

    private final ClassNode cn;
    private final MethodNode mn;
    private final String cls, file;
    private final int[] offsets;
    private final Hierarchy hierarchy;
    private final boolean isStatic, isCtor;
    AbstractInsnNode[] insns;
    Frame<SourceValue>[] frames;
    final Map<AbstractInsnNode, Integer> index = new IdentityHashMap<>();
    int[] lines, bci;
    private int[] stmtIds;
    int firstLine;
    private int superInit = -1;
    private String accessJson;
    private int frameSlot, nextLocal;
    private final Map<AbstractInsnNode, Integer> capA = new IdentityHashMap<>(), capB = new IdentityHashMap<>();
    private final Set<AbstractInsnNode> needTemp = java.util.Collections.newSetFromMap(new IdentityHashMap<>());
    private final Set<AbstractInsnNode> tempDef = java.util.Collections.newSetFromMap(new IdentityHashMap<>());
    /** Producers of multi-producer values, with the temporaries they define. */
    final Map<AbstractInsnNode, Set<String>> mergeNames = new IdentityHashMap<>();
    private final Map<String, Integer> pool = new HashMap<>();

    /**
     * Whether the method's frames are kept and extended ({@link Frames}; the class was read with
     * EXPAND_FRAMES), rather than computed again by the class writer.
     */
    final boolean keepFrames;

    MethodInstrumenter(ClassNode cn, MethodNode mn, String cls, String file, int[] offsets, Hierarchy hierarchy) {
        this(cn, mn, cls, file, offsets, hierarchy, false);
    }

    MethodInstrumenter(ClassNode cn, MethodNode mn, String cls, String file, int[] offsets, Hierarchy hierarchy,
            boolean keepFrames) {
        this.keepFrames = keepFrames;
        this.cn = cn;
        this.mn = mn;
        this.cls = cls;
        this.file = file;
        this.offsets = offsets;
        this.hierarchy = hierarchy;
        this.isStatic = (mn.access & ACC_STATIC) != 0;
        this.isCtor = mn.name.equals("<init>");
    }

    void run() throws AnalyzerException {
        if (!analyze()) return;
        planExits();
        emit();
        mn.maxLocals = nextLocal;
    }

    /**
     * The original code, cloned before it is instrumented, when it has a loop; null otherwise.
     * With {@link #loopExits}, what {@link Split#addExits} needs to let an instrumented copy
     * leave for the original code at a loop's head once nothing is recorded.
     */
    InsnList originalCode;
    /**
     * Each loop head of the original code (a label a backward jump or switch goes to, with an
     * empty stack there; the instrumented code keeps the label) and its clone in {@link
     * #originalCode}, in code order.
     */
    Map<LabelNode, LabelNode> loopExits;

    private void planExits() {
        if (!Split.splitKind(cn, mn)) return; // never a copy: nothing to leave
        Set<LabelNode> heads = java.util.Collections.newSetFromMap(new IdentityHashMap<>());
        for (int i = 0; i < insns.length; i++) {
            AbstractInsnNode n = insns[i];
            if (n instanceof JumpInsnNode) loopHead(((JumpInsnNode) n).label, i, heads);
            else if (n instanceof org.objectweb.asm.tree.TableSwitchInsnNode) {
                org.objectweb.asm.tree.TableSwitchInsnNode t = (org.objectweb.asm.tree.TableSwitchInsnNode) n;
                loopHead(t.dflt, i, heads);
                for (LabelNode l : t.labels) loopHead(l, i, heads);
            } else if (n instanceof org.objectweb.asm.tree.LookupSwitchInsnNode) {
                org.objectweb.asm.tree.LookupSwitchInsnNode t = (org.objectweb.asm.tree.LookupSwitchInsnNode) n;
                loopHead(t.dflt, i, heads);
                for (LabelNode l : t.labels) loopHead(l, i, heads);
            }
        }
        if (heads.isEmpty()) return;
        Map<LabelNode, LabelNode> clones = new HashMap<>();
        for (AbstractInsnNode n : insns) if (n instanceof LabelNode) clones.put((LabelNode) n, new LabelNode());
        InsnList code = new InsnList();
        // with its frames, if kept: the clone's are the original method's (Split.addExits)
        for (AbstractInsnNode n : insns) code.add(n.clone(clones));
        // in code order, so that the copy is the same whatever the hash of a label
        Map<LabelNode, LabelNode> exits = new java.util.LinkedHashMap<>();
        for (AbstractInsnNode n : insns) if (heads.contains(n)) exits.put((LabelNode) n, clones.get(n));
        originalCode = code;
        loopExits = exits;
    }

    /** Notes {@code l} as a loop head when the jump at {@code from} goes back to it and the stack is empty there. */
    private void loopHead(LabelNode l, int from, Set<LabelNode> heads) {
        Integer at = index.get(l);
        if (at != null && at <= from && frames[at] != null && frames[at].getStackSize() == 0) heads.add(l);
    }

    /**
     * Computes frames, lines and bytecode indices, and plans the captures (no code is changed).
     * False when the method is not instrumented (abstract, native, empty, or with JSR/RET).
     */
    @SuppressWarnings("unchecked")
    boolean analyze() throws AnalyzerException {
        if ((mn.access & (ACC_ABSTRACT | ACC_NATIVE)) != 0 || mn.instructions.size() == 0) return false;
        for (AbstractInsnNode n = mn.instructions.getFirst(); n != null; n = n.getNext())
            if (n.getOpcode() == JSR || n.getOpcode() == RET) return false; // pre-Java-6 subroutines: left alone
        insns = mn.instructions.toArray();
        frames = new Analyzer<SourceValue>(new Interp()).analyze(cn.name, mn);
        for (int i = 0; i < insns.length; i++) index.put(insns[i], i);
        lines = new int[insns.length];
        bci = new int[insns.length];
        stmtIds = new int[insns.length];
        java.util.Arrays.fill(stmtIds, -1);
        firstLine = -1;
        for (AbstractInsnNode n : insns)
            if (n instanceof LineNumberNode) {
                firstLine = ((LineNumberNode) n).line;
                break;
            }
        int cur = Math.max(firstLine, 0), ord = 0;
        for (int i = 0; i < insns.length; i++) {
            if (insns[i] instanceof LineNumberNode) cur = ((LineNumberNode) insns[i]).line;
            lines[i] = cur;
            if (insns[i].getOpcode() >= 0) {
                bci[i] = offsets != null && ord < offsets.length ? offsets[ord] : ord;
                ord++;
            } else bci[i] = -1;
        }
        nextLocal = mn.maxLocals;
        frameSlot = nextLocal++;

        if (isCtor) {
            for (int i = 0; i < insns.length && superInit < 0; i++) {
                AbstractInsnNode n = insns[i];
                if (n.getOpcode() == INVOKESPECIAL && ((MethodInsnNode) n).name.equals("<init>") && frames[i] != null) {
                    Frame<SourceValue> f = frames[i];
                    int nargs = Type.getArgumentTypes(((MethodInsnNode) n).desc).length;
                    SourceValue recv = f.getStack(f.getStackSize() - nargs - 1);
                    if (recv.insns.size() == 1) {
                        AbstractInsnNode p = recv.insns.iterator().next();
                        if (p.getOpcode() == ALOAD && ((VarInsnNode) p).var == 0) superInit = i;
                    }
                }
            }
        }
        plan();
        return true;
    }

    /**
     * Whether instruction i writes events. In a constructor before its super()/this() call, only
     * instructions that do not touch the uninitialized {@code this} (the arguments of
     * {@code this(method, convert(method.getMethod()))}, issue 12): the verifier forbids passing
     * it to the runtime.
     */
    boolean traced(int i) {
        return frames[i] != null && insns[i].getOpcode() >= 0 && (!preSuper(i) || i == superInit || safePreSuper(i));
    }

    private boolean preSuper(int i) {
        return isCtor && (superInit < 0 || i < superInit);
    }

    /**
     * A pre-super instruction whose events may be written: not a field access (only this's own
     * fields can be stored then), and none of the values it consumes is the uninitialized
     * {@code this}. Without a super()/this() call found, nothing before it is traced.
     */
    private boolean safePreSuper(int i) {
        if (superInit < 0 || i > superInit) return false;
        AbstractInsnNode n = insns[i];
        int op = n.getOpcode();
        if (op == GETFIELD || op == PUTFIELD) return false;
        Frame<SourceValue> f = frames[i];
        int k = consumed(n, op, f.getStackSize());
        for (int s = Math.max(0, f.getStackSize() - k); s < f.getStackSize(); s++)
            if (isThis(f.getStack(s))) return false;
        return true;
    }

    /** How many stack values instruction n consumes (an upper bound of 3 for the rare others). */
    private static int consumed(AbstractInsnNode n, int op, int size) {
        if (n instanceof MethodInsnNode) return Type.getArgumentTypes(((MethodInsnNode) n).desc).length + (op == INVOKESTATIC ? 0 : 1);
        if (n instanceof InvokeDynamicInsnNode) return Type.getArgumentTypes(((InvokeDynamicInsnNode) n).desc).length;
        if (n instanceof VarInsnNode) return op >= ISTORE && op <= ASTORE ? 1 : 0;
        if (op >= IFEQ && op <= IFLE || op == IFNULL || op == IFNONNULL || op == CHECKCAST || op == INSTANCEOF
                || op == ARRAYLENGTH || op == ATHROW || op == NEWARRAY || op == ANEWARRAY || op == TABLESWITCH
                || op == LOOKUPSWITCH || op >= INEG && op <= DNEG || op >= I2L && op <= I2S || op == PUTSTATIC)
            return 1;
        if (op >= IF_ICMPEQ && op <= IF_ACMPNE || op >= IADD && op <= DREM || op >= ISHL && op <= LXOR
                || op >= LCMP && op <= DCMPG || op >= IALOAD && op <= SALOAD)
            return 2;
        if (op >= IASTORE && op <= SASTORE) return 3;
        if (op == GETSTATIC || op == NEW || op >= ACONST_NULL && op <= LDC || op == GOTO || op == IINC || op == NOP) return 0;
        return Math.min(3, size);
    }

    /** Whether a value is the constructor's {@code this} (local 0 as loaded before super()). */
    private static boolean isThis(SourceValue v) {
        for (AbstractInsnNode p : v.insns)
            if (p.getOpcode() == ALOAD && ((VarInsnNode) p).var == 0) return true;
        return false;
    }

    /** The statement id of instruction i (registered on first use). */
    int stmt(int i) {
        if (stmtIds[i] < 0) {
            int b = bci[i];
            stmtIds[i] = Reg.stmt(cn.name + "|" + mn.name + mn.desc + "|" + b, cls, mn.name, file, lines[i], b, access());
        }
        return stmtIds[i];
    }

    /** The statement id of the method's entry (where its parameters are defined). */
    int entryStmt() {
        return Reg.stmt(cn.name + "|" + mn.name + mn.desc + "|entry", cls, mn.name, file, Math.max(firstLine, 0), -1, access());
    }

    /** The statement records' {@code access} field of this method (computed once). */
    private String access() {
        if (accessJson == null) accessJson = Instrumenter.accessJson(cn, mn);
        return accessJson;
    }

    /** A field instruction's variable name: the declaring class (JVM field resolution), a dot, the name. */
    String fieldName(FieldInsnNode f) {
        String owner = hierarchy == null ? f.owner : hierarchy.declaringClass(f.owner, f.name, f.desc);
        return owner.replace('/', '.') + "." + f.name;
    }

    static boolean isCmp(AbstractInsnNode p) {
        int op = p.getOpcode();
        return op >= LCMP && op <= DCMPG;
    }

    // ---------------------------------------------------------------- sources

    Src resolve(SourceValue v) {
        if (v == null || v.insns.isEmpty()) return none();
        if (v.insns.size() == 1) return resolveInsn(v.insns.iterator().next(), v instanceof CastValue);
        // several producers: a merge temporary, if every producer runs instrumented
        int min = Integer.MAX_VALUE;
        for (AbstractInsnNode p : v.insns) {
            if (!instrumentable(p)) return none();
            min = Math.min(min, bci[index.get(p)]);
        }
        Src s = new Src();
        s.kind = S_MERGE;
        s.name = "$" + min;
        s.cast = v instanceof CastValue;
        s.producers = v.insns;
        return s;
    }

    private static Src none() {
        Src s = new Src();
        s.kind = S_NONE;
        return s;
    }

    /** The variable (or kind of value) one producing instruction pushes. */
    Src resolveInsn(AbstractInsnNode p, boolean cast) {
        Src s = new Src();
        s.kind = S_NONE;
        s.p = p;
        s.cast = cast;
        int op = p.getOpcode();
        if (op >= ILOAD && op <= ALOAD) {
            int var = ((VarInsnNode) p).var;
            if (!isStatic && var == 0 && op == ALOAD) s.kind = S_THIS;
            else {
                s.kind = S_LOCAL;
                s.name = localName(var, index.get(p), false);
            }
        } else if (op == GETFIELD) {
            s.kind = S_FIELD;
            s.name = fieldName((FieldInsnNode) p);
        } else if (op == GETSTATIC) {
            s.kind = S_STATIC;
            s.name = fieldName((FieldInsnNode) p);
        } else if (op >= IALOAD && op <= SALOAD) {
            s.kind = S_ELEM;
            s.array = arrayName(p);
        } else if (op >= INVOKEVIRTUAL && op <= INVOKEDYNAMIC) {
            String desc = op == INVOKEDYNAMIC ? ((InvokeDynamicInsnNode) p).desc : ((MethodInsnNode) p).desc;
            boolean init = op != INVOKEDYNAMIC && ((MethodInsnNode) p).name.equals("<init>");
            s.kind = (init || Type.getReturnType(desc).getSort() == Type.VOID) ? S_NONE : S_RET;
        } else if (op >= ACONST_NULL && op <= LDC) {
            s.kind = S_CONST;
        } else if (op == NEW || op == NEWARRAY || op == ANEWARRAY || op == MULTIANEWARRAY) {
            s.kind = S_NEW;
        } else if ((op >= IADD && op <= LXOR) || (op >= I2L && op <= DCMPG) || op == ARRAYLENGTH || op == INSTANCEOF) {
            s.kind = S_ARITH;
        }
        return s;
    }

    /** The field or static an array access's array came straight from (its elements' name), or null. */
    String arrayName(AbstractInsnNode access) {
        Integer i = index.get(access);
        if (i == null || frames[i] == null) return null;
        Frame<SourceValue> f = frames[i];
        int op = access.getOpcode();
        int depth = op >= IASTORE && op <= SASTORE ? 3 : 2;
        SourceValue a = f.getStack(f.getStackSize() - depth);
        if (a.insns.size() != 1) return null;
        AbstractInsnNode p = a.insns.iterator().next();
        if (p.getOpcode() == GETFIELD || p.getOpcode() == GETSTATIC) return fieldName((FieldInsnNode) p);
        return null;
    }

    private boolean instrumentable(AbstractInsnNode p) {
        Integer i = index.get(p);
        return i != null && frames[i] != null && (!preSuper(i) || safePreSuper(i));
    }

    String localName(int var, int at, boolean store) {
        String best = null;
        int bestStart = Integer.MAX_VALUE;
        if (mn.localVariables != null) {
            for (LocalVariableNode lv : mn.localVariables) {
                if (lv.index != var) continue;
                int s = index.getOrDefault(lv.start, 0), e = index.getOrDefault(lv.end, insns.length);
                int pos = store ? at + 1 : at;
                if (s <= pos && pos < e) return lv.name;
                if (store && s > at && s < bestStart) {
                    bestStart = s;
                    best = lv.name;
                }
            }
        }
        if (best != null) return best;
        return unnamedLocal(var);
    }

    /**
     * The name of local {@code var} where no local variable table names it (a class compiled
     * without {@code -g}): a parameter's from the MethodParameters attribute, else {@code local}
     * and its slot. The method's entry ({@link #paramNames}) and its body name a parameter the
     * same way: the entry's {@code argN} against the body's {@code localN} left every use of a
     * parameter without a definition, so no origin was traced through one (the library
     * example compiled without {@code -g}: 12 of its 21 origins; docs/java.md, "Local names").
     */
    private String unnamedLocal(int var) {
        if (mn.parameters != null) {
            Type[] types = Type.getArgumentTypes(mn.desc);
            int slot = isStatic ? 0 : 1;
            for (int j = 0; j < types.length && j < mn.parameters.size() && slot <= var; j++) {
                if (slot == var) {
                    String name = mn.parameters.get(j).name;
                    if (name != null) return name;
                    break;
                }
                slot += types[j].getSize();
            }
        }
        return "local" + var;
    }

    /** The values instruction i consumes that events are written about, with their roles. */
    List<Operand> operands(int i) {
        List<Operand> out = new ArrayList<>(3);
        AbstractInsnNode n = insns[i];
        Frame<SourceValue> f = frames[i];
        int op = n.getOpcode();
        if (f == null || op < 0) return out;
        int sz = f.getStackSize();
        switch (op) {
            case ISTORE: case LSTORE: case FSTORE: case DSTORE: case ASTORE:
            case PUTSTATIC: case IRETURN: case LRETURN: case FRETURN: case DRETURN: case ARETURN:
                add(out, f, sz - 1, 'S');
                break;
            case PUTFIELD:
                add(out, f, sz - 2, 'D');
                add(out, f, sz - 1, 'S');
                break;
            case IASTORE: case LASTORE: case FASTORE: case DASTORE: case AASTORE: case BASTORE: case CASTORE: case SASTORE:
                add(out, f, sz - 3, 'D');
                add(out, f, sz - 2, 'X');
                add(out, f, sz - 1, 'S');
                break;
            case IALOAD: case LALOAD: case FALOAD: case DALOAD: case AALOAD: case BALOAD: case CALOAD: case SALOAD:
                add(out, f, sz - 2, 'D');
                add(out, f, sz - 1, 'X');
                break;
            case GETFIELD: case ARRAYLENGTH: case ATHROW: case MONITORENTER:
                add(out, f, sz - 1, 'D');
                break;
            case IDIV: case LDIV: case IREM: case LREM: case NEWARRAY: case ANEWARRAY:
                // the divisor, the size: the operand an exception of the instruction is about
                // (docs/algorithm.md, "More exception kinds"); an expression or a call result
                // is made a variable, a constant is not (`i % 7`, `new int[4]` cannot fail so,
                // and a temporary would cost two events each time)
                add(out, f, sz - 1, 'V');
                break;
            case CHECKCAST:
                // the cast operand, recorded only when it already is a variable: a temporary
                // for every cast call result (`(T) it.next()`) would cost an event per call
                add(out, f, sz - 1, 'C');
                break;
            case MULTIANEWARRAY:
                for (int d = ((MultiANewArrayInsnNode) n).dims; d >= 1; d--) add(out, f, sz - d, 'V');
                break;
            case IFEQ: case IFNE: case IFLT: case IFGE: case IFGT: case IFLE: case IFNULL: case IFNONNULL:
            case TABLESWITCH: case LOOKUPSWITCH: {
                Src s = resolve(f.getStack(sz - 1));
                if (s.kind == S_ARITH && isCmp(s.p) && instrumentable(s.p)) {
                    // lcmp/fcmpx/dcmpx then ifxx: a branch on the comparison's two operands
                    Frame<SourceValue> cf = frames[index.get(s.p)];
                    int cs = cf.getStackSize();
                    add(out, cf, cs - 2, 'B');
                    add(out, cf, cs - 1, 'B');
                } else out.add(new Operand(s, 'B'));
                break;
            }
            case IF_ICMPEQ: case IF_ICMPNE: case IF_ICMPLT: case IF_ICMPGE: case IF_ICMPGT: case IF_ICMPLE:
            case IF_ACMPEQ: case IF_ACMPNE:
                add(out, f, sz - 2, 'B');
                add(out, f, sz - 1, 'B');
                break;
            case INVOKEVIRTUAL: case INVOKESPECIAL: case INVOKESTATIC: case INVOKEINTERFACE: case INVOKEDYNAMIC: {
                String desc = op == INVOKEDYNAMIC ? ((InvokeDynamicInsnNode) n).desc : ((MethodInsnNode) n).desc;
                int na = Type.getArgumentTypes(desc).length;
                boolean recv = op != INVOKESTATIC && op != INVOKEDYNAMIC;
                boolean init = op == INVOKESPECIAL && ((MethodInsnNode) n).name.equals("<init>");
                if (recv && !init) add(out, f, sz - na - 1, 'D');
                for (int j = 0; j < na; j++) add(out, f, sz - na + j, 'A');
                break;
            }
            default:
                break;
        }
        return out;
    }

    private void add(List<Operand> out, Frame<SourceValue> f, int slot, char role) {
        out.add(new Operand(resolve(f.getStack(slot)), role));
    }

    // ---------------------------------------------------------------- plan

    private void plan() {
        for (int i = 0; i < insns.length; i++) {
            if (!traced(i)) continue;
            for (Operand o : operands(i)) consume(o.src, o.role);
        }
    }

    private void consume(Src s, char role) {
        if (role == 'C') return;
        if (s.kind == S_MERGE) {
            for (AbstractInsnNode p : s.producers) {
                mergeNames.computeIfAbsent(p, k -> new LinkedHashSet<>()).add(s.name);
                consume(resolveInsn(p, false), 'S');
            }
            return;
        }
        if (s.p == null || !instrumentable(s.p)) return;
        switch (s.kind) {
            case S_FIELD:
            case S_RET:
                if (!capA.containsKey(s.p)) capA.put(s.p, newLocal(1));
                if (s.kind == S_RET && role != 'S') needTemp.add(s.p);
                break;
            case S_ELEM:
                if (!capA.containsKey(s.p)) {
                    capA.put(s.p, newLocal(1));
                    capB.put(s.p, newLocal(1));
                }
                break;
            case S_CONST:
                if (role == 'X' || ((role == 'A' || role == 'D') && s.p.getOpcode() == ACONST_NULL)) tempDef.add(s.p);
                break;
            case S_ARITH:
                if (role == 'X' || role == 'B' || role == 'V') tempDef.add(s.p);
                break;
            default:
                break;
        }
    }

    /** Whether the value is a variable events can name (a local, field, static, element, return, temporary). */
    boolean isVar(Src s, boolean forDef) {
        switch (s.kind) {
            case S_LOCAL: case S_STATIC: case S_MERGE: return true;
            case S_FIELD: case S_ELEM: case S_RET: return capA.containsKey(s.p);
            case S_CONST: case S_ARITH: return !forDef && tempDef.contains(s.p);
            default: return false;
        }
    }

    /** Whether a call result used at a crash statement is named by the temporary {@code $BCI}. */
    boolean hasTemp(AbstractInsnNode p) {
        return needTemp.contains(p) || tempDef.contains(p);
    }

    private int newLocal(int size) {
        int s = nextLocal;
        nextLocal += size;
        return s;
    }

    private int pooled(String key, int size) {
        Integer s = pool.get(key);
        if (s == null) {
            s = newLocal(size);
            pool.put(key, s);
        }
        return s;
    }

    // ---------------------------------------------------------------- code emission helpers

    private static void push(InsnList l, int v) {
        if (v >= -1 && v <= 5) l.add(new InsnNode(ICONST_0 + v));
        else if (v >= Byte.MIN_VALUE && v <= Byte.MAX_VALUE) l.add(new IntInsnNode(BIPUSH, v));
        else if (v >= Short.MIN_VALUE && v <= Short.MAX_VALUE) l.add(new IntInsnNode(SIPUSH, v));
        else l.add(new LdcInsnNode(v));
    }

    private void frame(InsnList l) {
        l.add(new VarInsnNode(ILOAD, frameSlot));
    }

    private static void call(InsnList l, String name, String desc) {
        l.add(new MethodInsnNode(INVOKESTATIC, RT, name, desc, false));
    }

    String tempName(AbstractInsnNode p) {
        return "$" + bci[index.get(p)];
    }

    private static int howOf(int kind) {
        switch (kind) {
            case S_CONST: return R.H_CONST;
            case S_NEW: return R.H_NEW;
            case S_ARITH: return R.H_ARITH;
            case S_RET: return R.H_CALL;
            default: return R.H_OTHER;
        }
    }

    static String calleeName(AbstractInsnNode p) {
        if (p.getOpcode() == INVOKEDYNAMIC) return "invokedynamic." + ((InvokeDynamicInsnNode) p).name;
        MethodInsnNode m = (MethodInsnNode) p;
        return m.owner.replace('/', '.') + "." + m.name;
    }

    /**
     * Pushes kind, name, x, y of the variable a consumed value is (K_NONE if it is none), and
     * returns the how code for a non-variable. {@code forDef}: a K_RET variable names the callee
     * (for how=call) instead of the temporary.
     */
    private int pushVar(InsnList l, Src s, boolean forDef) {
        switch (s.kind) {
            case S_LOCAL:
            case S_MERGE:
                push(l, R.K_LOCAL);
                push(l, Reg.name(s.name));
                push(l, 0);
                push(l, 0);
                return R.H_OTHER;
            case S_STATIC:
                push(l, R.K_STATIC);
                push(l, Reg.name(s.name));
                push(l, 0);
                push(l, 0);
                return R.H_OTHER;
            case S_FIELD:
                if (capA.containsKey(s.p)) {
                    push(l, R.K_FIELD);
                    push(l, Reg.name(s.name));
                    l.add(new VarInsnNode(ILOAD, capA.get(s.p)));
                    push(l, 0);
                    return R.H_OTHER;
                }
                break;
            case S_ELEM:
                if (capA.containsKey(s.p)) {
                    push(l, R.K_ELEM);
                    push(l, s.array == null ? -1 : Reg.name(s.array));
                    l.add(new VarInsnNode(ILOAD, capA.get(s.p)));
                    l.add(new VarInsnNode(ILOAD, capB.get(s.p)));
                    return R.H_OTHER;
                }
                break;
            case S_RET:
                if (capA.containsKey(s.p)) {
                    push(l, R.K_RET);
                    push(l, Reg.name(forDef ? calleeName(s.p) : tempName(s.p)));
                    l.add(new VarInsnNode(ILOAD, capA.get(s.p)));
                    push(l, 0);
                    return R.H_CALL;
                }
                break;
            case S_CONST:
            case S_ARITH:
                if (!forDef && tempDef.contains(s.p)) {
                    push(l, R.K_TEMP);
                    push(l, Reg.name(tempName(s.p)));
                    push(l, 0);
                    push(l, 0);
                    return R.H_OTHER;
                }
                break;
            default:
                break;
        }
        push(l, R.K_NONE);
        push(l, -1);
        push(l, 0);
        push(l, 0);
        return howOf(s.kind);
    }

    /** def(frame, stmt, var..., source..., how, cast) with the variable pushed by {@code pushTarget}. */
    private void def(InsnList l, int i, Runnable pushTarget, Src s) {
        frame(l);
        push(l, stmt(i));
        pushTarget.run();
        int how = pushVar(l, s, true);
        push(l, how);
        push(l, s.cast && isVar(s, true) ? 1 : 0);
        call(l, "def", "(IIIIIIIIIIIZ)V");
    }

    /** A use of the value on top of the stack (left in place). */
    private void useTop(InsnList l, int i, int role, Src s, boolean ref) {
        if (!isVar(s, false)) return;
        if (ref) {
            l.add(new InsnNode(DUP));
            frame(l);
            push(l, stmt(i));
            push(l, role);
            int how = pushVar(l, s, false);
            push(l, how);
            call(l, "useRef", "(Ljava/lang/Object;IIIIIIII)V");
        } else {
            frame(l);
            push(l, stmt(i));
            push(l, role);
            int how = pushVar(l, s, false);
            push(l, how);
            call(l, "use", "(IIIIIIII)V");
        }
    }

    /** After a producer of a multi-producer value: the definitions of its merge temporaries. */
    private void mergeDefs(int i, InsnList after) {
        Set<String> names = mergeNames.get(insns[i]);
        if (names == null) return;
        Src s = resolveInsn(insns[i], false);
        for (String name : names)
            def(after, i, () -> {
                push(after, R.K_LOCAL);
                push(after, Reg.name(name));
                push(after, 0);
                push(after, 0);
            }, s);
    }

    // ---------------------------------------------------------------- emission

    private void emit() {
        InsnList il = mn.instructions;
        LabelNode start = new LabelNode(), end = new LabelNode(), handler = new LabelNode();

        // entry: frame id, capture slots zeroed (so every merge sees an int)
        InsnList entry = new InsnList();
        int flags = (isCtor ? R.M_CTOR : 0) | (mn.name.equals("<clinit>") ? R.M_CLINIT : 0)
                | ((mn.access & ACC_SYNTHETIC) != 0 && mn.name.startsWith("lambda$") ? R.M_LAMBDA : 0);
        int mid = Reg.method(cls + "." + mn.name, mn.name + mn.desc, paramNames(), flags, entryStmt());
        // A call from the test body (no instrumented frame active) also passes the argument
        // values, which the runtime writes with the receiver's fields as the enter's "values".
        LabelNode plain = new LabelNode(), entered = new LabelNode();
        call(entry, "topLevel", "()Z");
        entry.add(new JumpInsnNode(IFEQ, plain));
        push(entry, mid);
        receiver(entry);
        boxedArgs(entry);
        call(entry, "enterTop", "(ILjava/lang/Object;[Ljava/lang/Object;)I");
        entry.add(new JumpInsnNode(GOTO, entered));
        entry.add(plain);
        push(entry, mid);
        receiver(entry);
        call(entry, "enter", "(ILjava/lang/Object;)I");
        entry.add(entered);
        entry.add(new VarInsnNode(ISTORE, frameSlot));
        Set<Integer> caps = new HashSet<>(capA.values());
        caps.addAll(capB.values());
        for (int c : caps) {
            entry.add(new InsnNode(ICONST_0));
            entry.add(new VarInsnNode(ISTORE, c));
        }
        if (!isCtor) entry.add(start);
        il.insert(entry);

        for (int i = 0; i < insns.length; i++) {
            AbstractInsnNode n = insns[i];
            Frame<SourceValue> f = frames[i];
            int op = n.getOpcode();
            if (!traced(i)) continue;
            InsnList before = new InsnList(), after = new InsnList();
            instrument(i, n, f, op, before, after);
            if (i == superInit) {
                after.add(new VarInsnNode(ALOAD, 0));
                frame(after);
                call(after, "ctorReady", "(Ljava/lang/Object;I)V");
                after.add(start);
            }
            if (tempDef.contains(n)) {
                frame(after);
                push(after, stmt(i));
                push(after, Reg.name(tempName(n)));
                push(after, howOf(resolveKindOf(n)));
                call(after, "defTemp", "(IIII)V");
            }
            mergeDefs(i, after);
            if (before.size() > 0) il.insertBefore(n, before);
            if (after.size() > 0) il.insert(n, after);
        }

        if (!isCtor || superInit >= 0) {
            il.add(end);
            il.add(handler);
            il.add(new InsnNode(DUP));
            il.add(new VarInsnNode(ILOAD, frameSlot));
            call(il, "exitThrow", "(Ljava/lang/Throwable;I)V");
            il.add(new InsnNode(ATHROW));
            mn.tryCatchBlocks.add(new TryCatchBlockNode(start, end, handler, null));
        }
        if (keepFrames) frames(caps, plain, entered, handler);
    }

    /**
     * The frames of the instrumented method ({@link Frames}): the original ones with the frame id
     * and the capture slots, ints from the entry on; at the entry's two labels the method's
     * initial locals (with the id on the stack after the call); at the handler, only the id.
     */
    private void frames(Set<Integer> caps, LabelNode plain, LabelNode entered, LabelNode handler) {
        Set<Integer> ints = new HashSet<>(caps);
        ints.add(frameSlot);
        Frames.extend(mn.instructions, frameSlot, nextLocal, ints); // before the frames below are in
        List<Object> init = Frames.initial(cn.name, mn);
        mn.instructions.insert(plain, Frames.frame(init));
        mn.instructions.insert(entered, Frames.frame(init, INTEGER));
        if (handler.getNext() != null) { // the handler is there (not in a constructor that never calls super)
            List<Object> only = new ArrayList<>();
            for (int i = 0; i < frameSlot; i++) only.add(TOP);
            only.add(INTEGER);
            mn.instructions.insert(handler, Frames.frame(only, "java/lang/Throwable"));
        }
    }

    private void instrument(int i, AbstractInsnNode n, Frame<SourceValue> f, int op, InsnList before, InsnList after) {
        int sz = f.getStackSize();
        switch (op) {
            case ISTORE: case LSTORE: case FSTORE: case DSTORE: case ASTORE: {
                final String name = localName(((VarInsnNode) n).var, i, true);
                def(after, i, () -> {
                    push(after, R.K_LOCAL);
                    push(after, Reg.name(name));
                    push(after, 0);
                    push(after, 0);
                }, resolve(f.getStack(sz - 1)));
                break;
            }
            case IINC: {
                String name = localName(((IincInsnNode) n).var, i, true);
                frame(after);
                push(after, stmt(i));
                push(after, R.K_LOCAL);
                push(after, Reg.name(name));
                push(after, 0);
                push(after, 0);
                push(after, R.K_NONE);
                push(after, -1);
                push(after, 0);
                push(after, 0);
                push(after, R.H_ARITH);
                push(after, 0);
                call(after, "def", "(IIIIIIIIIIIZ)V");
                break;
            }
            case PUTSTATIC: {
                String name = fieldName((FieldInsnNode) n);
                def(after, i, () -> {
                    push(after, R.K_STATIC);
                    push(after, Reg.name(name));
                    push(after, 0);
                    push(after, 0);
                }, resolve(f.getStack(sz - 1)));
                break;
            }
            case GETSTATIC: {
                FieldInsnNode fi = (FieldInsnNode) n;
                int sort = Type.getType(fi.desc).getSort();
                if (sort == Type.OBJECT || sort == Type.ARRAY) {
                    after.add(new InsnNode(DUP));
                    frame(after);
                    push(after, Reg.name(fieldName(fi)));
                    call(after, "sroot", "(Ljava/lang/Object;II)V");
                } else {
                    frame(after);
                    push(after, Reg.name(fieldName(fi)));
                    call(after, "sread", "(II)V");
                }
                break;
            }
            case PUTFIELD: {
                FieldInsnNode fi = (FieldInsnNode) n;
                String name = fieldName(fi);
                Type vt = Type.getType(fi.desc);
                int sv = pooled("v" + sortKey(vt), vt.getSize());
                int so = pooled("obj", 1);
                before.add(new VarInsnNode(vt.getOpcode(ISTORE), sv));
                useTop(before, i, R.ROLE_DEREF, resolve(f.getStack(sz - 2)), true);
                before.add(new InsnNode(DUP));
                call(before, "idw", "(Ljava/lang/Object;)I");
                before.add(new VarInsnNode(ISTORE, so));
                before.add(new VarInsnNode(vt.getOpcode(ILOAD), sv));
                def(after, i, () -> {
                    push(after, R.K_FIELD);
                    push(after, Reg.name(name));
                    after.add(new VarInsnNode(ILOAD, so));
                    push(after, 0);
                }, resolve(f.getStack(sz - 1)));
                break;
            }
            case IASTORE: case LASTORE: case FASTORE: case DASTORE: case AASTORE: case BASTORE: case CASTORE: case SASTORE: {
                Type vt = arrayElem(op);
                int sv = pooled("v" + sortKey(vt), vt.getSize());
                int sidx = pooled("idx", 1), sarr = pooled("arr", 1);
                String array = arrayName(n);
                before.add(new VarInsnNode(vt.getOpcode(ISTORE), sv));
                before.add(new VarInsnNode(ISTORE, sidx));
                useTop(before, i, R.ROLE_DEREF, resolve(f.getStack(sz - 3)), true);
                Src stored = resolve(f.getStack(sz - 1));
                if (op == AASTORE && isVar(stored, false)) {
                    // the stored value, when the store is about to fail: the crash variable of
                    // an ArrayStoreException (docs/algorithm.md, "More exception kinds")
                    before.add(new InsnNode(DUP));
                    before.add(new VarInsnNode(ALOAD, sv));
                    frame(before);
                    push(before, stmt(i));
                    int how = pushVar(before, stored, false);
                    push(before, how);
                    call(before, "useStore", "(Ljava/lang/Object;Ljava/lang/Object;IIIIIII)V");
                }
                before.add(new InsnNode(DUP));
                call(before, "idw", "(Ljava/lang/Object;)I");
                before.add(new VarInsnNode(ISTORE, sarr));
                useTop(before, i, R.ROLE_INDEX, resolve(f.getStack(sz - 2)), false);
                before.add(new VarInsnNode(ILOAD, sidx));
                before.add(new VarInsnNode(vt.getOpcode(ILOAD), sv));
                def(after, i, () -> {
                    push(after, R.K_ELEM);
                    push(after, array == null ? -1 : Reg.name(array));
                    after.add(new VarInsnNode(ILOAD, sarr));
                    after.add(new VarInsnNode(ILOAD, sidx));
                }, resolve(f.getStack(sz - 1)));
                break;
            }
            case IALOAD: case LALOAD: case FALOAD: case DALOAD: case AALOAD: case BALOAD: case CALOAD: case SALOAD: {
                int sidx = pooled("idx", 1), rcv = pooled("rcv", 1);
                before.add(new VarInsnNode(ISTORE, sidx));
                before.add(new InsnNode(DUP));
                before.add(new VarInsnNode(ASTORE, rcv));
                after.add(new InsnNode(op == AALOAD ? DUP : ACONST_NULL));
                after.add(new VarInsnNode(ALOAD, rcv));
                call(after, "reachLoad", "(Ljava/lang/Object;Ljava/lang/Object;)V");
                useTop(before, i, R.ROLE_DEREF, resolve(f.getStack(sz - 2)), true);
                useTop(before, i, R.ROLE_INDEX, resolve(f.getStack(sz - 1)), false);
                if (capA.containsKey(n)) {
                    before.add(new InsnNode(DUP));
                    call(before, "id", "(Ljava/lang/Object;)I");
                    before.add(new VarInsnNode(ISTORE, capA.get(n)));
                    before.add(new VarInsnNode(ILOAD, sidx));
                    before.add(new VarInsnNode(ISTORE, capB.get(n)));
                }
                before.add(new VarInsnNode(ILOAD, sidx));
                break;
            }
            case GETFIELD: {
                int rcv = pooled("rcv", 1);
                int sort = Type.getType(((FieldInsnNode) n).desc).getSort();
                before.add(new InsnNode(DUP));
                before.add(new VarInsnNode(ASTORE, rcv));
                after.add(new InsnNode(sort == Type.OBJECT || sort == Type.ARRAY ? DUP : ACONST_NULL));
                after.add(new VarInsnNode(ALOAD, rcv));
                call(after, "reachLoad", "(Ljava/lang/Object;Ljava/lang/Object;)V");
                useTop(before, i, R.ROLE_DEREF, resolve(f.getStack(sz - 1)), true);
                if (capA.containsKey(n)) {
                    before.add(new InsnNode(DUP));
                    call(before, "id", "(Ljava/lang/Object;)I");
                    before.add(new VarInsnNode(ISTORE, capA.get(n)));
                }
                break;
            }
            case ARRAYLENGTH: case ATHROW: case MONITORENTER:
                useTop(before, i, R.ROLE_DEREF, resolve(f.getStack(sz - 1)), true);
                break;
            case IFEQ: case IFNE: case IFLT: case IFGE: case IFGT: case IFLE: case IFNULL: case IFNONNULL:
            case TABLESWITCH: case LOOKUPSWITCH:
            case IF_ICMPEQ: case IF_ICMPNE: case IF_ICMPLT: case IF_ICMPGE: case IF_ICMPGT: case IF_ICMPLE:
            case IF_ACMPEQ: case IF_ACMPNE: {
                List<Operand> ops = operands(i);
                branch(before, i, ops.get(0).src, ops.size() > 1 ? ops.get(1).src : null);
                break;
            }
            case IRETURN: case LRETURN: case FRETURN: case DRETURN: case ARETURN:
                def(before, i, () -> {
                    push(before, R.K_RET);
                    push(before, 0);
                    frame(before);
                    push(before, 0);
                }, resolve(f.getStack(sz - 1)));
                frame(before);
                call(before, "exit", "(I)V");
                break;
            case RETURN:
                frame(before);
                call(before, "exit", "(I)V");
                break;
            case IDIV: case LDIV: case IREM: case LREM:
                // the divisor: the crash variable of an ArithmeticException (docs/algorithm.md)
                useTop(before, i, R.ROLE_VALUE, resolve(f.getStack(sz - 1)), false);
                break;
            case CHECKCAST:
                // the cast operand: the crash variable of a ClassCastException
                useTop(before, i, R.ROLE_VALUE, resolve(f.getStack(sz - 1)), true);
                break;
            case NEWARRAY: case ANEWARRAY: case MULTIANEWARRAY: {
                // the size (each dimension): the crash variable of a NegativeArraySizeException
                int dims = op == MULTIANEWARRAY ? ((MultiANewArrayInsnNode) n).dims : 1;
                for (int d = dims; d >= 1; d--) useTop(before, i, R.ROLE_VALUE, resolve(f.getStack(sz - d)), false);
                after.add(new InsnNode(DUP));
                frame(after);
                push(after, stmt(i));
                call(after, "allocArray", "(Ljava/lang/Object;II)V");
                break;
            }
            case INVOKEVIRTUAL: case INVOKESPECIAL: case INVOKESTATIC: case INVOKEINTERFACE: case INVOKEDYNAMIC:
                invoke(i, n, f, op, before, after);
                break;
            default:
                break;
        }
    }

    private void branch(InsnList l, int i, Src a, Src b) {
        frame(l);
        push(l, stmt(i));
        if (isVar(a, false)) pushVar(l, a, false);
        else pushNone(l);
        if (b != null && isVar(b, false)) pushVar(l, b, false);
        else pushNone(l);
        call(l, "branch", "(IIIIIIIIII)V");
    }

    private static void pushNone(InsnList l) {
        push(l, R.K_NONE);
        push(l, -1);
        push(l, 0);
        push(l, 0);
    }

    private void invoke(int i, AbstractInsnNode n, Frame<SourceValue> f, int op, InsnList before, InsnList after) {
        String desc, name;
        if (op == INVOKEDYNAMIC) {
            desc = ((InvokeDynamicInsnNode) n).desc;
            name = ((InvokeDynamicInsnNode) n).name;
        } else {
            desc = ((MethodInsnNode) n).desc;
            name = ((MethodInsnNode) n).name;
        }
        Type[] args = Type.getArgumentTypes(desc);
        int na = args.length, sz = f.getStackSize();
        boolean recv = op != INVOKESTATIC && op != INVOKEDYNAMIC;
        boolean init = name.equals("<init>");
        boolean sup = i == superInit;
        // spill the arguments, last first
        int[] slots = new int[na];
        Map<Character, Integer> ord = new HashMap<>();
        for (int j = 0; j < na; j++) {
            char k = sortKey(args[j]);
            int o = ord.merge(k, 1, Integer::sum) - 1;
            slots[j] = pooled("a" + k + o, args[j].getSize());
        }
        for (int j = na - 1; j >= 0; j--) before.add(new VarInsnNode(args[j].getOpcode(ISTORE), slots[j]));
        if (recv && !init) before.add(new InsnNode(DUP)); // the receiver: the callee's `this` must be it
        else before.add(new InsnNode(ACONST_NULL));
        frame(before);
        push(before, stmt(i));
        push(before, op == INVOKEDYNAMIC ? -1 : Reg.name(name + desc));
        push(before, sup ? 1 : 0);
        call(before, "preCall", "(Ljava/lang/Object;IIIZ)V");
        if (recv && !init) useTop(before, i, R.ROLE_DEREF, resolve(f.getStack(sz - na - 1)), true);
        for (int j = 0; j < na; j++) {
            Src s = resolve(f.getStack(sz - na + j));
            boolean ref = args[j].getSort() == Type.OBJECT || args[j].getSort() == Type.ARRAY;
            if (isVar(s, false) && ref) before.add(new VarInsnNode(ALOAD, slots[j]));
            if (!isVar(s, false)) ref = false;
            frame(before);
            push(before, stmt(i));
            push(before, R.ROLE_ARG);
            int how = pushVar(before, s, false);
            push(before, how);
            if (ref) call(before, "useRef", "(Ljava/lang/Object;IIIIIIII)V");
            else call(before, "use", "(IIIIIIII)V");
        }
        for (int j = 0; j < na; j++) before.add(new VarInsnNode(args[j].getOpcode(ILOAD), slots[j]));
        Type rt = Type.getReturnType(desc);
        if (init || rt.getSort() == Type.VOID) {
            frame(after);
            call(after, "postCallVoid", "(I)V");
        } else {
            frame(after);
            push(after, stmt(i));
            push(after, needTemp.contains(n) ? Reg.name(tempName(n)) : -1);
            push(after, Reg.name(calleeName(n)));
            call(after, "postCall", "(IIII)I");
            if (capA.containsKey(n)) after.add(new VarInsnNode(ISTORE, capA.get(n)));
            else after.add(new InsnNode(POP));
        }
    }

    /** Pushes the receiver for {@code R.enter}: null for static methods and constructors. */
    private void receiver(InsnList l) {
        if (isStatic || isCtor) l.add(new InsnNode(ACONST_NULL));
        else l.add(new VarInsnNode(ALOAD, 0));
    }

    /** Pushes an {@code Object[]} of the method's arguments, primitives boxed. */
    private void boxedArgs(InsnList l) {
        Type[] args = Type.getArgumentTypes(mn.desc);
        push(l, args.length);
        l.add(new TypeInsnNode(ANEWARRAY, "java/lang/Object"));
        int slot = isStatic ? 0 : 1;
        for (int j = 0; j < args.length; j++) {
            Type t = args[j];
            l.add(new InsnNode(DUP));
            push(l, j);
            l.add(new VarInsnNode(t.getOpcode(ILOAD), slot));
            String box = null;
            switch (t.getSort()) {
                case Type.BOOLEAN: box = "java/lang/Boolean"; break;
                case Type.CHAR: box = "java/lang/Character"; break;
                case Type.BYTE: box = "java/lang/Byte"; break;
                case Type.SHORT: box = "java/lang/Short"; break;
                case Type.INT: box = "java/lang/Integer"; break;
                case Type.FLOAT: box = "java/lang/Float"; break;
                case Type.LONG: box = "java/lang/Long"; break;
                case Type.DOUBLE: box = "java/lang/Double"; break;
                default: break;
            }
            if (box != null)
                l.add(new MethodInsnNode(INVOKESTATIC, box, "valueOf", "(" + t.getDescriptor() + ")L" + box + ";", false));
            l.add(new InsnNode(AASTORE));
            slot += t.getSize();
        }
    }

    private int resolveKindOf(AbstractInsnNode p) {
        int op = p.getOpcode();
        if (op >= ACONST_NULL && op <= LDC) return S_CONST;
        return S_ARITH;
    }

    String[] paramNames() {
        Type[] args = Type.getArgumentTypes(mn.desc);
        String[] out = new String[args.length];
        int slot = isStatic ? 0 : 1;
        for (int j = 0; j < args.length; j++) {
            String name = null;
            int bestStart = Integer.MAX_VALUE;
            if (mn.localVariables != null)
                for (LocalVariableNode lv : mn.localVariables) {
                    int s = index.getOrDefault(lv.start, 0);
                    if (lv.index == slot && s < bestStart) {
                        bestStart = s;
                        name = lv.name;
                    }
                }
            if (name == null) name = unnamedLocal(slot);
            out[j] = name;
            slot += args[j].getSize();
        }
        return out;
    }

    private static Type arrayElem(int op) {
        switch (op) {
            case IASTORE: case BASTORE: case CASTORE: case SASTORE: return Type.INT_TYPE;
            case LASTORE: return Type.LONG_TYPE;
            case FASTORE: return Type.FLOAT_TYPE;
            case DASTORE: return Type.DOUBLE_TYPE;
            default: return Type.getType(Object.class);
        }
    }

    private static char sortKey(Type t) {
        switch (t.getSort()) {
            case Type.LONG: return 'J';
            case Type.FLOAT: return 'F';
            case Type.DOUBLE: return 'D';
            case Type.OBJECT: case Type.ARRAY: return 'A';
            default: return 'I';
        }
    }

}
