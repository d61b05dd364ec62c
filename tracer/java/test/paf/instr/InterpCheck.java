//! A check of the instrumenter's source analysis (tracer/java/e2e.sh runs it): leaving locals without sources changes no source of any stack value, over every method of ASM's and paf's own jars.
package paf.instr;

import java.io.File;
import java.io.InputStream;
import java.util.Enumeration;
import java.util.Set;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;

import org.objectweb.asm.ClassReader;
import org.objectweb.asm.tree.AbstractInsnNode;
import org.objectweb.asm.tree.ClassNode;
import org.objectweb.asm.tree.MethodNode;
import org.objectweb.asm.tree.analysis.Analyzer;
import org.objectweb.asm.tree.analysis.AnalyzerException;
import org.objectweb.asm.tree.analysis.Frame;
import org.objectweb.asm.tree.analysis.SourceValue;

/**
 * {@link MethodInstrumenter.Interp} leaves every local without sources (a load is its value's
 * producer, so nothing reads them), which makes the analysis several times cheaper
 * (docs/performance.md, "Fourteenth round"). This check analyzes every method of the jars that
 * hold ASM's {@code ClassReader}, ASM's tree API and paf's runtime and instrumenter twice, with
 * and without the locals' sources, and requires the same frames where it matters: the same
 * reachable instructions, and at each, the same stack, value by value (size, kind, and the very
 * instructions that produced it). Exits 1 with the first difference.
 *
 * <p>usage: {@code java -cp paf-rt.jar:paf-instr.jar:ASM:DIR paf.instr.InterpCheck WORKDIR}
 */
public final class InterpCheck {
    private InterpCheck() {}

    public static void main(String[] args) throws Exception {
        int methods = 0, frames = 0, values = 0;
        for (Class<?> c : new Class<?>[] {ClassReader.class, ClassNode.class, Analyzer.class, paf.rt.R.class, Split.class}) {
            File jar = new File(c.getProtectionDomain().getCodeSource().getLocation().toURI());
            try (JarFile j = new JarFile(jar)) {
                for (Enumeration<JarEntry> e = j.entries(); e.hasMoreElements();) {
                    JarEntry entry = e.nextElement();
                    if (!entry.getName().endsWith(".class") || entry.getName().endsWith("module-info.class")) continue;
                    ClassNode cn = new ClassNode();
                    try (InputStream in = j.getInputStream(entry)) {
                        new ClassReader(in).accept(cn, ClassReader.SKIP_FRAMES);
                    }
                    for (MethodNode mn : cn.methods) {
                        if (mn.instructions.size() == 0) continue;
                        Frame<SourceValue>[] full, cheap;
                        try {
                            full = new Analyzer<>(new MethodInstrumenter.Interp(true)).analyze(cn.name, mn);
                            cheap = new Analyzer<>(new MethodInstrumenter.Interp()).analyze(cn.name, mn);
                        } catch (AnalyzerException x) {
                            continue; // JSR/RET and the like: the instrumenter leaves such a method whole
                        }
                        methods++;
                        String where = jar.getName() + " " + cn.name + "." + mn.name + mn.desc;
                        for (int i = 0; i < full.length; i++) {
                            if ((full[i] == null) != (cheap[i] == null)) fail(where + ": instruction " + i + " reachable in one analysis only");
                            if (full[i] == null) continue;
                            frames++;
                            if (full[i].getStackSize() != cheap[i].getStackSize()) fail(where + ": stack sizes differ at " + i);
                            for (int s = 0; s < full[i].getStackSize(); s++) {
                                SourceValue a = full[i].getStack(s), b = cheap[i].getStack(s);
                                values++;
                                if (a.size != b.size || a.getClass() != b.getClass() || !same(a.insns, b.insns))
                                    fail(where + ": the sources of stack slot " + s + " differ at instruction " + i);
                            }
                        }
                    }
                }
            }
        }
        if (methods < 1000) fail("only " + methods + " methods analyzed");
        System.out.println("ok: InterpCheck (" + methods + " methods, " + frames + " frames, " + values + " stack values)");
    }

    /** The same instructions (by identity: both analyses ran on the same nodes). */
    private static boolean same(Set<AbstractInsnNode> a, Set<AbstractInsnNode> b) {
        if (a.size() != b.size()) return false;
        for (AbstractInsnNode n : a) {
            boolean found = false;
            for (AbstractInsnNode m : b) if (m == n) found = true;
            if (!found) return false;
        }
        return true;
    }

    private static void fail(String why) {
        System.err.println("FAIL: InterpCheck: " + why);
        System.exit(1);
    }
}
