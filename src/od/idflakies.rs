//! iDFlakies' `flaky-lists.json` (Lam et al., ICST 2019): `{"dts": [{"name", "intended",
//! "revealed", "type"}]}`, each run `{"order", "result", "testRunId"}` where `order` is the
//! tests that ran *before* the test and `result` is `PASS`, `FAILURE`, `ERROR` or `SKIPPED`;
//! `type` is `OD` (order-dependent) or `NOD` (not). [`from_report`] writes a paf report's
//! confirmed edges and non-deterministic tests that way; [`to_report`] reads one into a
//! `paf.od/2` report, so `rank --exclude-od`, `rank --od` and `od replay` take it.

use std::collections::HashSet;

use serde::{Deserialize, Serialize};

use super::report::{
    BudgetReport, Dependency, EdgeKind, Invocation, OD_SCHEMA, OdReport, Res, Settings, Summary,
    Verdict, VerdictReport,
};

#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct FlakyLists {
    pub dts: Vec<DependentTest>,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct DependentTest {
    pub name: String,
    /// The behaviour in the original (or passing) order.
    pub intended: TestRun,
    /// The different behaviour, and the order that revealed it.
    pub revealed: TestRun,
    /// `OD` or `NOD`; older files have none (read as `OD`).
    #[serde(rename = "type", default, skip_serializing_if = "Option::is_none")]
    pub kind: Option<String>,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct TestRun {
    /// The tests that ran before the test.
    pub order: Vec<String>,
    pub result: String,
    #[serde(rename = "testRunId", default)]
    pub test_run_id: String,
}

/// iDFlakies' name of an outcome: an assertion's failure is `FAILURE`, any other exception an
/// `ERROR` (JUnit's distinction); `None` for a missing result that is not a skip.
fn result_name(r: &Res) -> Option<&'static str> {
    match r {
        Res::Pass => Some("PASS"),
        Res::Fail { exception, .. } => {
            let assertion = exception.as_deref().is_some_and(|e| {
                e.ends_with("AssertionError")
                    || e.ends_with("AssertionFailedError")
                    || e.ends_with("ComparisonFailure")
            });
            Some(if assertion { "FAILURE" } else { "ERROR" })
        }
        Res::Missing { reason } if reason == "skipped" => Some("SKIPPED"),
        Res::Missing { .. } => None,
    }
}

/// The tests before the last one of an order.
fn before(order: &[String]) -> Vec<String> {
    order[..order.len().saturating_sub(1)].to_vec()
}

/// A report's confirmed edges as `OD` entries (intended: the passing order, or the baseline;
/// revealed: the other), and its non-deterministic tests as `NOD` entries (intended: the
/// expected outcome of the order that disagreed; revealed: what a re-run gave instead).
pub fn from_report(report: &OdReport) -> FlakyLists {
    let mut dts = Vec::new();
    for d in report.dependencies.iter().filter(|d| d.confirmed) {
        let witness = (&d.witness, &d.witness_outcome);
        let baseline = (&d.baseline, &d.baseline_outcome);
        let (intended, revealed) = match d.kind {
            EdgeKind::StateSetter => (witness, baseline),
            EdgeKind::Polluter | EdgeKind::SelfDependent => (baseline, witness),
        };
        let (Some(ri), Some(rr)) = (result_name(intended.1), result_name(revealed.1)) else {
            continue;
        };
        let run = |o: &Vec<String>, r: &str, id: &str| TestRun {
            order: before(o),
            result: r.to_string(),
            test_run_id: format!("paf:{}:{id}", d.kind.name()),
        };
        dts.push(DependentTest {
            name: d.dependent.clone(),
            intended: run(
                intended.0,
                ri,
                if intended == witness {
                    "witness"
                } else {
                    "baseline"
                },
            ),
            revealed: run(
                revealed.0,
                rr,
                if revealed == witness {
                    "witness"
                } else {
                    "baseline"
                },
            ),
            kind: Some("OD".to_string()),
        });
    }
    for v in report
        .verdicts
        .iter()
        .filter(|v| v.verdict == Verdict::NonDeterministic)
    {
        let Some((c, other)) = v.confirmation.iter().find_map(|c| {
            c.observed
                .iter()
                .find(|o| **o != c.expected && result_name(o).is_some())
                .map(|o| (c, o))
        }) else {
            continue;
        };
        let (Some(ri), Some(rr)) = (result_name(&c.expected), result_name(other)) else {
            continue;
        };
        let upto = c
            .order
            .iter()
            .position(|t| *t == v.test)
            .unwrap_or(c.order.len());
        let order = c.order[..upto].to_vec();
        dts.push(DependentTest {
            name: v.test.clone(),
            intended: TestRun {
                order: order.clone(),
                result: ri.to_string(),
                test_run_id: "paf:confirmation:expected".to_string(),
            },
            revealed: TestRun {
                order,
                result: rr.to_string(),
                test_run_id: "paf:confirmation:observed".to_string(),
            },
            kind: Some("NOD".to_string()),
        });
    }
    FlakyLists { dts }
}

/// The lists as pretty JSON with a final newline.
pub fn json(lists: &FlakyLists) -> String {
    let mut s = serde_json::to_string_pretty(lists).unwrap_or_else(|_| "{}".to_string());
    s.push('\n');
    s
}

/// An iDFlakies result as paf's: `PASS` passes, `FAILURE` and `ERROR` fail (the exception is
/// not recorded), anything else is a missing result.
fn res(result: &str) -> Res {
    match result {
        "PASS" => Res::Pass,
        "FAILURE" | "ERROR" => Res::Fail {
            exception: None,
            class: None,
            line: None,
        },
        "SKIPPED" => Res::Missing {
            reason: "skipped".to_string(),
        },
        other => Res::Missing {
            reason: format!("no result (iDFlakies: {other})"),
        },
    }
}

/// A `flaky-lists.json` as a `paf.od/2` report. The default order is every test the file
/// names, in first-mention order. An `OD` entry is one edge: the tests one order has and the
/// other lacks are its `on`, a state-setter edge if the order with them passes, a polluter
/// edge if it fails (when neither order holds the other, `on` is the failing order's tests
/// that the passing order lacks, or all of them). iDFlakies verified its orders, so the edge
/// is taken as confirmed; it is not minimized. A `NOD` entry is a non-deterministic test.
/// The error names the entry that cannot be read.
pub fn to_report(lists: &FlakyLists) -> Result<OdReport, String> {
    let mut tests: Vec<String> = Vec::new();
    let mut known: HashSet<String> = HashSet::new();
    for dt in &lists.dts {
        for t in dt
            .intended
            .order
            .iter()
            .chain(&dt.revealed.order)
            .chain([&dt.name])
        {
            if known.insert(t.clone()) {
                tests.push(t.clone());
            }
        }
    }
    let mut dependencies = Vec::new();
    let mut verdicts = Vec::new();
    for (i, dt) in lists.dts.iter().enumerate() {
        let (ri, rr) = (res(&dt.intended.result), res(&dt.revealed.result));
        if ri == rr {
            return Err(format!(
                "dts[{i}] ({}): intended and revealed results are both {}; expected different results",
                dt.name, dt.intended.result
            ));
        }
        if dt.kind.as_deref() == Some("NOD") {
            verdicts.push(imported_verdict(dt, Verdict::NonDeterministic, &ri, None));
            continue;
        }
        let edge = edge(dt, &ri, &rr);
        verdicts.push(imported_verdict(dt, verdict_of(&edge), &ri, Some(&edge)));
        dependencies.push(edge);
    }
    let index = |t: &str| tests.iter().position(|x| x == t);
    verdicts.sort_by_key(|v| index(&v.test));
    dependencies.sort_by_key(|d| index(&d.dependent));
    let summary = Summary {
        tests: tests.len(),
        victims: count(&verdicts, Verdict::Victim),
        brittle: count(&verdicts, Verdict::Brittle),
        self_dependent: count(&verdicts, Verdict::SelfDependent),
        non_deterministic: count(&verdicts, Verdict::NonDeterministic),
        order_caused_failures: verdicts.iter().filter(|v| v.order_caused_failure).count(),
        masked_failures: verdicts.iter().filter(|v| v.masked_failure).count(),
        dependencies: dependencies.len(),
        ..Summary::default()
    };
    Ok(OdReport {
        schema: OD_SCHEMA.to_string(),
        runner: String::new(),
        tests,
        settings: Settings {
            algorithms: vec!["import".to_string()],
            k: 0,
            trials: 0,
            seed: 0,
            reruns: 0,
            timeout_seconds: 0.0,
            batch: 1,
        },
        summary,
        algorithms: Vec::new(),
        dependencies,
        verdicts,
        candidates: None,
        problems: Vec::new(),
        budget: BudgetReport::default(),
        invocation: Invocation::default(),
    })
}

fn count(verdicts: &[VerdictReport], v: Verdict) -> usize {
    verdicts.iter().filter(|r| r.verdict == v).count()
}

/// The edge of an `OD` entry whose results are `ri` (intended) and `rr` (revealed).
fn edge(dt: &DependentTest, ri: &Res, rr: &Res) -> Dependency {
    let with = |order: &[String]| {
        let mut o = order.to_vec();
        o.push(dt.name.clone());
        o
    };
    // The order that passes is the one the kind is about: with `on` it passes (setter) or
    // without `on` it passes (polluter).
    let (pass, fail) = if rr.is_pass() {
        ((&dt.revealed.order, rr), (&dt.intended.order, ri))
    } else {
        ((&dt.intended.order, ri), (&dt.revealed.order, rr))
    };
    let extra = |a: &[String], b: &[String]| -> Vec<String> {
        a.iter().filter(|t| !b.contains(t)).cloned().collect()
    };
    let (kind, on, witness, baseline) =
        if pass.0.len() > fail.0.len() && fail.0.iter().all(|t| pass.0.contains(t)) {
            (EdgeKind::StateSetter, extra(pass.0, fail.0), pass, fail)
        } else {
            let on = extra(fail.0, pass.0);
            let on = if on.is_empty() { fail.0.clone() } else { on };
            (EdgeKind::Polluter, on, fail, pass)
        };
    Dependency {
        dependent: dt.name.clone(),
        kind,
        on,
        witness: with(witness.0),
        witness_outcome: witness.1.clone(),
        baseline: with(baseline.0),
        baseline_outcome: baseline.1.clone(),
        one_minimal: false,
        confirmed: true,
        confirmation: Vec::new(),
        found_by: "import".to_string(),
        note: Some("imported from iDFlakies' flaky-lists.json; not minimized".to_string()),
    }
}

/// Victim for a polluter edge that passes without its polluters, brittle for a state-setter.
fn verdict_of(e: &Dependency) -> Verdict {
    match e.kind {
        EdgeKind::StateSetter => Verdict::Brittle,
        EdgeKind::Polluter | EdgeKind::SelfDependent => Verdict::Victim,
    }
}

/// The verdict of an imported entry: the intended result is the default order's.
fn imported_verdict(
    dt: &DependentTest,
    verdict: Verdict,
    default: &Res,
    edge: Option<&Dependency>,
) -> VerdictReport {
    let (witness, outcome) = match edge {
        Some(e) => (e.witness.clone(), e.witness_outcome.clone()),
        None => {
            let mut o = dt.revealed.order.clone();
            o.push(dt.name.clone());
            (o, res(&dt.revealed.result))
        }
    };
    let on = |k| {
        edge.filter(|e| e.kind == k)
            .map_or(Vec::new(), |e| e.on.clone())
    };
    VerdictReport {
        test: dt.name.clone(),
        verdict,
        default_outcome: default.clone(),
        isolated_outcome: None,
        order_caused_failure: verdict == Verdict::Victim && default.is_fail(),
        masked_failure: verdict == Verdict::Brittle && default.is_pass(),
        self_dependent: false,
        witness,
        witness_outcome: outcome,
        polluters: on(EdgeKind::Polluter),
        state_setters: on(EdgeKind::StateSetter),
        findings: Vec::new(),
        found_by: vec!["import".to_string()],
        confirmation: Vec::new(),
        runs: 0,
        note: Some(format!(
            "imported from iDFlakies' flaky-lists.json ({})",
            dt.kind.as_deref().unwrap_or("OD")
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lists(text: &str) -> FlakyLists {
        serde_json::from_str(text).unwrap()
    }

    #[test]
    fn an_od_entry_whose_original_order_fails_is_an_order_caused_failure() {
        // Intended (original order): V fails after P and I; revealed: V passes after I alone.
        let r = to_report(&lists(
            r#"{"dts": [{"name": "V", "type": "OD",
                "intended": {"order": ["P", "I"], "result": "ERROR", "testRunId": "a"},
                "revealed": {"order": ["I"], "result": "PASS", "testRunId": "b"}}]}"#,
        ))
        .unwrap();
        assert_eq!(r.tests, vec!["P", "I", "V"]);
        let d = &r.dependencies[0];
        assert_eq!(
            (d.kind, d.on.clone()),
            (EdgeKind::Polluter, vec!["P".to_string()])
        );
        assert_eq!(d.witness, vec!["P", "I", "V"]);
        assert_eq!(d.baseline, vec!["I", "V"]);
        let v = &r.verdicts[0];
        assert_eq!(v.verdict, Verdict::Victim);
        assert!(v.order_caused_failure);
        assert_eq!(r.order_caused_failures()[0].polluters, vec!["P"]);
    }

    #[test]
    fn an_od_entry_that_fails_without_tests_is_brittle() {
        // Passes in the original order after S; fails alone: S is a state-setter, and the
        // failure was masked.
        let r = to_report(&lists(
            r#"{"dts": [{"name": "B",
                "intended": {"order": ["S"], "result": "PASS", "testRunId": "a"},
                "revealed": {"order": [], "result": "FAILURE", "testRunId": "b"}}]}"#,
        ))
        .unwrap();
        let d = &r.dependencies[0];
        assert_eq!(
            (d.kind, d.on.clone()),
            (EdgeKind::StateSetter, vec!["S".to_string()])
        );
        assert!(r.verdicts[0].masked_failure);
    }

    #[test]
    fn round_trip_of_a_paf_edge() {
        let r = to_report(&lists(
            r#"{"dts": [{"name": "V", "type": "OD",
                "intended": {"order": ["I"], "result": "PASS", "testRunId": "a"},
                "revealed": {"order": ["P", "I"], "result": "FAILURE", "testRunId": "b"}}]}"#,
        ))
        .unwrap();
        let back = from_report(&r);
        assert_eq!(back.dts.len(), 1);
        let dt = &back.dts[0];
        assert_eq!(dt.intended.order, vec!["I"]);
        assert_eq!(dt.intended.result, "PASS");
        assert_eq!(dt.revealed.order, vec!["P", "I"]);
        // The imported failure has no exception type: an ERROR, as JUnit counts it.
        assert_eq!(dt.revealed.result, "ERROR");
        assert_eq!(dt.kind.as_deref(), Some("OD"));
    }

    #[test]
    fn equal_results_are_refused() {
        let err = to_report(&lists(
            r#"{"dts": [{"name": "V",
                "intended": {"order": [], "result": "PASS"},
                "revealed": {"order": ["A"], "result": "PASS"}}]}"#,
        ))
        .unwrap_err();
        assert!(err.starts_with("dts[0] (V)"), "{err}");
    }
}
