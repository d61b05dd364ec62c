//! The [`Report`] as GitHub-flavoured Markdown (`--format markdown`), sized for a job summary
//! or a pull-request comment: a heading with the summary, the alarms table (at most
//! [`ROWS_SHOWN`] flow-sets, then a count of the rest), and the unanalyzed and excluded
//! failures folded in `<details>`. It only formats.

use super::render::{at, excluded, likelihood, origin, short_exception, summary_line, tests_cell};
use super::{FlowSetReport, Report};
use crate::words::count;

/// Flow-sets in the table; a pull-request comment holds at most 65,536 characters.
pub const ROWS_SHOWN: usize = 50;

/// Lists under `<details>` stop after this many lines.
const LIST_SHOWN: usize = 100;

/// The report as Markdown, with a final newline.
pub fn markdown(report: &Report) -> String {
    let mut out = format!(
        "### paf: {}\n\n{}.\n\n",
        cell(report.subject.as_deref().unwrap_or("ranked failures")),
        summary_line(report)
    );
    if report.flow_sets.is_empty() {
        out.push_str("No analyzed failure: nothing to rank.\n");
    } else {
        out.push_str("| Rank | Locality | Likelihood | Exception | Crash at | Variables | Origin | Tests |\n");
        out.push_str("|---:|---|---|---|---|---|---|---|\n");
        for fs in report.flow_sets.iter().take(ROWS_SHOWN) {
            out.push_str(&row(fs));
        }
        let rest = report.flow_sets.len().saturating_sub(ROWS_SHOWN);
        if rest > 0 {
            out.push_str(&format!(
                "\n+{rest} more (`paf rank --format json` lists every one).\n"
            ));
        }
    }
    out.push_str(
        "\nLocal flow-sets (the bad value was made inside the method under test) come first, \
         then by ascending likelihood of a precondition violation.\n",
    );
    let unanalyzed: Vec<String> = report
        .unanalyzed
        .iter()
        .map(|u| format!("`{}`: {}", code(&u.test), cell(&u.reason)))
        .collect();
    details(
        &mut out,
        &count(
            unanalyzed.len(),
            "unanalyzed failure",
            "unanalyzed failures",
        ),
        "ranked last",
        &unanalyzed,
    );
    let excluded: Vec<String> = report.excluded.iter().map(|e| cell(&excluded(e))).collect();
    details(
        &mut out,
        &count(
            excluded.len(),
            "order-caused failure",
            "order-caused failures",
        ),
        "left out by `--exclude-od`",
        &excluded,
    );
    out
}

fn row(fs: &FlowSetReport) -> String {
    format!(
        "| {} | {} | {} | {} | `{}` | {} | `{}` | {} |\n",
        fs.rank,
        fs.locality,
        cell(&likelihood(fs)),
        cell(short_exception(&fs.crash.exception)),
        code(&at(&fs.crash.statement)),
        fs.crash
            .variables
            .iter()
            .map(|v| format!("`{}`", code(v)))
            .collect::<Vec<_>>()
            .join(", "),
        code(&origin(&fs.crash.origin)),
        cell(&tests_cell(fs)),
    )
}

/// A folded list, when it has items.
fn details(out: &mut String, title: &str, note: &str, items: &[String]) {
    if items.is_empty() {
        return;
    }
    out.push_str(&format!(
        "\n<details><summary>{title} ({note})</summary>\n\n"
    ));
    for item in items.iter().take(LIST_SHOWN) {
        out.push_str(&format!("- {item}\n"));
    }
    if items.len() > LIST_SHOWN {
        out.push_str(&format!("- +{} more\n", items.len() - LIST_SHOWN));
    }
    out.push_str("\n</details>\n");
}

/// Text in a table cell: pipes escaped, no line breaks, no HTML.
fn cell(text: &str) -> String {
    text.replace('\\', "\\\\")
        .replace('|', "\\|")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace(['\n', '\r'], " ")
}

/// Text in a code span: a backtick would end it, and a pipe the cell.
fn code(text: &str) -> String {
    text.replace('`', "'")
        .replace('|', "\\|")
        .replace(['\n', '\r'], " ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cells_cannot_break_the_table() {
        assert_eq!(cell("a|b<c>\nd"), "a\\|b&lt;c&gt; d");
        assert_eq!(code("x`y|z"), "x'y\\|z");
    }
}
