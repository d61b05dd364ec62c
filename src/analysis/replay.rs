//! Phase 1a (PAF section 3.1): replay a test's events, resolving every use to its reaching
//! definition by dynamic identity; the test's DUAs, frames and calls from the test body.
//!
//! A pure function of one [`TestTrace`]; no IO.

use rustc_hash::FxHashMap;

use crate::trace::{
    Dua, Event, FrameId, How, ObjId, Role, Source, StmtIx, Sym, TestTrace, Var, VarName,
};

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
    /// The method under test (PAF section 3.2): the last call from the test body that did not
    /// return normally (it threw, or never exited because the exception escaped it).
    pub fn mut_frame(&self) -> Option<FrameId> {
        self.top_level
            .iter()
            .rev()
            .find(|f| self.frames[f].exit.is_none_or(|(_, threw)| threw))
            .copied()
    }
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
    let mut r = Replayer {
        test,
        out: Replay::default(),
        last: FxHashMap::default(),
        arrays: FxHashMap::default(),
        ctor_entries: constructor_entries(test),
    };
    for (i, event) in test.events.iter().enumerate() {
        r.step(i, event)?;
    }
    Ok(r.out)
}

/// The state of a replay: what it has built, and the reaching definition of every variable.
struct Replayer<'t> {
    test: &'t TestTrace,
    out: Replay,
    /// The latest definition of each variable by dynamic identity.
    last: FxHashMap<Var, u32>,
    /// Array allocations define every element; they are looked up lazily on first read so a
    /// large array costs one entry, not one per element: id -> (length, allocating event).
    arrays: FxHashMap<ObjId, (u64, u32)>,
    ctor_entries: FxHashMap<ObjId, Vec<u32>>,
}

impl Replayer<'_> {
    fn step(&mut self, i: usize, event: &Event) -> Result<(), ReplayError> {
        let at = i as u32;
        match event {
            Event::Enter {
                frame,
                method,
                caller,
                ..
            } => {
                self.out.frames.insert(
                    *frame,
                    FrameInfo {
                        method: *method,
                        enter: at,
                        caller: *caller,
                        exit: None,
                    },
                );
                if caller.is_none() {
                    self.out.top_level.push(*frame);
                }
            }
            Event::Exit { frame, threw } => {
                if let Some(info) = self.out.frames.get_mut(frame) {
                    info.exit = Some((at, threw.is_some()));
                }
            }
            Event::Def {
                frame,
                stmt,
                var,
                source,
            } => self.def(i, *frame, *stmt, *var, *source)?,
            Event::Use {
                frame,
                stmt,
                var,
                role,
                null,
            } => {
                let reach = self.reaching(*var);
                self.used(at, *frame, *stmt, *var, reach, *role, *null, false);
            }
            Event::Branch { frame, stmt, uses } => {
                for var in uses {
                    let reach = self.reaching(*var);
                    self.used(at, *frame, *stmt, *var, reach, Role::Value, false, true);
                }
            }
            Event::Alloc {
                obj,
                frame,
                fields,
                length,
                ..
            } => self.alloc(at, *obj, *frame, fields, *length),
        }
        Ok(())
    }

    /// Records a use of `var` whose reaching definition is `reach`.
    #[allow(clippy::too_many_arguments)] // one field each of the use record
    fn used(
        &mut self,
        at: u32,
        frame: FrameId,
        stmt: StmtIx,
        var: Var,
        reach: Option<u32>,
        role: Role,
        null: bool,
        branch: bool,
    ) {
        let var = name_of(var, &self.out.frames);
        self.out.uses.push(UseRecord {
            event: at,
            frame,
            stmt,
            var,
            role,
            null,
            branch,
            reach,
        });
    }

    fn def(
        &mut self,
        i: usize,
        frame: FrameId,
        stmt: StmtIx,
        var: Var,
        source: Source,
    ) -> Result<(), ReplayError> {
        let at = i as u32;
        let name = name_of(var, &self.out.frames);
        let (kind, time) = match source {
            Source::Copy { from, cast } => {
                let reach = self.reaching(from);
                if from == var && reach.is_none() {
                    return Err(ReplayError {
                        event: i,
                        message: "copy chain loops: this definition copies from the variable it \
                                  defines, which has no earlier definition (expected \"from\" to \
                                  name the real source)"
                            .to_string(),
                    });
                }
                // A copy uses its source.
                self.used(at, frame, stmt, from, reach, Role::Value, false, false);
                let from = name_of(from, &self.out.frames);
                let kind = DefKind::Copy {
                    from,
                    source: reach,
                    cast,
                };
                (kind, 2 * i as i64)
            }
            Source::Made { how, callee } => {
                let time = match (how, self.out.frames.get(&frame)) {
                    (How::Param, Some(f)) => 2 * f.enter as i64 - 1,
                    _ => 2 * i as i64,
                };
                (DefKind::Made { how, callee }, time)
            }
        };
        let ix = self.out.defs.len() as u32;
        self.out.defs.push(Definition {
            event: at,
            stmt,
            var: name,
            kind,
            time,
        });
        self.last.insert(var, ix);
        Ok(())
    }

    /// An allocation defines its fields (their defaults, bundled with the constructor) and, for
    /// an array, every element.
    fn alloc(
        &mut self,
        at: u32,
        obj: ObjId,
        frame: Option<FrameId>,
        fields: &[(Sym, StmtIx)],
        length: Option<u64>,
    ) {
        let time = 2 * bundled_with_constructor(
            at,
            obj,
            frame,
            &self.out.frames,
            &self.ctor_entries,
            &self.test.events,
        ) as i64;
        for &(field, decl) in fields {
            let ix = self.out.defs.len() as u32;
            self.out.defs.push(Definition {
                event: at,
                stmt: decl,
                var: VarName::Named(field),
                kind: DefKind::Default,
                time,
            });
            self.last.insert(Var::Field { obj, name: field }, ix);
        }
        if let Some(length) = length {
            // Any earlier elements of a recycled id are gone with the old array.
            self.last
                .retain(|v, _| !matches!(v, Var::Elem { array, .. } if *array == obj));
            self.arrays.insert(obj, (length, at));
        }
    }

    fn reaching(&mut self, var: Var) -> Option<u32> {
        reaching(&self.last, &self.arrays, &mut self.out.defs, var, self.test)
    }
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
