//! Phase 1c (PAF section 3.1): follow copy definitions backward from a crash variable's use to
//! its origin, the first definition that made the value rather than copied it.
//!
//! A failing test's replay keeps each definition as a [`DefNode`] that points to its copy
//! source, so a chain stays in memory exactly as long as a live location or a crash candidate
//! reaches it.

use std::cell::Cell;
use std::rc::Rc;

use super::replay::DefHow;
use crate::trace::{How, StmtIx, Sym, VarName};

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

/// A definition of a failing test's replay, with its copy source.
#[derive(Debug)]
pub struct DefNode {
    pub stmt: StmtIx,
    pub how: DefHow,
    /// A copy's source: the reaching definition of its `from`.
    pub source: Option<Rc<DefNode>>,
    /// Its locality time (a field default's is set when its constructor is entered).
    pub time: Cell<i64>,
}

impl Drop for DefNode {
    /// Frees a long chain without recursing once per link.
    fn drop(&mut self) {
        let mut next = self.source.take();
        while let Some(node) = next {
            next = match Rc::try_unwrap(node) {
                Ok(mut owned) => owned.source.take(),
                Err(_) => None,
            };
        }
    }
}

/// Follows copy definitions backward from a crash use (of `var` at `stmt`, reached by
/// `reach`) to the first non-copy definition: the origin, its time, and the chain, origin first.
pub(super) fn backtrack(
    var: VarName,
    stmt: StmtIx,
    reach: Option<&Rc<DefNode>>,
) -> (Origin, Option<i64>, Vec<Step>) {
    let mut chain = Vec::new();
    let (mut var, mut use_, mut reach) = (var, stmt, reach);
    let result = loop {
        let Some(def) = reach else {
            chain.push(Step {
                def: None,
                use_,
                var,
                kind: StepKind::Untraced,
            });
            break (Origin::Untraced, None);
        };
        let kind = match def.how {
            DefHow::Copy { from, cast } => StepKind::Copy { from, cast },
            DefHow::Made { how, callee } => StepKind::Made { how, callee },
            DefHow::Default => StepKind::Default,
        };
        chain.push(Step {
            def: Some(def.stmt),
            use_,
            var,
            kind,
        });
        match def.how {
            // Sources are resolved before their definition is made, so the walk always ends.
            DefHow::Copy { from, .. } => {
                var = from;
                use_ = def.stmt;
                reach = def.source.as_ref();
            }
            _ => break (Origin::Stmt(def.stmt), Some(def.time.get())),
        }
    };
    chain.reverse();
    (result.0, result.1, chain)
}
