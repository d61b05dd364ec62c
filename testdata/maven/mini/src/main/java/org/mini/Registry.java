// A registry of names with an optional alias table: the code under test of the Maven example.
package org.mini;

import java.util.HashMap;
import java.util.Map;

public class Registry {
    private final Map<String, String> names = new HashMap<>();
    private Map<String, String> aliases;

    public void put(String key, String name) {
        names.put(key, name);
    }

    public void alias(String alias, String key) {
        if (aliases == null) {
            aliases = new HashMap<>();
        }
        aliases.put(alias, key);
    }

    public int lengthOf(String alias) {
        String key = aliases.get(alias);
        return names.get(key).length();
    }
}
