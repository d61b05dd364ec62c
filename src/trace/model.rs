//! Typed, validated contents of a trace bundle: what the reader hands to the analysis phases.
//!
//! Strings that repeat across events (method, field and local names) are interned into
//! [`Sym`]s so that an event is a few machine words and comparisons are integer compares.

use rustc_hash::FxHashMap;

/// An interned string. Only meaningful together with the [`Symbols`] that made it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Sym(pub u32);

/// String interner shared by everything read from one bundle.
#[derive(Debug, Default)]
pub struct Symbols {
    ids: FxHashMap<Box<str>, Sym>,
    names: Vec<Box<str>>,
}

impl Symbols {
    /// Returns the symbol for `s`, creating it on first sight.
    pub fn intern(&mut self, s: &str) -> Sym {
        if let Some(&sym) = self.ids.get(s) {
            return sym;
        }
        let sym = Sym(self.names.len() as u32);
        self.names.push(s.into());
        self.ids.insert(s.into(), sym);
        sym
    }

    /// Returns the symbol for `s` only if it was interned before.
    pub fn lookup(&self, s: &str) -> Option<Sym> {
        self.ids.get(s).copied()
    }

    /// The string behind a symbol.
    pub fn name(&self, sym: Sym) -> &str {
        &self.names[sym.0 as usize]
    }
}

/// Index of a statement in the [`StatementTable`] (not the bundle's own id).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct StmtIx(pub u32);

/// One row of the statement table.
#[derive(Clone, Debug)]
pub struct Statement {
    /// The id the bundle uses for this statement.
    pub id: u64,
    pub class: Sym,
    /// `None` for a field declaration.
    pub method: Option<Sym>,
    pub file: Sym,
    pub line: u32,
    pub bci: Option<u32>,
}

/// The statement table, indexed both by bundle id and by source position.
#[derive(Debug, Default)]
pub struct StatementTable {
    rows: Vec<Statement>,
    by_id: FxHashMap<u64, StmtIx>,
    by_position: FxHashMap<(Sym, Sym, u32), Vec<StmtIx>>,
}

impl StatementTable {
    /// Adds a statement; returns `false` (and adds nothing) if its id is already taken.
    pub fn insert(&mut self, stmt: Statement) -> bool {
        if self.by_id.contains_key(&stmt.id) {
            return false;
        }
        let ix = StmtIx(self.rows.len() as u32);
        self.by_id.insert(stmt.id, ix);
        if let Some(method) = stmt.method {
            self.by_position
                .entry((stmt.class, method, stmt.line))
                .or_default()
                .push(ix);
        }
        self.rows.push(stmt);
        true
    }

    pub fn get(&self, ix: StmtIx) -> &Statement {
        &self.rows[ix.0 as usize]
    }

    pub fn resolve(&self, id: u64) -> Option<StmtIx> {
        self.by_id.get(&id).copied()
    }

    /// All statements of `class.method` on `line` (a per-instruction tracer may have several).
    pub fn at(&self, class: Sym, method: Sym, line: u32) -> &[StmtIx] {
        self.by_position
            .get(&(class, method, line))
            .map_or(&[], Vec::as_slice)
    }

    pub fn len(&self) -> usize {
        self.rows.len()
    }

    pub fn is_empty(&self) -> bool {
        self.rows.is_empty()
    }
}

/// Frame ids and object ids as the tracer wrote them.
pub type FrameId = u64;
pub type ObjId = u64;

/// A storage location at run time (the dynamic identity of a variable, see the format doc).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Var {
    Local {
        frame: FrameId,
        name: Sym,
    },
    Field {
        obj: ObjId,
        name: Sym,
    },
    Static {
        name: Sym,
    },
    Elem {
        array: ObjId,
        index: u64,
        name: Option<Sym>,
    },
    Ret {
        frame: FrameId,
    },
}

/// How a non-copy definition made its value.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Deserialize, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum How {
    Const,
    New,
    Arith,
    Call,
    Param,
    Other,
}

impl How {
    pub fn as_str(self) -> &'static str {
        match self {
            How::Const => "const",
            How::New => "new",
            How::Arith => "arith",
            How::Call => "call",
            How::Param => "param",
            How::Other => "other",
        }
    }
}

/// Where a definition's value came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Source {
    /// Copied unchanged from another variable (possibly through a cast).
    Copy { from: Var, cast: bool },
    /// Made by the statement itself; `callee` names the uninstrumented callee for `How::Call`.
    Made { how: How, callee: Option<Sym> },
}

/// How a use reads its value; decides which uses can be crash variables.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Deserialize, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Role {
    Deref,
    Index,
    Arg,
    Value,
}

/// One event of a test's trace, in execution order.
#[derive(Clone, Debug, PartialEq)]
pub enum Event {
    Enter {
        frame: FrameId,
        method: Sym,
        caller: Option<FrameId>,
        this: Option<ObjId>,
    },
    Exit {
        frame: FrameId,
        threw: Option<Sym>,
    },
    Def {
        frame: FrameId,
        stmt: StmtIx,
        var: Var,
        source: Source,
    },
    Use {
        frame: FrameId,
        stmt: StmtIx,
        var: Var,
        role: Role,
        null: bool,
    },
    Branch {
        frame: FrameId,
        stmt: StmtIx,
        uses: Vec<Var>,
    },
    Alloc {
        obj: ObjId,
        frame: Option<FrameId>,
        stmt: Option<StmtIx>,
        fields: Vec<(Sym, StmtIx)>,
        length: Option<u64>,
    },
}

impl Event {
    /// The statement the event happens at, if it names one.
    pub fn stmt(&self) -> Option<StmtIx> {
        match self {
            Event::Def { stmt, .. } | Event::Use { stmt, .. } | Event::Branch { stmt, .. } => {
                Some(*stmt)
            }
            Event::Alloc { stmt, .. } => *stmt,
            Event::Enter { .. } | Event::Exit { .. } => None,
        }
    }

    /// The frame executing the event, if any.
    pub fn frame(&self) -> Option<FrameId> {
        match self {
            Event::Enter { frame, .. }
            | Event::Exit { frame, .. }
            | Event::Def { frame, .. }
            | Event::Use { frame, .. }
            | Event::Branch { frame, .. } => Some(*frame),
            Event::Alloc { frame, .. } => *frame,
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Deserialize, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Outcome {
    Pass,
    Fail,
}

/// One stack frame of a failing test's exception, innermost first.
#[derive(Clone, Debug, PartialEq, Eq, serde::Deserialize, serde::Serialize)]
pub struct StackFrame {
    pub class: String,
    pub method: String,
    #[serde(default)]
    pub file: Option<String>,
    #[serde(default = "unknown_line")]
    pub line: i64,
}

fn unknown_line() -> i64 {
    -1
}

/// The exception a failing test ended with.
#[derive(Clone, Debug, PartialEq, Eq, serde::Deserialize, serde::Serialize)]
pub struct ExceptionInfo {
    #[serde(rename = "type")]
    pub kind: String,
    #[serde(default)]
    pub message: Option<String>,
    #[serde(default)]
    pub frames: Vec<StackFrame>,
}

/// A test with all its events, as read from the bundle.
#[derive(Clone, Debug)]
pub struct TestTrace {
    /// Position of the test in the bundle (0-based), the canonical tie-breaker everywhere.
    pub index: usize,
    pub id: String,
    /// Line of the test's `begin` record.
    pub line: u64,
    pub outcome: Outcome,
    pub exception: Option<ExceptionInfo>,
    /// The tracer stopped recording this test early.
    pub truncated: bool,
    pub events: Vec<Event>,
    /// Source line of each event, for messages.
    pub event_lines: Vec<u64>,
}
