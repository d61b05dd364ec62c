//! Phase 1b (PAF section 3.1): a failing test's crash statement, crash variables chosen by the
//! exception's kind, its method under test, and each crash variable backtracked to its origin.

use std::fmt;

use serde::Serialize;

use super::backtrack::{Origin, Step, backtrack};
use super::replay::{Replay, UseRecord};
use crate::trace::{
    ExceptionInfo, FrameId, Role, StackFrame, StatementTable, StmtIx, Sym, Symbols, TestTrace,
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
    /// `NegativeArraySizeException` (the size), an extension beyond PAF (issue 12): raised by a
    /// JDK call the instrumented code made, the arguments of that call; raised by an instruction
    /// of the instrumented code, the operand the tracer records there (role `value`).
    Operand,
}

/// The exception kinds of [`CrashKind::Operand`] that code can only raise with an explicit
/// `throw` (no instruction raises them), or that it often throws so (`ArithmeticException`
/// on an overflow check): with no operand recorded in the throwing frame they are analyzed by
/// the branch they were thrown under, as application exceptions are.
const THROWN_UNDER_BRANCH: &[&str] = &[
    "java.lang.IndexOutOfBoundsException",
    "java.lang.StringIndexOutOfBoundsException",
    "java.lang.ArithmeticException",
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
        "java.lang.IllegalArgumentException" | "java.lang.IllegalStateException" => {
            Ok(CrashKind::Branch)
        }
        "java.lang.IndexOutOfBoundsException"
        | "java.lang.StringIndexOutOfBoundsException"
        | "java.lang.ClassCastException"
        | "java.lang.ArithmeticException"
        | "java.lang.NegativeArraySizeException" => Ok(CrashKind::Operand),
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
                 NegativeArraySizeException and application exceptions"
            ))
        }
        _ => Ok(CrashKind::Branch),
    }
}

/// One crash variable of a failure, traced back to its origin.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CrashVar {
    pub var: VarName,
    pub origin: Origin,
    /// The origin executed after the MUT was entered.
    pub local: bool,
    /// The origin's locality time (see [`super::Definition::time`]), if traced.
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

/// Analyses a failing test. `Err` holds the reason it cannot be analyzed (it then goes to the
/// `unanalyzed` list: every failing test is accounted for).
pub fn analyze_failure(
    test: &TestTrace,
    replay: &Replay,
    statements: &StatementTable,
    symbols: &Symbols,
) -> Result<Failure, String> {
    if test.truncated {
        return Err(truncated(test));
    }
    let exception = test
        .exception
        .as_ref()
        .ok_or_else(|| "the failing test has no exception".to_string())?;
    if let Some(phase) = exception.lifecycle_phase() {
        return Err(lifecycle(phase, exception));
    }
    let exception = exception.analyzed();
    let kind = classify(&exception.kind)?;
    let site = Site::find(exception, statements, symbols)?;
    let crash_event = site.crash_event(test, replay, symbols)?;
    let crash = Crash {
        event: crash_event,
        frame: test.events[crash_event].frame(),
        site: &site,
    };
    let (crash_uses, fallback) = crash.uses(kind, exception, replay)?;

    let mut_frame = replay.mut_frame().ok_or_else(|| {
        "no call from the test body into instrumented code threw: the exception came from \
             the test body itself"
            .to_string()
    })?;
    let mut_info = &replay.frames[&mut_frame];
    Ok(Failure {
        test: test.index,
        exception: exception.kind.clone(),
        kind,
        crash_stmt: crash_uses[0].stmt,
        thrown_at: test.events[crash_event]
            .stmt()
            .expect("found by its statement"),
        mut_method: mut_info.method,
        mut_enter: mut_info.enter,
        vars: crash_vars(replay, &crash_uses, 2 * mut_info.enter as i64),
        fallback,
        events: test.events.len(),
    })
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
fn truncated(test: &TestTrace) -> String {
    let why = match &test.exception {
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
struct Site<'e> {
    /// Stack frames above it (0: the exception was raised in instrumented code).
    depth: usize,
    frame: &'e StackFrame,
    /// The statements of that frame's line (a per-instruction tracer may have several).
    stmts: &'e [StmtIx],
}

impl<'e> Site<'e> {
    fn find(
        exception: &'e ExceptionInfo,
        statements: &'e StatementTable,
        symbols: &Symbols,
    ) -> Result<Site<'e>, String> {
        let mapped = exception.frames.iter().enumerate().find_map(|(depth, f)| {
            let class = symbols.lookup(&f.class)?;
            let method = symbols.lookup(&f.method)?;
            let line = u32::try_from(f.line).ok()?;
            let stmts = statements.at(class, method, line);
            (!stmts.is_empty()).then_some(Site {
                depth,
                frame: f,
                stmts,
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

    /// `file:line` of the site, for messages.
    fn position(&self) -> String {
        format!(
            "{}:{}",
            self.frame.file.as_deref().unwrap_or("?"),
            self.frame.line
        )
    }

    /// The crash event: the last event at the crash statement. A `throw new X()` line often
    /// has none (the exception's constructor is not instrumented); then the crash frame is the
    /// latest frame of the site's method, and the crash event its last event.
    fn crash_event(
        &self,
        test: &TestTrace,
        replay: &Replay,
        symbols: &Symbols,
    ) -> Result<usize, String> {
        if let Some(i) = test
            .events
            .iter()
            .rposition(|e| e.stmt().is_some_and(|s| self.stmts.contains(&s)))
        {
            return Ok(i);
        }
        let f = self.frame;
        let method = symbols.lookup(&format!("{}.{}", f.class, f.method));
        let frame = replay
            .frames
            .iter()
            .filter(|(_, info)| Some(info.method) == method)
            .max_by_key(|(_, info)| info.enter)
            .map(|(id, _)| *id);
        frame
            .and_then(|fr| {
                test.events
                    .iter()
                    .rposition(|e| e.frame() == Some(fr) && e.stmt().is_some())
            })
            .ok_or_else(|| {
                format!(
                    "no event was recorded at the crash statement {}.{} ({})",
                    f.class,
                    f.method,
                    self.position()
                )
            })
    }
}

/// The crash: its event, the frame it happened in, and its site.
struct Crash<'s, 'e> {
    event: usize,
    frame: Option<FrameId>,
    site: &'s Site<'e>,
}

impl Crash<'_, '_> {
    /// A use in the crash frame no later than the crash.
    fn before(&self, u: &UseRecord) -> bool {
        u.event as usize <= self.event && Some(u.frame) == self.frame
    }

    fn at_site(&self, u: &UseRecord) -> bool {
        self.site.stmts.contains(&u.stmt)
    }

    /// The crash variables' uses by the exception's kind, and the fallback rule used, if any.
    fn uses<'r>(
        &self,
        kind: CrashKind,
        exception: &ExceptionInfo,
        replay: &'r Replay,
    ) -> Result<(Vec<&'r UseRecord>, Option<String>), String> {
        let (uses, fallback) = if self.site.depth > 0 {
            if kind == CrashKind::Operand {
                // The rule for these kinds, not a fallback: the index, operand, divisor or
                // size is an argument of the JDK call; none is preferred for being null.
                let args = last_run(replay, self.event, self.frame, self.site.stmts, |u| {
                    u.role == Role::Arg
                });
                if args.is_empty() {
                    return Err(self.no_argument(exception));
                }
                (args, None)
            } else {
                self.arguments(exception, replay)
            }
        } else {
            match kind {
                CrashKind::Deref => self.role(Role::Deref, replay),
                CrashKind::Index => self.role(Role::Index, replay),
                CrashKind::Branch => (self.branch(exception, replay)?, None),
                CrashKind::Operand => self.operand(exception, replay)?,
            }
        };
        if uses.is_empty() {
            return Err(format!(
                "no crash variable: no suitable use was recorded at the crash statement {}",
                self.site.position()
            ));
        }
        Ok((uses, fallback))
    }

    /// Raised in uninstrumented code: the arguments passed to it (the null ones, if any).
    fn arguments<'r>(
        &self,
        exception: &ExceptionInfo,
        replay: &'r Replay,
    ) -> (Vec<&'r UseRecord>, Option<String>) {
        let callee = &exception.frames[self.site.depth - 1];
        let fallback = format!(
            "the exception was raised in uninstrumented {}.{}; the crash variables are the \
             arguments passed to it",
            callee.class, callee.method
        );
        let args = last_run(replay, self.event, self.frame, self.site.stmts, |u| {
            u.role == Role::Arg
        });
        let nulls: Vec<&UseRecord> = args.iter().copied().filter(|u| u.null).collect();
        (if nulls.is_empty() { args } else { nulls }, Some(fallback))
    }

    /// The last use with `want`'s role at the site, or else the last use there at all.
    fn role<'r>(&self, want: Role, replay: &'r Replay) -> (Vec<&'r UseRecord>, Option<String>) {
        let mut at_site = replay
            .uses
            .iter()
            .filter(|u| self.before(u) && self.at_site(u));
        if let Some(u) = at_site.clone().rfind(|u| u.role == want) {
            return (vec![u], None);
        }
        match at_site.next_back() {
            Some(u) => (
                vec![u],
                Some(format!(
                    "no use with role {:?} was recorded at the crash statement; using the \
                     last variable used there",
                    format!("{want:?}").to_lowercase()
                )),
            ),
            None => (Vec::new(), None),
        }
    }

    /// Why an operand kind raised by a JDK call has no crash variable: the call had no
    /// variable argument (`list.get(0)` on an empty list: a constant index, and the cause is
    /// the receiver's size, which paf does not take as a crash variable).
    fn no_argument(&self, exception: &ExceptionInfo) -> String {
        let callee = &exception.frames[self.site.depth - 1];
        format!(
            "{} raised in {}.{} called at {} with no variable argument (a constant index, \
             divisor or size): the receiver's state is the cause, which paf does not analyze; \
             look at how the receiver got there",
            exception.kind,
            callee.class,
            callee.method,
            self.site.position()
        )
    }

    /// Raised in the crash frame itself: the operand the tracer records at the raising
    /// instruction (the divisor, the cast operand, the array size: a use with role `value`
    /// that is not a branch's). With none, an exception code throws with `throw` is taken as
    /// thrown under its last branch; a cast or an array allocation is left unanalyzed.
    fn operand<'r>(
        &self,
        exception: &ExceptionInfo,
        replay: &'r Replay,
    ) -> Result<(Vec<&'r UseRecord>, Option<String>), String> {
        if let Some(u) = replay
            .uses
            .iter()
            .filter(|u| self.before(u) && self.at_site(u))
            .rfind(|u| u.role == Role::Value && !u.branch)
        {
            return Ok((vec![u], None));
        }
        if THROWN_UNDER_BRANCH.contains(&exception.kind.as_str()) {
            let uses = self.branch(exception, replay)?;
            return Ok((
                uses,
                Some(format!(
                    "no operand was recorded at {}: {} taken as thrown by a `throw` under the \
                     last branch before it",
                    self.site.position(),
                    exception.kind
                )),
            ));
        }
        Err(format!(
            "{} at {} with no recorded operand: the tracer records a cast's operand and an \
             array size only when they are a variable (a local, a static, a captured field, \
             element or call result); look at the {} on that line",
            exception.kind,
            self.site.position(),
            if exception.kind.ends_with("ClassCastException") {
                "cast"
            } else {
                "array allocation's size"
            }
        ))
    }

    /// Every variable of the last branch the crash frame took before the throw.
    fn branch<'r>(
        &self,
        exception: &ExceptionInfo,
        replay: &'r Replay,
    ) -> Result<Vec<&'r UseRecord>, String> {
        let last = replay
            .uses
            .iter()
            .filter(|u| self.before(u))
            .rfind(|u| u.branch)
            .ok_or_else(|| {
                format!(
                    "{} was not thrown under a branch: no branch was recorded in the throwing \
                     frame before the throw",
                    exception.kind
                )
            })?;
        Ok(replay
            .uses
            .iter()
            .filter(|u| u.branch && u.event == last.event)
            .collect())
    }
}

/// Each distinct crash variable backtracked to its origin; local if the origin executed after
/// the MUT was entered (`mut_start`, a locality time).
fn crash_vars(replay: &Replay, uses: &[&UseRecord], mut_start: i64) -> Vec<CrashVar> {
    let mut vars: Vec<CrashVar> = Vec::new();
    for u in uses {
        if vars.iter().any(|v| v.var == u.var) {
            continue;
        }
        let (origin, origin_time, chain) = backtrack(replay, u);
        vars.push(CrashVar {
            var: u.var,
            origin,
            local: origin_time.is_some_and(|t| t >= mut_start),
            origin_time,
            chain,
        });
    }
    vars
}

/// The uses matching `keep` at the crash site in the crash frame, in the contiguous run of
/// that frame's uses at the site that ends at the crash event.
fn last_run<'r>(
    replay: &'r Replay,
    crash_event: usize,
    crash_frame: Option<FrameId>,
    site: &[StmtIx],
    keep: impl Fn(&UseRecord) -> bool,
) -> Vec<&'r UseRecord> {
    let mut out: Vec<&UseRecord> = replay
        .uses
        .iter()
        .rev()
        .filter(|u| u.event as usize <= crash_event && Some(u.frame) == crash_frame)
        .take_while(|u| site.contains(&u.stmt))
        .filter(|u| keep(u))
        .collect();
    out.reverse();
    out
}

impl fmt::Display for CrashKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            CrashKind::Deref => "dereferenced value",
            CrashKind::Index => "array index",
            CrashKind::Branch => "branch condition",
            CrashKind::Operand => "operand (index, divisor, cast operand or size)",
        })
    }
}
