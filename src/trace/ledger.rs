//! The checks that span the tests file (unique test ids, at least one test), made on its
//! segments in file order.

use std::path::Path;

use super::ids::{Pushed, TestIds};
use super::problem::Problem;
use super::scan::{Begin, Scanner, Segment};

/// The checks that span the file, made on the segments in file order: test ids are unique,
/// and the file holds at least one test. It keeps the count of tests, a hash of every id, and
/// the ids a report can name ([`TestIds`]).
#[derive(Default)]
pub struct Ledger {
    ids: TestIds,
    /// Keep every id, not only those [`Ledger::record`] or [`Ledger::keep`] are told to.
    keep_all: bool,
    found: usize,
    problems: bool,
    /// (hash, line) of begin records whose id may repeat one not kept: see [`Ledger::verify`].
    suspects: Vec<(u64, u64)>,
}

impl Ledger {
    /// A ledger that keeps every test id (`keep_all`), or only those it is told to.
    pub fn new(keep_all: bool) -> Ledger {
        Ledger {
            keep_all,
            ..Ledger::default()
        }
    }

    /// Takes one segment's results (from [`super::assemble()`], or anything shaped like them whose
    /// first entry is the segment's test): records the test id, keeping it if `keep`, and makes
    /// a repeated id a problem of that test.
    pub fn record<T>(
        &mut self,
        seg: &Segment,
        path: &Path,
        results: &mut Vec<Result<T, Vec<Problem>>>,
        keep: bool,
    ) {
        if let Some(Begin {
            line,
            test: Some(id),
        }) = &seg.begin
        {
            self.found += 1;
            match self.ids.push(id, keep || self.keep_all) {
                Pushed::New(_) => {}
                Pushed::Duplicate(_) => {
                    let dup = duplicate(path, *line, id);
                    match results.first_mut() {
                        Some(Err(problems)) => problems.insert(0, dup),
                        Some(r) => *r = Err(vec![dup]),
                        None => results.push(Err(vec![dup])),
                    }
                }
                Pushed::Unsure(_) => self.suspects.push((TestIds::hash(id), *line)),
            }
        }
        self.problems |= results.iter().any(Result::is_err);
    }

    /// Keeps the id of test `index`, the last one recorded (a passing test a report names).
    pub fn keep(&mut self, index: usize, seg: &Segment) {
        if let Some(Begin { test: Some(id), .. }) = &seg.begin {
            self.ids.keep(index, id);
        }
    }

    /// Settles the ids that may repeat an id not kept (the hash repeated): `scanner` reads the
    /// file again, parsing begin records only, and each such id that is indeed a repeat is a
    /// problem. Without such ids (nearly always) the file is not read.
    pub fn verify(&mut self, scanner: impl FnOnce() -> Result<Scanner, Problem>) -> Vec<Problem> {
        if self.suspects.is_empty() {
            return Vec::new();
        }
        let scanner = match scanner() {
            Ok(s) => s,
            Err(p) => return vec![p],
        };
        let path = scanner.path().to_path_buf();
        let lines: rustc_hash::FxHashSet<u64> = self.suspects.iter().map(|&(_, l)| l).collect();
        let hashes: rustc_hash::FxHashSet<u64> = self.suspects.iter().map(|&(h, _)| h).collect();
        let mut seen: rustc_hash::FxHashSet<String> = Default::default();
        let mut problems = Vec::new();
        for seg in scanner.filter_map(|p| p.end) {
            if let Some(Begin {
                line,
                test: Some(id),
            }) = &seg.begin
                && hashes.contains(&TestIds::hash(id))
                && !seen.insert(id.clone())
                && lines.contains(line)
            {
                problems.push(duplicate(&path, *line, id));
            }
        }
        self.problems |= !problems.is_empty();
        problems
    }

    /// The problem of a file with no test at all (reported only if nothing else was wrong).
    pub fn no_tests(&self, path: &Path) -> Option<Problem> {
        (self.found == 0 && !self.problems).then(|| {
            Problem::in_file(
                path,
                "no tests: expected at least one begin record (is the bundle empty?)",
            )
        })
    }

    /// The test ids: their count, and the ids kept, in bundle order.
    pub fn into_ids(self) -> TestIds {
        self.ids
    }
}

fn duplicate(path: &Path, line: u64, id: &str) -> Problem {
    Problem::at(
        path,
        line,
        format!("duplicate test id {id:?}: expected every test id to be unique"),
    )
}
