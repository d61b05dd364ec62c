//! Phase 1b (PAF section 3.1): a failing test's crash statement, crash variables chosen by the
//! exception's kind, its method under test, and each crash variable backtracked to its origin.

use std::fmt;

use serde::Serialize;

use super::backtrack::{Origin, Step, backtrack};
use super::replay::{Replay, UseRecord};
use crate::trace::{FrameId, Role, StatementTable, StmtIx, Sym, Symbols, TestTrace, VarName};

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
}

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
        e if ASSERTIONS.contains(&e) => Err(format!(
            "assertion failure ({e}): PAF does not analyze assertions, which check post-conditions"
        )),
        e if ["java.", "javax.", "jdk.", "sun.", "junit.", "org.junit."]
            .iter()
            .any(|p| e.starts_with(p)) =>
        {
            Err(format!(
                "unsupported exception kind {e}: PAF analyzes NullPointerException, \
                 ArrayIndexOutOfBoundsException, IllegalArgumentException, IllegalStateException \
                 and application exceptions"
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
    /// The origin's locality time (see [`Definition::time`]), if traced.
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
        // The tracer's own account (e.g. paf.Timeout: the test did not end within 60 s) says
        // why it stopped; show it when there is one.
        let why = match &test.exception {
            Some(e) => match &e.message {
                Some(m) => format!(" ({}: {m})", e.kind),
                None => format!(" ({})", e.kind),
            },
            None => String::new(),
        };
        return Err(format!(
            "truncated event stream: the tracer stopped recording this test early{why}"
        ));
    }
    let exception = test
        .exception
        .as_ref()
        .ok_or_else(|| "the failing test has no exception".to_string())?;
    let kind = classify(&exception.kind)?;

    // The crash site: the innermost stack frame that is instrumented code.
    let mapped = exception.frames.iter().enumerate().find_map(|(depth, f)| {
        let class = symbols.lookup(&f.class)?;
        let method = symbols.lookup(&f.method)?;
        let line = u32::try_from(f.line).ok()?;
        let site = statements.at(class, method, line);
        (!site.is_empty()).then_some((depth, f, site))
    });
    let Some((depth, frame_info, site)) = mapped else {
        let top = exception
            .frames
            .first()
            .map_or("an empty stack".to_string(), |f| {
                format!("{}.{}", f.class, f.method)
            });
        return Err(format!(
            "no stack frame is in instrumented code (the exception was raised in {top}); \
             the test body or an uninstrumented library threw it"
        ));
    };
    // The crash event: the last event at the crash statement. A `throw new X()` line often has
    // none (the exception's constructor is not instrumented); then the crash frame is the
    // latest frame of the top stack frame's method, and the crash event its last event.
    let crash_event = match test
        .events
        .iter()
        .rposition(|e| e.stmt().is_some_and(|s| site.contains(&s)))
    {
        Some(i) => i,
        None => {
            let method = symbols.lookup(&format!("{}.{}", frame_info.class, frame_info.method));
            let frame = replay
                .frames
                .iter()
                .filter(|(_, f)| Some(f.method) == method)
                .max_by_key(|(_, f)| f.enter)
                .map(|(id, _)| *id);
            frame
                .and_then(|fr| {
                    test.events
                        .iter()
                        .rposition(|e| e.frame() == Some(fr) && e.stmt().is_some())
                })
                .ok_or_else(|| {
                    format!(
                        "no event was recorded at the crash statement {}.{} ({}:{})",
                        frame_info.class,
                        frame_info.method,
                        frame_info.file.as_deref().unwrap_or("?"),
                        frame_info.line
                    )
                })?
        }
    };
    let crash_frame = test.events[crash_event].frame();
    let thrown_at = test.events[crash_event]
        .stmt()
        .expect("found by its statement");
    let before = |u: &&UseRecord| u.event as usize <= crash_event && Some(u.frame) == crash_frame;
    let at_site = |u: &&UseRecord| site.contains(&u.stmt);

    let mut fallback = None;
    let crash_uses: Vec<&UseRecord> = if depth > 0 {
        let callee = &exception.frames[depth - 1];
        fallback = Some(format!(
            "the exception was raised in uninstrumented {}.{}; the crash variables are the \
             arguments passed to it",
            callee.class, callee.method
        ));
        let args = last_run(replay, crash_event, crash_frame, site, |u| {
            u.role == Role::Arg
        });
        let nulls: Vec<&UseRecord> = args.iter().copied().filter(|u| u.null).collect();
        if nulls.is_empty() { args } else { nulls }
    } else {
        match kind {
            CrashKind::Deref | CrashKind::Index => {
                let want = if kind == CrashKind::Deref {
                    Role::Deref
                } else {
                    Role::Index
                };
                let exact = replay
                    .uses
                    .iter()
                    .filter(before)
                    .filter(at_site)
                    .rfind(|u| u.role == want);
                match exact {
                    Some(u) => vec![u],
                    None => {
                        let any = replay.uses.iter().filter(before).rfind(at_site);
                        if any.is_some() {
                            fallback = Some(format!(
                                "no use with role {:?} was recorded at the crash statement; using the \
                                 last variable used there",
                                format!("{want:?}").to_lowercase()
                            ));
                        }
                        any.into_iter().collect()
                    }
                }
            }
            CrashKind::Branch => match replay.uses.iter().filter(before).rfind(|u| u.branch) {
                Some(last) => replay
                    .uses
                    .iter()
                    .filter(|u| u.branch && u.event == last.event)
                    .collect(),
                None => {
                    return Err(format!(
                        "{} was not thrown under a branch: no branch was recorded in the throwing \
                             frame before the throw",
                        exception.kind
                    ));
                }
            },
        }
    };
    if crash_uses.is_empty() {
        return Err(format!(
            "no crash variable: no suitable use was recorded at the crash statement {}:{}",
            frame_info.file.as_deref().unwrap_or("?"),
            frame_info.line
        ));
    }

    // The MUT: the last call from the test body that did not return normally.
    let mut_frame = replay.mut_frame().ok_or_else(|| {
        "no call from the test body into instrumented code threw: the exception came from \
             the test body itself"
            .to_string()
    })?;
    let mut_info = &replay.frames[&mut_frame];
    let mut_start = 2 * mut_info.enter as i64;

    let crash_stmt = crash_uses[0].stmt;
    let mut vars: Vec<CrashVar> = Vec::new();
    for u in crash_uses {
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
    Ok(Failure {
        test: test.index,
        exception: exception.kind.clone(),
        kind,
        crash_stmt,
        thrown_at,
        mut_method: mut_info.method,
        mut_enter: mut_info.enter,
        vars,
        fallback,
        events: test.events.len(),
    })
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
        })
    }
}
