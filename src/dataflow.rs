//! Phase 1 (PAF section 3.1): rebuild dynamic def-use associations from a test's events, find a
//! failing test's crash variables, and backtrack copy chains to each crash origin.
//!
//! Everything here is a pure function of one [`TestTrace`]; no IO.

use std::collections::HashMap;
use std::fmt;

use serde::Serialize;

use crate::trace::{
    Event, FrameId, How, ObjId, Role, Source, StatementTable, StmtIx, Sym, Symbols, TestTrace, Var,
};

/// A variable's *name*: the program variable, independent of frames and objects (format doc,
/// "Variable names"). DUAs, theta and flow-set keys are made of these.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum VarName {
    /// A local, an instance field or a static field, by its (qualified) name.
    Named(Sym),
    /// An array element, with the array's name if the tracer gave one.
    Elem(Option<Sym>),
    /// The return value of a method (`Class.method`).
    Ret(Sym),
}

impl VarName {
    /// Parses a name as written in `static-duas.jsonl`: `Cls.m()` is a return value, `a[]` an
    /// array element, anything else a local or field.
    pub fn parse(text: &str, symbols: &mut Symbols) -> VarName {
        if let Some(method) = text.strip_suffix("()") {
            VarName::Ret(symbols.intern(method))
        } else if let Some(array) = text.strip_suffix("[]") {
            VarName::Elem((!array.is_empty()).then(|| symbols.intern(array)))
        } else {
            VarName::Named(symbols.intern(text))
        }
    }

    pub fn display(self, symbols: &Symbols) -> String {
        match self {
            VarName::Named(s) => symbols.name(s).to_string(),
            VarName::Elem(Some(s)) => format!("{}[]", symbols.name(s)),
            VarName::Elem(None) => "[]".to_string(),
            VarName::Ret(m) => format!("{}()", symbols.name(m)),
        }
    }
}

/// A def-use association (d, u, v): `var` defined at `def` reaches its use at `use_`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Dua {
    pub def: StmtIx,
    pub use_: StmtIx,
    pub var: VarName,
}

/// How a definition got its value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DefKind {
    /// Copied from `from`, whose reaching definition is `source` (an index into
    /// [`Replay::defs`], always smaller than this definition's own index).
    Copy {
        from: VarName,
        source: Option<u32>,
        cast: bool,
    },
    Made {
        how: How,
        callee: Option<Sym>,
    },
    /// A field or array element set to its default value by an allocation.
    Default,
}

/// One definition executed by the test.
#[derive(Clone, Debug)]
pub struct Definition {
    pub event: u32,
    pub stmt: StmtIx,
    pub var: VarName,
    pub kind: DefKind,
    /// When the definition counts as executed, for locality, in half-steps of the event
    /// index: `2 * event`, moved for parameters and field defaults (see [`replay`]).
    pub time: i64,
}

/// One use executed by the test (explicit, implied by a copy, or read by a branch).
#[derive(Clone, Debug)]
pub struct UseRecord {
    pub event: u32,
    pub frame: FrameId,
    pub stmt: StmtIx,
    pub var: VarName,
    pub role: Role,
    pub null: bool,
    /// Read by a `branch` event.
    pub branch: bool,
    /// The reaching definition (index into [`Replay::defs`]), if the trace holds one.
    pub reach: Option<u32>,
}

/// What is known about a frame after the replay.
#[derive(Clone, Debug)]
pub struct FrameInfo {
    pub method: Sym,
    pub enter: u32,
    pub caller: Option<FrameId>,
    /// `(event, threw)` of the exit, if the frame exited.
    pub exit: Option<(u32, bool)>,
}

/// The replayed dataflow of one test.
#[derive(Debug, Default)]
pub struct Replay {
    pub defs: Vec<Definition>,
    pub uses: Vec<UseRecord>,
    pub frames: HashMap<FrameId, FrameInfo>,
    /// Frames entered from the test body, in order: the test's calls into the code under test.
    pub top_level: Vec<FrameId>,
}

impl Replay {
    /// The distinct DUAs the test exercised, sorted.
    pub fn duas(&self) -> Vec<Dua> {
        let mut duas: Vec<Dua> = self
            .uses
            .iter()
            .filter_map(|u| {
                u.reach.map(|d| Dua {
                    def: self.defs[d as usize].stmt,
                    use_: u.stmt,
                    var: u.var,
                })
            })
            .collect();
        duas.sort_unstable();
        duas.dedup();
        duas
    }
}

/// A replay that found the event stream inconsistent: the event index and what is wrong.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ReplayError {
    pub event: usize,
    pub message: String,
}

/// Replays a test's events, resolving every use (and copy source) to its reaching definition by
/// dynamic identity.
///
/// Locality times: a parameter received from an uninstrumented caller (`how: param`) counts as
/// executed just before its frame was entered, since the value was made by the caller; a field
/// default counts as executed when the object's outermost constructor was entered (PAF 3.2
/// bundles field initializers with the constructor).
pub fn replay(test: &TestTrace) -> Result<Replay, ReplayError> {
    let mut r = Replay::default();
    let mut last: HashMap<Var, u32> = HashMap::new();
    // Array allocations define every element; they are looked up lazily on first read so a
    // large array costs one entry, not one per element.
    let mut arrays: HashMap<ObjId, (u64, u32)> = HashMap::new();
    let ctor_entries = constructor_entries(test);

    for (i, event) in test.events.iter().enumerate() {
        let at = i as u32;
        match event {
            Event::Enter {
                frame,
                method,
                caller,
                ..
            } => {
                r.frames.insert(
                    *frame,
                    FrameInfo {
                        method: *method,
                        enter: at,
                        caller: *caller,
                        exit: None,
                    },
                );
                if caller.is_none() {
                    r.top_level.push(*frame);
                }
            }
            Event::Exit { frame, threw } => {
                if let Some(info) = r.frames.get_mut(frame) {
                    info.exit = Some((at, threw.is_some()));
                }
            }
            Event::Def {
                frame,
                stmt,
                var,
                source,
            } => {
                let name = name_of(*var, &r.frames);
                let (kind, time) = match *source {
                    Source::Copy { from, cast } => {
                        let reach = reaching(&last, &arrays, &mut r.defs, from, test);
                        if from == *var && reach.is_none() {
                            return Err(ReplayError {
                                event: i,
                                message: "copy chain loops: this definition copies from the variable it \
                                          defines, which has no earlier definition (expected \"from\" to \
                                          name the real source)"
                                    .to_string(),
                            });
                        }
                        let from_name = name_of(from, &r.frames);
                        r.uses.push(UseRecord {
                            event: at,
                            frame: *frame,
                            stmt: *stmt,
                            var: from_name,
                            role: Role::Value,
                            null: false,
                            branch: false,
                            reach,
                        });
                        (
                            DefKind::Copy {
                                from: from_name,
                                source: reach,
                                cast,
                            },
                            2 * i as i64,
                        )
                    }
                    Source::Made { how, callee } => {
                        let time = if how == How::Param {
                            r.frames
                                .get(frame)
                                .map_or(2 * i as i64, |f| 2 * f.enter as i64 - 1)
                        } else {
                            2 * i as i64
                        };
                        (DefKind::Made { how, callee }, time)
                    }
                };
                let ix = r.defs.len() as u32;
                r.defs.push(Definition {
                    event: at,
                    stmt: *stmt,
                    var: name,
                    kind,
                    time,
                });
                last.insert(*var, ix);
            }
            Event::Use {
                frame,
                stmt,
                var,
                role,
                null,
            } => {
                let reach = reaching(&last, &arrays, &mut r.defs, *var, test);
                r.uses.push(UseRecord {
                    event: at,
                    frame: *frame,
                    stmt: *stmt,
                    var: name_of(*var, &r.frames),
                    role: *role,
                    null: *null,
                    branch: false,
                    reach,
                });
            }
            Event::Branch { frame, stmt, uses } => {
                for var in uses {
                    let reach = reaching(&last, &arrays, &mut r.defs, *var, test);
                    r.uses.push(UseRecord {
                        event: at,
                        frame: *frame,
                        stmt: *stmt,
                        var: name_of(*var, &r.frames),
                        role: Role::Value,
                        null: false,
                        branch: true,
                        reach,
                    });
                }
            }
            Event::Alloc {
                obj,
                frame,
                stmt,
                fields,
                length,
            } => {
                let time =
                    2 * bundled_with_constructor(at, *obj, *frame, &r.frames, &ctor_entries) as i64;
                for &(field, decl) in fields {
                    let ix = r.defs.len() as u32;
                    r.defs.push(Definition {
                        event: at,
                        stmt: decl,
                        var: VarName::Named(field),
                        kind: DefKind::Default,
                        time,
                    });
                    last.insert(
                        Var::Field {
                            obj: *obj,
                            name: field,
                        },
                        ix,
                    );
                }
                if let Some(length) = length {
                    // Any earlier elements of a recycled id are gone with the old array.
                    last.retain(|v, _| !matches!(v, Var::Elem { array, .. } if array == obj));
                    arrays.insert(*obj, (*length, at));
                    let _ = stmt;
                }
            }
        }
    }
    Ok(r)
}

/// The reaching definition of `var`, materialising an array element's default on first read.
fn reaching(
    last: &HashMap<Var, u32>,
    arrays: &HashMap<ObjId, (u64, u32)>,
    defs: &mut Vec<Definition>,
    var: Var,
    test: &TestTrace,
) -> Option<u32> {
    if let Some(&d) = last.get(&var) {
        return Some(d);
    }
    let Var::Elem { array, index, name } = var else {
        return None;
    };
    let &(length, at) = arrays.get(&array)?;
    if index >= length {
        return None;
    }
    let Event::Alloc {
        stmt: Some(stmt), ..
    } = test.events[at as usize]
    else {
        return None;
    };
    // The default is shared by all elements; one definition per (array, read) is enough for
    // DUAs and chains, and it is not entered into `last`, which only writes update.
    defs.push(Definition {
        event: at,
        stmt,
        var: VarName::Elem(name),
        kind: DefKind::Default,
        time: 2 * at as i64,
    });
    Some(defs.len() as u32 - 1)
}

/// The name of a variable, given the frames entered so far (a return slot is named by its
/// frame's method).
fn name_of(var: Var, frames: &HashMap<FrameId, FrameInfo>) -> VarName {
    match var {
        Var::Local { name, .. } | Var::Field { name, .. } | Var::Static { name } => {
            VarName::Named(name)
        }
        Var::Elem { name, .. } => VarName::Elem(name),
        // The reader guarantees the frame was entered before its return slot is named.
        Var::Ret { frame } => VarName::Ret(frames[&frame].method),
    }
}

/// Event indices of constructor entries per receiver object, in order.
fn constructor_entries(test: &TestTrace) -> HashMap<ObjId, Vec<u32>> {
    let mut out: HashMap<ObjId, Vec<u32>> = HashMap::new();
    for (i, event) in test.events.iter().enumerate() {
        if let Event::Enter {
            this: Some(obj),
            method,
            ..
        } = event
        {
            let _ = method;
            out.entry(*obj).or_default().push(i as u32);
        }
    }
    out
}

/// The event index at which an allocation's field defaults count as executed: the entry of the
/// object's constructor (the allocating frame itself if it is that constructor, else the next
/// frame entered on the object), or the allocation itself if no constructor ran.
fn bundled_with_constructor(
    at: u32,
    obj: ObjId,
    frame: Option<FrameId>,
    frames: &HashMap<FrameId, FrameInfo>,
    ctor_entries: &HashMap<ObjId, Vec<u32>>,
) -> u32 {
    let entries = ctor_entries.get(&obj).map_or(&[][..], Vec::as_slice);
    if let Some(info) = frame.and_then(|f| frames.get(&f))
        && entries.binary_search(&info.enter).is_ok()
    {
        // Recorded inside the object's own constructor: count from the outermost one, the
        // first entry on this object that is still open around the allocation.
        return entries
            .iter()
            .copied()
            .find(|&e| e <= info.enter)
            .unwrap_or(info.enter);
    }
    entries.iter().copied().find(|&e| e >= at).unwrap_or(at)
}

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

/// Where a crash variable's value was made.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Origin {
    /// A statement: the first non-copy definition, or the call site of uninstrumented code.
    Stmt(StmtIx),
    /// No definition of the value is in the trace (set before the test, or by a static
    /// initializer the tracer did not see).
    Untraced,
}

/// How one step of a failure-inducing dataflow defined its variable.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StepKind {
    Copy {
        from: VarName,
        cast: bool,
    },
    Made {
        how: How,
        callee: Option<Sym>,
    },
    Default,
    /// The variable has no definition in the trace.
    Untraced,
}

/// One DUA of a failure-inducing dataflow.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Step {
    pub def: Option<StmtIx>,
    pub use_: StmtIx,
    pub var: VarName,
    pub kind: StepKind,
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

/// Analyses a failing test. `Err` holds the reason it cannot be analyzed (it then goes to the
/// `unanalyzed` list: every failing test is accounted for).
pub fn analyze_failure(
    test: &TestTrace,
    replay: &Replay,
    statements: &StatementTable,
    symbols: &Symbols,
) -> Result<Failure, String> {
    if test.truncated {
        return Err("truncated event stream: the tracer stopped recording this test early".into());
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
    let mut_frame = replay
        .top_level
        .iter()
        .rev()
        .find(|f| replay.frames[f].exit.is_none_or(|(_, threw)| threw))
        .ok_or_else(|| {
            "no call from the test body into instrumented code threw: the exception came from \
             the test body itself"
                .to_string()
        })?;
    let mut_info = &replay.frames[mut_frame];
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

/// Follows copy definitions backward from a crash use to the first non-copy definition.
fn backtrack(replay: &Replay, crash: &UseRecord) -> (Origin, Option<i64>, Vec<Step>) {
    let mut chain = Vec::new();
    let (mut var, mut use_, mut reach) = (crash.var, crash.stmt, crash.reach);
    let result = loop {
        let Some(d) = reach else {
            chain.push(Step {
                def: None,
                use_,
                var,
                kind: StepKind::Untraced,
            });
            break (Origin::Untraced, None);
        };
        let def = &replay.defs[d as usize];
        let kind = match def.kind {
            DefKind::Copy { from, cast, .. } => StepKind::Copy { from, cast },
            DefKind::Made { how, callee } => StepKind::Made { how, callee },
            DefKind::Default => StepKind::Default,
        };
        chain.push(Step {
            def: Some(def.stmt),
            use_,
            var,
            kind,
        });
        match def.kind {
            DefKind::Copy { from, source, .. } => {
                // Sources are resolved before their definition is recorded, so `source < d`
                // and the walk always terminates.
                debug_assert!(source.is_none_or(|s| s < d));
                var = from;
                use_ = def.stmt;
                reach = source;
            }
            _ => break (Origin::Stmt(def.stmt), Some(def.time)),
        }
    };
    chain.reverse();
    (result.0, result.1, chain)
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
