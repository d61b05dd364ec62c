//! The `paf.od/2` report: what `od detect` found, as a value that is written as JSON (and read
//! back by `od replay` and `rank --exclude-od`/`--od`) and rendered as tables. Its heart is
//! the dependency graph: every confirmed manifest dependency is an edge
//! ([`Dependency`]); the per-test verdicts are a summary derived from the edges.

use crate::report::layout::{self, Column, TableStyle};
use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::{Missing, Observed, Outcome};
use crate::words::{count, counted};

pub const OD_SCHEMA: &str = "paf.od/2";
/// The schema before the dependency graph; still read (docs/order-dependence.md).
pub const OD_SCHEMA_V1: &str = "paf.od/1";

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct OdReport {
    pub schema: String,
    /// The runner command as given.
    pub runner: String,
    /// The default order.
    pub tests: Vec<String>,
    pub settings: Settings,
    pub summary: Summary,
    /// Per algorithm, in the order run: schedules and runs spent, tests whose outcome changed.
    pub algorithms: Vec<AlgoReport>,
    /// The dependency graph: one edge per manifest dependency found, confirmed or not, by
    /// dependent test in default order.
    pub dependencies: Vec<Dependency>,
    /// One entry per test whose outcome changed, in default order: a summary of its edges.
    pub verdicts: Vec<VerdictReport>,
    /// With read/write sets: the data dependencies of the default order (ElectricTest) and
    /// PRADET's refinement of them, candidates rather than findings.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub candidates: Option<Candidates>,
    /// Runs with missing results or protocol problems (at most 50).
    #[serde(default)]
    pub problems: Vec<RunProblem>,
    pub budget: BudgetReport,
    /// What this invocation ran and reused; not part of the report's JSON, which must not
    /// depend on how the runs were spread over invocations and machines (`od merge`).
    #[serde(skip)]
    pub invocation: Invocation,
}

/// Runs made by the invocation that wrote a report, and those it took from journals.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Invocation {
    pub executed: usize,
    pub reused: usize,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Settings {
    pub algorithms: Vec<String>,
    pub k: usize,
    pub trials: usize,
    pub seed: u64,
    pub reruns: u32,
    pub timeout_seconds: f64,
    /// Schedules per runner process (1: a fresh process each; more: `--batch`, the runner
    /// isolating schedules inside one process, and edges confirmed in fresh processes).
    #[serde(default = "one")]
    pub batch: usize,
}

fn one() -> usize {
    1
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Summary {
    pub tests: usize,
    pub failing_in_default_order: usize,
    pub victims: usize,
    pub brittle: usize,
    pub self_dependent: usize,
    pub non_deterministic: usize,
    pub inconclusive: usize,
    /// Victims that failed in the default order: `rank --exclude-od` drops these.
    pub order_caused_failures: usize,
    /// Brittle tests that passed in the default order: failures the order hid.
    pub masked_failures: usize,
    /// Confirmed edges of the dependency graph.
    #[serde(default)]
    pub dependencies: usize,
    /// Edges whose witness or baseline did not reproduce when run again.
    #[serde(default)]
    pub unconfirmed: usize,
    /// Schedule runs the analysis used (each distinct schedule and repetition once).
    pub runs: usize,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct AlgoReport {
    pub algo: String,
    /// Schedules the algorithm asked for (for `pradet`: data dependencies to test).
    pub schedules: usize,
    /// Schedules run (or taken from the journal); fewer when the budget ran out.
    pub runs: usize,
    pub complete: bool,
    /// Tests whose outcome differed from the default order in some schedule of this algorithm.
    pub changed: Vec<String>,
}

/// A test's result as reported: an outcome, or `missing` with the reason.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "outcome", rename_all = "lowercase")]
pub enum Res {
    Pass,
    Fail {
        exception: Option<String>,
        class: Option<String>,
        line: Option<i64>,
    },
    Missing {
        reason: String,
    },
}

impl Res {
    pub fn from_observed(o: &Observed) -> Res {
        match o {
            Ok(Outcome::Pass) => Res::Pass,
            Ok(Outcome::Fail {
                exception,
                class,
                line,
            }) => Res::Fail {
                exception: exception.clone(),
                class: class.clone(),
                line: *line,
            },
            Err(m) => Res::Missing { reason: m.text() },
        }
    }

    pub fn from_outcome(o: &Outcome) -> Res {
        Res::from_observed(&Ok(o.clone()))
    }

    /// Back to an observation.
    pub fn observed(&self) -> Observed {
        match self {
            Res::Pass => Ok(Outcome::Pass),
            Res::Fail {
                exception,
                class,
                line,
            } => Ok(Outcome::Fail {
                exception: exception.clone(),
                class: class.clone(),
                line: *line,
            }),
            Res::Missing { reason } => Err(Missing::from_text(reason)),
        }
    }

    pub fn text(&self) -> String {
        match self {
            Res::Missing { reason } => reason.clone(),
            other => match other.observed() {
                Ok(o) => o.text(),
                Err(m) => m.text(),
            },
        }
    }

    pub fn is_fail(&self) -> bool {
        matches!(self, Res::Fail { .. })
    }

    pub fn is_pass(&self) -> bool {
        matches!(self, Res::Pass)
    }
}

/// iDFlakies' categories, plus `inconclusive` when runs gave no result.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Verdict {
    /// Passes alone; fails when its polluters run before it.
    Victim,
    /// Fails alone; passes when its state-setters run before it.
    Brittle,
    /// Its outcome changes only when it runs twice in one process.
    SelfDependent,
    /// Its outcome changes with the order held fixed.
    NonDeterministic,
    /// Some run needed for a verdict gave no result (timeout, crash, budget).
    Inconclusive,
}

impl Verdict {
    pub fn name(self) -> &'static str {
        match self {
            Verdict::Victim => "victim",
            Verdict::Brittle => "brittle",
            Verdict::SelfDependent => "self-dependent",
            Verdict::NonDeterministic => "non-deterministic",
            Verdict::Inconclusive => "inconclusive",
        }
    }
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct VerdictReport {
    pub test: String,
    pub verdict: Verdict,
    /// The outcome in the default order (the reference run).
    pub default_outcome: Res,
    /// The outcome when run alone, if it was run.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub isolated_outcome: Option<Res>,
    /// A victim that passes alone and failed in the default order: its failure is an artifact
    /// of the order, and `rank --exclude-od` removes it from the ranking.
    pub order_caused_failure: bool,
    /// A brittle test that passed in the default order: a failure the order hid.
    pub masked_failure: bool,
    /// The outcome also changes when the test runs twice in one process.
    pub self_dependent: bool,
    /// The minimal order showing the order-dependent outcome (victim: failing; brittle:
    /// passing; self-dependent: the test twice; non-deterministic: the order that disagreed).
    pub witness: Vec<String>,
    pub witness_outcome: Res,
    /// Tests that must run before a victim for it to fail (for a brittle test: tests that,
    /// after its state-setters, make it fail).
    pub polluters: Vec<String>,
    /// Tests that must run before a brittle test for it to pass.
    pub state_setters: Vec<String>,
    /// Every distinct outcome other than the isolated one, with its minimized order.
    pub findings: Vec<Finding>,
    /// Algorithms in whose schedules the outcome changed.
    pub found_by: Vec<String>,
    /// The re-runs of each order, in the order-fixed check.
    pub confirmation: Vec<Confirmation>,
    /// Schedule runs spent on this test after detection (confirmation, isolation, minimization).
    pub runs: usize,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
}

/// What a dependency edge says the dependent test needs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum EdgeKind {
    /// The test needs the `on` tests before it: without them it fails (or fails otherwise).
    StateSetter,
    /// The test must not run after the `on` tests: after them it fails (or fails otherwise).
    Polluter,
    /// The test changes its own outcome: its second run in one process differs.
    #[serde(rename = "self")]
    SelfDependent,
}

impl EdgeKind {
    pub fn name(self) -> &'static str {
        match self {
            EdgeKind::StateSetter => "state-setter",
            EdgeKind::Polluter => "polluter",
            EdgeKind::SelfDependent => "self",
        }
    }
}

/// One manifest dependency: `dependent`'s outcome in `witness` (where `on` ran before it)
/// differs from its outcome in `baseline` (the witness without `on`). For a polluter edge the
/// baseline is the passing order and the witness the failing one; for a state-setter edge the
/// witness is the passing order. The witness is 1-minimal when `one_minimal` holds: removing
/// any one test before the dependent loses its outcome.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Dependency {
    pub dependent: String,
    pub kind: EdgeKind,
    /// The tests the dependent needs before it (state-setter) or must not follow (polluter);
    /// itself for a self edge.
    pub on: Vec<String>,
    pub witness: Vec<String>,
    pub witness_outcome: Res,
    pub baseline: Vec<String>,
    pub baseline_outcome: Res,
    pub one_minimal: bool,
    /// Every re-run of the witness and the baseline gave the recorded outcomes (in a fresh
    /// process each when schedules were batched).
    pub confirmed: bool,
    /// The re-runs of the witness and then the baseline.
    pub confirmation: Vec<Confirmation>,
    /// The algorithm whose schedule first showed the witness outcome (`default`: the default
    /// order; `import`: another tool's report).
    pub found_by: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Finding {
    pub outcome: Res,
    /// The minimized order: `before`, then the test.
    pub order: Vec<String>,
    pub before: Vec<String>,
    /// Removing any one test of `before` loses the outcome (checked by running).
    pub one_minimal: bool,
    /// Length of the order it was first seen in, before minimization.
    pub found_in_order_of: usize,
    /// The algorithm whose schedule first showed it (`default` for the default order).
    pub found_by: String,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Confirmation {
    pub order: Vec<String>,
    pub expected: Res,
    pub observed: Vec<Res>,
    pub agreed: bool,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Candidates {
    /// ElectricTest's data dependencies of the default order: candidates, not verdicts.
    pub data: Vec<DataDependenceReport>,
    /// PRADET's refinement of the read-after-write ones, when `pradet` ran.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub pradet: Vec<PradetEdgeReport>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct DataDependenceReport {
    /// `read-after-write` or `write-after-read`.
    pub kind: String,
    pub reader: String,
    pub writer: String,
    pub fields: Vec<String>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PradetEdgeReport {
    pub dependent: String,
    pub on: String,
    pub fields: Vec<String>,
    /// `manifest`, `dropped`, `untestable`, or `pending` (budget ran out).
    pub status: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub schedule: Option<Vec<String>>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RunProblem {
    pub order: Vec<String>,
    pub rep: u32,
    /// How the runner ended: `exit status N`, `killed by signal N`, `timeout`, `not started: ...`.
    pub exit: String,
    /// How many positions of the order have no result.
    pub missing: usize,
    /// The tests without a result, in order (a test that ran twice is named twice).
    #[serde(default)]
    pub without_result: Vec<String>,
    pub problems: Vec<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stderr_tail: Option<String>,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct BudgetReport {
    pub limit_seconds: Option<f64>,
    pub exhausted: bool,
    /// Runs not made because the budget ran out: planned schedules of every algorithm, and
    /// runs of the later phases.
    pub not_run: usize,
    /// The same, by algorithm or phase (`default`, `confirm`, `alone`, `minimize`).
    #[serde(default)]
    pub not_run_by: BTreeMap<String, usize>,
}

/// A test that `rank --exclude-od` takes out of the ranking, with the evidence.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Excluded {
    pub test: String,
    pub verdict: String,
    pub witness: Vec<String>,
    pub polluters: Vec<String>,
}

/// A masked failure that `rank --od` adds to the ranking when the bundle holds the test's
/// isolated trace: a test that passed in the default order and fails alone.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Masked {
    pub test: String,
    /// Its failure alone: the exception and where it was thrown.
    pub isolated: String,
    /// The tests it needs before it to pass (its confirmed state-setter edges).
    pub state_setters: Vec<String>,
}

impl OdReport {
    /// The masked failures: tests that fail alone and passed in the default order.
    pub fn masked_failures(&self) -> Vec<Masked> {
        self.verdicts
            .iter()
            .filter(|v| v.masked_failure)
            .map(|v| Masked {
                test: v.test.clone(),
                isolated: v.isolated_outcome.as_ref().map_or(String::new(), |r| {
                    let text = r.text();
                    text.strip_prefix("fail ").unwrap_or(&text).to_string()
                }),
                state_setters: v.state_setters.clone(),
            })
            .collect()
    }

    /// The order-caused failures: victims that pass alone and failed in the default order.
    pub fn order_caused_failures(&self) -> Vec<Excluded> {
        self.verdicts
            .iter()
            .filter(|v| v.verdict == Verdict::Victim && v.order_caused_failure)
            .map(|v| Excluded {
                test: v.test.clone(),
                verdict: v.verdict.name().to_string(),
                witness: v.witness.clone(),
                polluters: v.polluters.clone(),
            })
            .collect()
    }
}

/// The report as pretty JSON with a final newline.
pub fn json(report: &OdReport) -> String {
    let mut s = serde_json::to_string_pretty(report).expect("a report always serializes");
    s.push('\n');
    s
}

fn list(names: &[String]) -> String {
    if names.is_empty() {
        "-".to_string()
    } else {
        names.join(", ")
    }
}

/// The verdicts, the algorithms' costs and the summary as text tables laid out for `style`.
pub fn table(report: &OdReport, style: TableStyle) -> String {
    let mut out = String::new();
    if report.verdicts.is_empty() {
        out.push_str("No test changed its outcome.\n");
    } else {
        out.push_str(&verdict_table(&report.verdicts, style));
    }
    if !report.dependencies.is_empty() {
        out.push_str(&dependency_table(&report.dependencies, style));
    }
    out.push_str(&algorithm_table(&report.algorithms, style));
    let summary = summary_line(&report.summary, report.invocation);
    out.push_str(&layout::prose(summary.trim_end(), "  ", style));
    if report.budget.exhausted {
        let by: Vec<String> = report
            .budget
            .not_run_by
            .iter()
            .map(|(phase, n)| format!("{n} {phase}"))
            .collect();
        let line = format!(
            "budget exhausted: {} runs not made ({}); run again with the same -o to resume",
            report.budget.not_run,
            by.join(", ")
        );
        out.push_str(&layout::prose(&line, "  ", style));
    }
    for p in &report.problems {
        out.push_str(&problem_warning(p));
    }
    out
}

/// The verdicts' columns, in the order they give way to a narrow terminal: runs, the default
/// order's and the lone outcome, the polluters, the witness (their cells wrap first), then
/// the test and its verdict.
const VERDICT_COLUMNS: [Column; 7] = [
    Column::shrinks("Test", 16, 8),
    Column::shrinks("Verdict", 12, 7),
    Column::shrinks("Default order", 10, 2),
    Column::shrinks("Alone", 10, 3),
    Column::shrinks("Witness (minimal order)", 16, 5),
    Column::shrinks("Polluters / state-setters", 12, 4),
    Column::hides("Runs", 1),
];

/// One row per verdict.
fn verdict_table(verdicts: &[VerdictReport], style: TableStyle) -> String {
    let rows = verdicts
        .iter()
        .map(|v| {
            vec![
                v.test.clone(),
                verdict_text(v),
                v.default_outcome.text(),
                v.isolated_outcome
                    .as_ref()
                    .map_or("-".to_string(), Res::text),
                format!("{} -> {}", v.witness.join(" "), v.witness_outcome.text()),
                who(v),
                v.runs.to_string(),
            ]
        })
        .collect();
    layout::fit_text(&VERDICT_COLUMNS, rows, style)
}

/// The verdict with what else it is: `victim (order-caused failure)`.
fn verdict_text(v: &VerdictReport) -> String {
    let mut verdict = v.verdict.name().to_string();
    if v.order_caused_failure {
        verdict.push_str(" (order-caused failure)");
    }
    if v.masked_failure {
        verdict.push_str(" (masked failure)");
    }
    if v.self_dependent && v.verdict != Verdict::SelfDependent {
        verdict.push_str(" (also self-dependent)");
    }
    verdict
}

/// The polluters, or the state-setters and then the polluters.
fn who(v: &VerdictReport) -> String {
    if v.state_setters.is_empty() {
        return list(&v.polluters);
    }
    let mut s = format!("setters: {}", list(&v.state_setters));
    if !v.polluters.is_empty() {
        s.push_str(&format!("; polluters: {}", list(&v.polluters)));
    }
    s
}

/// The edges' columns: the baseline, whether it was confirmed, the witness and what the test
/// depends on wrap (and go) first; the dependent test and the kind stay.
const DEPENDENCY_COLUMNS: [Column; 6] = [
    Column::shrinks("Dependent", 16, 6),
    Column::fixed("Kind"),
    Column::shrinks("On", 12, 4),
    Column::shrinks("Witness", 16, 3),
    Column::shrinks("Baseline", 12, 1),
    Column::shrinks("Confirmed", 8, 2),
];

/// One row per edge of the dependency graph.
fn dependency_table(edges: &[Dependency], style: TableStyle) -> String {
    let rows = edges
        .iter()
        .map(|e| {
            let confirmed = match (e.confirmed, e.one_minimal) {
                (true, true) => "yes".to_string(),
                (true, false) => "yes (witness not 1-minimal)".to_string(),
                (false, _) => {
                    format!("no: {}", e.note.as_deref().unwrap_or("a re-run disagreed"))
                }
            };
            vec![
                e.dependent.clone(),
                e.kind.name().to_string(),
                list(&e.on),
                format!("{} -> {}", e.witness.join(" "), e.witness_outcome.text()),
                format!("{} -> {}", e.baseline.join(" "), e.baseline_outcome.text()),
                confirmed,
            ]
        })
        .collect();
    layout::fit_text(&DEPENDENCY_COLUMNS, rows, style)
}

const ALGORITHM_COLUMNS: [Column; 4] = [
    Column::fixed("Algorithm"),
    Column::fixed("Schedules"),
    Column::fixed("Runs"),
    Column::shrinks("Changed", 12, 1),
];

/// One row per algorithm: what it planned and ran, and the tests it changed.
fn algorithm_table(algorithms: &[AlgoReport], style: TableStyle) -> String {
    let rows = algorithms
        .iter()
        .map(|r| {
            let runs = if r.complete {
                r.runs.to_string()
            } else {
                format!("{} (incomplete)", r.runs)
            };
            vec![
                r.algo.clone(),
                r.schedules.to_string(),
                runs,
                list(&r.changed),
            ]
        })
        .collect();
    layout::fit_text(&ALGORITHM_COLUMNS, rows, style)
}

fn summary_line(s: &Summary, inv: Invocation) -> String {
    format!(
        "{} ({} failing in the default order): {} ({}), {} brittle ({}), {} self-dependent, {} non-deterministic, {} inconclusive; {} ({} unconfirmed); {} ({} executed, {} reused)\n",
        counted(s.tests, "test"),
        s.failing_in_default_order,
        counted(s.victims, "victim"),
        counted(s.order_caused_failures, "order-caused failure"),
        s.brittle,
        counted(s.masked_failures, "masked failure"),
        s.self_dependent,
        s.non_deterministic,
        s.inconclusive,
        count(s.dependencies, "dependency", "dependencies"),
        s.unconfirmed,
        counted(s.runs, "run"),
        inv.executed,
        inv.reused
    )
}

/// A run with missing results or protocol problems, as a warning line.
fn problem_warning(p: &RunProblem) -> String {
    let mut names = p
        .without_result
        .iter()
        .take(5)
        .cloned()
        .collect::<Vec<_>>()
        .join(", ");
    if p.without_result.len() > 5 {
        names.push_str(", ...");
    }
    format!(
        "warning: a run of {} ({}) left {} without a result{}{}\n",
        crate::words::counted(p.order.len(), "test"),
        p.exit,
        p.missing,
        if names.is_empty() {
            String::new()
        } else {
            format!(" ({names}); they count as no result, not as failures")
        },
        if p.problems.is_empty() {
            String::new()
        } else {
            format!("; {}", p.problems.join("; "))
        }
    )
}
