//! The engine: reads a bundle's tests in two streaming passes and runs phase 1 on them, so
//! that memory does not grow with the suite (docs/performance.md). It is the only caller of
//! the trace reader's segment scanner; the phases it drives do no IO.
//!
//! Pass 1 reads the failing tests (the scanner drops every other test's bytes unparsed) and
//! analyzes them: that gives the crash statements and crash variables. Pass 2 reads the
//! passing tests on worker threads, each worker checking and replaying whole tests, and keeps
//! only the def-use associations that reach a crash statement on a crash variable: the only
//! ones theta is made of. Results are merged on the calling thread in bundle order, so the
//! analysis is the same for any number of threads. `paf validate` is one checking pass
//! ([`check`]) over every test.

mod interest;
mod merge;

use rustc_hash::{FxHashMap, FxHashSet};
use std::path::Path;

use crate::analysis::facts::{self, Facts, LineMap};
use crate::analysis::{self, Failure, Replay, Unanalyzed};
use crate::progress::Progress;
use crate::ranking::coverage::DuaTable;
use crate::trace::scan::{self, Keep, RawSegment};
use crate::trace::{
    Bundle, Dua, LocalSymbols, Outcome, Problem, StatementTable, Symbols, TestIds, TestTrace,
    assemble,
};
use interest::{Interest, NamedDua};
use merge::Merge;

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
    /// Gather the evaluation's per-test [`Facts`] while reading (`paf eval`).
    pub facts: bool,
    /// Tests whose failure alone joins the analysis (`rank --od`: masked failures), read from
    /// the bundle's `isolated.jsonl`; every test id is then kept.
    pub isolated: Vec<String>,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            max_covering: 20,
            all_duas: false,
            all_ids: false,
            facts: false,
            isolated: Vec::new(),
        }
    }
}

/// Threads that read a bundle. Results never depend on it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Jobs(usize);

impl Jobs {
    /// One thread per core.
    pub fn all_cores() -> Jobs {
        Jobs(std::thread::available_parallelism().map_or(1, |n| n.get()))
    }

    /// `n` threads (at least one); 1: everything on the calling thread.
    pub fn new(n: usize) -> Jobs {
        Jobs(n.max(1))
    }

    /// Worker threads besides the calling thread: none for one job.
    fn workers(self) -> usize {
        if self.0 > 1 { self.0 } else { 0 }
    }
}

/// Everything learned from the tests (phase 1 and the coverage of phase 3).
#[derive(Debug)]
pub struct Analysis {
    /// The bundle's symbols and every name met in the tests that the analysis refers to.
    pub symbols: Symbols,
    pub test_ids: TestIds,
    pub outcomes: Vec<Outcome>,
    pub failures: Vec<Failure>,
    pub unanalyzed: Vec<Unanalyzed>,
    /// The DUAs of interest (all of them with [`Options::all_duas`]) and their coverage.
    pub duas: DuaTable,
    pub events: u64,
    /// With [`Options::facts`]: what the evaluation's baselines read of each test.
    pub facts: Option<Facts>,
    /// The tests of [`Options::isolated`] whose isolated failure joined the failures (by test
    /// index, in the order of the isolated file): masked failures.
    pub masked: Vec<usize>,
}

impl Analysis {
    pub fn failing(&self) -> usize {
        self.outcomes
            .iter()
            .filter(|&&o| o == Outcome::Fail)
            .count()
    }
}

/// Every crash statement's use of a crash variable, sorted and without repeats: the uses theta
/// is made of, for which a static analysis computes the reaching definitions
/// (docs/algorithm.md, "Static DUAs").
fn crash_uses_of(
    failures: &[Failure],
    symbols: &Symbols,
    statements: &StatementTable,
) -> Vec<CrashUse> {
    let mut uses: Vec<CrashUse> = failures
        .iter()
        .flat_map(|f| {
            f.vars.iter().map(move |v| CrashUse {
                stmt: statements.get(f.crash_stmt).id,
                var: v.var.display(symbols),
            })
        })
        .collect();
    uses.sort();
    uses.dedup();
    uses
}

/// The crash uses of a bundle's failing tests from pass 1 alone: the passing tests are not read
/// (`paf trace java` asks this of every bundle it writes).
pub fn crash_uses(
    bundle: &Bundle,
    jobs: Jobs,
    progress: &mut dyn Progress,
) -> Result<Vec<CrashUse>, Vec<Problem>> {
    let first = pass_one(bundle, None, jobs, progress)?;
    let mut segments: Vec<_> = first.results.into_iter().collect();
    segments.sort_by_key(|(ordinal, _)| *ordinal);
    let problems: Vec<Problem> = segments
        .into_iter()
        .flat_map(|(_, results)| results)
        .filter_map(Result::err)
        .flatten()
        .collect();
    if !problems.is_empty() {
        return Err(problems);
    }
    Ok(crash_uses_of(
        &first.failures,
        &first.symbols,
        &bundle.tables.statements,
    ))
}

/// A crash statement (by the bundle's statement id) and a crash variable used there.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, serde::Serialize)]
pub struct CrashUse {
    pub stmt: u64,
    pub var: String,
}

/// What one test contributed, as the passes hand it to the merge.
struct Tested {
    index: usize,
    outcome: Outcome,
    events: u64,
    /// DUAs kept, in the engine's symbols.
    duas: Vec<Dua>,
    /// With [`Options::all_duas`]: DUAs whose names the engine's symbols lacked.
    named: Vec<NamedDua>,
    /// With [`Options::facts`], of a passing test: its body's calls with entry values.
    entries: Vec<(String, crate::trace::EntryValues)>,
    /// With [`Options::facts`], of a passing test: the lines it covered.
    covered: Vec<u32>,
}

impl Tested {
    fn of(test: &TestTrace) -> Tested {
        Tested {
            index: test.index,
            outcome: test.outcome,
            events: test.events.len() as u64,
            duas: Vec::new(),
            named: Vec::new(),
            entries: Vec::new(),
            covered: Vec::new(),
        }
    }
}

type Results<T> = Vec<Result<T, Vec<Problem>>>;

/// A replay error as a problem at the event's line.
fn replay(test: &TestTrace, path: &Path) -> Result<Replay, Vec<Problem>> {
    analysis::replay(test)
        .map_err(|e| vec![Problem::at(path, test.event_lines[e.event], e.message)])
}

/// What pass 1 learned: the failing tests' analyses and the results of their segments.
struct First {
    symbols: Symbols,
    /// Each failing segment's results, by segment ordinal, for pass 2's merge.
    results: FxHashMap<usize, Results<Tested>>,
    failures: Vec<Failure>,
    unanalyzed: Vec<Unanalyzed>,
    /// DUAs the failing tests exercised: they join theta but cover nothing.
    duas: FxHashSet<Dua>,
    facts: Vec<facts::FailingTest>,
}

/// Pass 1: the failing tests, analyzed on the calling thread (the scanner has a thread of its
/// own), interning names into a copy of the bundle's symbols.
fn pass_one(
    bundle: &Bundle,
    lines: Option<&LineMap>,
    jobs: Jobs,
    progress: &mut dyn Progress,
) -> Result<First, Vec<Problem>> {
    let tables = &bundle.tables;
    let path = bundle.tests.path();
    let scanner = bundle.tests.scan(Keep::Failing).map_err(|p| vec![p])?;
    let read = scanner.bytes_read();
    let mut first = First {
        symbols: tables.symbols.clone(),
        results: FxHashMap::default(),
        failures: Vec::new(),
        unanalyzed: Vec::new(),
        duas: FxHashSet::default(),
        facts: Vec::new(),
    };
    scan::map_segments(
        scanner,
        jobs.workers().min(1),
        || (),
        |(), seg| seg,
        |seg| {
            if seg.bytes.is_none() {
                return;
            }
            let done = assemble(&seg, path, &mut first.symbols, &tables.statements)
                .into_iter()
                .map(|test| {
                    let test = test?;
                    let replay = replay(&test, path)?;
                    first.analyze(&test, &replay, &tables.statements, lines);
                    Ok(Tested::of(&test))
                })
                .collect();
            first.results.insert(seg.ordinal, done);
            let items = first.failures.len() + first.unanalyzed.len();
            progress.advance(scan::load(&read), items as u64);
        },
    );
    Ok(first)
}

impl First {
    /// Phase 1 on one failing test: a failure for the flow-sets, or a reason it is unanalyzed.
    fn analyze(
        &mut self,
        test: &TestTrace,
        replay: &Replay,
        statements: &StatementTable,
        lines: Option<&LineMap>,
    ) {
        self.duas.extend(replay.duas());
        let analyzed = analysis::analyze_failure(test, replay, statements, &self.symbols);
        if let Some(lines) = lines {
            let failure = analyzed.as_ref().ok();
            let f = facts::failing(test, replay, failure, statements, lines, &self.symbols);
            self.facts.push(f);
        }
        match analyzed {
            Ok(failure) => self.failures.push(failure),
            Err(reason) => self.unanalyzed.push(Unanalyzed {
                test: test.index,
                exception: test.exception.as_ref().map(|e| e.kind.clone()),
                reason,
            }),
        }
    }
}

/// A failure of pass 1b, whose test index is still the isolated file's: where it went and
/// the test's id.
struct Isolated {
    failure: Option<usize>,
    unanalyzed: Option<usize>,
    id: String,
}

/// Pass 1b (`rank --od`): the failing tests of `isolated.jsonl` that `wanted` names (none
/// without `--od`, and the file is not read), analyzed
/// as pass 1 analyzes failures (so that pass 2 keeps the DUAs their crash variables need).
/// Their test indices are fixed once pass 2 has every id ([`remap_isolated`]).
fn isolated_pass(
    bundle: &Bundle,
    wanted: &[String],
    first: &mut First,
) -> Result<Vec<Isolated>, Vec<Problem>> {
    let Some(file) = bundle.isolated.as_ref().filter(|_| !wanted.is_empty()) else {
        return Ok(Vec::new());
    };
    let tables = &bundle.tables;
    let path = file.path();
    let wanted: FxHashSet<&str> = wanted.iter().map(String::as_str).collect();
    let mut taken: FxHashSet<String> = FxHashSet::default();
    let mut found = Vec::new();
    let mut problems = Vec::new();
    let scanner = file.scan(Keep::Failing).map_err(|p| vec![p])?;
    scan::map_segments(
        scanner,
        0,
        || (),
        |(), seg| seg,
        |seg| {
            if seg.bytes.is_none() {
                return;
            }
            for test in assemble(&seg, path, &mut first.symbols, &tables.statements) {
                let test = match test {
                    Ok(t) if wanted.contains(t.id.as_str()) && !taken.contains(&t.id) => t,
                    Ok(_) => continue,
                    Err(mut p) => {
                        problems.append(&mut p);
                        continue;
                    }
                };
                let replay = match replay(&test, path) {
                    Ok(r) => r,
                    Err(mut p) => {
                        problems.append(&mut p);
                        continue;
                    }
                };
                let (f, u) = (first.failures.len(), first.unanalyzed.len());
                first.analyze(&test, &replay, &tables.statements, None);
                found.push(Isolated {
                    failure: (first.failures.len() > f).then_some(f),
                    unanalyzed: (first.unanalyzed.len() > u).then_some(u),
                    id: test.id.clone(),
                });
                taken.insert(test.id.clone());
            }
        },
    );
    if problems.is_empty() {
        Ok(found)
    } else {
        Err(problems)
    }
}

/// Gives pass 1b's failures the index of their test in the bundle; a test the bundle does
/// not hold leaves the analysis. The indices of the tests that joined.
fn remap_isolated(
    found: &[Isolated],
    ids: &TestIds,
    failures: &mut Vec<Failure>,
    unanalyzed: &mut Vec<Unanalyzed>,
) -> Vec<usize> {
    let mut joined = Vec::new();
    let mut drop_f = FxHashSet::default();
    let mut drop_u = FxHashSet::default();
    for iso in found {
        match ids.find(&iso.id) {
            Some(ix) => {
                if let Some(f) = iso.failure {
                    failures[f].test = ix;
                }
                if let Some(u) = iso.unanalyzed {
                    unanalyzed[u].test = ix;
                }
                joined.push(ix);
            }
            None => {
                drop_f.extend(iso.failure);
                drop_u.extend(iso.unanalyzed);
            }
        }
    }
    let mut i = 0;
    failures.retain(|_| {
        i += 1;
        !drop_f.contains(&(i - 1))
    });
    let mut i = 0;
    unanalyzed.retain(|_| {
        i += 1;
        !drop_u.contains(&(i - 1))
    });
    joined
}

/// Pass 2's work on one segment (on a worker thread): check, replay, select DUAs, and with
/// `lines` (eval's facts) note the calls and the covered lines of a passing test.
fn pass_two(
    seg: &RawSegment,
    path: &Path,
    symbols: &mut LocalSymbols,
    statements: &StatementTable,
    interest: &Interest,
    lines: Option<&LineMap>,
) -> Results<Tested> {
    assemble(seg, path, symbols, statements)
        .into_iter()
        .map(|test| {
            let test = test?;
            let replay = replay(&test, path)?;
            let (duas, named) = interest.select(&replay, symbols);
            let (entries, covered) = match lines {
                Some(lines) if test.outcome == Outcome::Pass => (
                    facts::passing(&test, |m| symbols.name(m).to_string()),
                    lines.covered(&test),
                ),
                _ => (Vec::new(), Vec::new()),
            };
            Ok(Tested {
                duas,
                named,
                entries,
                covered,
                ..Tested::of(&test)
            })
        })
        .collect()
}

/// Reads and analyzes every test of the bundle with `jobs` threads. All problems found are
/// returned together.
pub fn analyze(
    bundle: &Bundle,
    options: &Options,
    jobs: Jobs,
    progress: &mut dyn Progress,
) -> Result<Analysis, Vec<Problem>> {
    let size = bundle.tests.size();
    progress.grow(2 * size);
    // Eval's facts count coverage by source line (facts::LineMap).
    let lines = options
        .facts
        .then(|| LineMap::new(&bundle.tables.statements));
    let mut first = pass_one(bundle, lines.as_ref(), jobs, progress)?;
    let isolated = isolated_pass(bundle, &options.isolated, &mut first)?;

    // What pass 2 keeps: the DUAs that reach a crash statement on a crash variable.
    let statements = &bundle.tables.statements;
    let interest = Interest::of(&first.failures, statements.len(), options.all_duas);
    let mut duas = DuaTable::new(options.max_covering);
    for &dua in &bundle.tables.static_duas {
        if interest.wants(&dua) {
            duas.add_static(dua);
        }
    }
    let failing_duas: Vec<Dua> = first
        .duas
        .iter()
        .copied()
        .filter(|d| interest.wants(d))
        .collect();
    duas.add_failing(&failing_duas);

    // Pass 2: every other test, checked and replayed on the workers, merged in bundle order.
    let path = bundle.tests.path();
    let keep_ids = options.all_ids || !options.isolated.is_empty();
    let (mut merge, scanner) = Merge::start(&bundle.tests, Keep::Rest, keep_ids, progress, size)?;
    let mut symbols = first.symbols;
    let shared = symbols.clone();
    let mut outcomes = Vec::new();
    let mut events = 0;
    let mut facts = Facts {
        failing: std::mem::take(&mut first.facts),
        passing_coverage: vec![0; lines.as_ref().map_or(0, LineMap::len)],
        ..Facts::default()
    };
    let mut changed = false;
    scan::map_segments(
        scanner,
        jobs.workers(),
        || LocalSymbols::new(&shared),
        |local, mut seg| {
            let done = pass_two(&seg, path, local, statements, &interest, lines.as_ref());
            seg.bytes = None;
            (seg, done)
        },
        |(seg, done)| {
            // A failing test's results are pass 1's; a failing test pass 1 did not see means
            // the file changed in between.
            let done = match seg.failing() {
                true => first.results.remove(&seg.ordinal).unwrap_or_else(|| {
                    changed = true;
                    done
                }),
                false => done,
            };
            for t in merge.take(&seg, done, seg.failing()) {
                events += t.events;
                outcomes.push(t.outcome);
                facts.passing_entries.extend(t.entries);
                if options.facts && t.outcome == Outcome::Pass {
                    facts.add_passing_coverage(&t.covered);
                }
                if t.outcome == Outcome::Pass {
                    let mut kept = t.duas;
                    kept.extend(t.named.iter().map(|d| d.intern(&mut symbols)));
                    if duas.add_passing(t.index, &kept) {
                        merge.keep(t.index, &seg);
                    }
                }
            }
            merge.tick(outcomes.len());
        },
    );
    let test_ids = unchanged(
        merge.finish(&bundle.tests),
        changed || !first.results.is_empty(),
        path,
    )?;
    let masked = remap_isolated(
        &isolated,
        &test_ids,
        &mut first.failures,
        &mut first.unanalyzed,
    );
    Ok(Analysis {
        symbols,
        test_ids,
        outcomes,
        failures: first.failures,
        unanalyzed: first.unanalyzed,
        duas,
        events,
        facts: lines.map(|lines| Facts { lines, ..facts }),
        masked,
    })
}

/// Pass 2's ids, unless the tests file changed between the passes (`changed`).
fn unchanged(
    test_ids: Result<TestIds, Vec<Problem>>,
    changed: bool,
    path: &Path,
) -> Result<TestIds, Vec<Problem>> {
    let changed = changed.then(|| {
        Problem::in_file(
            path,
            "the file changed while it was read: expected it to stay the same during the run",
        )
    });
    match (test_ids, changed) {
        (Ok(ids), None) => Ok(ids),
        (Ok(_), Some(p)) => Err(vec![p]),
        (Err(mut problems), changed) => {
            problems.extend(changed);
            Err(problems)
        }
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
pub fn check(
    bundle: &Bundle,
    jobs: Jobs,
    progress: &mut dyn Progress,
) -> Result<Checked, Vec<Problem>> {
    check_file(bundle, &bundle.tests, jobs, progress)
}

/// [`check`] of the bundle's `isolated.jsonl` (`None` without one): the same rules, its own
/// test ids.
pub fn check_isolated(
    bundle: &Bundle,
    jobs: Jobs,
    progress: &mut dyn Progress,
) -> Option<Result<Checked, Vec<Problem>>> {
    let file = bundle.isolated.as_ref()?;
    Some(check_file(bundle, file, jobs, progress))
}

fn check_file(
    bundle: &Bundle,
    file: &crate::trace::TestsFile,
    jobs: Jobs,
    progress: &mut dyn Progress,
) -> Result<Checked, Vec<Problem>> {
    let path = file.path();
    let tables = &bundle.tables;
    progress.grow(file.size());
    let (mut merge, scanner) = Merge::start(file, Keep::All, false, progress, 0)?;
    let mut checked = Checked {
        tests: 0,
        failing: 0,
        events: 0,
    };
    scan::map_segments(
        scanner,
        jobs.workers(),
        || LocalSymbols::new(&tables.symbols),
        |symbols, mut seg| {
            let done: Results<(Outcome, u64)> = assemble(&seg, path, symbols, &tables.statements)
                .into_iter()
                .map(|test| {
                    let test = test?;
                    replay(&test, path)?;
                    Ok((test.outcome, test.events.len() as u64))
                })
                .collect();
            seg.bytes = None;
            (seg, done)
        },
        |(seg, done)| {
            for (outcome, events) in merge.take(&seg, done, false) {
                checked.tests += 1;
                checked.failing += usize::from(outcome == Outcome::Fail);
                checked.events += events;
            }
            merge.tick(checked.tests);
        },
    );
    merge.finish(file).map(|_| checked)
}
