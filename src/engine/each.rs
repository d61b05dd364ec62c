//! One parallel pass over every test of a bundle, for commands that need each test's events
//! gathered by a sink but no analysis (`paf od --bundle`): the same scanner, workers and
//! file-order merge as `rank` and `validate`, so the same checks and the same problems.

use crate::trace::assemble::{EventSink, TestRecord};
use crate::trace::feed::Feed;
use crate::trace::scan::{self, Keep, Piece, Segment};
use crate::trace::symbols::LocalSymbols;
use crate::trace::{Bundle, Problem};

use super::Jobs;
use super::merge::Merge;

/// Reads every test of the bundle's tests file on `jobs` threads. On a worker, each test's
/// events go through a fresh `sink()`, and its segment's lines that `pick` selects are kept
/// as text with their line numbers (a record field the checked test does not carry, such as
/// `end.statics`); `finish` makes the test's result from both. On the calling thread, `each` gets the tests in file
/// order. Any problem of the file (the same as `paf validate` reports) fails the pass, with
/// every problem in line order.
pub fn each_test<S, T>(
    bundle: &Bundle,
    jobs: Jobs,
    sink: impl Fn() -> S + Sync,
    pick: impl Fn(&str) -> bool + Sync,
    finish: impl Fn(&TestRecord, S, &[(u64, String)]) -> T + Sync,
    mut each: impl FnMut(TestRecord, T),
) -> Result<(), Vec<Problem>>
where
    S: EventSink,
    T: Send,
{
    let file = &bundle.tests;
    let path = file.path();
    let tables = &bundle.tables;
    let mut quiet = ();
    let (mut merge, scanner) = Merge::start(file, Keep::All, false, &mut quiet, 0, None)?;
    let mut taken = 0;
    scan::map_pieces(
        scanner,
        jobs.workers(),
        || (LocalSymbols::new(&tables.symbols), Feed::new(), Vec::new()),
        |(symbols, feed, picked), piece: Piece| {
            for (number, line) in piece.lines(path) {
                if let Ok(text) = line
                    && pick(text)
                {
                    picked.push((number, text.to_owned()));
                }
            }
            let (seg, results): (Segment, _) =
                feed.piece(piece, path, symbols, &tables.statements, |_, _| sink())?;
            let lines = std::mem::take(picked);
            let done: Vec<Result<(TestRecord, T), Vec<Problem>>> = results
                .into_iter()
                .map(|r| {
                    r.map(|(test, s)| {
                        let t = finish(&test, s, &lines);
                        (test, t)
                    })
                })
                .collect();
            Some((seg, done))
        },
        |(seg, done)| {
            for (test, t) in merge.take(&seg, done, false) {
                each(test, t);
                taken += 1;
            }
            merge.tick(taken);
        },
    );
    merge.finish(file).map(|_| ())
}
