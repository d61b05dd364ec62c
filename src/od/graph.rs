//! The dependency graph: which manifest dependencies one test's minimized findings show, as
//! edges (pure functions). A test can have several: PRADET's Figure 2 `testSetCloneString`
//! needs `testSetField` before it (a state-setter) and must not run after `testToString`
//! once `testSetField` ran (a polluter). The per-test verdict is a summary of these edges.

use super::report::EdgeKind;
use super::{Outcome, Schedule, Test};

/// An outcome of a test other than its isolated one, with the tests before it that delta
/// debugging kept (in their original order).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Minimized {
    pub outcome: Outcome,
    pub before: Vec<Test>,
    pub one_minimal: bool,
    /// The algorithm that first showed the outcome (`default` for the default order).
    pub found_by: String,
}

/// An edge before it is confirmed by re-running its witness and baseline.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Edge {
    pub dependent: Test,
    pub kind: EdgeKind,
    pub on: Vec<Test>,
    /// `on` (and any state-setters it needs) then the dependent.
    pub witness: Schedule,
    pub witness_outcome: Outcome,
    /// The witness without `on`.
    pub baseline: Schedule,
    pub baseline_outcome: Outcome,
    pub one_minimal: bool,
    pub found_by: String,
}

/// The edges of test `t`, whose outcome alone is `isolated`, from its minimized findings:
///
/// - it passes alone: each failure after some tests is a polluter edge on them;
/// - it fails alone: each pass after some tests is a state-setter edge on them; a different
///   failure after tests that include all of a state-setter edge's tests is a polluter edge on
///   the others (they break it although its setters ran); a different failure of a test that
///   never passes is a polluter edge on the tests before it (they change its failure). A
///   different failure after only some of what the test needs (PRADET's Figure 5, `t3` after
///   `t1` alone) is no edge: those tests do not suffice, and the state-setter edge says what
///   does.
///
/// A finding with no test before it is no edge (nothing before the test made the difference).
pub fn edges(t: Test, isolated: &Outcome, findings: &[Minimized]) -> Vec<Edge> {
    let alone = vec![t];
    let edge = |kind, on: Vec<Test>, f: &Minimized, baseline: Schedule, base: &Outcome| Edge {
        dependent: t,
        kind,
        on,
        witness: with(&f.before, t),
        witness_outcome: f.outcome.clone(),
        baseline,
        baseline_outcome: base.clone(),
        one_minimal: f.one_minimal,
        found_by: f.found_by.clone(),
    };
    let usable = || findings.iter().filter(|f| !f.before.is_empty());
    if isolated.is_pass() {
        return usable()
            .filter(|f| !f.outcome.is_pass())
            .map(|f| {
                edge(
                    EdgeKind::Polluter,
                    f.before.clone(),
                    f,
                    alone.clone(),
                    isolated,
                )
            })
            .collect();
    }
    let mut out: Vec<Edge> = usable()
        .filter(|f| f.outcome.is_pass())
        .map(|f| {
            edge(
                EdgeKind::StateSetter,
                f.before.clone(),
                f,
                alone.clone(),
                isolated,
            )
        })
        .collect();
    let setters: Vec<Vec<Test>> = out.iter().map(|e| e.on.clone()).collect();
    for f in usable().filter(|f| !f.outcome.is_pass()) {
        let covering = setters
            .iter()
            .find(|s| s.iter().all(|x| f.before.contains(x)) && s.len() < f.before.len());
        match covering {
            Some(s) => {
                let on: Vec<Test> = f
                    .before
                    .iter()
                    .copied()
                    .filter(|x| !s.contains(x))
                    .collect();
                let rest: Vec<Test> = f.before.iter().copied().filter(|x| s.contains(x)).collect();
                out.push(edge(
                    EdgeKind::Polluter,
                    on,
                    f,
                    with(&rest, t),
                    &Outcome::Pass,
                ));
            }
            None if setters.is_empty() => {
                out.push(edge(
                    EdgeKind::Polluter,
                    f.before.clone(),
                    f,
                    alone.clone(),
                    isolated,
                ));
            }
            None => {}
        }
    }
    out
}

/// The self edge of a test whose second run in one process differs from its first.
pub fn self_edge(t: Test, first: &Outcome, second: &Outcome, found_by: &str) -> Edge {
    Edge {
        dependent: t,
        kind: EdgeKind::SelfDependent,
        on: vec![t],
        witness: vec![t, t],
        witness_outcome: second.clone(),
        baseline: vec![t],
        baseline_outcome: first.clone(),
        one_minimal: true,
        found_by: found_by.to_string(),
    }
}

/// `before` then `t`.
fn with(before: &[Test], t: Test) -> Schedule {
    let mut s = before.to_vec();
    s.push(t);
    s
}

/// The tests of the edges of `kind`, each once, in the order the edges name them.
pub fn tests_on(edges: &[&Edge], kind: EdgeKind) -> Vec<Test> {
    let mut out: Vec<Test> = Vec::new();
    for e in edges.iter().filter(|e| e.kind == kind) {
        for &x in &e.on {
            if !out.contains(&x) {
                out.push(x);
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fail(e: &str) -> Outcome {
        Outcome::Fail {
            exception: Some(e.to_string()),
            class: Some("C".to_string()),
            line: Some(1),
        }
    }

    fn found(outcome: Outcome, before: &[Test]) -> Minimized {
        Minimized {
            outcome,
            before: before.to_vec(),
            one_minimal: true,
            found_by: "exhaustive".to_string(),
        }
    }

    fn kinds(edges: &[Edge]) -> Vec<(EdgeKind, Vec<Test>, Schedule, Schedule)> {
        edges
            .iter()
            .map(|e| (e.kind, e.on.clone(), e.witness.clone(), e.baseline.clone()))
            .collect()
    }

    #[test]
    fn pradet_figure_2_set_clone_string_has_two_edges() {
        // testSetField = 0, testSetCloneString = 1, testToString = 2. testSetCloneString: NPE
        // alone, passes after 0, fails its assertion after 0 then 2.
        let e = edges(
            1,
            &fail("NPE"),
            &[
                found(Outcome::Pass, &[0]),
                found(fail("AssertionError"), &[0, 2]),
            ],
        );
        assert_eq!(
            kinds(&e),
            vec![
                (EdgeKind::StateSetter, vec![0], vec![0, 1], vec![1]),
                (EdgeKind::Polluter, vec![2], vec![0, 2, 1], vec![0, 1]),
            ]
        );
        // The polluter edge's baseline is the passing order: the setter alone before it.
        assert_eq!(e[1].baseline_outcome, Outcome::Pass);
        assert_eq!(e[1].witness_outcome, fail("AssertionError"));
        assert_eq!(e[0].baseline_outcome, fail("NPE"));
    }

    #[test]
    fn a_victim_has_a_polluter_edge_per_failure() {
        let e = edges(3, &Outcome::Pass, &[found(fail("A"), &[2, 0])]);
        assert_eq!(
            kinds(&e),
            vec![(EdgeKind::Polluter, vec![2, 0], vec![2, 0, 3], vec![3])]
        );
    }

    #[test]
    fn partial_state_is_no_edge() {
        // PRADET Figure 5: t3 (2) fails alone; passes after t2 (1); fails otherwise after t1
        // (0), which sets only part of what it needs.
        let e = edges(
            2,
            &fail("init"),
            &[found(Outcome::Pass, &[1]), found(fail("foo"), &[0])],
        );
        assert_eq!(
            kinds(&e),
            vec![(EdgeKind::StateSetter, vec![1], vec![1, 2], vec![2])]
        );
    }

    #[test]
    fn a_test_that_never_passes_has_polluters_of_its_failure() {
        let e = edges(1, &fail("A"), &[found(fail("B"), &[0])]);
        assert_eq!(
            kinds(&e),
            vec![(EdgeKind::Polluter, vec![0], vec![0, 1], vec![1])]
        );
        // Nothing before it: no dependency.
        assert!(edges(1, &fail("A"), &[found(fail("B"), &[])]).is_empty());
    }

    #[test]
    fn tests_on_lists_each_once() {
        let a = edges(3, &Outcome::Pass, &[found(fail("A"), &[2, 0])]);
        let b = edges(3, &Outcome::Pass, &[found(fail("B"), &[1, 2])]);
        let all: Vec<&Edge> = a.iter().chain(&b).collect();
        assert_eq!(tests_on(&all, EdgeKind::Polluter), vec![2, 0, 1]);
        assert!(tests_on(&all, EdgeKind::StateSetter).is_empty());
    }
}
