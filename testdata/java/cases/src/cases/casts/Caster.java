package cases.casts;

/** A cast is a copy: the chain goes through (String) held to the field's default. */
public class Caster {
    private Object held; // @held-decl

    public void hold(Object o) {
        held = o;
    }

    public int len() {
        String s = (String) held; // @s-def
        return s.length(); // @s-use
    }
}
