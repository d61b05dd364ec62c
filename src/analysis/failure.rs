//! Phase 1b (PAF section 3.1): a failing test's crash statement, crash variables chosen by the
//! exception's kind, its method under test, and each crash variable backtracked to its origin.
//!
//! The exception (from the test's `end` record) is known before the events, so a
//! [`FailureReplay`] knows where the crash can be and keeps only what the rules need as the
//! events stream past ([`super::crash`]); [`analyze_failure`] runs one over a test in memory.

use std::fmt;
use std::rc::Rc;

use serde::Serialize;

use super::backtrack::{DefNode, Origin, Step, backtrack};
use super::body::BodyPlan;
use super::crash::{Seen, Track, Tracker, Watch, role_index};
use super::kinds::{self, RECEIVER_STATE};
use super::replay::{ReplayError, Replayer};
use crate::trace::assemble::EventSink;
use crate::trace::symbols::Names;
use crate::trace::{
    Dua, EntryValues, Event, ExceptionInfo, Role, StatementTable, StmtIx, Sym, Symbols, TestTrace,
    VarName,
};

/// How a crash variable is chosen, by exception kind (issue 2, phase 1).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum CrashKind {
    /// `NullPointerException`: the dereferenced reference.
    Deref,
    /// `ArrayIndexOutOfBoundsException`: the index.
    Index,
    /// `IllegalArgumentException`, `IllegalStateException`, application exceptions: the
    /// variables of the branch condition the throw was under.
    Branch,
    /// `IndexOutOfBoundsException` and `StringIndexOutOfBoundsException` (the index),
    /// `ClassCastException` (the cast operand), `ArithmeticException` (the divisor),
    /// `NegativeArraySizeException` (the size), `NumberFormatException` (the string parsed),
    /// `ArrayStoreException` (the value stored), an extension beyond PAF (issue 12): raised by a
    /// JDK call the instrumented code made, the arguments of that call; raised by an instruction
    /// of the instrumented code, the operand the tracer records there (role `value`).
    Operand,
    /// `UnsupportedOperationException`, `ConcurrentModificationException` and
    /// `IllegalStateException` raised inside a JDK call (issue 12): the receiver of that call,
    /// the object whose state the JDK refused. Thrown by the code under test itself they are
    /// analyzed by their branch ([`super::kinds::at_site`]).
    Receiver,
    /// `StackOverflowError` (issue 12): the variables of the last branch the innermost frame of
    /// the stack's repeating cycle took before its recursive call, the guard that let the
    /// recursion go on ([`super::kinds::recursion_guard`]).
    Recursion,
    /// Raised in the test body (a Randoop contract check, a regression assertion, a JDK call
    /// the test made): what the code under test returned to the failing line, an extension
    /// beyond PAF (issue 12, docs/algorithm.md "Failures raised in the test body").
    Returned,
}

/// The exception kinds of [`CrashKind::Operand`] that code can only raise with an explicit
/// `throw` (no instruction raises them), or that it often throws so (`ArithmeticException`
/// on an overflow check): with no operand recorded in the throwing frame they are analyzed by
/// the branch they were thrown under, as application exceptions are.
const THROWN_UNDER_BRANCH: &[&str] = &[
    "java.lang.IndexOutOfBoundsException",
    "java.lang.StringIndexOutOfBoundsException",
    "java.lang.ArithmeticException",
    "java.lang.NumberFormatException",
];

/// Why PAF cannot analyze an exception kind, or which analysis it gets.
pub fn classify(exception: &str) -> Result<CrashKind, String> {
    const ASSERTIONS: &[&str] = &[
        "java.lang.AssertionError",
        "junit.framework.AssertionFailedError",
        "junit.framework.ComparisonFailure",
        "org.junit.ComparisonFailure",
        "org.opentest4j.AssertionFailedError",
        "org.junit.internal.ArrayComparisonFailure",
    ];
    match exception {
        "java.lang.NullPointerException" => Ok(CrashKind::Deref),
        "java.lang.ArrayIndexOutOfBoundsException" => Ok(CrashKind::Index),
        "java.lang.IllegalArgumentException" => Ok(CrashKind::Branch),
        e if RECEIVER_STATE.contains(&e) => Ok(CrashKind::Receiver),
        "java.lang.IndexOutOfBoundsException"
        | "java.lang.StringIndexOutOfBoundsException"
        | "java.lang.ClassCastException"
        | "java.lang.ArithmeticException"
        | "java.lang.NegativeArraySizeException"
        | "java.lang.NumberFormatException"
        | "java.lang.ArrayStoreException" => Ok(CrashKind::Operand),
        "java.lang.StackOverflowError" => Ok(CrashKind::Recursion),
        e if ASSERTIONS.contains(&e) => Err(format!(
            "assertion failure ({e}): PAF does not analyze assertions, which check post-conditions"
        )),
        e if ["java.", "javax.", "jdk.", "sun.", "junit.", "org.junit."]
            .iter()
            .any(|p| e.starts_with(p)) =>
        {
            Err(format!(
                "unsupported exception kind {e}: paf analyzes NullPointerException, \
                 ArrayIndexOutOfBoundsException, IllegalArgumentException, \
                 IllegalStateException, IndexOutOfBoundsException, \
                 StringIndexOutOfBoundsException, ClassCastException, ArithmeticException, \
                 NegativeArraySizeException, NumberFormatException, ArrayStoreException, \
                 UnsupportedOperationException, ConcurrentModificationException, \
                 StackOverflowError and application exceptions"
            ))
        }
        _ => Ok(CrashKind::Branch),
    }
}

/// One crash variable of a failure, traced back to its origin.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CrashVar {
    /// The statement the variable is used at: the crash statement, or for
    /// [`CrashKind::Returned`] the `return` (or the operand's use) of the call it came from.
    pub at: StmtIx,
    pub var: VarName,
    pub origin: Origin,
    /// The origin executed after the MUT was entered.
    pub local: bool,
    /// The origin's locality time (see [`super::replay::NewDef::time`]), if traced.
    pub origin_time: Option<i64>,
    /// The failure-inducing dataflow, origin first, ending at the crash statement.
    pub chain: Vec<Step>,
}

/// The analysis of one failing test.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Failure {
    /// The test's index in the bundle.
    pub test: usize,
    pub exception: String,
    pub kind: CrashKind,
    /// The statement where the crash variables are used (for a branch-guarded exception, the
    /// branch; for the argument fallback, the call site).
    pub crash_stmt: StmtIx,
    /// The statement of the innermost instrumented stack frame, where the exception surfaced.
    pub thrown_at: StmtIx,
    pub mut_method: Sym,
    /// Event index at which the MUT was entered.
    pub mut_enter: u32,
    pub vars: Vec<CrashVar>,
    /// Set when the crash variables were chosen by a fallback rule, with the reason.
    pub fallback: Option<String>,
    /// Number of events in the test (the representative of a flow-set is its shortest test).
    pub events: usize,
    /// The Randoop contract a contract check failed on (`equals-hashcode`), from the message
    /// `Contract failed: equals-hashcode on a and b`; part of the flow-set key.
    pub contract: Option<String>,
}

/// A failing test PAF could not analyze, and why (the `unanalyzed` list: every failing test
/// ends in a flow-set or here).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Unanalyzed {
    /// The test's index in the bundle.
    pub test: usize,
    pub exception: Option<String>,
    pub reason: String,
}

/// What the replay of a failing test gave: its analysis (or why there is none), every DUA it
/// exercised, and its method under test's entry.
#[derive(Debug)]
pub struct Replayed {
    pub analysis: Result<Failure, String>,
    /// Sorted and distinct.
    pub duas: Vec<Dua>,
    /// The method under test and, if gathered and written, its entry values.
    pub mut_entry: Option<(String, Option<EntryValues>)>,
    /// If gathered (the evaluation's facts): the statements the events happened at.
    pub stmts: Vec<StmtIx>,
    pub events: u64,
}

/// The replay of a failing test, keeping what its analysis needs as the events stream past.
pub struct FailureReplay {
    replayer: Replayer<Tracker>,
    /// The analysis's plan: where the crash can be, or why the test cannot be analyzed.
    plan: Result<Plan, String>,
    /// A failure raised in the test body: its analysis's plan instead of `plan`.
    body: Option<BodyPlan>,
}

/// What is known of a failure before its events.
struct Plan {
    exception: String,
    kind: CrashKind,
    site: Site,
}

impl FailureReplay {
    /// Starts the replay of a failing test that ended with `exception` (its `end` record),
    /// `truncated` if the tracer stopped it early; `values`: keep the entry values of the
    /// test body's calls (for the evaluation's facts).
    pub fn new(
        exception: Option<&ExceptionInfo>,
        truncated: bool,
        statements: &StatementTable,
        symbols: &Symbols,
        values: bool,
    ) -> FailureReplay {
        let plan = plan(exception, truncated, statements, symbols);
        let body = match (&plan, exception) {
            (Err(_), Some(e)) if !truncated && e.lifecycle_phase().is_none() => {
                BodyPlan::of(e.analyzed(), statements, symbols)
            }
            _ => None,
        };
        let watch = plan.as_ref().ok().map(|p| Watch {
            stmts: p.site.stmts.clone(),
            method: format!("{}.{}", p.site.class, p.site.method),
        });
        let tracker = Tracker::new(watch, values);
        let tracker = match &body {
            Some(b) => tracker.follow_body(b.read_lines()),
            None => tracker,
        };
        FailureReplay {
            replayer: Replayer::new(tracker),
            plan,
            body,
        }
    }

    /// Replays the next event.
    pub fn step(&mut self, event: &Event, names: &dyn Names) -> Result<(), ReplayError> {
        self.replayer.step(event, names)
    }

    /// The `enter` event of the method under test's call so far.
    #[cfg(test)]
    pub(super) fn mut_enter(&self) -> Option<u32> {
        self.replayer.recorder.mut_call().map(|c| c.enter)
    }

    /// The analysis of test `index` once every event was replayed; `symbols` names the method
    /// under test.
    pub fn finish(mut self, index: usize, symbols: &Symbols) -> Replayed {
        let stmts = self.replayer.recorder.stmts.take();
        let stmts = stmts.map_or_else(Vec::new, |s| s.into_iter().collect());
        let t = &self.replayer.recorder;
        let events = u64::from(self.replayer.events());
        let mut duas: Vec<Dua> = t.duas.iter().copied().collect();
        duas.sort_unstable();
        let mut_entry = t.mut_call().map(|c| {
            (
                symbols.name(c.method).to_string(),
                c.values.as_deref().cloned(),
            )
        });
        let analysis = match self.body {
            Some(body) => body.analyze(t, index, events),
            None => self.plan.and_then(|plan| plan.analyze(t, index, events)),
        };
        Replayed {
            analysis,
            duas,
            mut_entry,
            stmts,
            events,
        }
    }
}

impl EventSink for FailureReplay {
    fn event(&mut self, event: &Event, names: &dyn Names) -> Result<(), String> {
        self.step(event, names).map_err(|e| e.message)
    }
}

/// What can be known of a failure before its events: why it cannot be analyzed, or its plan.
fn plan(
    exception: Option<&ExceptionInfo>,
    truncated: bool,
    statements: &StatementTable,
    symbols: &Symbols,
) -> Result<Plan, String> {
    if truncated {
        return Err(truncation(exception));
    }
    let exception = exception.ok_or_else(|| "the failing test has no exception".to_string())?;
    if let Some(phase) = exception.lifecycle_phase() {
        return Err(lifecycle(phase, exception));
    }
    let exception = exception.analyzed();
    let kind = kinds::classify_exception(exception)?;
    let site = Site::find(exception, statements, symbols)?;
    Ok(Plan {
        exception: exception.kind.clone(),
        kind: kinds::at_site(kind, site.callee.is_some()),
        site,
    })
}

/// Analyses a failing test held in memory. `Err` holds the reason it cannot be analyzed (it
/// then goes to the `unanalyzed` list: every failing test is accounted for).
pub fn analyze_failure(
    test: &TestTrace,
    statements: &StatementTable,
    symbols: &Symbols,
) -> Result<Failure, String> {
    let mut r = FailureReplay::new(
        test.exception.as_ref(),
        test.truncated,
        statements,
        symbols,
        false,
    );
    for event in &test.events {
        r.step(event, symbols).map_err(|e| e.message)?;
    }
    r.finish(test.index, symbols).analysis
}

/// Why a test that failed only outside its test method is unanalyzed (docs/java.md,
/// "Lifecycle failures"): PAF looks at the method under test, which a fixture's failure is not.
fn lifecycle(phase: &str, exception: &ExceptionInfo) -> String {
    let method = match phase {
        "before" => "@Before (setUp)",
        "after" => "@After (tearDown)",
        "before-class" => "@BeforeClass",
        "after-class" => "@AfterClass",
        _ => "the test class's set-up",
    };
    format!(
        "lifecycle failure: {} failed in {method}, not in the test method; PAF analyzes failures \
         of the test method",
        exception.kind
    )
}

/// Why a truncated test is unanalyzed. The tracer's own account (e.g. `paf.Timeout: the test
/// did not end within 60 s`) says why it stopped; it is shown when there is one.
fn truncation(exception: Option<&ExceptionInfo>) -> String {
    let why = match exception {
        Some(e) => match &e.message {
            Some(m) => format!(" ({}: {m})", e.kind),
            None => format!(" ({})", e.kind),
        },
        None => String::new(),
    };
    format!("truncated event stream: the tracer stopped recording this test early{why}")
}

/// Where the exception surfaced in instrumented code: the innermost stack frame that maps to
/// statements of the bundle.
pub(super) struct Site {
    class: String,
    method: String,
    /// `file:line` of the frame, for messages.
    position: String,
    /// The statements of that frame's line (a per-instruction tracer may have several).
    stmts: Vec<StmtIx>,
    /// The uninstrumented callee the exception was raised in, when the site is not the
    /// innermost stack frame.
    callee: Option<String>,
}

impl Site {
    pub(super) fn find(
        exception: &ExceptionInfo,
        statements: &StatementTable,
        symbols: &Symbols,
    ) -> Result<Site, String> {
        let mapped = exception.frames.iter().enumerate().find_map(|(depth, f)| {
            let class = symbols.lookup(&f.class)?;
            let method = symbols.lookup(&f.method)?;
            let line = u32::try_from(f.line).ok()?;
            let stmts = statements.at(class, method, line);
            (!stmts.is_empty()).then(|| Site {
                class: f.class.clone(),
                method: f.method.clone(),
                position: format!("{}:{}", f.file.as_deref().unwrap_or("?"), f.line),
                stmts: stmts.to_vec(),
                callee: depth.checked_sub(1).map(|d| {
                    format!(
                        "{}.{}",
                        exception.frames[d].class, exception.frames[d].method
                    )
                }),
            })
        });
        mapped.ok_or_else(|| {
            let top = exception
                .frames
                .first()
                .map_or("an empty stack".to_string(), |f| {
                    format!("{}.{}", f.class, f.method)
                });
            format!(
                "no stack frame is in instrumented code (the exception was raised in {top}); \
                 the test body or an uninstrumented library threw it"
            )
        })
    }
}

/// The crash: its event's statement and the track of the frame it ran in, as it stood then.
struct Crash<'t> {
    stmt: StmtIx,
    track: Option<&'t Track>,
}

impl Plan {
    /// The rules of PAF 3.1 on what the replay kept.
    fn analyze(self, t: &Tracker, index: usize, events: u64) -> Result<Failure, String> {
        let crash = self.crash(t)?;
        let (uses, fallback) = self.uses(&crash)?;
        let call = t.mut_call().ok_or_else(|| {
            "no call from the test body into instrumented code threw: the exception came from \
             the test body itself"
                .to_string()
        })?;
        Ok(Failure {
            test: index,
            exception: self.exception,
            kind: self.kind,
            crash_stmt: uses[0].stmt,
            thrown_at: crash.stmt,
            mut_method: call.method,
            mut_enter: call.enter,
            vars: crash_vars(&uses, 2 * call.enter as i64),
            fallback,
            events: events as usize,
            contract: None,
        })
    }

    /// The crash event: the last event at the crash statement. A `throw new X()` line often
    /// has none (the exception's constructor is not instrumented); then the crash frame is the
    /// latest frame of the site's method, and the crash event its last event.
    fn crash<'t>(&self, t: &'t Tracker) -> Result<Crash<'t>, String> {
        if let Some(c) = &t.candidate {
            let track = c
                .frozen
                .as_ref()
                .or_else(|| c.frame.and_then(|f| t.tracks.get(&f)));
            return Ok(Crash {
                stmt: c.stmt,
                track,
            });
        }
        if let Some(f) = &t.fallback
            && let Some((_, stmt)) = f.last
        {
            return Ok(Crash {
                stmt,
                track: f.track.as_ref().or_else(|| t.tracks.get(&f.frame)),
            });
        }
        Err(format!(
            "no event was recorded at the crash statement {}.{} ({})",
            self.site.class, self.site.method, self.site.position
        ))
    }

    /// The crash variables' uses by the exception's kind, and the fallback rule used, if any.
    fn uses(&self, crash: &Crash<'_>) -> Result<(Vec<Seen>, Option<String>), String> {
        let empty = Track::default();
        let track = crash.track.unwrap_or(&empty);
        let (uses, fallback) = match (self.site.callee.as_deref(), self.kind) {
            // Whatever the overflow struck in, the guard of the recursion at the site.
            (_, CrashKind::Recursion) => {
                (kinds::recursion_guard(track, &self.site.position)?, None)
            }
            // The rule for these kinds, not a fallback: the index, operand, divisor or size is
            // an argument of the JDK call; none is preferred for being null.
            (Some(callee), CrashKind::Operand) => {
                if track.args.is_empty() {
                    return Err(self.no_argument(callee));
                }
                (track.args.clone(), None)
            }
            // The object whose state the JDK refused: the receiver of the call that raised it.
            (Some(callee), CrashKind::Receiver) => (
                kinds::receiver(track, &self.exception, callee, &self.site.position)?,
                None,
            ),
            // Raised in uninstrumented code: the arguments passed to it (the null ones, if any).
            (Some(callee), _) => {
                let args = if track.null_args.is_empty() {
                    &track.args
                } else {
                    &track.null_args
                };
                let fallback = format!(
                    "the exception was raised in uninstrumented {callee}; the crash variables \
                     are the arguments passed to it"
                );
                (args.clone(), Some(fallback))
            }
            (None, CrashKind::Deref) => role(track, Role::Deref),
            (None, CrashKind::Index) => role(track, Role::Index),
            (None, CrashKind::Branch) => (self.branch(track)?, None),
            (None, CrashKind::Operand) => self.operand(track)?,
            // Made a branch kind by `kinds::at_site` when no callee raised it.
            (None, CrashKind::Receiver) => (self.branch(track)?, None),
            // Never chosen by the exception's kind: a failure raised in the test body has its
            // own plan (`super::body`).
            (None, CrashKind::Returned) => (Vec::new(), None),
        };
        if uses.is_empty() {
            return Err(format!(
                "no crash variable: no suitable use was recorded at the crash statement {}",
                self.site.position
            ));
        }
        Ok((uses, fallback))
    }

    /// Every variable of the last branch the crash frame took before the throw.
    fn branch(&self, track: &Track) -> Result<Vec<Seen>, String> {
        match &track.branch {
            Some((_, uses)) => Ok(uses.to_vec()),
            None => Err(format!(
                "{} was not thrown under a branch: no branch was recorded in the throwing frame \
                 before the throw",
                self.exception
            )),
        }
    }

    /// Why an operand kind raised by a JDK call has no crash variable: the call had no
    /// variable argument (`list.get(0)` on an empty list: a constant index, and the cause is
    /// the receiver's size, which paf does not take as a crash variable).
    fn no_argument(&self, callee: &str) -> String {
        let why = match self.exception.as_str() {
            "java.lang.NumberFormatException" => {
                "(a literal string): the code under test parses a constant, which no test input \
                 reaches; look at that literal"
            }
            "java.lang.ArrayStoreException" => {
                "(the arrays or values are not variables the trace names): look at the \
                 component type of the array the call stores into"
            }
            _ => {
                "(a constant index, divisor or size): the receiver's state is the cause, which \
                 paf does not analyze; look at how the receiver got there"
            }
        };
        format!(
            "{} raised in {callee} called at {} with no variable argument {why}",
            self.exception, self.site.position
        )
    }

    /// Raised in the crash frame itself: the operand the tracer records at the raising
    /// instruction (the divisor, the cast operand, the array size: a use with role `value`
    /// that is not a branch's). With none, an exception code throws with `throw` is taken as
    /// thrown under its last branch; a cast or an array allocation is left unanalyzed.
    fn operand(&self, track: &Track) -> Result<(Vec<Seen>, Option<String>), String> {
        if let Some(u) = &track.operand {
            return Ok((vec![u.clone()], None));
        }
        if THROWN_UNDER_BRANCH.contains(&self.exception.as_str()) {
            let uses = self.branch(track)?;
            return Ok((
                uses,
                Some(format!(
                    "no operand was recorded at {}: {} taken as thrown by a `throw` under the \
                     last branch before it",
                    self.site.position, self.exception
                )),
            ));
        }
        Err(format!(
            "{} at {} with no recorded operand: the tracer records a cast's operand, an array \
             size and a value stored into an array only when they are a variable (a local, a \
             static, a captured field, element or call result); look at the {} on that line",
            self.exception,
            self.site.position,
            match self.exception.as_str() {
                "java.lang.ClassCastException" => "cast",
                "java.lang.ArrayStoreException" => "array store",
                _ => "array allocation's size",
            }
        ))
    }
}

/// The last use with `want`'s role at the site, or else the last use there at all.
fn role(track: &Track, want: Role) -> (Vec<Seen>, Option<String>) {
    if let Some(u) = &track.by_role[role_index(want)] {
        return (vec![u.clone()], None);
    }
    match &track.last_site {
        Some(u) => (
            vec![u.clone()],
            Some(format!(
                "no use with role {:?} was recorded at the crash statement; using the last \
                 variable used there",
                format!("{want:?}").to_lowercase()
            )),
        ),
        None => (Vec::new(), None),
    }
}

/// Each distinct crash variable backtracked to its origin; local if the origin executed after
/// the MUT was entered (`mut_start`, a locality time).
pub(super) fn crash_vars(uses: &[Seen], mut_start: i64) -> Vec<CrashVar> {
    let mut vars: Vec<CrashVar> = Vec::new();
    for u in uses {
        if vars.iter().any(|v| v.var == u.var) {
            continue;
        }
        vars.push(CrashVar::backtracked(u, uses[0].stmt, mut_start));
    }
    vars
}

impl CrashVar {
    /// The crash variable of use `u`, used at `at` (theta's use), backtracked to its origin;
    /// local if the origin executed after the MUT was entered (`mut_start`, a locality time).
    pub(super) fn backtracked(u: &Seen, at: StmtIx, mut_start: i64) -> CrashVar {
        let reach: Option<&Rc<DefNode>> = u.reach.as_ref();
        let (origin, origin_time, chain) = backtrack(u.var, u.stmt, reach);
        CrashVar {
            at,
            var: u.var,
            origin,
            local: origin_time.is_some_and(|t| t >= mut_start),
            origin_time,
            chain,
        }
    }
}

impl fmt::Display for CrashKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            CrashKind::Deref => "dereferenced value",
            CrashKind::Index => "array index",
            CrashKind::Branch => "branch condition",
            CrashKind::Operand => {
                "operand (index, divisor, cast operand, size, parsed string or stored value)"
            }
            CrashKind::Receiver => "receiver of the JDK call that refused it",
            CrashKind::Recursion => "guard of the recursion (the last branch before the call)",
            CrashKind::Returned => "value returned to the test body",
        })
    }
}
