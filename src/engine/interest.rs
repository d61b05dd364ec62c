//! Which DUAs pass 2 keeps: those whose use is a crash statement on one of its crash
//! variables (theta's universe), or every DUA for `--dump duas`.

use rustc_hash::FxHashSet;

use crate::analysis::Failure;
use crate::ranking::flowset::FlowKey;
use crate::trace::{Dua, LocalSymbols, StmtIx, Symbols, VarName};

/// The DUAs pass 2 keeps.
pub(super) enum Interest {
    All,
    /// Those whose (use, variable) is a crash statement and one of its crash variables.
    Of {
        /// By statement index: is it a crash statement?
        crash_stmts: Vec<bool>,
        pairs: FxHashSet<(StmtIx, VarName)>,
    },
}

/// A DUA whose variable name the engine's symbols lacked when pass 2 began (only kept with
/// [`Interest::All`]), spelled out so that the merge can intern it.
pub(super) struct NamedDua {
    def: StmtIx,
    use_: StmtIx,
    var: NamedVar,
}

/// A [`VarName`] with its names as text.
enum NamedVar {
    Named(String),
    Elem(Option<String>),
    Ret(String),
}

impl NamedDua {
    fn of(dua: Dua, symbols: &LocalSymbols) -> NamedDua {
        let var = match dua.var {
            VarName::Named(s) => NamedVar::Named(symbols.name(s).to_string()),
            VarName::Elem(s) => NamedVar::Elem(s.map(|s| symbols.name(s).to_string())),
            VarName::Ret(s) => NamedVar::Ret(symbols.name(s).to_string()),
        };
        NamedDua {
            def: dua.def,
            use_: dua.use_,
            var,
        }
    }

    /// The DUA in `symbols`, interning its names.
    pub(super) fn intern(&self, symbols: &mut Symbols) -> Dua {
        let var = match &self.var {
            NamedVar::Named(s) => VarName::Named(symbols.intern(s)),
            NamedVar::Elem(s) => VarName::Elem(s.as_deref().map(|s| symbols.intern(s))),
            NamedVar::Ret(s) => VarName::Ret(symbols.intern(s)),
        };
        Dua {
            def: self.def,
            use_: self.use_,
            var,
        }
    }
}

impl Interest {
    pub(super) fn of(failures: &[Failure], statements: usize, all: bool) -> Interest {
        if all {
            return Interest::All;
        }
        let pairs: FxHashSet<(StmtIx, VarName)> = failures
            .iter()
            .flat_map(|f| {
                FlowKey::of(f)
                    .vars
                    .into_iter()
                    .map(|(at, var, _)| (at, var))
            })
            .collect();
        let mut crash_stmts = vec![false; statements];
        for (stmt, _) in &pairs {
            crash_stmts[stmt.0 as usize] = true;
        }
        Interest::Of { crash_stmts, pairs }
    }

    pub(super) fn wants(&self, dua: &Dua) -> bool {
        match self {
            Interest::All => true,
            Interest::Of { pairs, .. } => pairs.contains(&(dua.use_, dua.var)),
        }
    }

    /// Whether a use at `stmt` of `var` can make a DUA this pass keeps.
    pub(super) fn wants_use(&self, stmt: StmtIx, var: VarName) -> bool {
        match self {
            Interest::All => true,
            Interest::Of { crash_stmts, pairs } => {
                crash_stmts[stmt.0 as usize] && pairs.contains(&(stmt, var))
            }
        }
    }

    /// The DUAs a test kept (sorted, distinct): those in the shared symbols, and (with
    /// [`Interest::All`]) those whose names only the worker knows, spelled out.
    pub(super) fn split(
        &self,
        duas: Vec<Dua>,
        symbols: &LocalSymbols,
    ) -> (Vec<Dua>, Vec<NamedDua>) {
        let shared = |var: VarName| match var {
            VarName::Named(s) | VarName::Ret(s) | VarName::Elem(Some(s)) => symbols.is_shared(s),
            VarName::Elem(None) => true,
        };
        let (duas, named): (Vec<Dua>, Vec<Dua>) = duas.into_iter().partition(|d| shared(d.var));
        match self {
            Interest::All => {
                let named = named
                    .into_iter()
                    .map(|d| NamedDua::of(d, symbols))
                    .collect();
                (duas, named)
            }
            // A name the shared symbols lack is no crash variable's.
            Interest::Of { .. } => (duas, Vec::new()),
        }
    }
}
