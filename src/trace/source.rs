//! The parsed records of `tests.jsonl`, in file order, from one thread or from several.
//!
//! Parsing JSON is most of the cost of reading a bundle, and each line parses on its own, so
//! with `jobs > 1` a reader thread cuts the file into batches of lines and deals them out in
//! turn to `jobs` parser threads, and the consumer takes the parsed batches back in the same
//! turn, so it sees them in file order. The records, and so everything computed from them, are
//! the same for any `jobs`. Plain threads and channels rather than a work-stealing pool: idle
//! pool threads spin, which on a two-core machine takes time from the reader and the consumer.

use std::path::{Path, PathBuf};
use std::sync::mpsc::{Receiver, SyncSender, sync_channel};
use std::thread::JoinHandle;

use super::lines::Lines;
use super::problem::Problem;
use super::raw::Record;

/// One non-blank line of `tests.jsonl`: its record, or why it has none.
// Nearly every line is a record, so boxing it to shrink the rare problem variant would only add
// an allocation per line.
#[allow(clippy::large_enum_variant)]
pub enum Item {
    Record {
        number: u64,
        record: Record<'static>,
    },
    /// A line that is not UTF-8 or not a valid record. Without a line number the file cannot
    /// be read any further.
    Problem(Problem),
}

/// Parses one line into an [`Item`].
fn parse(path: &Path, number: u64, text: &str) -> Item {
    match serde_json::from_str::<Record<'static>>(text) {
        Ok(record) => Item::Record { number, record },
        Err(e) => Item::Problem(Problem::json_record(path, number, text, &e, |s| {
            serde_json::from_str::<Record<'static>>(s).map(drop)
        })),
    }
}

/// Lines per batch: large enough that handing a batch between threads costs little, small
/// enough that a few batches in flight stay a few megabytes.
const BATCH_LINES: usize = 1024;
/// Batches in flight between two stages.
const IN_FLIGHT: usize = 2;

/// A batch of raw lines as the reader thread cut them: the text of each, or its problem.
enum RawLine {
    Text { number: u64, text: String },
    Problem(Problem),
}

/// The records of a file, in order.
pub enum Source {
    /// Parse on the calling thread.
    Inline { lines: Lines, path: PathBuf },
    /// Receive batches parsed by other threads: batch `i` from parser `i % parsers`.
    Threads {
        parsed: Vec<Receiver<Vec<Item>>>,
        next: usize,
        current: std::vec::IntoIter<Item>,
        workers: Vec<JoinHandle<()>>,
    },
}

impl Source {
    /// Reads `lines` with `jobs` parsing threads (1: everything on the calling thread).
    pub fn new(lines: Lines, jobs: usize) -> Source {
        let path = lines.path().to_path_buf();
        if jobs <= 1 {
            return Source::Inline { lines, path };
        }
        let mut to_parsers = Vec::new();
        let mut parsed = Vec::new();
        let mut workers = Vec::new();
        for _ in 0..jobs {
            let (raw_tx, raw_rx) = sync_channel::<Vec<RawLine>>(IN_FLIGHT);
            let (out_tx, out_rx) = sync_channel::<Vec<Item>>(IN_FLIGHT);
            let path = path.clone();
            workers.push(std::thread::spawn(move || {
                for batch in raw_rx {
                    if out_tx.send(parse_batch(&path, batch)).is_err() {
                        return;
                    }
                }
            }));
            to_parsers.push(raw_tx);
            parsed.push(out_rx);
        }
        workers.insert(
            0,
            std::thread::spawn(move || read_batches(lines, to_parsers)),
        );
        Source::Threads {
            parsed,
            next: 0,
            current: Vec::new().into_iter(),
            workers,
        }
    }

    /// The next item; `None` at the end of the file.
    pub fn next_item(&mut self) -> Option<Item> {
        match self {
            Source::Inline { lines, path } => match lines.next_line() {
                Ok(Some(line)) => Some(parse(path, line.number, line.text)),
                Ok(None) => None,
                Err(p) => Some(Item::Problem(p)),
            },
            Source::Threads {
                parsed,
                next,
                current,
                ..
            } => loop {
                if let Some(item) = current.next() {
                    return Some(item);
                }
                // Batches are dealt in turn, so a parser whose channel is closed when its turn
                // comes means the reader made no further batch: the end of the file.
                let from = &parsed[*next % parsed.len()];
                *next += 1;
                *current = from.recv().ok()?.into_iter();
            },
        }
    }
}

impl Drop for Source {
    fn drop(&mut self) {
        if let Source::Threads {
            parsed, workers, ..
        } = self
        {
            // Closing the channels makes the parsers stop, which makes the reader stop.
            parsed.clear();
            for w in workers.drain(..) {
                let _ = w.join();
            }
        }
    }
}

/// Parses a batch of lines, in order.
fn parse_batch(path: &Path, batch: Vec<RawLine>) -> Vec<Item> {
    batch
        .into_iter()
        .map(|raw| match raw {
            RawLine::Text { number, text } => parse(path, number, &text),
            RawLine::Problem(p) => Item::Problem(p),
        })
        .collect()
}

/// The reader thread: cuts the file into batches of lines, stopping after a fatal problem.
fn read_batches(mut lines: Lines, parsers: Vec<SyncSender<Vec<RawLine>>>) {
    for turn in 0.. {
        let out = &parsers[turn % parsers.len()];
        let mut batch = Vec::with_capacity(BATCH_LINES);
        let mut end = false;
        while batch.len() < BATCH_LINES {
            match lines.next_line() {
                Ok(Some(line)) => batch.push(RawLine::Text {
                    number: line.number,
                    text: line.text.to_string(),
                }),
                Ok(None) => {
                    end = true;
                    break;
                }
                Err(p) => {
                    end = p.line.is_none();
                    batch.push(RawLine::Problem(p));
                    if end {
                        break;
                    }
                }
            }
        }
        if (!batch.is_empty() && out.send(batch).is_err()) || end {
            return;
        }
    }
}
