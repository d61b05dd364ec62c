//! The DUA universe of a run: every DUA observed in any test or given statically, and which
//! passing tests cover it (input to phase 3).
//!
//! Memory grows with the number of distinct DUAs (a property of the program), not with the
//! number of tests: each DUA keeps a count of covering passing tests and at most
//! `max_covering` of their ids.

use rustc_hash::FxHashMap;

use crate::trace::Dua;

/// Coverage of one DUA.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Coverage {
    /// Passing tests that exercised the DUA.
    pub count: u32,
    /// Bundle indices of the first covering passing tests, in bundle order.
    pub tests: Vec<u32>,
    /// Given in `static-duas.jsonl`.
    pub is_static: bool,
}

/// All DUAs seen so far.
#[derive(Debug)]
pub struct DuaTable {
    duas: FxHashMap<Dua, Coverage>,
    max_covering: usize,
}

impl DuaTable {
    /// A table keeping at most `max_covering` covering test ids per DUA (`usize::MAX`: all).
    pub fn new(max_covering: usize) -> DuaTable {
        DuaTable {
            duas: FxHashMap::default(),
            max_covering,
        }
    }

    pub fn add_static(&mut self, dua: Dua) {
        self.duas.entry(dua).or_default().is_static = true;
    }

    /// Records the DUAs a failing test exercised: they join theta but cover nothing.
    pub fn add_failing(&mut self, duas: &[Dua]) {
        for &dua in duas {
            self.duas.entry(dua).or_default();
        }
    }

    /// Records the DUAs a passing test exercised (each DUA once per test). True if the test
    /// joined a list of covering tests (so a report may name it).
    pub fn add_passing(&mut self, test: usize, duas: &[Dua]) -> bool {
        let mut named = false;
        for &dua in duas {
            let c = self.duas.entry(dua).or_default();
            c.count += 1;
            if c.tests.len() < self.max_covering {
                c.tests.push(test as u32);
                named = true;
            }
        }
        named
    }

    pub fn get(&self, dua: &Dua) -> Option<&Coverage> {
        self.duas.get(dua)
    }

    pub fn iter(&self) -> impl Iterator<Item = (&Dua, &Coverage)> {
        self.duas.iter()
    }

    pub fn len(&self) -> usize {
        self.duas.len()
    }

    pub fn is_empty(&self) -> bool {
        self.duas.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::trace::{StmtIx, Sym, VarName};

    fn dua(def: u32, use_: u32, var: u32) -> Dua {
        Dua {
            def: StmtIx(def),
            use_: StmtIx(use_),
            var: VarName::Named(Sym(var)),
        }
    }

    /// A table keeping `max` covering tests, after `build`; one line per DUA, sorted:
    /// `def->use var: count tests [static]`.
    fn check(max: usize, build: impl FnOnce(&mut DuaTable), expect: &str) {
        let mut table = DuaTable::new(max);
        build(&mut table);
        let mut rows: Vec<(&Dua, &Coverage)> = table.iter().collect();
        rows.sort_by_key(|(d, _)| **d);
        let actual: Vec<String> = rows
            .iter()
            .map(|(d, c)| {
                let VarName::Named(Sym(v)) = d.var else {
                    unreachable!()
                };
                format!(
                    "{}->{} {v}: {} {:?}{}",
                    d.def.0,
                    d.use_.0,
                    c.count,
                    c.tests,
                    if c.is_static { " static" } else { "" }
                )
            })
            .collect();
        let expect: Vec<&str> = expect.trim().lines().map(str::trim).collect();
        pretty_assertions::assert_eq!(expect.join("\n"), actual.join("\n"));
        assert_eq!(table.len(), rows.len());
    }

    #[test]
    fn passing_tests_cover_failing_and_static_duas_do_not() {
        check(
            usize::MAX,
            |t| {
                t.add_static(dua(1, 5, 1));
                t.add_failing(&[dua(2, 5, 1), dua(3, 5, 1)]);
                t.add_passing(0, &[dua(3, 5, 1)]);
                t.add_passing(4, &[dua(3, 5, 1), dua(1, 5, 1)]);
            },
            "1->5 1: 1 [4] static
             2->5 1: 0 []
             3->5 1: 2 [0, 4]",
        );
    }

    #[test]
    fn covering_tests_are_capped_but_counted() {
        check(
            2,
            |t| {
                for test in [3, 1, 7, 9] {
                    t.add_passing(test, &[dua(1, 2, 1)]);
                }
            },
            "1->2 1: 4 [3, 1]",
        );
    }
}
