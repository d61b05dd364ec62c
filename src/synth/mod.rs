//! `paf synth`: deterministic synthetic bundles at any scale, with planted faults (local flows)
//! and planted precondition violations (non-local flows that passing tests also reach), plus the
//! ground truth as `truth.csv` (header `test,fault`).
//!
//! The synthetic program, per planted item:
//! - fault `k` (class `synth.FaultK`): `run()` sets `x = map.get(..)` (line 11, a call into
//!   uninstrumented code) and dereferences `x` at line 13. Failing tests get `null` there: a
//!   local flow. For even `k`, some passing tests reach line 13 through `x = new ..` (line 12),
//!   so theta is {(11,13,x), (12,13,x)} with likelihood 1/2; for odd `k` no passing test does
//!   (likelihood 0/1).
//! - trap `v` (class `synth.TrapV`): field `target` (line 2) must be set by `setTarget` (line 6)
//!   before `use()` dereferences it (line 10). Failing tests skip the setter: the origin is the
//!   field default, a non-local flow; passing tests call the setter, so theta is
//!   {(2,10,target), (6,10,target)} with likelihood 1/2.
//! - filler classes `synth.WorkC` whose methods define and use locals and fields, to reach the
//!   requested number of events per test.
//!
//! About 1% of failing tests end in an assertion failure in the test body (unanalyzed).
//!
//! With `--order-dependent N`, N pairs of tests that depend on their order are appended (a
//! workload for `paf od`): polluter `StateTestK.testReset` sets the static field
//! `synth.SharedK.instance` to null (line 7), and victim `StateTestK.testGet`, which runs after
//! it, dereferences the field (line 11) and fails; alone, or before its polluter, it passes. Their
//! `end` records carry `statics` (what each read and wrote), `od-truth.json` lists the pairs and
//! the failing tests' exceptions, and `scripts/synth-od-runner.py` runs any order of the
//! bundle's tests by those rules, as `paf od detect --runner` expects.

use std::borrow::Cow;
use std::io;
use std::path::Path;

use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;

use crate::trace::model::{ExceptionInfo, How, Outcome, Role, StackFrame};
use crate::trace::raw::{FieldDefault, Kind, Manifest, Record, Statement, Var};
use crate::trace::write::{BundleWriter, Compression};

/// What to generate.
#[derive(Clone, Debug)]
pub struct SynthConfig {
    pub failing: usize,
    pub passing: usize,
    /// Average events per test (at least the events a test needs for its planted item).
    pub events_per_test: usize,
    pub seed: u64,
    pub compression: Compression,
    /// Polluter/victim pairs to append (0: none; the rest of the bundle is the same either way).
    pub order_dependent: usize,
}

/// What was generated, for the command's summary line.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SynthSummary {
    pub tests: usize,
    pub events: u64,
    pub faults: usize,
    pub traps: usize,
    pub fault_tests: usize,
    pub trap_tests: usize,
    pub assertion_tests: usize,
    /// Order-dependent victims (each with its polluter).
    pub od_victims: usize,
}

const WORK_CLASSES: usize = 40;
const WORK_METHODS: usize = 6;
const WORK_FIELDS: usize = 4;

/// Statement ids of one filler class: its field declarations, and per method its entry and
/// four body statements.
struct WorkClass {
    fields: Vec<u64>,
    methods: Vec<(u64, [u64; 4])>,
}

/// Statement ids of the synthetic program.
struct Program {
    statements: Vec<Statement>,
    work: Vec<WorkClass>,
    /// Per fault: (line 11, 12, 13) ids.
    faults: Vec<[u64; 3]>,
    /// Per trap: (field decl, setTarget entry, setTarget store, use deref) ids.
    traps: Vec<[u64; 4]>,
    /// Per order-dependent pair: (reset store, get deref) ids.
    shared: Vec<[u64; 2]>,
}

impl Program {
    fn new(faults: usize, traps: usize, shared: usize) -> Program {
        let mut p = Program {
            statements: Vec::new(),
            work: Vec::new(),
            faults: Vec::new(),
            traps: Vec::new(),
            shared: Vec::new(),
        };
        let mut add = |class: &str, method: Option<&str>, file: &str, line: u32| {
            let id = p.statements.len() as u64;
            p.statements.push(Statement {
                id,
                class: class.to_string(),
                method: method.map(str::to_string),
                file: file.to_string(),
                line,
                bci: None,
                access: None,
            });
            id
        };
        for c in 0..WORK_CLASSES {
            let (class, file) = (format!("synth.Work{c}"), format!("Work{c}.java"));
            let fields = (0..WORK_FIELDS)
                .map(|f| add(&class, None, &file, 2 + f as u32))
                .collect();
            let methods = (0..WORK_METHODS)
                .map(|m| {
                    let name = format!("m{m}");
                    let base = 10 + 8 * m as u32;
                    let entry = add(&class, Some(&name), &file, base);
                    let body = [1, 2, 3, 4].map(|d| add(&class, Some(&name), &file, base + d));
                    (entry, body)
                })
                .collect();
            p.work.push(WorkClass { fields, methods });
        }
        for k in 0..faults {
            let (class, file) = (format!("synth.Fault{k}"), format!("Fault{k}.java"));
            let ids = [11, 12, 13].map(|line| add(&class, Some("run"), &file, line));
            p.faults.push(ids);
        }
        for v in 0..traps {
            let (class, file) = (format!("synth.Trap{v}"), format!("Trap{v}.java"));
            p.traps.push([
                add(&class, None, &file, 2),
                add(&class, Some("setTarget"), &file, 5),
                add(&class, Some("setTarget"), &file, 6),
                add(&class, Some("use"), &file, 10),
            ]);
        }
        for k in 0..shared {
            let (class, file) = (format!("synth.Shared{k}"), format!("Shared{k}.java"));
            p.shared.push([
                add(&class, Some("reset"), &file, 7),
                add(&class, Some("get"), &file, 11),
            ]);
        }
        p
    }
}

/// Emits one test's records, counting events.
struct TestWriter<'w> {
    w: &'w mut BundleWriter,
    frame: u64,
    obj: u64,
    events: u64,
}

fn local(name: &'static str) -> Var<'static> {
    Var {
        local: Some(Cow::Borrowed(name)),
        ..Var::default()
    }
}

fn field(name: String, obj: u64) -> Var<'static> {
    Var {
        field: Some(Cow::Owned(name)),
        obj: Some(obj),
        ..Var::default()
    }
}

impl<'w> TestWriter<'w> {
    /// Writes the begin record of test `name` and starts counting its events.
    fn begin(w: &'w mut BundleWriter, name: &str) -> io::Result<TestWriter<'w>> {
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

    fn enter(&mut self, method: String, this: Option<u64>) -> io::Result<u64> {
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

    fn exit(&mut self, frame: u64, throw: Option<&'static str>) -> io::Result<()> {
        self.event(Record {
            k: Kind::Exit,
            frame: Some(frame),
            throw: throw.map(Cow::Borrowed),
            ..Record::default()
        })
    }

    fn def(
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

    fn use_(
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
    fn construct(&mut self, class: &str, fields: &[(String, u64)]) -> io::Result<u64> {
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
    fn work(&mut self, p: &Program, rng: &mut ChaCha8Rng) -> io::Result<()> {
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
    fn end(
        self,
        name: &str,
        outcome: Outcome,
        exception: Option<ExceptionInfo>,
    ) -> io::Result<u64> {
        self.end_with(name, outcome, exception, None)
    }

    /// [`TestWriter::end`], with the static fields the test read and wrote.
    fn end_with(
        self,
        name: &str,
        outcome: Outcome,
        exception: Option<ExceptionInfo>,
        statics: Option<Statics>,
    ) -> io::Result<u64> {
        let events = self.events;
        self.w.record(&EndRecord {
            record: Record {
                k: Kind::End,
                test: Some(Cow::Borrowed(name)),
                outcome: Some(outcome),
                exception,
                events: Some(events),
                ..Record::default()
            },
            statics,
        })?;
        Ok(events)
    }
}

fn exception(
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
    }
}

/// An `end` record with the `statics` the format doc describes (which `paf od --bundle` reads
/// and the analysis ignores, so the parser's record has no field for it).
#[derive(serde::Serialize)]
struct EndRecord<'a> {
    #[serde(flatten)]
    record: Record<'a>,
    #[serde(skip_serializing_if = "Option::is_none")]
    statics: Option<Statics>,
}

#[derive(serde::Serialize, Default)]
struct Statics {
    read: Vec<String>,
    written: Vec<String>,
}

/// `od-truth.json`: the planted order dependences, and how every failing test fails, for
/// `scripts/synth-od-runner.py`.
#[derive(serde::Serialize)]
struct OdTruth {
    schema: &'static str,
    pairs: Vec<OdPair>,
    /// Failing test -> (exception, class, line): these fail in any order.
    failing: std::collections::BTreeMap<String, (String, String, i64)>,
}

#[derive(serde::Serialize)]
struct OdPair {
    polluter: String,
    victim: String,
    #[serde(rename = "static")]
    static_: String,
    class: String,
    line: i64,
}

/// What a failing test plants.
#[derive(Clone, Copy)]
enum Planted {
    Fault(usize),
    Trap(usize),
    Assertion,
}

/// Writes a synthetic bundle (and `truth.csv`) into `dir`.
pub fn generate(config: &SynthConfig, dir: &Path) -> io::Result<SynthSummary> {
    let faults = (config.failing / 50).clamp(usize::from(config.failing > 0), 200);
    let traps = (config.failing / 30).clamp(usize::from(config.failing > 1), 300);
    let program = Program::new(faults, traps, config.order_dependent);
    let manifest = Manifest {
        format: "paf-trace".to_string(),
        version: 1,
        producer: Some(format!("paf synth (seed {})", config.seed)),
        subject: Some(format!(
            "synthetic: {} failing, {} passing, ~{} events per test{}",
            config.failing,
            config.passing,
            config.events_per_test,
            if config.order_dependent > 0 {
                format!(", {} order-dependent pairs", config.order_dependent)
            } else {
                String::new()
            }
        )),
    };
    let mut w = BundleWriter::create(dir, &manifest, &program.statements, config.compression)?;
    let mut rng = ChaCha8Rng::seed_from_u64(config.seed);
    let mut summary = SynthSummary {
        faults,
        traps,
        ..SynthSummary::default()
    };
    let mut truth = String::from("test,fault\n");
    let mut od = OdTruth {
        schema: "paf.synth-od/1",
        pairs: Vec::new(),
        failing: Default::default(),
    };
    let total = config.failing + config.passing;
    let (mut failing_left, mut passing_left) = (config.failing, config.passing);
    for _ in 0..total {
        // Interleave failing and passing tests at random, in proportion to what is left.
        let fail = rng.random_range(0..failing_left + passing_left) < failing_left;
        let name = if fail {
            let n = config.failing - failing_left;
            failing_left -= 1;
            format!("ErrorTest{}.test{n}", n / 500)
        } else {
            let n = config.passing - passing_left;
            passing_left -= 1;
            format!("RegressionTest{}.test{n}", n / 500)
        };
        let mut t = TestWriter::begin(&mut w, &name)?;
        // A filler prefix of varying length, so tests differ in size; the planted part follows.
        let budget = config.events_per_test as u64;
        let target = rng.random_range(budget / 2..=budget.max(1) * 3 / 2);
        while t.events + 16 < target {
            t.work(&program, &mut rng)?;
        }
        if fail {
            let roll = rng.random_range(0..100);
            let planted = if roll == 0 {
                Planted::Assertion
            } else if faults > 0 && (roll < 35 || traps == 0) {
                Planted::Fault(rng.random_range(0..faults))
            } else {
                Planted::Trap(rng.random_range(0..traps))
            };
            match planted {
                Planted::Fault(k) => {
                    let [origin, _, crash] = program.faults[k];
                    let class = format!("synth.Fault{k}");
                    let obj = t.construct(&class, &[])?;
                    let frame = t.enter(format!("{class}.run"), Some(obj))?;
                    t.def(frame, origin, local("x"), Err(How::Call))?;
                    t.use_(frame, crash, local("x"), Role::Deref, true)?;
                    t.exit(frame, Some("java.lang.NullPointerException"))?;
                    let e = exception(
                        "java.lang.NullPointerException",
                        &class,
                        "run",
                        &format!("Fault{k}.java"),
                        13,
                        &name,
                    );
                    od.failing.insert(name.clone(), thrown(&e));
                    summary.events += t.end(&name, Outcome::Fail, Some(e))?;
                    truth.push_str(&format!("{name},F{k}\n"));
                    summary.fault_tests += 1;
                }
                Planted::Trap(v) => {
                    let [decl, _, _, crash] = program.traps[v];
                    let class = format!("synth.Trap{v}");
                    let target = format!("{class}.target");
                    let obj = t.construct(&class, &[(target.clone(), decl)])?;
                    let frame = t.enter(format!("{class}.use"), Some(obj))?;
                    t.use_(frame, crash, field(target, obj), Role::Deref, true)?;
                    t.exit(frame, Some("java.lang.NullPointerException"))?;
                    let e = exception(
                        "java.lang.NullPointerException",
                        &class,
                        "use",
                        &format!("Trap{v}.java"),
                        10,
                        &name,
                    );
                    od.failing.insert(name.clone(), thrown(&e));
                    summary.events += t.end(&name, Outcome::Fail, Some(e))?;
                    summary.trap_tests += 1;
                }
                Planted::Assertion => {
                    let e = exception(
                        "junit.framework.AssertionFailedError",
                        "junit.framework.Assert",
                        "fail",
                        "Assert.java",
                        50,
                        &name,
                    );
                    od.failing.insert(name.clone(), thrown(&e));
                    summary.events += t.end(&name, Outcome::Fail, Some(e))?;
                    summary.assertion_tests += 1;
                }
            }
        } else {
            // Passing tests exercise the planted statements along their healthy paths.
            if traps > 0 && rng.random_range(0..4) == 0 {
                let v = rng.random_range(0..traps);
                let [decl, entry, store, crash] = program.traps[v];
                let class = format!("synth.Trap{v}");
                let target = format!("{class}.target");
                let obj = t.construct(&class, &[(target.clone(), decl)])?;
                let frame = t.enter(format!("{class}.setTarget"), Some(obj))?;
                t.def(frame, entry, local("t"), Err(How::Param))?;
                t.def(frame, store, field(target.clone(), obj), Ok(local("t")))?;
                t.exit(frame, None)?;
                let frame = t.enter(format!("{class}.use"), Some(obj))?;
                t.use_(frame, crash, field(target, obj), Role::Deref, false)?;
                t.exit(frame, None)?;
            }
            if faults > 0 && rng.random_range(0..8) == 0 {
                let k = 2 * rng.random_range(0..faults.div_ceil(2));
                let [_, healthy, crash] = program.faults[k];
                let class = format!("synth.Fault{k}");
                let obj = t.construct(&class, &[])?;
                let frame = t.enter(format!("{class}.run"), Some(obj))?;
                t.def(frame, healthy, local("x"), Err(How::New))?;
                t.use_(frame, crash, local("x"), Role::Deref, false)?;
                t.exit(frame, None)?;
            }
            summary.events += t.end(&name, Outcome::Pass, None)?;
        }
    }
    // The order-dependent pairs come last, polluters first, so that in the bundle's order every
    // victim runs after its polluter and fails.
    for (k, &[reset, _]) in program.shared.iter().enumerate() {
        let class = format!("synth.Shared{k}");
        let instance = format!("{class}.instance");
        let polluter = format!("StateTest{k}.testReset");
        let mut t = TestWriter::begin(&mut w, &polluter)?;
        let frame = t.enter(format!("{class}.reset"), None)?;
        t.def(frame, reset, static_field(&instance), Err(How::Const))?;
        t.exit(frame, None)?;
        let statics = Statics {
            written: vec![instance.clone()],
            ..Statics::default()
        };
        summary.events += t.end_with(&polluter, Outcome::Pass, None, Some(statics))?;
        od.pairs.push(OdPair {
            polluter,
            victim: format!("StateTest{k}.testGet"),
            static_: instance,
            class,
            line: 11,
        });
    }
    for (k, pair) in od.pairs.iter().enumerate() {
        let mut t = TestWriter::begin(&mut w, &pair.victim)?;
        let frame = t.enter(format!("{}.get", pair.class), None)?;
        t.use_(
            frame,
            program.shared[k][1],
            static_field(&pair.static_),
            Role::Deref,
            true,
        )?;
        t.exit(frame, Some("java.lang.NullPointerException"))?;
        let e = exception(
            "java.lang.NullPointerException",
            &pair.class,
            "get",
            &format!("Shared{k}.java"),
            pair.line,
            &pair.victim,
        );
        let statics = Statics {
            read: vec![pair.static_.clone()],
            ..Statics::default()
        };
        summary.events += t.end_with(&pair.victim, Outcome::Fail, Some(e), Some(statics))?;
        summary.od_victims += 1;
    }
    w.side_file("truth.csv", &truth)?;
    if config.order_dependent > 0 {
        let mut text = serde_json::to_string_pretty(&od).map_err(io::Error::other)?;
        text.push('\n');
        w.side_file("od-truth.json", &text)?;
    }
    w.finish()?;
    summary.tests = total + 2 * config.order_dependent;
    Ok(summary)
}

/// How a failing test fails, for the order runner: exception type, class and line thrown at.
fn thrown(e: &ExceptionInfo) -> (String, String, i64) {
    let top = e.frames.first();
    (
        e.kind.clone(),
        top.map_or_else(String::new, |f| f.class.clone()),
        top.map_or(-1, |f| f.line),
    )
}

fn static_field(name: &str) -> Var<'static> {
    Var {
        static_: Some(Cow::Owned(name.to_string())),
        ..Var::default()
    }
}
