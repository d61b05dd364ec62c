//! Phase 1a (PAF section 3.1): replay a test's events, resolving every use to its reaching
//! definition by dynamic identity.
//!
//! The [`Replayer`] takes one event at a time and keeps only what later events can still
//! reach: the latest definition of each storage location, the frames still active (a local
//! dies with its frame), arrays and the field defaults of allocations (both looked up lazily,
//! one entry per object). It reports every definition and use to a [`Recorder`], which keeps
//! what its analysis needs: [`Whole`] keeps everything (the [`Replay`] of [`replay()`], for
//! tests and tools), [`Duas`] the DUAs a filter wants, and the failure analysis the copy
//! chains of its crash candidates ([`super::failure`]). So memory grows with the locations a
//! test touches, never with its events. A pure computation; no IO.

use std::rc::Rc;

use rustc_hash::{FxHashMap, FxHashSet};

use crate::trace::assemble::EventSink;
use crate::trace::symbols::Names;
use crate::trace::{
    Dua, EntryValues, Event, FrameId, How, ObjId, Role, Source, StmtIx, Sym, TestTrace, Var,
    VarName,
};

/// How a definition got its value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DefHow {
    /// Copied unchanged from `from` (possibly through a cast).
    Copy {
        from: VarName,
        cast: bool,
    },
    Made {
        how: How,
        callee: Option<Sym>,
    },
    /// A field or array element set to its default value by an allocation.
    Default,
}

/// One definition as the replayer reports it: `source` is the reaching definition of a
/// copy's `from`.
pub struct NewDef<'a, D> {
    pub event: u32,
    pub stmt: StmtIx,
    pub var: VarName,
    pub how: DefHow,
    pub source: Option<&'a D>,
    /// When the definition counts as executed, for locality, in half-steps of the event index:
    /// `2 * event`, moved for parameters and field defaults (see [`Replayer`]).
    pub time: i64,
    /// The frame that executed it (`None` for an allocation's defaults).
    pub frame: Option<FrameId>,
    /// For a return value: the frame whose return slot it defines.
    pub ret_of: Option<FrameId>,
}

/// One use executed by the test (explicit, implied by a copy, or read by a branch).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct UseAt {
    pub event: u32,
    pub frame: FrameId,
    pub stmt: StmtIx,
    pub var: VarName,
    pub role: Role,
    pub null: bool,
    /// Read by a `branch` event.
    pub branch: bool,
}

/// What an analysis keeps of a replay. `Def` is its handle on a definition: the replayer keeps
/// one per live location and hands it back with every use the definition reaches.
pub trait Recorder {
    type Def: Clone;
    /// Whether definition times matter: then a field default whose time is only known at its
    /// object's next entry is retimed ([`Recorder::retime`]) when that comes.
    const TIMED: bool = false;

    /// Called first for every event, with its index.
    fn event(&mut self, _at: u32, _event: &Event, _names: &dyn Names) {}
    fn def(&mut self, def: NewDef<'_, Self::Def>) -> Self::Def;
    fn use_(&mut self, u: &UseAt, reach: Option<&Self::Def>);
    fn retime(&mut self, _def: &Self::Def, _time: i64) {}
}

/// A replay that found the event stream inconsistent: the event index and what is wrong.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ReplayError {
    pub event: usize,
    pub message: String,
}

/// The latest definition of each storage location, one map per kind of location (so that
/// each key is as small as its kind allows).
struct Locations<D> {
    locals: FxHashMap<(FrameId, Sym), D>,
    fields: FxHashMap<(ObjId, Sym), D>,
    statics: FxHashMap<Sym, D>,
    elems: FxHashMap<(ObjId, u64, Option<Sym>), D>,
    rets: FxHashMap<FrameId, D>,
}

impl<D> Default for Locations<D> {
    fn default() -> Self {
        Locations {
            locals: FxHashMap::default(),
            fields: FxHashMap::default(),
            statics: FxHashMap::default(),
            elems: FxHashMap::default(),
            rets: FxHashMap::default(),
        }
    }
}

impl<D> Locations<D> {
    fn get(&self, var: &Var) -> Option<&D> {
        match *var {
            Var::Local { frame, name } => self.locals.get(&(frame, name)),
            Var::Field { obj, name } => self.fields.get(&(obj, name)),
            Var::Static { name } => self.statics.get(&name),
            Var::Elem { array, index, name } => self.elems.get(&(array, index, name)),
            Var::Ret { frame, .. } => self.rets.get(&frame),
        }
    }

    /// Sets `var`'s definition; whether it had none before.
    fn insert(&mut self, var: Var, d: D) -> bool {
        match var {
            Var::Local { frame, name } => self.locals.insert((frame, name), d),
            Var::Field { obj, name } => self.fields.insert((obj, name), d),
            Var::Static { name } => self.statics.insert(name, d),
            Var::Elem { array, index, name } => self.elems.insert((array, index, name), d),
            Var::Ret { frame, .. } => self.rets.insert(frame, d),
        }
        .is_none()
    }
}

/// A frame still active: what its events and its exit need.
struct Active {
    enter: u32,
    this: Option<ObjId>,
    /// Names of its locals that have a definition (removed when it exits).
    locals: Vec<Sym>,
}

/// The field defaults of an allocated object: defined by the allocation, looked up on first
/// read (one entry per object rather than one per field).
struct Defaults {
    at: u32,
    /// Index of the field list in [`Replayer::field_lists`].
    fields: u32,
    /// Their time, [`UNTIMED`] until the object's constructor is entered (see [`Replayer`]).
    time: i64,
}

/// The time of field defaults whose constructor has not been entered yet.
const UNTIMED: i64 = i64::MIN;

/// Replays a test's events one at a time, resolving every use (and copy source) to its
/// reaching definition by dynamic identity, and tells `R` about each definition and use.
///
/// Locality times: a parameter received from an uninstrumented caller (`how: param`) counts as
/// executed just before its frame was entered, since the value was made by the caller; a field
/// default counts as executed when the object's outermost constructor was entered (PAF 3.2
/// bundles field initializers with the constructor): the earliest frame still open on the
/// object if the allocation happens in one, else the next frame entered on it, else the
/// allocation itself.
pub struct Replayer<R: Recorder> {
    pub recorder: R,
    /// Events replayed so far.
    events: u32,
    /// The latest definition of each location by dynamic identity (field defaults and array
    /// elements not written since their allocation are in `objects` and `arrays`).
    last: Locations<R::Def>,
    active: FxHashMap<FrameId, Active>,
    /// Array allocations define every element; they are looked up lazily on first read so a
    /// large array costs one entry: id -> (length, allocating event, statement).
    arrays: FxHashMap<ObjId, (u64, u32, Option<StmtIx>)>,
    /// Arrays with elements in `last` (dropped when the id is allocated again).
    written_arrays: FxHashSet<ObjId>,
    objects: FxHashMap<ObjId, Defaults>,
    /// The distinct field lists of allocations, and their indices.
    field_lists: Vec<Rc<[(Sym, StmtIx)]>>,
    field_list_ix: FxHashMap<Rc<[(Sym, StmtIx)]>, u32>,
    /// Frames open on each object: (enter event, frame).
    open_on: FxHashMap<ObjId, Vec<(u32, FrameId)>>,
    /// Field defaults read before their time was known, to retime.
    awaiting: FxHashMap<ObjId, Vec<R::Def>>,
    failed: Option<ReplayError>,
}

impl<R: Recorder> Replayer<R> {
    pub fn new(recorder: R) -> Self {
        Replayer {
            recorder,
            events: 0,
            last: Locations::default(),
            active: FxHashMap::default(),
            arrays: FxHashMap::default(),
            written_arrays: FxHashSet::default(),
            objects: FxHashMap::default(),
            field_lists: Vec::new(),
            field_list_ix: FxHashMap::default(),
            open_on: FxHashMap::default(),
            awaiting: FxHashMap::default(),
            failed: None,
        }
    }

    /// Events replayed so far.
    pub fn events(&self) -> u32 {
        self.events
    }

    /// The first error, if the event stream was inconsistent (no event is replayed after it).
    pub fn error(&self) -> Option<&ReplayError> {
        self.failed.as_ref()
    }

    /// Replays the next event.
    pub fn step(&mut self, event: &Event, names: &dyn Names) -> Result<(), ReplayError> {
        if let Some(e) = &self.failed {
            return Err(e.clone());
        }
        let at = self.events;
        self.events += 1;
        self.recorder.event(at, event, names);
        let done = match event {
            Event::Enter {
                frame,
                caller: _,
                this,
                ..
            } => {
                self.enter(at, *frame, *this);
                Ok(())
            }
            Event::Exit { frame, .. } => {
                self.exit(*frame);
                Ok(())
            }
            Event::Def {
                frame,
                stmt,
                var,
                source,
            } => self.def(at, *frame, *stmt, *var, *source),
            Event::Use {
                frame,
                stmt,
                var,
                role,
                null,
            } => {
                self.used(at, *frame, *stmt, *var, *role, *null, false);
                Ok(())
            }
            Event::Branch { frame, stmt, uses } => {
                for var in uses {
                    self.used(at, *frame, *stmt, *var, Role::Value, false, true);
                }
                Ok(())
            }
            Event::Alloc {
                obj,
                frame,
                stmt,
                fields,
                length,
            } => {
                self.alloc(at, *obj, *frame, *stmt, fields, *length);
                Ok(())
            }
        };
        if let Err(e) = &done {
            self.failed = Some(e.clone());
        }
        done
    }

    fn enter(&mut self, at: u32, frame: FrameId, this: Option<ObjId>) {
        self.active.insert(
            frame,
            Active {
                enter: at,
                this,
                locals: Vec::new(),
            },
        );
        let Some(obj) = this else {
            return;
        };
        if R::TIMED {
            self.open_on.entry(obj).or_default().push((at, frame));
            // The next frame entered on an object times its pending field defaults.
            if let Some(d) = self.objects.get_mut(&obj)
                && d.time == UNTIMED
            {
                d.time = 2 * at as i64;
            }
            for def in self.awaiting.remove(&obj).unwrap_or_default() {
                self.recorder.retime(&def, 2 * at as i64);
            }
        }
    }

    /// A frame exits: its locals die with it (the format forbids using them afterwards).
    fn exit(&mut self, frame: FrameId) {
        let Some(a) = self.active.remove(&frame) else {
            return;
        };
        for name in a.locals {
            self.last.locals.remove(&(frame, name));
        }
        if let Some(obj) = a.this
            && let Some(open) = self.open_on.get_mut(&obj)
        {
            open.retain(|&(_, f)| f != frame);
            if open.is_empty() {
                self.open_on.remove(&obj);
            }
        }
    }

    /// Records a use of `var` and its reaching definition.
    #[allow(clippy::too_many_arguments)] // one field each of the use
    fn used(
        &mut self,
        at: u32,
        frame: FrameId,
        stmt: StmtIx,
        var: Var,
        role: Role,
        null: bool,
        branch: bool,
    ) {
        let reach = self.reaching(var);
        self.report_use(at, frame, stmt, var, role, null, branch, reach.as_ref());
    }

    #[allow(clippy::too_many_arguments)] // one field each of the use
    fn report_use(
        &mut self,
        at: u32,
        frame: FrameId,
        stmt: StmtIx,
        var: Var,
        role: Role,
        null: bool,
        branch: bool,
        reach: Option<&R::Def>,
    ) {
        let u = UseAt {
            event: at,
            frame,
            stmt,
            var: name_of(var),
            role,
            null,
            branch,
        };
        self.recorder.use_(&u, reach);
    }

    fn def(
        &mut self,
        at: u32,
        frame: FrameId,
        stmt: StmtIx,
        var: Var,
        source: Source,
    ) -> Result<(), ReplayError> {
        let (how, reach, time) = match source {
            Source::Copy { from, cast } => {
                let reach = self.reaching(from);
                if from == var && reach.is_none() {
                    return Err(ReplayError {
                        event: at as usize,
                        message: "copy chain loops: this definition copies from the variable it \
                                  defines, which has no earlier definition (expected \"from\" to \
                                  name the real source)"
                            .to_string(),
                    });
                }
                // A copy uses its source.
                self.report_use(
                    at,
                    frame,
                    stmt,
                    from,
                    Role::Value,
                    false,
                    false,
                    reach.as_ref(),
                );
                let how = DefHow::Copy {
                    from: name_of(from),
                    cast,
                };
                (how, reach, 2 * at as i64)
            }
            Source::Made { how, callee } => {
                let time = match (how, self.active.get(&frame)) {
                    (How::Param, Some(f)) => 2 * f.enter as i64 - 1,
                    _ => 2 * at as i64,
                };
                (DefHow::Made { how, callee }, None, time)
            }
        };
        let def = self.recorder.def(NewDef {
            event: at,
            stmt,
            var: name_of(var),
            how,
            source: reach.as_ref(),
            time,
            frame: Some(frame),
            ret_of: match var {
                Var::Ret { frame, .. } => Some(frame),
                _ => None,
            },
        });
        self.define(var, def);
        Ok(())
    }

    /// `var`'s latest definition is now `def`.
    fn define(&mut self, var: Var, def: R::Def) {
        let fresh = self.last.insert(var, def);
        match var {
            Var::Local { frame, name } if fresh => {
                if let Some(a) = self.active.get_mut(&frame) {
                    a.locals.push(name);
                }
            }
            Var::Elem { array, .. } if fresh => {
                self.written_arrays.insert(array);
            }
            _ => {}
        }
    }

    /// An allocation defines its fields (their defaults, bundled with the constructor) and, for
    /// an array, every element.
    fn alloc(
        &mut self,
        at: u32,
        obj: ObjId,
        frame: Option<FrameId>,
        stmt: Option<StmtIx>,
        fields: &[(Sym, StmtIx)],
        length: Option<u64>,
    ) {
        if !fields.is_empty() {
            self.field_defaults(at, obj, frame, fields);
        }
        if let Some(length) = length {
            // Any earlier elements of a recycled id are gone with the old array.
            if self.written_arrays.remove(&obj) {
                self.last.elems.retain(|&(array, _, _), _| array != obj);
            }
            self.arrays.insert(obj, (length, at, stmt));
        }
    }

    fn field_defaults(
        &mut self,
        at: u32,
        obj: ObjId,
        frame: Option<FrameId>,
        fields: &[(Sym, StmtIx)],
    ) {
        // The new defaults hide any earlier definition of these fields.
        for &(name, _) in fields {
            self.last.fields.remove(&(obj, name));
        }
        let list = match self.field_list_ix.get(fields) {
            Some(&ix) => ix,
            None => {
                let l: Rc<[(Sym, StmtIx)]> = Rc::from(fields);
                let ix = self.field_lists.len() as u32;
                self.field_lists.push(Rc::clone(&l));
                self.field_list_ix.insert(l, ix);
                ix
            }
        };
        let time = if R::TIMED {
            self.constructor_time(obj, frame).unwrap_or(UNTIMED)
        } else {
            2 * at as i64
        };
        let old = self.objects.insert(
            obj,
            Defaults {
                at,
                fields: list,
                time,
            },
        );
        // A recycled id: the old object's other defaults stay defined, as if written out.
        if let Some(old) = old {
            let old_fields = Rc::clone(&self.field_lists[old.fields as usize]);
            for &(name, decl) in old_fields.iter() {
                if !fields.iter().any(|f| f.0 == name) {
                    let def = self.default_def(obj, old.at, decl, name, old.time);
                    self.define(Var::Field { obj, name }, def);
                }
            }
        }
    }

    /// The time of field defaults allocated on `obj` in `frame`: inside a frame entered on the
    /// object, the earliest frame still open on it; otherwise unknown until the next frame
    /// entered on the object (`None`).
    fn constructor_time(&self, obj: ObjId, frame: Option<FrameId>) -> Option<i64> {
        let f = frame.and_then(|f| self.active.get(&f))?;
        if f.this != Some(obj) {
            return None;
        }
        let first = self
            .open_on
            .get(&obj)
            .and_then(|open| {
                open.iter()
                    .map(|&(enter, _)| enter)
                    .filter(|&e| e <= f.enter)
                    .min()
            })
            .unwrap_or(f.enter);
        Some(2 * first as i64)
    }

    /// A definition of field `name` of `obj` by its allocation at `at`, whose time is `time`
    /// (or [`UNTIMED`]).
    fn default_def(&mut self, obj: ObjId, at: u32, decl: StmtIx, name: Sym, time: i64) -> R::Def {
        let untimed = time == UNTIMED;
        let def = self.recorder.def(NewDef {
            event: at,
            stmt: decl,
            var: VarName::Named(name),
            how: DefHow::Default,
            source: None,
            time: if untimed { 2 * at as i64 } else { time },
            frame: None,
            ret_of: None,
        });
        if R::TIMED && untimed {
            self.awaiting.entry(obj).or_default().push(def.clone());
        }
        def
    }

    /// The reaching definition of `var`, materialising a field's or an array element's default
    /// on first read.
    fn reaching(&mut self, var: Var) -> Option<R::Def> {
        if let Some(d) = self.last.get(&var) {
            return Some(d.clone());
        }
        match var {
            Var::Field { obj, name } => {
                let d = self.objects.get(&obj)?;
                let fields = &self.field_lists[d.fields as usize];
                let &(_, decl) = fields.iter().find(|f| f.0 == name)?;
                let (at, time) = (d.at, d.time);
                let def = self.default_def(obj, at, decl, name, time);
                if R::TIMED && time == UNTIMED {
                    // Read before its time is known: one definition for every read, retimed.
                    self.define(var, def.clone());
                }
                Some(def)
            }
            Var::Elem { array, index, name } => {
                let &(length, at, stmt) = self.arrays.get(&array)?;
                if index >= length {
                    return None;
                }
                // The default is shared by all elements; one definition per (array, read) is
                // enough for DUAs and chains, and it is not entered into `last`, which only
                // writes update.
                Some(self.recorder.def(NewDef {
                    event: at,
                    stmt: stmt?,
                    var: VarName::Elem(name),
                    how: DefHow::Default,
                    source: None,
                    time: 2 * at as i64,
                    frame: None,
                    ret_of: None,
                }))
            }
            _ => None,
        }
    }
}

impl<R: Recorder> EventSink for Replayer<R> {
    fn event(&mut self, event: &Event, names: &dyn Names) -> Result<(), String> {
        self.step(event, names).map_err(|e| e.message)
    }
}

/// The name of a variable (a return slot is named by its frame's method).
fn name_of(var: Var) -> VarName {
    match var {
        Var::Local { name, .. } | Var::Field { name, .. } | Var::Static { name } => {
            VarName::Named(name)
        }
        Var::Elem { name, .. } => VarName::Elem(name),
        Var::Ret { method, .. } => VarName::Ret(method),
    }
}

/// Keeps only whether a location is defined: the replay's own check, for `paf validate`.
pub struct Check;

impl Recorder for Check {
    type Def = ();

    fn def(&mut self, _: NewDef<'_, ()>) {}

    fn use_(&mut self, _: &UseAt, _: Option<&()>) {}
}

/// Keeps the distinct DUAs whose (use, variable) `wants` accepts, and, if asked, the calls
/// the test body made with entry values.
pub struct Duas<F> {
    wants: F,
    pub duas: FxHashSet<Dua>,
    /// `(method, values)` of every call from the test body that carries values (`None`: not
    /// gathered).
    pub entries: Option<Vec<(Sym, EntryValues)>>,
    /// With `entries` (the evaluation's facts): the statements the test's events happened
    /// at, for its line coverage.
    pub stmts: Option<FxHashSet<StmtIx>>,
}

impl<F: Fn(StmtIx, VarName) -> bool> Duas<F> {
    pub fn new(wants: F, entries: bool) -> Self {
        Duas {
            wants,
            duas: FxHashSet::default(),
            entries: entries.then(Vec::new),
            stmts: entries.then(FxHashSet::default),
        }
    }

    /// The DUAs kept, sorted.
    pub fn sorted(&self) -> Vec<Dua> {
        let mut duas: Vec<Dua> = self.duas.iter().copied().collect();
        duas.sort_unstable();
        duas
    }
}

impl<F: Fn(StmtIx, VarName) -> bool> Recorder for Duas<F> {
    type Def = StmtIx;

    fn event(&mut self, _: u32, event: &Event, _: &dyn Names) {
        if let (Some(stmts), Some(stmt)) = (&mut self.stmts, event.stmt()) {
            stmts.insert(stmt);
        }
        if let (
            Some(entries),
            Event::Enter {
                caller: None,
                method,
                values: Some(v),
                ..
            },
        ) = (&mut self.entries, event)
        {
            entries.push((*method, (**v).clone()));
        }
    }

    fn def(&mut self, def: NewDef<'_, StmtIx>) -> StmtIx {
        def.stmt
    }

    fn use_(&mut self, u: &UseAt, reach: Option<&StmtIx>) {
        if let Some(&def) = reach
            && (self.wants)(u.stmt, u.var)
        {
            self.duas.insert(Dua {
                def,
                use_: u.stmt,
                var: u.var,
            });
        }
    }
}

/// One definition executed by the test.
#[derive(Clone, Debug)]
pub struct Definition {
    pub event: u32,
    pub stmt: StmtIx,
    pub var: VarName,
    pub how: DefHow,
    /// A copy's source: the reaching definition of `from` (an index into [`Replay::defs`],
    /// always smaller than this definition's own index).
    pub source: Option<u32>,
    pub time: i64,
}

/// One use and its reaching definition (an index into [`Replay::defs`]).
#[derive(Clone, Debug)]
pub struct UseRecord {
    pub at: UseAt,
    pub reach: Option<u32>,
}

/// The whole replayed dataflow of one test.
#[derive(Debug, Default)]
pub struct Replay {
    pub defs: Vec<Definition>,
    pub uses: Vec<UseRecord>,
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
                    use_: u.at.stmt,
                    var: u.at.var,
                })
            })
            .collect();
        duas.sort_unstable();
        duas.dedup();
        duas
    }
}

/// Keeps every definition and use: the [`Replay`].
#[derive(Default)]
pub struct Whole(pub Replay);

impl Recorder for Whole {
    type Def = u32;
    const TIMED: bool = true;

    fn def(&mut self, def: NewDef<'_, u32>) -> u32 {
        self.0.defs.push(Definition {
            event: def.event,
            stmt: def.stmt,
            var: def.var,
            how: def.how,
            source: def.source.copied(),
            time: def.time,
        });
        self.0.defs.len() as u32 - 1
    }

    fn use_(&mut self, u: &UseAt, reach: Option<&u32>) {
        self.0.uses.push(UseRecord {
            at: *u,
            reach: reach.copied(),
        });
    }

    fn retime(&mut self, def: &u32, time: i64) {
        self.0.defs[*def as usize].time = time;
    }
}

/// No names: [`Whole`] does not read them.
struct Unnamed;

impl Names for Unnamed {
    fn name(&self, _: Sym) -> &str {
        ""
    }
}

/// Replays a whole test held in memory, keeping every definition and use.
pub fn replay(test: &TestTrace) -> Result<Replay, ReplayError> {
    let mut r = Replayer::new(Whole::default());
    for event in &test.events {
        r.step(event, &Unnamed)?;
    }
    Ok(r.recorder.0)
}
