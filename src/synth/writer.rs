//! Writing one synthetic test's records (enter, exit, def, use, alloc, end), counting its
//! events, with the helpers that spell variables and exceptions.

use std::borrow::Cow;
use std::io;

use rand::RngExt;
use rand_chacha::ChaCha8Rng;

use super::program::{Program, WORK_CLASSES, WORK_FIELDS, WORK_METHODS, WorkClass};
use crate::trace::model::{ExceptionInfo, How, Outcome, Role, StackFrame};
use crate::trace::raw::{FieldDefault, Kind, Record, Var};
use crate::trace::write::BundleWriter;

/// Emits one test's records, counting events.
pub(super) struct TestWriter<'w> {
    w: &'w mut BundleWriter,
    frame: u64,
    obj: u64,
    pub(super) events: u64,
}

pub(super) fn local(name: &'static str) -> Var<'static> {
    Var {
        local: Some(Cow::Borrowed(name)),
        ..Var::default()
    }
}

pub(super) fn field(name: String, obj: u64) -> Var<'static> {
    Var {
        field: Some(Cow::Owned(name)),
        obj: Some(obj),
        ..Var::default()
    }
}

impl<'w> TestWriter<'w> {
    /// Writes the begin record of test `name` and starts counting its events.
    pub(super) fn begin(w: &'w mut BundleWriter, name: &str) -> io::Result<TestWriter<'w>> {
        w.mark(true);
        w.record(&Record {
            k: Kind::Begin,
            test: Some(Cow::Borrowed(name)),
            ..Record::default()
        })?;
        Ok(TestWriter {
            w,
            frame: 0,
            obj: 0,
            events: 0,
        })
    }

    fn event(&mut self, r: Record<'_>) -> io::Result<()> {
        self.events += 1;
        self.w.record(&r)
    }

    pub(super) fn enter(&mut self, method: String, this: Option<u64>) -> io::Result<u64> {
        self.frame += 1;
        let frame = self.frame;
        self.event(Record {
            k: Kind::Enter,
            frame: Some(frame),
            method: Some(Cow::Owned(method)),
            this,
            ..Record::default()
        })?;
        Ok(frame)
    }

    pub(super) fn exit(&mut self, frame: u64, throw: Option<&'static str>) -> io::Result<()> {
        self.event(Record {
            k: Kind::Exit,
            frame: Some(frame),
            throw: throw.map(Cow::Borrowed),
            ..Record::default()
        })
    }

    pub(super) fn def(
        &mut self,
        frame: u64,
        stmt: u64,
        var: Var<'_>,
        source: Result<Var<'_>, How>,
    ) -> io::Result<()> {
        let (from, how) = match source {
            Ok(from) => (Some(from), None),
            Err(how) => (None, Some(how)),
        };
        self.event(Record {
            k: Kind::Def,
            frame: Some(frame),
            stmt: Some(stmt),
            var: Some(var),
            from,
            how,
            ..Record::default()
        })
    }

    pub(super) fn use_(
        &mut self,
        frame: u64,
        stmt: u64,
        var: Var<'_>,
        role: Role,
        null: bool,
    ) -> io::Result<()> {
        self.event(Record {
            k: Kind::Use,
            frame: Some(frame),
            stmt: Some(stmt),
            var: Some(var),
            role: Some(role),
            null: null.then_some(true),
            ..Record::default()
        })
    }

    /// `new Class()`: the constructor frame with the field defaults.
    pub(super) fn construct(&mut self, class: &str, fields: &[(String, u64)]) -> io::Result<u64> {
        self.obj += 1;
        let obj = self.obj;
        let frame = self.enter(format!("{class}.<init>"), Some(obj))?;
        self.event(Record {
            k: Kind::Alloc,
            obj: Some(obj),
            frame: Some(frame),
            fields: Some(
                fields
                    .iter()
                    .map(|(f, s)| FieldDefault {
                        field: Cow::Owned(f.clone()),
                        stmt: *s,
                    })
                    .collect(),
            ),
            ..Record::default()
        })?;
        self.exit(frame, None)?;
        Ok(obj)
    }

    /// One call of a filler method on a fresh or existing work object (about 8 events).
    pub(super) fn work(&mut self, p: &Program, rng: &mut ChaCha8Rng) -> io::Result<()> {
        let c = rng.random_range(0..WORK_CLASSES);
        let m = rng.random_range(0..WORK_METHODS);
        let class = format!("synth.Work{c}");
        let WorkClass { fields, methods } = &p.work[c];
        let names: Vec<(String, u64)> = fields
            .iter()
            .enumerate()
            .map(|(i, &s)| (format!("{class}.f{i}"), s))
            .collect();
        let obj = self.construct(&class, &names)?;
        let (entry, body) = methods[m];
        let frame = self.enter(format!("{class}.m{m}"), Some(obj))?;
        self.def(frame, entry, local("a"), Err(How::Param))?;
        self.def(frame, body[0], local("b"), Err(How::Arith))?;
        let (set, get) = (
            rng.random_range(0..WORK_FIELDS),
            rng.random_range(0..WORK_FIELDS),
        );
        self.def(
            frame,
            body[1],
            field(names[set].0.clone(), obj),
            Ok(local("b")),
        )?;
        self.use_(
            frame,
            body[2],
            field(names[get].0.clone(), obj),
            Role::Value,
            false,
        )?;
        self.exit(frame, None)
    }

    /// Writes the end record; returns the test's event count.
    pub(super) fn end(
        self,
        name: &str,
        outcome: Outcome,
        exception: Option<ExceptionInfo>,
    ) -> io::Result<u64> {
        self.end_with(name, outcome, exception, None)
    }

    /// [`TestWriter::end`], with the static fields the test read and wrote.
    pub(super) fn end_with(
        self,
        name: &str,
        outcome: Outcome,
        exception: Option<ExceptionInfo>,
        statics: Option<Statics>,
    ) -> io::Result<u64> {
        let events = self.events;
        self.w.mark(false);
        self.w.record(&EndRecord {
            record: Record {
                k: Kind::End,
                test: Some(Cow::Borrowed(name)),
                outcome: Some(outcome),
                exception: exception.map(Box::new),
                events: Some(events),
                ..Record::default()
            },
            statics,
        })?;
        Ok(events)
    }
}

pub(super) fn exception(
    kind: &str,
    class: &str,
    method: &str,
    file: &str,
    line: i64,
    test: &str,
) -> ExceptionInfo {
    let (test_class, test_method) = test.split_once('.').unwrap_or((test, "test"));
    ExceptionInfo {
        kind: kind.to_string(),
        message: None,
        frames: vec![
            StackFrame {
                class: class.to_string(),
                method: method.to_string(),
                file: Some(file.to_string()),
                line,
            },
            StackFrame {
                class: test_class.to_string(),
                method: test_method.to_string(),
                file: Some(format!("{test_class}.java")),
                line: 20,
            },
        ],
        ..ExceptionInfo::default()
    }
}

/// An `end` record with the `statics` the format doc describes (which `paf od --bundle` reads
/// and the analysis ignores, so the parser's record has no field for it).
#[derive(serde::Serialize)]
pub(super) struct EndRecord<'a> {
    #[serde(flatten)]
    pub(super) record: Record<'a>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) statics: Option<Statics>,
}

#[derive(serde::Serialize, Default)]
pub(super) struct Statics {
    pub(super) read: Vec<String>,
    pub(super) written: Vec<String>,
}

/// How a failing test fails, for the order runner: exception type, class and line thrown at.
pub(super) fn thrown(e: &ExceptionInfo) -> (String, String, i64) {
    let top = e.frames.first();
    (
        e.kind.clone(),
        top.map_or_else(String::new, |f| f.class.clone()),
        top.map_or(-1, |f| f.line),
    )
}

pub(super) fn static_field(name: &str) -> Var<'static> {
    Var {
        static_: Some(Cow::Owned(name.to_string())),
        ..Var::default()
    }
}
