//! The DUA universe of a run: every DUA observed in any test or given statically, and which
//! passing tests cover it (input to phase 3).
//!
//! Memory grows with the number of distinct DUAs (a property of the program), not with the
//! number of tests: each DUA keeps a count of covering passing tests and at most
//! `max_covering` of their ids.

use std::collections::HashMap;

use crate::dataflow::Dua;

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
    duas: HashMap<Dua, Coverage>,
    max_covering: usize,
}

impl DuaTable {
    /// A table keeping at most `max_covering` covering test ids per DUA (`usize::MAX`: all).
    pub fn new(max_covering: usize) -> DuaTable {
        DuaTable {
            duas: HashMap::new(),
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

    /// Records the DUAs a passing test exercised (each DUA once per test).
    pub fn add_passing(&mut self, test: usize, duas: &[Dua]) {
        for &dua in duas {
            let c = self.duas.entry(dua).or_default();
            c.count += 1;
            if c.tests.len() < self.max_covering {
                c.tests.push(test as u32);
            }
        }
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
