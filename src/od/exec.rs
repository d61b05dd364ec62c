//! Runs batches of schedules: each distinct (schedule, repetition) once, in parallel on `jobs`
//! workers, until the budget runs out; every finished run is appended to a journal so that a
//! later invocation with the same output resumes instead of starting over. Results come back
//! in batch order, so what the analysis concludes never depends on timing. How far it has got
//! goes to a [`Progress`] (runs to make, runs made, the phase under way).
//!
//! With `--batch N` a runner process gets up to N schedules (consecutive ones of a batch,
//! never depending on `-j`), which it isolates itself (the Java runner: a class loader per
//! schedule); [`Executor::run_fresh`] still runs one schedule per process, for the edges'
//! confirmation. With a shard, [`Executor::run_planned`] runs only the shard's schedules;
//! [`Executor::preload`] takes in other shards' journals (`od merge`).

use std::collections::{BTreeMap, HashMap, HashSet};
use std::fs::{File, OpenOptions};
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, mpsc};
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};

use super::report::{Res, RunProblem};
use super::runner::{self, Runner};
use super::shard::Shard;
use super::{Missing, Observed, Schedule};
use crate::progress::Progress;
use crate::trace::Problem;

/// One finished run of a schedule.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Run {
    pub results: Vec<Observed>,
    pub exit: String,
    pub problems: Vec<String>,
    pub stderr_tail: Option<String>,
    /// Positions whose test the runner reported as passing only on a re-run of its own.
    pub flaky: Vec<usize>,
}

/// A batch entry: a schedule and which repetition of it (0 for detection, 1.. for re-runs).
pub type Job = (Schedule, u32);

/// Added to the repetition of a run that must happen in a fresh process while other runs are
/// batched ([`Executor::run_fresh`]), so that the two never share a cache entry or a journal
/// record.
pub const FRESH: u32 = 1 << 16;

pub const JOURNAL_SCHEMA: &str = "paf.od-runs/1";

#[derive(Serialize, Deserialize)]
struct JournalHeader {
    journal: String,
    runner: String,
    tests: Vec<String>,
}

#[derive(Serialize, Deserialize)]
struct JournalRecord {
    order: Vec<String>,
    rep: u32,
    exit: String,
    results: Vec<Res>,
    #[serde(default)]
    problems: Vec<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    flaky: Vec<usize>,
}

pub struct Executor<'p> {
    runner: Runner,
    ids: Vec<String>,
    jobs: usize,
    /// Schedules per runner process (1: a fresh process each).
    batch: usize,
    /// Only this share of the planned schedules runs ([`Executor::run_planned`]).
    shard: Option<Shard>,
    deadline: Option<Instant>,
    pub budget_exhausted: bool,
    /// Runs the budget left unrun, by the phase that asked for them.
    pub not_run: BTreeMap<String, usize>,
    cache: HashMap<Job, Arc<Run>>,
    /// Runs the analysis used, each distinct job once.
    used: HashSet<Job>,
    journal: Option<File>,
    next_dir: AtomicU64,
    pub executed: usize,
    pub reused: usize,
    problems: Vec<RunProblem>,
    progress: &'p mut dyn Progress,
    /// Runs made so far by this executor, for `progress`.
    done: u64,
}

impl<'p> Executor<'p> {
    /// An executor over the test ids of the default order, the budget counted from now.
    pub fn new(
        runner: Runner,
        ids: Vec<String>,
        jobs: usize,
        budget: Option<Duration>,
        progress: &'p mut dyn Progress,
    ) -> Executor<'p> {
        Executor {
            runner,
            ids,
            jobs: jobs.max(1),
            batch: 1,
            shard: None,
            deadline: budget.map(|b| Instant::now() + b),
            budget_exhausted: false,
            not_run: BTreeMap::new(),
            cache: HashMap::new(),
            used: HashSet::new(),
            journal: None,
            next_dir: AtomicU64::new(0),
            executed: 0,
            reused: 0,
            problems: Vec::new(),
            progress,
            done: 0,
        }
    }

    /// Keeps a journal at `path`: runs recorded there by an earlier invocation (same runner,
    /// same tests) are reused, and new runs are appended.
    pub fn use_journal(&mut self, path: &Path) -> Result<(), Vec<Problem>> {
        let file = open_journal(path, &self.runner.command, &self.ids, &mut self.cache)?;
        self.journal = Some(file);
        Ok(())
    }

    /// Gives each runner process up to `n` schedules (`--batch`).
    pub fn set_batch(&mut self, n: usize) {
        self.batch = n.max(1);
    }

    /// Whether runner processes get several schedules each.
    pub fn batching(&self) -> bool {
        self.batch > 1
    }

    /// Runs only `shard`'s share of the planned schedules.
    pub fn set_shard(&mut self, shard: Shard) {
        self.shard = Some(shard);
    }

    /// Whether a planned job is this executor's to run (always, without a shard).
    pub fn owns(&self, job: &Job) -> bool {
        self.shard.is_none_or(|s| {
            let names: Vec<&str> = job.0.iter().map(|&t| self.ids[t].as_str()).collect();
            s.owns(&names, job.1)
        })
    }

    /// Takes in the runs of another invocation's journal (a shard's), checked to be for the
    /// same runner and tests; they are reused like the executor's own journal's.
    pub fn preload(&mut self, path: &Path) -> Result<(), Vec<Problem>> {
        load_journal(path, &self.runner.command, &self.ids, &mut self.cache)
    }

    /// The cache key of a job run by [`Executor::run_fresh`].
    pub fn fresh_key(&self, job: &Job) -> Job {
        if self.batching() {
            (job.0.clone(), job.1 | FRESH)
        } else {
            job.clone()
        }
    }

    pub fn ids(&self) -> &[String] {
        &self.ids
    }

    /// Distinct runs used so far.
    pub fn runs_used(&self) -> usize {
        self.used.len()
    }

    pub fn problems(&self) -> &[RunProblem] {
        &self.problems
    }

    /// Runs a batch (duplicates and journalled runs are not run again), several schedules per
    /// runner process when batching. `None` for a job the budget left unrun.
    pub fn run_batch(&mut self, phase: &str, batch: &[Job]) -> Vec<Option<Arc<Run>>> {
        self.run(phase, batch, !self.batching(), false)
    }

    /// Runs the planned schedules of an algorithm: with a shard, only the shard's (`None` for
    /// the others, which are not "not run" for the budget).
    pub fn run_planned(&mut self, phase: &str, batch: &[Job]) -> Vec<Option<Arc<Run>>> {
        self.run(phase, batch, !self.batching(), true)
    }

    /// Runs a batch one schedule per fresh process, even when batching (the jobs' keys are
    /// then [`Executor::fresh_key`]s; results come back in the order of `batch`).
    pub fn run_fresh(&mut self, phase: &str, batch: &[Job]) -> Vec<Option<Arc<Run>>> {
        let keyed: Vec<Job> = batch.iter().map(|j| self.fresh_key(j)).collect();
        self.run(phase, &keyed, true, false)
    }

    fn run(
        &mut self,
        phase: &str,
        batch: &[Job],
        fresh: bool,
        sharded: bool,
    ) -> Vec<Option<Arc<Run>>> {
        let mut todo: Vec<Job> = Vec::new();
        let mut seen: HashSet<&Job> = HashSet::new();
        for job in batch {
            if !self.cache.contains_key(job) {
                if (!sharded || self.owns(job)) && seen.insert(job) {
                    todo.push(job.clone());
                }
            } else if !self.used.contains(job) && seen.insert(job) {
                self.reused += 1;
            }
        }
        if !todo.is_empty() {
            self.progress.stage(phase);
            self.progress.grow(todo.len() as u64);
            let unrun = self.execute(&todo, fresh);
            if unrun > 0 {
                *self.not_run.entry(phase.to_string()).or_default() += unrun;
            }
        }
        let mut out = Vec::with_capacity(batch.len());
        for job in batch {
            let run = self.cache.get(job).cloned();
            if let Some(run) = &run
                && self.used.insert(job.clone())
            {
                self.note_problems(job, run);
            }
            out.push(run);
        }
        out
    }

    /// Lists a run the analysis uses for the first time among the problems when some test
    /// got no result or the results file had protocol problems. Runs taken from the journal
    /// are listed like fresh ones, so a resumed report lists the same problems.
    fn note_problems(&mut self, job: &Job, run: &Run) {
        let lost = run
            .results
            .iter()
            .any(|r| r.is_err() && !matches!(r, Err(Missing::Skipped)));
        if (!lost && run.problems.is_empty()) || self.problems.len() >= 50 {
            return;
        }
        self.problems.push(RunProblem {
            order: job.0.iter().map(|&t| self.ids[t].clone()).collect(),
            rep: job.1,
            exit: run.exit.clone(),
            missing: run.results.iter().filter(|r| r.is_err()).count(),
            without_result: job
                .0
                .iter()
                .zip(&run.results)
                .filter(|(_, r)| r.is_err())
                .map(|(&t, _)| self.ids[t].clone())
                .collect(),
            problems: run.problems.clone(),
            stderr_tail: run.stderr_tail.clone(),
        });
    }

    /// Runs `todo`: one schedule per process when `fresh`, else consecutive groups of up to
    /// `batch` per process, the groups shared out between the workers. How many of its jobs
    /// the budget left unrun (not started, or stopped).
    fn execute(&mut self, todo: &[Job], fresh: bool) -> usize {
        let size = if fresh { 1 } else { self.batch };
        let units: Vec<std::ops::Range<usize>> = (0..todo.len())
            .step_by(size)
            .map(|start| start..(start + size).min(todo.len()))
            .collect();
        let next = AtomicUsize::new(0);
        let (tx, rx) = mpsc::channel::<(usize, Option<runner::RunOutput>)>();
        let workers = self.jobs.min(units.len());
        let runner = &self.runner;
        let ids = &self.ids;
        let deadline = self.deadline;
        let dirs = &self.next_dir;
        let units = &units;
        let mut finished: Vec<(usize, Option<runner::RunOutput>)> = Vec::new();
        std::thread::scope(|scope| {
            for _ in 0..workers {
                let tx = tx.clone();
                let next = &next;
                scope.spawn(move || {
                    loop {
                        let u = next.fetch_add(1, Ordering::SeqCst);
                        let Some(unit) = units.get(u) else {
                            break;
                        };
                        if deadline.is_some_and(|d| Instant::now() >= d) {
                            for i in unit.clone() {
                                let _ = tx.send((i, None));
                            }
                            continue;
                        }
                        let names: Vec<Vec<&str>> = todo[unit.clone()]
                            .iter()
                            .map(|(s, _)| s.iter().map(|&t| ids[t].as_str()).collect())
                            .collect();
                        // A schedule under way when the budget has run out by more than a
                        // schedule's time limit is stopped.
                        let stop = deadline.map(|d| d + runner.timeout);
                        let outs = if names.len() == 1 {
                            let n = dirs.fetch_add(1, Ordering::SeqCst);
                            vec![runner::run(runner, &names[0], n, stop)]
                        } else {
                            super::batch::run_many(runner, &names, dirs, stop)
                        };
                        for (i, out) in unit.clone().zip(outs) {
                            let out = (out.exit != runner::Exit::Stopped).then_some(out);
                            let _ = tx.send((i, out));
                        }
                    }
                });
            }
            drop(tx);
            // Journal and progress from this thread as runs finish, so an interrupted
            // invocation keeps every run it completed.
            for (i, out) in rx {
                if let Some(out) = &out {
                    self.done += 1;
                    self.progress.advance(self.done, self.done);
                    if let Some(j) = &mut self.journal {
                        journal(j, &todo[i], ids, out);
                    }
                }
                finished.push((i, out));
            }
        });
        finished.sort_by_key(|(i, _)| *i);
        let mut unrun = 0;
        for (i, out) in finished {
            let job = todo[i].clone();
            match out {
                None => {
                    self.budget_exhausted = true;
                    unrun += 1;
                }
                Some(out) => {
                    self.executed += 1;
                    self.cache.insert(
                        job,
                        Arc::new(Run {
                            results: out.results,
                            exit: out.exit.text(),
                            problems: out.problems,
                            stderr_tail: out.stderr_tail,
                            flaky: out.flaky,
                        }),
                    );
                }
            }
        }
        unrun
    }
}

/// Appends one finished run to the journal (a run whose runner never started is not kept: it
/// says nothing about the tests).
fn journal(j: &mut File, (schedule, rep): &Job, ids: &[String], out: &runner::RunOutput) {
    if matches!(out.exit, runner::Exit::NotStarted(_)) {
        return;
    }
    let record = JournalRecord {
        order: schedule.iter().map(|&t| ids[t].clone()).collect(),
        rep: *rep,
        exit: out.exit.text(),
        results: out.results.iter().map(Res::from_observed).collect(),
        problems: out.problems.clone(),
        flaky: out.flaky.clone(),
    };
    if let Ok(line) = serde_json::to_string(&record) {
        let _ = writeln!(j, "{line}");
        let _ = j.flush();
    }
}

/// Opens (or creates) the journal, loading its runs into `cache`.
fn open_journal(
    path: &Path,
    runner: &str,
    ids: &[String],
    cache: &mut HashMap<Job, Arc<Run>>,
) -> Result<File, Vec<Problem>> {
    let cannot = |e: std::io::Error| vec![Problem::in_file(path, format!("cannot open: {e}"))];
    if path.exists() {
        load_journal(path, runner, ids, cache)?;
        OpenOptions::new().append(true).open(path).map_err(cannot)
    } else {
        let mut f = File::create(path).map_err(cannot)?;
        let header = JournalHeader {
            journal: JOURNAL_SCHEMA.to_string(),
            runner: runner.to_string(),
            tests: ids.to_vec(),
        };
        let line = serde_json::to_string(&header).map_err(|e| cannot(std::io::Error::other(e)))?;
        writeln!(f, "{line}").map_err(cannot)?;
        Ok(f)
    }
}

/// Loads a journal's runs into `cache`, after checking that it was written for `runner` and
/// the tests `ids`. A run already in `cache` (from a journal loaded before) is kept.
fn load_journal(
    path: &Path,
    runner: &str,
    ids: &[String],
    cache: &mut HashMap<Job, Arc<Run>>,
) -> Result<(), Vec<Problem>> {
    let index: HashMap<&str, usize> = ids
        .iter()
        .enumerate()
        .map(|(i, s)| (s.as_str(), i))
        .collect();
    let cannot = |e: std::io::Error| vec![Problem::in_file(path, format!("cannot open: {e}"))];
    let file = File::open(path).map_err(cannot)?;
    let mut lines = BufReader::new(file).lines();
    let header: Option<JournalHeader> = lines
        .next()
        .and_then(|l| l.ok())
        .and_then(|l| serde_json::from_str(&l).ok());
    match header {
        Some(h) if h.journal == JOURNAL_SCHEMA => {
            if h.runner != runner || h.tests != ids {
                return Err(vec![Problem::at(
                    path,
                    1,
                    "this journal was written for another runner command or test list; expected the same --runner and tests to resume (delete it to start over)",
                )]);
            }
        }
        _ => {
            return Err(vec![Problem::at(
                path,
                1,
                format!(
                    "expected a {JOURNAL_SCHEMA} journal header (delete the file to start over)"
                ),
            )]);
        }
    }
    for (no, line) in lines.enumerate() {
        let Ok(line) = line else { break };
        // A torn last line (the process was killed while writing) is simply not reused.
        let Ok(r) = serde_json::from_str::<JournalRecord>(&line) else {
            continue;
        };
        let schedule: Option<Schedule> = r
            .order
            .iter()
            .map(|id| index.get(id.as_str()).copied())
            .collect();
        let Some(schedule) = schedule else {
            return Err(vec![Problem::at(
                path,
                no as u64 + 2,
                "a run names a test that is not in the test list",
            )]);
        };
        if r.results.len() != schedule.len() || r.flaky.iter().any(|&p| p >= schedule.len()) {
            continue;
        }
        cache.entry((schedule, r.rep)).or_insert_with(|| {
            Arc::new(Run {
                results: r.results.iter().map(Res::observed).collect(),
                exit: r.exit,
                problems: r.problems,
                stderr_tail: None,
                flaky: r.flaky,
            })
        });
    }
    Ok(())
}

/// The journal that goes with an output file: `OUT.runs.jsonl`.
pub fn journal_path(output: &Path) -> PathBuf {
    let mut name = output.file_name().unwrap_or_default().to_os_string();
    name.push(".runs.jsonl");
    output.with_file_name(name)
}
