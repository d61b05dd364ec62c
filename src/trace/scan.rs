//! Cuts `tests.jsonl` into segments, one per test, in one cheap pass over its bytes, and runs
//! work over the segments on several threads with the results handed back in file order.
//!
//! A segment runs from a `begin` record up to the next one; the lines before the first `begin`
//! make the lead segment (ordinal 0, usually empty). Finding the `begin` and `end` records does
//! not need a JSON parser on every line: a record whose kind is `begin` or `end` holds the
//! bytes `"begin"` or `"end"`, or a backslash if the tracer escaped them, so SIMD searches for
//! those three patterns over whole chunks pick out the few candidate lines, and only those are
//! parsed (with the same parser as every other line, so the cut is exact). UTF-8 and JSON
//! checks of all other lines, and every rule of the format, are left to whoever processes a
//! segment: that is the expensive part, and it can run on any thread.
//!
//! The scanner knows a segment's class when it reaches the segment's first `end` record, so it
//! can drop the bytes of the segments a pass does not want as it goes: the engine's first pass
//! keeps only failing tests, its second pass everything else (docs/performance.md).

use std::collections::VecDeque;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc::sync_channel;

use memchr::memmem;

use super::model::Outcome;
use super::problem::Problem;
use super::raw::{Kind, Record};

/// Which segments keep their bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Keep {
    All,
    /// Segments whose test finishes with a failing (or missing) outcome.
    Failing,
    /// Every segment [`Keep::Failing`] drops.
    Rest,
    /// None: only the segments' begin records and classes are wanted.
    Nothing,
}

/// The `begin` record that starts a segment.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Begin {
    pub line: u64,
    /// `None` when the record lacks `"test"` (a problem the segment's processor reports).
    pub test: Option<String>,
}

/// A run of lines of `tests.jsonl`: a test, with any stray lines after its `end`.
#[derive(Debug)]
pub struct RawSegment {
    /// Position among the file's segments (the lead segment is 0).
    pub ordinal: usize,
    /// Number of the segment's first line.
    pub first_line: u64,
    /// `None` for the lead segment.
    pub begin: Option<Begin>,
    /// The outcome of the first `end` record after the begin, if there is one (`Some(None)`:
    /// an `end` without an outcome).
    pub first_end: Option<Option<Outcome>>,
    /// The bundle index the segment's test gets: how many tests finished before it.
    pub index: usize,
    /// The segment's bytes, `None` when the scan's [`Keep`] dropped them.
    pub bytes: Option<Vec<u8>>,
    /// The line of the `begin` that ends this segment; `None` at the end of the file.
    pub next_begin: Option<u64>,
    /// A read error that ended the file after this segment's bytes.
    pub fatal: Option<Problem>,
}

impl RawSegment {
    /// Its test reaches an `end` record (and so gets a bundle index).
    pub fn finishes(&self) -> bool {
        self.begin.as_ref().is_some_and(|b| b.test.is_some()) && self.first_end.is_some()
    }

    /// Its test finishes, failing (an `end` without an outcome counts: it is a problem either way).
    pub fn failing(&self) -> bool {
        self.finishes() && self.first_end != Some(Some(Outcome::Pass))
    }

    /// The non-blank lines of the segment in order with their numbers: each line's text, or
    /// the problem of a line that is not UTF-8.
    pub fn lines<'s>(
        &'s self,
        path: &'s Path,
    ) -> impl Iterator<Item = (u64, Result<&'s str, Problem>)> + 's {
        let bytes = self.bytes.as_deref().unwrap_or_default();
        let mut number = self.first_line;
        bytes
            .split_inclusive(|&b| b == b'\n')
            .filter_map(move |raw| {
                let n = number;
                number += 1;
                let line = trim_line_end(raw);
                if line.iter().all(u8::is_ascii_whitespace) {
                    return None;
                }
                Some((
                    n,
                    std::str::from_utf8(line).map_err(|e| Problem {
                        file: path.to_path_buf(),
                        line: Some(n),
                        column: Some(e.valid_up_to() as u64 + 1),
                        message: "not UTF-8: expected a UTF-8 encoded JSON object".to_string(),
                    }),
                ))
            })
    }
}

/// A line without its `\n` and any `\r` before it.
fn trim_line_end(mut line: &[u8]) -> &[u8] {
    while let [rest @ .., b'\n' | b'\r'] = line {
        line = rest;
    }
    line
}

/// What a candidate line turned out to be.
enum Header {
    Begin(Option<String>),
    End(Option<Outcome>),
}

/// Parses a candidate line; `None` unless it is a valid `begin` or `end` record.
fn header(line: &[u8]) -> Option<Header> {
    let text = std::str::from_utf8(trim_line_end(line)).ok()?;
    let record: Record<'_> = serde_json::from_str(text).ok()?;
    match record.k {
        Kind::Begin => Some(Header::Begin(record.test.map(|t| t.into_owned()))),
        Kind::End => Some(Header::End(record.outcome)),
        _ => None,
    }
}

/// Bytes read from the file per step.
const CHUNK: u64 = 1 << 20;

/// The segment being read.
struct Current {
    first_line: u64,
    begin: Option<Begin>,
    first_end: Option<Option<Outcome>>,
    /// Its bytes are not wanted: they are discarded as the scan goes.
    dropped: bool,
}

/// Cuts a tests file into [`RawSegment`]s, in file order.
pub struct Scanner {
    path: PathBuf,
    reader: Box<dyn Read + Send>,
    read: Arc<AtomicU64>,
    keep: Keep,
    buf: Vec<u8>,
    /// Where the current segment's bytes start in `buf` (only meaningful if it is kept).
    seg_start: usize,
    /// Bytes of `buf` already looked at; always the start of a line.
    scanned: usize,
    /// Number of the line that starts at `scanned`.
    line: u64,
    cur: Current,
    ordinal: usize,
    /// Tests that finished so far.
    finished: usize,
    ready: VecDeque<RawSegment>,
    done: bool,
    finders: [memmem::Finder<'static>; 2],
}

impl Scanner {
    /// Scans the file at `path` (decompressing a `.gz` or `.zst` file on the fly).
    pub fn open(path: &Path, keep: Keep) -> Result<Scanner, Problem> {
        let (reader, read) = super::lines::open_decoded(path)?;
        Ok(Scanner::from_reader(path, reader, read, keep))
    }

    /// Scans `reader`; `path` is only used in messages, `read` counts the bytes read.
    pub(crate) fn from_reader(
        path: &Path,
        reader: Box<dyn Read + Send>,
        read: Arc<AtomicU64>,
        keep: Keep,
    ) -> Scanner {
        let mut s = Scanner {
            path: path.to_path_buf(),
            reader,
            read,
            keep,
            buf: Vec::new(),
            seg_start: 0,
            scanned: 0,
            line: 1,
            cur: Current {
                first_line: 1,
                begin: None,
                first_end: None,
                dropped: false,
            },
            ordinal: 0,
            finished: 0,
            ready: VecDeque::new(),
            done: false,
            finders: [
                memmem::Finder::new(b"\"begin\""),
                memmem::Finder::new(b"\"end\""),
            ],
        };
        s.cur.dropped = s.decided_drop();
        s
    }

    /// A handle on the count of bytes read from the file (compressed, if it is).
    pub fn bytes_read(&self) -> Arc<AtomicU64> {
        Arc::clone(&self.read)
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Whether the current segment's bytes can be dropped already: its class is known and not
    /// wanted. The lead segment and a segment whose begin lacks an id are never failing; a test
    /// is classed at its first `end`.
    fn decided_drop(&self) -> bool {
        let failing = match &self.cur.begin {
            None => Some(false),
            Some(Begin { test: None, .. }) => Some(false),
            Some(_) => self
                .cur
                .first_end
                .map(|outcome| outcome != Some(Outcome::Pass)),
        };
        match (self.keep, failing) {
            (Keep::Nothing, _) => true,
            (Keep::All, _) | (_, None) => false,
            (Keep::Failing, Some(f)) => !f,
            (Keep::Rest, Some(f)) => f,
        }
    }

    /// Ends the current segment at `at` (an offset in `buf`, where `self.line` is the line
    /// number), queues it, and starts the next one there.
    fn close(&mut self, at: usize, next_begin: Option<u64>, fatal: Option<Problem>) {
        let mut seg = RawSegment {
            ordinal: self.ordinal,
            first_line: self.cur.first_line,
            begin: self.cur.begin.take(),
            first_end: self.cur.first_end.take(),
            index: self.finished,
            bytes: None,
            next_begin,
            fatal,
        };
        let wanted = match self.keep {
            Keep::All => true,
            Keep::Failing => seg.failing(),
            Keep::Rest => !seg.failing(),
            Keep::Nothing => false,
        };
        if wanted && !self.cur.dropped {
            seg.bytes = Some(self.buf[self.seg_start..at].to_vec());
        }
        if seg.finishes() {
            self.finished += 1;
        }
        self.ready.push_back(seg);
        self.ordinal += 1;
        self.seg_start = at;
        self.cur.first_line = self.line;
        self.cur.dropped = false;
    }

    /// Reads a chunk and scans its complete lines, queueing the segments that end in it.
    fn step(&mut self) {
        // Drop what no segment needs any more, so the buffer holds about one test.
        let from = if self.cur.dropped {
            self.scanned
        } else {
            self.seg_start
        };
        if from > 0 {
            self.buf.drain(..from);
            self.seg_start = self.seg_start.saturating_sub(from);
            self.scanned -= from;
        }
        let before = self.buf.len();
        let eof = loop {
            match (&mut self.reader).take(CHUNK).read_to_end(&mut self.buf) {
                Ok(n) => break (n as u64) < CHUNK,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(e) => {
                    let line =
                        self.line + bytecount::count(&self.buf[self.scanned..], b'\n') as u64;
                    self.scan(self.buf.len());
                    let at = self.buf.len();
                    self.close(
                        at,
                        None,
                        Some(Problem::at(&self.path, line, format!("cannot read: {e}"))),
                    );
                    self.done = true;
                    return;
                }
            }
        };
        let end = if eof {
            self.buf.len()
        } else {
            match memchr::memrchr(b'\n', &self.buf[before.max(self.scanned)..]) {
                Some(i) => before.max(self.scanned) + i + 1,
                None => return, // no complete line yet: read on
            }
        };
        self.scan(end);
        if eof {
            let at = self.buf.len();
            self.close(at, None, None);
            self.done = true;
        }
    }

    /// Scans the complete lines of `buf[scanned..end]` for begin and end records.
    fn scan(&mut self, end: usize) {
        let region = &self.buf[self.scanned..end];
        let base = self.scanned;
        let mut starts: Vec<usize> = Vec::new();
        let line_start = |p: usize| memchr::memrchr(b'\n', &region[..p]).map_or(0, |i| i + 1);
        for finder in &self.finders {
            starts.extend(finder.find_iter(region).map(line_start));
        }
        starts.extend(memchr::memchr_iter(b'\\', region).map(line_start));
        starts.sort_unstable();
        starts.dedup();
        for start in starts {
            let ls = base + start;
            self.line += bytecount::count(&self.buf[self.scanned..ls], b'\n') as u64;
            self.scanned = ls;
            let le = memchr::memchr(b'\n', &self.buf[ls..end]).map_or(end, |i| ls + i);
            match header(&self.buf[ls..le]) {
                Some(Header::Begin(test)) => {
                    let line = self.line;
                    self.close(ls, Some(line), None);
                    self.cur.begin = Some(Begin { line, test });
                    self.cur.first_end = None;
                    self.cur.dropped = self.decided_drop();
                }
                Some(Header::End(outcome))
                    if self.cur.begin.is_some() && self.cur.first_end.is_none() =>
                {
                    self.cur.first_end = Some(outcome);
                    self.cur.dropped = self.decided_drop();
                }
                Some(Header::End(_)) | None => {}
            }
        }
        self.line += bytecount::count(&self.buf[self.scanned..end], b'\n') as u64;
        self.scanned = end;
    }
}

impl Iterator for Scanner {
    type Item = RawSegment;

    fn next(&mut self) -> Option<RawSegment> {
        loop {
            if let Some(seg) = self.ready.pop_front() {
                return Some(seg);
            }
            if self.done {
                return None;
            }
            self.step();
        }
    }
}

/// Segment bytes per batch handed to a worker: large enough that handing batches between
/// threads costs little, small enough that the batches in flight stay a few megabytes.
const BATCH_BYTES: usize = 1 << 19;
/// Batches in flight to and from each worker.
const IN_FLIGHT: usize = 2;

/// Runs `work` over every segment of `scanner` and hands each result to `consume` in file
/// order. With `workers == 0` everything runs on the calling thread; otherwise the scanner runs
/// on a thread of its own and deals batches of segments in turn to `workers` threads, and the
/// calling thread takes their results back in the same turn. The results, and so everything
/// computed from them, are the same for any number of workers. Each worker builds its own
/// state with `make` (a worker-local symbol table, say).
///
/// Plain threads and bounded channels rather than a work-stealing pool: idle pool threads
/// spin, which on a two-core machine takes time from the scanner and the consumer.
pub fn map_segments<W, R: Send>(
    scanner: Scanner,
    workers: usize,
    make: impl Fn() -> W + Sync,
    work: impl Fn(&mut W, RawSegment) -> R + Sync,
    mut consume: impl FnMut(R),
) {
    if workers == 0 {
        let mut w = make();
        for seg in scanner {
            consume(work(&mut w, seg));
        }
        return;
    }
    std::thread::scope(|s| {
        let mut to_workers = Vec::new();
        let mut from_workers = Vec::new();
        for _ in 0..workers {
            let (seg_tx, seg_rx) = sync_channel::<Vec<RawSegment>>(IN_FLIGHT);
            let (out_tx, out_rx) = sync_channel::<Vec<R>>(IN_FLIGHT);
            let (make, work) = (&make, &work);
            s.spawn(move || {
                let mut w = make();
                for batch in seg_rx {
                    let out: Vec<R> = batch.into_iter().map(|seg| work(&mut w, seg)).collect();
                    if out_tx.send(out).is_err() {
                        return;
                    }
                }
            });
            to_workers.push(seg_tx);
            from_workers.push(out_rx);
        }
        s.spawn(move || {
            let mut turn = 0;
            let mut batch = Vec::new();
            let mut size = 0;
            for seg in scanner {
                size += seg.bytes.as_ref().map_or(64, Vec::len);
                batch.push(seg);
                if size >= BATCH_BYTES {
                    if to_workers[turn % workers]
                        .send(std::mem::take(&mut batch))
                        .is_err()
                    {
                        return;
                    }
                    turn += 1;
                    size = 0;
                }
            }
            if !batch.is_empty() {
                let _ = to_workers[turn % workers].send(batch);
            }
        });
        // Batches are dealt in turn, so a worker whose channel is closed when its turn comes
        // means the scanner made no further batch: the end of the file.
        for turn in 0.. {
            let Ok(out) = from_workers[turn % workers].recv() else {
                break;
            };
            out.into_iter().for_each(&mut consume);
        }
    });
}

/// The bytes read so far through a handle from [`Scanner::bytes_read`].
pub fn load(read: &AtomicU64) -> u64 {
    read.load(Ordering::Relaxed)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Scans `text` with `keep` after reading it in pieces of `chunk` bytes; one line per
    /// segment: `ordinal first_line begin=line:id end=outcome index=i next=line bytes=...`.
    fn segments(text: &str, keep: Keep) -> Vec<String> {
        let reader = Box::new(std::io::Cursor::new(text.as_bytes().to_vec()));
        Scanner::from_reader(Path::new("t.jsonl"), reader, Arc::default(), keep)
            .map(|s| {
                format!(
                    "{} @{} begin={} end={} index={} next={} bytes={:?}",
                    s.ordinal,
                    s.first_line,
                    s.begin.as_ref().map_or("-".to_string(), |b| format!(
                        "{}:{}",
                        b.line,
                        b.test.as_deref().unwrap_or("?")
                    )),
                    s.first_end.map_or("-".to_string(), |o| format!("{o:?}")),
                    s.index,
                    s.next_begin.map_or("-".to_string(), |l| l.to_string()),
                    s.bytes.as_deref().map(String::from_utf8_lossy)
                )
            })
            .collect()
    }

    fn check(text: &str, keep: Keep, expect: &str) {
        let expect: Vec<&str> = expect.trim().lines().map(str::trim).collect();
        pretty_assertions::assert_eq!(expect.join("\n"), segments(text, keep).join("\n"));
    }

    const TWO: &str = concat!(
        "{\"k\":\"begin\",\"test\":\"a\"}\n",
        "{\"k\":\"def\",\"frame\":1,\"stmt\":1,\"var\":{\"local\":\"end\"}}\n",
        "{\"k\":\"end\",\"test\":\"a\",\"outcome\":\"fail\"}\n",
        "\n",
        "{\"k\" : \"begin\", \"test\":\"b\"}\r\n",
        "{\"k\":\"end\",\"test\":\"b\",\"outcome\":\"pass\"}"
    );

    #[test]
    fn segments_start_at_begin_records_and_are_classed_by_their_first_end() {
        check(
            TWO,
            Keep::All,
            r#"0 @1 begin=- end=- index=0 next=1 bytes=Some("")
               1 @1 begin=1:a end=Some(Fail) index=0 next=5 bytes=Some("{\"k\":\"begin\",\"test\":\"a\"}\n{\"k\":\"def\",\"frame\":1,\"stmt\":1,\"var\":{\"local\":\"end\"}}\n{\"k\":\"end\",\"test\":\"a\",\"outcome\":\"fail\"}\n\n")
               2 @5 begin=5:b end=Some(Pass) index=1 next=- bytes=Some("{\"k\" : \"begin\", \"test\":\"b\"}\r\n{\"k\":\"end\",\"test\":\"b\",\"outcome\":\"pass\"}")"#,
        );
    }

    #[test]
    fn each_pass_keeps_only_its_segments() {
        check(
            TWO,
            Keep::Rest,
            r#"0 @1 begin=- end=- index=0 next=1 bytes=Some("")
               1 @1 begin=1:a end=Some(Fail) index=0 next=5 bytes=None
               2 @5 begin=5:b end=Some(Pass) index=1 next=- bytes=Some("{\"k\" : \"begin\", \"test\":\"b\"}\r\n{\"k\":\"end\",\"test\":\"b\",\"outcome\":\"pass\"}")"#,
        );
        let failing: Vec<bool> = Scanner::from_reader(
            Path::new("t"),
            Box::new(std::io::Cursor::new(TWO.as_bytes().to_vec())),
            Arc::default(),
            Keep::Failing,
        )
        .map(|s| s.bytes.is_some())
        .collect();
        assert_eq!(failing, [false, true, false]);
    }

    #[test]
    fn escaped_kinds_and_stray_lines_are_found() {
        check(
            "{\"k\":\"use\"}\n{\"k\":\"b\\u0065gin\",\"test\":\"x\"}\n{\"k\":\"\\u0065nd\",\"test\":\"x\",\"outcome\":\"pass\"}\n{\"k\":\"end\"}\n",
            Keep::All,
            r#"0 @1 begin=- end=- index=0 next=2 bytes=Some("{\"k\":\"use\"}\n")
               1 @2 begin=2:x end=Some(Pass) index=0 next=- bytes=Some("{\"k\":\"b\\u0065gin\",\"test\":\"x\"}\n{\"k\":\"\\u0065nd\",\"test\":\"x\",\"outcome\":\"pass\"}\n{\"k\":\"end\"}\n")"#,
        );
    }

    #[test]
    fn a_begin_without_an_end_does_not_finish() {
        check(
            "{\"k\":\"begin\",\"test\":\"a\"}\n{\"k\":\"begin\"}\n{\"k\":\"begin\",\"test\":\"c\"}\n{\"k\":\"end\",\"test\":\"c\",\"outcome\":\"fail\"}\n",
            Keep::Failing,
            r#"0 @1 begin=- end=- index=0 next=1 bytes=None
               1 @1 begin=1:a end=- index=0 next=2 bytes=None
               2 @2 begin=2:? end=- index=0 next=3 bytes=None
               3 @3 begin=3:c end=Some(Fail) index=0 next=- bytes=Some("{\"k\":\"begin\",\"test\":\"c\"}\n{\"k\":\"end\",\"test\":\"c\",\"outcome\":\"fail\"}\n")"#,
        );
    }

    /// Segments that straddle chunk boundaries come out whole: a file of many tests, each
    /// larger than nothing and some much larger than a chunk, is cut the same as line by line.
    #[test]
    fn tests_larger_than_a_chunk_are_whole() {
        let mut text = String::new();
        let mut want = Vec::new();
        let mut line = 1;
        for t in 0..5 {
            let events = if t % 2 == 0 { 3 } else { 30_000 };
            want.push((line, format!("t{t}")));
            text.push_str(&format!("{{\"k\":\"begin\",\"test\":\"t{t}\"}}\n"));
            for e in 0..events {
                text.push_str(&format!(
                    "{{\"k\":\"def\",\"frame\":1,\"stmt\":{e},\"var\":{{\"local\":\"x\"}},\"how\":\"const\"}}\n"
                ));
            }
            text.push_str(&format!(
                "{{\"k\":\"end\",\"test\":\"t{t}\",\"outcome\":\"pass\"}}\n"
            ));
            line += events + 2;
        }
        assert!(text.len() as u64 > 2 * CHUNK);
        let reader = Box::new(std::io::Cursor::new(text.clone().into_bytes()));
        let segs: Vec<RawSegment> =
            Scanner::from_reader(Path::new("t"), reader, Arc::default(), Keep::All).collect();
        let got: Vec<(u64, String)> = segs
            .iter()
            .filter_map(|s| s.begin.clone().map(|b| (b.line, b.test.unwrap())))
            .collect();
        assert_eq!(got, want);
        let joined: Vec<u8> = segs.iter().flat_map(|s| s.bytes.clone().unwrap()).collect();
        assert_eq!(joined, text.as_bytes());
        assert_eq!(segs.iter().filter(|s| s.finishes()).count(), 5);
    }

    #[test]
    fn results_come_back_in_file_order_for_any_number_of_workers() {
        let mut text = String::new();
        for t in 0..2000 {
            text.push_str(&format!(
                "{{\"k\":\"begin\",\"test\":\"t{t}\"}}\n{{\"k\":\"end\",\"test\":\"t{t}\",\"outcome\":\"pass\"}}\n"
            ));
        }
        let run = |workers| {
            let reader = Box::new(std::io::Cursor::new(text.clone().into_bytes()));
            let scanner = Scanner::from_reader(Path::new("t"), reader, Arc::default(), Keep::All);
            let mut out = Vec::new();
            map_segments(
                scanner,
                workers,
                || 0usize,
                |seen, seg| {
                    *seen += 1;
                    seg.ordinal
                },
                |o| out.push(o),
            );
            out
        };
        let want: Vec<usize> = (0..=2000).collect();
        for workers in [0, 1, 3] {
            assert_eq!(run(workers), want, "{workers} workers");
        }
    }
}
