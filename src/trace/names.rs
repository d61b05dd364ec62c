//! Variable *names* (format doc, "Variable names"): the program variable, independent of frames
//! and objects, and the def-use associations made of them. Dynamic DUAs, static DUAs, theta and
//! flow-set keys all speak these.

use super::model::StmtIx;
use super::symbols::{Sym, Symbols};

/// A variable's name: the program variable, independent of frames and objects (format doc,
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
