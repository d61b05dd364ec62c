//! What SplitCheck and FramesCheck share: a split method's loop leaves for the clone of its original code once the test stops recording, and each method's result on given arguments.
package paf.instr;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.function.IntConsumer;

import paf.rt.R;

/** Helpers of the instrumenter's checks (not a check: e2e.sh runs the classes named *Check). */
final class LoopExits {
    private LoopExits() {}

    /**
     * Calls the static {@code cls.method(100, hook)} in a recorded test that stops recording at the
     * hook's 51st call, and returns its result, or null after telling {@code fail} that a turn after
     * the stop ran at an offset no higher than a turn before it: the turns after the stop must run
     * in the clone of the original code, appended after the instrumented code ({@link Split#addExits}).
     */
    static Object leave(Class<?> cls, String method, java.util.function.Consumer<String> fail) throws Exception {
        String id = cls.getName() + "." + method, test = cls.getName() + "Test";
        R.beginTest(id, test, method);
        List<Integer> at = new ArrayList<>();
        int[] turn = {0};
        IntConsumer hook = i -> {
            if (turn[0]++ == 50) R.endTest(id, null, "test", new Throwable[0], new String[0], test, method, null);
            at.add(StackWalker.getInstance().walk(s -> s.filter(f -> f.getMethodName().equals(method)).findFirst()
                    .get().getByteCodeIndex()));
        };
        Object result = cls.getMethod(method, int.class, IntConsumer.class).invoke(null, 100, hook);
        R.flush();
        int lastBefore = Collections.max(at.subList(0, 51)), firstAfter = Collections.min(at.subList(51, 100));
        if (firstAfter > lastBefore) return result;
        fail.accept(method + "'s turns after the stop ran at offsets from " + firstAfter + ", before it up to " + lastBefore
                + ": the copy did not leave for the original code");
        return null;
    }

    /** {@code m}'s result on {@code args}, or the class of what it threw. */
    static String call(Method m, Object self, Object... args) throws Exception {
        try {
            return m.getName() + "=" + m.invoke(self, args);
        } catch (InvocationTargetException e) {
            return m.getName() + " threw " + e.getCause().getClass().getName();
        }
    }
}
