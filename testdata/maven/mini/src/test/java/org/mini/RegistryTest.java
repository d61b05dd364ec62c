// Tests of the Maven example: one passes, two fail (an alias table never made; a name never put).
package org.mini;

import static org.junit.Assert.assertEquals;

import org.junit.Test;

public class RegistryTest {
    @Test
    public void aliasOfAName() {
        Registry r = new Registry();
        r.put("k", "kept");
        r.alias("a", "k");
        assertEquals(4, r.lengthOf("a"));
    }

    @Test
    public void noAliasYet() {
        Registry r = new Registry();
        r.put("k", "kept");
        r.lengthOf("a");
    }

    @Test
    public void aliasOfNothing() {
        Registry r = new Registry();
        r.alias("a", "k");
        r.lengthOf("a");
    }
}
