//! Renderers of a [`Report`]: a terminal table, JSON and CSV. They only format; every number
//! they print is already in the report.

use comfy_table::{ContentArrangement, Table, presets};

use super::{Excluded, FlowSetReport, Masked, OriginReport, Report};

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

fn likelihood(fs: &FlowSetReport) -> String {
    match (&fs.likelihood, &fs.likelihood_ratio) {
        (Some(l), Some(r)) => format!("{l:.2} ({r})"),
        _ => "n/a (empty theta)".to_string(),
    }
}

fn origin(o: &OriginReport) -> String {
    match (&o.file, o.line) {
        (Some(file), Some(line)) => format!("{file}:{line}"),
        _ => "untraced".to_string(),
    }
}

fn short_exception(e: &str) -> &str {
    e.rsplit('.').next().unwrap_or(e)
}

fn new_table(header: &[&str]) -> Table {
    let mut table = Table::new();
    // No wrapping to the terminal's width: the same report prints the same bytes everywhere.
    table
        .load_style(presets::UTF8_FULL_CONDENSED)
        .set_content_arrangement(ContentArrangement::Disabled)
        .set_header(header.to_vec());
    table
}

/// A terminal table, followed by the unanalyzed failures, a one-line summary, and the failures
/// `--exclude-od` took out.
pub fn table(report: &Report, by: By) -> String {
    let mut out = match by {
        By::FlowSet => flow_set_table(report),
        By::Test => test_table(report),
    }
    .to_string();
    out.push('\n');
    if !report.unanalyzed.is_empty() {
        out.push_str("\nUnanalyzed failures (ranked last):\n");
        for u in &report.unanalyzed {
            out.push_str(&format!("  {}: {}\n", u.test, u.reason));
        }
    }
    let s = &report.summary;
    out.push_str(&format!(
        "\n{} flow-sets ({} local) from {} failing tests ({} unanalyzed{}){}; {} passing tests, {} events, {} DUAs of interest; seed {}\n",
        s.flow_sets,
        s.local_flow_sets,
        s.failing,
        s.unanalyzed,
        if report.excluded.is_empty() {
            String::new()
        } else {
            format!(", {} excluded as order-caused", report.excluded.len())
        },
        if s.masked == 0 {
            String::new()
        } else {
            format!(" and {} masked failure(s) of tests run alone", s.masked)
        },
        s.passing,
        s.events,
        s.duas,
        report.seed
    ));
    if !report.excluded.is_empty() {
        out.push_str(&format!(
            "\nExcluded: {} failure(s) caused by the test order (--exclude-od)\n",
            report.excluded.len()
        ));
        for e in &report.excluded {
            out.push_str(&format!("  {}\n", excluded(e)));
        }
    }
    if !report.masked.is_empty() {
        out.push_str(&format!(
            "\nMasked: {} failure(s) the default order hid, ranked by the test run alone (--od)\n",
            report.masked.len()
        ));
        for m in &report.masked {
            out.push_str(&format!("  {}\n", masked(m)));
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
fn excluded(e: &Excluded) -> String {
    format!(
        "{} ({}): fails after {}; witness: {}",
        e.test,
        e.verdict,
        e.polluters.join(", "),
        e.witness.join(" ")
    )
}

fn flow_set_table(report: &Report) -> Table {
    let mut t = new_table(&[
        "Rank",
        "Locality",
        "Likelihood",
        "Exception",
        "Crash at",
        "Variables",
        "Origin",
        "Tests",
    ]);
    for fs in &report.flow_sets {
        let more = fs.tests.len() - 1;
        t.add_row(vec![
            fs.rank.to_string(),
            fs.locality.to_string(),
            likelihood(fs),
            short_exception(&fs.crash.exception).to_string(),
            format!("{}:{}", fs.crash.statement.file, fs.crash.statement.line),
            fs.crash.variables.join(", "),
            origin(&fs.crash.origin),
            if more == 0 {
                fs.representative.clone()
            } else {
                format!("{} (+{more})", fs.representative)
            },
        ]);
    }
    t
}

fn test_table(report: &Report) -> Table {
    let mut t = new_table(&[
        "Rank",
        "Test",
        "Flow-set",
        "Locality",
        "Likelihood",
        "Exception",
        "Crash at",
    ]);
    for tr in &report.tests {
        let row = match tr.flow_set_rank {
            Some(r) => {
                let fs = &report.flow_sets[r - 1];
                vec![
                    tr.rank.to_string(),
                    tr.test.clone(),
                    r.to_string(),
                    fs.locality.to_string(),
                    likelihood(fs),
                    short_exception(&fs.crash.exception).to_string(),
                    format!("{}:{}", fs.crash.statement.file, fs.crash.statement.line),
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
        t.add_row(row);
    }
    t
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
