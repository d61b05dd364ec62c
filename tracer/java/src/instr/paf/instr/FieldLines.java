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
    private final Map<String, Code> cache = new HashMap<>();

    FieldLines(List<File> roots) {
        this.roots = roots;
    }

    private static final Pattern KEYWORDS = Pattern.compile("^\\s*(return|throw|else|case|new|assert|yield|if|for|while|do|switch|try|catch|synchronized|import|package)\\b");

    /**
     * A source file's lines without comments and string literals (roughly), and the brace depth
     * each starts at: made once per file, since a class with many fields asks for each of them
     * (commons-email's {@code Email}: dozens of fields, 1,900 lines).
     */
    private static final class Code {
        final String[] lines;
        final int[] depths;

        Code(String[] raw) {
            lines = new String[raw.length];
            depths = new int[raw.length];
            int depth = 0;
            boolean inComment = false;
            for (int i = 0; i < raw.length; i++) {
                String line = raw[i];
                // strip comments and string literals, roughly
                StringBuilder code = new StringBuilder();
                for (int j = 0; j < line.length(); j++) {
                    char c = line.charAt(j);
                    if (inComment) {
                        if (c == '*' && j + 1 < line.length() && line.charAt(j + 1) == '/') {
                            inComment = false;
                            j++;
                        }
                        continue;
                    }
                    if (c == '/' && j + 1 < line.length() && line.charAt(j + 1) == '/') break;
                    if (c == '/' && j + 1 < line.length() && line.charAt(j + 1) == '*') {
                        inComment = true;
                        j++;
                        continue;
                    }
                    if (c == '"') {
                        int k = j + 1;
                        while (k < line.length() && line.charAt(k) != '"') k += line.charAt(k) == '\\' ? 2 : 1;
                        j = k;
                        code.append("\"\"");
                        continue;
                    }
                    code.append(c);
                }
                String s = code.toString();
                lines[i] = s;
                depths[i] = depth;
                for (int j = 0; j < s.length(); j++) {
                    if (s.charAt(j) == '{') depth++;
                    else if (s.charAt(j) == '}') depth--;
                }
            }
        }
    }

    /** The line of the declaration of {@code field} in the source of class {@code internalName}, or -1. */
    int find(String internalName, String sourceFile, String field) {
        Code code = source(internalName, sourceFile);
        if (code == null) return -1;
        Pattern p = null, tail = null; // made for the first line that names the field
        int best = -1, bestDepth = Integer.MAX_VALUE;
        for (int i = 0; i < code.lines.length; i++) {
            String s = code.lines[i];
            int startDepth = code.depths[i];
            // a line that does not name the field cannot match `tail`: most lines end here,
            // without a regular expression (in the agent, at every instrumented class's fields)
            if (startDepth < 1 || !s.contains(field) || KEYWORDS.matcher(s).find()) continue;
            if (tail == null) {
                p = Pattern.compile("^\\s*([\\w$.<>\\[\\]?,\\s@]*?)[\\w$>\\]]\\s+(" + Pattern.quote(field) + ")\\s*(=|;|,|\\[|$)");
                tail = Pattern.compile("[\\w$>\\]]\\s+" + Pattern.quote(field) + "\\s*(=|;|,|$)");
            }
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

    private Code source(String internalName, String sourceFile) {
        int slash = internalName.lastIndexOf('/');
        String pkg = slash < 0 ? "" : internalName.substring(0, slash + 1);
        String rel = pkg + sourceFile;
        if (cache.containsKey(rel)) return cache.get(rel);
        Code out = null;
        List<File> tries = new ArrayList<>();
        for (File r : roots) {
            tries.add(new File(r, rel));
            tries.add(new File(r, sourceFile));
        }
        for (File f : tries) {
            if (f.isFile()) {
                try {
                    out = new Code(new String(Files.readAllBytes(f.toPath()), StandardCharsets.UTF_8).split("\r?\n", -1));
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
