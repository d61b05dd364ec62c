//! `od replay`: runs the orders a `paf.od/1` report recorded for one test again (its witness,
//! the test alone, every minimized finding) and says whether each recorded outcome came back.
//! The result is a [`ReplayReport`], rendered by [`table`] and [`json`].

use crate::report::layout::{self, Column, TableStyle};
use serde::Serialize;

use super::Schedule;
use super::exec::{Executor, Job};
use super::report::{OdReport, Res, Verdict, VerdictReport};
use super::runner::Runner;
use crate::progress::Progress;

pub const REPLAY_SCHEMA: &str = "paf.od-replay/1";

/// What replaying one test's recorded orders showed.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ReplayReport {
    pub test: String,
    /// The verdict the report gave the test.
    pub verdict: Verdict,
    /// Each distinct recorded order once, witness first.
    pub orders: Vec<ReplayedOrder>,
}

/// The runs of one recorded order.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ReplayedOrder {
    pub order: Vec<String>,
    /// The test's outcome in this order, as the report recorded it.
    pub expected: Res,
    /// The test's outcome in each run.
    pub observed: Vec<Res>,
    /// Every run gave the expected outcome.
    pub reproduced: bool,
}

/// Why a replay could not run.
#[derive(Debug, thiserror::Error)]
pub enum ReplayError {
    #[error("no verdict for {test:?}; expected one of: {}", one_of(.known))]
    NoVerdict { test: String, known: Vec<String> },
    /// Not for a report from [`super::input::read_report`], which checks every order.
    #[error("a recorded order of {test:?} names {id:?}, which is not in the report's test list")]
    Unlisted { test: String, id: String },
    /// Not for a report from [`super::input::read_report`], which checks every order.
    #[error("a recorded order of {test:?} does not run it: {}", .order.join(" "))]
    WithoutTest { test: String, order: Vec<String> },
}

fn one_of(known: &[String]) -> String {
    if known.is_empty() {
        "(none)".to_string()
    } else {
        known.join(", ")
    }
}

/// Runs each recorded order of `test` `reruns` times (at least once) with `runner`, one
/// schedule at a time, and compares the test's outcomes with the recorded ones.
pub fn replay(
    report: &OdReport,
    test: &str,
    runner: Runner,
    reruns: u32,
    progress: &mut dyn Progress,
) -> Result<ReplayReport, ReplayError> {
    let Some(verdict) = report.verdicts.iter().find(|v| v.test == test) else {
        return Err(ReplayError::NoVerdict {
            test: test.to_string(),
            known: report.verdicts.iter().map(|v| v.test.clone()).collect(),
        });
    };
    let recorded = recorded_orders(verdict);
    let schedules = recorded
        .iter()
        .map(|(order, _)| schedule(report, test, order))
        .collect::<Result<Vec<_>, _>>()?;
    let mut exec = Executor::new(runner, report.tests.clone(), 1, None, progress);
    let orders = recorded
        .into_iter()
        .zip(schedules)
        .map(|((order, expected), (schedule, at))| {
            let observed = observe(&mut exec, schedule, at, reruns);
            ReplayedOrder {
                reproduced: observed.iter().all(|o| *o == expected),
                order,
                expected,
                observed,
            }
        })
        .collect();
    Ok(ReplayReport {
        test: verdict.test.clone(),
        verdict: verdict.verdict,
        orders,
    })
}

/// The orders recorded for a verdict with the test's outcome in each: the witness, the test
/// alone, and every minimized finding, each distinct order once (the first outcome kept).
fn recorded_orders(v: &VerdictReport) -> Vec<(Vec<String>, Res)> {
    let mut orders: Vec<(Vec<String>, Res)> = vec![(v.witness.clone(), v.witness_outcome.clone())];
    if let Some(iso) = &v.isolated_outcome {
        orders.push((vec![v.test.clone()], iso.clone()));
    }
    for f in &v.findings {
        orders.push((f.order.clone(), f.outcome.clone()));
    }
    let mut unique: Vec<(Vec<String>, Res)> = Vec::new();
    for o in orders {
        if !unique.iter().any(|u| u.0 == o.0) {
            unique.push(o);
        }
    }
    unique
}

/// An order as a schedule of the report's tests, with the position of `test` in it: the
/// last, as a self-dependence witness runs the test twice and the second run is the one that
/// changed.
fn schedule(
    report: &OdReport,
    test: &str,
    order: &[String],
) -> Result<(Schedule, usize), ReplayError> {
    let schedule = order
        .iter()
        .map(|id| {
            report
                .tests
                .iter()
                .position(|t| t == id)
                .ok_or_else(|| ReplayError::Unlisted {
                    test: test.to_string(),
                    id: id.clone(),
                })
        })
        .collect::<Result<Schedule, _>>()?;
    let at = order
        .iter()
        .rposition(|id| id == test)
        .ok_or_else(|| ReplayError::WithoutTest {
            test: test.to_string(),
            order: order.to_vec(),
        })?;
    Ok((schedule, at))
}

/// The outcome at position `at` in each of `reruns` runs of `schedule`.
fn observe(exec: &mut Executor<'_>, schedule: Schedule, at: usize, reruns: u32) -> Vec<Res> {
    let batch: Vec<Job> = (0..reruns.max(1)).map(|r| (schedule.clone(), r)).collect();
    exec.run_batch("replay", &batch)
        .iter()
        .map(|run| match run {
            Some(run) => Res::from_observed(&run.results[at]),
            None => Res::Missing {
                reason: "not run".into(),
            },
        })
        .collect()
}

/// The replay as pretty JSON (`paf.od-replay/1`) with a final newline. Its keys are sorted,
/// as serde_json's maps keep them.
pub fn json(r: &ReplayReport) -> String {
    let value = serde_json::json!({
        "schema": REPLAY_SCHEMA,
        "test": r.test,
        "verdict": r.verdict,
        "orders": r.orders,
    });
    format!("{value:#}\n")
}

/// The orders' columns: what was observed wraps first, then what was expected, then the order.
const ORDER_COLUMNS: [Column; 4] = [
    Column::shrinks("Order", 20, 3),
    Column::shrinks("Expected", 12, 2),
    Column::shrinks("Observed", 12, 1),
    Column::fixed("Reproduced"),
];

/// `TEST: VERDICT` and a table of the orders, with what was expected and observed, laid out
/// for `style`.
pub fn table(r: &ReplayReport, style: TableStyle) -> String {
    let rows = r
        .orders
        .iter()
        .map(|o| {
            let observed: Vec<String> = o.observed.iter().map(Res::text).collect();
            vec![
                o.order.join(" "),
                o.expected.text(),
                observed.join("; "),
                if o.reproduced { "yes" } else { "no" }.to_string(),
            ]
        })
        .collect();
    format!(
        "{}: {}\n{}",
        r.test,
        r.verdict.name(),
        layout::fit_text(&ORDER_COLUMNS, rows, style)
    )
}
