//! Drives the phases over a bundle: streams tests from `trace` through `dataflow` into the DUA
//! table, then groups, scores and ranks. The phases themselves do no IO; this module only
//! pulls tests from the reader.

use crate::coverage::DuaTable;
use crate::dataflow::{self, Dua, Failure, VarName};
use crate::flowset::{self, FlowSet};
use crate::rank;
use crate::score::{self, Score};
use crate::trace::{Bundle, Outcome, Problem, TestIds};

/// Analysis settings that change results.
#[derive(Clone, Debug)]
pub struct Options {
    /// At most this many covering passing tests are kept per DUA (the count is always exact).
    pub max_covering: usize,
}

impl Default for Options {
    fn default() -> Self {
        Options { max_covering: 20 }
    }
}

/// A failing test PAF could not analyze, and why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Unanalyzed {
    pub test: usize,
    pub exception: Option<String>,
    pub reason: String,
}

/// Everything learned from one pass over the tests (phases 1 and the coverage of phase 3).
#[derive(Debug)]
pub struct Analysis {
    pub test_ids: TestIds,
    pub outcomes: Vec<Outcome>,
    pub failures: Vec<Failure>,
    pub unanalyzed: Vec<Unanalyzed>,
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

/// Told after each test how far reading has got (the command line draws a progress bar).
pub trait Progress {
    /// `bytes`: of the tests file read so far; `tests`: tests read so far.
    fn tick(&mut self, bytes: u64, tests: usize);
}

/// No progress reports.
impl Progress for () {
    fn tick(&mut self, _: u64, _: usize) {}
}

/// Reads every test of the bundle once. All problems found are returned together.
pub fn analyze(bundle: &mut Bundle, options: &Options) -> Result<Analysis, Vec<Problem>> {
    analyze_with(bundle, options, &mut ())
}

/// [`analyze`], reporting progress to `progress`.
pub fn analyze_with(
    bundle: &mut Bundle,
    options: &Options,
    progress: &mut dyn Progress,
) -> Result<Analysis, Vec<Problem>> {
    let mut duas = DuaTable::new(options.max_covering);
    let statics: Vec<_> = bundle.static_duas.clone();
    for s in statics {
        let text = bundle.symbols.name(s.var).to_string();
        let var = VarName::parse(&text, &mut bundle.symbols);
        duas.add_static(Dua {
            def: s.def,
            use_: s.use_,
            var,
        });
    }
    let mut analysis = Analysis {
        test_ids: TestIds::default(),
        outcomes: Vec::new(),
        failures: Vec::new(),
        unanalyzed: Vec::new(),
        duas,
        events: 0,
    };
    let mut problems = Vec::new();
    let tests_path = bundle.tests_path().to_path_buf();
    let mut reader = bundle.tests().map_err(|p| vec![p])?;
    let mut seen = 0;
    while let Some(item) = reader.next() {
        seen += 1;
        progress.tick(reader.bytes_read(), seen);
        let test = match item {
            Ok(test) => test,
            Err(mut found) => {
                problems.append(&mut found);
                continue;
            }
        };
        let replay = match dataflow::replay(&test) {
            Ok(replay) => replay,
            Err(e) => {
                problems.push(Problem::at(
                    &tests_path,
                    test.event_lines[e.event],
                    e.message,
                ));
                continue;
            }
        };
        analysis.events += test.events.len() as u64;
        let exercised = replay.duas();
        match test.outcome {
            Outcome::Pass => analysis.duas.add_passing(test.index, &exercised),
            Outcome::Fail => {
                analysis.duas.add_failing(&exercised);
                match dataflow::analyze_failure(
                    &test,
                    &replay,
                    reader.statements(),
                    reader.symbols(),
                ) {
                    Ok(failure) => analysis.failures.push(failure),
                    Err(reason) => analysis.unanalyzed.push(Unanalyzed {
                        test: test.index,
                        exception: test.exception.as_ref().map(|e| e.kind.clone()),
                        reason,
                    }),
                }
            }
        }
        analysis.outcomes.push(test.outcome);
    }
    // With no problems, every test begun was read whole, so the ids match the outcomes.
    analysis.test_ids = reader.into_ids();
    if problems.is_empty() {
        Ok(analysis)
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
