//! A scan of a large plain tests file in two halves on two threads, renumbered into the one
//! scan it stands for. Pass 1 of the engine is mostly the scan of the whole file, which one
//! thread did alone (docs/performance.md, "Eighth round": on two cores it gains about 0.06 to
//! 0.1 s of 2.6 s on the Ant2-scale bundle).
//!
//! The file is cut at a `begin` record near its middle, so no segment straddles the cut. The
//! first half is scanned (mapped) on the thread that iterates, the second (read) on a thread
//! of its own, each as if it were the whole file. The second half's pieces wait, within
//! [`BUDGET`] bytes, until the first half ends (a failing test's piece as its range in the
//! file, read again when it comes out); then what the first half counted shifts them:
//! lines, segment ordinals, test indexes and, in [`Keep::Failing`], whether a failing test was
//! deferred before them. The pieces that come out are the ones a single scanner gives, field
//! for field, but that a streamed segment ([`Keep::All`]) may be cut into pieces at other
//! lines (the unit tests cut fixtures at every `begin` and compare).
//!
//! Only modes that do not name segments by ordinal can be split: [`Keep::Except`],
//! [`Keep::Only`] and [`Keep::Claim`] scan whole, as does a compressed file (which cannot be read from its middle)
//! or one smaller than [`SPLIT_MIN`].

use std::io::{self, Read, Seek, SeekFrom};
use std::os::unix::fs::FileExt;
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc::{Receiver, channel};
use std::sync::{Arc, Condvar, Mutex};
use std::thread::JoinHandle;

use super::lines::Counting;
use super::problem::Problem;
#[cfg(test)]
use super::scan::Segment;
use super::scan::{Bytes, Header, Keep, MAX_RECORD, Piece, Scanner, header};

/// Files smaller than this are scanned whole: the second thread would not pay for itself.
pub const SPLIT_MIN: u64 = 64 << 20;
/// The size from which [`Pieces::open`] splits: [`SPLIT_MIN`] but in tests ([`split_from`]).
static SPLIT_FROM: AtomicU64 = AtomicU64::new(SPLIT_MIN);

/// Makes [`Pieces::open`] split files of `bytes` or more, in this process: for tests of the
/// engine, whose bundles are small, to compare split scans with whole ones.
#[doc(hidden)]
pub fn split_from(bytes: u64) {
    SPLIT_FROM.store(bytes, Ordering::Relaxed);
}

/// How far past the middle a `begin` record is looked for; without one, the file is scanned
/// whole.
const SEARCH: u64 = 16 << 20;
/// Bytes of the second half's pieces that may wait for the first half to end. The second half
/// stops when they are reached, so memory stays bounded whatever the file holds. The gain needs
/// most of the second half's pieces to wait: when they held copies of the failing tests'
/// bytes, 8 MiB lost it all, 24 and 64 MiB did not (docs/performance.md, "Eighth round"). As
/// file ranges, the Ant2-scale bundle's second half waits in about 10 MiB.
const BUDGET: usize = 24 << 20;
/// What a piece costs besides its bytes (its segment's record, the test id), for the budget.
const PIECE_COST: usize = 512;
/// Bytes of pieces the second half sends at once.
const BATCH: usize = 1 << 20;

/// The pieces of a tests file in file order, from one scanner or from two halves.
pub enum Pieces {
    Whole(Box<Scanner>),
    Halves(Box<Halves>),
}

impl Pieces {
    /// Scans the tests file at `path` keeping the segments `keep` names, in two halves when
    /// that can be done and the file is large enough ([`SPLIT_MIN`]).
    pub fn open(path: &Path, keep: Keep) -> Result<Pieces, Problem> {
        Pieces::open_split(path, keep, SPLIT_FROM.load(Ordering::Relaxed))
    }

    /// [`Pieces::open`], splitting files of at least `min` bytes.
    fn open_split(path: &Path, keep: Keep, min: u64) -> Result<Pieces, Problem> {
        let whole = |keep| Scanner::open(path, keep).map(|s| Pieces::Whole(Box::new(s)));
        if matches!(keep, Keep::Except(_) | Keep::Only(_) | Keep::Claim(..))
            || super::lines::compressed(path)
        {
            return whole(keep);
        }
        let file = super::lines::open_regular(path)?;
        let len = file.metadata().map_or(0, |m| m.len());
        if len < min.max(2) {
            return whole(keep);
        }
        match cut(&file, len / 2, len) {
            Ok(Some(at)) => Pieces::at(path, keep, at, len),
            // A file that cannot be read here is scanned whole, which reports it.
            Ok(None) | Err(_) => whole(keep),
        }
    }

    /// The file at `path` (`len` bytes) in two halves cut at `at`; whole if a thread cannot
    /// be had for the second half (the results are the same, only later).
    fn at(path: &Path, keep: Keep, at: u64, len: u64) -> Result<Pieces, Problem> {
        match Halves::open(path, keep.clone(), at, len, BUDGET) {
            Ok(halves) => Ok(Pieces::Halves(Box::new(halves))),
            Err(_) => Scanner::open(path, keep).map(|s| Pieces::Whole(Box::new(s))),
        }
    }

    /// A handle on the count of bytes read from the file, by both halves.
    pub fn bytes_read(&self) -> Arc<AtomicU64> {
        match self {
            Pieces::Whole(s) => s.bytes_read(),
            Pieces::Halves(h) => h.first.bytes_read(),
        }
    }
}

impl Iterator for Pieces {
    type Item = Piece;

    fn next(&mut self) -> Option<Piece> {
        match self {
            Pieces::Whole(s) => s.next(),
            Pieces::Halves(h) => h.next(),
        }
    }
}

/// Where to cut `file` (`len` bytes): the start of the first line after the one `mid` falls in that a scanner
/// takes for a `begin` record (a line that holds `"begin"` and parses as one, no longer than
/// [`MAX_RECORD`]), looked for up to [`SEARCH`] bytes on. `None`: no such line.
fn cut(file: &std::fs::File, mid: u64, len: u64) -> io::Result<Option<u64>> {
    // A test is usually a few kilobytes: read a little first, more only if no begin is in it.
    let mut want = 64 << 10;
    loop {
        let end = len.min(mid + want);
        let mut region = vec![0; usize::try_from(end.saturating_sub(mid)).unwrap_or(0)];
        file.read_exact_at(&mut region, mid)?;
        if let Some(at) = first_begin(&region) {
            return Ok(Some(mid + at as u64));
        }
        if end == len || want >= SEARCH {
            return Ok(None);
        }
        want *= 4;
    }
}

/// The offset in `region` of the first line that starts in it (not at its start, which may be
/// in the middle of a line), is whole in it and is a `begin` record.
fn first_begin(region: &[u8]) -> Option<usize> {
    // The first line that starts after the region does (the one it starts in may have begun
    // before it).
    let from = memchr::memchr(b'\n', region).map(|i| i + 1)?;
    let finder = memchr::memmem::Finder::new(b"\"begin\"");
    let mut seen = from;
    for hit in finder.find_iter(&region[from..]).map(|i| from + i) {
        if hit < seen {
            continue; // a second hit on a line already looked at
        }
        let start = memchr::memrchr(b'\n', &region[from..hit]).map_or(from, |i| from + i + 1);
        // A line that runs past the region: a larger one is read, or none is found.
        let stop = memchr::memchr(b'\n', &region[hit..]).map(|i| hit + i)?;
        seen = stop + 1;
        if stop - start <= MAX_RECORD
            && matches!(header(&region[start..stop]), Some(Header::Begin(_)))
        {
            return Some(start);
        }
    }
    None
}

/// A scan in two halves: the first scanned by the iterating thread, the second by a thread of
/// its own into a queue that the first half's end drains, renumbered.
pub struct Halves {
    first: Scanner,
    /// Where the second half starts in the file.
    at: u64,
    /// The file, to read the second half's held segments from when they come out.
    file: std::fs::File,
    /// The first half's last piece so far: held back, since the last one learns where the
    /// second half begins.
    held: Option<Piece>,
    /// Set when the first half has ended: how to renumber the second's pieces.
    shift: Option<Shift>,
    /// Nothing comes after the first half: it ended on a read error, which ends the file.
    stopped: bool,
    queue: Receiver<(usize, Vec<Piece>)>,
    batch: std::vec::IntoIter<Piece>,
    budget: Arc<Budget>,
    thread: Option<JoinHandle<()>>,
}

impl Halves {
    /// The two halves of the file at `path` (`len` bytes), cut at `at`, the start of a `begin`
    /// record's line; at most `budget` bytes of the second half's pieces wait.
    ///
    /// The first half is mapped into memory, as a whole scan is; the second is read. Two
    /// halves both mapped gained nothing over one scanner (each thread mapping and faulting in
    /// windows of the same process, they slowed each other: docs/performance.md, "Eighth
    /// round"); with the second read, the split is faster and costs no more CPU.
    fn open(path: &Path, keep: Keep, at: u64, len: u64, budget: usize) -> Result<Halves, Problem> {
        let read = Arc::new(AtomicU64::new(0));
        let first = Scanner::open_range(path, keep.clone(), 0..at, Arc::clone(&read))?;
        let mut file = super::lines::open_regular(path)?;
        file.seek(SeekFrom::Start(at))
            .map_err(|e| Problem::in_file(path, format!("cannot read: {e}")))?;
        let again = file
            .try_clone()
            .map_err(|e| Problem::in_file(path, format!("cannot read: {e}")))?;
        let rest = Counting::new(file.take(len - at), Arc::clone(&read));
        let second = Scanner::from_reader(path, Box::new(rest), read, keep).holding_ranges(at);
        Halves::start(first, second, at, again, budget)
            .map_err(|e| Problem::in_file(path, format!("cannot start a thread to read it: {e}")))
    }

    /// Starts the second half's thread; at most `budget` bytes of its pieces wait.
    fn start(
        first: Scanner,
        second: Scanner,
        at: u64,
        file: std::fs::File,
        budget: usize,
    ) -> io::Result<Halves> {
        let budget = Arc::new(Budget {
            limit: budget,
            state: Mutex::default(),
            freed: Condvar::new(),
        });
        let (tx, queue) = channel();
        let spent = Arc::clone(&budget);
        let thread = std::thread::Builder::new()
            .name("paf-scan-half".into())
            .spawn(move || {
                let mut batch = Vec::new();
                let mut cost = 0;
                for piece in second {
                    cost += PIECE_COST + piece.bytes.as_ref().map_or(0, |b| b.len());
                    batch.push(piece);
                    if cost >= BATCH {
                        if !spent.take(cost) || tx.send((cost, std::mem::take(&mut batch))).is_err()
                        {
                            return;
                        }
                        cost = 0;
                    }
                }
                if !batch.is_empty() && spent.take(cost) {
                    let _ = tx.send((cost, batch));
                }
            })?;
        Ok(Halves {
            first,
            at,
            file,
            held: None,
            shift: None,
            stopped: false,
            queue,
            batch: Vec::new().into_iter(),
            budget,
            thread: Some(thread),
        })
    }

    /// The first half is over: its last piece learns where the next segment begins, and the
    /// second half's pieces how to shift.
    fn first_ended(&mut self) -> Option<Piece> {
        let mut last = self.held.take().expect("a scan yields a piece at least");
        let seg = last
            .end
            .as_mut()
            .expect("a scan ends with the piece that closes its last segment");
        if seg.fatal.is_some() {
            // A read error ends the file for a single scanner: nothing comes after it.
            self.stopped = true;
            return Some(last);
        }
        let lines = self.first.lines_scanned();
        seg.next_begin = Some(lines + 1);
        self.shift = Some(Shift {
            bytes: self.at,
            lines,
            ordinals: seg.ordinal,
            tests: seg.index + usize::from(seg.finishes()),
            deferring: self.first.deferring(),
        });
        Some(last)
    }

    /// A held segment of the second half, which waited as its range in the file, with its
    /// bytes read (so the waiting pieces hold no test's bytes). If they cannot be read, the
    /// file ends there with the problem, as a single scan's read error ends it.
    fn read_held(&mut self, mut piece: Piece) -> Piece {
        let Some(range) = piece.at.take() else {
            return piece;
        };
        let mut bytes = vec![0; (range.end - range.start) as usize];
        match self.file.read_exact_at(&mut bytes, range.start) {
            Ok(()) => piece.bytes = Some(Bytes::Owned(bytes)),
            Err(e) => {
                self.stopped = true;
                self.shift = None;
                if let Some(seg) = &mut piece.end {
                    let line = seg.first_line;
                    seg.fatal = Some(Problem::at(
                        self.first.path(),
                        line,
                        format!("cannot read: {e}"),
                    ));
                }
            }
        }
        piece
    }

    /// The second half's next batch; `false` at its end. A panic of its thread is this
    /// thread's, as it would be with one scanner.
    fn next_batch(&mut self) -> bool {
        match self.queue.recv() {
            Ok((cost, batch)) => {
                self.budget.give_back(cost);
                self.batch = batch.into_iter();
                true
            }
            Err(_) => {
                if let Some(Err(panic)) = self.thread.take().map(JoinHandle::join) {
                    std::panic::resume_unwind(panic);
                }
                false
            }
        }
    }
}

impl Iterator for Halves {
    type Item = Piece;

    fn next(&mut self) -> Option<Piece> {
        loop {
            let Some(shift) = &self.shift else {
                if self.stopped {
                    return None;
                }
                match self.first.next() {
                    Some(piece) => match self.held.replace(piece) {
                        Some(before) => return Some(before),
                        None => continue,
                    },
                    None => return self.first_ended(),
                }
            };
            match self.batch.next() {
                // The second half's lead segment is empty: it starts at a `begin`.
                Some(piece) if piece.ordinal == 0 => {
                    debug_assert!(piece.bytes.is_none_or(|b| b.is_empty()));
                    continue;
                }
                Some(piece) => {
                    let piece = shift.apply(piece);
                    return Some(self.read_held(piece));
                }
                None if self.next_batch() => continue,
                None => return None,
            }
        }
    }
}

impl Drop for Halves {
    fn drop(&mut self) {
        // A second half waiting on the budget stops; one scanning stops at its next batch.
        self.budget.close();
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

/// What the first half counted, which the second half's pieces add to theirs.
struct Shift {
    /// Where the second half starts in the file.
    bytes: u64,
    lines: u64,
    /// The first half's last segment ordinal (the second half's lead segment, 0, is dropped).
    ordinals: usize,
    /// Tests the first half finished.
    tests: usize,
    /// ([`Keep::Failing`]) The first half deferred a failing test, so every later one is.
    deferring: bool,
}

impl Shift {
    fn apply(&self, mut piece: Piece) -> Piece {
        piece.ordinal += self.ordinals;
        piece.first_line += self.lines;
        piece.overlong.iter_mut().for_each(|l| *l += self.lines);
        if let Some(seg) = &mut piece.end {
            seg.ordinal += self.ordinals;
            seg.first_line += self.lines;
            seg.index += self.tests;
            if let Some(begin) = &mut seg.begin {
                begin.line += self.lines;
            }
            if let Some(next) = &mut seg.next_begin {
                *next += self.lines;
            }
            if let Some(o) = &mut seg.offsets {
                for at in [&mut o.begin, &mut o.first_end].into_iter().flatten() {
                    at.byte += self.bytes;
                    at.line += self.lines;
                }
                o.end += self.bytes;
            }
            if let Some(line) = seg.fatal.as_mut().and_then(|p| p.line.as_mut()) {
                *line += self.lines;
            }
            // Only `Keep::Failing` defers, and a deferred test's bytes are not kept.
            if self.deferring && seg.failing() && !seg.deferred {
                seg.deferred = true;
                piece.bytes = None;
                piece.at = None;
                piece.overlong.clear();
            }
        }
        piece
    }
}

/// Bytes of the second half's pieces not yet taken by the first half's thread.
struct Budget {
    limit: usize,
    /// The bytes waiting, and whether the scan was dropped.
    state: Mutex<(usize, bool)>,
    freed: Condvar,
}

impl Budget {
    /// Waits until `cost` more bytes fit (or nothing waits: one batch always goes); `false`
    /// once the scan is dropped.
    fn take(&self, cost: usize) -> bool {
        let mut state = self.state.lock().unwrap_or_else(|e| e.into_inner());
        while !state.1 && state.0 > 0 && state.0 + cost > self.limit {
            state = self.freed.wait(state).unwrap_or_else(|e| e.into_inner());
        }
        state.0 += cost;
        !state.1
    }

    fn give_back(&self, cost: usize) {
        let mut state = self.state.lock().unwrap_or_else(|e| e.into_inner());
        state.0 -= cost;
        self.freed.notify_all();
    }

    fn close(&self) {
        self.state.lock().unwrap_or_else(|e| e.into_inner()).1 = true;
        self.freed.notify_all();
    }
}

#[cfg(test)]
mod tests {
    use super::super::scan::load;
    use super::*;

    /// A file holding `text`, in a directory that lives as long as the guard.
    fn file(text: &str) -> (tempfile::TempDir, std::path::PathBuf) {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("tests.jsonl");
        std::fs::write(&path, text).unwrap();
        (dir, path)
    }

    /// Every piece, field for field.
    fn pieces(pieces: impl Iterator<Item = Piece>) -> Vec<String> {
        pieces.map(|p| format!("{p:?}")).collect()
    }

    /// Every segment put back together from its pieces: its record, bytes and overlong lines.
    fn rejoin(pieces: impl Iterator<Item = Piece>) -> Vec<String> {
        let mut out = Vec::new();
        let (mut bytes, mut overlong): (Option<Vec<u8>>, Vec<u64>) = (None, Vec::new());
        for piece in pieces {
            if let Some(b) = &piece.bytes {
                bytes.get_or_insert_with(Vec::new).extend_from_slice(b);
            }
            overlong.extend(&piece.overlong);
            if let Some(seg) = piece.end {
                let bytes = bytes
                    .take()
                    .map(|b| String::from_utf8_lossy(&b).into_owned());
                out.push(format!("{seg:?} {bytes:?} {overlong:?}"));
                overlong.clear();
            }
        }
        out
    }

    /// The offsets of the lines a scanner takes for `begin` records.
    fn begins(text: &str) -> Vec<u64> {
        let mut at = 0;
        let mut out = Vec::new();
        for line in text.split_inclusive('\n') {
            if matches!(header(line.as_bytes()), Some(Header::Begin(_))) {
                out.push(at as u64);
            }
            at += line.len();
        }
        out
    }

    /// Cut at every `begin` record but the first line, with a budget of `budget` bytes, the
    /// two halves give the pieces one scanner gives, in every mode a split serves.
    fn check_every_cut(text: &str, budget: usize) {
        let (_dir, path) = file(text);
        let cuts: Vec<u64> = begins(text).into_iter().filter(|&at| at > 0).collect();
        assert!(!cuts.is_empty(), "the fixture has a begin to cut at");
        for keep in [Keep::All, Keep::Failing, Keep::Nothing] {
            // A streamed segment's pieces end where the steps fell, which differ in the second
            // half: `Keep::All` is compared segment by segment, the others piece by piece.
            let pieces = |p: Box<dyn Iterator<Item = Piece>>| match keep {
                Keep::All => rejoin(p),
                _ => pieces(p),
            };
            let whole = pieces(Box::new(Scanner::open(&path, keep.clone()).unwrap()));
            for &at in &cuts {
                let len = text.len() as u64;
                let halves = Halves::open(&path, keep.clone(), at, len, budget).unwrap();
                let read = halves.first.bytes_read();
                let halves = pieces(Box::new(halves));
                // The first piece that differs, cut short: whole pieces may be megabytes.
                let short = |p: Option<&String>| p.map(|p| p.chars().take(600).collect::<String>());
                let differ = (0..whole.len().max(halves.len()))
                    .find(|&i| halves.get(i) != whole.get(i))
                    .map(|i| (i, short(halves.get(i)), short(whole.get(i))));
                assert_eq!(
                    differ, None,
                    "{keep:?} cut at byte {at}: piece, halves, whole"
                );
                assert_eq!(load(&read), len, "both halves count what they read");
            }
        }
    }

    fn begin(test: &str) -> String {
        format!("{{\"k\":\"begin\",\"test\":\"{test}\"}}\n")
    }

    fn end(test: &str, outcome: &str) -> String {
        format!("{{\"k\":\"end\",\"test\":\"{test}\",\"outcome\":\"{outcome}\"}}\n")
    }

    fn event(i: usize) -> String {
        format!("{{\"k\":\"def\",\"frame\":1,\"stmt\":{i},\"var\":{{\"local\":\"begin\"}}}}\n")
    }

    /// Tests of every kind a scanner tells apart: passing and failing, without an `end`, with
    /// a `begin` that lacks its id, with stray lines and blank lines after the `end`, an
    /// escaped kind, `\r\n` line ends, a last line without its line end.
    fn mixed() -> String {
        let mut text = String::from("{\"k\":\"use\"}\n\n");
        for t in 0..12 {
            let id = format!("t{t}");
            match t % 6 {
                0 => text.push_str(&format!("{{\"k\":\"b\\u0065gin\",\"test\":\"{id}\"}}\n")),
                1 => text.push_str("{\"k\":\"begin\"}\n"),
                2 => text.push_str(&format!("{{\"k\" : \"begin\", \"test\":\"{id}\"}}\r\n")),
                _ => text.push_str(&begin(&id)),
            }
            for i in 0..t {
                text.push_str(&event(i));
            }
            match t % 4 {
                0 => text.push_str(&end(&id, "pass")),
                1 => text.push_str(&end(&id, "fail")),
                2 => {}
                _ => {
                    text.push_str(&end(&id, "fail"));
                    text.push_str("\n{\"k\":\"end\"}\n");
                }
            }
        }
        text.push_str(&begin("last"));
        text.push_str(end("last", "fail").trim_end());
        text
    }

    #[test]
    fn halves_give_the_pieces_of_one_scan_wherever_the_cut() {
        check_every_cut(&mixed(), BUDGET);
    }

    /// A budget smaller than one piece: the second half waits for the first at every batch.
    #[test]
    fn a_second_half_over_budget_waits_and_gives_the_same_pieces() {
        check_every_cut(&mixed(), 1);
    }

    /// A failing test larger than the hold, in the first half, defers every failing test of
    /// the second; in the second half, the ones after it. A test one byte over the hold is
    /// deferred by both scans, wherever their steps fall; one of exactly the hold by neither.
    #[test]
    fn deferral_crosses_the_cut() {
        let hold = super::super::scan::HOLD;
        for (over, deferred) in [(1, true), (0, false)] {
            let mut text = String::new();
            for t in 0..5 {
                let id = format!("t{t}");
                let head = begin(&id) + &end(&id, "fail");
                text.push_str(&begin(&id));
                if t == 1 {
                    let mut filler = "{\"k\":\"use\"}\n".repeat((hold - head.len()) / 12 - 3);
                    let pad = hold + over - head.len() - filler.len();
                    filler.insert_str(
                        0,
                        &format!("{{\"k\":\"use\",\"p\":\"{}\"}}\n", "p".repeat(pad - 19)),
                    );
                    text.push_str(&filler);
                    assert_eq!(head.len() + filler.len(), hold + over);
                } else {
                    text.push_str(&event(t));
                }
                text.push_str(&end(&id, "fail"));
            }
            let (_dir, path) = file(&text);
            let seen: Vec<bool> = Scanner::open(&path, Keep::Failing)
                .unwrap()
                .filter_map(|p| p.end.filter(Segment::failing).map(|s| s.deferred))
                .collect();
            assert_eq!(
                seen,
                [false, deferred, deferred, deferred, deferred],
                "{over}"
            );
            check_every_cut(&text, BUDGET);
        }
    }

    /// Lines longer than a record may be, before and after the cut, stay placeholders with
    /// their numbers.
    #[test]
    fn overlong_lines_on_either_side() {
        let long = format!("{{\"k\":\"use\",\"x\":\"{}\"}}\n", "x".repeat(MAX_RECORD));
        let mut text = String::new();
        for t in 0..4 {
            let id = format!("t{t}");
            text.push_str(&begin(&id));
            text.push_str(&long);
            text.push_str(&end(&id, if t % 2 == 0 { "fail" } else { "pass" }));
        }
        check_every_cut(&text, BUDGET);
    }

    #[test]
    fn the_cut_is_the_first_begin_line_after_the_one_the_middle_is_in() {
        let text = format!(
            "{}{}{}{}{}",
            begin("a"),
            event(0),
            "{\"k\":\"use\",\"note\":\"begin\"}\n",
            begin("b"),
            end("b", "pass")
        );
        let (_dir, path) = file(&text);
        let f = std::fs::File::open(&path).unwrap();
        let len = text.len() as u64;
        let b = text.find("{\"k\":\"begin\",\"test\":\"b\"").unwrap() as u64;
        // From inside the first line: the event line and a line holding "begin" as a value
        // are passed over.
        assert_eq!(cut(&f, 3, len).unwrap(), Some(b));
        // A cut never lands on the line the middle falls in: it may have begun before it.
        assert_eq!(cut(&f, b + 1, len).unwrap(), None);
        assert_eq!(cut(&f, b - 1, len).unwrap(), Some(b));
    }

    #[test]
    fn small_compressed_and_ordinal_naming_scans_are_whole() {
        let text = mixed();
        let (_dir, path) = file(&text);
        let split = |keep, min| Pieces::open_split(&path, keep, min).unwrap();
        assert!(matches!(split(Keep::Failing, 1), Pieces::Halves(_)));
        assert!(matches!(split(Keep::Failing, SPLIT_MIN), Pieces::Whole(_)));
        assert!(matches!(
            split(Keep::Only(Arc::from([1])), 1),
            Pieces::Whole(_)
        ));
        assert!(matches!(
            split(Keep::Except(Arc::from([1])), 1),
            Pieces::Whole(_)
        ));
        let whole = pieces(Scanner::open(&path, Keep::Failing).unwrap());
        assert_eq!(pieces(split(Keep::Failing, 1)), whole);
    }

    /// Dropping a scan in two halves part way, with the second half waiting on its budget,
    /// ends its thread (the drop joins it: a hang here is the failure).
    #[test]
    fn a_scan_dropped_part_way_stops_its_second_half() {
        let text = mixed().repeat(50);
        let (_dir, path) = file(&text);
        let len = text.len() as u64;
        let at = begins(&text)[300];
        let mut halves = Halves::open(&path, Keep::All, at, len, 1).unwrap();
        assert!(halves.by_ref().take(3).count() == 3);
        drop(halves);
    }
}
