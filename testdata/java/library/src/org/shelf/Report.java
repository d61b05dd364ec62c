package org.shelf;

import java.util.ArrayList;
import java.util.List;

/**
 * A report: lines rendered through a template.
 *
 * PRECONDITION TRAP: setTemplate must be called before render or headerLength.
 */
public class Report {
    private String template;
    private final List<String> lines = new ArrayList<>();

    public void setTemplate(String template) {
        this.template = template;
    }

    public void addLine(String line) {
        lines.add(line);
    }

    public int lineCount() {
        return lines.size();
    }

    public String render() {
        StringBuilder out = new StringBuilder();
        for (String line : lines) {
            out.append(template.replace("{}", String.valueOf(line)));
            out.append('\n');
        }
        return out.toString();
    }

    public int headerLength() {
        return template.length();
    }
}
