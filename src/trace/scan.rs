//! Cuts `tests.jsonl` into segments, one per test, in one cheap pass over its bytes, hands each
//! segment on in pieces of bounded size, and runs work over the pieces on several threads with
//! the results handed back in file order.
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
//! Memory does not grow with a test: a segment whose fate is known when it begins (every mode
//! but [`Keep::Failing`]) goes out in [`Piece`]s of about [`PIECE_BYTES`] as it is read, and a
//! line longer than [`MAX_RECORD`] is never held (it becomes an empty placeholder line that its
//! processor reports). [`Keep::Failing`] only learns a test's class at its first `end` record,
//! so it holds a segment's bytes until then, at most [`HOLD`]; a failing test larger than that
//! is *deferred*: its bytes are dropped, and so are those of every failing test after it, for
//! a later pass that names them ([`Keep::Only`]) to stream (docs/performance.md).

use std::collections::VecDeque;
use std::fmt;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::mpsc::{channel, sync_channel};

use memchr::memmem;

use super::model::{ExceptionInfo, Outcome};
use super::problem::Problem;
use super::raw::{Kind, Record};
pub use super::source::Bytes;
use super::source::{Buffer, WINDOW};

/// The longest line (record) accepted, in bytes; a longer one is a problem of its line.
pub const MAX_RECORD: usize = 4 << 20;
/// Bytes read from the file per step.
const CHUNK: usize = 1 << 20;
/// How far past the buffer's end the next mark must be for a scan to start again there
/// ([`Scanner::jump_ahead`]): the read-ahead decompresses up to three chunks ahead, so a shorter
/// jump would spare little and cost a new decompression from the start of a frame.
pub(crate) const JUMP_MIN: u64 = 4 << 20;
static JUMP_FROM: AtomicU64 = AtomicU64::new(JUMP_MIN);

/// Makes scans in this process start again at marks `bytes` or more ahead instead of
/// [`JUMP_MIN`]: for tests of the engine, whose files are small, to make them jump.
#[doc(hidden)]
pub fn jumps_from(bytes: u64) {
    JUMP_FROM.store(bytes, Ordering::Relaxed);
}

static JUMPS: AtomicU64 = AtomicU64::new(0);

/// How many times scans in this process started again at a mark: for tests, to see that a
/// read that could fall back to searching did jump.
#[doc(hidden)]
pub fn jumps_taken() -> u64 {
    JUMPS.load(Ordering::Relaxed)
}
/// A streamed segment goes out in pieces of about this many bytes (a piece ends at a line end).
pub const PIECE_BYTES: usize = 1 << 19;
/// The most bytes of one segment [`Keep::Failing`] holds before it knows the test's class.
pub const HOLD: usize = 8 << 20;

/// Which segments keep their bytes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Keep {
    All,
    /// Segments whose test finishes with a failing (or missing) outcome, each handed on whole
    /// in one piece; larger ones are deferred ([`Segment::deferred`]).
    Failing,
    /// Every segment but those with these ordinals (sorted).
    Except(Arc<[usize]>),
    /// Only the segments with these ordinals (sorted).
    Only(Arc<[usize]>),
    /// None: only the segments' begin records and classes are wanted.
    Nothing,
    /// The segments this scan, share `.1` of several scans of the same file, is first to
    /// reach ([`Claims`]).
    Claim(Arc<Claims>, usize),
}

/// Which of several scans of the same file keeps each segment: the first to reach its start.
/// Shares are numbered from 0 and fewer than 255 (the engine makes at most four).
/// A scan busy with a large test falls behind, so the others take the tests after it
/// ([`map_shares`] with [`Claims::owner`]). Every segment goes to exactly one scan, and what a
/// scan makes of a segment does not depend on which scan it is, so the results are the same
/// however the scans ran.
#[derive(Default)]
pub struct Claims {
    /// The share that claimed each segment, by ordinal ([`Claims::NONE`]: none yet).
    owners: std::sync::Mutex<Vec<u8>>,
}

impl Claims {
    const NONE: u8 = u8::MAX;

    /// Whether segment `ordinal` is `share`'s: claimed now if no share had claimed it.
    pub fn claim(&self, ordinal: usize, share: usize) -> bool {
        let mut owners = self.owners.lock().unwrap_or_else(|e| e.into_inner());
        if owners.len() <= ordinal {
            owners.resize(ordinal + 1, Claims::NONE);
        }
        if owners[ordinal] == Claims::NONE {
            owners[ordinal] = u8::try_from(share).unwrap_or(Claims::NONE - 1);
        }
        usize::from(owners[ordinal]) == share
    }

    /// The share that claimed segment `ordinal` (`usize::MAX`: none yet).
    pub fn owner(&self, ordinal: usize) -> usize {
        let owners = self.owners.lock().unwrap_or_else(|e| e.into_inner());
        match owners.get(ordinal) {
            Some(&k) if k != Claims::NONE => usize::from(k),
            _ => usize::MAX,
        }
    }
}

impl PartialEq for Claims {
    /// The same claims: the same table.
    fn eq(&self, other: &Claims) -> bool {
        std::ptr::eq(self, other)
    }
}

impl Eq for Claims {}

impl fmt::Debug for Claims {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Claims")
    }
}

/// The `begin` record that starts a segment.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Begin {
    pub line: u64,
    /// `None` when the record lacks `"test"` (a problem the segment's processor reports).
    pub test: Option<String>,
}

/// What the first `end` record after a segment's `begin` says, as the scanner parsed it: a
/// failing test's analysis needs its exception before its events.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EndHeader {
    /// `None`: the record lacks an outcome (a problem; the test counts as failing).
    pub outcome: Option<Outcome>,
    pub exception: Option<ExceptionInfo>,
    pub truncated: bool,
}

/// A run of lines of `tests.jsonl`: a test, with any stray lines after its `end`. What the
/// scanner learned of it, handed on with its last piece.
#[derive(Clone, Debug)]
pub struct Segment {
    /// Position among the file's segments (the lead segment is 0).
    pub ordinal: usize,
    /// Number of the segment's first line.
    pub first_line: u64,
    /// `None` for the lead segment.
    pub begin: Option<Begin>,
    /// The first `end` record after the begin, if there is one.
    pub first_end: Option<EndHeader>,
    /// The bundle index the segment's test gets: how many tests finished before it.
    pub index: usize,
    /// The line of the `begin` that ends this segment; `None` at the end of the file.
    pub next_begin: Option<u64>,
    /// A read error that ended the file after this segment's bytes.
    pub fatal: Option<Problem>,
    /// ([`Keep::Failing`]) A failing test whose bytes were not kept: a later pass reads it.
    pub deferred: bool,
    /// Where its begin and first end records are in the file; `None` when the scanner cannot
    /// tell (it had cut an overlong line out of its bytes before).
    pub offsets: Option<Offsets>,
}

/// Where a segment's header lines are and where it ends, as offsets in the file's bytes
/// (decompressed, for a compressed file).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Offsets {
    pub begin: Option<At>,
    pub first_end: Option<At>,
    pub end: u64,
}

/// A line's place: the offset of its first byte and its number.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct At {
    pub byte: u64,
    pub line: u64,
}

/// The most bytes of marks [`Marks::from_headers`] takes (a few bytes per test: an Ant-scale
/// bundle's are about 300 KB): a bound on the memory a marks file made by another program
/// can take.
pub const MARKS_MAX: usize = 32 << 20;

/// Where one scan of a file found the lines that cut it ([`Offsets`]: every segment's `begin`
/// and first `end` record), so that a later scan of the same file takes them instead of
/// searching for them: pass 2 of the engine after pass 1 (docs/performance.md, "Thirteenth
/// round"). Each mark is two varints: its distance in bytes from the previous one, shifted
/// left, with the low bit set for a begin record; and its distance in lines. A few bytes per
/// test.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Marks {
    bytes: Vec<u8>,
    last: At,
    /// Where the file ended.
    len: u64,
    /// Every segment had offsets and the file was read to its end.
    whole: bool,
}

impl Default for Marks {
    fn default() -> Marks {
        Marks {
            bytes: Vec::new(),
            last: At { byte: 0, line: 1 },
            len: 0,
            whole: true,
        }
    }
}

impl Marks {
    /// Adds the next segment of the scan, in file order.
    pub fn add(&mut self, seg: &Segment) {
        let Some(o) = seg.offsets.filter(|_| seg.fatal.is_none()) else {
            self.whole = false;
            return;
        };
        for (at, begin) in [(o.begin, true), (o.first_end, false)] {
            let Some(at) = at else { continue };
            let bytes = at.byte.checked_sub(self.last.byte).filter(|d| *d < 1 << 62);
            let (Some(bytes), Some(lines)) = (bytes, at.line.checked_sub(self.last.line)) else {
                self.whole = false;
                return;
            };
            self.push(bytes << 1 | u64::from(begin));
            self.push(lines);
            self.last = at;
        }
        self.len = o.end;
    }

    fn push(&mut self, mut v: u64) {
        while v >= 0x80 {
            self.bytes.push(v as u8 | 0x80);
            v >>= 7;
        }
        self.bytes.push(v as u8);
    }

    /// Marks another program made, for the file of length `len`: each header line's place
    /// and whether it is a begin record, in file order (`paf trace java` takes the agent's,
    /// docs/java.md). `None` if they are not in order or not within the file.
    pub fn from_headers(headers: impl IntoIterator<Item = (At, bool)>, len: u64) -> Option<Marks> {
        let mut marks = Marks::default();
        for (at, begin) in headers {
            let bytes = at
                .byte
                .checked_sub(marks.last.byte)
                .filter(|d| *d < 1 << 62)?;
            let lines = at.line.checked_sub(marks.last.line)?;
            let first = marks.bytes.is_empty();
            if at.byte >= len
                || (!first && (bytes == 0 || lines == 0))
                || marks.bytes.len() > MARKS_MAX
            {
                return None;
            }
            marks.push(bytes << 1 | u64::from(begin));
            marks.push(lines);
            marks.last = at;
        }
        marks.len = len;
        Some(marks)
    }

    /// The marks of a file of `len` bytes written down in `path` (docs/trace-format.md,
    /// "tests.marks"): `paf-marks 1 LENGTH`, then `b BYTE LINE` or `e BYTE LINE` per header
    /// line, in file order. `None` if there is no such file, it was made for a file of another
    /// length, or any line of it is not as expected: marks only spare a search, so a file
    /// that cannot be used is passed over without a word. Read line by line: the marks take a
    /// few bytes per test, and a file of more than [`MARKS_MAX`] of them is passed over too.
    /// `len` `None`: the length the file names, unchecked (a compressed file's marks are of
    /// its decompressed bytes, which only a read of the whole file would count).
    pub fn read(path: &Path, len: Option<u64>) -> Option<Marks> {
        use std::io::BufRead;
        let mut reader = std::io::BufReader::new(std::fs::File::open(path).ok()?);
        // A line of marks is short: one longer than this is not one (and is not read whole).
        let mut line = Vec::new();
        // Some(None): a line that is not one of marks, or a last line cut short.
        let mut next_line = move || -> Option<Option<String>> {
            line.clear();
            match (&mut reader).take(64).read_until(b'\n', &mut line) {
                Ok(0) => None,
                Ok(_) if line.pop() == Some(b'\n') => Some(String::from_utf8(line.clone()).ok()),
                _ => Some(None),
            }
        };
        let head: u64 = next_line()??.strip_prefix("paf-marks 1 ")?.parse().ok()?;
        let len = len.unwrap_or(head);
        if head != len {
            return None;
        }
        let mut bad = false;
        let headers = std::iter::from_fn(|| {
            let parsed = next_line()?.and_then(|l| {
                let mut fields = l.split(' ');
                let begin = match fields.next()? {
                    "b" => true,
                    "e" => false,
                    _ => return None,
                };
                let byte = fields.next()?.parse().ok()?;
                let line = fields.next()?.parse().ok()?;
                fields
                    .next()
                    .is_none()
                    .then_some((At { byte, line }, begin))
            });
            bad |= parsed.is_none();
            parsed
        });
        let marks = Marks::from_headers(headers, len)?;
        (!bad).then_some(marks)
    }

    /// The marks of a whole scan; `None` if some segment lacked offsets or a read failed.
    pub fn finish(self) -> Option<Arc<Marks>> {
        self.whole.then(|| Arc::new(self))
    }
}

/// The bytes sent through a channel, read in order; the end when the sender is gone.
struct Received {
    chunks: std::sync::mpsc::Receiver<Vec<u8>>,
    chunk: Vec<u8>,
    at: usize,
}

impl Read for Received {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        while self.at == self.chunk.len() {
            match self.chunks.recv() {
                Ok(chunk) => (self.chunk, self.at) = (chunk, 0),
                Err(_) => return Ok(0),
            }
        }
        let n = buf.len().min(self.chunk.len() - self.at);
        buf[..n].copy_from_slice(&self.chunk[self.at..self.at + n]);
        self.at += n;
        Ok(n)
    }
}

/// Where a line that may be a header starts in the scanner's buffer, with the mark that names
/// it (its place, and whether it is a begin record) when the scan follows marks.
type Start = (usize, Option<(At, bool)>);

/// A scanner's place in the [`Marks`] it follows.
struct Replay {
    marks: Arc<Marks>,
    /// The next mark's first byte in `marks.bytes`.
    at: usize,
    /// Where the previous mark is.
    last: At,
}

impl Replay {
    /// The next mark (where it is, whether it is a begin record, where the one after it is
    /// in `marks.bytes`) without taking it.
    fn peek(&self) -> Option<(At, bool, usize)> {
        self.marks.mark(self.at, self.last)
    }
}

impl Marks {
    /// The mark whose bytes start at `from` in `bytes`, the one before it at `last`: where it
    /// is, whether it is a begin record, and where the next one's bytes start.
    fn mark(&self, from: usize, last: At) -> Option<(At, bool, usize)> {
        let (v, next) = self.varint(from)?;
        let (lines, next) = self.varint(next)?;
        let at = At {
            byte: last.byte + (v >> 1),
            line: last.line + lines,
        };
        Some((at, v & 1 == 1, next))
    }

    fn varint(&self, from: usize) -> Option<(u64, usize)> {
        let mut v = 0u64;
        for (i, &b) in self.bytes.get(from..)?.iter().enumerate().take(10) {
            v |= u64::from(b & 0x7f) << (7 * i);
            if b < 0x80 {
                return Some((v, from + i + 1));
            }
        }
        None
    }

    /// The length of the file the marks were made for.
    pub fn file_len(&self) -> u64 {
        self.len
    }

    /// The marks as a `tests.marks` file holds them (docs/trace-format.md): what
    /// [`Marks::read`] reads back.
    pub fn text(&self) -> String {
        use std::fmt::Write as _;
        let mut text = format!("paf-marks 1 {}\n", self.len);
        let (mut at, mut last) = (0, At { byte: 0, line: 1 });
        while let Some((mark, begin, next)) = self.mark(at, last) {
            let kind = if begin { 'b' } else { 'e' };
            let _ = writeln!(text, "{kind} {} {}", mark.byte, mark.line);
            (at, last) = (next, mark);
        }
        text
    }

    /// The marks of a tests file from a scan of its bytes that keeps nothing, the bytes sent
    /// through `chunks` in order, to the end (the sender gone): the header lines the engine's
    /// own search finds. The bytes come as another thread writes them (the bundle merge) or
    /// decompresses them (`paf convert`), so that the file is not read again; `path` names it
    /// in messages. `Ok(None)` when a scan cannot give every mark (a line over [`MAX_RECORD`]
    /// before a header hides its place).
    pub fn of_chunks(
        path: &Path,
        chunks: std::sync::mpsc::Receiver<Vec<u8>>,
    ) -> Result<Option<Marks>, Problem> {
        let read = Arc::new(AtomicU64::new(0));
        let reader = Box::new(Received {
            chunks,
            chunk: Vec::new(),
            at: 0,
        });
        Marks::of_scan(Scanner::from_reader(path, reader, read, Keep::Nothing))
    }

    fn of_scan(scanner: Scanner) -> Result<Option<Marks>, Problem> {
        let mut marks = Marks::default();
        for piece in scanner {
            if let Some(seg) = piece.end {
                if let Some(p) = seg.fatal {
                    return Err(p);
                }
                marks.add(&seg);
            }
        }
        Ok(marks.whole.then_some(marks))
    }

    /// The bytes of each segment, by ordinal: the lines before the first `begin` record
    /// (ordinal 0), then each test from its `begin` record to the next one or the file's end.
    pub fn sizes(&self) -> Vec<u64> {
        let mut sizes = Vec::new();
        let (mut at, mut last, mut start) = (0, At { byte: 0, line: 1 }, 0);
        while let Some((mark, begin, next)) = self.mark(at, last) {
            if begin {
                sizes.push(mark.byte - start);
                start = mark.byte;
            }
            (at, last) = (next, mark);
        }
        sizes.push(self.len.saturating_sub(start));
        sizes
    }
}

impl Segment {
    /// Its test reaches an `end` record (and so gets a bundle index).
    pub fn finishes(&self) -> bool {
        self.begin.as_ref().is_some_and(|b| b.test.is_some()) && self.first_end.is_some()
    }

    /// Its test finishes, failing (an `end` without an outcome counts: it is a problem either way).
    pub fn failing(&self) -> bool {
        self.finishes()
            && self
                .first_end
                .as_ref()
                .is_some_and(|e| e.outcome != Some(Outcome::Pass))
    }
}

/// Some consecutive complete lines of one segment; the last piece of a segment carries what
/// the scanner learned of it.
#[derive(Debug)]
pub struct Piece {
    /// The segment's ordinal.
    pub ordinal: usize,
    /// Number of the first line of `bytes`.
    pub first_line: u64,
    /// The lines, `None` when the scan does not keep this segment's bytes.
    pub bytes: Option<Bytes>,
    /// Numbers of the lines of `bytes` that were longer than [`MAX_RECORD`] (each left as an
    /// empty line in `bytes`).
    pub overlong: Vec<u64>,
    /// Set on the segment's last piece.
    pub end: Option<Segment>,
    /// (A held segment of a scanner [`Scanner::holding_ranges`]) Where the piece's bytes are
    /// in the file, not read into `bytes`: its reader (`super::split`) reads them.
    pub(super) at: Option<std::ops::Range<u64>>,
}

impl Piece {
    /// The non-blank lines of the piece in order with their numbers: each line's text, or the
    /// problem of a line that is not UTF-8 or is too long.
    pub fn lines<'s>(
        &'s self,
        path: &'s Path,
    ) -> impl Iterator<Item = (u64, Result<&'s str, Problem>)> + 's {
        self.raw_lines(path).map(move |(n, line)| {
            (
                n,
                line.and_then(|l| utf8(l).map_err(|e| not_utf8(path, n, &e))),
            )
        })
    }

    /// [`Piece::lines`] not yet checked to be UTF-8 (the record parser checks as it goes).
    pub fn raw_lines<'s>(&'s self, path: &'s Path) -> RawLines<'s> {
        RawLines {
            bytes: self.bytes.as_deref().unwrap_or_default(),
            start: 0,
            number: self.first_line,
            overlong: &self.overlong,
            path,
        }
    }

    /// Bytes the piece holds (a dropped piece counts a little, so that batches of them end).
    fn weight(&self) -> usize {
        self.bytes.as_ref().map_or(64, |b| b.len())
    }
}

/// The non-blank lines of a piece with their numbers ([`Piece::raw_lines`]), not yet checked
/// to be UTF-8.
pub struct RawLines<'s> {
    bytes: &'s [u8],
    /// Where the next line starts in `bytes`.
    start: usize,
    /// The next line's number.
    number: u64,
    /// The overlong lines' numbers not yet passed, in order.
    overlong: &'s [u64],
    path: &'s Path,
}

impl RawLines<'_> {
    /// The number of the line after the last one taken, blank lines included: once every line
    /// is taken, the first line of the piece after this one.
    pub fn next_number(&self) -> u64 {
        self.number
    }
}

impl<'s> Iterator for RawLines<'s> {
    type Item = (u64, Result<&'s [u8], Problem>);

    fn next(&mut self) -> Option<Self::Item> {
        loop {
            // Each line with its `\n` (the last one may lack it), found by memchr: splitting
            // with a byte predicate took a tenth of the reading time.
            let rest = self.bytes.get(self.start..).filter(|r| !r.is_empty())?;
            let len = memchr::memchr(b'\n', rest).map_or(rest.len(), |i| i + 1);
            self.start += len;
            let n = self.number;
            self.number += 1;
            if let Some((&first, later)) = self.overlong.split_first()
                && first == n
            {
                self.overlong = later;
                return Some((n, Err(overlong_problem(self.path, n))));
            }
            let line = trim_line_end(&rest[..len]);
            if !line.iter().all(u8::is_ascii_whitespace) {
                return Some((n, Ok(line)));
            }
        }
    }
}

/// A line as text: checked by simdutf8's SIMD check (std's took 4% of the reading time), and
/// on a bad line by std's, which says where the bad bytes start.
pub fn utf8(line: &[u8]) -> Result<&str, std::str::Utf8Error> {
    match simdutf8::basic::from_utf8(line) {
        Ok(text) => Ok(text),
        Err(_) => std::str::from_utf8(line),
    }
}

/// The problem of line `line`, which is not UTF-8.
pub fn not_utf8(path: &Path, line: u64, e: &std::str::Utf8Error) -> Problem {
    Problem {
        file: path.to_path_buf(),
        line: Some(line),
        column: Some(e.valid_up_to() as u64 + 1),
        message: "not UTF-8: expected a UTF-8 encoded JSON object".to_string(),
    }
}

/// The problem of a line longer than [`MAX_RECORD`].
pub fn overlong_problem(path: &Path, line: u64) -> Problem {
    Problem::at(
        path,
        line,
        format!("record longer than {MAX_RECORD} bytes: expected one JSON object per line"),
    )
}

/// A line without its `\n` and any `\r` before it.
fn trim_line_end(mut line: &[u8]) -> &[u8] {
    while let [rest @ .., b'\n' | b'\r'] = line {
        line = rest;
    }
    line
}

/// What a candidate line turned out to be.
pub(super) enum Header {
    Begin(Option<String>),
    End(EndHeader),
}

/// Parses a candidate line; `None` unless it is a valid `begin` or `end` record.
pub(super) fn header(line: &[u8]) -> Option<Header> {
    let line = trim_line_end(line);
    // The fast parser first, as for every other line (the scanner of each pass parses some
    // 75,000 headers of an Ant-scale bundle: serde was a tenth of pass 1's scan).
    let mut record = Record::default();
    if !super::fast::parse_bytes(line, &mut record) {
        let text = std::str::from_utf8(line).ok()?;
        record = serde_json::from_str(text).ok()?;
    }
    match record.k {
        Kind::Begin => Some(Header::Begin(record.test.map(|t| t.into_owned()))),
        Kind::End => Some(Header::End(EndHeader {
            outcome: record.outcome,
            exception: record.exception.map(|e| *e),
            truncated: record.truncated.unwrap_or(false),
        })),
        _ => None,
    }
}

/// What happens to the bytes of the segment being read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Hold {
    /// Kept, and handed on in pieces as they are read.
    Stream,
    /// Kept until the segment ends (and dropped then if it is not wanted after all).
    Buffer,
    /// Not kept.
    Drop,
}

/// The segment being read.
struct Current {
    first_line: u64,
    begin: Option<Begin>,
    first_end: Option<EndHeader>,
    hold: Hold,
    /// ([`Keep::Failing`]) Its bytes outgrew [`HOLD`] and were dropped.
    oversize: bool,
    /// Overlong lines among the bytes not yet handed on.
    overlong: Vec<u64>,
    /// Where its begin and first end lines are in the file.
    begin_at: Option<At>,
    end_at: Option<At>,
}

/// Cuts a tests file into [`Piece`]s, in file order.
pub struct Scanner {
    path: PathBuf,
    read: Arc<AtomicU64>,
    keep: Keep,
    buf: Buffer,
    /// Where the current segment's bytes not yet handed on start in `buf` (when it keeps them).
    seg_start: usize,
    /// Number of the line that starts at `seg_start`.
    seg_start_line: u64,
    /// Bytes of `buf` already looked at; always the start of a line.
    scanned: usize,
    /// Number of the line that starts at `counted`.
    line: u64,
    /// Where `line` is counted to: `scanned`, but behind it while the scan follows marks,
    /// which give the numbers of their lines (so the bytes between them are not read here:
    /// [`Scanner::count_lines`] counts them when a number is needed).
    counted: usize,
    /// The line at `scanned` is longer than [`MAX_RECORD`]: its bytes are being skipped.
    skipping: bool,
    cur: Current,
    ordinal: usize,
    /// Tests that finished so far.
    finished: usize,
    /// ([`Keep::Failing`]) A failing test was deferred: every later one is too.
    deferring: bool,
    ready: VecDeque<Piece>,
    done: bool,
    /// ([`Scanner::holding_ranges`]) Where the reader's bytes start in the file.
    ranges: Option<u64>,
    finders: [memmem::Finder<'static>; 2],
    /// Bytes of the file before `buf`'s first (decompressed, for a compressed file).
    consumed: u64,
    /// No overlong line was cut out of `buf` yet, so `consumed` and a place in `buf` give a
    /// place in the file.
    exact: bool,
    /// The marks of an earlier scan of the file, taken instead of searching while they fit.
    replay: Option<Replay>,
    /// ([`Scanner::trusting_marks`]) Set when the marks were dropped while `line` was behind
    /// (lines skipped uncounted): the line numbers from there on are not the file's.
    lines_lost: Option<Arc<AtomicBool>>,
    /// Bytes of a dropped segment were let go without counting their lines: `line` is right
    /// again at the next mark.
    uncounted: bool,
    /// ([`Scanner::trusting_marks`]) A next mark this many bytes or more past the buffer's
    /// end, with nothing to keep before it, makes a file that can start again there
    /// ([`Buffer::jump`]: a zstd file with a seek table) do so.
    jump_min: u64,
}

impl Scanner {
    /// Scans the file at `path`: a `.gz` or `.zst` file decompressed on the fly, any other
    /// mapped into memory window by window (read if it cannot be mapped, an empty file say).
    pub fn open(path: &Path, keep: Keep) -> Result<Scanner, Problem> {
        Scanner::open_windowed(path, keep, WINDOW, 1)
    }

    /// [`Scanner::open`], a zstd file with a seek table decompressed frame by frame on
    /// `threads` threads ([`super::lines::ReadAhead::frames`]): for a scan that does little
    /// with most bytes, so that decompressing them is most of its time (pass 1 of `paf rank`).
    pub fn open_decompressing_on(
        path: &Path,
        keep: Keep,
        threads: usize,
    ) -> Result<Scanner, Problem> {
        Scanner::open_windowed(path, keep, WINDOW, threads)
    }

    /// [`Scanner::open`], mapping windows of at least `window` bytes, decompressing on
    /// `threads` threads.
    fn open_windowed(
        path: &Path,
        keep: Keep,
        window: usize,
        threads: usize,
    ) -> Result<Scanner, Problem> {
        if let Some(c) = super::lines::open_chunked(path, threads)? {
            return Ok(Scanner::new(
                path,
                Buffer::chunks(c.ahead, c.seek),
                c.read,
                keep,
            ));
        }
        let file = super::lines::open_regular(path)?;
        let read = Arc::new(AtomicU64::new(0));
        let buf = match file.try_clone() {
            Ok(mapped) => Buffer::mapped(mapped, Arc::clone(&read), window).ok(),
            Err(_) => None,
        };
        let buf = buf.unwrap_or_else(|| {
            Buffer::reader(Box::new(super::lines::Counting::new(
                file,
                Arc::clone(&read),
            )))
        });
        Ok(Scanner::new(path, buf, read, keep))
    }

    /// Scans the bytes `range` of the plain file at `path`, mapped into memory, as if they were
    /// the whole file (lines, ordinals and test indexes count from the range's start): a half
    /// of a split scan (`super::split`), which renumbers them. `read` counts the bytes read.
    pub(super) fn open_range(
        path: &Path,
        keep: Keep,
        range: std::ops::Range<u64>,
        read: Arc<AtomicU64>,
    ) -> Result<Scanner, Problem> {
        let file = super::lines::open_regular(path)?;
        let buf = Buffer::mapped_range(file, Arc::clone(&read), WINDOW, range)
            .map_err(|e| Problem::in_file(path, format!("cannot read: {e}")))?;
        Ok(Scanner::new(path, buf, read, keep))
    }

    /// Scans `reader`; `path` is only used in messages, `read` counts the bytes read.
    pub(crate) fn from_reader(
        path: &Path,
        reader: Box<dyn Read + Send>,
        read: Arc<AtomicU64>,
        keep: Keep,
    ) -> Scanner {
        Scanner::new(path, Buffer::reader(reader), read, keep)
    }

    fn new(path: &Path, buf: Buffer, read: Arc<AtomicU64>, keep: Keep) -> Scanner {
        let mut s = Scanner {
            path: path.to_path_buf(),
            read,
            keep,
            buf,
            seg_start: 0,
            seg_start_line: 1,
            scanned: 0,
            line: 1,
            counted: 0,
            skipping: false,
            cur: Current {
                first_line: 1,
                begin: None,
                first_end: None,
                hold: Hold::Drop,
                oversize: false,
                overlong: Vec::new(),
                begin_at: None,
                end_at: None,
            },
            ordinal: 0,
            finished: 0,
            deferring: false,
            ready: VecDeque::new(),
            done: false,
            ranges: None,
            finders: [
                memmem::Finder::new(b"\"begin\""),
                memmem::Finder::new(b"\"end\""),
            ],
            consumed: 0,
            exact: true,
            replay: None,
            lines_lost: None,
            uncounted: false,
            jump_min: JUMP_FROM.load(Ordering::Relaxed),
        };
        s.cur.hold = s.start_hold();
        s
    }

    /// Makes the scanner take the header lines from `marks`, which an earlier scan of the same
    /// file made ([`Marks`]), instead of searching for them. The segments and pieces are the
    /// same; should a mark not be the header it says (the file changed), the scanner drops the
    /// marks and searches again from the line after the last header it took.
    pub fn following(mut self, marks: Option<Arc<Marks>>) -> Scanner {
        self.replay = marks.map(|marks| Replay {
            marks,
            at: 0,
            last: At { byte: 0, line: 1 },
        });
        self
    }

    /// Makes a scanner that follows marks let the bytes of the segments it drops go without
    /// counting their lines, each mark giving the number of its own: what is left of a scan
    /// that keeps few segments is then the header lines (`paf trace java` reads its new
    /// bundle's failing tests with the marks the tracer wrote; docs/performance.md, "Fifteenth
    /// round"). Should the marks stop fitting after lines were skipped, the flag returned is
    /// set: the line numbers from there on are not the file's, and the caller scans again
    /// without marks.
    pub fn trusting_marks(mut self) -> (Scanner, Arc<AtomicBool>) {
        let lost = Arc::new(AtomicBool::new(false));
        self.lines_lost = Some(Arc::clone(&lost));
        (self, lost)
    }

    /// Stops following marks (they do not fit the file, or places in `buf` are no longer the
    /// file's).
    fn drop_marks(&mut self) {
        self.replay = None;
        self.lose_lines_if_uncounted();
    }

    fn lose_lines_if_uncounted(&self) {
        if let (true, Some(lost)) = (self.uncounted, &self.lines_lost) {
            lost.store(true, Ordering::Relaxed);
        }
    }

    /// Makes the scanner hand on a held segment ([`Keep::Failing`]) as its range in the file
    /// instead of a copy of its bytes, while the bytes read are the file's from `base` on (a
    /// segment after an overlong line's placeholder is copied): the second half of a split
    /// scan, whose pieces wait, reads them again when they come out (`super::split`).
    pub(super) fn holding_ranges(mut self, base: u64) -> Scanner {
        self.ranges = Some(base);
        self
    }

    /// Lines scanned so far (all of them once the scan has ended).
    pub(super) fn lines_scanned(&self) -> u64 {
        debug_assert_eq!(self.counted, self.scanned, "the scan has ended");
        self.line - 1
    }

    /// ([`Keep::Failing`]) A failing test was deferred, so every later one is.
    pub(super) fn deferring(&self) -> bool {
        self.deferring
    }

    /// A handle on the count of bytes read from the file (compressed, if it is).
    pub fn bytes_read(&self) -> Arc<AtomicU64> {
        Arc::clone(&self.read)
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// What happens to the current segment's bytes, decided when it begins. The lead segment
    /// and a segment whose begin lacks an id never fail; other tests are classed at their
    /// first `end`.
    fn start_hold(&self) -> Hold {
        let listed = |list: &[usize]| list.binary_search(&self.ordinal).is_ok();
        match &self.keep {
            Keep::All => Hold::Stream,
            Keep::Nothing => Hold::Drop,
            Keep::Except(list) if listed(list) => Hold::Drop,
            Keep::Except(_) => Hold::Stream,
            Keep::Only(list) if listed(list) => Hold::Stream,
            Keep::Only(_) => Hold::Drop,
            Keep::Claim(claims, share) if claims.claim(self.ordinal, *share) => Hold::Stream,
            Keep::Claim(..) => Hold::Drop,
            Keep::Failing if self.deferring => Hold::Drop,
            Keep::Failing => match &self.cur.begin {
                Some(Begin { test: Some(_), .. }) => Hold::Buffer,
                _ => Hold::Drop,
            },
        }
    }

    /// Hands on the current segment's bytes `buf[seg_start..at]` as a piece (`end` on its last).
    fn piece(&mut self, at: usize, end: Option<Segment>) {
        // A held segment is named by its place in the file ([`Scanner::holding_ranges`]) when
        // its bytes are still the file's.
        let range = match (self.cur.hold, self.ranges, self.buf.offset(self.seg_start)) {
            (Hold::Buffer, Some(base), Some(from)) => {
                Some(base + from..base + from + (at - self.seg_start) as u64)
            }
            _ => None,
        };
        let bytes = match self.cur.hold {
            Hold::Drop => None,
            Hold::Stream => Some(self.buf.piece(self.seg_start..at)),
            Hold::Buffer if range.is_some() => None,
            // A held segment is copied: such segments are far apart in the file (the failing
            // tests of pass 1), and each one's piece would keep a mapped window alive.
            Hold::Buffer => Some(Bytes::Owned(self.buf.bytes()[self.seg_start..at].to_vec())),
        };
        // The overlong lines before `at` (whose line is `self.line`) go with this piece.
        let before = self.cur.overlong.partition_point(|&l| l < self.line);
        let mut overlong: Vec<u64> = self.cur.overlong.drain(..before).collect();
        if bytes.is_none() {
            overlong.clear();
        }
        self.ready.push_back(Piece {
            ordinal: self.ordinal,
            first_line: self.seg_start_line,
            bytes,
            overlong,
            end,
            at: range,
        });
        self.seg_start = at;
    }

    /// Ends the current segment at `at` (an offset in `buf`, where `self.line` is the line
    /// number), hands it on, and starts the next one there.
    fn close(&mut self, at: usize, next_begin: Option<u64>, fatal: Option<Problem>) {
        let mut seg = Segment {
            ordinal: self.ordinal,
            first_line: self.cur.first_line,
            begin: self.cur.begin.take(),
            first_end: self.cur.first_end.take(),
            index: self.finished,
            next_begin,
            fatal,
            deferred: false,
            offsets: self.exact.then_some(Offsets {
                begin: self.cur.begin_at.take(),
                first_end: self.cur.end_at.take(),
                end: self.consumed + at as u64,
            }),
        };
        // A held segment larger than the hold is dropped here if no step's end caught it: so a
        // failing test is deferred exactly when it is larger than the hold, however the file's
        // steps fall (a split scan's second half steps from its own start).
        if self.cur.hold == Hold::Buffer && at - self.seg_start > HOLD {
            self.cur.hold = Hold::Drop;
            self.cur.oversize = true;
        }
        if self.keep == Keep::Failing && seg.failing() {
            seg.deferred = self.cur.oversize || self.deferring;
            self.deferring |= seg.deferred;
        }
        if self.cur.hold == Hold::Buffer && !seg.failing() {
            self.cur.hold = Hold::Drop;
        }
        if seg.finishes() {
            self.finished += 1;
        }
        self.piece(at, Some(seg));
        self.ordinal += 1;
        self.seg_start_line = self.line;
        self.cur.first_line = self.line;
        self.cur.oversize = false;
        self.cur.overlong.clear();
    }

    /// The current segment is past its first `end` record: in [`Keep::Failing`], its class
    /// decides whether its bytes are kept.
    fn classed(&mut self) {
        let failing = self
            .cur
            .first_end
            .as_ref()
            .is_some_and(|e| e.outcome != Some(Outcome::Pass));
        if self.cur.hold == Hold::Buffer && !failing {
            self.cur.hold = Hold::Drop;
        }
    }

    /// Reads a chunk and scans its complete lines, handing on what ends in it.
    fn step(&mut self) {
        // Drop what no segment needs any more, so the buffer holds about one piece.
        let from = if self.cur.hold == Hold::Drop {
            self.scanned
        } else {
            self.seg_start
        };
        if from > self.counted {
            // a dropped segment's bytes before the next mark need no line numbers when the
            // marks are trusted: that mark gives its own
            let skip = self.lines_lost.is_some()
                && self.cur.hold == Hold::Drop
                && self.replay.as_ref().is_some_and(|r| r.peek().is_some());
            if skip {
                self.counted = from;
                self.uncounted = true;
            } else {
                self.count_lines();
            }
        }
        if from > 0 {
            self.buf.consume(from);
            self.consumed += from as u64;
            self.counted -= from;
            self.seg_start = self.seg_start.saturating_sub(from);
            self.scanned -= from;
        }
        if let Err(e) = self.jump_ahead() {
            self.fail(&e);
            return;
        }
        let before = self.buf.len();
        let eof = match self.buf.fill(CHUNK) {
            Ok(eof) => eof,
            Err(e) => {
                self.fail(&e);
                return;
            }
        };
        if self.skipping && !self.skip(before, eof) {
            return;
        }
        let before = self.check_long_line(before);
        let end = if eof {
            self.check_last_line();
            self.buf.len()
        } else {
            match memchr::memrchr(b'\n', &self.buf.bytes()[before.max(self.scanned)..]) {
                Some(i) => before.max(self.scanned) + i + 1,
                None => {
                    self.check_partial_line();
                    return; // no complete line yet: read on
                }
            }
        };
        self.scan(end);
        if eof {
            self.lose_lines_if_uncounted(); // marks past the end were not taken
            self.count_lines();
            let at = self.buf.len();
            self.close(at, None, None);
            self.done = true;
            return;
        }
        self.check_partial_line();
        self.hand_on();
    }

    /// Following trusted marks, with nothing to keep before the next one and that mark
    /// [`Scanner::jump_min`] bytes or more past what the buffer holds, a file that can start
    /// again there does: a zstd file with a seek table is then decompressed from the frame
    /// that holds the mark, not through every byte before it. In [`Keep::Failing`] a test
    /// held until its first `end` record (whether it fails) is let go for it: its `end` record
    /// is far, and if the test fails it is deferred to pass 1b, which reads it alone, as it
    /// does a failing test too large to hold.
    fn jump_ahead(&mut self) -> std::io::Result<()> {
        if self.lines_lost.is_none() || self.skipping || !self.exact || !self.buf.can_jump() {
            return Ok(());
        }
        let Some((next, _, _)) = self.replay.as_ref().and_then(Replay::peek) else {
            return Ok(());
        };
        let end = self.consumed + self.buf.len() as u64;
        let keeps = match self.cur.hold {
            Hold::Drop => false,
            Hold::Buffer => self.keep != Keep::Failing,
            Hold::Stream => true,
        };
        if keeps || next.byte < end.saturating_add(self.jump_min) {
            return Ok(());
        }
        // the bytes not yet scanned belong to the segment let go: none of them is a header
        if self.buf.jump(next.byte)? {
            JUMPS.fetch_add(1, Ordering::Relaxed);
            if self.cur.hold == Hold::Buffer {
                self.cur.hold = Hold::Drop;
                self.cur.oversize = true;
            }
            self.consumed = self.buf.offset(0).unwrap_or(next.byte);
            (self.scanned, self.counted, self.seg_start) = (0, 0, 0);
            self.cur.overlong.clear();
            self.uncounted = true;
        }
        Ok(())
    }

    /// A read error ends the file: what was read is scanned and the error closes the segment.
    fn fail(&mut self, e: &std::io::Error) {
        self.lose_lines_if_uncounted();
        if self.skipping {
            let scanned = self.scanned;
            let buf = self.edit();
            buf.truncate(scanned);
            buf.push(b'\n');
            self.skipping = false;
        }
        self.count_lines();
        let line = self.line + bytecount::count(&self.buf.bytes()[self.scanned..], b'\n') as u64;
        self.scan(self.buf.len());
        let at = self.buf.len();
        self.close(
            at,
            None,
            Some(Problem::at(&self.path, line, format!("cannot read: {e}"))),
        );
        self.done = true;
    }

    /// Skips the bytes of an overlong line read since `before`; at its end the line is left
    /// as an empty placeholder line. Whether scanning can go on in this step.
    fn skip(&mut self, before: usize, eof: bool) -> bool {
        let scanned = self.scanned;
        match memchr::memchr(b'\n', &self.buf.bytes()[before..]) {
            Some(i) => {
                self.edit().drain(scanned..before + i);
                self.skipping = false;
                true
            }
            None if eof => {
                let buf = self.edit();
                buf.truncate(scanned);
                buf.push(b'\n');
                self.skipping = false;
                true
            }
            None => {
                self.edit().truncate(scanned);
                false
            }
        }
    }

    /// The line at `scanned` began in an earlier step; if it ends in this one and is longer
    /// than [`MAX_RECORD`], it becomes an empty placeholder line. (Lines that begin in this
    /// step are shorter: a chunk is smaller than the limit.) Where this step's bytes start
    /// now: the placeholder moved them (it used to be left at `before`, past the buffer's end
    /// when the line ended in the step that took it over the limit: a panic).
    fn check_long_line(&mut self, before: usize) -> usize {
        if self.scanned >= before {
            return before;
        }
        if let Some(i) = memchr::memchr(b'\n', &self.buf.bytes()[before..]) {
            let end = before + i;
            if end - self.scanned > MAX_RECORD {
                let scanned = self.scanned;
                self.edit().drain(scanned..end);
                self.count_lines();
                self.cur.overlong.push(self.line);
                return scanned;
            }
        }
        before
    }

    /// At the end of the file, the last line (without a line end) if it is too long becomes
    /// an empty placeholder line.
    fn check_last_line(&mut self) {
        if self.buf.len() - self.scanned > MAX_RECORD {
            let scanned = self.scanned;
            let buf = self.edit();
            buf.truncate(scanned);
            buf.push(b'\n');
            self.count_lines();
            self.cur.overlong.push(self.line);
        }
    }

    /// The incomplete line at `scanned`, if longer than [`MAX_RECORD`] already, is skipped.
    fn check_partial_line(&mut self) {
        if self.buf.len() - self.scanned > MAX_RECORD {
            let scanned = self.scanned;
            self.edit().truncate(scanned);
            self.count_lines();
            self.cur.overlong.push(self.line);
            self.skipping = true;
        }
    }

    /// Hands on a piece of a streamed segment once it is large enough; drops the bytes of a
    /// held one that outgrew [`HOLD`].
    fn hand_on(&mut self) {
        let held = self.scanned - self.seg_start;
        match self.cur.hold {
            Hold::Stream if held >= PIECE_BYTES => {
                self.count_lines();
                let at = self.scanned;
                self.piece(at, None);
                self.seg_start_line = self.line;
            }
            Hold::Buffer if held > HOLD => {
                self.cur.hold = Hold::Drop;
                self.cur.oversize = true;
                self.cur.overlong.clear();
            }
            _ => {}
        }
    }

    /// `buf` itself, to cut an overlong line out of it: places in it no longer map to the
    /// file's, so the scan has no offsets and no longer follows marks.
    fn edit(&mut self) -> &mut Vec<u8> {
        self.exact = false;
        self.drop_marks();
        self.buf.edit()
    }

    /// Where the candidate lines of `buf[from..end]` start: the lines holding `"begin"`,
    /// `"end"` or a backslash, each with `None` (it may be a header, or not).
    fn search(&self, from: usize, end: usize) -> Vec<Start> {
        let region = &self.buf.bytes()[from..end];
        let line_start = |p: usize| memchr::memrchr(b'\n', &region[..p]).map_or(0, |i| i + 1);
        let mut starts: Vec<usize> = Vec::new();
        for finder in &self.finders {
            starts.extend(finder.find_iter(region).map(line_start));
        }
        starts.extend(memchr::memchr_iter(b'\\', region).map(line_start));
        starts.sort_unstable();
        starts.dedup();
        starts.into_iter().map(|s| (from + s, None)).collect()
    }

    /// The marks in `buf[scanned..end]`, each with its place and whether it is a begin
    /// record, taken; `None`
    /// (and no more marks) if they do not fit the bytes read: the file is longer than the one
    /// marked, or the marks are behind.
    fn replayed(&mut self, end: usize) -> Option<Vec<Start>> {
        let replay = self.replay.as_mut()?;
        let (from, to) = (
            self.consumed + self.scanned as u64,
            self.consumed + end as u64,
        );
        let mut starts = Vec::new();
        let fits = to <= replay.marks.len
            && loop {
                match replay.peek() {
                    Some((at, _, _)) if at.byte < from => break false,
                    Some((at, begin, next)) if at.byte < to => {
                        starts.push(((at.byte - self.consumed) as usize, Some((at, begin))));
                        (replay.at, replay.last) = (next, at);
                    }
                    _ => break true,
                }
            };
        if !fits {
            self.drop_marks();
        }
        fits.then_some(starts)
    }

    /// Scans the complete lines of `buf[scanned..end]` for begin and end records.
    fn scan(&mut self, end: usize) {
        let mut starts = match self.replayed(end) {
            Some(starts) => starts,
            None => self.search(self.scanned, end),
        };
        // Where the bytes not yet searched or passed over start (the line after the last
        // header taken).
        let mut resume = self.scanned;
        let mut next = 0;
        while let Some(&(ls, mark)) = starts.get(next) {
            next += 1;
            let buf = self.buf.bytes();
            let le = memchr::memchr(b'\n', &buf[ls..end]).map_or(end, |i| ls + i);
            let header = header(&buf[ls..le]);
            let first_end = self.cur.begin.is_some() && self.cur.first_end.is_none();
            let line_start = ls == 0 || buf[ls - 1] == b'\n';
            let as_marked = match (&header, mark) {
                (_, None) => true,
                (Some(Header::Begin(_)), Some((_, true))) => line_start,
                (Some(Header::End(_)), Some((_, false))) => line_start && first_end,
                _ => false,
            };
            if !as_marked {
                // The file is not the one marked: search the rest of this step from the last
                // header taken, and go on without marks.
                self.drop_marks();
                starts = self.search(resume, end);
                next = 0;
                continue;
            }
            self.scanned = ls;
            match mark {
                Some((at, _)) => {
                    (self.line, self.counted) = (at.line, ls);
                    self.uncounted = false;
                }
                None => self.count_lines(),
            }
            resume = (le + 1).min(end);
            let at = Some(At {
                byte: self.consumed + ls as u64,
                line: self.line,
            });
            match header {
                Some(Header::Begin(test)) => {
                    let line = self.line;
                    self.close(ls, Some(line), None);
                    self.cur.begin = Some(Begin { line, test });
                    self.cur.begin_at = at;
                    self.cur.first_end = None;
                    self.cur.hold = self.start_hold();
                }
                Some(Header::End(end)) if first_end => {
                    self.cur.first_end = Some(end);
                    self.cur.end_at = at;
                    self.classed();
                }
                Some(Header::End(_)) | None => {}
            }
        }
        self.scanned = end;
        if self.replay.is_none() {
            self.count_lines();
        }
    }

    /// Counts the lines of `buf[counted..scanned]`, so that `line` is the number of the line
    /// at `scanned`.
    fn count_lines(&mut self) {
        let lines = bytecount::count(&self.buf.bytes()[self.counted..self.scanned], b'\n');
        self.line += lines as u64;
        self.counted = self.scanned;
    }
}

impl Iterator for Scanner {
    type Item = Piece;

    fn next(&mut self) -> Option<Piece> {
        loop {
            if let Some(piece) = self.ready.pop_front() {
                return Some(piece);
            }
            if self.done {
                return None;
            }
            self.step();
        }
    }
}

/// Piece bytes per batch handed to a worker: large enough that handing batches between threads
/// costs little, small enough that the batches in flight stay a few megabytes.
const BATCH_BYTES: usize = 1 << 19;
/// What the batches dealt and not yet consumed may hold in memory ([`Cost::memory`]): bytes
/// copied out of the file, the pages of a mapped file the scanner read (to find headers, to
/// count lines) and the segments' results. Pieces of a mapped file that wait in a worker's queue
/// hand their pages back first ([`RELEASE_AT`]), so the scanner can deal a large test to one
/// worker and go on dealing the tests after it to the others (docs/performance.md,
/// "Twenty-sixth round").
const AHEAD: usize = 8 << 20;
/// A mapped piece that does not end its segment, dealt to a worker with this many bytes or more
/// still to work, hands back its pages ([`Bytes::release`]) and counts for nothing in
/// [`AHEAD`]. A piece that ends a segment keeps them: that is every piece of a test smaller
/// than a piece, whose pages the worker reads soon.
const RELEASE_AT: usize = 4 * BATCH_BYTES;
/// What a segment's results count for [`AHEAD`].
const RESULT_COST: usize = 1 << 10;
/// File bytes dealt and not yet consumed, however they are held: the windows they keep mapped
/// are address space, not memory, but each piece is a record in memory.
const BYTES_AHEAD: usize = 1 << 30;

/// Runs `work` over every piece of `scanner` and hands each result to `consume` in file order.
/// `work` sees the pieces of a segment in order on one worker and returns a result when it has
/// one (typically at a segment's last piece). With `workers == 0` everything runs on the calling
/// thread; otherwise the scanner runs on a thread of its own and deals batches of pieces to
/// `workers` threads (the pieces of one segment all to the same worker, each new segment to the
/// worker with the fewest bytes still to work), and the calling thread puts their results back
/// in the order the batches were dealt. The results, and so everything computed from them, are
/// the same for any number of workers and whichever worker a segment went to. Each worker
/// builds its own state with `make` (a worker-local symbol table, say).
///
/// Plain threads and channels rather than a work-stealing pool: idle pool threads spin, which
/// on a two-core machine takes time from the scanner and the consumer. How far the scanner
/// runs ahead of the consumer is bounded by [`AHEAD`] and [`BYTES_AHEAD`], so memory does not
/// grow with the file, and whatever one large test holds up is bounded too.
pub fn map_pieces<W, R: Send>(
    scanner: impl Iterator<Item = Piece> + Send,
    workers: usize,
    make: impl Fn() -> W + Sync,
    work: impl Fn(&mut W, Piece) -> Option<R> + Sync,
    mut consume: impl FnMut(R),
) {
    if workers == 0 {
        let mut w = make();
        for piece in scanner {
            if let Some(r) = work(&mut w, piece) {
                consume(r);
            }
        }
        return;
    }
    let flow = Flow::new(workers);
    std::thread::scope(|s| {
        let (out_tx, out_rx) = channel::<(u64, Vec<R>, Cost)>();
        let mut to_workers = Vec::new();
        for k in 0..workers {
            let (piece_tx, piece_rx) = channel::<Batch>();
            let (make, work, flow, out_tx) = (&make, &work, &flow, out_tx.clone());
            s.spawn(move || {
                // a worker that panics stops the scanner, which could otherwise wait forever
                let _stop = flow.stop_on_drop();
                let mut w = make();
                for batch in piece_rx {
                    let cost = batch.cost;
                    let out: Vec<R> = batch
                        .pieces
                        .into_iter()
                        .filter_map(|p| work(&mut w, p))
                        .collect();
                    flow.worked(k, &cost);
                    if out_tx.send((batch.seq, out, cost)).is_err() {
                        return;
                    }
                }
            });
            to_workers.push(piece_tx);
        }
        drop(out_tx);
        let flow = &flow;
        s.spawn(move || {
            let _stop = flow.stop_on_drop();
            let mut seq = 0;
            // the worker of the segment the last batch left unfinished
            let mut open = None;
            let mut batch = Vec::new();
            let mut cost = Cost::default();
            let mut deal = |batch: Vec<Piece>, cost: Cost, worker: usize| {
                let Some(cost) = flow.wait_room(worker, cost) else {
                    return false;
                };
                if cost.released {
                    batch
                        .iter()
                        .filter(|p| p.end.is_none())
                        .filter_map(|p| p.bytes.as_ref())
                        .for_each(|b| {
                            b.release();
                        });
                }
                let sent = to_workers[worker].send(Batch {
                    seq,
                    pieces: batch,
                    cost,
                });
                seq += 1;
                sent.is_ok()
            };
            let mut worker = 0;
            for piece in scanner {
                if batch.is_empty() {
                    worker = open.unwrap_or_else(|| flow.least_loaded());
                }
                cost.add(&piece);
                let ends = piece.end.is_some();
                batch.push(piece);
                if cost.bytes >= BATCH_BYTES {
                    // the rest of an unfinished segment goes to the same worker
                    open = (!ends).then_some(worker);
                    if !deal(
                        std::mem::take(&mut batch),
                        std::mem::take(&mut cost),
                        worker,
                    ) {
                        return;
                    }
                }
            }
            if !batch.is_empty() {
                deal(batch, cost, worker);
            }
        });
        // a consumer that panics stops the scanner too
        let _stop = flow.stop_on_drop();
        let mut waiting = std::collections::BTreeMap::new();
        let mut next = 0;
        for (seq, out, cost) in out_rx {
            waiting.insert(seq, (out, cost));
            while let Some((out, cost)) = waiting.remove(&next) {
                out.into_iter().for_each(&mut consume);
                flow.consumed(&cost);
                next += 1;
            }
        }
    });
}

/// How a pass's scans reach its workers: [`map_pieces`] (one scanner dealing to this many
/// workers) or [`map_shares`] (a scanner and a thread per share, with the share that owns each
/// segment, by ordinal; a segment past the list is the first share's).
pub enum Spread<'s> {
    Deal(Box<dyn Iterator<Item = Piece> + Send + 's>, usize),
    Shares(Vec<Box<dyn Iterator<Item = Piece> + Send + 's>>, Vec<usize>),
}

/// Runs `work` over the pieces of `spread` and hands the results to `consume` in file order.
pub fn map_spread<W, R: Send>(
    spread: Spread<'_>,
    make: impl Fn() -> W + Sync,
    work: impl Fn(&mut W, Piece) -> Option<R> + Sync,
    consume: impl FnMut(R),
) {
    match spread {
        Spread::Deal(scanner, workers) => map_pieces(scanner, workers, make, work, consume),
        Spread::Shares(scanners, owners) => {
            let owner = |ordinal: usize| owners.get(ordinal).copied().unwrap_or(0);
            map_shares(scanners, owner, make, work, consume);
        }
    }
}

/// Results waiting per share of [`map_shares`]: a share may work this many tests past one
/// that another share is still on (a test's results are a few hundred bytes to kilobytes).
const SHARE_RESULTS: usize = 4096;

/// [`map_pieces`] over several scans of the same file, one per thread, each working the
/// segments `owner` gives it and passing over the others: the results of all are handed to
/// `consume` in file order (by segment ordinal). For a compressed file with tests much larger
/// than what [`map_pieces`] lets its scanner deal ahead ([`AHEAD`]): there one scanner cannot go
/// past a large test while a worker parses it, and here each thread decompresses the file
/// for itself (docs/performance.md, "Twenty-sixth round"). Each scan should keep the bytes of
/// the segments its share owns; `work` and the results are as in [`map_pieces`], the same
/// whichever share a segment went to.
pub fn map_shares<W, R: Send>(
    scanners: Vec<Box<dyn Iterator<Item = Piece> + Send + '_>>,
    owner: impl Fn(usize) -> usize + Sync,
    make: impl Fn() -> W + Sync,
    work: impl Fn(&mut W, Piece) -> Option<R> + Sync,
    mut consume: impl FnMut(R),
) {
    std::thread::scope(|s| {
        let mut streams = Vec::new();
        for (k, scanner) in scanners.into_iter().enumerate() {
            let (tx, rx) = sync_channel::<(usize, R)>(SHARE_RESULTS);
            let (owner, make, work) = (&owner, &make, &work);
            s.spawn(move || {
                let mut w = make();
                for piece in scanner.filter(|p| owner(p.ordinal) == k) {
                    let ordinal = piece.ordinal;
                    if let Some(r) = work(&mut w, piece)
                        && tx.send((ordinal, r)).is_err()
                    {
                        return;
                    }
                }
            });
            streams.push((rx, None));
        }
        // Each share's results come in file order: merge them, taking the smallest head. A
        // share whose thread panicked ends early; the scope then hands its panic on.
        loop {
            for (rx, head) in &mut streams {
                if head.is_none() {
                    *head = rx.recv().ok();
                }
            }
            let next = (0..streams.len())
                .filter_map(|k| streams[k].1.as_ref().map(|(ordinal, _)| (*ordinal, k)))
                .min();
            let Some((_, k)) = next else {
                break;
            };
            if let Some((_, r)) = streams[k].1.take() {
                consume(r);
            }
        }
    });
}

/// Pieces dealt to a worker at once, numbered in the order dealt.
struct Batch {
    seq: u64,
    pieces: Vec<Piece>,
    cost: Cost,
}

/// What a batch holds, for the bounds of [`map_pieces`].
#[derive(Clone, Copy, Debug, Default)]
struct Cost {
    /// Bytes of its pieces, mapped or copied (a dropped piece counts a little, so that batches
    /// of them end).
    bytes: usize,
    /// Bytes of its mapped pieces that do not end their segment: those it may release.
    releasable: usize,
    /// Segments that end in it.
    ends: usize,
    /// Whether its releasable pieces released their pages.
    released: bool,
}

impl Cost {
    fn add(&mut self, piece: &Piece) {
        self.bytes += piece.weight();
        if let (Some(b @ Bytes::Mapped(..)), None) = (&piece.bytes, &piece.end) {
            self.releasable += b.len();
        }
        self.ends += usize::from(piece.end.is_some());
    }

    /// What it counts for [`AHEAD`].
    fn memory(&self) -> usize {
        let kept = if self.released { 0 } else { self.releasable };
        self.bytes - self.releasable + kept + self.ends * RESULT_COST
    }
}

/// What the scanner of [`map_pieces`] has dealt and the consumer not yet taken back.
struct Flow {
    state: std::sync::Mutex<FlowState>,
    changed: std::sync::Condvar,
}

struct FlowState {
    /// [`Cost::memory`] of the batches in flight.
    memory: usize,
    /// Their [`Cost::bytes`].
    bytes: usize,
    /// Per worker, the bytes dealt to it that it has not worked yet.
    load: Vec<usize>,
    /// Set when a thread of the run ended early (a panic): the scanner stops dealing.
    stopped: bool,
}

impl Flow {
    fn new(workers: usize) -> Flow {
        Flow {
            state: std::sync::Mutex::new(FlowState {
                memory: 0,
                bytes: 0,
                load: vec![0; workers],
                stopped: false,
            }),
            changed: std::sync::Condvar::new(),
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, FlowState> {
        // a thread that panicked holding the lock left counts that are still usable
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The worker with the fewest bytes to work (the first of them).
    fn least_loaded(&self) -> usize {
        let state = self.lock();
        (0..state.load.len())
            .min_by_key(|&k| state.load[k])
            .unwrap_or(0)
    }

    /// Waits until a batch fits the bounds (one always does when nothing is in flight) and
    /// counts it as dealt to `worker`: its cost, with whether it is to release its pages
    /// ([`RELEASE_AT`]); `None` if the run stopped.
    fn wait_room(&self, worker: usize, mut cost: Cost) -> Option<Cost> {
        let mut state = self.lock();
        loop {
            if state.stopped {
                return None;
            }
            cost.released = cost.releasable > 0 && state.load[worker] >= RELEASE_AT;
            let fits = state.bytes == 0
                || (state.memory + cost.memory() <= AHEAD
                    && state.bytes + cost.bytes <= BYTES_AHEAD);
            if fits {
                state.memory += cost.memory();
                state.bytes += cost.bytes;
                state.load[worker] += cost.bytes;
                return Some(cost);
            }
            state = self.changed.wait(state).unwrap_or_else(|e| e.into_inner());
        }
    }

    /// A worker has worked a batch.
    fn worked(&self, worker: usize, cost: &Cost) {
        let mut state = self.lock();
        state.load[worker] -= cost.bytes;
    }

    /// The consumer has taken a batch's results.
    fn consumed(&self, cost: &Cost) {
        let mut state = self.lock();
        state.memory -= cost.memory();
        state.bytes -= cost.bytes;
        drop(state);
        self.changed.notify_all();
    }

    /// A guard that stops the run when dropped (at a thread's end, or as it unwinds).
    fn stop_on_drop(&self) -> impl Drop + '_ {
        struct Stop<'f>(&'f Flow);
        impl Drop for Stop<'_> {
            fn drop(&mut self) {
                self.0.lock().stopped = true;
                self.0.changed.notify_all();
            }
        }
        Stop(self)
    }
}

/// The bytes read so far through a handle from [`Scanner::bytes_read`].
pub fn load(read: &AtomicU64) -> u64 {
    read.load(Ordering::Relaxed)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scanner(text: &[u8], keep: Keep) -> Scanner {
        let reader = Box::new(std::io::Cursor::new(text.to_vec()));
        Scanner::from_reader(Path::new("t.jsonl"), reader, Arc::default(), keep)
    }

    /// The scanner of a file holding `text`, mapped through windows of `window` bytes.
    fn mapped_scanner(text: &[u8], keep: Keep, window: usize) -> (Scanner, tempfile::TempDir) {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.jsonl");
        std::fs::write(&path, text).unwrap();
        let s = Scanner::open_windowed(&path, keep, window, 1).unwrap();
        assert!(matches!(s.buf, Buffer::Mapped(_)), "a plain file is mapped");
        (s, dir)
    }

    /// The scanner of `text` as a compressed file's: taken in whole chunks of `chunk` bytes,
    /// each after `head` bytes of room.
    fn chunked_scanner(text: &[u8], keep: Keep, chunk: usize, head: usize) -> Scanner {
        let reader = Box::new(std::io::Cursor::new(text.to_vec()));
        let ahead = super::super::lines::ReadAhead::sized(reader, chunk, head);
        let s = Scanner::new(
            Path::new("t.jsonl"),
            Buffer::chunks(ahead, None),
            Arc::default(),
            keep,
        );
        assert!(matches!(s.buf, Buffer::Chunks { .. }));
        s
    }

    /// A segment put back together from its pieces: its info, its bytes (`None`: dropped) and
    /// its overlong lines. The same whether the file is read, mapped (through small windows,
    /// so that segments and lines straddle them, and through large ones) or taken in chunks
    /// (small ones, whose room lines outgrow, and large ones).
    /// A scan that follows the marks of an earlier scan of the same file gives the same
    /// segments and pieces, read or mapped.
    fn segments(text: &[u8], keep: Keep) -> Vec<(Segment, Option<Vec<u8>>, Vec<u64>)> {
        let read = rejoin(scanner(text, keep.clone()));
        let marks = marks_of(&read);
        let plain = pieces(scanner(text, keep.clone()));
        assert_eq!(
            pieces(scanner(text, keep.clone()).following(marks.clone())),
            plain,
            "a scan following marks gives the same pieces"
        );
        let (trusting, lost) = scanner(text, keep.clone())
            .following(marks.clone())
            .trusting_marks();
        assert_eq!(
            pieces(trusting),
            plain,
            "a scan trusting marks gives the same pieces"
        );
        assert!(
            !lost.load(Ordering::Relaxed),
            "marks of the file are not lost"
        );
        // tiny chunks only for small files: a line longer than the room is copied again at
        // each chunk, as a read buffer copies it
        let sizes: &[(usize, usize)] = if text.len() <= 1 << 16 {
            &[(7, 0), (64, 16), (4096, 1024), (1 << 20, 1 << 19)]
        } else {
            &[(1 << 16, 1 << 14), (1 << 20, 1 << 19)]
        };
        for &(chunk, head) in sizes {
            let chunked = chunked_scanner(text, keep.clone(), chunk, head);
            assert_eq!(
                format!("{:?}", rejoin(chunked)),
                format!("{read:?}"),
                "a file taken in chunks of {chunk} bytes after {head} of room scans as when read"
            );
            let chunked = chunked_scanner(text, keep.clone(), chunk, head);
            let (trusting, _) = chunked.following(marks.clone()).trusting_marks();
            assert_eq!(
                format!("{:?}", rejoin(trusting)),
                format!("{read:?}"),
                "a file taken in chunks scans the same trusting marks"
            );
        }
        // a zstd file in frames with a seek table, starting again at the marks it trusts:
        // tiny frames and read-aheads for small files, every jump taken
        let framed: &[(usize, usize, usize, u64)] = if text.len() <= 1 << 16 {
            &[(64, 64, 16, 1), (512, 256, 64, 300), (4096, 1024, 1024, 1)]
        } else {
            &[(4096, 4096, 1024, 1), (1 << 16, 1 << 14, 1 << 14, 1 << 16)]
        };
        for &(frame, chunk, head, jump) in framed {
            let (s, _dir) = framed_scanner(text, keep.clone(), frame, (chunk, head), jump);
            let (trusting, lost) = s.following(marks.clone()).trusting_marks();
            let got = rejoin(trusting);
            assert!(
                !lost.load(Ordering::Relaxed),
                "marks of the file are not lost"
            );
            let case = format!("frames of {frame}, chunks of {chunk}, jumps from {jump}");
            assert_jumped_like(&got, &read, &keep, &case);
        }
        for window in [4096, WINDOW] {
            let (mapped, _dir) = mapped_scanner(text, keep.clone(), window);
            assert_eq!(
                format!("{:?}", rejoin(mapped)),
                format!("{read:?}"),
                "a file mapped through windows of {window} bytes scans as when read"
            );
            let (mapped, _dir) = mapped_scanner(text, keep.clone(), window);
            assert_eq!(
                format!("{:?}", rejoin(mapped.following(marks.clone()))),
                format!("{read:?}"),
                "a mapped file scans the same following marks"
            );
            let (mapped, _dir) = mapped_scanner(text, keep.clone(), window);
            let (trusting, _) = mapped.following(marks.clone()).trusting_marks();
            assert_eq!(
                format!("{:?}", rejoin(trusting)),
                format!("{read:?}"),
                "a mapped file scans the same trusting marks"
            );
        }
        read
    }

    type Rejoined = (Segment, Option<Vec<u8>>, Vec<u64>);

    /// A scanner of `text` written as zstd in frames of `frame` bytes with a seek table, read
    /// ahead in chunks of `(chunk, head)`, starting again at marks `jump` bytes or more ahead.
    fn framed_scanner(
        text: &[u8],
        keep: Keep,
        frame: usize,
        (chunk, head): (usize, usize),
        jump: u64,
    ) -> (Scanner, tempfile::TempDir) {
        use std::io::Write as _;
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.jsonl.zst");
        let mut w = super::super::seekable::FramedZstd::with_frames(
            std::fs::File::create(&path).unwrap(),
            frame,
        )
        .unwrap();
        w.write_all(text).unwrap();
        w.finish().unwrap();
        let read = Arc::new(AtomicU64::new(0));
        let file = super::super::lines::Counting::new(
            std::fs::File::open(&path).unwrap(),
            Arc::clone(&read),
        );
        let decoder = Box::new(zstd::Decoder::new(file).unwrap());
        let ahead = super::super::lines::ReadAhead::sized(decoder, chunk, head);
        let seek = super::super::lines::seek_of(&path, &read);
        assert!(seek.is_some(), "a seek table");
        let mut s = Scanner::new(&path, Buffer::chunks(ahead, seek), read, keep);
        s.jump_min = jump;
        (s, dir)
    }

    /// The segments of a scan that started again at marks are those of a read, except that in
    /// [`Keep::Failing`] a failing test it jumped over (and every failing test after it) is
    /// deferred, its bytes not kept.
    fn assert_jumped_like(got: &[Rejoined], read: &[Rejoined], keep: &Keep, case: &str) {
        assert_eq!(got.len(), read.len(), "{case}");
        for ((g, gb, go), (r, rb, ro)) in got.iter().zip(read) {
            let deferred_here = *keep == Keep::Failing && g.deferred && !r.deferred;
            let mut g = g.clone();
            if deferred_here {
                assert!(r.failing() && gb.is_none(), "{case}: {r:?}");
                g.deferred = false;
            }
            assert_eq!(format!("{g:?}"), format!("{r:?}"), "{case}");
            if !deferred_here {
                assert_eq!((gb, go), (rb, ro), "{case}: segment {}", r.ordinal);
            }
        }
    }

    /// Every piece of a scan, field for field.
    fn pieces(s: Scanner) -> Vec<String> {
        s.map(|p| format!("{p:?}")).collect()
    }

    /// The marks of a scan's segments.
    fn marks_of(segments: &[Rejoined]) -> Option<Arc<Marks>> {
        let mut marks = Marks::default();
        segments.iter().for_each(|(s, _, _)| marks.add(s));
        marks.finish()
    }

    /// The segments of a scan put back together from their pieces.
    fn rejoin(pieces: impl Iterator<Item = Piece>) -> Vec<(Segment, Option<Vec<u8>>, Vec<u64>)> {
        let mut out = Vec::new();
        let (mut bytes, mut overlong): (Option<Vec<u8>>, Vec<u64>) = (None, Vec::new());
        let mut ordinal = None;
        for piece in pieces {
            if ordinal != Some(piece.ordinal) {
                assert!(bytes.is_none(), "a segment ended without its last piece");
                ordinal = Some(piece.ordinal);
            }
            if let Some(b) = &piece.bytes {
                bytes.get_or_insert_with(Vec::new).extend_from_slice(b);
            }
            overlong.extend(&piece.overlong);
            if let Some(seg) = piece.end {
                out.push((seg, bytes.take(), std::mem::take(&mut overlong)));
            }
        }
        out
    }

    /// One line per segment: `ordinal first_line begin=line:id end=outcome index=i next=line
    /// bytes=...`.
    fn describe(text: &str, keep: Keep) -> Vec<String> {
        segments(text.as_bytes(), keep)
            .into_iter()
            .map(|(s, bytes, _)| {
                format!(
                    "{} @{} begin={} end={} index={} next={} bytes={:?}",
                    s.ordinal,
                    s.first_line,
                    s.begin.as_ref().map_or("-".to_string(), |b| format!(
                        "{}:{}",
                        b.line,
                        b.test.as_deref().unwrap_or("?")
                    )),
                    s.first_end
                        .map_or("-".to_string(), |e| format!("{:?}", e.outcome)),
                    s.index,
                    s.next_begin.map_or("-".to_string(), |l| l.to_string()),
                    bytes.as_deref().map(String::from_utf8_lossy)
                )
            })
            .collect()
    }

    fn check(text: &str, keep: Keep, expect: &str) {
        let expect: Vec<&str> = expect.trim().lines().map(str::trim).collect();
        pretty_assertions::assert_eq!(expect.join("\n"), describe(text, keep).join("\n"));
    }

    const TWO: &str = concat!(
        "{\"k\":\"begin\",\"test\":\"a\"}\n",
        "{\"k\":\"def\",\"frame\":1,\"stmt\":1,\"var\":{\"local\":\"end\"}}\n",
        "{\"k\":\"end\",\"test\":\"a\",\"outcome\":\"fail\"}\n",
        "\n",
        "{\"k\" : \"begin\", \"test\":\"b\"}\r\n",
        "{\"k\":\"end\",\"test\":\"b\",\"outcome\":\"pass\"}"
    );

    /// A marks file (`tests.marks`) is read as the marks it lists, for the length it names
    /// only, and any line that is not a mark, one cut short or one too long for a mark makes
    /// the whole file passed over.
    #[test]
    fn a_marks_file_is_taken_whole_or_not_at_all() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("tests.marks");
        let read = |text: &str, len: u64| {
            std::fs::write(&path, text).unwrap();
            Marks::read(&path, Some(len))
        };
        let at = |byte, line| At { byte, line };
        let want = Marks::from_headers(
            [(at(0, 1), true), (at(40, 3), false), (at(90, 4), true)],
            120,
        );
        assert!(want.is_some());
        let good = "paf-marks 1 120\nb 0 1\ne 40 3\nb 90 4\n";
        assert_eq!(read(good, 120), want);
        assert_eq!(read(good, 121), None, "made for another length");
        // a compressed file's marks: of the length they name, which is not checked
        assert_eq!(Marks::read(&path, None), want);
        std::fs::write(&path, "paf-marks 1 120\nb 0 1\ne 40 3\nb 130 4\n").unwrap();
        assert_eq!(
            Marks::read(&path, None),
            None,
            "a mark past the length named"
        );
        for bad in [
            "",
            "paf-marks 1 120",
            "paf-marks 2 120\nb 0 1\n",
            "paf-marks 1 120\nb 0 1\ne 40 3\nb 90 4",
            "paf-marks 1 120\nb 0 1\nx 40 3\nb 90 4\n",
            "paf-marks 1 120\nb 0 1\ne 40 3 7\nb 90 4\n",
            "paf-marks 1 120\nb 0 1\ne 40\nb 90 4\n",
            "paf-marks 1 120\nb 0 1\ne 90 3\nb 40 4\n",
            "paf-marks 1 120\nb 0 1\ne 40 3\nb 130 4\n",
        ] {
            assert_eq!(read(bad, 120), None, "{bad:?}");
        }
        let long = format!("paf-marks 1 120\nb 0 1\ne 40 {}3\nb 90 4\n", "0".repeat(60));
        assert_eq!(read(&long, 120), None, "a line longer than a mark");
        let short = "paf-marks 1 120\nb 0 1\ne 40 0003\nb 90 4\n";
        assert_eq!(read(short, 120), want, "leading zeros are a number still");
        assert_eq!(Marks::read(&dir.path().join("none"), Some(120)), None);
        // What `text` writes is what was read.
        assert_eq!(want.as_ref().map(Marks::text).as_deref(), Some(good));
    }

    /// The marks a scan of a file finds are its header lines; a line too long to hold hides
    /// the places after it, so there are none.
    #[test]
    fn a_files_marks_are_its_begin_and_first_end_records() {
        let path = Path::new("tests.jsonl");
        let begin = |t: &str| format!("{{\"k\":\"begin\",\"test\":\"{t}\"}}\n");
        let end = "{\"k\":\"end\",\"test\":\"t\",\"outcome\":\"pass\",\"events\":0}\n";
        // offsets: 0 (25 bytes), 25 (51), 76 (51), 127 (25), 152 (a blank line), 153 (51)
        let text = [
            begin("a"),
            end.into(),
            end.into(),
            begin("b"),
            "\n".into(),
            end.into(),
        ]
        .concat();
        assert_eq!((begin("a").len(), end.len()), (25, 51));
        // In chunks of any size, cut anywhere in a line.
        let marks_of = |bytes: &[u8], size: usize| {
            let (send, chunks) = sync_channel(bytes.len() / size + 1);
            for chunk in bytes.chunks(size) {
                send.send(chunk.to_vec()).unwrap();
            }
            drop(send);
            Marks::of_chunks(path, chunks).unwrap()
        };
        for size in [1, 7, 30, 204] {
            let marks = marks_of(text.as_bytes(), size).unwrap();
            assert_eq!(
                marks.text(),
                "paf-marks 1 204\nb 0 1\ne 25 2\nb 127 4\ne 153 6\n",
                "chunks of {size}"
            );
        }
        let long = format!("{{\"k\":\"def\",\"pad\":\"{}\"}}\n", "x".repeat(MAX_RECORD));
        let text = [begin("a"), long, end.into()].concat();
        assert_eq!(marks_of(text.as_bytes(), 1 << 20), None);
    }

    #[test]
    fn marks_of_another_file_are_dropped_where_they_do_not_fit() {
        let marked = TWO.repeat(3);
        let marks = marks_of(&segments(marked.as_bytes(), Keep::All));
        assert!(marks.is_some(), "a scan without overlong lines has marks");
        // Each file differs from the marked one: a line more, less, longer, a header gone,
        // a test more at the end, the file cut short; and one with an overlong line.
        let long = format!("{{\"k\":\"def\",\"x\":\"{}\"}}\n", "y".repeat(MAX_RECORD));
        let changed = [
            marked.replacen(
                "{\"k\":\"def\"",
                "{\"k\":\"use\",\"frame\":1}\n{\"k\":\"def\"",
                2,
            ),
            marked.replacen(
                "{\"k\":\"def\",\"frame\":1,\"stmt\":1,\"var\":{\"local\":\"end\"}}\n",
                "",
                1,
            ),
            marked.replacen("\"frame\":1", "\"frame\":12345", 1),
            marked.replacen(
                "\"k\":\"end\",\"test\":\"a\"",
                "\"k\":\"def\",\"test\":\"a\"",
                1,
            ),
            marked.replacen("\"k\" : \"begin\"", "\"k\" : \"use\"", 1),
            format!("{marked}\n{TWO}"),
            marked[..marked.len() / 2].to_string(),
            marked.replacen("\n\n", &format!("\n{long}"), 1),
        ];
        for (i, text) in changed.iter().enumerate() {
            assert_ne!(text, &marked, "case {i} changes the file");
            for keep in [Keep::All, Keep::Failing, Keep::Except(Arc::new([1, 4]))] {
                let plain = pieces(scanner(text.as_bytes(), keep.clone()));
                let followed = scanner(text.as_bytes(), keep.clone()).following(marks.clone());
                pretty_assertions::assert_eq!(
                    pieces(followed),
                    plain,
                    "case {i}, {keep:?}: marks that do not fit are dropped"
                );
                // trusted, they give the same pieces, or say the line numbers are lost
                let (trusting, lost) = scanner(text.as_bytes(), keep.clone())
                    .following(marks.clone())
                    .trusting_marks();
                let trusted = pieces(trusting);
                if !lost.load(Ordering::Relaxed) {
                    pretty_assertions::assert_eq!(
                        trusted,
                        plain,
                        "case {i}, {keep:?}: marks trusted and not lost give the file's pieces"
                    );
                }
            }
        }
    }

    /// `n` tests of about 1 KB, every seventh failing.
    fn many_tests(n: usize) -> String {
        let mut text = String::new();
        for t in 0..n {
            text.push_str(&format!("{{\"k\":\"begin\",\"test\":\"t{t}\"}}\n"));
            for e in 0..10 {
                text.push_str(&format!(
                    "{{\"k\":\"def\",\"frame\":{e},\"stmt\":{t},\"var\":{{\"local\":\"{}\"}}}}\n",
                    "v".repeat(40)
                ));
            }
            let outcome = if t % 7 == 3 { "fail" } else { "pass" };
            text.push_str(&format!(
                "{{\"k\":\"end\",\"test\":\"t{t}\",\"outcome\":\"{outcome}\",\"events\":10}}\n"
            ));
        }
        text
    }

    #[test]
    fn a_framed_file_is_decompressed_from_the_frames_of_the_tests_kept() {
        let text = many_tests(300);
        let read_all = rejoin(scanner(text.as_bytes(), Keep::All));
        let marks = marks_of(&read_all);
        let keeps = [
            Keep::Failing,
            Keep::Only(vec![5, 120, 121, 299].into()),
            Keep::Except((0..300).filter(|o| o % 3 != 0).collect::<Vec<_>>().into()),
            Keep::Nothing,
        ];
        for keep in keeps {
            let read = rejoin(scanner(text.as_bytes(), keep.clone()));
            let jumps = jumps_taken();
            let (s, _dir) = framed_scanner(text.as_bytes(), keep.clone(), 1024, (1024, 256), 1);
            let (trusting, lost) = s.following(marks.clone()).trusting_marks();
            let got = rejoin(trusting);
            assert!(!lost.load(Ordering::Relaxed));
            assert_jumped_like(&got, &read, &keep, &format!("{keep:?}"));
            assert!(jumps_taken() > jumps, "{keep:?}: the scan jumped");
        }
        // a line more in a passing test: a jump lands where no header is, and the scan says
        // its line numbers are lost, for its caller to read the file again without marks
        let at = text.find("\"test\":\"t101\"}\n").unwrap();
        let changed = format!(
            "{}{{\"k\":\"def\"}}\n{}",
            &text[..at + 16],
            &text[at + 16..]
        );
        let (s, _dir) = framed_scanner(changed.as_bytes(), Keep::Failing, 1024, (1024, 256), 1);
        let (trusting, lost) = s.following(marks).trusting_marks();
        let _ = rejoin(trusting);
        assert!(lost.load(Ordering::Relaxed), "the marks no longer fit");
    }

    #[test]
    fn trusted_marks_skip_the_lines_of_dropped_tests_and_say_when_they_no_longer_fit() {
        // larger than a chunk, so that dropped bytes are let go between marks
        let text = many_tests(4000);
        assert!(text.len() > 3 * CHUNK);
        let marks = marks_of(&rejoin(scanner(text.as_bytes(), Keep::All)));
        // the marks the agent would write, from each test's begin line and event count
        let mut headers = Vec::new();
        let (mut byte, mut line) = (0u64, 1u64);
        for l in text.lines() {
            if l.starts_with("{\"k\":\"begin\"") {
                headers.push((At { byte, line }, true));
            } else if l.starts_with("{\"k\":\"end\"") {
                headers.push((At { byte, line }, false));
            }
            byte += l.len() as u64 + 1;
            line += 1;
        }
        let made = Marks::from_headers(headers, text.len() as u64).map(Arc::new);
        assert_eq!(
            made, marks,
            "the marks made from the headers are the scan's"
        );
        let plain = pieces(scanner(text.as_bytes(), Keep::Failing));
        for window in [4096, WINDOW] {
            let (mapped, _dir) = mapped_scanner(text.as_bytes(), Keep::Failing, window);
            let (trusting, lost) = mapped.following(marks.clone()).trusting_marks();
            pretty_assertions::assert_eq!(pieces(trusting), plain);
            assert!(!lost.load(Ordering::Relaxed));
        }
        // a line more in a passing test half way: the next mark is not a header, found out
        // before any line was let go uncounted, and the scan searches on
        let at = text.find("\"test\":\"t2001\"}\n").unwrap();
        let changed = format!(
            "{}{{\"k\":\"def\"}}\n{}",
            &text[..at + 16],
            &text[at + 16..]
        );
        let (trusting, lost) = scanner(changed.as_bytes(), Keep::Failing)
            .following(marks.clone())
            .trusting_marks();
        pretty_assertions::assert_eq!(
            pieces(trusting),
            pieces(scanner(changed.as_bytes(), Keep::Failing))
        );
        assert!(!lost.load(Ordering::Relaxed));
        // a passing test larger than the hold (its bytes are let go before its end), and a
        // line more before its end: the end's mark, the first after lines were let go
        // uncounted, is not a header
        let block = "{\"k\":\"def\",\"frame\":1}\n".repeat((HOLD + 2 * CHUNK) / 23);
        let big = format!("{}{block}{}", &text[..at + 16], &text[at + 16..]);
        let marks = marks_of(&rejoin(scanner(big.as_bytes(), Keep::All)));
        let end = big.find("{\"k\":\"end\",\"test\":\"t2001\"").unwrap();
        let changed = format!("{}{{\"k\":\"use\"}}\n{}", &big[..end], &big[end..]);
        let (trusting, lost) = scanner(changed.as_bytes(), Keep::Failing)
            .following(marks.clone())
            .trusting_marks();
        let _ = pieces(trusting);
        assert!(lost.load(Ordering::Relaxed), "the line numbers are lost");
        // out of order, or past the end: not marks
        assert!(
            Marks::from_headers(
                [
                    (At { byte: 9, line: 2 }, true),
                    (At { byte: 5, line: 3 }, false)
                ],
                20
            )
            .is_none()
        );
        assert!(
            Marks::from_headers(
                [
                    (At { byte: 9, line: 2 }, true),
                    (At { byte: 12, line: 2 }, false)
                ],
                20
            )
            .is_none()
        );
        assert!(Marks::from_headers([(At { byte: 20, line: 2 }, true)], 20).is_none());
    }

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
            Keep::Except(Arc::from([1])),
            r#"0 @1 begin=- end=- index=0 next=1 bytes=Some("")
               1 @1 begin=1:a end=Some(Fail) index=0 next=5 bytes=None
               2 @5 begin=5:b end=Some(Pass) index=1 next=- bytes=Some("{\"k\" : \"begin\", \"test\":\"b\"}\r\n{\"k\":\"end\",\"test\":\"b\",\"outcome\":\"pass\"}")"#,
        );
        let kept = |keep| -> Vec<bool> {
            segments(TWO.as_bytes(), keep)
                .iter()
                .map(|(_, b, _)| b.is_some())
                .collect()
        };
        assert_eq!(kept(Keep::Failing), [false, true, false]);
        assert_eq!(kept(Keep::Only(Arc::from([2]))), [false, false, true]);
        assert_eq!(kept(Keep::Nothing), [false, false, false]);
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

    /// A file of tests, some much larger than a chunk, and its begin lines.
    fn big_file(events: impl Fn(usize) -> usize, outcome: &str) -> (String, Vec<(u64, String)>) {
        let mut text = String::new();
        let mut want = Vec::new();
        let mut line = 1;
        for t in 0..5 {
            let n = events(t);
            want.push((line, format!("t{t}")));
            text.push_str(&format!("{{\"k\":\"begin\",\"test\":\"t{t}\"}}\n"));
            for e in 0..n {
                text.push_str(&format!(
                    "{{\"k\":\"def\",\"frame\":1,\"stmt\":{e},\"var\":{{\"local\":\"x\"}},\"how\":\"const\"}}\n"
                ));
            }
            text.push_str(&format!(
                "{{\"k\":\"end\",\"test\":\"t{t}\",\"outcome\":\"{outcome}\"}}\n"
            ));
            line += n as u64 + 2;
        }
        (text, want)
    }

    /// Segments that straddle chunk boundaries come out whole, in pieces no larger than a piece
    /// and a chunk: a file of tests, some much larger than a chunk, is cut the same as line by
    /// line.
    #[test]
    fn tests_larger_than_a_chunk_come_in_pieces() {
        let (text, want) = big_file(|t| if t % 2 == 0 { 3 } else { 30_000 }, "pass");
        assert!(text.len() > 2 * CHUNK);
        let pieces: Vec<Piece> = scanner(text.as_bytes(), Keep::All).collect();
        assert!(pieces.len() > 6, "big tests are cut in pieces");
        assert!(
            pieces
                .iter()
                .all(|p| p.bytes.as_ref().unwrap().len() <= PIECE_BYTES + CHUNK)
        );
        let joined: Vec<u8> = pieces
            .iter()
            .flat_map(|p| p.bytes.as_deref().unwrap().to_vec())
            .collect();
        assert_eq!(joined, text.as_bytes());
        // Each piece starts at the line its first_line says.
        let mut line = 1;
        for p in &pieces {
            assert_eq!(p.first_line, line);
            line += bytecount::count(p.bytes.as_ref().unwrap(), b'\n') as u64;
        }
        let segs = segments(text.as_bytes(), Keep::All);
        let got: Vec<(u64, String)> = segs
            .iter()
            .filter_map(|(s, _, _)| s.begin.clone().map(|b| (b.line, b.test.unwrap())))
            .collect();
        assert_eq!(got, want);
        assert_eq!(segs.iter().filter(|(s, _, _)| s.finishes()).count(), 5);
    }

    /// The failing pass holds a test until its class is known; one larger than [`HOLD`] is
    /// deferred, and so is every failing test after it.
    #[test]
    fn failing_tests_larger_than_the_hold_are_deferred() {
        let (text, _) = big_file(|t| if t == 2 { 150_000 } else { 3 }, "fail");
        assert!(text.len() > HOLD);
        let segs = segments(text.as_bytes(), Keep::Failing);
        let seen: Vec<(bool, bool)> = segs
            .iter()
            .skip(1)
            .map(|(s, b, _)| (b.is_some(), s.deferred))
            .collect();
        assert_eq!(
            seen,
            [
                (true, false),
                (true, false),
                (false, true),
                (false, true),
                (false, true)
            ]
        );
        // A later pass streams exactly the deferred ones.
        let only: Arc<[usize]> = Arc::from([3, 4, 5]);
        let kept: Vec<usize> = segments(text.as_bytes(), Keep::Only(only))
            .iter()
            .filter(|(_, b, _)| b.is_some())
            .map(|(s, _, _)| s.ordinal)
            .collect();
        assert_eq!(kept, [3, 4, 5]);
    }

    /// A line longer than the limit is never held: it is left as an empty line, and its number
    /// is kept, wherever it ends (in a later chunk, at the end of the file, or never).
    #[test]
    fn overlong_lines_become_placeholders() {
        let long = "x".repeat(MAX_RECORD + 10);
        let end = "\n{\"k\":\"end\",\"test\":\"a\",\"outcome\":\"fail\"}\n";
        for (tail, keep) in [(end, Keep::All), ("", Keep::All), (end, Keep::Failing)] {
            let text = format!("{{\"k\":\"begin\",\"test\":\"a\"}}\n{long}{tail}");
            let segs = segments(text.as_bytes(), keep.clone());
            let (seg, bytes, overlong) = &segs[1];
            assert_eq!(overlong, &[2], "{keep:?}");
            assert!(bytes.as_ref().unwrap().len() < 200);
            assert_eq!(seg.finishes(), !tail.is_empty());
        }
        let pieces: Vec<Piece> = scanner(
            format!("{{\"k\":\"begin\",\"test\":\"a\"}}\n{long}\n{{\"k\":\"use\"}}\n").as_bytes(),
            Keep::All,
        )
        .collect();
        let lines: Vec<(u64, bool)> = pieces
            .iter()
            .flat_map(|p| p.lines(Path::new("t")).map(|(n, l)| (n, l.is_ok())))
            .collect();
        assert_eq!(lines, [(1, true), (2, false), (3, true)]);
    }

    /// A line over the limit that ends in the step that takes it over (not later, when it
    /// would be skipped) becomes a placeholder too, with the lines after it intact, wherever
    /// it falls against the chunks (it panicked).
    #[test]
    fn a_line_just_over_the_limit_is_a_placeholder_wherever_it_ends() {
        for over in [1, 20, 4096, CHUNK / 2, CHUNK - 30] {
            let long = format!(
                "{{\"k\":\"use\",\"x\":\"{}\"}}\n",
                "x".repeat(MAX_RECORD + over)
            );
            let mut text = String::new();
            for t in 0..3 {
                text.push_str(&format!("{{\"k\":\"begin\",\"test\":\"t{t}\"}}\n"));
                text.push_str(&long);
                text.push_str(&format!(
                    "{{\"k\":\"end\",\"test\":\"t{t}\",\"outcome\":\"pass\"}}\n"
                ));
            }
            let segs = segments(text.as_bytes(), Keep::All);
            let seen: Vec<(u64, bool, Vec<u64>)> = segs
                .iter()
                .skip(1)
                .map(|(s, _, o)| (s.first_line, s.finishes(), o.clone()))
                .collect();
            assert_eq!(
                seen,
                [(1, true, vec![2]), (4, true, vec![5]), (7, true, vec![8])],
                "a line {over} bytes over the limit"
            );
        }
    }

    #[test]
    fn results_come_back_in_file_order_for_any_number_of_workers() {
        let mut text = String::new();
        for t in 0..2000 {
            let filler = if t % 97 == 0 { 20_000 } else { 0 };
            text.push_str(&format!("{{\"k\":\"begin\",\"test\":\"t{t}\"}}\n"));
            for _ in 0..filler {
                text.push_str("{\"k\":\"use\"}\n");
            }
            text.push_str(&format!(
                "{{\"k\":\"end\",\"test\":\"t{t}\",\"outcome\":\"pass\"}}\n"
            ));
        }
        let run = |workers| {
            let mut out = Vec::new();
            map_pieces(
                scanner(text.as_bytes(), Keep::All),
                workers,
                || (usize::MAX, 0usize),
                |(ordinal, lines), piece| {
                    // The pieces of a segment come to one worker, in order.
                    if *ordinal != piece.ordinal {
                        *ordinal = piece.ordinal;
                        *lines = 0;
                    }
                    *lines += piece.lines(Path::new("t")).count();
                    piece.end.map(|s| (s.ordinal, *lines))
                },
                |o| out.push(o),
            );
            out
        };
        let want = run(0);
        assert_eq!(want.len(), 2001);
        assert_eq!(want[1], (1, 20_002));
        for workers in [1, 3] {
            assert_eq!(run(workers), want, "{workers} workers");
        }
    }

    /// The work over a mapped file's pieces, one result per segment: its ordinal, its lines and
    /// a sum of its bytes, so that a piece whose bytes changed on the way would show.
    fn mapped_results(text: &[u8], workers: usize) -> Vec<(usize, usize, u64)> {
        let (scanner, _dir) = mapped_scanner(text, Keep::All, WINDOW);
        let mut out = Vec::new();
        map_pieces(
            scanner,
            workers,
            || (usize::MAX, 0usize, 0u64),
            |(ordinal, lines, sum), piece| {
                if *ordinal != piece.ordinal {
                    (*ordinal, *lines, *sum) = (piece.ordinal, 0, 0);
                }
                *lines += piece.lines(Path::new("t")).count();
                let bytes = piece.bytes.as_deref().unwrap_or_default();
                *sum += bytes.iter().map(|&b| u64::from(b)).sum::<u64>();
                piece.end.map(|s| (s.ordinal, *lines, *sum))
            },
            |o| out.push(o),
        );
        out
    }

    /// Tests of a few megabytes each among small ones, in a mapped file: the scanner deals a
    /// large test's pieces ahead of its worker (handing their pages back: [`RELEASE_AT`]) and
    /// goes on with the small tests after it on the other workers, and the results still come
    /// back whole and in file order.
    #[test]
    fn large_tests_among_small_ones_come_back_in_file_order() {
        let mut text = String::new();
        for t in 0..300 {
            let filler = match t % 50 {
                3 => 400_000,
                4 => 250_000,
                _ => t % 7,
            };
            text.push_str(&format!("{{\"k\":\"begin\",\"test\":\"t{t}\"}}\n"));
            for i in 0..filler {
                text.push_str(&format!("{{\"k\":\"use\",\"n\":{}}}\n", i % 10));
            }
            text.push_str(&format!(
                "{{\"k\":\"end\",\"test\":\"t{t}\",\"outcome\":\"pass\"}}\n"
            ));
        }
        assert!(
            text.len() > 8 * RELEASE_AT,
            "large tests outgrow a worker's queue"
        );
        let want = mapped_results(text.as_bytes(), 0);
        assert_eq!(want.len(), 301);
        assert_eq!(want[4].1, 400_002);
        for workers in [1, 2, 3] {
            assert_eq!(
                mapped_results(text.as_bytes(), workers),
                want,
                "{workers} workers"
            );
        }
    }

    /// Shares of a file, each scan working the segments it owns, give the results of one
    /// thread, in file order, however the segments are owned; a share that panics ends the run.
    #[test]
    fn shares_give_the_results_of_one_thread_in_file_order() {
        let mut text = String::new();
        for t in 0..500 {
            text.push_str(&format!("{{\"k\":\"begin\",\"test\":\"t{t}\"}}\n"));
            for _ in 0..(t % 13) * 1000 {
                text.push_str("{\"k\":\"use\"}\n");
            }
            text.push_str(&format!(
                "{{\"k\":\"end\",\"test\":\"t{t}\",\"outcome\":\"pass\"}}\n"
            ));
        }
        let work = |(): &mut (), piece: Piece| {
            let lines = piece.lines(Path::new("t")).count();
            Some((piece.ordinal, lines, piece.end.is_some()))
        };
        let mut want = Vec::new();
        map_pieces(
            scanner(text.as_bytes(), Keep::All),
            0,
            || (),
            work,
            |r| want.push(r),
        );
        let owners: [&(dyn Fn(usize) -> usize + Sync); 4] =
            [&|_| 0, &|o| o % 2, &|o| usize::from(o > 250) * 2, &|o| {
                (o * 7919) % 3
            }];
        for (i, owner) in owners.into_iter().enumerate() {
            let scans: Vec<Box<dyn Iterator<Item = Piece> + Send>> = (0..3)
                .map(|_| Box::new(scanner(text.as_bytes(), Keep::All)) as Box<_>)
                .collect();
            let mut got = Vec::new();
            map_shares(scans, owner, || (), work, |r| got.push(r));
            assert_eq!(got, want, "owners {i}");
        }
        // Claimed as the scans go: each segment by one scan, which kept its bytes (the
        // others dropped them), whichever it was; a slow share falls behind and the others
        // take more. Run a few times, since who claims what varies.
        for shares in [2, 3] {
            for _ in 0..5 {
                let claims = Arc::new(Claims::default());
                let scans: Vec<Box<dyn Iterator<Item = Piece> + Send>> = (0..shares)
                    .map(|k| {
                        let keep = Keep::Claim(Arc::clone(&claims), k);
                        Box::new(scanner(text.as_bytes(), keep)) as Box<_>
                    })
                    .collect();
                let mut got = Vec::new();
                map_shares(
                    scans,
                    |o| claims.owner(o),
                    || (),
                    |(), piece: Piece| {
                        assert!(piece.bytes.is_some(), "the claiming scan keeps the bytes");
                        if piece.ordinal.is_multiple_of(50) {
                            std::thread::yield_now();
                        }
                        work(&mut (), piece)
                    },
                    |r| got.push(r),
                );
                assert_eq!(got, want, "{shares} shares claiming");
                let owners: std::collections::BTreeSet<usize> =
                    want.iter().map(|r| claims.owner(r.0)).collect();
                assert!(owners.iter().all(|&k| k < shares), "{owners:?}");
            }
        }
        let panics = std::panic::catch_unwind(|| {
            let scans: Vec<Box<dyn Iterator<Item = Piece> + Send>> = (0..2)
                .map(|_| Box::new(scanner(text.as_bytes(), Keep::All)) as Box<_>)
                .collect();
            map_shares(
                scans,
                |o| o % 2,
                || (),
                |(), piece| {
                    assert!(piece.ordinal != 301, "share stops");
                    piece.end
                },
                |_| {},
            )
        });
        assert!(panics.is_err());
    }

    /// The first share to reach a segment claims it; asking again gives the same answer.
    #[test]
    fn a_segment_is_claimed_once_by_the_first_share_to_reach_it() {
        let claims = Claims::default();
        assert_eq!(claims.owner(3), usize::MAX, "none yet");
        assert!(claims.claim(3, 1));
        assert!(!claims.claim(3, 0), "another share's");
        assert!(claims.claim(3, 1), "still its own");
        assert!(claims.claim(0, 0));
        assert_eq!((claims.owner(0), claims.owner(3)), (0, 1));
        assert_eq!(
            claims.owner(2),
            usize::MAX,
            "the ordinals between are not claimed"
        );
        assert_eq!(claims.owner(9), usize::MAX, "nor those after");
    }

    /// A segment's size from the marks: from its begin record to the next one, or to the end.
    #[test]
    fn marks_give_each_segments_size() {
        let at = |byte, line| At { byte, line };
        // a lead of 10 bytes, then tests at 10, 40 (its end at 70) and 90, the file 120 bytes
        let marks = Marks::from_headers(
            [
                (at(10, 2), true),
                (at(30, 3), false),
                (at(40, 4), true),
                (at(70, 6), false),
                (at(90, 7), true),
            ],
            120,
        )
        .unwrap();
        assert_eq!(marks.sizes(), [10, 30, 50, 30]);
        let marks = Marks::from_headers([(at(0, 1), true), (at(5, 2), false)], 8).unwrap();
        assert_eq!(marks.sizes(), [0, 8]);
    }

    /// A worker or a consumer that panics ends the run with that panic: the scanner, which may
    /// be waiting for room, stops instead of waiting for ever.
    #[test]
    fn a_panic_in_a_worker_or_the_consumer_ends_the_run() {
        let text: String = (0..3000)
            .map(|t| format!("{{\"k\":\"begin\",\"test\":\"t{t}\"}}\n{{\"k\":\"end\",\"test\":\"t{t}\",\"outcome\":\"pass\"}}\n"))
            .collect();
        for workers in [1, 2] {
            let worker_panics = std::panic::catch_unwind(|| {
                map_pieces(
                    scanner(text.as_bytes(), Keep::All),
                    workers,
                    || (),
                    |(), piece| {
                        assert!(piece.ordinal != 1000, "worker stops");
                        piece.end
                    },
                    |_| {},
                )
            });
            assert!(worker_panics.is_err(), "{workers} workers");
            let consumer_panics = std::panic::catch_unwind(|| {
                map_pieces(
                    scanner(text.as_bytes(), Keep::All),
                    workers,
                    || (),
                    |(), piece| piece.end,
                    |seg| assert!(seg.ordinal != 10, "consumer stops"),
                )
            });
            assert!(consumer_panics.is_err(), "{workers} workers");
        }
    }
}
