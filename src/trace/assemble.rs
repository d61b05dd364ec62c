//! Checks one segment of `tests.jsonl` (one test's lines), piece by piece, and hands each of
//! its events to an [`EventSink`] as it goes: a test's events are never held together.
//!
//! Every structural rule of the format doc that one test can break is checked here (pairing
//! of `begin`/`end`, known statements, frames entered before use, event counts). A test with
//! problems comes out as `Err` with all of them (at most [`MAX_TEST_PROBLEMS`] listed), so
//! `paf validate` can list every problem in a bundle. An [`Assembly`] needs nothing from other
//! segments, so it runs on any thread; the checks that span the file are the
//! [`super::ledger::Ledger`]'s. [`assemble`] collects a whole test in memory, for tests and
//! small tools.

use rustc_hash::FxHashMap;
use std::path::Path;

use super::fast;
use super::model::{
    Event, ExceptionInfo, FrameId, How, Outcome, Role, Source, StatementTable, StmtIx, TestTrace,
    Var,
};
use super::problem::Problem;
use super::raw::{self, Kind, Record};
use super::scan::{self, Piece, Segment};
use super::symbols::{Intern, Names, Sym};

/// At most this many problems of one test (or of the stray lines of one segment) are kept; the
/// rest are counted in a last problem.
pub const MAX_TEST_PROBLEMS: usize = 100;

/// Where a test's checked events go, one at a time, in order.
pub trait EventSink {
    /// The next event; `names` spells its symbols. `Err` says the event stream is inconsistent
    /// (why, for a problem at the event's line); the sink gets no more events then.
    fn event(&mut self, event: &Event, names: &dyn Names) -> Result<(), String>;
}

/// A sink that only counts on the checks (they are the assembler's).
impl EventSink for () {
    fn event(&mut self, _: &Event, _: &dyn Names) -> Result<(), String> {
        Ok(())
    }
}

/// A checked test without its events (they went to a sink).
#[derive(Clone, Debug)]
pub struct TestRecord {
    /// Position of the test in the bundle (0-based).
    pub index: usize,
    pub id: String,
    /// Line of the test's `begin` record.
    pub line: u64,
    pub outcome: Outcome,
    pub exception: Option<ExceptionInfo>,
    pub truncated: bool,
    pub events: u64,
}

/// Problems of one test or of one segment's stray lines, with a count of those not kept.
#[derive(Default)]
struct Problems {
    kept: Vec<Problem>,
    more: u64,
    /// The line of the last problem not kept.
    last: u64,
}

impl Problems {
    fn push(&mut self, p: Problem) {
        if self.kept.len() < MAX_TEST_PROBLEMS {
            self.kept.push(p);
        } else {
            self.more += 1;
            self.last = self.last.max(p.line.unwrap_or(0));
        }
    }

    fn is_empty(&self) -> bool {
        self.kept.is_empty()
    }

    /// Every problem in line order (a missing end is found after later lines), the count of
    /// those not kept last.
    fn into_vec(mut self, path: &Path) -> Vec<Problem> {
        self.kept.sort_by_key(|p| p.line);
        if self.more > 0 {
            self.kept.push(Problem::at(
                path,
                self.last,
                format!(
                    "... and {} more problems up to this line (the first {MAX_TEST_PROBLEMS} are listed)",
                    self.more
                ),
            ));
        }
        self.kept
    }
}

/// The frames a test entered: each one's method and whether it is still active. Tracers number
/// frames densely (the Java agent counts up), so the ids from the first one on live in a
/// vector, four bytes a frame; an id far from them goes to a map.
#[derive(Default)]
struct Frames {
    base: u64,
    /// By `id - base`: 0 if never entered, else `(method + 1) << 1 | active`.
    dense: Vec<u32>,
    sparse: FxHashMap<FrameId, (Sym, bool)>,
}

impl Frames {
    fn get(&self, frame: FrameId) -> Option<(Sym, bool)> {
        let slot = frame
            .checked_sub(self.base)
            .and_then(|i| self.dense.get(usize::try_from(i).ok()?));
        match slot {
            Some(&v) if v != 0 => Some((Sym((v >> 1) - 1), v & 1 == 1)),
            _ => self.sparse.get(&frame).copied(),
        }
    }

    fn contains(&self, frame: FrameId) -> bool {
        self.get(frame).is_some()
    }

    /// Sets a frame's method and state.
    fn set(&mut self, frame: FrameId, method: Sym, active: bool) {
        if self.dense.is_empty() && self.sparse.is_empty() {
            self.base = frame;
        }
        if let Some(f) = self.sparse.get_mut(&frame) {
            *f = (method, active);
            return;
        }
        // Within reach of the ids seen so far (and a method that fits the encoding).
        let reach = (self.dense.len() as u64).max(4096) * 2;
        let near = frame
            .checked_sub(self.base)
            .filter(|&i| i < reach && method.0 < u32::MAX / 2 - 1);
        match near {
            Some(i) => {
                let i = i as usize;
                if i >= self.dense.len() {
                    self.dense.resize(i + 1, 0);
                }
                self.dense[i] = ((method.0 + 1) << 1) | u32::from(active);
            }
            None => {
                self.sparse.insert(frame, (method, active));
            }
        }
    }
}

/// A test being assembled from its records.
struct Open {
    id: String,
    line: u64,
    events: u64,
    frames: Frames,
    problems: Problems,
    /// Lines of this test that could not be parsed (their events are missing).
    bad_lines: u64,
    /// The sink's complaint, at its line: a problem only if the test has no other.
    sink_error: Option<Problem>,
}

impl Open {
    fn new(id: &str, line: u64) -> Open {
        Open {
            id: id.to_string(),
            line,
            events: 0,
            frames: Frames::default(),
            problems: Problems::default(),
            bad_lines: 0,
            sink_error: None,
        }
    }

    /// The sink still wants events: nothing went wrong so far.
    fn feeding(&self) -> bool {
        self.problems.is_empty() && self.sink_error.is_none()
    }

    /// The problems of a test the segment ended before its `end` record.
    fn unfinished(mut self, seg: &Segment, path: &Path) -> Vec<Problem> {
        let missing = match (&seg.fatal, seg.next_begin) {
            // After a read error the error itself says why the test is cut short.
            (Some(_), _) => None,
            (None, Some(next)) => Some(format!(
                "test {:?} has no end record: expected an end record before the next begin (line {next})",
                self.id
            )),
            (None, None) => Some(format!(
                "test {:?} has no end record: expected an end record before the end of the file \
                 (a tracer that lost the test writes one with \"truncated\": true)",
                self.id
            )),
        };
        if let Some(m) = missing {
            self.problems.push(Problem::at(path, self.line, m));
        }
        if let Some(fatal) = &seg.fatal {
            self.problems.push(fatal.clone());
        }
        self.problems.into_vec(path)
    }
}

/// One line as a record, into `record` (a `Record::default()`), or the problem that says what
/// was expected. The fast parser takes the lines tracers write; serde takes any other line and
/// says what is wrong with a bad one (the two agree on every line the fast one takes).
fn parse<'t>(
    path: &Path,
    number: u64,
    line: &'t [u8],
    record: &mut Record<'t>,
) -> Result<(), Problem> {
    // The fast parser checks UTF-8 as it goes; any other line is checked whole first.
    if fast::parse_bytes(line, record) {
        return Ok(());
    }
    let text = scan::utf8(line).map_err(|e| scan::not_utf8(path, number, &e))?;
    *record = serde_json::from_str::<Record<'_>>(text).map_err(|e| {
        Problem::json_record(path, number, text, &e, |s| {
            serde_json::from_str::<Record<'_>>(s).map(drop)
        })
    })?;
    Ok(())
}

/// One segment being checked: its test (the segment's first line is its `begin`), then any
/// lines after the test's `end`, or before the first `begin` for the lead segment.
#[derive(Default)]
pub struct Assembly {
    open: Option<Open>,
    /// The test, once its `end` record was read.
    test: Option<Result<TestRecord, Vec<Problem>>>,
    stray: Problems,
    /// Where the records that cut the file are, as the lines read say: the begin records
    /// read (a segment has at most one), the line of the first, the line of the first end
    /// record after it, and the number of the line after the last piece's. [`Assembly::finish`]
    /// checks them against where the scanner cut ([`cut_problem`]).
    begins: u32,
    begin_at: Option<u64>,
    end_at: Option<u64>,
    next_line: Option<u64>,
}

impl Assembly {
    pub fn new() -> Assembly {
        Assembly::default()
    }

    /// Checks the lines of the next piece of the segment, handing the test's events to `sink`
    /// while it has no problem.
    pub fn piece(
        &mut self,
        piece: &Piece,
        path: &Path,
        symbols: &mut impl Intern,
        statements: &StatementTable,
        sink: &mut impl EventSink,
    ) {
        let mut lines = piece.raw_lines(path);
        for (number, line) in lines.by_ref() {
            // The record is parsed in place into a local and used by reference: it is large,
            // and moving it (out of serde, through iterator adaptors) cost a fifth of the time.
            let mut record = Record::default();
            match line.and_then(|text| parse(path, number, text, &mut record)) {
                Ok(()) => {}
                Err(p) => {
                    match self.open.as_mut() {
                        Some(t) => {
                            t.problems.push(p);
                            t.bad_lines += 1;
                        }
                        None => self.stray.push(p),
                    }
                    continue;
                }
            };
            self.record(number, &record, path, symbols, statements, sink);
        }
        self.next_line = Some(lines.next_number());
    }

    fn record(
        &mut self,
        number: u64,
        record: &Record<'_>,
        path: &Path,
        symbols: &mut impl Intern,
        statements: &StatementTable,
        sink: &mut impl EventSink,
    ) {
        let problem = |message: String| Problem::at(path, number, message);
        match record.k {
            Kind::Begin => {
                self.begins += 1;
                self.begin_at.get_or_insert(number);
            }
            Kind::End if self.begins > 0 => {
                self.end_at.get_or_insert(number);
            }
            _ => {}
        }
        match (record.k, self.open.as_mut()) {
            // The scanner cut the file at every begin record, so this is the segment's first.
            (Kind::Begin, _) => match &record.test {
                Some(id) => self.open = Some(Open::new(id, number)),
                None => self.stray.push(problem(
                    "begin record lacks \"test\": expected the test id".into(),
                )),
            },
            (Kind::End, Some(_)) => {
                let t = self.open.take().expect("matched Some"); // the arm matched an open test
                self.test = Some(finish(t, number, record, path));
            }
            (_, None) => self.stray.push(problem(
                format!(
                    "{:?} record outside a test: expected a begin record first",
                    record.k
                )
                .to_lowercase(),
            )),
            (_, Some(t)) => match convert(record, symbols, statements, &mut t.frames) {
                Ok(event) => {
                    t.events += 1;
                    if t.feeding()
                        && let Err(message) = sink.event(&event, &*symbols)
                    {
                        t.sink_error = Some(problem(message));
                    }
                }
                Err(message) => {
                    t.problems.push(problem(message));
                    t.bad_lines += 1;
                }
            },
        }
    }

    /// The segment ended (`seg` is what the scanner learned of it): its test, then the
    /// problems of its stray lines, if any.
    pub fn finish(self, seg: &Segment, path: &Path) -> Vec<Result<TestRecord, Vec<Problem>>> {
        let mut out = Vec::new();
        let cut = self.cut_problem(seg, path);
        let mut stray = self.stray;
        if let Some(p) = cut {
            stray.push(p);
        }
        match (self.open, self.test) {
            (Some(t), _) => out.push(Err(t.unfinished(seg, path))),
            (None, test) => {
                out.extend(test.map(|r| {
                    r.map(|t| TestRecord {
                        index: seg.index,
                        ..t
                    })
                }));
                if let Some(fatal) = &seg.fatal {
                    stray.push(fatal.clone());
                }
            }
        }
        if !stray.is_empty() {
            out.push(Err(stray.into_vec(path)));
        }
        out
    }
}

impl Assembly {
    /// The problem of a segment whose records are not where the scanner cut the file: a begin
    /// record past its first line, a first end record on another line than the one the
    /// scanner classed the test by, or lines that do not end where the next segment begins.
    /// A scan that searches the file cuts it where the records are, so this never happens;
    /// one that follows marks (the bundle's `tests.marks`, docs/trace-format.md) trusts them
    /// for the lines it does not read, and this is how a wrong mark shows: the engine then
    /// reads the file again, searching (`engine::analyze`).
    fn cut_problem(&self, seg: &Segment, path: &Path) -> Option<Problem> {
        let begin = seg.begin.as_ref().map(|b| b.line);
        let first_end = seg.offsets.map(|o| o.first_end.map(|at| at.line));
        let (line, what) = if self.begins != u32::from(begin.is_some()) || self.begin_at != begin {
            (
                self.begin_at.or(begin)?,
                "a begin record the scan did not cut the file at",
            )
        } else if first_end.is_some_and(|at| at != self.end_at) {
            (
                self.end_at.or(begin)?,
                "an end record the scan did not class the test by",
            )
        } else if let (Some(next), Some(at)) = (seg.next_begin, self.next_line)
            && next != at
        {
            (
                at,
                "lines that do not end where the scan found the next begin record",
            )
        } else {
            return None;
        };
        Some(Problem::at(
            path,
            line,
            format!(
                "{what}: expected the records where the scan found them (the tests file changed \
                 while it was read, or the marks it was read by do not fit it)"
            ),
        ))
    }
}

/// Checks a test's `end` record against the test and makes its [`TestRecord`] (whose index is
/// the segment's, set by [`Assembly::finish`]).
fn finish(
    mut t: Open,
    line: u64,
    end: &Record<'_>,
    path: &Path,
) -> Result<TestRecord, Vec<Problem>> {
    let mut problem = |m: String| t.problems.push(Problem::at(path, line, m));
    match end.test.as_deref() {
        Some(id) if id == t.id => {}
        Some(id) => problem(format!(
            "end record names test {id:?}: expected {:?}, the test begun on line {}",
            t.id, t.line
        )),
        None => problem(format!("end record lacks \"test\": expected {:?}", t.id)),
    }
    let outcome = end.outcome.unwrap_or_else(|| {
        problem("end record lacks \"outcome\": expected \"pass\" or \"fail\"".into());
        Outcome::Fail
    });
    if outcome == Outcome::Fail && end.exception.is_none() {
        problem(format!(
            "failing test {:?} lacks \"exception\": expected {{\"type\", \"message\", \"frames\"}}",
            t.id
        ));
    }
    let written = t.events + t.bad_lines;
    match end.events {
        Some(n) if n != written => problem(format!(
            "end record says {n} events but {written} event lines were read since the begin on \
             line {}: expected \"events\" to count them{}",
            t.line,
            if n > written {
                " (lines are missing: the test's trace is incomplete)"
            } else {
                ""
            }
        )),
        None if written == 0 => problem(format!(
            "test {:?} has no events: expected at least one event, or \"events\": 0 in the end \
             record if the test reached no instrumented code",
            t.id
        )),
        _ => {}
    }
    if !t.problems.is_empty() {
        return Err(t.problems.into_vec(path));
    }
    if let Some(p) = t.sink_error {
        return Err(vec![p]);
    }
    Ok(TestRecord {
        index: 0,
        id: t.id,
        line: t.line,
        outcome,
        exception: end.exception.as_deref().cloned(),
        truncated: end.truncated.unwrap_or(false),
        events: t.events,
    })
}

/// Keeps every event of a test, with the line of each: what [`assemble`] builds a
/// [`TestTrace`] from.
#[derive(Default)]
struct Collect {
    events: Vec<Event>,
}

impl EventSink for Collect {
    fn event(&mut self, event: &Event, _: &dyn Names) -> Result<(), String> {
        self.events.push(event.clone());
        Ok(())
    }
}

/// Checks a whole segment held in memory (`pieces`, the last one carrying the segment) and
/// turns it into tests: its test with every event, then the problems of any stray lines.
/// Memory grows with the test: for tests and small tools; the engine streams instead.
pub fn assemble(
    pieces: &[Piece],
    path: &Path,
    symbols: &mut impl Intern,
    statements: &StatementTable,
) -> Vec<Result<TestTrace, Vec<Problem>>> {
    let Some(seg) = pieces.last().and_then(|p| p.end.as_ref()) else {
        return Vec::new();
    };
    if pieces.iter().all(|p| p.bytes.is_none()) {
        return Vec::new();
    }
    let mut assembly = Assembly::new();
    let mut collect = Collect::default();
    let mut lines = Vec::new();
    for piece in pieces {
        lines.extend(piece.lines(path).map(|(n, _)| n));
        assembly.piece(piece, path, symbols, statements, &mut collect);
    }
    assembly
        .finish(seg, path)
        .into_iter()
        .map(|r| {
            r.map(|t| {
                // Event lines: those of the lines after the begin that held events. Only a test
                // without problems gets here, so every line between begin and end is an event.
                let event_lines: Vec<u64> = lines
                    .iter()
                    .copied()
                    .filter(|&n| n > t.line)
                    .take(collect.events.len())
                    .collect();
                TestTrace {
                    index: t.index,
                    id: t.id,
                    line: t.line,
                    outcome: t.outcome,
                    exception: t.exception,
                    truncated: t.truncated,
                    events: std::mem::take(&mut collect.events),
                    event_lines,
                }
            })
        })
        .collect()
}

/// Turns one event record into an [`Event`], checking references against the frames seen so far.
fn convert(
    r: &Record<'_>,
    symbols: &mut impl Intern,
    statements: &StatementTable,
    frames: &mut Frames,
) -> Result<Event, String> {
    let mut c = Converter {
        r,
        symbols,
        statements,
        frames,
    };
    match r.k {
        Kind::Enter => c.enter(),
        Kind::Exit => c.exit(),
        Kind::Def => c.def(),
        Kind::Use => c.use_(),
        Kind::Branch => c.branch(),
        Kind::Alloc => c.alloc(),
        Kind::Begin | Kind::End => unreachable!("begin and end are handled by the reader"),
    }
}

/// One event record being converted, with what it is checked against.
struct Converter<'a, 'r, I> {
    r: &'a Record<'r>,
    symbols: &'a mut I,
    statements: &'a StatementTable,
    frames: &'a mut Frames,
}

impl<I: Intern> Converter<'_, '_, I> {
    /// A required number field.
    fn need(&self, v: Option<u64>, field: &str, what: &str) -> Result<u64, String> {
        v.ok_or_else(|| {
            let kind = format!("{:?}", self.r.k).to_lowercase();
            format!("{kind} record lacks \"{field}\": expected {what}")
        })
    }

    fn stmt_of(&self, id: u64) -> Result<StmtIx, String> {
        self.statements.resolve(id).ok_or_else(|| {
            format!("unknown statement id {id}: expected an id from statements.jsonl")
        })
    }

    /// The record's statement, required.
    fn stmt(&self) -> Result<StmtIx, String> {
        self.stmt_of(self.need(self.r.stmt, "stmt", "a statement id")?)
    }

    fn active(&self, frame: FrameId) -> Result<(), String> {
        match self.frames.get(frame) {
            Some((_, true)) => Ok(()),
            Some((_, false)) => Err(format!(
                "frame {frame} has already exited: expected an event of an active frame"
            )),
            None => Err(format!(
                "frame {frame} was never entered: expected an enter record for it first"
            )),
        }
    }

    /// The executing frame, which must be active.
    fn executing(&self) -> Result<FrameId, String> {
        let frame = self.need(self.r.frame, "frame", "the executing frame id")?;
        self.active(frame)?;
        Ok(frame)
    }

    fn var(&mut self, v: &raw::Var<'_>, frame: FrameId) -> Result<Var, String> {
        convert_var(v, frame, self.symbols, self.frames)
    }

    fn enter(&mut self) -> Result<Event, String> {
        let r = self.r;
        let frame = self.need(r.frame, "frame", "a new frame id")?;
        let method = r
            .method
            .as_deref()
            .ok_or_else(|| "enter record lacks \"method\": expected Class.method".to_string())?;
        if self.frames.contains(frame) {
            return Err(format!(
                "frame {frame} is entered a second time: expected a new frame id"
            ));
        }
        if let Some(caller) = r.caller {
            self.active(caller).map_err(|e| format!("caller: {e}"))?;
        }
        let test_line = match r.test_line {
            None => None,
            Some(l) => Some(u32::try_from(l).map_err(|_| {
                format!("test_line {l} is out of range: expected a line number below 2^32")
            })?),
        };
        let method = self.symbols.intern(method);
        self.frames.set(frame, method, true);
        Ok(Event::Enter {
            frame,
            method,
            caller: r.caller,
            this: r.this,
            values: r.values.clone(),
            test_line,
            callback: r.callback.unwrap_or(false),
        })
    }

    fn exit(&mut self) -> Result<Event, String> {
        let frame = self.need(self.r.frame, "frame", "the frame id that exits")?;
        self.active(frame)?;
        if let Some((method, _)) = self.frames.get(frame) {
            self.frames.set(frame, method, false);
        }
        Ok(Event::Exit {
            frame,
            threw: self.r.throw.as_deref().map(|t| self.symbols.intern(t)),
        })
    }

    fn def(&mut self) -> Result<Event, String> {
        let r = self.r;
        let frame = self.executing()?;
        let stmt = self.stmt()?;
        let var = r
            .var
            .as_ref()
            .ok_or_else(|| "def record lacks \"var\": expected the variable defined".to_string())?;
        let var = self.var(var, frame).map_err(|e| format!("var: {e}"))?;
        let source = match (&r.from, r.how) {
            (Some(from), None) => Source::Copy {
                from: self.var(from, frame).map_err(|e| format!("from: {e}"))?,
                cast: r.cast.unwrap_or(false),
            },
            (Some(_), Some(how)) => {
                return Err(format!(
                    "def record has both \"from\" and \"how\" ({}): expected \"from\" for a copy \
                     or \"how\" for a non-copy, not both",
                    how.as_str()
                ));
            }
            (None, how) => Source::Made {
                how: how.unwrap_or(How::Other),
                callee: r.callee.as_deref().map(|c| self.symbols.intern(c)),
            },
        };
        Ok(Event::Def {
            frame,
            stmt,
            var,
            source,
        })
    }

    fn use_(&mut self) -> Result<Event, String> {
        let r = self.r;
        let frame = self.executing()?;
        let stmt = self.stmt()?;
        let var = r
            .var
            .as_ref()
            .ok_or_else(|| "use record lacks \"var\": expected the variable used".to_string())?;
        Ok(Event::Use {
            frame,
            stmt,
            var: self.var(var, frame).map_err(|e| format!("var: {e}"))?,
            role: r.role.unwrap_or(Role::Value),
            null: r.null.unwrap_or(false),
        })
    }

    fn branch(&mut self) -> Result<Event, String> {
        let frame = self.executing()?;
        let stmt = self.stmt()?;
        let uses = self
            .r
            .uses
            .as_deref()
            .unwrap_or_default()
            .iter()
            .enumerate()
            .map(|(i, v)| self.var(v, frame).map_err(|e| format!("uses[{i}]: {e}")))
            .collect::<Result<Vec<_>, _>>()?;
        Ok(Event::Branch { frame, stmt, uses })
    }

    fn alloc(&mut self) -> Result<Event, String> {
        let r = self.r;
        let obj = self.need(r.obj, "obj", "the new object's id")?;
        if let Some(frame) = r.frame {
            self.active(frame)?;
        }
        let stmt = r.stmt.map(|id| self.stmt_of(id)).transpose()?;
        if r.length.is_some() && stmt.is_none() {
            return Err(
                "alloc record of an array lacks \"stmt\": expected the allocating statement"
                    .to_string(),
            );
        }
        let fields = r
            .fields
            .as_deref()
            .unwrap_or_default()
            .iter()
            .map(|f| Ok((self.symbols.intern(&f.field), self.stmt_of(f.stmt)?)))
            .collect::<Result<Vec<(_, StmtIx)>, String>>()?;
        Ok(Event::Alloc {
            obj,
            frame: r.frame,
            stmt,
            fields,
            length: r.length,
        })
    }
}

/// Resolves a variable reference; a local without `frame` belongs to the event's frame.
fn convert_var(
    v: &raw::Var<'_>,
    frame: FrameId,
    symbols: &mut impl Intern,
    frames: &Frames,
) -> Result<Var, String> {
    let kinds = [
        v.local.is_some(),
        v.field.is_some(),
        v.static_.is_some(),
        v.elem.is_some(),
        v.ret.is_some(),
    ];
    if kinds.iter().filter(|&&k| k).count() != 1 {
        return Err(
            "expected exactly one of \"local\", \"field\", \"static\", \"elem\", \"ret\""
                .to_string(),
        );
    }
    if let Some(name) = &v.local {
        let frame = v.frame.unwrap_or(frame);
        match frames.get(frame) {
            Some((_, true)) => {}
            Some((_, false)) => {
                return Err(format!(
                    "local {name:?} of frame {frame}, which has already exited: expected an active frame"
                ));
            }
            None => {
                return Err(format!(
                    "local {name:?} of frame {frame}, which was never entered: expected an active frame"
                ));
            }
        }
        return Ok(Var::Local {
            frame,
            name: symbols.intern(name),
        });
    }
    if let Some(name) = &v.field {
        let obj = v
            .obj
            .ok_or_else(|| format!("field {name:?} lacks \"obj\": expected the object id"))?;
        return Ok(Var::Field {
            obj,
            name: symbols.intern(name),
        });
    }
    if let Some(name) = &v.static_ {
        return Ok(Var::Static {
            name: symbols.intern(name),
        });
    }
    if let Some(array) = v.elem {
        let index = v.index.ok_or_else(|| {
            "array element lacks \"index\": expected the element index".to_string()
        })?;
        return Ok(Var::Elem {
            array,
            index,
            name: v.name.as_deref().map(|n| symbols.intern(n)),
        });
    }
    // Exactly one kind is present (checked above) and it is none of the others.
    let frame = v.ret.expect("one kind is present");
    match frames.get(frame) {
        Some((method, _)) => Ok(Var::Ret { frame, method }),
        None => Err(format!(
            "return value of frame {frame}, which was never entered: expected an entered frame"
        )),
    }
}

// `tests` inside `tests`: this file is the reader of `tests.jsonl`.
#[cfg(test)]
#[allow(clippy::module_inception)]
mod tests {
    use crate::trace::testing::read;
    use crate::trace::{Event, Var};

    /// One line per test: `ok ID OUTCOME N events [truncated]`, or one `LINE: message` per
    /// problem (`-` for a problem with the whole file).
    fn check(input: &str, expect: &str) {
        let r = read(input);
        let mut actual = Vec::new();
        for test in &r.tests {
            match test {
                Ok(t) => actual.push(format!(
                    "ok {} {:?} {} events{}",
                    t.id,
                    t.outcome,
                    t.events.len(),
                    if t.truncated { " truncated" } else { "" }
                )),
                Err(problems) => actual.extend(problems.iter().map(|p| {
                    let line = p.line.map_or("-".to_string(), |l| l.to_string());
                    format!("{line}: {}", p.message)
                })),
            }
        }
        let expect: Vec<&str> = expect.trim().lines().map(str::trim).collect();
        pretty_assertions::assert_eq!(expect.join("\n"), actual.join("\n"));
    }

    #[test]
    fn crlf_blank_lines_and_unknown_fields_are_accepted() {
        check(
            "{\"k\":\"begin\",\"test\":\"a\",\"extra\":[1]}\r\n\r\n\
             {\"k\":\"enter\",\"frame\":1,\"method\":\"C.m\",\"future\":true}\r\n   \n\
             {\"k\":\"exit\",\"frame\":1}\r\n\
             {\"k\":\"end\",\"test\":\"a\",\"outcome\":\"pass\",\"events\":2}\r\n",
            "ok a Pass 2 events",
        );
    }

    #[test]
    fn empty_test_needs_an_explicit_zero_count() {
        check(
            r#"
            {"k":"begin","test":"a"}
            {"k":"end","test":"a","outcome":"pass","events":0}
            {"k":"begin","test":"b"}
            {"k":"end","test":"b","outcome":"fail","truncated":true,"exception":{"type":"E"}}
            "#,
            "ok a Pass 0 events
             5: test \"b\" has no events: expected at least one event, or \"events\": 0 in the end \
             record if the test reached no instrumented code",
        );
    }

    #[test]
    fn truncated_flag_is_kept() {
        check(
            r#"
            {"k":"begin","test":"a"}
            {"k":"enter","frame":1,"method":"C.m"}
            {"k":"end","test":"a","outcome":"fail","truncated":true,"exception":{"type":"E"}}
            "#,
            "ok a Fail 1 events truncated",
        );
    }

    #[test]
    fn frame_misuse_is_reported_at_its_line() {
        check(
            r#"
            {"k":"begin","test":"a"}
            {"k":"enter","frame":1,"method":"C.m"}
            {"k":"enter","frame":1,"method":"C.m"}
            {"k":"enter","frame":2,"method":"C.n","caller":9}
            {"k":"exit","frame":1}
            {"k":"exit","frame":1}
            {"k":"def","frame":1,"stmt":1,"var":{"local":"x"},"how":"const"}
            {"k":"use","frame":1,"stmt":1,"var":{"ret":5}}
            {"k":"end","test":"a","outcome":"pass","events":7}
            "#,
            "4: frame 1 is entered a second time: expected a new frame id
             5: caller: frame 9 was never entered: expected an enter record for it first
             7: frame 1 has already exited: expected an event of an active frame
             8: frame 1 has already exited: expected an event of an active frame
             9: frame 1 has already exited: expected an event of an active frame",
        );
    }

    #[test]
    fn variable_references_are_checked() {
        check(
            r#"
            {"k":"begin","test":"a"}
            {"k":"enter","frame":1,"method":"C.m"}
            {"k":"use","frame":1,"stmt":1,"var":{"ret":5}}
            {"k":"use","frame":1,"stmt":1,"var":{"local":"x","field":"C.f"}}
            {"k":"use","frame":1,"stmt":1,"var":{"field":"C.f"}}
            {"k":"use","frame":1,"stmt":1,"var":{"elem":3}}
            {"k":"use","frame":1,"stmt":1,"var":{"local":"x","frame":4}}
            {"k":"def","frame":1,"stmt":1,"var":{"local":"x"},"from":{"local":"y"},"how":"const"}
            {"k":"alloc","obj":3,"frame":1,"length":4}
            {"k":"def","frame":1,"stmt":100,"var":{"local":"x"}}
            {"k":"use","frame":1,"stmt":1,"var":{"local":"x"},"role":"read"}
            {"k":"end","test":"a","outcome":"pass"}
            "#,
            r#"4: var: return value of frame 5, which was never entered: expected an entered frame
               5: var: expected exactly one of "local", "field", "static", "elem", "ret"
               6: var: field "C.f" lacks "obj": expected the object id
               7: var: array element lacks "index": expected the element index
               8: var: local "x" of frame 4, which was never entered: expected an active frame
               9: def record has both "from" and "how" (const): expected "from" for a copy or "how" for a non-copy, not both
               10: alloc record of an array lacks "stmt": expected the allocating statement
               11: unknown statement id 100: expected an id from statements.jsonl
               12: field "role": unknown variant `read`, expected one of `deref`, `index`, `arg`, `value`"#,
        );
    }

    #[test]
    fn a_bad_test_does_not_stop_the_next_one() {
        check(
            r#"
            {"k":"begin","test":"a"}
            {"k":"enter","frame":"1","method":"C.m"}
            {"k":"begin","test":"b"}
            {"k":"enter","frame":1,"method":"C.m"}
            {"k":"end","test":"b","outcome":"pass","events":1}
            {"k":"exit","frame":1}
            {"k":"begin","test":"c"}
            {"k":"enter","frame":1,"method":"C.m"}
            {"k":"end","test":"c","outcome":"pass"}
            "#,
            r#"2: test "a" has no end record: expected an end record before the next begin (line 4)
               3: field "frame": invalid type: string "1", expected a non-negative integer
               ok b Pass 1 events
               7: exit record outside a test: expected a begin record first
               ok c Pass 1 events"#,
        );
    }

    #[test]
    fn a_local_names_the_event_frame_unless_it_says_otherwise() {
        let r = read(
            r#"
            {"k":"begin","test":"a"}
            {"k":"enter","frame":1,"method":"C.m"}
            {"k":"enter","frame":2,"method":"C.n","caller":1}
            {"k":"def","frame":2,"stmt":1,"var":{"local":"p"},"from":{"local":"a","frame":1}}
            {"k":"end","test":"a","outcome":"pass"}
            "#,
        );
        let Event::Def { var, source, .. } = &r.single().events[2] else {
            panic!("not a def: {:?}", r.single().events[2]);
        };
        let name = |n| r.symbols.lookup(n).unwrap();
        assert_eq!(
            *var,
            Var::Local {
                frame: 2,
                name: name("p")
            }
        );
        assert_eq!(
            *source,
            crate::trace::Source::Copy {
                from: Var::Local {
                    frame: 1,
                    name: name("a")
                },
                cast: false
            }
        );
    }
}
