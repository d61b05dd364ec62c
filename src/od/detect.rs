//! `od detect`: runs the default order, then each algorithm's schedules; every test whose
//! outcome changed is confirmed (each order re-run, disagreement makes it non-deterministic),
//! run alone, classified, and each of its outcomes minimized by delta debugging. The result is
//! a [`OdReport`].

use std::collections::{BTreeSet, HashSet};
use std::sync::Arc;

use super::algo::{self, Algo, Params};
use super::ddmin::{self, Trial};
use super::exec::{Executor, Job, Run};
use super::pradet::{EdgeState, Refinement};
use super::report::{
    AlgoReport, BudgetReport, Confirmation, DataDependenceReport, Dependencies, Finding, OD_SCHEMA,
    OdReport, PradetEdgeReport, Res, Settings, Summary, Verdict, VerdictReport,
};
use super::verdict::{brittle_polluters, classify};
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

struct State {
    n: usize,
    seen: Vec<Vec<Seen>>,
    twice: Vec<Option<Twice>>,
    found_by: Vec<BTreeSet<Algo>>,
    reference: Vec<Observed>,
}

impl State {
    /// Takes in one run of `schedule`; returns the tests whose outcome differs from the
    /// default order's.
    fn absorb(&mut self, schedule: &Schedule, run: &Run, algo: Option<Algo>) -> Vec<Test> {
        let mut changed = Vec::new();
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
    let names = |s: &[Test]| -> Vec<String> { s.iter().map(|&t| ids[t].clone()).collect() };
    let empty = Access::empty(n);
    let access_or_empty = access.unwrap_or(&empty);

    // The reference run: the default order.
    let default: Schedule = (0..n).collect();
    let reference = exec.run_batch("default", &[(default.clone(), 0)])[0]
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
    let mut st = State {
        n,
        seen: vec![Vec::new(); n],
        twice: vec![None; n],
        found_by: vec![BTreeSet::new(); n],
        reference: reference.results.clone(),
    };
    st.absorb(&default, &reference, None);

    // Detection, algorithm by algorithm.
    let mut algo_reports = Vec::new();
    let mut pradet_edges: Option<Refinement> = None;
    for &a in &settings.algos {
        let mut changed: BTreeSet<Test> = BTreeSet::new();
        let (planned, ran) = if a == Algo::Pradet {
            let mut r = Refinement::new(access_or_empty);
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
            pradet_edges = Some(r);
            (ran + pending, ran)
        } else {
            let schedules = algo::schedules(a, &ids, access_or_empty, settings.params)?;
            let batch: Vec<Job> = schedules.iter().map(|s| (s.clone(), 0)).collect();
            let runs = exec.run_batch(a.name(), &batch);
            let mut ran = 0;
            for (s, run) in schedules.iter().zip(&runs) {
                if let Some(run) = run {
                    ran += 1;
                    changed.extend(st.absorb(s, run, Some(a)));
                }
            }
            (schedules.len(), ran)
        };
        algo_reports.push(AlgoReport {
            algo: a.name().to_string(),
            schedules: planned,
            runs: ran,
            complete: ran == planned,
            changed: changed.iter().map(|&t| ids[t].clone()).collect(),
        });
    }

    // Candidates: tests with two distinct outcomes, or a change when run twice.
    let order_candidates: Vec<Test> = (0..n).filter(|&t| st.seen[t].len() >= 2).collect();
    let self_candidates: Vec<Test> = (0..n)
        .filter(|&t| st.seen[t].len() < 2 && st.twice[t].is_some())
        .collect();
    let mut per_test_runs: Vec<HashSet<Job>> = vec![HashSet::new(); n];

    // Confirmation: every order that showed a distinct outcome, and every twice-run, again.
    let reruns = settings.reruns;
    let mut batch: Vec<Job> = Vec::new();
    for &t in &order_candidates {
        for s in &st.seen[t] {
            for rep in 1..=reruns {
                batch.push((s.schedule.clone(), rep));
                per_test_runs[t].insert((s.schedule.clone(), rep));
            }
        }
    }
    for (twice, runs) in st.twice.iter().zip(per_test_runs.iter_mut()).take(n) {
        if let Some(tw) = twice {
            for rep in 1..=reruns {
                batch.push((tw.schedule.clone(), rep));
                runs.insert((tw.schedule.clone(), rep));
            }
        }
    }
    let confirm_runs = exec.run_batch("confirm", &batch);
    let lookup: std::collections::HashMap<Job, Option<Arc<Run>>> =
        batch.iter().cloned().zip(confirm_runs).collect();

    /// The re-runs of one order for one test: what was expected and what came back.
    fn confirm(
        lookup: &std::collections::HashMap<Job, Option<Arc<Run>>>,
        schedule: &Schedule,
        t: Test,
        occurrence: usize,
        expected: &Outcome,
        reruns: u32,
    ) -> (Vec<Observed>, bool, bool) {
        let mut observed = Vec::new();
        let mut missing = false;
        for rep in 1..=reruns {
            match lookup.get(&(schedule.clone(), rep)).cloned().flatten() {
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

    let mut verdicts: Vec<(Test, VerdictReport)> = Vec::new();
    let mut confirmed: Vec<(Test, Vec<Confirmation>)> = Vec::new();
    let self_confirmed = |t: Test| -> Option<bool> {
        // Some(true): confirmed self-dependent; Some(false): disagreement; None: no twice-run
        // change, or missing re-runs.
        let tw = st.twice[t].as_ref()?;
        let (a, da, ma) = confirm(&lookup, &tw.schedule, t, 0, &tw.first, reruns);
        let (b, db, mb) = confirm(&lookup, &tw.schedule, t, 1, &tw.second, reruns);
        let _ = (a, b);
        if da || db {
            Some(false)
        } else if ma || mb {
            None
        } else {
            Some(true)
        }
    };

    let default_res = |t: Test| Res::from_observed(&st.reference[t]);
    let found_by = |t: Test| -> Vec<String> {
        st.found_by[t]
            .iter()
            .map(|a| a.name().to_string())
            .collect()
    };
    let blank =
        |t: Test, verdict: Verdict, witness: Vec<String>, witness_outcome: Res| VerdictReport {
            test: ids[t].clone(),
            verdict,
            default_outcome: default_res(t),
            isolated_outcome: None,
            order_caused_failure: false,
            masked_failure: false,
            self_dependent: false,
            witness,
            witness_outcome,
            polluters: Vec::new(),
            state_setters: Vec::new(),
            findings: Vec::new(),
            found_by: found_by(t),
            confirmation: Vec::new(),
            runs: 0,
            note: None,
        };

    for &t in &order_candidates {
        let mut confirmations = Vec::new();
        let mut nd: Option<Vec<String>> = None;
        let mut missing = false;
        for s in &st.seen[t] {
            let (observed, disagreed, miss) =
                confirm(&lookup, &s.schedule, t, 0, &s.outcome, reruns);
            missing |= miss;
            if disagreed && nd.is_none() {
                nd = Some(names(&s.schedule));
            }
            confirmations.push(Confirmation {
                order: names(&s.schedule),
                expected: Res::from_outcome(&s.outcome),
                observed: observed.iter().map(Res::from_observed).collect(),
                agreed: !disagreed && !miss,
            });
        }
        if let Some(order) = nd {
            let mut v = blank(t, Verdict::NonDeterministic, order, default_res(t));
            v.note = Some("an order re-run gave a different outcome: the result changes with the order held fixed".into());
            v.confirmation = confirmations;
            verdicts.push((t, v));
        } else if missing {
            let mut v = blank(
                t,
                Verdict::Inconclusive,
                names(&st.seen[t][0].schedule),
                default_res(t),
            );
            v.note = Some("a re-run gave no result (timeout, crash or budget)".into());
            v.confirmation = confirmations;
            verdicts.push((t, v));
        } else {
            confirmed.push((t, confirmations));
        }
    }
    for &t in &self_candidates {
        let tw = st.twice[t].clone().expect("a self candidate ran twice");
        let (verdict, note) = match self_confirmed(t) {
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
        let mut v = blank(
            t,
            verdict,
            names(&tw.schedule),
            Res::from_outcome(&tw.second),
        );
        v.self_dependent = verdict == Verdict::SelfDependent;
        v.note = Some(note.into());
        v.isolated_outcome = Some(Res::from_outcome(&tw.first));
        verdicts.push((t, v));
    }

    // Each confirmed test alone: the isolated outcome decides victim or brittle.
    let iso_batch: Vec<Job> = confirmed.iter().map(|(t, _)| (vec![*t], 0)).collect();
    let iso_runs = exec.run_batch("isolate", &iso_batch);
    for ((t, confirmations), iso) in confirmed.into_iter().zip(iso_runs) {
        per_test_runs[t].insert((vec![t], 0));
        let isolated = iso.as_ref().and_then(|r| r.results[0].clone().ok());
        let Some(isolated) = isolated else {
            let mut v = blank(
                t,
                Verdict::Inconclusive,
                vec![ids[t].clone()],
                default_res(t),
            );
            v.note = Some("no result when run alone".into());
            v.confirmation = confirmations;
            verdicts.push((t, v));
            continue;
        };
        let seen_outcomes: Vec<Outcome> = st.seen[t].iter().map(|s| s.outcome.clone()).collect();
        let default_outcome = st.reference[t].as_ref().ok();
        let c = classify(&isolated, &seen_outcomes, default_outcome);
        // Minimize every outcome other than the isolated one over the tests before `t`.
        let mut findings: Vec<(usize, Finding, Vec<Test>)> = Vec::new();
        for &i in &c.findings {
            let seen = &st.seen[t][i];
            let pos = seen
                .schedule
                .iter()
                .position(|&u| u == t)
                .expect("t is in its schedule");
            let prefix: Vec<Test> = seen.schedule[..pos].to_vec();
            let target = seen.outcome.clone();
            let mut spent: Vec<Job> = Vec::new();
            let m = ddmin::ddmin(&prefix, |cands| {
                let jobs: Vec<Job> = cands
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
                            Some(Ok(o)) if o == target => Trial::Reproduced,
                            Some(Ok(_)) => Trial::Other,
                            _ => Trial::Unresolved,
                        },
                        None => Trial::Unresolved,
                    })
                    .collect()
            });
            per_test_runs[t].extend(spent);
            let mut order = m.items.clone();
            order.push(t);
            findings.push((
                i,
                Finding {
                    outcome: Res::from_outcome(&target),
                    order: names(&order),
                    before: names(&m.items),
                    one_minimal: m.one_minimal,
                    found_in_order_of: seen.schedule.len(),
                    found_by: seen
                        .algo
                        .map_or("default".to_string(), |a| a.name().to_string()),
                },
                m.items,
            ));
        }
        let main = findings
            .iter()
            .find(|(i, _, _)| *i == c.main)
            .expect("the main finding is minimized");
        let (witness, witness_outcome, main_items, one_minimal) = (
            main.1.order.clone(),
            main.1.outcome.clone(),
            main.2.clone(),
            main.1.one_minimal,
        );
        let (polluters, setters) = match c.verdict {
            Verdict::Brittle => {
                let failing: Vec<Vec<Test>> = findings
                    .iter()
                    .filter(|(_, f, _)| f.outcome.is_fail())
                    .map(|(_, _, items)| items.clone())
                    .collect();
                (brittle_polluters(&main_items, &failing), main_items.clone())
            }
            _ => (main_items.clone(), Vec::new()),
        };
        let default_fails = matches!(st.reference[t], Ok(Outcome::Fail { .. }));
        let default_passes = matches!(st.reference[t], Ok(Outcome::Pass));
        let mut v = blank(t, c.verdict, witness, witness_outcome);
        v.isolated_outcome = Some(Res::from_outcome(&isolated));
        v.order_caused_failure =
            c.verdict == Verdict::Victim && isolated.is_pass() && default_fails;
        v.masked_failure = c.verdict == Verdict::Brittle && default_passes;
        v.self_dependent = self_confirmed(t) == Some(true);
        v.polluters = names(&polluters);
        v.state_setters = names(&setters);
        v.findings = findings.into_iter().map(|(_, f, _)| f).collect();
        v.confirmation = confirmations;
        if !one_minimal {
            v.note = Some("the witness is not 1-minimal: removing one of its tests kept the outcome in a re-run".into());
        }
        verdicts.push((t, v));
    }
    verdicts.sort_by_key(|(t, _)| *t);
    let verdicts: Vec<VerdictReport> = verdicts
        .into_iter()
        .map(|(t, mut v)| {
            v.runs = per_test_runs[t].len();
            v
        })
        .collect();

    let dependencies = access.map(|a| {
        let field_names = |fs: &[usize]| fs.iter().map(|&f| a.fields[f].clone()).collect();
        Dependencies {
            data: algo::data_dependences(a)
                .into_iter()
                .map(|d| DataDependenceReport {
                    kind: d.kind.name().to_string(),
                    reader: ids[d.reader].clone(),
                    writer: ids[d.writer].clone(),
                    fields: field_names(&d.fields),
                })
                .collect(),
            pradet: pradet_edges
                .as_ref()
                .map(|r| {
                    r.edges
                        .iter()
                        .map(|e| PradetEdgeReport {
                            dependent: ids[e.dependent].clone(),
                            on: ids[e.on].clone(),
                            fields: field_names(&e.fields),
                            status: e.state.name().to_string(),
                            schedule: e.schedule.as_ref().map(|s| names(s)),
                        })
                        .collect()
                })
                .unwrap_or_default(),
        }
    });

    let count = |v: Verdict| verdicts.iter().filter(|r| r.verdict == v).count();
    let summary = Summary {
        tests: n,
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
        runs: exec.runs_used(),
        executed: exec.executed,
        reused: exec.reused,
    };
    Ok(OdReport {
        schema: OD_SCHEMA.to_string(),
        runner: settings.runner.clone(),
        tests: ids.clone(),
        settings: Settings {
            algorithms: settings
                .algos
                .iter()
                .map(|a| a.name().to_string())
                .collect(),
            k: settings.params.k,
            trials: settings.params.trials,
            seed: settings.params.seed,
            reruns,
            timeout_seconds: settings.timeout_seconds,
        },
        summary,
        algorithms: algo_reports,
        verdicts,
        dependencies,
        problems: exec.problems().to_vec(),
        budget: BudgetReport {
            limit_seconds: settings.budget_seconds,
            exhausted: exec.budget_exhausted,
            not_run: exec.not_run,
        },
    })
}
