//! A segment arrives in pieces: [`Feed`] checks each piece as it comes (handing the test's
//! events to the pass's sink) and, at the segment's last piece, gives the segment's results.
//! One `Feed` per thread; the pieces of a segment all come to the same one, in order.

use std::path::Path;

use super::assemble::{Assembly, EventSink, TestRecord};
use super::model::StatementTable;
use super::problem::Problem;
use super::scan::{Piece, Segment};
use super::symbols::Intern;

/// What a segment gave: its test with the sink that saw its events (if it has no problems),
/// then the problems of its stray lines; in file order.
pub type SegmentResults<S> = Vec<Result<(TestRecord, S), Vec<Problem>>>;

/// The segment being checked on this thread.
pub struct Feed<S> {
    current: Option<(usize, Assembly, S)>,
}

impl<S> Default for Feed<S> {
    fn default() -> Self {
        Feed { current: None }
    }
}

impl<S: EventSink> Feed<S> {
    pub fn new() -> Self {
        Feed::default()
    }

    /// Checks `piece`; `sink` makes the sink of a segment whose bytes arrive (from the piece
    /// that starts it, and the symbols before it). At the segment's last piece: the segment
    /// and its results (none for a segment whose bytes the scan dropped).
    pub fn piece<I: Intern>(
        &mut self,
        piece: Piece,
        path: &Path,
        symbols: &mut I,
        statements: &StatementTable,
        sink: impl FnOnce(&Piece, &I) -> S,
    ) -> Option<(Segment, SegmentResults<S>)> {
        if piece.bytes.is_some() {
            if self.current.as_ref().is_none_or(|c| c.0 != piece.ordinal) {
                self.current = Some((piece.ordinal, Assembly::new(), sink(&piece, symbols)));
            }
            if let Some((_, assembly, sink)) = &mut self.current {
                assembly.piece(&piece, path, symbols, statements, sink);
            }
        }
        let seg = piece.end?;
        let results = match self.current.take() {
            Some((ordinal, assembly, sink)) if ordinal == seg.ordinal => {
                let mut sink = Some(sink);
                assembly
                    .finish(&seg, path)
                    .into_iter()
                    .map(|r| r.map(|t| (t, sink.take())))
                    .filter_map(|r| match r {
                        Ok((t, Some(s))) => Some(Ok((t, s))),
                        // A segment has at most one test: the sink went with it.
                        Ok((_, None)) => None,
                        Err(p) => Some(Err(p)),
                    })
                    .collect()
            }
            _ => Vec::new(),
        };
        Some((seg, results))
    }
}
