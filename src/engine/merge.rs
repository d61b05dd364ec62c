//! The calling thread's side of a reading pass: segments come back from the workers in file
//! order, and the [`Merge`] makes the checks that span the file (the ledger), gathers every
//! problem, reports progress, and hands the tests that passed every check to the pass.

use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::AtomicU64;

use crate::progress::Progress;
use crate::trace::scan::{self, Keep, Marks, Scanner, Segment};
use crate::trace::{Ledger, Problem, TestIds, TestsFile};

/// At most this many problems of a tests file are kept (a broken file of millions of lines
/// would otherwise hold millions); the rest are counted in a last problem.
pub(super) const MAX_PROBLEMS: usize = 10_000;

/// The file-wide state of one pass over every segment.
pub(super) struct Merge<'p> {
    path: PathBuf,
    ledger: Ledger,
    problems: Vec<Problem>,
    /// Problems past [`MAX_PROBLEMS`], counted.
    more: u64,
    progress: &'p mut dyn Progress,
    /// Bytes read by earlier passes (progress counts both passes of `rank` as one job).
    offset: u64,
    read: Arc<AtomicU64>,
}

impl<'p> Merge<'p> {
    /// Starts a pass over `tests` keeping the bytes `keep` names; `keep_all_ids`: keep every
    /// test id, not only those [`Merge::take`] or [`Merge::keep`] are told to; `marks`: where
    /// an earlier scan of the file found its headers ([`Scanner::following`]).
    pub(super) fn start(
        tests: &TestsFile,
        keep: Keep,
        keep_all_ids: bool,
        progress: &'p mut dyn Progress,
        offset: u64,
        marks: Option<Arc<Marks>>,
    ) -> Result<(Merge<'p>, Scanner), Vec<Problem>> {
        let scanner = tests.scan(keep).map_err(|p| vec![p])?.following(marks);
        let merge = Merge {
            path: tests.path().to_path_buf(),
            ledger: Ledger::new(keep_all_ids),
            problems: Vec::new(),
            more: 0,
            progress,
            offset,
            read: scanner.bytes_read(),
        };
        Ok((merge, scanner))
    }

    /// Takes one segment's results in file order: the ledger checks its test id (keeping it if
    /// `keep_id`), problems are set aside, and the results without problems come back.
    pub(super) fn take<T>(
        &mut self,
        seg: &Segment,
        mut results: Vec<Result<T, Vec<Problem>>>,
        keep_id: bool,
    ) -> Vec<T> {
        self.ledger.record(seg, &self.path, &mut results, keep_id);
        let mut ok = Vec::with_capacity(results.len());
        for r in results {
            match r {
                Ok(t) => ok.push(t),
                Err(p) => {
                    let room = MAX_PROBLEMS.saturating_sub(self.problems.len());
                    self.more += p.len().saturating_sub(room) as u64;
                    self.problems.extend(p.into_iter().take(room));
                }
            }
        }
        ok
    }

    /// Keeps the id of test `index`, the last one taken (a passing test a report names).
    pub(super) fn keep(&mut self, index: usize, seg: &Segment) {
        self.ledger.keep(index, seg);
    }

    /// Reports how far reading has got, `items` tests taken so far.
    pub(super) fn tick(&mut self, items: usize) {
        let done = self.offset + scan::load(&self.read);
        self.progress.advance(done, items as u64);
    }

    /// Ends the pass: settles the test ids that may repeat one not kept (reading the begin
    /// records once more, rarely), and adds the problem of a file without tests. The test ids,
    /// or every problem in line order.
    pub(super) fn finish(mut self, tests: &TestsFile) -> Result<TestIds, Vec<Problem>> {
        let found = self.ledger.verify(|| tests.scan(Keep::Nothing));
        self.problems.extend(found);
        // Line order; problems of one line in the order of their messages, which does not
        // depend on the pass that found them (`validate` and `rank` list the same).
        self.problems.sort_by(|a, b| {
            (a.line.is_none(), a.line, &a.message).cmp(&(b.line.is_none(), b.line, &b.message))
        });
        if self.more > 0 {
            self.problems.push(Problem::in_file(
                &self.path,
                format!(
                    "... and {} more problems (the first {MAX_PROBLEMS} are listed)",
                    self.more
                ),
            ));
        }
        self.problems.extend(self.ledger.no_tests(&self.path));
        if self.problems.is_empty() {
            Ok(self.ledger.into_ids())
        } else {
            Err(self.problems)
        }
    }
}
