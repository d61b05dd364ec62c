//! Phase 1c (PAF section 3.1): follow copy definitions backward from a crash variable's use to
//! its origin, the first definition that made the value rather than copied it.

use super::replay::{DefKind, Replay, UseRecord};
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

/// Follows copy definitions backward from a crash use to the first non-copy definition.
pub(super) fn backtrack(replay: &Replay, crash: &UseRecord) -> (Origin, Option<i64>, Vec<Step>) {
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
