//! Phase 3 (PAF section 3.3): theta and the likelihood of a precondition violation per flow-set.

use std::cmp::Ordering;
use std::collections::{HashMap, HashSet};

use crate::coverage::DuaTable;
use crate::dataflow::{Dua, VarName};
use crate::flowset::FlowSet;
use crate::trace::StmtIx;

/// An exact fraction `num / den` (den > 0), compared without rounding so that ties are ties.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Ratio {
    pub num: u32,
    pub den: u32,
}

impl Ratio {
    pub fn value(self) -> f64 {
        f64::from(self.num) / f64::from(self.den)
    }
}

impl Ord for Ratio {
    fn cmp(&self, other: &Self) -> Ordering {
        (u64::from(self.num) * u64::from(other.den))
            .cmp(&(u64::from(other.num) * u64::from(self.den)))
            .then(self.den.cmp(&other.den))
    }
}

impl PartialOrd for Ratio {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

/// Theta and its coverage for one crash variable.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct VarScore {
    pub var: VarName,
    /// DUAs (d, crash statement, var), sorted.
    pub theta: Vec<Dua>,
    pub covered: u32,
    /// `None` when theta is empty (nothing in the trace or the static DUAs reaches the use).
    pub likelihood: Option<Ratio>,
}

/// The score of a flow-set: the largest likelihood over its crash variables (PAF 3.4).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Score {
    pub vars: Vec<VarScore>,
    pub likelihood: Option<Ratio>,
}

/// Scores every flow-set against the DUA table.
pub fn score(sets: &[FlowSet], duas: &DuaTable) -> Vec<Score> {
    let wanted: HashSet<(StmtIx, VarName)> = sets
        .iter()
        .flat_map(|s| s.key.vars.iter().map(|&(v, _)| (s.key.crash_stmt, v)))
        .collect();
    let mut theta: HashMap<(StmtIx, VarName), Vec<Dua>> = HashMap::new();
    for (dua, _) in duas.iter() {
        if wanted.contains(&(dua.use_, dua.var)) {
            theta.entry((dua.use_, dua.var)).or_default().push(*dua);
        }
    }
    sets.iter()
        .map(|set| {
            let mut seen = HashSet::new();
            let vars: Vec<VarScore> = set
                .key
                .vars
                .iter()
                .filter(|(v, _)| seen.insert(*v))
                .map(|&(var, _)| {
                    let mut t = theta
                        .get(&(set.key.crash_stmt, var))
                        .cloned()
                        .unwrap_or_default();
                    t.sort_unstable();
                    let covered = t
                        .iter()
                        .filter(|d| duas.get(d).is_some_and(|c| c.count > 0))
                        .count() as u32;
                    let likelihood = (!t.is_empty()).then_some(Ratio {
                        num: covered,
                        den: t.len() as u32,
                    });
                    VarScore {
                        var,
                        theta: t,
                        covered,
                        likelihood,
                    }
                })
                .collect();
            let likelihood = vars.iter().filter_map(|v| v.likelihood).max();
            Score { vars, likelihood }
        })
        .collect()
}
