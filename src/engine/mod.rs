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

mod each;
mod interest;
mod merge;

pub use each::each_test;

use rustc_hash::{FxHashMap, FxHashSet};
use std::sync::Arc;

use crate::analysis::facts::{self, Facts, FailingTest, LineMap};
use crate::analysis::{Check, Duas, Failure, FailureReplay, Replayed, Replayer, Unanalyzed};
use crate::progress::Progress;
use crate::ranking::coverage::DuaTable;
use crate::trace::assemble::TestRecord;
use crate::trace::feed::{Feed, SegmentResults};
use crate::trace::scan::{self, EndHeader, Keep, Marks, Piece, Segment};
use crate::trace::split::Pieces;
use crate::trace::{
    Bundle, Dua, EntryValues, LocalSymbols, Outcome, Problem, Stamp, StatementTable, Symbols,
    TestIds,
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
                stmt: statements.get(v.at).id,
                var: v.var.display(symbols),
            })
        })
        .collect();
    uses.sort();
    uses.dedup();
    uses
}

/// The crash uses of a bundle's failing tests from pass 1 alone: the passing tests are not read
/// (`paf trace java` asks this of every bundle it writes, on its way to the static analysis).
///
/// With the agent's marks and more than one job, the failing tests are shared out among as
/// many threads (at most four), each reading the file at the marks and analyzing its
/// share into a copy of the bundle's symbols: a crash use is a statement id and a name, so the
/// shares' uses join into the same sorted set, and their problems, by segment, into the same
/// list. This is the only analysis left between the tests' end and the static analysis
/// (docs/performance.md, "Twenty-second round"). Without marks the file is searched, which
/// pass 1 already does on two threads, so the tests are analyzed on the calling thread.
/// Marks that do not fit the file are found out as in [`analyze`], and the file is read again
/// without them.
pub fn crash_uses(
    bundle: &Bundle,
    jobs: Jobs,
    marks: Option<Arc<Marks>>,
    progress: &mut dyn Progress,
) -> Result<Vec<CrashUse>, Vec<Problem>> {
    if let Some(marks) = marks
        && let Ok(uses) = crash_uses_by(bundle, jobs, Some(marks), progress)
    {
        return Ok(uses);
    }
    crash_uses_by(bundle, jobs, None, progress)
}

fn crash_uses_by(
    bundle: &Bundle,
    jobs: Jobs,
    marks: Option<Arc<Marks>>,
    progress: &mut dyn Progress,
) -> Result<Vec<CrashUse>, Vec<Problem>> {
    // a few threads at most: the static analysis's JVM waits for the result, and the last of
    // the tests file's compression runs beside
    let shares = if marks.is_some() { jobs.0.min(4) } else { 1 };
    let options = Options::default();
    let firsts: Vec<Result<First, Vec<Problem>>> = if shares > 1 {
        std::thread::scope(|scope| {
            let threads: Vec<_> = (1..shares)
                .map(|k| {
                    let marks = marks.clone();
                    let options = &options;
                    scope.spawn(move || {
                        let share = Share { k, of: shares };
                        pass_one_share(bundle, options, Jobs::new(1), marks, &mut (), share)
                    })
                })
                .collect();
            let mine = Share { k: 0, of: shares };
            let mut firsts = vec![pass_one_share(
                bundle,
                &options,
                Jobs::new(1),
                marks,
                progress,
                mine,
            )];
            for t in threads {
                firsts.push(t.join().unwrap_or_else(|e| std::panic::resume_unwind(e)));
            }
            firsts
        })
    } else {
        vec![pass_one(bundle, &options, jobs, marks, progress)]
    };
    let mut results = FxHashMap::default();
    let mut uses = Vec::new();
    for first in firsts {
        // a file that cannot be read fails every share alike: the first one's error
        let first = first?;
        uses.extend(crash_uses_of(
            &first.failures,
            &first.symbols,
            &bundle.tables.statements,
        ));
        // a segment's results come from the one share that analyzed it
        results.extend(first.results);
    }
    let mut segments: Vec<_> = results.into_iter().collect();
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
    uses.sort();
    uses.dedup();
    Ok(uses)
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
    entries: Vec<(String, EntryValues)>,
    /// With [`Options::facts`], of a passing test: the lines it covered.
    covered: Vec<u32>,
}

impl Tested {
    fn of(test: &TestRecord) -> Tested {
        Tested {
            index: test.index,
            outcome: test.outcome,
            events: test.events,
            duas: Vec::new(),
            named: Vec::new(),
            entries: Vec::new(),
            covered: Vec::new(),
        }
    }
}

type Results<T> = Vec<Result<T, Vec<Problem>>>;

/// What pass 1 learned: the failing tests' analyses and the results of their segments.
struct First {
    symbols: Symbols,
    /// Each failing segment's results, by segment ordinal, for pass 2's merge.
    results: FxHashMap<usize, Results<Tested>>,
    failures: Vec<Failure>,
    unanalyzed: Vec<Unanalyzed>,
    /// DUAs the failing tests exercised: they join theta but cover nothing.
    duas: FxHashSet<Dua>,
    facts: Vec<FailingTest>,
    /// With [`Options::facts`]: the lines coverage is counted on (eval's facts count coverage
    /// by source line).
    lines: Option<LineMap>,
    /// Ordinals of the failing segments, in file order.
    failing: Vec<usize>,
    /// Failing segments too large to hold, with their end records: read in a pass of their own.
    deferred: Vec<(usize, EndHeader)>,
    /// Where pass 1 found the headers, for pass 2 to follow, if the file has not changed
    /// since (its size and time of change when pass 1 began).
    marks: Option<(Arc<Marks>, Option<Stamp>)>,
}

impl First {
    /// Pass 1's marks, if the tests file is as pass 1 read it (its stamp unchanged).
    fn marks(&self, bundle: &Bundle) -> Option<Arc<Marks>> {
        let (marks, stamp) = self.marks.as_ref()?;
        (stamp.is_some() && *stamp == bundle.tests.stamp()).then(|| Arc::clone(marks))
    }
}

/// Pass 1: the failing tests, analyzed on the calling thread (the scanner has a thread of its
/// own), interning names into a copy of the bundle's symbols. A failing test too large to
/// hold, and every failing test after it, is deferred to pass 1b, which streams exactly those.
fn pass_one(
    bundle: &Bundle,
    options: &Options,
    jobs: Jobs,
    marks: Option<Arc<Marks>>,
    progress: &mut dyn Progress,
) -> Result<First, Vec<Problem>> {
    pass_one_share(bundle, options, jobs, marks, progress, Share::ALL)
}

/// Threads that decompress a zstd file with a seek table in pass 1 and 1b: one per worker, at
/// most four. Pass 1 keeps only the failing tests and the header lines, so decompressing the
/// file is most of its time, which one thread left to one core (an Ant-scale zstd bundle:
/// docs/performance.md, "Twenty-ninth round"). Pass 2 and `paf validate` parse every byte, so
/// their workers keep the cores busy, and one thread decompresses ahead of their scanner.
///
/// One thread, though, where half the file or more is in tests of [`scan::JUMP_MIN`] or more
/// by the `marks` followed: the scan then jumps from test to test (la4j), needing a frame or
/// two between jumps, and what several threads decompressed ahead is thrown away at each.
fn decompressing_threads(jobs: Jobs, marks: Option<&Marks>) -> usize {
    if marks.is_some_and(|m| in_tests_of(&m.sizes(), scan::JUMP_MIN, 2)) {
        return 1;
    }
    jobs.workers().clamp(1, 4)
}

/// Which failing tests one pass 1 analyzes: those whose segment ordinal is `k` modulo `of`.
#[derive(Clone, Copy, Debug)]
struct Share {
    k: usize,
    of: usize,
}

impl Share {
    const ALL: Share = Share { k: 0, of: 1 };

    fn has(self, ordinal: usize) -> bool {
        ordinal % self.of == self.k
    }
}

/// [`pass_one`] for the failing tests of `share` alone: the other segments' pieces are passed
/// over unread (a held segment's piece is its range in the file: nothing was copied).
fn pass_one_share(
    bundle: &Bundle,
    options: &Options,
    jobs: Jobs,
    marks: Option<Arc<Marks>>,
    progress: &mut dyn Progress,
    share: Share,
) -> Result<First, Vec<Problem>> {
    // Pass 1 keeps few bytes and its analysis is light: the scan is most of it, so it runs
    // in halves on two threads when there are two cores for it.
    let stamp = bundle.tests.stamp();
    let mut lost = None;
    let threads = decompressing_threads(jobs, marks.as_deref());
    let scanner = if let Some(marks) = marks.clone() {
        // the header lines are known: no search, so one scanner reads little but them
        bundle
            .tests
            .scan_decompressing_on(Keep::Failing, threads)
            .map(|s| {
                let (s, flag) = s.following(Some(marks)).trusting_marks();
                lost = Some(flag);
                Pieces::Whole(Box::new(s))
            })
    } else if bundle.tests.compressed() {
        bundle
            .tests
            .scan_decompressing_on(Keep::Failing, threads)
            .map(|s| Pieces::Whole(Box::new(s)))
    } else if jobs.workers() > 0 {
        bundle.tests.scan_halves(Keep::Failing)
    } else {
        bundle
            .tests
            .scan(Keep::Failing)
            .map(|s| Pieces::Whole(Box::new(s)))
    };
    let scanner = scanner.map_err(|p| vec![p])?;
    let read = scanner.bytes_read();
    let mut found = Marks::default();
    let mut first = First {
        symbols: bundle.tables.symbols.clone(),
        results: FxHashMap::default(),
        failures: Vec::new(),
        unanalyzed: Vec::new(),
        duas: FxHashSet::default(),
        facts: Vec::new(),
        lines: options
            .facts
            .then(|| LineMap::new(&bundle.tables.statements)),
        failing: Vec::new(),
        deferred: Vec::new(),
        marks: None,
    };
    let mut feed = Feed::new();
    scan::map_pieces(
        scanner,
        jobs.workers().min(1),
        || (),
        |(), piece| Some(piece),
        |piece| {
            // In this pass a kept segment is one piece, which carries its end record.
            let header = piece.end.as_ref().and_then(|s| s.first_end.clone());
            if let Some(seg) = &piece.end {
                found.add(seg);
                if seg.failing() && share.has(seg.ordinal) {
                    first.failing.push(seg.ordinal);
                    if let (true, Some(h)) = (seg.deferred, &seg.first_end) {
                        first.deferred.push((seg.ordinal, h.clone()));
                    }
                }
            }
            if share.has(piece.ordinal) {
                first.piece(piece, header, bundle, options, &mut feed);
            }
            let items = first.failures.len() + first.unanalyzed.len();
            progress.advance(scan::load(&read), items as u64);
        },
    );
    if lost.is_some_and(|l| l.load(std::sync::atomic::Ordering::Relaxed)) {
        // the marks did not fit the file after lines were skipped: the line numbers are not
        // the file's, so it is scanned again, searching
        return pass_one_share(bundle, options, jobs, None, progress, share);
    }
    first.marks = found.finish().map(|m| (m, stamp));
    if !first.deferred.is_empty() {
        pass_one_deferred(&mut first, bundle, options, jobs, progress)?;
    }
    Ok(first)
}

/// Pass 1b: the deferred failing tests, streamed in pieces, each analyzed with the end record
/// pass 1 saw.
fn pass_one_deferred(
    first: &mut First,
    bundle: &Bundle,
    options: &Options,
    jobs: Jobs,
    progress: &mut dyn Progress,
) -> Result<(), Vec<Problem>> {
    let size = bundle.tests.size();
    progress.grow(size);
    let deferred: FxHashMap<usize, EndHeader> =
        std::mem::take(&mut first.deferred).into_iter().collect();
    let ordinals: Arc<[usize]> = first
        .failing
        .iter()
        .copied()
        .filter(|o| deferred.contains_key(o))
        .collect();
    let marks = first.marks(bundle);
    let scanner = bundle
        .tests
        .scan_decompressing_on(
            Keep::Only(ordinals),
            decompressing_threads(jobs, marks.as_deref()),
        )
        .map_err(|p| vec![p])?
        .following(marks.clone());
    // In a compressed file the marks are trusted, so that the scan starts again at each
    // deferred test rather than decompressing every byte before it (a zstd file with a seek
    // table: `trace::seekable`). They are pass 1's own, of the file as it still is (its
    // stamp), so they fit it.
    let mut lost = Lost::default();
    let scanner = lost.follow(scanner, marks.is_some() && bundle.tests.compressed());
    let read = scanner.bytes_read();
    let mut feed = Feed::new();
    scan::map_pieces(
        scanner,
        jobs.workers().min(1),
        || (),
        |(), piece| Some(piece),
        |piece| {
            let header = deferred.get(&piece.ordinal).cloned();
            first.piece(piece, header, bundle, options, &mut feed);
            let items = first.failures.len() + first.unanalyzed.len();
            progress.advance(2 * size + scan::load(&read), items as u64);
        },
    );
    if lost.any() {
        return Err(vec![changed_problem(bundle.tests.path())]);
    }
    Ok(())
}

/// The sink a failing test is replayed into, from its segment's end record (`header`: the
/// exception, whether the tracer truncated the test).
fn failure_sink(
    header: Option<&EndHeader>,
    statements: &StatementTable,
    symbols: &Symbols,
    facts: bool,
) -> FailureReplay {
    FailureReplay::new(
        header.and_then(|h| h.exception.as_ref()),
        header.is_some_and(|h| h.truncated),
        statements,
        symbols,
        facts,
    )
}

impl First {
    /// One piece of pass 1 or 1b: a kept segment's test is checked, replayed and analyzed;
    /// `header` is the end record of the segment it belongs to.
    fn piece(
        &mut self,
        piece: Piece,
        header: Option<EndHeader>,
        bundle: &Bundle,
        options: &Options,
        feed: &mut Feed<FailureReplay>,
    ) {
        let statements = &bundle.tables.statements;
        let Some((seg, results)) = feed.piece(
            piece,
            bundle.tests.path(),
            &mut self.symbols,
            statements,
            |_, symbols| failure_sink(header.as_ref(), statements, symbols, options.facts),
        ) else {
            return;
        };
        // Segments whose bytes this pass dropped (passing, or deferred) give nothing.
        if results.is_empty() {
            return;
        }
        let done = results
            .into_iter()
            .map(|r| {
                r.map(|(test, replay)| {
                    let replayed = replay.finish(test.index, &self.symbols);
                    self.take(&test, replayed, statements)
                })
            })
            .collect();
        self.results.insert(seg.ordinal, done);
    }

    /// Phase 1 on one failing test: a failure for the flow-sets, or a reason it is unanalyzed.
    fn take(
        &mut self,
        test: &TestRecord,
        replayed: Replayed,
        statements: &StatementTable,
    ) -> Tested {
        self.duas.extend(replayed.duas);
        if let Some(lines) = &self.lines {
            let failure = replayed.analysis.as_ref().ok();
            self.facts.push(FailingTest {
                id: test.id.clone(),
                exception: test.exception.clone(),
                mut_entry: replayed.mut_entry,
                covered: lines.covered(replayed.stmts),
                crash_vars: failure.map(|f| facts::crash_entries(f, statements, &self.symbols)),
            });
        }
        match replayed.analysis {
            Ok(failure) => self.failures.push(failure),
            Err(reason) => self.unanalyzed.push(Unanalyzed {
                test: test.index,
                exception: test.exception.as_ref().map(|e| e.kind.clone()),
                reason,
            }),
        }
        Tested::of(test)
    }
}

/// A failure of pass 1b, whose test index is still the isolated file's: where it went and
/// the test's id.
struct Isolated {
    failure: Option<usize>,
    unanalyzed: Option<usize>,
    id: String,
}

/// Pass 1c (`rank --od`): the failing tests of `isolated.jsonl` that `options.isolated` names
/// (none without `--od`, and the file is not read), analyzed as pass 1 analyzes failures (so
/// that pass 2 keeps the DUAs their crash variables need). Their test indices are fixed once
/// pass 2 has every id ([`remap_isolated`]). A failing test of the isolated file too large to
/// hold is not analyzed here (docs/order-dependence.md): its masked failure does not join.
fn isolated_pass(
    bundle: &Bundle,
    options: &Options,
    jobs: Jobs,
    first: &mut First,
) -> Result<Vec<Isolated>, Vec<Problem>> {
    let Some(file) = bundle
        .isolated
        .as_ref()
        .filter(|_| !options.isolated.is_empty())
    else {
        return Ok(Vec::new());
    };
    let statements = &bundle.tables.statements;
    let path = file.path();
    let wanted: FxHashSet<&str> = options.isolated.iter().map(String::as_str).collect();
    let mut taken: FxHashSet<String> = FxHashSet::default();
    let mut found = Vec::new();
    let mut problems = Vec::new();
    let scanner = file.scan(Keep::Failing).map_err(|p| vec![p])?;
    let mut feed = Feed::new();
    scan::map_pieces(
        scanner,
        jobs.workers().min(1),
        || (),
        |(), piece| Some(piece),
        |piece| {
            let header = piece.end.as_ref().and_then(|s| s.first_end.clone());
            let Some((_, results)) =
                feed.piece(piece, path, &mut first.symbols, statements, |_, symbols| {
                    failure_sink(header.as_ref(), statements, symbols, options.facts)
                })
            else {
                return;
            };
            for result in results {
                let (test, replay) = match result {
                    Ok(r) => r,
                    Err(mut p) => {
                        problems.append(&mut p);
                        continue;
                    }
                };
                if !wanted.contains(test.id.as_str()) || taken.contains(&test.id) {
                    continue;
                }
                let replayed = replay.finish(test.index, &first.symbols);
                let (f, u) = (first.failures.len(), first.unanalyzed.len());
                first.take(&test, replayed, statements);
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

/// Pass 2's sink for one test: the DUAs of interest and, with facts, the test body's calls.
type Passing<'i> =
    Replayer<Duas<&'i (dyn Fn(crate::trace::StmtIx, crate::trace::VarName) -> bool + Sync)>>;

/// Pass 2's results for one test (on a worker thread): the DUAs kept, split into those in the
/// shared symbols and those spelled out, and with `gather_facts` the calls of a passing
/// test's body with entry values.
fn tested(
    test: &TestRecord,
    sink: &Passing<'_>,
    interest: &Interest,
    symbols: &LocalSymbols,
    lines: Option<&LineMap>,
) -> Tested {
    let (duas, named) = interest.split(sink.recorder.sorted(), symbols);
    let entries = match (&sink.recorder.entries, test.outcome) {
        (Some(entries), Outcome::Pass) => entries
            .iter()
            .map(|(m, v)| (symbols.name(*m).to_string(), v.clone()))
            .collect(),
        _ => Vec::new(),
    };
    let covered = match (&sink.recorder.stmts, lines, test.outcome) {
        (Some(stmts), Some(lines), Outcome::Pass) => lines.covered(stmts.iter().copied()),
        _ => Vec::new(),
    };
    Tested {
        duas,
        named,
        entries,
        covered,
        ..Tested::of(test)
    }
}

/// The DUA table before pass 2: the static DUAs and those the failing tests exercised (they
/// join theta but cover nothing), of interest.
fn theta_table(
    bundle: &Bundle,
    interest: &Interest,
    failing: &FxHashSet<Dua>,
    max_covering: usize,
) -> DuaTable {
    let mut duas = DuaTable::new(max_covering);
    for &dua in &bundle.tables.static_duas {
        if interest.wants(&dua) {
            duas.add_static(dua);
        }
    }
    let failing_duas: Vec<Dua> = failing
        .iter()
        .copied()
        .filter(|d| interest.wants(d))
        .collect();
    duas.add_failing(&failing_duas);
    duas
}

/// Tests of this many bytes or more are large for [`shares`]: several times what
/// [`scan::map_pieces`] lets its scanner deal ahead of the workers.
const LARGE_TEST: u64 = 32 << 20;
/// The size from which [`shares`] counts a test as large: [`LARGE_TEST`] but in tests
/// ([`large_tests_from`]).
static LARGE_FROM: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(LARGE_TEST);

/// Makes pass 2 count tests of `bytes` or more as large, in this process: for tests of the
/// engine, whose bundles are small, to compare compressed files read in shares with the
/// reference.
#[doc(hidden)]
pub fn large_tests_from(bytes: u64) {
    LARGE_FROM.store(bytes, std::sync::atomic::Ordering::Relaxed);
}

/// How pass 2 shares out a compressed tests file of which a quarter or more is in large tests
/// ([`LARGE_TEST`]): which of `jobs` threads owns each segment, by ordinal, largest first to
/// the share with the fewest bytes so far, each thread reading the whole file for itself
/// ([`scan::map_shares`]). `None` for one scanner dealing to the workers: a plain file, whose
/// waiting pieces cost no memory, a file without large tests, where a second decompression
/// would cost more than it frees, or no marks to measure the tests by.
fn shares(bundle: &Bundle, marks: Option<&Marks>, jobs: Jobs) -> Option<Vec<usize>> {
    let n = share_count(jobs);
    if n < 2 || !bundle.tests.compressed() {
        return None;
    }
    let sizes = marks?.sizes();
    if !mostly_large(&sizes) {
        return None;
    }
    let mut order: Vec<usize> = (0..sizes.len()).collect();
    order.sort_by_key(|&o| std::cmp::Reverse(sizes[o]));
    let mut load = vec![0u64; n];
    let mut owners = vec![0; sizes.len()];
    for o in order {
        let k = (0..n).min_by_key(|&k| load[k]).unwrap_or(0);
        owners[o] = k;
        load[k] += sizes[o];
    }
    Some(owners)
}

/// Whether large tests ([`LARGE_TEST`]) make a quarter or more of a tests file whose segments
/// have these sizes: then one scanner of a compressed file would hold the workers back.
fn mostly_large(sizes: &[u64]) -> bool {
    in_tests_of(
        sizes,
        LARGE_FROM.load(std::sync::atomic::Ordering::Relaxed),
        4,
    )
}

/// Whether tests of `from` bytes or more make one `part`th or more of a tests file whose
/// segments have these sizes (and there is at least one).
fn in_tests_of(sizes: &[u64], from: u64, part: u64) -> bool {
    let total: u64 = sizes.iter().sum();
    let large: u64 = sizes.iter().filter(|&&b| b >= from).sum();
    large > 0 && large >= total / part
}

/// How many shares [`shares`] makes: one per worker, at most four. Each share decompresses the
/// whole file and holds its own decoder and results waiting: a few megabytes and a second or so
/// of CPU per gigabyte, which many cores would multiply past the memory bound.
fn share_count(jobs: Jobs) -> usize {
    jobs.workers().min(4)
}

/// What pass 2's scan for `share` keeps: every segment but the failing ones (pass 1's) and,
/// when the file is shared out, those another share owns.
fn share_keep(failing: &[usize], owners: Option<&[usize]>, share: usize) -> Keep {
    let mut except: Vec<usize> = failing.to_vec();
    if let Some(owners) = owners {
        except.extend((0..owners.len()).filter(|&o| owners[o] != share));
        except.sort_unstable();
        except.dedup();
    }
    Keep::Except(except.into())
}

/// Pass 2's scans of the tests file, each following pass 1's `marks` and leaving out the
/// `failing` tests: one that deals to the workers, or one per share ([`shares`]); and the
/// merge, which reports progress by the first scan's bytes.
fn pass_two_scans<'p>(
    bundle: &Bundle,
    failing: &[usize],
    keep_ids: bool,
    jobs: Jobs,
    marks: Option<Arc<Marks>>,
    progress: &'p mut dyn Progress,
    offset: u64,
) -> Result<(Merge<'p>, scan::Spread<'static>, Lost), Vec<Problem>> {
    let owners = shares(bundle, marks.as_deref(), jobs);
    let (merge, scanner) = Merge::start(
        &bundle.tests,
        share_keep(failing, owners.as_deref(), 0),
        keep_ids,
        progress,
        offset,
        marks.clone(),
    )?;
    let Some(owners) = owners else {
        return Ok((
            merge,
            scan::Spread::Deal(Box::new(scanner), jobs.workers()),
            Lost::default(),
        ));
    };
    // Each share trusts the marks, which are pass 1's of the file as it still is: so it
    // passes over the tests other shares own without counting their lines, and in a zstd
    // file with a seek table starts decompressing again at its next test rather than
    // decompressing theirs (`trace::seekable`).
    let mut lost = Lost::default();
    let mut scanners: Vec<Box<dyn Iterator<Item = Piece> + Send>> =
        vec![Box::new(lost.follow(scanner, marks.is_some()))];
    for share in 1..share_count(jobs) {
        let keep = share_keep(failing, Some(&owners), share);
        let scanner = bundle.tests.scan(keep).map_err(|p| vec![p])?;
        let scanner = lost.follow(scanner.following(marks.clone()), marks.is_some());
        scanners.push(Box::new(scanner));
    }
    Ok((merge, scan::Spread::Shares(scanners, owners), lost))
}

/// The flags of the scans that trusted marks ([`scan::Scanner::trusting_marks`]): set if the
/// marks stopped fitting the file after lines were passed over uncounted.
#[derive(Default)]
struct Lost(Vec<Arc<std::sync::atomic::AtomicBool>>);

impl Lost {
    /// `scanner`, trusting the marks it follows if `trust`, its flag kept here.
    fn follow(&mut self, scanner: scan::Scanner, trust: bool) -> scan::Scanner {
        if !trust {
            return scanner;
        }
        let (scanner, flag) = scanner.trusting_marks();
        self.0.push(flag);
        scanner
    }

    fn any(&self) -> bool {
        self.0
            .iter()
            .any(|f| f.load(std::sync::atomic::Ordering::Relaxed))
    }
}

/// Reads and analyzes every test of the bundle with `jobs` threads. All problems found are
/// returned together.
///
/// With the bundle's marks (`tests.marks`: [`crate::trace::TestsFile::marks`]), pass 1 reads
/// the header lines and the failing tests alone instead of searching the whole file. Every
/// line is still parsed by one pass or the other, and a line that does not fit the marks is a
/// problem ([`crate::trace::assemble::Assembly::finish`]); so should that read find any
/// problem, the file is read again without marks, and the result, problems included, is
/// always that of a read that searches (`tests/engine.rs` checks both on wrong marks).
pub fn analyze(
    bundle: &Bundle,
    options: &Options,
    jobs: Jobs,
    progress: &mut dyn Progress,
) -> Result<Analysis, Vec<Problem>> {
    if let Some(marks) = bundle.tests.marks()
        && let Ok(analysis) = analyze_by(bundle, options, jobs, Some(marks), progress)
    {
        return Ok(analysis);
    }
    analyze_by(bundle, options, jobs, None, progress)
}

/// [`analyze`] following `marks`, without falling back to a read that searches: for tests,
/// to see that the read at the marks gives the result.
#[doc(hidden)]
pub fn analyze_at_marks(
    bundle: &Bundle,
    options: &Options,
    jobs: Jobs,
    marks: Arc<Marks>,
) -> Result<Analysis, Vec<Problem>> {
    analyze_by(bundle, options, jobs, Some(marks), &mut ())
}

/// [`analyze`], pass 1 following `marks` if given.
fn analyze_by(
    bundle: &Bundle,
    options: &Options,
    jobs: Jobs,
    marks: Option<Arc<Marks>>,
    progress: &mut dyn Progress,
) -> Result<Analysis, Vec<Problem>> {
    let size = bundle.tests.size();
    progress.grow(2 * size);
    let mut first = pass_one(bundle, options, jobs, marks, progress)?;
    let isolated = isolated_pass(bundle, options, jobs, &mut first)?;

    // What pass 2 keeps: the DUAs that reach a crash statement on a crash variable.
    let statements = &bundle.tables.statements;
    let interest = Interest::of(&first.failures, statements.len(), options.all_duas);
    let mut duas = theta_table(bundle, &interest, &first.duas, options.max_covering);

    // Pass 2: every other test, checked and replayed on the workers, merged in bundle order.
    let path = bundle.tests.path();
    // `rank --od` needs every id: an isolated failure joins the test of the same id.
    let keep_ids = options.all_ids || !options.isolated.is_empty();
    // Pass 1's marks spare pass 2 the search for headers.
    let marks = first.marks(bundle);
    let (mut merge, spread, lost) = pass_two_scans(
        bundle,
        &first.failing,
        keep_ids,
        jobs,
        marks,
        progress,
        size,
    )?;
    let mut symbols = first.symbols;
    let shared = symbols.clone();
    let mut outcomes = Vec::new();
    let mut events = 0;
    let lines = first.lines.take();
    let mut facts = Facts {
        failing: std::mem::take(&mut first.facts),
        passing_coverage: vec![0; lines.as_ref().map_or(0, LineMap::len)],
        ..Facts::default()
    };
    let mut changed = false;
    let wants = |stmt, var| interest.wants_use(stmt, var);
    let wants: &(dyn Fn(_, _) -> bool + Sync) = &wants;
    scan::map_spread(
        spread,
        || (LocalSymbols::new(&shared), Feed::new()),
        |(local, feed), piece| {
            let (seg, results) = feed.piece(piece, path, local, statements, |_, _| {
                Replayer::new(Duas::new(wants, options.facts))
            })?;
            let done: Results<Tested> = results
                .into_iter()
                .map(|r| {
                    r.map(|(test, sink)| tested(&test, &sink, &interest, local, lines.as_ref()))
                })
                .collect();
            Some((seg, done))
        },
        |(seg, done)| {
            // A failing test's results are pass 1's; a failing test pass 1 did not see means
            // the file changed in between.
            let failing = seg.failing();
            let done = match failing {
                true => first.results.remove(&seg.ordinal).unwrap_or_else(|| {
                    changed = true;
                    done
                }),
                false => done,
            };
            for t in merge.take(&seg, done, failing) {
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
    let test_ids = finished(
        merge.finish(&bundle.tests),
        changed || !first.results.is_empty() || lost.any(),
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

/// The test ids pass 2's merge gave, unless it found problems or `changed` (the file changed
/// between the passes).
fn finished(
    test_ids: Result<TestIds, Vec<Problem>>,
    changed: bool,
    path: &std::path::Path,
) -> Result<TestIds, Vec<Problem>> {
    let changed = changed.then(|| changed_problem(path));
    match (test_ids, changed) {
        (Ok(ids), None) => Ok(ids),
        (Ok(_), Some(p)) => Err(vec![p]),
        (Err(mut problems), changed) => {
            problems.extend(changed);
            Err(problems)
        }
    }
}

/// The tests file is not as an earlier read of it found it.
fn changed_problem(path: &std::path::Path) -> Problem {
    Problem::in_file(
        path,
        "the file changed while it was read: expected it to stay the same during the run",
    )
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
    // A compressed file mostly in large tests is read in shares, claimed as the scans go
    // ([`scan::Claims`]): one scanner dealing to the workers could not run past a large test
    // while a worker parses it (its bytes are copies, which the scanner deals only a few
    // megabytes ahead of the workers). Which tests are large only the bundle's marks can say
    // before the read (`paf trace java` keeps them beside a compressed tests file); without
    // them, or with small tests, one scanner deals, since each share decompresses and scans
    // the whole file (docs/performance.md, "Twenty-seventh round").
    let shares = share_count(jobs);
    let compressed = shares > 1 && file.compressed();
    // the marks are read once: those that fit a zstd file with a seek table, else the sizes
    let marks = compressed.then(|| file.marks()).flatten();
    let claimed = compressed
        && match &marks {
            Some(marks) => mostly_large(&marks.sizes()),
            None => file.sizes_hint().is_some_and(|s| mostly_large(&s)),
        };
    // The shares follow the bundle's marks when they fit the file (a zstd file with a seek
    // table), trusting them: a share then passes over the tests others claimed without
    // counting their lines, and starts decompressing again at its next test rather than
    // decompressing theirs (`trace::seekable`). Should the marks not fit, or the read find
    // any problem, the file is read again without them: the result is always that of a read
    // that searches, as in `analyze`.
    if claimed
        && let Some(marks) = marks
        && let Ok(checked) = check_file_by(bundle, file, jobs, progress, true, Some(marks))
    {
        return Ok(checked);
    }
    check_file_by(bundle, file, jobs, progress, claimed, None)
}

/// [`check_file`] in claimed shares or not, the shares trusting `marks` if given.
fn check_file_by(
    bundle: &Bundle,
    file: &crate::trace::TestsFile,
    jobs: Jobs,
    progress: &mut dyn Progress,
    claimed: bool,
    marks: Option<Arc<Marks>>,
) -> Result<Checked, Vec<Problem>> {
    let path = file.path();
    let tables = &bundle.tables;
    progress.grow(file.size());
    let shares = share_count(jobs);
    let claims = claimed.then(|| Arc::new(scan::Claims::default()));
    let keep = |share| match &claims {
        Some(c) => Keep::Claim(Arc::clone(c), share),
        None => Keep::All,
    };
    let (mut merge, scanner) = Merge::start(file, keep(0), false, progress, 0, marks.clone())?;
    let mut lost = Lost::default();
    let mut checked = Checked {
        tests: 0,
        failing: 0,
        events: 0,
    };
    let make = || (LocalSymbols::new(&tables.symbols), Feed::new());
    let work = |(symbols, feed): &mut (LocalSymbols, Feed<Replayer<Check>>), piece| {
        let (seg, results): (Segment, SegmentResults<Replayer<Check>>) =
            feed.piece(piece, path, symbols, &tables.statements, |_, _| {
                Replayer::new(Check)
            })?;
        let done: Results<(Outcome, u64)> = results
            .into_iter()
            .map(|r| r.map(|(test, _)| (test.outcome, test.events)))
            .collect();
        Some((seg, done))
    };
    let consume = |(seg, done): (Segment, Results<(Outcome, u64)>)| {
        for (outcome, events) in merge.take(&seg, done, false) {
            checked.tests += 1;
            checked.failing += usize::from(outcome == Outcome::Fail);
            checked.events += events;
        }
        merge.tick(checked.tests);
    };
    match &claims {
        Some(claims) => {
            let mut scanners: Vec<Box<dyn Iterator<Item = Piece> + Send>> =
                vec![Box::new(lost.follow(scanner, marks.is_some()))];
            for share in 1..shares {
                let scanner = file.scan(keep(share)).map_err(|p| vec![p])?;
                let scanner = lost.follow(scanner.following(marks.clone()), marks.is_some());
                scanners.push(Box::new(scanner));
            }
            scan::map_shares(scanners, |o| claims.owner(o), make, work, consume);
        }
        None => scan::map_pieces(scanner, jobs.workers(), make, work, consume),
    }
    let finished = merge.finish(file).map(|_| checked);
    if lost.any() {
        return Err(vec![changed_problem(file.path())]);
    }
    finished
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Marks of tests of these sizes, each a begin line and an end line 10 bytes before the
    /// next test.
    fn marks_of(sizes: &[u64]) -> Marks {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("tests.marks");
        let len: u64 = sizes.iter().sum();
        let mut text = format!("paf-marks 1 {len}\n");
        let mut at = 0;
        for (i, size) in sizes.iter().enumerate() {
            let line = 2 * i as u64 + 1;
            text += &format!("b {at} {line}\ne {} {}\n", at + size - 10, line + 1);
            at += size;
        }
        std::fs::write(&path, text).unwrap();
        Marks::read(&path, Some(len)).expect("marks")
    }

    #[test]
    fn pass_one_decompresses_on_one_thread_where_it_jumps_from_test_to_test() {
        const MIB: u64 = 1 << 20;
        let small = marks_of(&[100_000; 40]);
        // la4j's shape: tests of 4 MiB and more, half the file or more
        let far = marks_of(&[6 * MIB, 5 * MIB, 100_000, 100_000]);
        // a few far tests in a file mostly of small ones
        let some_far = marks_of(&[&[5 * MIB][..], &[100_000; 60][..]].concat());
        for (jobs, threads) in [(1, 1), (2, 2), (3, 3), (8, 4)] {
            let jobs = Jobs::new(jobs);
            assert_eq!(decompressing_threads(jobs, None), threads);
            assert_eq!(decompressing_threads(jobs, Some(&small)), threads);
            assert_eq!(decompressing_threads(jobs, Some(&some_far)), threads);
            assert_eq!(decompressing_threads(jobs, Some(&far)), 1);
        }
    }
}
