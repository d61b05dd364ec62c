package paf.instr;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Finds the source line of a field declaration. Class files have no line for a field without an
 * initializer, yet PAF attributes a field's default value to its declaration (section 3.2), so we
 * look the declaration up in the source file (found through the source path, or next to the class
 * file). Heuristic, line based: the shallowest line that declares the name.
 */
final class FieldLines {
    private final List<File> roots;
    private final Map<String, String[]> cache = new HashMap<>();

    FieldLines(List<File> roots) {
        this.roots = roots;
    }

    private static final Pattern KEYWORDS = Pattern.compile("^\\s*(return|throw|else|case|new|assert|yield|if|for|while|do|switch|try|catch|synchronized|import|package)\\b");

    /** The line of the declaration of {@code field} in the source of class {@code internalName}, or -1. */
    int find(String internalName, String sourceFile, String field) {
        String[] lines = source(internalName, sourceFile);
        if (lines == null) return -1;
        Pattern p = Pattern.compile("^\\s*([\\w$.<>\\[\\]?,\\s@]*?)[\\w$>\\]]\\s+(" + Pattern.quote(field) + ")\\s*(=|;|,|\\[|$)");
        Pattern tail = Pattern.compile("[\\w$>\\]]\\s+" + Pattern.quote(field) + "\\s*(=|;|,|$)");
        int best = -1, bestDepth = Integer.MAX_VALUE;
        int depth = 0;
        boolean inComment = false;
        for (int i = 0; i < lines.length; i++) {
            String raw = lines[i];
            // strip comments and string literals, roughly
            StringBuilder code = new StringBuilder();
            for (int j = 0; j < raw.length(); j++) {
                char c = raw.charAt(j);
                if (inComment) {
                    if (c == '*' && j + 1 < raw.length() && raw.charAt(j + 1) == '/') {
                        inComment = false;
                        j++;
                    }
                    continue;
                }
                if (c == '/' && j + 1 < raw.length() && raw.charAt(j + 1) == '/') break;
                if (c == '/' && j + 1 < raw.length() && raw.charAt(j + 1) == '*') {
                    inComment = true;
                    j++;
                    continue;
                }
                if (c == '"') {
                    int k = j + 1;
                    while (k < raw.length() && raw.charAt(k) != '"') k += raw.charAt(k) == '\\' ? 2 : 1;
                    j = k;
                    code.append("\"\"");
                    continue;
                }
                code.append(c);
            }
            String s = code.toString();
            int startDepth = depth;
            for (int j = 0; j < s.length(); j++) {
                if (s.charAt(j) == '{') depth++;
                else if (s.charAt(j) == '}') depth--;
            }
            if (startDepth < 1 || KEYWORDS.matcher(s).find()) continue;
            // the part before the name must not contain '=', '(' or '.' outside generics
            Matcher m = tail.matcher(s);
            if (!m.find()) continue;
            String before = s.substring(0, m.start());
            if (before.contains("=") || before.contains("(") || before.contains(")")) continue;
            if (!p.matcher(s).find() && !before.contains(",")) continue;
            if (startDepth < bestDepth) {
                bestDepth = startDepth;
                best = i + 1;
            }
        }
        return best;
    }

    private String[] source(String internalName, String sourceFile) {
        int slash = internalName.lastIndexOf('/');
        String pkg = slash < 0 ? "" : internalName.substring(0, slash + 1);
        String rel = pkg + sourceFile;
        if (cache.containsKey(rel)) return cache.get(rel);
        String[] out = null;
        List<File> tries = new ArrayList<>();
        for (File r : roots) {
            tries.add(new File(r, rel));
            tries.add(new File(r, sourceFile));
        }
        for (File f : tries) {
            if (f.isFile()) {
                try {
                    out = new String(Files.readAllBytes(f.toPath()), StandardCharsets.UTF_8).split("\r?\n", -1);
                    break;
                } catch (IOException e) {
                    // try the next
                }
            }
        }
        cache.put(rel, out);
        return out;
    }
}
