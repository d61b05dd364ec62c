//! What the evaluation's baselines need from each test, gathered while the engine reads it
//! (`paf eval`, `paf localize`): a failing test's exception, its method under test's entry
//! values, the entry variables its crash variables' dataflows pass through, and the source
//! lines it covered; of the passing tests, the entry values of their bodies' calls and how many
//! of them covered each line (a count per line, not a list per test, so that memory does not
//! grow with the passing tests).

use super::backtrack::StepKind;
use super::failure::Failure;
use rustc_hash::FxHashMap;

use crate::trace::{
    EntryValues, ExceptionInfo, How, StatementTable, StmtIx, Sym, Symbols, VarName,
};

/// A failing test as the baselines see it.
#[derive(Clone, Debug, PartialEq)]
pub struct FailingTest {
    pub id: String,
    pub exception: Option<ExceptionInfo>,
    /// The method under test ([`super::failure::FailureReplay`] finds it) and, if the tracer
    /// wrote them, its argument and receiver-field values at entry.
    pub mut_entry: Option<(String, Option<EntryValues>)>,
    /// The lines ([`LineMap`]) the test covered, sorted.
    pub covered: Vec<u32>,
    /// For an analyzed failure, each crash variable with the MUT entry variables its
    /// failure-inducing dataflow passes through; `None` when PAF could not analyze the test.
    pub crash_vars: Option<Vec<CrashEntry>>,
}

/// One crash variable and the variables at the MUT's entry its dataflow passes through: what
/// the paper's Daikon baseline keeps the invariants of (PAF section 5.2).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CrashEntry {
    /// The crash variable's name.
    pub var: String,
    /// Parameters of the MUT on the copy chain (the chain starts at the parameter's value).
    pub args: Vec<String>,
    /// Qualified fields on the copy chain; those of the MUT's receiver are entry variables.
    pub fields: Vec<String>,
}

/// The baselines' view of a bundle.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Facts {
    /// Failing tests in bundle order.
    pub failing: Vec<FailingTest>,
    /// `(method, values)` of every call a passing test's body made that carries values.
    pub passing_entries: Vec<(String, EntryValues)>,
    /// Passing tests read.
    pub passing: usize,
    /// For each line of `lines`, how many passing tests covered it.
    pub passing_coverage: Vec<u32>,
    /// The lines coverage is counted on.
    pub lines: LineMap,
}

impl Facts {
    /// Counts one passing test's covered lines (distinct, as [`LineMap::covered`] gives them).
    pub fn add_passing_coverage(&mut self, covered: &[u32]) {
        self.passing += 1;
        for &l in covered {
            self.passing_coverage[l as usize] += 1;
        }
    }
}

/// The source lines of methods, the unit coverage is counted on: the statements of one line
/// of one method are one line (a per-instruction tracer writes several), as in GZoltar's line
/// spectra. Lines are numbered in the order of their first statement in the table.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct LineMap {
    /// The line of each statement, by statement index.
    of_stmt: Vec<u32>,
    /// The first statement of each line (its class, method, file and line number).
    pub first: Vec<StmtIx>,
}

impl LineMap {
    pub fn new(statements: &StatementTable) -> LineMap {
        let mut index: FxHashMap<(Sym, Option<Sym>, u32), u32> = FxHashMap::default();
        let mut map = LineMap::default();
        for (i, s) in statements.iter().enumerate() {
            let next = map.first.len() as u32;
            let line = *index.entry((s.class, s.method, s.line)).or_insert(next);
            if line == next {
                map.first.push(StmtIx(i as u32));
            }
            map.of_stmt.push(line);
        }
        map
    }

    /// How many lines there are.
    pub fn len(&self) -> usize {
        self.first.len()
    }

    pub fn is_empty(&self) -> bool {
        self.first.is_empty()
    }

    /// The lines of `stmts` (the statements a test's events happened at: a definition, a use,
    /// a branch, an allocation), sorted and distinct.
    pub fn covered(&self, stmts: impl IntoIterator<Item = StmtIx>) -> Vec<u32> {
        let mut out: Vec<u32> = stmts
            .into_iter()
            .map(|s| self.of_stmt[s.0 as usize])
            .collect();
        out.sort_unstable();
        out.dedup();
        out
    }
}

/// Each crash variable of `failure` with the MUT parameters and the fields on its copy chain.
/// A parameter is a definition made `how: param` at a statement of the MUT's own method (the
/// test body passed the value); a field is any qualified name on the chain (locals have no
/// dots), kept whether or not it is the receiver's: the invariants at the MUT's entry decide.
pub fn crash_entries(
    failure: &Failure,
    statements: &StatementTable,
    symbols: &Symbols,
) -> Vec<CrashEntry> {
    let mut_method = symbols.name(failure.mut_method);
    let in_mut = |stmt: StmtIx| {
        let s = statements.get(stmt);
        s.method
            .is_some_and(|m| format!("{}.{}", symbols.name(s.class), symbols.name(m)) == mut_method)
    };
    failure
        .vars
        .iter()
        .map(|cv| {
            let mut args = Vec::new();
            let mut fields = Vec::new();
            for step in &cv.chain {
                let VarName::Named(name) = step.var else {
                    continue;
                };
                let name = symbols.name(name);
                let param = matches!(
                    step.kind,
                    StepKind::Made {
                        how: How::Param,
                        ..
                    }
                );
                if name.contains('.') {
                    fields.push(name.to_string());
                } else if param && step.def.is_some_and(in_mut) {
                    args.push(name.to_string());
                }
            }
            args.sort();
            args.dedup();
            fields.sort();
            fields.dedup();
            CrashEntry {
                var: cv.var.display(symbols),
                args,
                fields,
            }
        })
        .collect()
}
