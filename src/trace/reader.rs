//! The sequential reader: every test of a tests file, in file order, read, checked and held
//! whole with its events on the calling thread. Memory grows with the largest test: it serves
//! tests and the reference analysis; the engine streams instead (the order filter through
//! `engine::each_test`).

use std::collections::VecDeque;
use std::path::PathBuf;

use super::assemble::assemble;
use super::ids::TestIds;
use super::ledger::Ledger;
use super::model::{StatementTable, TestTrace};
use super::problem::Problem;
use super::scan::{Piece, Scanner};
use super::symbols::Symbols;

/// Iterator over the tests of a bundle, in file order, read and checked on the calling thread.
pub struct TestReader<'t> {
    scanner: Scanner,
    path: PathBuf,
    /// The tables' symbols and the names met in the tests so far.
    symbols: Symbols,
    statements: &'t StatementTable,
    ledger: Ledger,
    pending: VecDeque<Result<TestTrace, Vec<Problem>>>,
    /// The pieces of the segment being read.
    pieces: Vec<Piece>,
    done: bool,
}

impl<'t> TestReader<'t> {
    pub(super) fn new(scanner: Scanner, symbols: Symbols, statements: &'t StatementTable) -> Self {
        TestReader {
            path: scanner.path().to_path_buf(),
            scanner,
            symbols,
            statements,
            ledger: Ledger::new(true),
            pending: VecDeque::new(),
            pieces: Vec::new(),
            done: false,
        }
    }

    /// The ids of the tests begun so far, in bundle order (all of them once the reader is
    /// done), and the symbols with every name met.
    pub fn finish(self) -> (TestIds, Symbols) {
        (self.ledger.into_ids(), self.symbols)
    }

    /// The statement table the events refer to.
    pub fn statements(&self) -> &StatementTable {
        self.statements
    }

    /// The symbols interned so far (valid between calls to `next`).
    pub fn symbols(&self) -> &Symbols {
        &self.symbols
    }
}

impl Iterator for TestReader<'_> {
    type Item = Result<TestTrace, Vec<Problem>>;

    fn next(&mut self) -> Option<Self::Item> {
        loop {
            if let Some(r) = self.pending.pop_front() {
                return Some(r);
            }
            if self.done {
                return None;
            }
            match self.scanner.next() {
                Some(piece) => {
                    let ends = piece.end.is_some();
                    self.pieces.push(piece);
                    if !ends {
                        continue;
                    }
                    let pieces = std::mem::take(&mut self.pieces);
                    let mut results =
                        assemble(&pieces, &self.path, &mut self.symbols, self.statements);
                    let seg = pieces.last().and_then(|p| p.end.as_ref());
                    // The last piece carries the segment (it was pushed with `end` set).
                    let seg = seg.expect("the last piece ends the segment");
                    self.ledger.record(seg, &self.path, &mut results, true);
                    self.pending.extend(results);
                }
                None => {
                    self.done = true;
                    return self.ledger.no_tests(&self.path).map(|p| Err(vec![p]));
                }
            }
        }
    }
}
