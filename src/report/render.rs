//! Renderers of a [`Report`]: a terminal table, JSON and CSV. They only format; every number
//! they print is already in the report. (SARIF, JUnit XML, Markdown and HTML are beside this
//! file.)

use super::layout::{self, Column, TableStyle};
use super::{Crash, Excluded, FlowSetReport, Location, Masked, OriginReport, Report};
use crate::words::{count, counted};

/// Which list the table and CSV show.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum By {
    /// One row per flow-set (one alarm each).
    FlowSet,
    /// One row per failing test.
    Test,
}

/// The `paf.rank/1` JSON document, pretty-printed, with a final newline.
pub fn json(report: &Report) -> String {
    let mut out = serde_json::to_string_pretty(report).expect("a report always serializes");
    out.push('\n');
    out
}

/// The likelihood as the table shows it: `0.25 (1/4)`.
pub fn likelihood(fs: &FlowSetReport) -> String {
    match (&fs.likelihood, &fs.likelihood_ratio) {
        (Some(l), Some(r)) => format!("{l:.2} ({r})"),
        _ => "n/a (empty theta)".to_string(),
    }
}

/// An origin as `file:line` (its repository path when known), or `untraced`.
pub fn origin(o: &OriginReport) -> String {
    match (o.path.as_ref().or(o.file.as_ref()), o.line) {
        (Some(file), Some(line)) => format!("{file}:{line}"),
        _ => "untraced".to_string(),
    }
}

/// A statement as `file:line`, with its repository path when known.
pub fn at(l: &Location) -> String {
    format!("{}:{}", l.path.as_ref().unwrap_or(&l.file), l.line)
}

/// A statement as `File.java:line`, without its path.
fn at_file(l: &Location) -> String {
    format!("{}:{}", l.file, l.line)
}

/// An origin as `File.java:line`, without its path, or `untraced`.
fn origin_file(o: &OriginReport) -> String {
    match (&o.file, o.line) {
        (Some(file), Some(line)) => format!("{file}:{line}"),
        _ => "untraced".to_string(),
    }
}

/// The exception's simple name: `NullPointerException`.
pub fn short_exception(e: &str) -> &str {
    e.rsplit('.').next().unwrap_or(e)
}

/// The exception's cell: its simple name, and the Randoop contract a contract check failed on
/// (`AssertionError (equals-hashcode)`).
pub fn exception_cell(crash: &Crash) -> String {
    let short = short_exception(&crash.exception);
    match &crash.contract {
        Some(c) => format!("{short} ({c})"),
        None => short.to_string(),
    }
}

/// The representative test, and how many more tests the flow-set holds.
pub fn tests_cell(fs: &FlowSetReport) -> String {
    match fs.tests.len().saturating_sub(1) {
        0 => fs.representative.clone(),
        more => format!("{} (+{more} more)", fs.representative),
    }
}

/// The heading of a report: `paf: SUBJECT`, the subject cut to its first `max` characters
/// (a tracer may name every test class as the subject), and whether it was cut.
pub fn title(report: &Report, max: usize) -> (String, bool) {
    let subject = report.subject.as_deref().unwrap_or("ranked failures");
    if subject.chars().count() > max {
        let start: String = subject.chars().take(max.saturating_sub(1)).collect();
        (format!("paf: {start}…"), true)
    } else {
        (format!("paf: {subject}"), false)
    }
}

/// The summary in a sentence, the analyzed share first: `analyzed: 2 of 3 failing tests; 2
/// flow-sets (1 local) from 3 failing tests (...)`.
pub fn summary_line(report: &Report) -> String {
    let s = &report.summary;
    format!(
        "{}; {} ({} local) from {} ({} unanalyzed{}){}; {}, {}, {}; seed {}",
        s.analyzed_share,
        counted(s.flow_sets, "flow-set"),
        s.local_flow_sets,
        count(s.failing, "failing test", "failing tests"),
        s.unanalyzed,
        if report.excluded.is_empty() {
            String::new()
        } else {
            format!(", {} excluded as order-caused", report.excluded.len())
        },
        if s.masked == 0 {
            String::new()
        } else {
            format!(
                " and {} of tests run alone",
                counted(s.masked, "masked failure")
            )
        },
        count(s.passing, "passing test", "passing tests"),
        counted(usize::try_from(s.events).unwrap_or(usize::MAX), "event"),
        count(s.duas, "DUA of interest", "DUAs of interest"),
        report.seed
    )
}

/// A terminal table laid out for `style`, followed by the unanalyzed failures, a one-line
/// summary, and the failures `--exclude-od` took out.
pub fn table(report: &Report, by: By, style: TableStyle) -> String {
    let fitted = match by {
        By::FlowSet => flow_set_table(report, style),
        By::Test => test_table(report, style),
    };
    let mut out = fitted.table.to_string();
    out.push('\n');
    let prose = |text: &str, indent: &str| layout::prose(text, indent, style);
    let width = style.width.unwrap_or_default();
    if fitted.shortened {
        out.push_str(&prose(
            &format!("(paths shortened to file names to fit {width} columns)"),
            "",
        ));
    }
    if !fitted.hidden.is_empty() {
        out.push_str(&prose(
            &format!(
                "({} left out to fit {width} columns; --format json has everything)",
                fitted.hidden.join(", "),
            ),
            "",
        ));
    }
    if !report.unanalyzed.is_empty() {
        out.push_str("\nUnanalyzed failures (ranked last):\n");
        for u in &report.unanalyzed {
            out.push_str(&prose(&format!("  {}: {}", u.test, u.reason), "    "));
        }
    }
    out.push('\n');
    out.push_str(&prose(&summary_line(report), ""));
    if !report.excluded.is_empty() {
        out.push_str(&format!(
            "\nExcluded: {} caused by the test order (--exclude-od)\n",
            count(report.excluded.len(), "failure", "failures")
        ));
        for e in &report.excluded {
            out.push_str(&prose(&format!("  {}", excluded(e)), "    "));
        }
    }
    if !report.masked.is_empty() {
        out.push_str(&format!(
            "\nMasked: {} the default order hid, ranked by the test run alone (--od)\n",
            count(report.masked.len(), "failure", "failures")
        ));
        for m in &report.masked {
            out.push_str(&prose(&format!("  {}", masked(m)), "    "));
        }
    }
    out
}

/// A masked failure in a line: `TEST: fails alone (FAILURE); passes after S`.
fn masked(m: &Masked) -> String {
    format!(
        "{}: fails alone ({}); passes in the default order after {}",
        m.test,
        m.isolated,
        if m.state_setters.is_empty() {
            "earlier tests".to_string()
        } else {
            m.state_setters.join(", ")
        }
    )
}

/// An excluded failure in a line: `TEST (verdict): fails after P; witness: ORDER`.
pub fn excluded(e: &Excluded) -> String {
    format!(
        "{} ({}): fails after {}; witness: {}",
        e.test,
        e.verdict,
        e.polluters.join(", "),
        e.witness.join(" ")
    )
}

/// The flow-set table's columns. When the terminal is narrow, the variables, tests and paths
/// shrink (their cells wrap) and, if that is not enough, columns are left out: the tests first,
/// then the variables, the exception and the origin (where the bad value came from, PAF's
/// point, outlasts the exception's name); the rank, locality, likelihood and crash statement
/// stay.
const FLOW_SET_COLUMNS: [Column; 8] = [
    Column::fixed("Rank"),
    Column::fixed("Locality"),
    Column::fixed("Likelihood"),
    Column::hides("Exception", 3),
    Column::shrinks("Crash at", 16, 5),
    Column::shrinks("Variables", 10, 2),
    Column::shrinks("Origin", 16, 4),
    Column::shrinks("Tests", 12, 1),
];

fn flow_set_table(report: &Report, style: TableStyle) -> layout::Fitted {
    let row = |fs: &FlowSetReport, short: bool| {
        vec![
            fs.rank.to_string(),
            fs.locality.to_string(),
            likelihood(fs),
            exception_cell(&fs.crash),
            if short {
                at_file(&fs.crash.statement)
            } else {
                at(&fs.crash.statement)
            },
            fs.crash.variables.join(", "),
            if short {
                origin_file(&fs.crash.origin)
            } else {
                origin(&fs.crash.origin)
            },
            tests_cell(fs),
        ]
    };
    let long = report.flow_sets.iter().map(|fs| row(fs, false)).collect();
    let short = report.flow_sets.iter().map(|fs| row(fs, true)).collect();
    layout::fit_or_shorten(&FLOW_SET_COLUMNS, long, short, style)
}

/// The test table's columns: the exception is left out first, then the crash statement.
const TEST_COLUMNS: [Column; 7] = [
    Column::fixed("Rank"),
    Column::shrinks("Test", 16, 4),
    Column::fixed("Flow-set"),
    Column::fixed("Locality"),
    Column::fixed("Likelihood"),
    Column::hides("Exception", 1),
    Column::shrinks("Crash at", 16, 2),
];

fn test_table(report: &Report, style: TableStyle) -> layout::Fitted {
    let row = |tr: &super::TestRank, short: bool| match tr.flow_set_rank {
        Some(r) => {
            let fs = &report.flow_sets[r - 1];
            vec![
                tr.rank.to_string(),
                tr.test.clone(),
                r.to_string(),
                fs.locality.to_string(),
                likelihood(fs),
                exception_cell(&fs.crash),
                if short {
                    at_file(&fs.crash.statement)
                } else {
                    at(&fs.crash.statement)
                },
            ]
        }
        None => vec![
            tr.rank.to_string(),
            tr.test.clone(),
            "-".to_string(),
            "unanalyzed".to_string(),
            "-".to_string(),
            String::new(),
            String::new(),
        ],
    };
    let long = report.tests.iter().map(|t| row(t, false)).collect();
    let short = report.tests.iter().map(|t| row(t, true)).collect();
    layout::fit_or_shorten(&TEST_COLUMNS, long, short, style)
}

/// CSV with a header row.
pub fn csv(report: &Report, by: By) -> String {
    let rows = match by {
        By::FlowSet => flow_set_rows(report),
        By::Test => test_rows(report),
    };
    let mut w = csv::Writer::from_writer(Vec::new());
    for row in rows {
        // Writing to a Vec cannot fail, and every row has the header's width.
        w.write_record(&row).expect("CSV into memory");
    }
    String::from_utf8(w.into_inner().expect("CSV into memory")).expect("CSV of UTF-8 strings")
}

fn header(names: &[&str]) -> Vec<String> {
    names.iter().map(|s| s.to_string()).collect()
}

fn likelihood_cell(v: Option<f64>) -> String {
    v.map(|l| l.to_string()).unwrap_or_default()
}

fn flow_set_rows(report: &Report) -> Vec<Vec<String>> {
    let mut rows = vec![header(&[
        "rank",
        "locality",
        "likelihood",
        "exception",
        "crash_file",
        "crash_line",
        "crash_method",
        "variables",
        "origin_file",
        "origin_line",
        "origin_method",
        "tests",
        "representative",
    ])];
    for fs in &report.flow_sets {
        let o = &fs.crash.origin;
        rows.push(vec![
            fs.rank.to_string(),
            fs.locality.to_string(),
            likelihood_cell(fs.likelihood),
            fs.crash.exception.clone(),
            fs.crash.statement.file.clone(),
            fs.crash.statement.line.to_string(),
            fs.crash.statement.method.clone(),
            fs.crash.variables.join(" "),
            o.file.clone().unwrap_or_default(),
            o.line.map(|l| l.to_string()).unwrap_or_default(),
            o.method.clone().unwrap_or_default(),
            fs.tests.join(" "),
            fs.representative.clone(),
        ]);
    }
    rows
}

fn test_rows(report: &Report) -> Vec<Vec<String>> {
    let mut rows = vec![header(&[
        "rank",
        "test",
        "flow_set_rank",
        "locality",
        "likelihood",
        "reason",
    ])];
    for tr in &report.tests {
        rows.push(match tr.flow_set_rank {
            Some(r) => {
                let fs = &report.flow_sets[r - 1];
                vec![
                    tr.rank.to_string(),
                    tr.test.clone(),
                    r.to_string(),
                    fs.locality.to_string(),
                    likelihood_cell(fs.likelihood),
                    if tr.masked {
                        "masked: passed in the default order, fails alone".to_string()
                    } else {
                        String::new()
                    },
                ]
            }
            None => {
                let reason = report
                    .unanalyzed
                    .iter()
                    .find(|u| u.test == tr.test)
                    .map(|u| u.reason.clone())
                    .unwrap_or_default();
                vec![
                    tr.rank.to_string(),
                    tr.test.clone(),
                    String::new(),
                    "unanalyzed".to_string(),
                    String::new(),
                    reason,
                ]
            }
        });
    }
    // Failures `--exclude-od` took out: not ranked, listed with their evidence.
    for e in &report.excluded {
        rows.push(vec![
            String::new(),
            e.test.clone(),
            String::new(),
            "excluded".to_string(),
            String::new(),
            format!("order-caused: {}", excluded(e)),
        ]);
    }
    rows
}
