//! `paf explain`: why one test is where it is, as a value (JSON) and as text ([`text`]). Built
//! from the same analysis and report as `paf rank`; nothing is recomputed.

mod text;

pub use text::{Lists, text};

use serde::Serialize;

use crate::analysis::{CrashKind, CrashVar, Failure};
use crate::engine::Analysis;
use crate::report::{FlowSetReport, Location, Report, Resolver, SourcePaths, Step};
use crate::trace::{Outcome, Tables};

pub const EXPLAIN_SCHEMA: &str = "paf.explain/1";

#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct Explanation {
    pub schema: &'static str,
    pub test: String,
    /// `ranked`, `unanalyzed` or `passing`.
    pub status: &'static str,
    pub exception: Option<String>,
    /// Why the failure could not be analyzed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    #[serde(rename = "mut", skip_serializing_if = "Option::is_none")]
    pub mut_method: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub mut_entered_at_event: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub crash_statement: Option<Location>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fallback: Option<String>,
    /// Raised in the test body: the crash variables come from the values the code under test
    /// returned to the failing line (docs/algorithm.md).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub in_test_body: bool,
    /// The Randoop contract the test's check broke.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub contract: Option<String>,
    pub variables: Vec<VarExplanation>,
    /// The test's flow-set as `paf rank` reports it, with every covering test listed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub flow_set: Option<FlowSetReport>,
    /// The test's position in the individual-test ranking.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub test_rank: Option<usize>,
    pub flow_sets_in_total: usize,
}

#[derive(Clone, Debug, Serialize, PartialEq, Eq)]
pub struct VarExplanation {
    pub variable: String,
    /// The failure-inducing dataflow, origin first.
    pub chain: Vec<Step>,
    pub locality: &'static str,
    /// The locality decision in a sentence.
    pub why: String,
}

/// Explains test `id`; `Err` if the bundle has no such test.
pub fn explain(
    tables: &Tables,
    analysis: &Analysis,
    report: &Report,
    id: &str,
) -> Result<Explanation, String> {
    explain_with_paths(tables, analysis, report, id, SourcePaths::none())
}

/// [`explain`], with every location also given as a repository path (`paths`).
pub fn explain_with_paths(
    tables: &Tables,
    analysis: &Analysis,
    report: &Report,
    id: &str,
    paths: &SourcePaths,
) -> Result<Explanation, String> {
    let Some(index) = analysis.test_ids.find(id) else {
        let near: Vec<&str> = analysis
            .test_ids
            .iter()
            .filter(|t| t.ends_with(id) || t.contains(id))
            .take(5)
            .collect();
        let hint = if near.is_empty() {
            String::new()
        } else {
            format!("; did you mean {}?", near.join(", "))
        };
        return Err(format!("no test {id:?} in the bundle{hint}"));
    };
    let r = Resolver::with_paths(tables, analysis, paths);
    let mut e = Explanation {
        schema: EXPLAIN_SCHEMA,
        test: id.to_string(),
        status: "passing",
        exception: None,
        reason: None,
        mut_method: None,
        mut_entered_at_event: None,
        crash_statement: None,
        fallback: None,
        in_test_body: false,
        contract: None,
        variables: Vec::new(),
        flow_set: None,
        test_rank: report.tests.iter().find(|t| t.test == id).map(|t| t.rank),
        flow_sets_in_total: report.flow_sets.len(),
    };
    if analysis.outcomes[index] == Outcome::Pass {
        return Ok(e);
    }
    if let Some(u) = analysis.unanalyzed.iter().find(|u| u.test == index) {
        e.status = "unanalyzed";
        e.exception = u.exception.clone();
        e.reason = Some(u.reason.clone());
        return Ok(e);
    }
    let failure: &Failure = analysis
        .failures
        .iter()
        .find(|f| f.test == index)
        .expect("a failing test is analyzed or unanalyzed");
    e.status = "ranked";
    e.exception = Some(failure.exception.clone());
    e.mut_method = Some(analysis.symbols.name(failure.mut_method).to_string());
    e.mut_entered_at_event = Some(failure.mut_enter);
    e.crash_statement = Some(r.location(failure.crash_stmt));
    e.fallback = failure.fallback.clone();
    e.in_test_body = failure.kind == CrashKind::Returned;
    e.contract = failure.contract.clone();
    e.variables = failure
        .vars
        .iter()
        .map(|v| explain_var(&r, failure, v))
        .collect();
    e.flow_set = report
        .flow_sets
        .iter()
        .find(|fs| fs.tests.iter().any(|t| t == id))
        .cloned();
    Ok(e)
}

fn explain_var(r: &Resolver<'_>, failure: &Failure, v: &CrashVar) -> VarExplanation {
    let chain = r.chain(&v.chain);
    let mut_enter = failure.mut_enter;
    let why = match v.origin_time {
        None => {
            "non-local: the value's origin is not in the trace, so it predates the MUT".to_string()
        }
        Some(t) => {
            let when = if t % 2 == 0 {
                format!("at event {}", t / 2)
            } else {
                format!("just before event {}", (t + 1) / 2)
            };
            let origin = v.chain.first().and_then(|s| s.def).map(|d| {
                let l = r.location(d);
                format!("{}:{}", l.file, l.line)
            });
            format!(
                "{}: the origin {} executed {when}, {} the MUT was entered at event {mut_enter}",
                if v.local { "local" } else { "non-local" },
                origin.unwrap_or_default(),
                if v.local { "after" } else { "before" },
            )
        }
    };
    VarExplanation {
        variable: r.var(v.var),
        chain,
        locality: if v.local { "local" } else { "non-local" },
        why,
    }
}
