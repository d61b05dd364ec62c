//! The [`Report`] as JUnit XML (`--format junit`), so that a CI server's test report shows the
//! triage: one `testcase` per failing test in rank order, failed with its flow-set's rank,
//! locality, likelihood and crash in the message and as properties; unanalyzed failures fail
//! with the reason; failures `--exclude-od` took out are skipped with their evidence. Written
//! with quick-junit; no times or ids, so the same report gives the same bytes. It only formats.

use quick_junit::{NonSuccessKind, Property, TestCase, TestCaseStatus, TestSuite};

use super::render::{at, excluded, likelihood, origin, short_exception};
use super::{FlowSetReport, Report};

/// The JUnit XML document, with a final newline.
pub fn junit(report: &Report) -> String {
    let name = report.subject.clone().unwrap_or_else(|| "paf".to_string());
    let mut suite = TestSuite::new(format!("paf: {name}"));
    suite.add_property(Property::new(
        "paf.summary",
        super::render::summary_line(report),
    ));
    for t in &report.tests {
        let case = match t.flow_set_rank {
            Some(r) => ranked(t.rank, &t.test, &report.flow_sets[r - 1], report),
            None => unanalyzed(t.rank, &t.test, report),
        };
        suite.add_test_case(case);
    }
    for e in &report.excluded {
        let mut status = TestCaseStatus::skipped();
        status.set_message(format!(
            "left out of the ranking as order-caused: {}",
            excluded(e)
        ));
        let mut case = named(&e.test, status);
        case.add_property(Property::new("paf.excluded", e.verdict.as_str()));
        suite.add_test_case(case);
    }
    let mut doc = quick_junit::Report::new("paf");
    doc.add_test_suite(suite);
    // Serializing into a String cannot fail: every value is text quick-junit escapes.
    let mut out = doc.to_string().expect("JUnit XML into memory");
    if !out.ends_with('\n') {
        out.push('\n');
    }
    out
}

/// A test case named after test id `test`: `Class.method` -> class name and method.
fn named(test: &str, status: TestCaseStatus) -> TestCase {
    match test.rsplit_once('.') {
        Some((class, method)) => {
            let mut case = TestCase::new(method, status);
            case.set_classname(class);
            case
        }
        None => TestCase::new(test, status),
    }
}

fn ranked(rank: usize, test: &str, fs: &FlowSetReport, report: &Report) -> TestCase {
    let mut status = TestCaseStatus::non_success(NonSuccessKind::Failure);
    status
        .set_type(fs.crash.exception.as_str())
        .set_message(format!(
            "paf rank {rank}: flow-set {} of {}, {}, likelihood {}; {} on {} at {}, value from {}",
            fs.rank,
            report.flow_sets.len(),
            fs.locality,
            likelihood(fs),
            short_exception(&fs.crash.exception),
            fs.crash.variables.join(", "),
            at(&fs.crash.statement),
            origin(&fs.crash.origin),
        ))
        .set_description(chain_text(fs));
    let mut case = named(test, status);
    case.add_properties([
        Property::new("paf.rank", rank.to_string()),
        Property::new("paf.flow_set_rank", fs.rank.to_string()),
        Property::new("paf.locality", fs.locality),
        Property::new(
            "paf.likelihood",
            fs.likelihood_ratio.as_deref().unwrap_or("n/a"),
        ),
    ]);
    case
}

/// The flow-set's dataflow, one step a line, as the failure's text.
fn chain_text(fs: &FlowSetReport) -> String {
    let mut out = String::new();
    for v in &fs.crash.origins {
        out.push_str(&format!(
            "{} ({}), origin first:\n",
            v.variable,
            if v.local { "local" } else { "non-local" }
        ));
        for s in &v.chain {
            let def = s.def.as_ref().map_or("(untraced)".to_string(), at);
            out.push_str(&format!(
                "  {def} -> {}: {} = {}\n",
                at(&s.use_),
                s.var,
                s.how
            ));
        }
    }
    out.push_str(&format!(
        "tests: {}\n",
        crate::words::cut_list(&fs.tests, 10)
    ));
    out
}

fn unanalyzed(rank: usize, test: &str, report: &Report) -> TestCase {
    let u = report.unanalyzed.iter().find(|u| u.test == test);
    let mut status = TestCaseStatus::non_success(NonSuccessKind::Failure);
    status.set_message(format!(
        "paf rank {rank}: not analyzed ({}); ranked last",
        u.map_or("no reason recorded", |u| u.reason.as_str())
    ));
    if let Some(e) = u.and_then(|u| u.exception.as_deref()) {
        status.set_type(e);
    }
    let mut case = named(test, status);
    case.add_properties([
        Property::new("paf.rank", rank.to_string()),
        Property::new("paf.locality", "unanalyzed"),
    ]);
    case
}
