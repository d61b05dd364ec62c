package compact;

import static org.junit.Assert.assertEquals;

import org.junit.Test;

public class CompactTest {
    @Test
    public void aLongRunWithAClassInitializer() {
        assertEquals(new Work().run(550, 300) >= 0, true);
    }

    @Test
    public void liveElements() {
        assertEquals(3000, new Work().fill(3000).length);
    }

    @Test
    public void aLongRunThatFails() {
        Work w = new Work();
        w.run(500, -1);
        Object o = null;
        o.hashCode();
    }
}
