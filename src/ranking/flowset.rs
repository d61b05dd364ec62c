//! Phase 2 (PAF section 3.2): cluster failures with the same (crash origin, crash variable,
//! crash statement) into flow-sets, and decide each flow-set's locality.

use rustc_hash::FxHashMap;

use crate::analysis::{Failure, Origin};
use crate::trace::{StmtIx, VarName};

/// What makes two failures the same alarm: the crash statement and, for each crash variable,
/// the statement it is used at and its origin (sorted, so several crash variables form one
/// key); for a failure raised in the test body, also the Randoop contract it broke, so that two
/// contracts broken through the same values are two alarms.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct FlowKey {
    pub crash_stmt: StmtIx,
    pub contract: Option<String>,
    /// (use statement, variable, origin); the use statement is the crash statement except for
    /// failures raised in the test body, whose crash variables come from several calls.
    pub vars: Vec<(StmtIx, VarName, Origin)>,
}

impl FlowKey {
    pub fn of(failure: &Failure) -> FlowKey {
        let mut vars: Vec<(StmtIx, VarName, Origin)> = failure
            .vars
            .iter()
            .map(|v| (v.at, v.var, v.origin))
            .collect();
        vars.sort();
        FlowKey {
            crash_stmt: failure.crash_stmt,
            contract: failure.contract.clone(),
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
    let mut index: FxHashMap<FlowKey, usize> = FxHashMap::default();
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::{CrashKind, CrashVar};
    use crate::trace::Sym;

    /// A failure at crash statement `crash` with crash variables `(var, origin, local)`
    /// (origin `None`: untraced) and `events` events.
    fn failure(crash: u32, vars: &[(u32, Option<u32>, bool)], events: usize) -> Failure {
        Failure {
            test: 0,
            exception: "java.lang.NullPointerException".into(),
            kind: CrashKind::Deref,
            crash_stmt: StmtIx(crash),
            thrown_at: StmtIx(crash),
            mut_method: Sym(0),
            mut_enter: 0,
            vars: vars
                .iter()
                .map(|&(var, origin, local)| CrashVar {
                    at: StmtIx(crash),
                    var: VarName::Named(Sym(var)),
                    origin: origin.map_or(Origin::Untraced, |o| Origin::Stmt(StmtIx(o))),
                    local,
                    origin_time: None,
                    chain: Vec::new(),
                })
                .collect(),
            fallback: None,
            events,
            contract: None,
        }
    }

    /// One line per flow-set: `crash vars | members rep local_members`, vars as `var<-origin`.
    fn check(failures: &[Failure], expect: &str) {
        let actual: Vec<String> = group(failures)
            .iter()
            .map(|s| {
                let vars: Vec<String> = s
                    .key
                    .vars
                    .iter()
                    .map(|(_, v, o)| {
                        let VarName::Named(Sym(v)) = v else {
                            unreachable!()
                        };
                        match o {
                            Origin::Stmt(StmtIx(o)) => format!("{v}<-{o}"),
                            Origin::Untraced => format!("{v}<-?"),
                        }
                    })
                    .collect();
                format!(
                    "{} {} | {:?} rep={} local={}",
                    s.key.crash_stmt.0,
                    vars.join(","),
                    s.members,
                    s.representative,
                    s.local_members
                )
            })
            .collect();
        let expect: Vec<&str> = expect.trim().lines().map(str::trim).collect();
        pretty_assertions::assert_eq!(expect.join("\n"), actual.join("\n"));
    }

    #[test]
    fn same_crash_statement_variable_and_origin_form_one_set() {
        check(
            &[
                failure(5, &[(1, Some(1), true)], 10),
                failure(5, &[(1, Some(2), false)], 3),
                failure(5, &[(1, Some(1), false)], 4),
                failure(6, &[(1, Some(1), true)], 2),
                failure(5, &[(1, Some(1), true)], 4),
                failure(5, &[(1, None, false)], 1),
            ],
            // Set 0's representative: 2 and 4 have the fewest events (4); 2 comes first.
            "5 1<-1 | [0, 2, 4] rep=2 local=2
             5 1<-2 | [1] rep=1 local=0
             6 1<-1 | [3] rep=3 local=1
             5 1<-? | [5] rep=5 local=0",
        );
    }

    #[test]
    fn key_does_not_depend_on_the_order_of_crash_variables() {
        check(
            &[
                failure(5, &[(2, Some(1), false), (1, Some(2), true)], 5),
                failure(5, &[(1, Some(2), false), (2, Some(1), false)], 5),
                failure(5, &[(1, Some(2), false)], 1),
            ],
            "5 1<-2,2<-1 | [0, 1] rep=0 local=1
             5 1<-2 | [2] rep=2 local=0",
        );
    }

    #[test]
    fn a_set_is_local_if_any_member_is() {
        let sets = group(&[
            failure(5, &[(1, Some(1), false)], 1),
            failure(5, &[(1, Some(1), false)], 1),
            failure(6, &[(1, Some(1), false), (2, Some(2), true)], 1),
        ]);
        assert!(!sets[0].is_local());
        assert!(sets[1].is_local());
    }
}
