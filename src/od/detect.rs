//! `od detect`: runs the default order, then each algorithm's schedules; every test whose
//! outcome changed is confirmed (each order re-run, disagreement makes it non-deterministic),
//! run alone, classified, and each of its outcomes minimized by delta debugging. The
//! minimized outcomes are the edges of the dependency graph ([`super::graph`]); each edge's
//! witness and baseline are run again (in fresh processes when schedules are batched) before
//! it counts, and the verdicts are derived from the confirmed edges. The result is a
//! [`OdReport`]. With a shard ([`super::shard`]), only the planned schedules of this shard run
//! and the journal is the result ([`run_shard`]).

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};
use std::sync::Arc;

use super::algo::{self, Algo, Params};
use super::ddmin::{self, Trial};
use super::exec::{Executor, Job, Run};
use super::graph::{self, Edge, Minimized};
use super::pradet::{EdgeState, Refinement};
use super::report::{
    AlgoReport, BudgetReport, Candidates, Confirmation, DataDependenceReport, Dependency, EdgeKind,
    Finding, Invocation, OD_SCHEMA, OdReport, PradetEdgeReport, Res, Settings, Summary, Verdict,
    VerdictReport,
};
use super::verdict::classify;
use super::{Access, Observed, Outcome, Schedule, Test};

/// What to run.
#[derive(Clone, Debug)]
pub struct DetectSettings {
    pub algos: Vec<Algo>,
    pub params: Params,
    /// Re-runs of each order before a change counts as order-dependent.
    pub reruns: u32,
    pub runner: String,
    pub timeout_seconds: f64,
    pub budget_seconds: Option<f64>,
    /// Schedules per runner process (1: one fresh process per schedule).
    pub batch: usize,
}

/// Why detection could not start.
#[derive(Debug, thiserror::Error)]
pub enum DetectError {
    #[error("{0}")]
    TooMany(#[from] algo::TooMany),
    #[error(
        "the runner gave no result for any test of the default order ({exit}){problems}; expected one result per test (docs/order-dependence.md){stderr}"
    )]
    RunnerBroken {
        exit: String,
        problems: String,
        stderr: String,
    },
    #[error("the budget ran out before the default order finished")]
    NoReference,
}

/// A distinct outcome of a test, where it was first seen.
#[derive(Clone, Debug)]
struct Seen {
    outcome: Outcome,
    schedule: Schedule,
    /// `None` for the default order.
    algo: Option<Algo>,
}

/// A change seen when a test ran twice in one schedule.
#[derive(Clone, Debug)]
struct Twice {
    first: Outcome,
    second: Outcome,
    schedule: Schedule,
}

/// What the runs so far showed, per test.
struct State {
    n: usize,
    /// The distinct outcomes, in the order first seen.
    seen: Vec<Vec<Seen>>,
    /// The first change seen when the test ran twice in one schedule.
    twice: Vec<Option<Twice>>,
    /// The algorithms whose schedules changed the test's outcome.
    found_by: Vec<BTreeSet<Algo>>,
    /// The results of the default order.
    reference: Vec<Observed>,
    /// The first schedule in which the runner said the test passed only on a re-run of its
    /// own (Surefire's `flakyFailure`, `flakyError`): evidence of non-determinism.
    flaky: Vec<Option<Schedule>>,
}

impl State {
    /// The state after the reference run of the default order of `n` tests.
    fn new(n: usize, reference: &Run) -> State {
        let mut st = State {
            n,
            seen: vec![Vec::new(); n],
            twice: vec![None; n],
            found_by: vec![BTreeSet::new(); n],
            reference: reference.results.clone(),
            flaky: vec![None; n],
        };
        st.absorb(&(0..n).collect(), reference, None);
        st
    }

    /// Takes in one run of `schedule`; returns the tests whose outcome differs from the
    /// default order's.
    fn absorb(&mut self, schedule: &Schedule, run: &Run, algo: Option<Algo>) -> Vec<Test> {
        let mut changed = Vec::new();
        for &p in &run.flaky {
            if let Some(&t) = schedule.get(p)
                && self.flaky[t].is_none()
            {
                self.flaky[t] = Some(schedule.clone());
                changed.push(t);
            }
        }
        let mut first_at: Vec<Option<usize>> = vec![None; self.n];
        for (p, &t) in schedule.iter().enumerate() {
            let Ok(outcome) = &run.results[p] else {
                continue;
            };
            match first_at[t] {
                None => {
                    first_at[t] = Some(p);
                    if !self.seen[t].iter().any(|s| s.outcome == *outcome) {
                        self.seen[t].push(Seen {
                            outcome: outcome.clone(),
                            schedule: schedule.clone(),
                            algo,
                        });
                    }
                    if let Ok(r) = &self.reference[t]
                        && r != outcome
                    {
                        changed.push(t);
                        if let Some(a) = algo {
                            self.found_by[t].insert(a);
                        }
                    }
                }
                Some(q) => {
                    if let Ok(first) = &run.results[q]
                        && first != outcome
                        && self.twice[t].is_none()
                    {
                        self.twice[t] = Some(Twice {
                            first: first.clone(),
                            second: outcome.clone(),
                            schedule: schedule.clone(),
                        });
                        if let Some(a) = algo {
                            self.found_by[t].insert(a);
                        }
                        changed.push(t);
                    }
                }
            }
        }
        changed.sort_unstable();
        changed.dedup();
        changed
    }
}

/// The outcome of `t` at its first (or `occurrence`-th) position in a run.
fn outcome_of(schedule: &Schedule, run: &Run, t: Test, occurrence: usize) -> Option<Observed> {
    schedule
        .iter()
        .enumerate()
        .filter(|&(_, &u)| u == t)
        .nth(occurrence)
        .map(|(p, _)| run.results[p].clone())
}

/// Runs detection with `exec` over the tests of the default order (`exec.ids()`).
pub fn detect(
    access: Option<&Access>,
    settings: &DetectSettings,
    exec: &mut Executor<'_>,
) -> Result<OdReport, DetectError> {
    let ids: Vec<String> = exec.ids().to_vec();
    let n = ids.len();
    let empty = Access::empty(n);
    let reference = reference_run(exec)?;
    let mut st = State::new(n, &reference);
    let (algorithms, refinement) =
        run_algorithms(&mut st, exec, &ids, access.unwrap_or(&empty), settings)?;
    let judged = judge(&ids, &st, settings.reruns, exec);
    let candidates = access.map(|a| candidates(a, &ids, refinement.as_ref()));
    let budget = budget(settings, &algorithms, exec);
    Ok(OdReport {
        schema: OD_SCHEMA.to_string(),
        runner: settings.runner.clone(),
        summary: summary(&st, &judged, exec),
        tests: ids,
        settings: settings_report(settings),
        algorithms,
        dependencies: judged.dependencies,
        verdicts: judged.verdicts,
        candidates,
        problems: exec.problems().to_vec(),
        budget,
        invocation: Invocation {
            executed: exec.executed,
            reused: exec.reused,
        },
    })
}

/// What one shard of `od detect --shard i/N` ran: per non-adaptive algorithm, its planned
/// schedules, this shard's share of them and the share's runs (from the journal or run now).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ShardReport {
    pub algorithms: Vec<ShardAlgo>,
    /// Adaptive algorithms left to `od merge`.
    pub left: Vec<String>,
    pub executed: usize,
    pub reused: usize,
    pub budget_exhausted: bool,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ShardAlgo {
    pub algo: String,
    pub planned: usize,
    pub share: usize,
    pub runs: usize,
}

/// A shard: the default order (every shard runs it: what `triage` plans depends on it), then
/// this shard's share of each non-adaptive algorithm's schedules, into the executor's
/// journal. Confirmation, minimization and adaptive algorithms are left to `od merge`, which
/// reads every shard's journal and runs only what no shard ran.
pub fn run_shard(
    access: Option<&Access>,
    settings: &DetectSettings,
    exec: &mut Executor<'_>,
) -> Result<ShardReport, DetectError> {
    let ids: Vec<String> = exec.ids().to_vec();
    let empty = Access::empty(ids.len());
    let reference = reference_run(exec)?;
    let failing = failing(&reference.results);
    let mut report = ShardReport {
        algorithms: Vec::new(),
        left: Vec::new(),
        executed: 0,
        reused: 0,
        budget_exhausted: false,
    };
    for &a in &settings.algos {
        if a.adaptive() {
            report.left.push(a.name().to_string());
            continue;
        }
        let schedules =
            algo::schedules(a, &ids, access.unwrap_or(&empty), settings.params, &failing)?;
        let batch: Vec<Job> = schedules.into_iter().map(|s| (s, 0)).collect();
        let share = batch.iter().filter(|j| exec.owns(j)).count();
        let runs = exec.run_planned(a.name(), &batch).iter().flatten().count();
        report.algorithms.push(ShardAlgo {
            algo: a.name().to_string(),
            planned: batch.len(),
            share,
            runs,
        });
    }
    report.executed = exec.executed;
    report.reused = exec.reused;
    report.budget_exhausted = exec.budget_exhausted;
    Ok(report)
}

/// Which tests failed in a run of the default order.
fn failing(results: &[Observed]) -> Vec<bool> {
    results
        .iter()
        .map(|r| matches!(r, Ok(Outcome::Fail { .. })))
        .collect()
}

/// What the budget left unrun: each algorithm's planned schedules it did not run (PRADET's
/// pending edges included: it plans one schedule at a time), and the runs of the other phases
/// (the default order, confirmation, tests alone, minimization) that did not start.
fn budget(
    settings: &DetectSettings,
    algorithms: &[AlgoReport],
    exec: &Executor<'_>,
) -> BudgetReport {
    let mut by: BTreeMap<String, usize> = algorithms
        .iter()
        .filter(|a| a.schedules > a.runs)
        .map(|a| (a.algo.clone(), a.schedules - a.runs))
        .collect();
    for (phase, &n) in &exec.not_run {
        if !algorithms.iter().any(|a| &a.algo == phase) {
            *by.entry(phase.clone()).or_default() += n;
        }
    }
    BudgetReport {
        limit_seconds: settings.budget_seconds,
        exhausted: exec.budget_exhausted,
        not_run: by.values().sum(),
        not_run_by: by,
    }
}

/// The reference run: the default order, which must give a result for some test.
fn reference_run(exec: &mut Executor<'_>) -> Result<Arc<Run>, DetectError> {
    let n = exec.ids().len();
    let default: Schedule = (0..n).collect();
    let reference = exec.run_batch("default", &[(default, 0)])[0]
        .clone()
        .ok_or(DetectError::NoReference)?;
    if n > 0 && reference.results.iter().all(|r| r.is_err()) {
        return Err(DetectError::RunnerBroken {
            exit: reference.exit.clone(),
            problems: if reference.problems.is_empty() {
                String::new()
            } else {
                format!("; {}", reference.problems.join("; "))
            },
            stderr: reference
                .stderr_tail
                .as_ref()
                .filter(|s| !s.is_empty())
                .map_or(String::new(), |s| {
                    format!("; its standard error ends:\n{}", s.trim_end())
                }),
        });
    }
    Ok(reference)
}

/// Detection, algorithm by algorithm: what each planned, ran and changed, and PRADET's
/// refinement when it ran.
fn run_algorithms(
    st: &mut State,
    exec: &mut Executor<'_>,
    ids: &[String],
    access: &Access,
    settings: &DetectSettings,
) -> Result<(Vec<AlgoReport>, Option<Refinement>), DetectError> {
    let mut reports = Vec::new();
    let mut refinement = None;
    let failing = failing(&st.reference);
    for &a in &settings.algos {
        let mut changed: BTreeSet<Test> = BTreeSet::new();
        let (planned, ran) = if a == Algo::Pradet {
            let (r, planned, ran) = run_pradet(st, exec, access, &mut changed);
            refinement = Some(r);
            (planned, ran)
        } else {
            let schedules = algo::schedules(a, ids, access, settings.params, &failing)?;
            let batch: Vec<Job> = schedules.iter().map(|s| (s.clone(), 0)).collect();
            let runs = exec.run_planned(a.name(), &batch);
            let mut ran = 0;
            for (s, run) in schedules.iter().zip(&runs) {
                if let Some(run) = run {
                    ran += 1;
                    changed.extend(st.absorb(s, run, Some(a)));
                }
            }
            (schedules.len(), ran)
        };
        reports.push(AlgoReport {
            algo: a.name().to_string(),
            schedules: planned,
            runs: ran,
            complete: ran == planned,
            changed: changed.iter().map(|&t| ids[t].clone()).collect(),
        });
    }
    Ok((reports, refinement))
}

/// PRADET, one schedule at a time, each result deciding the next: the refinement, the
/// schedules planned (run, and left pending when the budget ran out) and those run.
fn run_pradet(
    st: &mut State,
    exec: &mut Executor<'_>,
    access: &Access,
    changed: &mut BTreeSet<Test>,
) -> (Refinement, usize, usize) {
    let a = Algo::Pradet;
    let mut r = Refinement::new(access);
    let mut ran = 0;
    while let Some((_, s)) = r.next_schedule() {
        let Some(run) = exec.run_batch(a.name(), &[(s.clone(), 0)])[0].clone() else {
            // Out of budget: leave the edge pending.
            break;
        };
        ran += 1;
        let c = st.absorb(&s, &run, Some(a));
        r.record(!c.is_empty());
        changed.extend(c);
    }
    let pending = r
        .edges
        .iter()
        .filter(|e| e.state == EdgeState::Pending)
        .count();
    (r, ran + pending, ran)
}

/// The confirmation re-runs, by job.
struct Reruns {
    runs: HashMap<Job, Option<Arc<Run>>>,
    reruns: u32,
}

impl Reruns {
    /// Runs again, `reruns` times, every order in which an order candidate showed a distinct
    /// outcome and every schedule in which a test changed when run twice; adds them to the
    /// runs `spent` on each test.
    fn run(
        st: &State,
        order_candidates: &[Test],
        reruns: u32,
        exec: &mut Executor<'_>,
        spent: &mut [HashSet<Job>],
    ) -> Reruns {
        let mut batch: Vec<Job> = Vec::new();
        for &t in order_candidates {
            for s in &st.seen[t] {
                for rep in 1..=reruns {
                    batch.push((s.schedule.clone(), rep));
                    spent[t].insert((s.schedule.clone(), rep));
                }
            }
        }
        for (twice, runs) in st.twice.iter().zip(spent.iter_mut()) {
            if let Some(tw) = twice {
                for rep in 1..=reruns {
                    batch.push((tw.schedule.clone(), rep));
                    runs.insert((tw.schedule.clone(), rep));
                }
            }
        }
        let runs = exec.run_batch("confirm", &batch);
        Reruns {
            runs: batch.into_iter().zip(runs).collect(),
            reruns,
        }
    }

    /// The re-runs of `schedule` for `t` at its `occurrence`-th position: the outcomes, whether
    /// one disagreed with `expected`, and whether one is missing.
    fn of(
        &self,
        schedule: &Schedule,
        t: Test,
        occurrence: usize,
        expected: &Outcome,
    ) -> (Vec<Observed>, bool, bool) {
        let mut observed = Vec::new();
        let mut missing = false;
        for rep in 1..=self.reruns {
            match self.runs.get(&(schedule.clone(), rep)).cloned().flatten() {
                Some(run) => {
                    let o = outcome_of(schedule, &run, t, occurrence)
                        .unwrap_or(Err(super::Missing::NoResult));
                    missing |= o.is_err();
                    observed.push(o);
                }
                None => missing = true,
            }
        }
        let disagreed = observed.iter().any(|o| matches!(o, Ok(x) if x != expected));
        (observed, disagreed, missing)
    }

    /// Whether `t`'s change when run twice held: `Some(true)` in every re-run, `Some(false)`
    /// a re-run disagreed; `None` when it never changed that way or a re-run is missing.
    fn self_dependent(&self, st: &State, t: Test) -> Option<bool> {
        let tw = st.twice[t].as_ref()?;
        let (_, first_disagreed, first_missing) = self.of(&tw.schedule, t, 0, &tw.first);
        let (_, second_disagreed, second_missing) = self.of(&tw.schedule, t, 1, &tw.second);
        if first_disagreed || second_disagreed {
            Some(false)
        } else if first_missing || second_missing {
            None
        } else {
            Some(true)
        }
    }
}

/// What judging the candidates gave: the verdicts, in default order, and the dependency
/// graph's edges, by dependent test in default order.
struct Judged {
    verdicts: Vec<VerdictReport>,
    dependencies: Vec<Dependency>,
}

/// The verdicts, in default order: every test with two distinct outcomes, or a change when
/// run twice, is confirmed by re-runs, run alone, classified and its outcomes minimized into
/// edges; the edges are confirmed, and each verdict is derived from its test's edges.
fn judge(ids: &[String], st: &State, reruns: u32, exec: &mut Executor<'_>) -> Judged {
    let n = ids.len();
    let flaky: Vec<Test> = (0..n).filter(|&t| st.flaky[t].is_some()).collect();
    let order_candidates: Vec<Test> = (0..n)
        .filter(|&t| st.seen[t].len() >= 2 && st.flaky[t].is_none())
        .collect();
    let self_candidates: Vec<Test> = (0..n)
        .filter(|&t| st.seen[t].len() < 2 && st.twice[t].is_some() && st.flaky[t].is_none())
        .collect();
    let mut spent = vec![HashSet::new(); n];
    let reruns_done = Reruns::run(st, &order_candidates, reruns, exec, &mut spent);
    let mut judge = Judge {
        ids,
        st,
        reruns: reruns_done,
        spent,
        verdicts: Vec::new(),
        edges: Vec::new(),
        checks: Vec::new(),
    };
    judge.flaky(&flaky);
    let confirmed = judge.confirm_orders(&order_candidates);
    judge.twice_only(&self_candidates);
    judge.isolate_confirmed(confirmed, exec);
    judge.confirm_edges(reruns, exec);
    judge.finish()
}

/// The verdicts being made.
struct Judge<'a> {
    ids: &'a [String],
    st: &'a State,
    reruns: Reruns,
    /// Per test, the runs spent on it after detection.
    spent: Vec<HashSet<Job>>,
    verdicts: Vec<(Test, VerdictReport)>,
    /// The edges found, in the order found.
    edges: Vec<Edge>,
    /// Per edge, once run again: whether it held, the re-runs, and why not.
    checks: Vec<EdgeCheck>,
}

/// The re-runs of one edge's witness and baseline.
struct EdgeCheck {
    confirmed: bool,
    /// Some re-run gave another outcome (not only no result).
    disagreed: bool,
    confirmation: Vec<Confirmation>,
    note: Option<String>,
}

impl Judge<'_> {
    /// A verdict for `t` with only what every verdict has.
    fn blank(
        &self,
        t: Test,
        verdict: Verdict,
        witness: Vec<String>,
        outcome: Res,
    ) -> VerdictReport {
        VerdictReport {
            test: self.ids[t].clone(),
            verdict,
            default_outcome: self.default_outcome(t),
            isolated_outcome: None,
            order_caused_failure: false,
            masked_failure: false,
            self_dependent: false,
            witness,
            witness_outcome: outcome,
            polluters: Vec::new(),
            state_setters: Vec::new(),
            findings: Vec::new(),
            found_by: self.st.found_by[t]
                .iter()
                .map(|a| a.name().to_string())
                .collect(),
            confirmation: Vec::new(),
            runs: 0,
            note: None,
        }
    }

    fn default_outcome(&self, t: Test) -> Res {
        Res::from_observed(&self.st.reference[t])
    }

    fn names(&self, s: &[Test]) -> Vec<String> {
        names(self.ids, s)
    }

    /// Tests the runner itself reported as passing only on a re-run (Surefire's rerun
    /// marks): non-deterministic, whatever the order did.
    fn flaky(&mut self, tests: &[Test]) {
        for &t in tests {
            let schedule = self.st.flaky[t].clone().unwrap_or_default();
            let witness = self.names(&schedule);
            let mut v = self.blank(t, Verdict::NonDeterministic, witness, Res::Pass);
            v.note = Some(
                "the runner reported a pass after a failed attempt in the same run (flakyFailure or flakyError): non-deterministic"
                    .into(),
            );
            self.verdicts.push((t, v));
        }
    }

    /// The re-runs of each order candidate's orders: a disagreement makes it
    /// non-deterministic, a missing result inconclusive; the rest are confirmed, returned
    /// with their confirmations.
    fn confirm_orders(&mut self, candidates: &[Test]) -> Vec<(Test, Vec<Confirmation>)> {
        let mut confirmed = Vec::new();
        for &t in candidates {
            let mut confirmations = Vec::new();
            let mut nd: Option<Vec<String>> = None;
            let mut missing = false;
            for s in &self.st.seen[t] {
                let (observed, disagreed, miss) = self.reruns.of(&s.schedule, t, 0, &s.outcome);
                missing |= miss;
                if disagreed && nd.is_none() {
                    nd = Some(self.names(&s.schedule));
                }
                confirmations.push(Confirmation {
                    order: self.names(&s.schedule),
                    expected: Res::from_outcome(&s.outcome),
                    observed: observed.iter().map(Res::from_observed).collect(),
                    agreed: !disagreed && !miss,
                });
            }
            let (verdict, witness, note) = if let Some(order) = nd {
                let note = "an order re-run gave a different outcome: the result changes with the order held fixed";
                (Verdict::NonDeterministic, order, note)
            } else if missing {
                let witness = self.names(&self.st.seen[t][0].schedule);
                let note = "a re-run gave no result (timeout, crash or budget)";
                (Verdict::Inconclusive, witness, note)
            } else {
                confirmed.push((t, confirmations));
                continue;
            };
            let mut v = self.blank(t, verdict, witness, self.default_outcome(t));
            v.note = Some(note.into());
            v.confirmation = confirmations;
            self.verdicts.push((t, v));
        }
        confirmed
    }

    /// Tests that changed only when run twice: self-dependent if the re-runs agree (a self
    /// edge).
    fn twice_only(&mut self, candidates: &[Test]) {
        for &t in candidates {
            let Some(tw) = self.st.twice[t].clone() else {
                continue;
            };
            let (verdict, note) = match self.reruns.self_dependent(self.st, t) {
                Some(true) => (
                    Verdict::SelfDependent,
                    "the second run in one process differs from the first; no order of distinct tests changed it",
                ),
                Some(false) => (
                    Verdict::NonDeterministic,
                    "re-running the test twice in one process gave different outcomes",
                ),
                None => (Verdict::Inconclusive, "a re-run gave no result"),
            };
            let witness = self.names(&tw.schedule);
            let mut v = self.blank(t, verdict, witness, Res::from_outcome(&tw.second));
            v.self_dependent = verdict == Verdict::SelfDependent;
            v.note = Some(note.into());
            v.isolated_outcome = Some(Res::from_outcome(&tw.first));
            if verdict == Verdict::SelfDependent {
                self.edges.push(graph::self_edge(
                    t,
                    &tw.first,
                    &tw.second,
                    &self.twice_by(t),
                ));
            }
            self.verdicts.push((t, v));
        }
    }

    /// The algorithm whose schedule ran `t` twice (`twice`, unless another ran it so).
    fn twice_by(&self, t: Test) -> String {
        if self.st.found_by[t].contains(&Algo::Twice) {
            Algo::Twice.name().to_string()
        } else {
            self.st.found_by[t]
                .iter()
                .next()
                .map_or("default".to_string(), |a| a.name().to_string())
        }
    }

    /// Each confirmed test alone: the isolated outcome decides victim or brittle.
    fn isolate_confirmed(
        &mut self,
        confirmed: Vec<(Test, Vec<Confirmation>)>,
        exec: &mut Executor<'_>,
    ) {
        let batch: Vec<Job> = confirmed.iter().map(|(t, _)| (vec![*t], 0)).collect();
        let runs = exec.run_batch("alone", &batch);
        for ((t, confirmations), iso) in confirmed.into_iter().zip(runs) {
            self.spent[t].insert((vec![t], 0));
            let isolated = iso.as_ref().and_then(|r| r.results[0].clone().ok());
            let mut v = match isolated {
                Some(isolated) => self.classified(t, &isolated, exec),
                None => {
                    let witness = vec![self.ids[t].clone()];
                    let mut v =
                        self.blank(t, Verdict::Inconclusive, witness, self.default_outcome(t));
                    v.note = Some("no result when run alone".into());
                    v
                }
            };
            v.confirmation = confirmations;
            self.verdicts.push((t, v));
        }
    }

    /// A confirmed test's verdict from its isolated outcome, with every outcome other than
    /// the isolated one minimized over the tests before it, and the edges these show.
    fn classified(
        &mut self,
        t: Test,
        isolated: &Outcome,
        exec: &mut Executor<'_>,
    ) -> VerdictReport {
        let st = self.st;
        let seen_outcomes: Vec<Outcome> = st.seen[t].iter().map(|s| s.outcome.clone()).collect();
        let default_outcome = st.reference[t].as_ref().ok();
        let c = classify(isolated, &seen_outcomes, default_outcome);
        let findings: Vec<(usize, Finding, Minimized)> = c
            .findings
            .iter()
            .map(|&i| {
                let (finding, items) = self.minimize(t, &st.seen[t][i], exec);
                (i, finding, items)
            })
            .collect();
        let main = findings
            .iter()
            .find(|(i, _, _)| *i == c.main)
            .map(|(_, f, _)| f.clone())
            .unwrap_or_else(|| Finding {
                outcome: self.default_outcome(t),
                order: vec![self.ids[t].clone()],
                before: Vec::new(),
                one_minimal: true,
                found_in_order_of: 1,
                found_by: "default".into(),
            });
        let minimized: Vec<Minimized> = findings.iter().map(|(_, _, m)| m.clone()).collect();
        self.edges.extend(graph::edges(t, isolated, &minimized));
        let mut v = self.blank(t, c.verdict, main.order.clone(), main.outcome.clone());
        v.isolated_outcome = Some(Res::from_outcome(isolated));
        if self.reruns.self_dependent(st, t) == Some(true)
            && let Some(tw) = &st.twice[t]
        {
            v.self_dependent = true;
            let by = self.twice_by(t);
            self.edges
                .push(graph::self_edge(t, &tw.first, &tw.second, &by));
        }
        if !main.one_minimal {
            v.note = Some("the witness is not 1-minimal: removing one of its tests kept the outcome in a re-run".into());
        }
        v.findings = findings.into_iter().map(|(_, f, _)| f).collect();
        v
    }

    /// Delta debugging of the tests before `t` in the schedule that first showed `seen`: the
    /// finding, and what it keeps.
    fn minimize(&mut self, t: Test, seen: &Seen, exec: &mut Executor<'_>) -> (Finding, Minimized) {
        let pos = seen.schedule.iter().position(|&u| u == t).unwrap_or(0);
        let prefix: Vec<Test> = seen.schedule[..pos].to_vec();
        let target = &seen.outcome;
        let mut spent: Vec<Job> = Vec::new();
        let m = ddmin::ddmin(&prefix, |candidates| {
            let jobs: Vec<Job> = candidates
                .iter()
                .map(|c| {
                    let mut s = c.clone();
                    s.push(t);
                    (s, 0)
                })
                .collect();
            spent.extend(jobs.iter().cloned());
            exec.run_batch("minimize", &jobs)
                .iter()
                .zip(&jobs)
                .map(|(run, (s, _))| match run {
                    Some(run) => match outcome_of(s, run, t, 0) {
                        Some(Ok(o)) if o == *target => Trial::Reproduced,
                        Some(Ok(_)) => Trial::Other,
                        _ => Trial::Unresolved,
                    },
                    None => Trial::Unresolved,
                })
                .collect()
        });
        self.spent[t].extend(spent);
        let mut order = m.items.clone();
        order.push(t);
        let found_by = seen
            .algo
            .map_or("default".to_string(), |a| a.name().to_string());
        let finding = Finding {
            outcome: Res::from_outcome(target),
            order: self.names(&order),
            before: self.names(&m.items),
            one_minimal: m.one_minimal,
            found_in_order_of: seen.schedule.len(),
            found_by: found_by.clone(),
        };
        let minimized = Minimized {
            outcome: target.clone(),
            before: m.items,
            one_minimal: m.one_minimal,
            found_by,
        };
        (finding, minimized)
    }

    /// Runs every edge's witness and baseline again, `reruns` times (at least once when
    /// schedules are batched: a dependency seen inside one process must reproduce in fresh
    /// ones), each in a process of its own, and records whether each edge held.
    fn confirm_edges(&mut self, reruns: u32, exec: &mut Executor<'_>) {
        let reruns = if exec.batching() {
            reruns.max(1)
        } else {
            reruns
        };
        let mut batch: Vec<Job> = Vec::new();
        for e in &self.edges {
            for rep in 1..=reruns {
                for order in [&e.witness, &e.baseline] {
                    batch.push((order.clone(), rep));
                    self.spent[e.dependent].insert(exec.fresh_key(&(order.clone(), rep)));
                }
            }
        }
        let runs: HashMap<Job, Option<Arc<Run>>> = batch
            .iter()
            .cloned()
            .zip(exec.run_fresh("verify", &batch))
            .collect();
        for e in &self.edges {
            let mut check = EdgeCheck {
                confirmed: true,
                disagreed: false,
                confirmation: Vec::new(),
                note: None,
            };
            for (order, expected) in [
                (&e.witness, &e.witness_outcome),
                (&e.baseline, &e.baseline_outcome),
            ] {
                let observed: Vec<Observed> = (1..=reruns)
                    .map(
                        |rep| match runs.get(&(order.clone(), rep)).cloned().flatten() {
                            Some(run) => run.results[order.len() - 1].clone(),
                            None => Err(super::Missing::NoResult),
                        },
                    )
                    .collect();
                let disagreed = observed.iter().any(|o| matches!(o, Ok(x) if x != expected));
                let missing = observed.iter().any(Result::is_err);
                check.disagreed |= disagreed;
                check.confirmed &= !disagreed && !missing;
                if disagreed && check.note.is_none() {
                    check.note = Some(format!(
                        "a re-run of {} gave another outcome",
                        self.names(order).join(" ")
                    ));
                } else if missing && check.note.is_none() {
                    check.note = Some(format!(
                        "a re-run of {} gave no result",
                        self.names(order).join(" ")
                    ));
                }
                check.confirmation.push(Confirmation {
                    order: self.names(order),
                    expected: Res::from_outcome(expected),
                    observed: observed.iter().map(Res::from_observed).collect(),
                    agreed: !disagreed && !missing,
                });
            }
            self.checks.push(check);
        }
    }

    /// The edges as the report shows them, by dependent in default order.
    fn dependencies(&self) -> Vec<Dependency> {
        let mut order: Vec<usize> = (0..self.edges.len()).collect();
        order.sort_by_key(|&i| self.edges[i].dependent);
        order
            .into_iter()
            .map(|i| {
                let (e, c) = (&self.edges[i], &self.checks[i]);
                Dependency {
                    dependent: self.ids[e.dependent].clone(),
                    kind: e.kind,
                    on: self.names(&e.on),
                    witness: self.names(&e.witness),
                    witness_outcome: Res::from_outcome(&e.witness_outcome),
                    baseline: self.names(&e.baseline),
                    baseline_outcome: Res::from_outcome(&e.baseline_outcome),
                    one_minimal: e.one_minimal,
                    confirmed: c.confirmed,
                    confirmation: c.confirmation.clone(),
                    found_by: e.found_by.clone(),
                    note: c.note.clone(),
                }
            })
            .collect()
    }

    /// A verdict as its test's confirmed edges have it: polluters and state-setters from the
    /// edges, an order-caused failure only if a confirmed polluter edge gives the default
    /// order's failure, a masked failure only with a confirmed state-setter edge. A test whose
    /// edges all failed to reproduce is non-deterministic (a re-run disagreed) or
    /// inconclusive.
    fn derive(&self, t: Test, v: &mut VerdictReport) {
        let mine: Vec<usize> = (0..self.edges.len())
            .filter(|&i| self.edges[i].dependent == t)
            .collect();
        if mine.is_empty() {
            return;
        }
        let held: Vec<&Edge> = mine
            .iter()
            .filter(|&&i| self.checks[i].confirmed)
            .map(|&i| &self.edges[i])
            .collect();
        if held.is_empty() {
            let disagreed = mine.iter().any(|&i| self.checks[i].disagreed);
            v.verdict = if disagreed {
                Verdict::NonDeterministic
            } else {
                Verdict::Inconclusive
            };
            v.note = Some(if disagreed {
                "its dependencies did not reproduce when run again: the result changes with the order held fixed".into()
            } else {
                "a re-run of its dependencies gave no result (timeout, crash or budget)".into()
            });
            return;
        }
        v.polluters = self.names(&graph::tests_on(&held, EdgeKind::Polluter));
        v.state_setters = self.names(&graph::tests_on(&held, EdgeKind::StateSetter));
        let default = self.st.reference[t].as_ref().ok();
        let alone_passes = v.isolated_outcome == Some(Res::Pass);
        v.order_caused_failure = v.verdict == Verdict::Victim
            && alone_passes
            && held.iter().any(|e| {
                e.kind == EdgeKind::Polluter
                    && !e.witness_outcome.is_pass()
                    && Some(&e.witness_outcome) == default
            });
        v.masked_failure = v.verdict == Verdict::Brittle
            && default.is_some_and(Outcome::is_pass)
            && held.iter().any(|e| e.kind == EdgeKind::StateSetter);
        v.self_dependent = held.iter().any(|e| e.kind == EdgeKind::SelfDependent);
    }

    /// The verdicts in default order, each derived from its edges and with the runs spent on
    /// its test, and the edges.
    fn finish(mut self) -> Judged {
        let dependencies = self.dependencies();
        let mut verdicts = std::mem::take(&mut self.verdicts);
        verdicts.sort_by_key(|(t, _)| *t);
        let verdicts = verdicts
            .into_iter()
            .map(|(t, mut v)| {
                self.derive(t, &mut v);
                v.runs = self.spent[t].len();
                v
            })
            .collect();
        Judged {
            verdicts,
            dependencies,
        }
    }
}

fn names(ids: &[String], s: &[Test]) -> Vec<String> {
    s.iter().map(|&t| ids[t].clone()).collect()
}

/// ElectricTest's data dependences of the default order and PRADET's refinement, by name.
fn candidates(a: &Access, ids: &[String], refinement: Option<&Refinement>) -> Candidates {
    let field_names = |fs: &[usize]| fs.iter().map(|&f| a.fields[f].clone()).collect();
    Candidates {
        data: algo::data_dependences(a)
            .into_iter()
            .map(|d| DataDependenceReport {
                kind: d.kind.name().to_string(),
                reader: ids[d.reader].clone(),
                writer: ids[d.writer].clone(),
                fields: field_names(&d.fields),
            })
            .collect(),
        pradet: refinement
            .map(|r| {
                r.edges
                    .iter()
                    .map(|e| PradetEdgeReport {
                        dependent: ids[e.dependent].clone(),
                        on: ids[e.on].clone(),
                        fields: field_names(&e.fields),
                        status: e.state.name().to_string(),
                        schedule: e.schedule.as_ref().map(|s| names(ids, s)),
                    })
                    .collect()
            })
            .unwrap_or_default(),
    }
}

fn summary(st: &State, judged: &Judged, exec: &Executor<'_>) -> Summary {
    let verdicts = &judged.verdicts;
    let count = |v: Verdict| verdicts.iter().filter(|r| r.verdict == v).count();
    let confirmed = judged.dependencies.iter().filter(|d| d.confirmed).count();
    Summary {
        tests: st.n,
        failing_in_default_order: st
            .reference
            .iter()
            .filter(|r| matches!(r, Ok(Outcome::Fail { .. })))
            .count(),
        victims: count(Verdict::Victim),
        brittle: count(Verdict::Brittle),
        self_dependent: count(Verdict::SelfDependent),
        non_deterministic: count(Verdict::NonDeterministic),
        inconclusive: count(Verdict::Inconclusive),
        order_caused_failures: verdicts.iter().filter(|v| v.order_caused_failure).count(),
        masked_failures: verdicts.iter().filter(|v| v.masked_failure).count(),
        dependencies: confirmed,
        unconfirmed: judged.dependencies.len() - confirmed,
        runs: exec.runs_used(),
    }
}

fn settings_report(settings: &DetectSettings) -> Settings {
    Settings {
        algorithms: settings
            .algos
            .iter()
            .map(|a| a.name().to_string())
            .collect(),
        k: settings.params.k,
        trials: settings.params.trials,
        seed: settings.params.seed,
        reruns: settings.reruns,
        timeout_seconds: settings.timeout_seconds,
        batch: settings.batch,
    }
}
