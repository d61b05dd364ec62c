//! Phase 2 (PAF section 3.2): cluster failures with the same (crash origin, crash variable,
//! crash statement) into flow-sets, and decide each flow-set's locality.

use std::collections::HashMap;

use crate::dataflow::{Failure, Origin, VarName};
use crate::trace::StmtIx;

/// What makes two failures the same alarm: the crash statement and, for each crash variable,
/// its origin (sorted, so several crash variables form one key).
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct FlowKey {
    pub crash_stmt: StmtIx,
    pub vars: Vec<(VarName, Origin)>,
}

impl FlowKey {
    pub fn of(failure: &Failure) -> FlowKey {
        let mut vars: Vec<(VarName, Origin)> =
            failure.vars.iter().map(|v| (v.var, v.origin)).collect();
        vars.sort();
        FlowKey {
            crash_stmt: failure.crash_stmt,
            vars,
        }
    }
}

/// One flow-set: failures sharing a key.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FlowSet {
    pub key: FlowKey,
    /// Indices into the failure list, in bundle order.
    pub members: Vec<usize>,
    /// The member shown first: the one with the fewest events (the smallest reproduction),
    /// ties broken by bundle order.
    pub representative: usize,
    /// How many members are local (see [`failure_is_local`]).
    pub local_members: usize,
}

impl FlowSet {
    /// A flow-set is local if any member is: one test in which the bad value is created inside
    /// the MUT is enough to make the alarm worth a look.
    pub fn is_local(&self) -> bool {
        self.local_members > 0
    }
}

/// Whether one failure is local: some crash variable's origin executed after the MUT was
/// entered. PAF analyzes each crash variable as its own dataflow (section 3.1), so a failure
/// with one local flow ranks with the local flow-sets.
pub fn failure_is_local(failure: &Failure) -> bool {
    failure.vars.iter().any(|v| v.local)
}

/// Groups failures into flow-sets, ordered by their first member in bundle order.
pub fn group(failures: &[Failure]) -> Vec<FlowSet> {
    let mut index: HashMap<FlowKey, usize> = HashMap::new();
    let mut sets: Vec<FlowSet> = Vec::new();
    for (i, failure) in failures.iter().enumerate() {
        let key = FlowKey::of(failure);
        let local = usize::from(failure_is_local(failure));
        match index.get(&key) {
            Some(&s) => {
                let set = &mut sets[s];
                set.members.push(i);
                set.local_members += local;
                if failure.events < failures[set.representative].events {
                    set.representative = i;
                }
            }
            None => {
                index.insert(key.clone(), sets.len());
                sets.push(FlowSet {
                    key,
                    members: vec![i],
                    representative: i,
                    local_members: local,
                });
            }
        }
    }
    sets
}
