package sites;

import static org.junit.Assert.assertEquals;

import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import org.junit.Before;
import org.junit.Test;

/**
 * Calls from the test body whose test line (and callback mark) a site gives, and calls where a
 * site must not be trusted, so the runtime walks the stack (tracer/java/e2e.sh traces this class
 * with and without sites and compares the traces byte for byte).
 */
public class SitesTest {
    private Box shared;

    /** Test class code that is not the test method: no test line. */
    @Before
    public void setUp() {
        shared = new Box(0);
        shared.get();
    }

    /** A constructor, instance calls, a static call: lines from sites. */
    @Test
    public void direct() {
        Box b = new Box(1);
        b.set(2);
        int x = b.get();
        Box c = Box.of(x);
        c.set(b.get() + new Box(3).get());
    }

    /** A call on a subclass that inherits it: dispatched through SubBox to Box. */
    @Test
    public void inherited() {
        SubBox s = new SubBox(2);
        s.set(4);
        s.get();
        SubBox.of(5); // static, named through the subclass: resolved to Box.of, walked
        OverBox o = new OverBox(1);
        o.get();
    }

    /** The JDK calls the box back (HashMap.put calls hashCode): callbacks. */
    @Test
    public void callbacks() {
        Map<Box, Integer> m = new HashMap<>();
        m.put(new Box(1), 1);
        List<Box> l = Collections.unmodifiableList(new BoxList(new Box(2)));
        l.get(0);
        assertEquals(new Box(3), Box.of(3)); // JUnit calls equals: not a callback
    }

    /** An uninstrumented class of the test's between the test body and the callee, with the same name and descriptor. */
    @Test
    public void inBetween() {
        Wrapper w = new Wrapper(new BoxList(new Box(1)));
        w.get(0); // Wrapper.get calls BoxList.get on another list
        Box anon = new Box(7) {
            @Override
            public int get() {
                return super.get(); // Box.get on the same box, under an override the agent never saw
            }
        };
        anon.get();
    }

    /** Receivers the sites cannot name (an array element, a call's result), a call split over lines, a lambda. */
    @Test
    public void unnamed() {
        Box[] boxes = {new Box(1), new Box(2)};
        boxes[1].get();
        Box.of(4).get();
        int y = boxes[0]
                .get();
        Runnable r = () -> boxes[0].set(y);
        r.run();
    }

    /** A test method run on a thread of JUnit's (a time-out): its calls are walked. */
    @Test(timeout = 60_000)
    public void timed() {
        Box b = new Box(1);
        b.get();
    }

    /** A failure raised in the callee, analyzed at the test line of its call. */
    @Test
    public void fails() {
        Box b = new Box(1);
        b.set(-1);
    }

    /** A list of the test's own: its get is uninstrumented. */
    static final class Wrapper extends BoxList {
        private final BoxList inner;

        Wrapper(BoxList inner) {
            this.inner = inner;
        }

        @Override
        public Box get(int i) {
            return inner.get(i);
        }
    }
}
