//! Drives the phases over a bundle in two streaming passes, then groups, scores and ranks.
//! The phases themselves do no IO; this module only pulls segments from `trace`.
//!
//! Pass 1 reads the failing tests (the scanner drops every other test's bytes unparsed) and
//! analyzes them: that gives the crash statements and crash variables. Pass 2 reads the
//! passing tests on worker threads, each worker checking and replaying whole tests, and keeps
//! only the def-use associations that reach a crash statement on a crash variable: the only
//! ones theta is made of. Results are merged on the calling thread in bundle order, so the
//! analysis is the same for any number of threads (docs/performance.md).

use rustc_hash::{FxHashMap, FxHashSet};
use std::path::Path;

use crate::coverage::DuaTable;
use crate::dataflow::{self, Dua, Failure, Replay, VarName};
use crate::flowset::{self, FlowKey, FlowSet};
use crate::rank;
use crate::score::{self, Score};
use crate::trace::scan::{self, Keep, RawSegment};
use crate::trace::{
    Bundle, Ledger, LocalSymbols, Outcome, Problem, StmtIx, Symbols, TestIds, TestTrace, assemble,
};

/// Analysis settings that change results.
#[derive(Clone, Debug)]
pub struct Options {
    /// At most this many covering passing tests are kept per DUA (the count is always exact).
    pub max_covering: usize,
    /// Keep every DUA the tests exercise, not only those that reach a crash statement on a
    /// crash variable (for `--dump duas`; scores are the same either way).
    pub all_duas: bool,
    /// Keep every test id, not only those a report names (failing tests and the passing tests
    /// listed as covering a DUA): for `paf explain`, which looks any test up.
    pub all_ids: bool,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            max_covering: 20,
            all_duas: false,
            all_ids: false,
        }
    }
}

/// A failing test PAF could not analyze, and why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Unanalyzed {
    pub test: usize,
    pub exception: Option<String>,
    pub reason: String,
}

/// Everything learned from the tests (phase 1 and the coverage of phase 3).
#[derive(Debug)]
pub struct Analysis {
    pub test_ids: TestIds,
    pub outcomes: Vec<Outcome>,
    pub failures: Vec<Failure>,
    pub unanalyzed: Vec<Unanalyzed>,
    /// The DUAs of interest (all of them with [`Options::all_duas`]) and their coverage.
    pub duas: DuaTable,
    pub events: u64,
}

impl Analysis {
    pub fn failing(&self) -> usize {
        self.outcomes
            .iter()
            .filter(|&&o| o == Outcome::Fail)
            .count()
    }
}

/// Told how far reading has got (the command line draws a progress bar).
pub trait Progress {
    /// Reading will take `total` bytes in all (each pass reads the tests file once).
    fn start(&mut self, total: u64);
    /// `bytes`: read so far, of `total`; `tests`: tests taken in so far.
    fn tick(&mut self, bytes: u64, tests: usize);
}

/// No progress reports.
impl Progress for () {
    fn start(&mut self, _: u64) {}
    fn tick(&mut self, _: u64, _: usize) {}
}

/// What one test contributed, as the passes hand it to the merge.
struct Tested {
    index: usize,
    outcome: Outcome,
    events: u64,
    /// DUAs kept, in the bundle's symbols.
    duas: Vec<Dua>,
    /// With [`Options::all_duas`]: DUAs whose variable name the bundle's symbols lacked when
    /// the pass began, spelled out so that the merge can intern them.
    named: Vec<(StmtIx, StmtIx, NamedVar)>,
}

/// A [`VarName`] with its names as text.
enum NamedVar {
    Named(String),
    Elem(Option<String>),
    Ret(String),
}

impl NamedVar {
    fn of(var: VarName, symbols: &LocalSymbols) -> NamedVar {
        match var {
            VarName::Named(s) => NamedVar::Named(symbols.name(s).to_string()),
            VarName::Elem(s) => NamedVar::Elem(s.map(|s| symbols.name(s).to_string())),
            VarName::Ret(s) => NamedVar::Ret(symbols.name(s).to_string()),
        }
    }

    fn intern(&self, symbols: &mut Symbols) -> VarName {
        match self {
            NamedVar::Named(s) => VarName::Named(symbols.intern(s)),
            NamedVar::Elem(s) => VarName::Elem(s.as_deref().map(|s| symbols.intern(s))),
            NamedVar::Ret(s) => VarName::Ret(symbols.intern(s)),
        }
    }
}

/// The DUAs pass 2 keeps.
enum Interest {
    All,
    /// Those whose (use, variable) is a crash statement and one of its crash variables.
    Of {
        /// By statement index: is it a crash statement?
        crash_stmts: Vec<bool>,
        pairs: FxHashSet<(StmtIx, VarName)>,
    },
}

impl Interest {
    fn of(failures: &[Failure], statements: usize, all: bool) -> Interest {
        if all {
            return Interest::All;
        }
        let pairs: FxHashSet<(StmtIx, VarName)> = failures
            .iter()
            .flat_map(|f| {
                FlowKey::of(f)
                    .vars
                    .into_iter()
                    .map(move |(var, _)| (f.crash_stmt, var))
            })
            .collect();
        let mut crash_stmts = vec![false; statements];
        for (stmt, _) in &pairs {
            crash_stmts[stmt.0 as usize] = true;
        }
        Interest::Of { crash_stmts, pairs }
    }

    fn wants(&self, dua: &Dua) -> bool {
        match self {
            Interest::All => true,
            Interest::Of { pairs, .. } => pairs.contains(&(dua.use_, dua.var)),
        }
    }

    /// The DUAs of a replayed test this pass keeps, sorted and distinct.
    fn select(
        &self,
        replay: &Replay,
        symbols: &LocalSymbols,
    ) -> (Vec<Dua>, Vec<(StmtIx, StmtIx, NamedVar)>) {
        let shared = |var: VarName| match var {
            VarName::Named(s) | VarName::Ret(s) | VarName::Elem(Some(s)) => symbols.is_shared(s),
            VarName::Elem(None) => true,
        };
        match self {
            Interest::All => {
                let (duas, named): (Vec<Dua>, Vec<Dua>) =
                    replay.duas().into_iter().partition(|d| shared(d.var));
                let named = named
                    .into_iter()
                    .map(|d| (d.def, d.use_, NamedVar::of(d.var, symbols)))
                    .collect();
                (duas, named)
            }
            Interest::Of { crash_stmts, pairs } => {
                // A name the bundle's symbols lacked is no crash variable's.
                let mut duas: Vec<Dua> = replay
                    .uses
                    .iter()
                    .filter(|u| crash_stmts[u.stmt.0 as usize])
                    .filter_map(|u| {
                        u.reach.map(|d| Dua {
                            def: replay.defs[d as usize].stmt,
                            use_: u.stmt,
                            var: u.var,
                        })
                    })
                    .filter(|d| shared(d.var) && pairs.contains(&(d.use_, d.var)))
                    .collect();
                duas.sort_unstable();
                duas.dedup();
                (duas, Vec::new())
            }
        }
    }
}

/// A replay error as a problem at the event's line.
fn replay(test: &TestTrace, path: &Path) -> Result<Replay, Vec<Problem>> {
    dataflow::replay(test)
        .map_err(|e| vec![Problem::at(path, test.event_lines[e.event], e.message)])
}

/// Reading threads for a bundle read with `jobs`: 0 means all on the calling thread.
fn workers(jobs: usize) -> usize {
    if jobs > 1 { jobs } else { 0 }
}

/// Reads and analyzes every test of the bundle. All problems found are returned together.
pub fn analyze(bundle: &mut Bundle, options: &Options) -> Result<Analysis, Vec<Problem>> {
    analyze_with(bundle, options, &mut ())
}

/// [`analyze`], reporting progress to `progress`.
pub fn analyze_with(
    bundle: &mut Bundle,
    options: &Options,
    progress: &mut dyn Progress,
) -> Result<Analysis, Vec<Problem>> {
    let path = bundle.tests_path().to_path_buf();
    let size = bundle.tests_size();
    let workers = workers(bundle.jobs());
    progress.start(2 * size);

    // Pass 1: the failing tests, on the calling thread (the scanner has a thread of its own).
    let scanner = bundle.scan(Keep::Failing).map_err(|p| vec![p])?;
    let read = scanner.bytes_read();
    let mut first: FxHashMap<usize, Vec<Result<Tested, Vec<Problem>>>> = FxHashMap::default();
    let mut failing_duas: FxHashSet<Dua> = FxHashSet::default();
    let mut failures = Vec::new();
    let mut unanalyzed = Vec::new();
    let mut events = 0;
    scan::map_segments(
        scanner,
        workers.min(1),
        || (),
        |(), seg| seg,
        |seg| {
            if seg.bytes.is_none() {
                return;
            }
            let tests = assemble(&seg, &path, &mut bundle.symbols, &bundle.statements);
            let done = tests
                .into_iter()
                .map(|test| {
                    let test = test?;
                    let replay = replay(&test, &path)?;
                    failing_duas.extend(replay.duas());
                    match dataflow::analyze_failure(
                        &test,
                        &replay,
                        &bundle.statements,
                        &bundle.symbols,
                    ) {
                        Ok(failure) => failures.push(failure),
                        Err(reason) => unanalyzed.push(Unanalyzed {
                            test: test.index,
                            exception: test.exception.as_ref().map(|e| e.kind.clone()),
                            reason,
                        }),
                    }
                    Ok(Tested {
                        index: test.index,
                        outcome: test.outcome,
                        events: test.events.len() as u64,
                        duas: Vec::new(),
                        named: Vec::new(),
                    })
                })
                .collect();
            first.insert(seg.ordinal, done);
            progress.tick(scan::load(&read), failures.len() + unanalyzed.len());
        },
    );

    // What pass 2 keeps: the DUAs that reach a crash statement on a crash variable.
    let interest = Interest::of(&failures, bundle.statements.len(), options.all_duas);
    let mut duas = DuaTable::new(options.max_covering);
    for s in bundle.static_duas.clone() {
        let text = bundle.symbols.name(s.var).to_string();
        let dua = Dua {
            def: s.def,
            use_: s.use_,
            var: VarName::parse(&text, &mut bundle.symbols),
        };
        if interest.wants(&dua) {
            duas.add_static(dua);
        }
    }
    let failing_duas: Vec<Dua> = failing_duas
        .into_iter()
        .filter(|d| interest.wants(d))
        .collect();
    duas.add_failing(&failing_duas);

    // Pass 2: every other test, checked and replayed on the workers, merged in bundle order.
    let scanner = bundle.scan(Keep::Rest).map_err(|p| vec![p])?;
    let read = scanner.bytes_read();
    let shared = bundle.symbols.clone();
    let mut ledger = Ledger::new(options.all_ids);
    let mut problems = Vec::new();
    let mut outcomes = Vec::new();
    let mut changed = false;
    scan::map_segments(
        scanner,
        workers,
        || LocalSymbols::new(&shared),
        |symbols, mut seg| {
            let done = pass_two(&seg, &path, symbols, &bundle.statements, &interest);
            seg.bytes = None;
            (seg, done)
        },
        |(seg, mut done): (RawSegment, Vec<Result<Tested, Vec<Problem>>>)| {
            if seg.failing() {
                match first.remove(&seg.ordinal) {
                    Some(d) => done = d,
                    None => changed = true,
                }
            }
            ledger.record(&seg, &path, &mut done, seg.failing());
            for result in done {
                match result {
                    Ok(t) => {
                        events += t.events;
                        outcomes.push(t.outcome);
                        if t.outcome == Outcome::Pass {
                            let mut kept = t.duas;
                            kept.extend(t.named.iter().map(|(def, use_, var)| Dua {
                                def: *def,
                                use_: *use_,
                                var: var.intern(&mut bundle.symbols),
                            }));
                            if duas.add_passing(t.index, &kept) {
                                ledger.keep(t.index, &seg);
                            }
                        }
                    }
                    Err(mut p) => problems.append(&mut p),
                }
            }
            progress.tick(size + scan::load(&read), outcomes.len());
        },
    );
    settle_duplicates(&mut ledger, &mut problems, bundle);
    problems.extend(ledger.no_tests(&path));
    if changed || !first.is_empty() {
        problems.push(Problem::in_file(
            &path,
            "the file changed while it was read: expected it to stay the same during the run",
        ));
    }
    if !problems.is_empty() {
        return Err(problems);
    }
    Ok(Analysis {
        test_ids: ledger.into_ids(),
        outcomes,
        failures,
        unanalyzed,
        duas,
        events,
    })
}

/// Pass 2's work on one segment (on a worker thread): check, replay, select DUAs.
fn pass_two(
    seg: &RawSegment,
    path: &Path,
    symbols: &mut LocalSymbols,
    statements: &crate::trace::StatementTable,
    interest: &Interest,
) -> Vec<Result<Tested, Vec<Problem>>> {
    assemble(seg, path, symbols, statements)
        .into_iter()
        .map(|test| {
            let test = test?;
            let replay = replay(&test, path)?;
            let (duas, named) = interest.select(&replay, symbols);
            Ok(Tested {
                index: test.index,
                outcome: test.outcome,
                events: test.events.len() as u64,
                duas,
                named,
            })
        })
        .collect()
}

/// Adds the repeated ids the ledger could not settle from hashes alone (it reads the file's
/// begin records once more), in line order among the other problems.
fn settle_duplicates(ledger: &mut Ledger, problems: &mut Vec<Problem>, bundle: &Bundle) {
    let found = ledger.verify(|| bundle.scan(Keep::Nothing));
    if !found.is_empty() {
        problems.extend(found);
        problems.sort_by_key(|p| (p.line.is_none(), p.line));
    }
}

/// What `paf validate` reports of a bundle without problems.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Checked {
    pub tests: usize,
    pub failing: usize,
    pub events: u64,
}

/// Reads every test once and checks it (every rule of the format, and a replay of its events)
/// without analyzing it: the parsing floor. All problems found are returned together.
pub fn check_with(bundle: &Bundle, progress: &mut dyn Progress) -> Result<Checked, Vec<Problem>> {
    let path = bundle.tests_path().to_path_buf();
    progress.start(bundle.tests_size());
    let scanner = bundle.scan(Keep::All).map_err(|p| vec![p])?;
    let read = scanner.bytes_read();
    let mut ledger = Ledger::new(false);
    let mut problems = Vec::new();
    let mut checked = Checked {
        tests: 0,
        failing: 0,
        events: 0,
    };
    scan::map_segments(
        scanner,
        workers(bundle.jobs()),
        || LocalSymbols::new(&bundle.symbols),
        |symbols, mut seg| {
            let done: Vec<Result<(Outcome, u64), Vec<Problem>>> =
                assemble(&seg, &path, symbols, &bundle.statements)
                    .into_iter()
                    .map(|test| {
                        let test = test?;
                        replay(&test, &path)?;
                        Ok((test.outcome, test.events.len() as u64))
                    })
                    .collect();
            seg.bytes = None;
            (seg, done)
        },
        |(seg, mut done)| {
            ledger.record(&seg, &path, &mut done, false);
            for result in done {
                match result {
                    Ok((outcome, events)) => {
                        checked.tests += 1;
                        checked.failing += usize::from(outcome == Outcome::Fail);
                        checked.events += events;
                    }
                    Err(mut p) => problems.append(&mut p),
                }
            }
            progress.tick(scan::load(&read), checked.tests);
        },
    );
    settle_duplicates(&mut ledger, &mut problems, bundle);
    problems.extend(ledger.no_tests(&path));
    if problems.is_empty() {
        Ok(checked)
    } else {
        Err(problems)
    }
}

/// Phases 2 to 4: flow-sets, their scores and their order.
#[derive(Debug)]
pub struct Ranked {
    pub sets: Vec<FlowSet>,
    pub scores: Vec<Score>,
    /// Flow-set indices in rank order.
    pub order: Vec<usize>,
}

pub fn rank(analysis: &Analysis, seed: u64) -> Ranked {
    let sets = flowset::group(&analysis.failures);
    let scores = score::score(&sets, &analysis.duas);
    let order = rank::rank(&sets, &scores, seed);
    Ranked {
        sets,
        scores,
        order,
    }
}
