package cases.locals;

import java.util.HashMap;
import java.util.Map;

/** Copy chain through locals, origin at an uninstrumented call (HashMap.get). */
public class Names {
    private final Map<String, String> m = new HashMap<>();

    public void put(String k, String v) {
        m.put(k, v);
    }

    public int length(String key) {
        String a = m.get(key); // @a-def
        String b = a; // @b-def
        String c = b; // @c-def
        return c.length(); // @c-use
    }
}
