//! The robustness example's test whose shutdown hook acts after the worker's done line (docs/java.md, "The worker's end").
import static org.junit.Assert.assertEquals;

import org.junit.Test;

/**
 * A test whose shutdown hook, once every test is recorded, loads a class of the traced package
 * and ends the JVM with code 7, or with {@code PAF_E2E_HANG} set never ends (docs/java.md, "The
 * worker's end").
 */
public class ShutdownTest {
    @Test
    public void testHooksTheExit() {
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            new org.robust.Late().touch();
            if (System.getenv("PAF_E2E_HANG") != null) {
                while (true) {
                    try {
                        Thread.sleep(1000);
                    } catch (InterruptedException e) {
                        // sleeps on
                    }
                }
            }
            Runtime.getRuntime().halt(7);
        }));
        assertEquals(1, new org.robust.Counter().inc());
    }
}
