package compact;

import static org.junit.Assert.assertEquals;

import org.junit.FixMethodOrder;
import org.junit.Test;
import org.junit.runners.MethodSorters;

@FixMethodOrder(MethodSorters.NAME_ASCENDING)
public class CompactTest {
    @Test
    public void aLongRunWithAClassInitializer() {
        assertEquals(new Work().run(550, 300) >= 0, true);
    }

    @Test
    public void liveElements() {
        int[] a = new Work().fill(1000);
        new Work().run(50, -1); // frames entered after the compaction that fails
        assertEquals(1000, a.length);
    }

    @Test
    public void aLongRunThatFails() {
        Work w = new Work();
        w.run(500, -1);
        Object o = null;
        o.hashCode();
    }

    @Test
    public void then() {
        assertEquals(3, new Work().fill(3).length);
    }
}
