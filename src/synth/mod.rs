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

mod program;
mod writer;

use std::io;
use std::path::Path;

use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;

use crate::trace::model::{ExceptionInfo, How, Outcome, Role};
use crate::trace::raw::Manifest;
use crate::trace::write::{BundleWriter, Compression};
use program::Program;
use writer::{Statics, TestWriter, exception, field, local, static_field, thrown};

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

/// Writes a synthetic bundle (and `truth.csv`) into `dir`.
pub fn generate(config: &SynthConfig, dir: &Path) -> io::Result<SynthSummary> {
    let faults = (config.failing / 50).clamp(usize::from(config.failing > 0), 200);
    let traps = (config.failing / 30).clamp(usize::from(config.failing > 1), 300);
    let program = Program::new(faults, traps, config.order_dependent);
    let mut w = BundleWriter::create(
        dir,
        &manifest(config),
        &program.statements,
        config.compression,
    )?;
    let mut p = Planting {
        program: &program,
        rng: ChaCha8Rng::seed_from_u64(config.seed),
        summary: SynthSummary {
            faults,
            traps,
            ..SynthSummary::default()
        },
        truth: String::from("test,fault\n"),
        od: OdTruth {
            schema: "paf.synth-od/1",
            pairs: Vec::new(),
            failing: Default::default(),
        },
    };
    let total = config.failing + config.passing;
    let (mut failing_left, mut passing_left) = (config.failing, config.passing);
    for _ in 0..total {
        // Interleave failing and passing tests at random, in proportion to what is left.
        let fail = p.rng.random_range(0..failing_left + passing_left) < failing_left;
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
        let target = p.rng.random_range(budget / 2..=budget.max(1) * 3 / 2);
        while t.events + 16 < target {
            t.work(&program, &mut p.rng)?;
        }
        if fail {
            p.failing(t, &name)?;
        } else {
            p.passing(t, &name)?;
        }
    }
    p.order_dependent(&mut w)?;
    w.side_file("truth.csv", &p.truth)?;
    if config.order_dependent > 0 {
        let mut text = serde_json::to_string_pretty(&p.od).map_err(io::Error::other)?;
        text.push('\n');
        w.side_file("od-truth.json", &text)?;
    }
    w.finish()?;
    p.summary.tests = total + 2 * config.order_dependent;
    Ok(p.summary)
}

fn manifest(config: &SynthConfig) -> Manifest {
    Manifest {
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
        source_roots: Vec::new(),
    }
}

/// What the tests plant, and what is known of them so far: the summary and both truths.
struct Planting<'p> {
    program: &'p Program,
    rng: ChaCha8Rng,
    summary: SynthSummary,
    truth: String,
    od: OdTruth,
}

impl Planting<'_> {
    /// A failing test's planted part: a fault, a trap or (rarely) an assertion.
    fn failing(&mut self, mut t: TestWriter<'_>, name: &str) -> io::Result<()> {
        let (faults, traps) = (self.summary.faults, self.summary.traps);
        let roll = self.rng.random_range(0..100);
        let (e, planted) = if roll == 0 {
            self.summary.assertion_tests += 1;
            let e = exception(
                "junit.framework.AssertionFailedError",
                "junit.framework.Assert",
                "fail",
                "Assert.java",
                50,
                name,
            );
            (e, None)
        } else if faults > 0 && (roll < 35 || traps == 0) {
            let k = self.rng.random_range(0..faults);
            self.summary.fault_tests += 1;
            (self.fault(&mut t, name, k)?, Some(k))
        } else {
            let v = self.rng.random_range(0..traps);
            self.summary.trap_tests += 1;
            (self.trap(&mut t, name, v)?, None)
        };
        self.od.failing.insert(name.to_string(), thrown(&e));
        self.summary.events += t.end(name, Outcome::Fail, Some(e))?;
        if let Some(k) = planted {
            self.truth.push_str(&format!("{name},F{k}\n"));
        }
        Ok(())
    }

    /// Fault `k`: a null made inside the method under test, then dereferenced (local).
    fn fault(&self, t: &mut TestWriter<'_>, name: &str, k: usize) -> io::Result<ExceptionInfo> {
        let [origin, _, crash] = self.program.faults[k];
        let class = format!("synth.Fault{k}");
        let obj = t.construct(&class, &[])?;
        let frame = t.enter(format!("{class}.run"), Some(obj))?;
        t.def(frame, origin, local("x"), Err(How::Call))?;
        t.use_(frame, crash, local("x"), Role::Deref, true)?;
        t.exit(frame, Some("java.lang.NullPointerException"))?;
        Ok(exception(
            "java.lang.NullPointerException",
            &class,
            "run",
            &format!("Fault{k}.java"),
            13,
            name,
        ))
    }

    /// Trap `v`: a field left at its default by the test, then dereferenced (non-local).
    fn trap(&self, t: &mut TestWriter<'_>, name: &str, v: usize) -> io::Result<ExceptionInfo> {
        let [decl, _, _, crash] = self.program.traps[v];
        let class = format!("synth.Trap{v}");
        let target = format!("{class}.target");
        let obj = t.construct(&class, &[(target.clone(), decl)])?;
        let frame = t.enter(format!("{class}.use"), Some(obj))?;
        t.use_(frame, crash, field(target, obj), Role::Deref, true)?;
        t.exit(frame, Some("java.lang.NullPointerException"))?;
        Ok(exception(
            "java.lang.NullPointerException",
            &class,
            "use",
            &format!("Trap{v}.java"),
            10,
            name,
        ))
    }

    /// A passing test exercises the planted statements along their healthy paths.
    fn passing(&mut self, mut t: TestWriter<'_>, name: &str) -> io::Result<()> {
        let (faults, traps) = (self.summary.faults, self.summary.traps);
        if traps > 0 && self.rng.random_range(0..4) == 0 {
            let v = self.rng.random_range(0..traps);
            let [decl, entry, store, crash] = self.program.traps[v];
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
        if faults > 0 && self.rng.random_range(0..8) == 0 {
            let k = 2 * self.rng.random_range(0..faults.div_ceil(2));
            let [_, healthy, crash] = self.program.faults[k];
            let class = format!("synth.Fault{k}");
            let obj = t.construct(&class, &[])?;
            let frame = t.enter(format!("{class}.run"), Some(obj))?;
            t.def(frame, healthy, local("x"), Err(How::New))?;
            t.use_(frame, crash, local("x"), Role::Deref, false)?;
            t.exit(frame, None)?;
        }
        self.summary.events += t.end(name, Outcome::Pass, None)?;
        Ok(())
    }

    /// The order-dependent pairs come last, polluters first, so that in the bundle's order
    /// every victim runs after its polluter and fails.
    fn order_dependent(&mut self, w: &mut BundleWriter) -> io::Result<()> {
        for (k, &[reset, _]) in self.program.shared.iter().enumerate() {
            let class = format!("synth.Shared{k}");
            let instance = format!("{class}.instance");
            let polluter = format!("StateTest{k}.testReset");
            let mut t = TestWriter::begin(w, &polluter)?;
            let frame = t.enter(format!("{class}.reset"), None)?;
            t.def(frame, reset, static_field(&instance), Err(How::Const))?;
            t.exit(frame, None)?;
            let statics = Statics {
                written: vec![instance.clone()],
                ..Statics::default()
            };
            self.summary.events += t.end_with(&polluter, Outcome::Pass, None, Some(statics))?;
            self.od.pairs.push(OdPair {
                polluter,
                victim: format!("StateTest{k}.testGet"),
                static_: instance,
                class,
                line: 11,
            });
        }
        for (k, pair) in self.od.pairs.iter().enumerate() {
            let mut t = TestWriter::begin(w, &pair.victim)?;
            let frame = t.enter(format!("{}.get", pair.class), None)?;
            t.use_(
                frame,
                self.program.shared[k][1],
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
            self.summary.events +=
                t.end_with(&pair.victim, Outcome::Fail, Some(e), Some(statics))?;
            self.summary.od_victims += 1;
        }
        Ok(())
    }
}
