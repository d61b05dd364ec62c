//! Interned names: strings that repeat across events (method, field and local names) become
//! [`Sym`]s, so an event is a few machine words and comparisons are integer compares.
//! [`Symbols`] is the bundle's table; a worker thread interns into [`LocalSymbols`], an overlay
//! on a read-only shared table, and the engine translates its new names back in file order.

use rustc_hash::FxHashMap;

/// An interned string. Only meaningful together with the [`Symbols`] that made it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Sym(pub u32);

/// String interner shared by everything read from one bundle.
#[derive(Clone, Debug, Default)]
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

    /// How many symbols there are.
    pub fn len(&self) -> usize {
        self.names.len()
    }

    pub fn is_empty(&self) -> bool {
        self.names.is_empty()
    }

    /// The string behind a symbol.
    pub fn name(&self, sym: Sym) -> &str {
        &self.names[sym.0 as usize]
    }
}

/// What a symbol spells, in the table that made it.
pub trait Names {
    fn name(&self, sym: Sym) -> &str;
}

/// Where names become symbols: the bundle's [`Symbols`], or a worker's [`LocalSymbols`].
pub trait Intern: Names {
    fn intern(&mut self, s: &str) -> Sym;
}

impl Names for Symbols {
    fn name(&self, sym: Sym) -> &str {
        Symbols::name(self, sym)
    }
}

impl Intern for Symbols {
    fn intern(&mut self, s: &str) -> Sym {
        Symbols::intern(self, s)
    }
}

/// A worker thread's symbols: the bundle's symbols as they were when the worker started
/// (shared, read-only), and above them the names the worker met that they lack. A symbol below
/// [`Symbols::len`] of the shared table means the same name on every thread; one above it is
/// this worker's own.
pub struct LocalSymbols<'a> {
    shared: &'a Symbols,
    own: Symbols,
}

impl<'a> LocalSymbols<'a> {
    pub fn new(shared: &'a Symbols) -> Self {
        LocalSymbols {
            shared,
            own: Symbols::default(),
        }
    }

    /// The symbol means the same in the shared table.
    pub fn is_shared(&self, sym: Sym) -> bool {
        (sym.0 as usize) < self.shared.len()
    }

    pub fn name(&self, sym: Sym) -> &str {
        match (sym.0 as usize).checked_sub(self.shared.len()) {
            None => self.shared.name(sym),
            Some(own) => self.own.name(Sym(own as u32)),
        }
    }
}

impl Names for LocalSymbols<'_> {
    fn name(&self, sym: Sym) -> &str {
        LocalSymbols::name(self, sym)
    }
}

impl Intern for LocalSymbols<'_> {
    fn intern(&mut self, s: &str) -> Sym {
        match self.shared.lookup(s) {
            Some(sym) => sym,
            None => Sym(self.shared.len() as u32 + self.own.intern(s).0),
        }
    }
}
