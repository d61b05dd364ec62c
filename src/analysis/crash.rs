//! What a failing test's replay keeps for its analysis while the events stream past: the
//! latest event at the crash site and, for the frame it ran in, the uses the crash-variable
//! rules choose from (as they stood at that event); the method under test's candidates; and
//! every DUA. The copy chains of the kept uses stay alive through their [`DefNode`]s.

use std::cell::Cell;
use std::rc::Rc;

use rustc_hash::{FxHashMap, FxHashSet};

use super::backtrack::DefNode;
use super::replay::{DefHow, NewDef, Recorder, UseAt};
use crate::trace::symbols::Names;
use crate::trace::{Dua, EntryValues, Event, FrameId, Role, StmtIx, Sym, VarName};

/// A use as the crash rules see it.
#[derive(Clone, Debug)]
pub(super) struct Seen {
    pub stmt: StmtIx,
    pub var: VarName,
    pub reach: Option<Rc<DefNode>>,
}

/// What the crash rules need of one frame's uses.
#[derive(Clone, Debug, Default)]
pub(super) struct Track {
    /// The run of the frame's uses at the site that ends at its latest use: the first `arg`
    /// use of each variable, and the first null one of each.
    pub args: Vec<Seen>,
    pub null_args: Vec<Seen>,
    /// The frame's latest use at the site, and its latest one with each role.
    pub last_site: Option<Seen>,
    pub by_role: [Option<Seen>; 4],
    /// The frame's latest use at the site with role `value` that is not a branch's: the
    /// operand the tracer records at a division, a cast or an array allocation.
    pub operand: Option<Seen>,
    /// The uses of the frame's latest branch event.
    pub branch: Option<(u32, Rc<Vec<Seen>>)>,
}

impl Track {
    /// A copy for a candidate, taking the run (which the caller is about to end).
    fn freeze(&mut self) -> Track {
        Track {
            args: std::mem::take(&mut self.args),
            null_args: std::mem::take(&mut self.null_args),
            last_site: self.last_site.clone(),
            by_role: self.by_role.clone(),
            operand: self.operand.clone(),
            branch: self.branch.clone(),
        }
    }
}

pub(super) fn role_index(role: Role) -> usize {
    match role {
        Role::Deref => 0,
        Role::Index => 1,
        Role::Arg => 2,
        Role::Value => 3,
    }
}

/// The latest event at the crash site, and its frame's track as it stood then (`frozen`, once
/// the frame's later events changed it; the live track until then).
#[derive(Debug)]
pub(super) struct Candidate {
    pub event: u32,
    pub stmt: StmtIx,
    pub frame: Option<FrameId>,
    pub frozen: Option<Track>,
}

/// The crash event when nothing ran at the site: the latest frame of the site's method, its
/// latest event with a statement, and its track once it exited.
#[derive(Debug)]
pub(super) struct Fallback {
    pub frame: FrameId,
    pub last: Option<(u32, StmtIx)>,
    pub track: Option<Track>,
}

/// A call from the test body: a candidate for the method under test.
#[derive(Clone, Debug)]
pub(super) struct TopCall {
    pub method: Sym,
    pub enter: u32,
    pub values: Option<Box<EntryValues>>,
    /// The test method's line that made the call, when the tracer recorded it.
    pub line: Option<u32>,
    /// Made by uninstrumented code the line called, not by the line itself.
    pub callback: bool,
    /// Followed only for a failure raised in the test body ([`Tracker::body`]).
    pub body: Option<Box<BodyTrack>>,
}

/// What a failure raised in the test body needs of one call from the test body: the
/// definition of its return value and, for each value the frame made itself (not a copy), the
/// variables that made it.
#[derive(Clone, Debug, Default)]
pub(super) struct BodyTrack {
    pub ret: Option<Rc<DefNode>>,
    /// (statement of a made definition, its operands), the latest [`MADE_KEPT`] statements.
    pub made: Vec<(StmtIx, Rc<Vec<Seen>>)>,
    /// The frame's uses since its latest definition or branch.
    recent: Vec<Seen>,
    /// The uses of the frame's latest branch, and that branch's event.
    branch: Option<(u32, Rc<Vec<Seen>>)>,
}

/// How many made definitions of one call from the test body are kept with their operands.
const MADE_KEPT: usize = 16;
/// How many uses one operand list keeps (a long expression keeps its last ones).
const OPERANDS_KEPT: usize = 16;
/// How many calls of one line of the test body are kept as that line's checked calls.
pub(super) const LINE_CALLS_KEPT: usize = 32;

/// A call from the test body that returned a value normally, with the line that made it.
#[derive(Clone, Debug)]
pub(super) struct Returned {
    pub method: Sym,
    pub enter: u32,
    pub ret: Rc<DefNode>,
    pub made: Vec<(StmtIx, Rc<Vec<Seen>>)>,
}

/// The calls from the test body that returned a value, of the latest line that made one and of
/// the lines the failing line reads its values from.
#[derive(Clone, Debug, Default)]
pub(super) struct BodyCalls {
    /// The lines the failing line reads from (the exception's `read_lines`).
    pub read: Vec<u32>,
    pub latest: LineCalls,
    /// The latest visit of each line of `read` that made a call returning a value.
    pub kept: Vec<LineCalls>,
    /// Whether a call with a line was seen (the tracer records lines).
    lined: bool,
}

/// The calls from the test body that returned a value of one visit of one line.
#[derive(Clone, Debug, Default)]
pub(super) struct LineCalls {
    pub line: Option<u32>,
    /// The calls the line made itself (directly, or through JUnit's assertions).
    pub calls: Vec<Returned>,
    /// The calls uninstrumented code the line called made back into the code under test
    /// (`AbstractMap.equals` calling `entrySet`): the checked calls when the line made none.
    pub callbacks: Vec<Returned>,
    /// Calls of the line beyond [`LINE_CALLS_KEPT`], not kept.
    pub dropped: usize,
}

/// Where the crash can be, known before the events: the site's statements and the name of
/// its method (`Class.method`) for the fallback.
pub(super) struct Watch {
    pub stmts: Vec<StmtIx>,
    pub method: String,
}

/// The recorder of a failing test's replay.
pub(super) struct Tracker {
    /// `None`: the test cannot be analyzed whatever its events (only DUAs and the MUT are kept).
    pub watch: Option<Watch>,
    method_sym: Option<Sym>,
    pub values: bool,
    /// With `values` (the evaluation's facts): the statements the test's events happened at,
    /// for its line coverage (bounded by the statement table, not by the events).
    pub stmts: Option<FxHashSet<StmtIx>>,
    pub duas: FxHashSet<Dua>,
    pub tracks: FxHashMap<FrameId, Track>,
    pub candidate: Option<Candidate>,
    pub fallback: Option<Fallback>,
    /// Calls from the test body still open, and the latest one that threw.
    pub top_open: FxHashMap<FrameId, TopCall>,
    pub top_threw: Option<TopCall>,
    /// A failure raised in the test body: the returned calls of the latest line that made one
    /// (`None` when the failure is not one).
    pub body: Option<BodyCalls>,
}

impl Tracker {
    pub fn new(watch: Option<Watch>, values: bool) -> Tracker {
        Tracker {
            watch,
            method_sym: None,
            values,
            stmts: values.then(FxHashSet::default),
            duas: FxHashSet::default(),
            tracks: FxHashMap::default(),
            candidate: None,
            fallback: None,
            top_open: FxHashMap::default(),
            top_threw: None,
            body: None,
        }
    }

    /// Follows the calls from the test body for a failure raised in the test body that reads
    /// values stored by the lines `read`.
    pub fn follow_body(mut self, read: Vec<u32>) -> Tracker {
        self.body = Some(BodyCalls {
            read,
            ..BodyCalls::default()
        });
        self
    }

    /// The method under test's call: the latest call from the test body that did not return
    /// normally (it threw, or never exited because the exception escaped it).
    pub fn mut_call(&self) -> Option<&TopCall> {
        self.top_open
            .values()
            .chain(&self.top_threw)
            .max_by_key(|t| t.enter)
    }

    /// The candidate's frame's track can no longer change as it stood at the candidate event:
    /// keep it.
    fn freeze(&mut self, frame: FrameId) {
        if let Some(c) = &mut self.candidate
            && c.frame == Some(frame)
            && c.frozen.is_none()
        {
            c.frozen = Some(
                self.tracks
                    .get_mut(&frame)
                    .map_or_else(Track::default, Track::freeze),
            );
        }
    }

    fn top_level(&mut self, at: u32, event: &Event) {
        match event {
            Event::Enter {
                frame,
                method,
                caller: None,
                values,
                test_line,
                callback,
                ..
            } => {
                let values = if self.values { values.clone() } else { None };
                self.top_open.insert(
                    *frame,
                    TopCall {
                        method: *method,
                        enter: at,
                        values,
                        line: *test_line,
                        callback: *callback,
                        body: self.body.is_some().then(Box::default),
                    },
                );
            }
            Event::Exit { frame, threw } => {
                let Some(mut call) = self.top_open.remove(frame) else {
                    return;
                };
                if threw.is_some() {
                    if self.top_threw.as_ref().is_none_or(|t| t.enter < call.enter) {
                        call.body = None;
                        self.top_threw = Some(call);
                    }
                } else if let (Some(body), Some(track)) = (&mut self.body, call.body.take())
                    && let Some(ret) = track.ret
                {
                    body.returned(
                        call.line,
                        call.callback,
                        Returned {
                            method: call.method,
                            enter: call.enter,
                            ret,
                            made: track.made,
                        },
                    );
                }
            }
            _ => {}
        }
    }

    /// Follows the site (and, until something runs there, the fallback frame).
    fn site(&mut self, at: u32, event: &Event, names: &dyn Names) {
        let Some(watch) = &self.watch else {
            return;
        };
        if let Some(stmt) = event.stmt()
            && watch.stmts.contains(&stmt)
        {
            self.candidate = Some(Candidate {
                event: at,
                stmt,
                frame: event.frame(),
                frozen: None,
            });
            self.fallback = None;
            return;
        }
        if self.candidate.is_some() {
            return;
        }
        match event {
            Event::Enter { frame, method, .. } => {
                let is_it = match self.method_sym {
                    Some(s) => s == *method,
                    None if names.name(*method) == watch.method => {
                        self.method_sym = Some(*method);
                        true
                    }
                    None => false,
                };
                if is_it {
                    self.fallback = Some(Fallback {
                        frame: *frame,
                        last: None,
                        track: None,
                    });
                }
            }
            _ => {
                if let (Some(f), Some(stmt)) = (&mut self.fallback, event.stmt())
                    && event.frame() == Some(f.frame)
                {
                    f.last = Some((at, stmt));
                }
            }
        }
    }

    fn exited(&mut self, frame: FrameId) {
        self.freeze(frame);
        let track = self.tracks.remove(&frame);
        if let Some(f) = &mut self.fallback
            && f.frame == frame
        {
            f.track = track;
        }
    }

    /// Takes one use into its frame's track.
    fn track(&mut self, u: &UseAt, reach: Option<&Rc<DefNode>>) {
        let Some(watch) = &self.watch else {
            return;
        };
        let at_site = watch.stmts.contains(&u.stmt);
        let candidate_after = self
            .candidate
            .as_ref()
            .is_some_and(|c| c.frame == Some(u.frame) && c.frozen.is_none() && c.event < u.event);
        let new_branch = u.branch
            && self
                .tracks
                .get(&u.frame)
                .and_then(|t| t.branch.as_ref())
                .is_none_or(|b| b.0 != u.event);
        let ends_run = !at_site
            && self
                .tracks
                .get(&u.frame)
                .is_some_and(|t| !t.args.is_empty() || !t.null_args.is_empty());
        if candidate_after && (new_branch || ends_run) {
            self.freeze(u.frame);
        }
        if !(at_site || u.branch || ends_run) {
            return;
        }
        let seen = Seen {
            stmt: u.stmt,
            var: u.var,
            reach: reach.cloned(),
        };
        let t = self.tracks.entry(u.frame).or_default();
        if at_site {
            if u.role == Role::Arg {
                if !t.args.iter().any(|s| s.var == u.var) {
                    t.args.push(seen.clone());
                }
                if u.null && !t.null_args.iter().any(|s| s.var == u.var) {
                    t.null_args.push(seen.clone());
                }
            }
            t.last_site = Some(seen.clone());
            t.by_role[role_index(u.role)] = Some(seen.clone());
            if u.role == Role::Value && !u.branch {
                t.operand = Some(seen.clone());
            }
        } else {
            t.args.clear();
            t.null_args.clear();
        }
        if u.branch {
            if new_branch {
                t.branch = Some((u.event, Rc::new(Vec::new())));
            }
            if let Some((_, uses)) = &mut t.branch {
                Rc::make_mut(uses).push(seen);
            }
        }
    }
}

impl LineCalls {
    /// The checked calls of the line: the calls it made itself, else (a line whose only code
    /// under test ran inside a JDK method, as `list.equals(safeList)` iterating `safeList`) the
    /// callbacks.
    pub fn checked(&self) -> &[Returned] {
        if self.calls.is_empty() {
            &self.callbacks
        } else {
            &self.calls
        }
    }
}

impl BodyCalls {
    /// A call from the test body made at `line` (a `callback` from uninstrumented code the line
    /// called) returned a value. Once the tracer has given lines, a call without one was not
    /// made while the test method ran (another thread, a lifecycle method): skipped.
    fn returned(&mut self, line: Option<u32>, callback: bool, call: Returned) {
        if line.is_some() {
            self.lined = true;
        } else if self.lined {
            return;
        }
        let lines = &mut self.latest;
        if lines.line != line || lines.calls.is_empty() && lines.callbacks.is_empty() {
            *lines = LineCalls {
                line,
                ..LineCalls::default()
            };
        }
        let list = if callback {
            &mut lines.callbacks
        } else {
            &mut lines.calls
        };
        if list.len() < LINE_CALLS_KEPT {
            list.push(call);
        } else {
            lines.dropped += 1;
        }
        if let Some(l) = line
            && self.read.contains(&l)
        {
            let visit = self.latest.clone();
            match self.kept.iter_mut().find(|k| k.line == line) {
                Some(k) => *k = visit,
                None => self.kept.push(visit),
            }
        }
    }
}

impl BodyTrack {
    /// A definition in the call's own frame: a made one keeps the uses that made it (those
    /// since the frame's previous definition, else its latest branch's: a constant chosen by a
    /// condition); the return slot's is the call's result.
    fn defined(&mut self, def: &NewDef<'_, Rc<DefNode>>, node: &Rc<DefNode>) {
        if !matches!(def.how, DefHow::Copy { .. }) {
            let operands = if self.recent.is_empty() {
                self.branch
                    .as_ref()
                    .map_or_else(|| Rc::new(Vec::new()), |(_, b)| b.clone())
            } else {
                Rc::new(self.recent.clone())
            };
            self.made.retain(|(s, _)| *s != def.stmt);
            if self.made.len() == MADE_KEPT {
                self.made.remove(0);
            }
            self.made.push((def.stmt, operands));
        }
        self.recent.clear();
        if def.ret_of.is_some() && def.ret_of == def.frame {
            self.ret = Some(node.clone());
        }
    }

    fn used(&mut self, u: &UseAt, reach: Option<&Rc<DefNode>>) {
        let seen = Seen {
            stmt: u.stmt,
            var: u.var,
            reach: reach.cloned(),
        };
        if u.branch {
            self.recent.clear();
            if self.branch.as_ref().is_none_or(|b| b.0 != u.event) {
                self.branch = Some((u.event, Rc::new(Vec::new())));
            }
            if let Some((_, uses)) = &mut self.branch {
                Rc::make_mut(uses).push(seen);
            }
        } else if self.recent.len() < OPERANDS_KEPT {
            self.recent.push(seen);
        }
    }
}

impl Recorder for Tracker {
    type Def = Rc<DefNode>;
    const TIMED: bool = true;

    fn event(&mut self, at: u32, event: &Event, names: &dyn Names) {
        if let (Some(stmts), Some(stmt)) = (&mut self.stmts, event.stmt()) {
            stmts.insert(stmt);
        }
        self.top_level(at, event);
        self.site(at, event, names);
        if let Event::Exit { frame, .. } = event {
            self.exited(*frame);
        }
    }

    fn def(&mut self, def: NewDef<'_, Rc<DefNode>>) -> Rc<DefNode> {
        let node = Rc::new(DefNode {
            stmt: def.stmt,
            how: def.how,
            source: def.source.cloned(),
            time: Cell::new(def.time),
        });
        if self.body.is_some()
            && let Some(frame) = def.frame
            && let Some(track) = self
                .top_open
                .get_mut(&frame)
                .and_then(|c| c.body.as_deref_mut())
        {
            track.defined(&def, &node);
        }
        node
    }

    fn use_(&mut self, u: &UseAt, reach: Option<&Rc<DefNode>>) {
        if let Some(d) = reach {
            self.duas.insert(Dua {
                def: d.stmt,
                use_: u.stmt,
                var: u.var,
            });
        }
        if self.body.is_some()
            && let Some(track) = self
                .top_open
                .get_mut(&u.frame)
                .and_then(|c| c.body.as_deref_mut())
        {
            track.used(u, reach);
        }
        self.track(u, reach);
    }

    fn retime(&mut self, def: &Rc<DefNode>, time: i64) {
        def.time.set(time);
    }
}
