//! A check of the supervisor's statement table (tracer/java/e2e.sh runs it): the agents' shared table made the bundle's, byte for byte.
package paf.runner;

import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;

/**
 * {@link Supervisor#writeStatements} works on bytes (docs/performance.md, "Twenty-second round"):
 * the first line of each id is kept, without its key; a line that is not a statement and a last
 * line cut short are left out; text in other scripts passes through as it was. The expected
 * table is written out by hand.
 *
 * <p>usage: java -cp paf-runner.jar:DIR paf.runner.StatementsCheck WORKDIR
 */
public final class StatementsCheck {
    private StatementsCheck() {}

    public static void main(String[] args) throws Exception {
        File dir = new File(args[0]);
        File work = new File(dir, "work"), bundle = new File(dir, "bundle");
        work.mkdirs();
        bundle.mkdirs();
        String table = ""
                + "{\"id\":0,\"class\":\"a.B\",\"method\":\"m\",\"line\":3,\"key\":\"a.B#m()V@0\"}\n"
                + "{\"id\":1,\"class\":\"a.\u00c9t\u00e9\",\"method\":\"\u540d\",\"file\":\"\u00c9t\u00e9.java\",\"key\":\"a.\u00c9t\u00e9#\u540d()V@4\"}\n"
                + "not a statement\n"
                + "{\"id\":0,\"class\":\"a.B\",\"method\":\"again\",\"key\":\"a.B#again()V@0\"}\n"
                + "{\"id\":2,\"class\":\"a.B\",\"method\":\"noKey\"}\n"
                + "{\"id\":12,\"class\":\"a.B\",\"method\":\"m\",\"line\":7,\"key\":\"a.B#m()V@9\"}\n"
                + "{\"id\":3,\"class\":\"a.B\",\"method\":\"cut";
        Files.write(new File(work, "statements.jsonl").toPath(), table.getBytes(StandardCharsets.UTF_8));
        int n = Supervisor.writeStatements(new File(work, "statements.jsonl"), bundle, false);
        String expected = ""
                + "{\"id\":0,\"class\":\"a.B\",\"method\":\"m\",\"line\":3}\n"
                + "{\"id\":1,\"class\":\"a.\u00c9t\u00e9\",\"method\":\"\u540d\",\"file\":\"\u00c9t\u00e9.java\"}\n"
                + "{\"id\":2,\"class\":\"a.B\",\"method\":\"noKey\"}\n"
                + "{\"id\":12,\"class\":\"a.B\",\"method\":\"m\",\"line\":7}\n";
        String got = new String(Files.readAllBytes(new File(bundle, "statements.jsonl").toPath()), StandardCharsets.UTF_8);
        if (!got.equals(expected)) throw new AssertionError("the bundle's table:\n" + got + "expected:\n" + expected);
        if (n != 4) throw new AssertionError(n + " statements, expected 4");
        // no table at all: an empty one
        File none = new File(dir, "none");
        none.mkdirs();
        if (Supervisor.writeStatements(new File(none, "statements.jsonl"), none, false) != 0
                || new File(none, "statements.jsonl").length() != 0) throw new AssertionError("no table: an empty one");
        System.out.println("StatementsCheck: the bundle's statement table as expected");
    }
}
