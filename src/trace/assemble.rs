//! Turns one segment of `tests.jsonl` (one test's lines) into a checked [`TestTrace`].
//!
//! Every structural rule of the format doc that one test can break is checked here (pairing
//! of `begin`/`end`, known statements, frames entered before use, event counts). A test with
//! problems comes out as `Err` with all of them, so `paf validate` can list every problem in a
//! bundle. [`assemble`] needs nothing from other segments, so it runs on any thread; the checks
//! that span the file are the [`super::ledger::Ledger`]'s.

use rustc_hash::FxHashMap;
use std::path::Path;

use super::model::{
    Event, FrameId, How, Outcome, Role, Source, StatementTable, StmtIx, TestTrace, Var,
};
use super::problem::Problem;
use super::raw::{self, Kind, Record};
use super::scan::RawSegment;
use super::symbols::Intern;

/// A test being assembled from its records.
struct Open {
    id: String,
    line: u64,
    events: Vec<Event>,
    event_lines: Vec<u64>,
    /// Frame id -> still active?
    frames: FxHashMap<FrameId, bool>,
    problems: Vec<Problem>,
    /// Lines of this test that could not be parsed (their events are missing).
    bad_lines: usize,
}

impl Open {
    fn new(id: &str, line: u64) -> Open {
        Open {
            id: id.to_string(),
            line,
            events: Vec::new(),
            event_lines: Vec::new(),
            frames: FxHashMap::default(),
            problems: Vec::new(),
            bad_lines: 0,
        }
    }

    /// The problems of a test the segment ended before its `end` record.
    fn unfinished(mut self, seg: &RawSegment, path: &Path) -> Vec<Problem> {
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
        self.problems.extend(seg.fatal.clone());
        self.problems
    }
}

/// One line as a record, or the problem that says what was expected.
fn parse<'t>(path: &Path, number: u64, text: &'t str) -> Result<Record<'t>, Problem> {
    serde_json::from_str::<Record<'_>>(text).map_err(|e| {
        Problem::json_record(path, number, text, &e, |s| {
            serde_json::from_str::<Record<'_>>(s).map(drop)
        })
    })
}

/// Checks one segment and turns it into tests: its test (the segment's first line is its
/// `begin`), then the problems of any lines after the test's `end` or before the first
/// `begin`, each list in line order. A dropped segment (no bytes) gives nothing.
pub fn assemble(
    seg: &RawSegment,
    path: &Path,
    symbols: &mut impl Intern,
    statements: &StatementTable,
) -> Vec<Result<TestTrace, Vec<Problem>>> {
    let mut out = Vec::new();
    if seg.bytes.is_none() {
        return out;
    }
    let problem = |line: u64, message: String| Problem::at(path, line, message);
    let mut stray = Vec::new();
    let mut open: Option<Open> = None;
    for (number, line) in seg.lines(path) {
        // The record is parsed into a local and used by reference: it is large, and moving it
        // through iterator adaptors cost a tenth of the reading time.
        let record = match line.and_then(|text| parse(path, number, text)) {
            Ok(record) => record,
            Err(p) => {
                match open.as_mut() {
                    Some(t) => {
                        t.problems.push(p);
                        t.bad_lines += 1;
                    }
                    None => stray.push(p),
                }
                continue;
            }
        };
        match (record.k, open.as_mut()) {
            // The scanner cut the file at every begin record, so this is the segment's first.
            (Kind::Begin, _) => match &record.test {
                Some(id) => open = Some(Open::new(id, number)),
                None => stray.push(problem(
                    number,
                    "begin record lacks \"test\": expected the test id".into(),
                )),
            },
            (Kind::End, Some(_)) => {
                let t = open.take().expect("matched Some"); // the arm matched an open test
                out.push(finish(t, number, &record, seg.index, path));
            }
            (_, None) => stray.push(problem(
                number,
                format!(
                    "{:?} record outside a test: expected a begin record first",
                    record.k
                )
                .to_lowercase(),
            )),
            (_, Some(t)) => match convert(&record, symbols, statements, &mut t.frames) {
                Ok(event) => {
                    t.events.push(event);
                    t.event_lines.push(number);
                }
                Err(message) => {
                    t.problems.push(problem(number, message));
                    t.bad_lines += 1;
                }
            },
        }
    }
    if let Some(t) = open {
        out.push(Err(t.unfinished(seg, path)));
    } else {
        stray.extend(seg.fatal.clone());
    }
    if !stray.is_empty() {
        out.push(Err(stray));
    }
    // Problems of one test in line order (a missing end is found after later lines).
    for r in &mut out {
        if let Err(problems) = r {
            problems.sort_by_key(|p| p.line);
        }
    }
    out
}

/// Checks a test's `end` record against the test and builds the [`TestTrace`].
fn finish(
    mut t: Open,
    line: u64,
    end: &Record<'_>,
    index: usize,
    path: &Path,
) -> Result<TestTrace, Vec<Problem>> {
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
    let written = t.events.len() + t.bad_lines;
    match end.events {
        Some(n) if n != written as u64 => problem(format!(
            "end record says {n} events but {written} event lines were read since the begin on \
             line {}: expected \"events\" to count them{}",
            t.line,
            if n > written as u64 {
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
        return Err(t.problems);
    }
    Ok(TestTrace {
        index,
        id: t.id,
        line: t.line,
        outcome,
        exception: end.exception.clone(),
        truncated: end.truncated.unwrap_or(false),
        events: t.events,
        event_lines: t.event_lines,
    })
}

/// Turns one event record into an [`Event`], checking references against the frames seen so far.
fn convert(
    r: &Record<'_>,
    symbols: &mut impl Intern,
    statements: &StatementTable,
    frames: &mut FxHashMap<FrameId, bool>,
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
    /// Frame id -> still active?
    frames: &'a mut FxHashMap<FrameId, bool>,
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
        match self.frames.get(&frame) {
            Some(true) => Ok(()),
            Some(false) => Err(format!(
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
        if self.frames.contains_key(&frame) {
            return Err(format!(
                "frame {frame} is entered a second time: expected a new frame id"
            ));
        }
        if let Some(caller) = r.caller {
            self.active(caller).map_err(|e| format!("caller: {e}"))?;
        }
        self.frames.insert(frame, true);
        Ok(Event::Enter {
            frame,
            method: self.symbols.intern(method),
            caller: r.caller,
            this: r.this,
            values: r.values.clone().map(Box::new),
        })
    }

    fn exit(&mut self) -> Result<Event, String> {
        let frame = self.need(self.r.frame, "frame", "the frame id that exits")?;
        self.active(frame)?;
        self.frames.insert(frame, false);
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
    frames: &FxHashMap<FrameId, bool>,
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
        match frames.get(&frame) {
            Some(true) => {}
            Some(false) => {
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
    if !frames.contains_key(&frame) {
        return Err(format!(
            "return value of frame {frame}, which was never entered: expected an entered frame"
        ));
    }
    Ok(Var::Ret { frame })
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
