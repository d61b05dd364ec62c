//! Phase 1 (PAF section 3.1): rebuild dynamic def-use associations from a test's events, find a
//! failing test's crash variables, and backtrack copy chains to each crash origin.
//!
//! Everything here is a pure function of one [`TestTrace`]; no IO.

use rustc_hash::FxHashMap;
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
    pub frames: FxHashMap<FrameId, FrameInfo>,
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
    let mut last: FxHashMap<Var, u32> = FxHashMap::default();
    // Array allocations define every element; they are looked up lazily on first read so a
    // large array costs one entry, not one per element.
    let mut arrays: FxHashMap<ObjId, (u64, u32)> = FxHashMap::default();
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
                let time = 2 * bundled_with_constructor(
                    at,
                    *obj,
                    *frame,
                    &r.frames,
                    &ctor_entries,
                    &test.events,
                ) as i64;
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
    last: &FxHashMap<Var, u32>,
    arrays: &FxHashMap<ObjId, (u64, u32)>,
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
fn name_of(var: Var, frames: &FxHashMap<FrameId, FrameInfo>) -> VarName {
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
fn constructor_entries(test: &TestTrace) -> FxHashMap<ObjId, Vec<u32>> {
    let mut out: FxHashMap<ObjId, Vec<u32>> = FxHashMap::default();
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
    frames: &FxHashMap<FrameId, FrameInfo>,
    ctor_entries: &FxHashMap<ObjId, Vec<u32>>,
    events: &[Event],
) -> u32 {
    let entries = ctor_entries.get(&obj).map_or(&[][..], Vec::as_slice);
    if let Some(info) = frame.and_then(|f| frames.get(&f))
        && entries.binary_search(&info.enter).is_ok()
    {
        // Recorded inside the object's own constructor: count from the outermost one, the
        // first entry on this object that is still open around the allocation (an entry that
        // has exited belongs to an earlier object that had the same id).
        let open = |e: u32| match &events[e as usize] {
            Event::Enter { frame, .. } => frames.get(frame).is_some_and(|f| f.exit.is_none()),
            _ => false,
        };
        return entries
            .iter()
            .copied()
            .find(|&e| e <= info.enter && open(e))
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::trace::testing::{Read, read};

    /// The end record of a passing test.
    const PASS: &str = r#"{"k":"end","test":"t","outcome":"pass"}"#;

    /// The end record of a test failing with `exception` thrown at line `line` of `C.m`
    /// (statement `line` of the test table), called from the test body.
    fn fail(exception: &str, line: u32) -> String {
        fail_frames(exception, &[("C", "m", line)])
    }

    /// Like [`fail`] with a whole stack, innermost first.
    fn fail_frames(exception: &str, frames: &[(&str, &str, u32)]) -> String {
        let mut frames: Vec<String> = frames
            .iter()
            .map(|(c, m, l)| format!(r#"{{"class":"{c}","method":"{m}","line":{l}}}"#))
            .collect();
        frames.push(r#"{"class":"CTest","method":"t","line":1}"#.to_string());
        format!(
            r#"{{"k":"end","test":"t","outcome":"fail","exception":{{"type":"{exception}","frames":[{}]}}}}"#,
            frames.join(",")
        )
    }

    /// Reads one test made of `events` and `end`.
    fn trace(events: &str, end: &str) -> Read {
        read(&format!(
            "{{\"k\":\"begin\",\"test\":\"t\"}}\n{events}\n{end}\n"
        ))
    }

    fn chain(r: &Read, steps: &[Step]) -> String {
        steps
            .iter()
            .map(|s| {
                let def = s.def.map_or("?".to_string(), |d| r.id(d).to_string());
                let kind = match s.kind {
                    StepKind::Copy { from, cast } => format!(
                        "{} {}",
                        if cast { "cast" } else { "copy" },
                        from.display(&r.symbols)
                    ),
                    StepKind::Made { how, callee } => match callee {
                        Some(c) => format!("{} {}", how.as_str(), r.symbols.name(c)),
                        None => how.as_str().to_string(),
                    },
                    StepKind::Default => "default".to_string(),
                    StepKind::Untraced => "untraced".to_string(),
                };
                format!(
                    "{def}->{} {} {kind}",
                    r.id(s.use_),
                    s.var.display(&r.symbols)
                )
            })
            .collect::<Vec<_>>()
            .join("; ")
    }

    /// A passing test renders as its DUAs (`def->use var`, by statement id); a failing test
    /// as its analysis: kind, crash statement, MUT, then one line per crash variable
    /// (`var origin t=time locality: chain`), then the fallback if any.
    fn render(r: &Read) -> String {
        let test = r.single();
        let replay = match replay(test) {
            Ok(replay) => replay,
            Err(e) => return format!("replay error at event {}: {}", e.event, e.message),
        };
        if test.outcome == crate::trace::Outcome::Pass {
            let mut duas: Vec<String> = replay
                .duas()
                .iter()
                .map(|d| {
                    format!(
                        "{}->{} {}",
                        r.id(d.def),
                        r.id(d.use_),
                        d.var.display(&r.symbols)
                    )
                })
                .collect();
            duas.sort();
            return duas.join("\n");
        }
        let f = match analyze_failure(test, &replay, &r.statements, &r.symbols) {
            Ok(f) => f,
            Err(reason) => return format!("unanalyzed: {reason}"),
        };
        let mut out = vec![format!(
            "{:?} crash={} mut={}",
            f.kind,
            r.id(f.crash_stmt),
            r.symbols.name(f.mut_method)
        )];
        for v in &f.vars {
            let origin = match v.origin {
                Origin::Stmt(s) => r.id(s).to_string(),
                Origin::Untraced => "untraced".to_string(),
            };
            let time = v.origin_time.map_or("-".to_string(), |t| t.to_string());
            out.push(format!(
                "{} origin={origin} t={time} {}: {}",
                v.var.display(&r.symbols),
                if v.local { "local" } else { "non-local" },
                chain(r, &v.chain)
            ));
        }
        if f.fallback.is_some() {
            out.push("fallback".to_string());
        }
        out.join("\n")
    }

    fn check(events: &str, end: &str, expect: &str) {
        let r = trace(events, end);
        let expect: Vec<&str> = expect
            .trim()
            .lines()
            .map(str::trim)
            .filter(|l| !l.is_empty())
            .collect();
        pretty_assertions::assert_eq!(expect.join("\n"), render(&r));
    }

    // ---- reaching definitions by dynamic identity ----

    #[test]
    fn same_local_name_in_two_frames() {
        check(
            r#"
            {"k":"enter","frame":1,"method":"C.a"}
            {"k":"def","frame":1,"stmt":1,"var":{"local":"x"},"how":"const"}
            {"k":"enter","frame":2,"method":"C.b","caller":1}
            {"k":"def","frame":2,"stmt":2,"var":{"local":"x"},"how":"const"}
            {"k":"use","frame":2,"stmt":3,"var":{"local":"x"}}
            {"k":"exit","frame":2}
            {"k":"use","frame":1,"stmt":4,"var":{"local":"x"}}
            {"k":"use","frame":1,"stmt":5,"var":{"local":"x","frame":1}}
            "#,
            PASS,
            "1->4 x
             1->5 x
             2->3 x",
        );
    }

    #[test]
    fn same_field_on_two_objects() {
        check(
            r#"
            {"k":"enter","frame":1,"method":"C.a"}
            {"k":"def","frame":1,"stmt":1,"var":{"field":"C.f","obj":1},"how":"const"}
            {"k":"def","frame":1,"stmt":2,"var":{"field":"C.f","obj":2},"how":"const"}
            {"k":"use","frame":1,"stmt":3,"var":{"field":"C.f","obj":1}}
            {"k":"use","frame":1,"stmt":4,"var":{"field":"C.f","obj":2}}
            {"k":"def","frame":1,"stmt":5,"var":{"field":"C.f","obj":1},"how":"const"}
            {"k":"use","frame":1,"stmt":6,"var":{"field":"C.f","obj":2}}
            {"k":"use","frame":1,"stmt":7,"var":{"field":"C.f","obj":1}}
            "#,
            PASS,
            "1->3 C.f
             2->4 C.f
             2->6 C.f
             5->7 C.f",
        );
    }

    #[test]
    fn array_element_defaults_are_materialised_on_first_read() {
        let events = r#"
            {"k":"enter","frame":1,"method":"C.a"}
            {"k":"alloc","obj":7,"class":"int[]","frame":1,"stmt":1,"length":4}
            {"k":"def","frame":1,"stmt":2,"var":{"elem":7,"index":1,"name":"buf"},"how":"const"}
            {"k":"use","frame":1,"stmt":3,"var":{"elem":7,"index":0,"name":"buf"}}
            {"k":"use","frame":1,"stmt":4,"var":{"elem":7,"index":1,"name":"buf"}}
            {"k":"use","frame":1,"stmt":5,"var":{"elem":7,"index":4,"name":"buf"}}
            "#;
        // Index 4 is out of bounds: no default reaches it.
        check(
            events,
            PASS,
            "1->3 buf[]
             2->4 buf[]",
        );
        let r = trace(events, PASS);
        let replay = replay(r.single()).unwrap();
        // One explicit definition, one default materialised for the read of index 0; none
        // for the three other elements.
        assert_eq!(replay.defs.len(), 2, "{:?}", replay.defs);
    }

    #[test]
    fn return_slot_belongs_to_its_frame() {
        check(
            r#"
            {"k":"enter","frame":1,"method":"C.a"}
            {"k":"enter","frame":2,"method":"C.get","caller":1}
            {"k":"def","frame":2,"stmt":2,"var":{"ret":2},"how":"const"}
            {"k":"exit","frame":2}
            {"k":"def","frame":1,"stmt":3,"var":{"local":"x"},"from":{"ret":2}}
            {"k":"use","frame":1,"stmt":4,"var":{"local":"x"}}
            {"k":"enter","frame":3,"method":"C.get","caller":1}
            {"k":"def","frame":3,"stmt":5,"var":{"ret":3},"how":"const"}
            {"k":"exit","frame":3}
            {"k":"def","frame":1,"stmt":6,"var":{"local":"y"},"from":{"ret":2}}
            "#,
            PASS,
            "2->3 C.get()
             2->6 C.get()
             3->4 x",
        );
    }

    #[test]
    fn copy_from_itself_as_first_definition_is_a_loop() {
        check(
            r#"
            {"k":"enter","frame":1,"method":"C.a"}
            {"k":"def","frame":1,"stmt":1,"var":{"local":"x"},"from":{"local":"x"}}
            "#,
            PASS,
            "replay error at event 1: copy chain loops: this definition copies from the variable \
             it defines, which has no earlier definition (expected \"from\" to name the real source)",
        );
        // After a real definition, `x = x` is an ordinary copy.
        check(
            r#"
            {"k":"enter","frame":1,"method":"C.a"}
            {"k":"def","frame":1,"stmt":1,"var":{"local":"x"},"how":"const"}
            {"k":"def","frame":1,"stmt":2,"var":{"local":"x"},"from":{"local":"x"}}
            {"k":"use","frame":1,"stmt":3,"var":{"local":"x"}}
            "#,
            PASS,
            "1->2 x
             2->3 x",
        );
    }

    // ---- copy-chain backtracking ----

    #[test]
    fn chain_through_local_field_return_and_cast() {
        check(
            r#"
            {"k":"enter","frame":1,"method":"C.m"}
            {"k":"def","frame":1,"stmt":1,"var":{"local":"a"},"how":"new"}
            {"k":"def","frame":1,"stmt":2,"var":{"field":"C.f","obj":1},"from":{"local":"a"}}
            {"k":"enter","frame":2,"method":"C.get","caller":1}
            {"k":"def","frame":2,"stmt":3,"var":{"ret":2},"from":{"field":"C.f","obj":1}}
            {"k":"exit","frame":2}
            {"k":"def","frame":1,"stmt":4,"var":{"local":"b"},"from":{"ret":2},"cast":true}
            {"k":"use","frame":1,"stmt":5,"var":{"local":"b"},"role":"deref"}
            {"k":"exit","frame":1,"throw":"java.lang.NullPointerException"}
            "#,
            &fail("java.lang.NullPointerException", 5),
            "Deref crash=5 mut=C.m
             b origin=1 t=2 local: 1->2 a new; 2->3 C.f copy a; 3->4 C.get() copy C.f; 4->5 b cast C.get()",
        );
    }

    #[test]
    fn chain_stops_at_a_call_into_uninstrumented_code() {
        check(
            r#"
            {"k":"enter","frame":1,"method":"C.m"}
            {"k":"def","frame":1,"stmt":1,"var":{"local":"e"},"how":"call","callee":"java.util.HashMap.get"}
            {"k":"def","frame":1,"stmt":2,"var":{"local":"x"},"from":{"local":"e"}}
            {"k":"use","frame":1,"stmt":3,"var":{"local":"x"},"role":"deref"}
            {"k":"exit","frame":1,"throw":"java.lang.NullPointerException"}
            "#,
            &fail("java.lang.NullPointerException", 3),
            "Deref crash=3 mut=C.m
             x origin=1 t=2 local: 1->2 e call java.util.HashMap.get; 2->3 x copy e",
        );
    }

    #[test]
    fn value_defined_before_the_test_is_untraced() {
        check(
            r#"
            {"k":"enter","frame":1,"method":"C.m"}
            {"k":"def","frame":1,"stmt":1,"var":{"local":"x"},"from":{"static":"C.s"}}
            {"k":"use","frame":1,"stmt":2,"var":{"local":"x"},"role":"deref"}
            {"k":"exit","frame":1,"throw":"java.lang.NullPointerException"}
            "#,
            &fail("java.lang.NullPointerException", 2),
            "Deref crash=2 mut=C.m
             x origin=untraced t=- non-local: ?->1 C.s untraced; 1->2 x copy C.s",
        );
    }

    // ---- locality ----

    #[test]
    fn parameter_from_the_test_body_is_not_local() {
        // Counted as made just before the MUT's entry: 2 * 0 - 1.
        check(
            r#"
            {"k":"enter","frame":1,"method":"C.m"}
            {"k":"def","frame":1,"stmt":1,"var":{"local":"p"},"how":"param"}
            {"k":"use","frame":1,"stmt":2,"var":{"local":"p"},"role":"deref"}
            {"k":"exit","frame":1,"throw":"java.lang.NullPointerException"}
            "#,
            &fail("java.lang.NullPointerException", 2),
            "Deref crash=2 mut=C.m
             p origin=1 t=-1 non-local: 1->2 p param",
        );
    }

    #[test]
    fn origin_in_an_earlier_call_is_not_local() {
        // The MUT C.m is entered at event 3 (time 6); the origin ran at event 1 (time 2).
        check(
            r#"
            {"k":"enter","frame":1,"method":"C.set"}
            {"k":"def","frame":1,"stmt":1,"var":{"field":"C.f","obj":1},"how":"const"}
            {"k":"exit","frame":1}
            {"k":"enter","frame":2,"method":"C.m"}
            {"k":"use","frame":2,"stmt":4,"var":{"field":"C.f","obj":1},"role":"deref"}
            {"k":"exit","frame":2,"throw":"java.lang.NullPointerException"}
            "#,
            &fail("java.lang.NullPointerException", 4),
            "Deref crash=4 mut=C.m
             C.f origin=1 t=2 non-local: 1->4 C.f const",
        );
    }

    #[test]
    fn field_default_allocated_inside_a_nested_constructor_counts_from_the_outermost() {
        // Allocation at event 2 inside B.<init> (event 1), itself inside D.<init> (event 0).
        check(
            r#"
            {"k":"enter","frame":1,"method":"D.<init>","this":2}
            {"k":"enter","frame":2,"method":"B.<init>","this":2,"caller":1}
            {"k":"alloc","obj":2,"class":"D","frame":2,"fields":[{"field":"B.f","stmt":31}]}
            {"k":"exit","frame":2}
            {"k":"exit","frame":1}
            {"k":"enter","frame":3,"method":"D.m","this":2}
            {"k":"use","frame":3,"stmt":6,"var":{"field":"B.f","obj":2},"role":"deref"}
            {"k":"exit","frame":3,"throw":"java.lang.NullPointerException"}
            "#,
            &fail("java.lang.NullPointerException", 6),
            "Deref crash=6 mut=D.m
             B.f origin=31 t=0 non-local: 31->6 B.f default",
        );
    }

    #[test]
    fn field_default_allocated_before_the_constructor_counts_from_its_entry() {
        // Allocation at event 1 in C.make, constructor entered at event 2: time 4.
        check(
            r#"
            {"k":"enter","frame":1,"method":"C.make"}
            {"k":"alloc","obj":2,"class":"D","frame":1,"fields":[{"field":"D.f","stmt":31}]}
            {"k":"enter","frame":2,"method":"D.<init>","this":2,"caller":1}
            {"k":"exit","frame":2}
            {"k":"exit","frame":1}
            {"k":"enter","frame":3,"method":"D.m","this":2}
            {"k":"use","frame":3,"stmt":6,"var":{"field":"D.f","obj":2},"role":"deref"}
            {"k":"exit","frame":3,"throw":"java.lang.NullPointerException"}
            "#,
            &fail("java.lang.NullPointerException", 6),
            "Deref crash=6 mut=D.m
             D.f origin=31 t=4 non-local: 31->6 D.f default",
        );
    }

    #[test]
    fn field_defaults_of_a_constructor_under_test_are_local() {
        // Allocation recorded before the constructor's entry (event 1, time 2 = MUT start).
        check(
            r#"
            {"k":"alloc","obj":2,"class":"D","fields":[{"field":"D.f","stmt":31}]}
            {"k":"enter","frame":1,"method":"D.<init>","this":2}
            {"k":"use","frame":1,"stmt":3,"var":{"field":"D.f","obj":2},"role":"deref"}
            {"k":"exit","frame":1,"throw":"java.lang.NullPointerException"}
            "#,
            &fail("java.lang.NullPointerException", 3),
            "Deref crash=3 mut=D.<init>
             D.f origin=31 t=2 local: 31->3 D.f default",
        );
        // Allocation recorded inside it.
        check(
            r#"
            {"k":"enter","frame":1,"method":"D.<init>","this":2}
            {"k":"alloc","obj":2,"class":"D","frame":1,"fields":[{"field":"D.f","stmt":31}]}
            {"k":"use","frame":1,"stmt":3,"var":{"field":"D.f","obj":2},"role":"deref"}
            {"k":"exit","frame":1,"throw":"java.lang.NullPointerException"}
            "#,
            &fail("java.lang.NullPointerException", 3),
            "Deref crash=3 mut=D.<init>
             D.f origin=31 t=0 local: 31->3 D.f default",
        );
    }

    #[test]
    fn field_defaults_of_a_recycled_object_id_count_from_the_new_constructor() {
        // Object id 1 is reused by a second object (ids are unique among live objects only):
        // its defaults count from its own constructor (event 3), not the first object's.
        check(
            r#"
            {"k":"enter","frame":1,"method":"D.<init>","this":1}
            {"k":"alloc","obj":1,"class":"D","frame":1,"fields":[{"field":"D.f","stmt":31}]}
            {"k":"exit","frame":1}
            {"k":"enter","frame":2,"method":"D.<init>","this":1}
            {"k":"alloc","obj":1,"class":"D","frame":2,"fields":[{"field":"D.f","stmt":31}]}
            {"k":"use","frame":2,"stmt":6,"var":{"field":"D.f","obj":1},"role":"deref"}
            {"k":"exit","frame":2,"throw":"java.lang.NullPointerException"}
            "#,
            &fail("java.lang.NullPointerException", 6),
            "Deref crash=6 mut=D.<init>
             D.f origin=31 t=6 local: 31->6 D.f default",
        );
    }

    // ---- crash variables by exception kind ----

    #[test]
    fn array_index_exception_picks_the_index() {
        check(
            r#"
            {"k":"enter","frame":1,"method":"C.m"}
            {"k":"def","frame":1,"stmt":1,"var":{"local":"i"},"how":"param"}
            {"k":"def","frame":1,"stmt":2,"var":{"local":"a"},"how":"new"}
            {"k":"use","frame":1,"stmt":3,"var":{"local":"a"},"role":"deref"}
            {"k":"use","frame":1,"stmt":3,"var":{"local":"i"},"role":"index"}
            {"k":"exit","frame":1,"throw":"java.lang.ArrayIndexOutOfBoundsException"}
            "#,
            &fail("java.lang.ArrayIndexOutOfBoundsException", 3),
            "Index crash=3 mut=C.m
             i origin=1 t=-1 non-local: 1->3 i param",
        );
    }

    const BRANCH_EVENTS: &str = r#"
        {"k":"enter","frame":1,"method":"C.m"}
        {"k":"def","frame":1,"stmt":1,"var":{"local":"lo"},"how":"param"}
        {"k":"def","frame":1,"stmt":2,"var":{"local":"hi"},"how":"const"}
        {"k":"branch","frame":1,"stmt":3,"uses":[{"local":"lo"},{"local":"hi"}]}
        {"k":"exit","frame":1,"throw":"X"}
        "#;

    #[test]
    fn illegal_argument_takes_both_variables_of_the_last_branch() {
        // The throw line 4 has no event: the crash frame's last event (the branch) stands in.
        check(
            BRANCH_EVENTS,
            &fail("java.lang.IllegalArgumentException", 4),
            "Branch crash=3 mut=C.m
             lo origin=1 t=-1 non-local: 1->3 lo param
             hi origin=2 t=4 local: 2->3 hi const",
        );
    }

    #[test]
    fn application_exception_is_analyzed_by_branch() {
        check(
            BRANCH_EVENTS,
            &fail("org.example.BadState", 4),
            "Branch crash=3 mut=C.m
             lo origin=1 t=-1 non-local: 1->3 lo param
             hi origin=2 t=4 local: 2->3 hi const",
        );
    }

    #[test]
    fn class_cast_and_assertion_failures_are_unanalyzed() {
        check(
            BRANCH_EVENTS,
            &fail("java.lang.ClassCastException", 4),
            "unanalyzed: unsupported exception kind java.lang.ClassCastException: PAF analyzes \
             NullPointerException, ArrayIndexOutOfBoundsException, IllegalArgumentException, \
             IllegalStateException and application exceptions",
        );
        check(
            BRANCH_EVENTS,
            &fail("java.lang.AssertionError", 4),
            "unanalyzed: assertion failure (java.lang.AssertionError): PAF does not analyze \
             assertions, which check post-conditions",
        );
    }

    const ARG_EVENTS: &str = r#"
        {"k":"enter","frame":1,"method":"C.m"}
        {"k":"def","frame":1,"stmt":1,"var":{"local":"a"},"how":"param"}
        {"k":"def","frame":1,"stmt":2,"var":{"local":"b"},"how":"const"}
        {"k":"use","frame":1,"stmt":3,"var":{"local":"a"},"role":"arg"}
        {"k":"use","frame":1,"stmt":3,"var":{"local":"b"},"role":"arg"NULL}
        {"k":"exit","frame":1,"throw":"java.lang.NullPointerException"}
        "#;

    #[test]
    fn exception_in_uninstrumented_callee_falls_back_to_arguments() {
        let end = fail_frames(
            "java.lang.NullPointerException",
            &[("java.util.Objects", "requireNonNull", 200), ("C", "m", 3)],
        );
        // An argument seen to be null is preferred.
        check(
            &ARG_EVENTS.replace("NULL", r#","null":true"#),
            &end,
            "Deref crash=3 mut=C.m
             b origin=2 t=4 local: 2->3 b const
             fallback",
        );
        // Without that knowledge, every argument of the call is a crash variable.
        check(
            &ARG_EVENTS.replace("NULL", ""),
            &end,
            "Deref crash=3 mut=C.m
             a origin=1 t=-1 non-local: 1->3 a param
             b origin=2 t=4 local: 2->3 b const
             fallback",
        );
    }

    // ---- the method under test ----

    #[test]
    fn mut_is_the_last_top_level_call_that_threw() {
        // The test body catches C.m's exception, calls C.n (returns normally), then rethrows.
        check(
            r#"
            {"k":"enter","frame":1,"method":"C.m"}
            {"k":"def","frame":1,"stmt":1,"var":{"local":"x"},"how":"const"}
            {"k":"use","frame":1,"stmt":2,"var":{"local":"x"},"role":"deref"}
            {"k":"exit","frame":1,"throw":"java.lang.NullPointerException"}
            {"k":"enter","frame":2,"method":"C.n"}
            {"k":"exit","frame":2}
            "#,
            &fail("java.lang.NullPointerException", 2),
            "Deref crash=2 mut=C.m
             x origin=1 t=2 local: 1->2 x const",
        );
        // A call without exit (the exception escaped) threw; nested calls are not candidates.
        check(
            r#"
            {"k":"enter","frame":1,"method":"C.a"}
            {"k":"exit","frame":1}
            {"k":"enter","frame":2,"method":"C.b"}
            {"k":"enter","frame":3,"method":"C.inner","caller":2}
            {"k":"def","frame":3,"stmt":1,"var":{"local":"x"},"how":"const"}
            {"k":"use","frame":3,"stmt":2,"var":{"local":"x"},"role":"deref"}
            "#,
            &fail("java.lang.NullPointerException", 2),
            "Deref crash=2 mut=C.b
             x origin=1 t=8 local: 1->2 x const",
        );
    }
}
