//! The text form of an [`Explanation`], for a terminal. It only formats.

use super::Explanation;
use crate::report::{FlowSetReport, Location};
use crate::words::{count, cut_list};

/// Covering tests per DUA, and tests of the flow-set, shown before "+N more".
const LIST_SHOWN: usize = 10;

/// How long lists are shown.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Lists {
    /// The first few, then "+N more".
    Cut,
    /// Every item.
    All,
}

/// A file's repository path when known, else its name.
fn file(l: &Location) -> &str {
    l.path.as_deref().unwrap_or(&l.file)
}

/// The explanation as text for a terminal.
pub fn text(e: &Explanation, lists: Lists) -> String {
    let mut out = String::new();
    let list = |items: &[String]| match lists {
        Lists::Cut => cut_list(items, LIST_SHOWN),
        Lists::All => items.join(", "),
    };
    let loc = |l: &Location| format!("{}:{} ({})", file(l), l.line, l.method);
    match e.status {
        "passing" => {
            out.push_str(&format!(
                "Test {} passed: it is not ranked; its DUAs count as coverage for theta.\n",
                e.test
            ));
            return out;
        }
        "unanalyzed" => {
            out.push_str(&format!(
                "Test {} failed with {} and was not analyzed: {}.\n",
                e.test,
                e.exception.as_deref().unwrap_or("no exception"),
                e.reason.as_deref().unwrap_or("")
            ));
            if let Some(rank) = e.test_rank {
                out.push_str(&format!(
                    "It is ranked last, at {rank}, with the other unanalyzed failures.\n"
                ));
            }
            return out;
        }
        _ => {}
    }
    out.push_str(&format!(
        "Test {} failed with {}.\n",
        e.test,
        e.exception.as_deref().unwrap_or("")
    ));
    if let Some(c) = &e.contract {
        out.push_str(&format!("Randoop contract broken: {c}.\n"));
    }
    if e.in_test_body {
        out.push_str(
            "Raised in the test body: the crash variables come from the values the code under \
             test returned to the failing line.\n",
        );
    }
    if let (Some(m), Some(at)) = (&e.mut_method, e.mut_entered_at_event) {
        out.push_str(&format!(
            "Method under test: {m} (entered at event {at}).\n"
        ));
    }
    if let Some(c) = &e.crash_statement {
        out.push_str(&format!("Crash statement: {}.\n", loc(c)));
    }
    if let Some(f) = &e.fallback {
        out.push_str(&format!("Fallback: {f}.\n"));
    }
    for v in &e.variables {
        out.push_str(&format!(
            "\nCrash variable {} ({}).\n  Failure-inducing dataflow, origin first:\n",
            v.variable, v.locality
        ));
        for s in &v.chain {
            let def = s.def.as_ref().map_or("(untraced)".to_string(), |d| {
                format!("{}:{}", file(d), d.line)
            });
            out.push_str(&format!(
                "    ({def}, {}:{}, {})  {}\n",
                file(&s.use_),
                s.use_.line,
                s.var,
                s.how
            ));
        }
        out.push_str(&format!("  Locality: {}.\n", v.why));
    }
    if let Some(fs) = &e.flow_set {
        out.push_str(&flow_set(fs, e.flow_sets_in_total, &list));
    }
    if let Some(rank) = e.test_rank {
        out.push_str(&format!("\nIndividual-test rank: {rank}.\n"));
    }
    out
}

/// The flow-set's line and its theta, each DUA with the passing tests covering it.
fn flow_set(fs: &FlowSetReport, total: usize, list: &dyn Fn(&[String]) -> String) -> String {
    let mut out = String::new();
    out.push_str(&format!(
        "\nFlow-set {} of {}: {}, likelihood {}, {}: {}\n",
        fs.rank,
        total,
        fs.locality,
        match (&fs.likelihood, &fs.likelihood_ratio) {
            (Some(l), Some(r)) => format!("{l:.2} ({r})"),
            _ => "n/a (empty theta)".to_string(),
        },
        count(fs.tests.len(), "test", "tests"),
        list(&fs.tests)
    ));
    out.push_str("Theta (DUAs reaching the crash statement on the crash variables):\n");
    for t in &fs.theta {
        let by = if t.covered_by.is_empty() {
            "covered by no passing test".to_string()
        } else {
            let unlisted = (t.covered_by_count as usize).saturating_sub(t.covered_by.len());
            format!(
                "covered by {}: {}{}",
                count(t.covered_by_count as usize, "passing test", "passing tests"),
                list(&t.covered_by),
                if unlisted > 0 {
                    format!(" (+{unlisted} not kept)")
                } else {
                    String::new()
                }
            )
        };
        out.push_str(&format!(
            "  ({}:{}, {}:{}, {}){}: {by}\n",
            t.def.path.as_ref().unwrap_or(&t.def.file),
            t.def.line,
            t.use_.path.as_ref().unwrap_or(&t.use_.file),
            t.use_.line,
            t.var,
            if t.is_static { " [static]" } else { "" }
        ));
    }
    out
}
