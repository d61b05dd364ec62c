//! The [`Report`] as GitHub-flavoured Markdown (`--format markdown`), sized for a job summary
//! or a pull-request comment: a heading with the summary, the alarms table (at most
//! [`ROWS_SHOWN`] flow-sets, then a count of the rest), and the unanalyzed and excluded
//! failures folded in `<details>`. It only formats.

use super::render::{
    at, exception_cell, excluded, likelihood, origin, summary_line, tests_cell, title,
};
use super::{FlowSetReport, Report};
use crate::words::count;

/// Flow-sets in the table; a pull-request comment holds at most 65,536 characters.
pub const ROWS_SHOWN: usize = 50;

/// The heading shows at most this much of the subject.
const TITLE_CHARS: usize = 90;

/// Lists under `<details>` stop after this many lines.
const LIST_SHOWN: usize = 100;

/// The report as Markdown, with a final newline.
pub fn markdown(report: &Report) -> String {
    let (title, _) = title(report, TITLE_CHARS);
    let mut out = format!("### {}\n\n{}.\n\n", cell(&title), summary_line(report));
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
        cell(&exception_cell(&fs.crash)),
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
    use crate::report::{Crash, Location, OriginReport, Summary};

    fn flow_set(rank: usize) -> FlowSetReport {
        let at = Location {
            file: "A.java".into(),
            path: None,
            line: 3,
            method: "A.m".into(),
        };
        FlowSetReport {
            rank,
            fingerprint: format!("A.m@A.java:{rank}"),
            locality: "local",
            likelihood: Some(0.0),
            likelihood_ratio: Some("0/1".into()),
            crash: Crash {
                exception: "java.lang.NullPointerException".into(),
                statement: at.clone(),
                thrown_at: None,
                kind: "deref".into(),
                contract: None,
                variables: vec!["x".into()],
                origin: OriginReport {
                    file: Some("A.java".into()),
                    path: None,
                    line: Some(2),
                    method: Some("A.m".into()),
                    untraced: false,
                },
                origins: Vec::new(),
                mut_method: "A.m".into(),
            },
            theta: Vec::new(),
            tests: vec![format!("T.t{rank}")],
            representative: format!("T.t{rank}"),
            local_tests: 1,
            fallback: None,
        }
    }

    /// 53 flow-sets: the table shows 50 and counts the 3 others.
    #[test]
    fn long_tables_are_cut_with_the_count_of_the_rest() {
        let report = Report {
            schema: crate::report::RANK_SCHEMA,
            subject: Some("A | B".into()),
            seed: 0,
            summary: Summary {
                tests: 53,
                failing: 53,
                passing: 0,
                analyzed: 53,
                unanalyzed: 0,
                in_analysis: 53,
                analyzed_share: "analyzed: 53 of 53 failing tests".into(),
                flow_sets: 53,
                local_flow_sets: 53,
                events: 100,
                duas: 1,
                masked: 0,
            },
            flow_sets: (1..=53).map(flow_set).collect(),
            tests: Vec::new(),
            unanalyzed: Vec::new(),
            excluded: Vec::new(),
            masked: Vec::new(),
        };
        let md = markdown(&report);
        let rows = md
            .lines()
            .filter(|l| l.starts_with("| ") && !l.starts_with("| Rank"))
            .count();
        assert_eq!(rows, ROWS_SHOWN);
        assert!(md.contains("\n+3 more (`paf rank --format json`"), "{md}");
        assert!(md.starts_with("### paf: A \\| B\n"), "{md}");
        assert!(md.contains("| 50 | local | 0.00 (0/1) | NullPointerException | `A.java:3` | `x` | `A.java:2` | T.t50 |"));
    }

    #[test]
    fn cells_cannot_break_the_table() {
        assert_eq!(cell("a|b<c>\nd"), "a\\|b&lt;c&gt; d");
        assert_eq!(code("x`y|z"), "x'y\\|z");
    }
}
