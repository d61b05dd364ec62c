//! Typed, validated contents of a trace bundle: the statement table, events, exceptions and
//! whole tests, as the reader hands them to the analysis phases.

use rustc_hash::FxHashMap;

use super::symbols::Sym;

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
    /// Java modifiers of the statement's class and method, when the tracer wrote them.
    pub access: Option<Box<Access>>,
}

/// A Java modifier keyword, spelled as `java.lang.reflect.Modifier.toString` spells it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Deserialize, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Modifier {
    Public,
    Protected,
    Private,
    Abstract,
    Static,
    Final,
    Transient,
    Volatile,
    Synchronized,
    Native,
    Strictfp,
    Interface,
}

/// The `access` field of a statement record: modifiers of the statement's class and method and
/// the class's direct superclass (optional; `paf eval`'s JCrasher baseline reads them).
#[derive(Clone, Debug, PartialEq, Eq, Default, serde::Deserialize, serde::Serialize)]
pub struct Access {
    /// Modifiers of the class (for a nested class, those its `InnerClasses` entry declares).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub class: Option<Vec<Modifier>>,
    /// Modifiers of the method; absent for a field declaration.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub method: Option<Vec<Modifier>>,
    /// Binary name of the class's direct superclass.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub superclass: Option<String>,
}

/// A value a tracer saw at a method's entry: what `enter`'s optional `values` field holds.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
#[serde(untagged)]
pub enum Value {
    /// The null reference.
    Null,
    Bool(bool),
    /// Any integral value (`byte` to `long`, `char` as its code).
    Int(i64),
    /// A finite floating-point value.
    Num(f64),
    /// A non-null reference; `length` for arrays and strings.
    Ref {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        length: Option<u64>,
    },
}

impl<'de> serde::Deserialize<'de> for Value {
    /// By hand rather than `untagged`, so that a wrong value says what was expected.
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Value, D::Error> {
        struct Visitor;
        impl<'de> serde::de::Visitor<'de> for Visitor {
            type Value = Value;

            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("null, a boolean, a number, or an object such as {\"length\": 3}")
            }

            fn visit_unit<E>(self) -> Result<Value, E> {
                Ok(Value::Null)
            }

            fn visit_none<E>(self) -> Result<Value, E> {
                Ok(Value::Null)
            }

            fn visit_bool<E>(self, b: bool) -> Result<Value, E> {
                Ok(Value::Bool(b))
            }

            fn visit_i64<E>(self, i: i64) -> Result<Value, E> {
                Ok(Value::Int(i))
            }

            fn visit_u64<E>(self, u: u64) -> Result<Value, E> {
                Ok(i64::try_from(u).map_or(Value::Num(u as f64), Value::Int))
            }

            fn visit_f64<E>(self, f: f64) -> Result<Value, E> {
                Ok(Value::Num(f))
            }

            fn visit_map<A: serde::de::MapAccess<'de>>(
                self,
                mut map: A,
            ) -> Result<Value, A::Error> {
                let mut length = None;
                while let Some(key) = map.next_key::<std::borrow::Cow<'de, str>>()? {
                    if key == "length" {
                        length = Some(map.next_value::<u64>()?);
                    } else {
                        map.next_value::<serde::de::IgnoredAny>()?;
                    }
                }
                Ok(Value::Ref { length })
            }
        }
        d.deserialize_any(Visitor)
    }
}

/// The arguments and receiver fields at a method's entry, by name (the `values` of `enter`).
#[derive(Clone, Debug, PartialEq, Default, serde::Deserialize, serde::Serialize)]
pub struct EntryValues {
    /// Parameters by their local name.
    #[serde(default, skip_serializing_if = "std::collections::BTreeMap::is_empty")]
    pub args: std::collections::BTreeMap<String, Value>,
    /// Instance fields of the receiver by qualified field name.
    #[serde(default, skip_serializing_if = "std::collections::BTreeMap::is_empty")]
    pub fields: std::collections::BTreeMap<String, Value>,
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

    /// Every statement, in the order of the table's file.
    pub fn iter(&self) -> impl Iterator<Item = &Statement> {
        self.rows.iter()
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
    /// The return slot of a frame; `method` is the frame's method (it names the slot, and a
    /// frame is entered once, so it adds nothing to the identity).
    Ret {
        frame: FrameId,
        method: Sym,
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
        /// Argument and receiver-field values at entry, when the tracer wrote them.
        values: Option<Box<EntryValues>>,
        /// A call from the test body: the test method's line that made it, when recorded.
        test_line: Option<u32>,
        /// With `test_line`: made by uninstrumented code the line called (`AbstractMap.equals`
        /// calling back `entrySet`), not by the line itself.
        callback: bool,
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
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Deserialize, serde::Serialize)]
pub struct ExceptionInfo {
    #[serde(rename = "type")]
    pub kind: String,
    #[serde(default)]
    pub message: Option<String>,
    #[serde(default)]
    pub frames: Vec<StackFrame>,
    /// Where the failure came from when not the test method: `before`, `after` (`@Before`,
    /// `@After`, JUnit 3's `setUp`/`tearDown`), `before-class`, `after-class`, `class`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub phase: Option<String>,
    /// The exception's cause, when the tracer recorded it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cause: Option<Box<ExceptionInfo>>,
    /// The superclasses of the thrown type, nearest first, up to `java.lang.Throwable`, when
    /// the tracer wrote them (optional; `paf eval`'s JCrasher baseline reads them).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub superclasses: Option<Vec<String>>,
    /// Raised in the test method: the earlier lines of the test method that last stored the
    /// local variables its failing line reads (the Java tracer reads them from the test class's
    /// bytecode); what a failure raised in the test body is analyzed at.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub read_lines: Option<Vec<u32>>,
}

impl ExceptionInfo {
    /// The exception the analysis looks at: an `ExceptionInInitializerError` stands for the
    /// exception its class initializer threw, its cause.
    pub fn analyzed(&self) -> &ExceptionInfo {
        let mut e = self;
        while e.kind == "java.lang.ExceptionInInitializerError" {
            match &e.cause {
                Some(c) => e = c,
                None => break,
            }
        }
        e
    }

    /// The failure did not come from the test method but from a lifecycle method.
    pub fn lifecycle_phase(&self) -> Option<&str> {
        self.phase.as_deref().filter(|p| *p != "test")
    }
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
