package cases.lambda;

import java.util.function.Function;

/** A lambda body, called through the JDK's lambda proxy (uninstrumented). */
public class Mapper {
    private final Function<String, String> f = s -> s.trim(); // @lambda

    public int apply(String in) {
        return f.apply(in).length(); // @apply-entry
    }
}
