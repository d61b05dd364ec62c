//! PRADET's refinement (Gambi et al., ICST'18, section III-B) as a pure state machine: the
//! dependency graph of the reference run's read-after-write relations, one edge inverted per
//! schedule, source-first selection, edges that would close a cycle deferred.
//!
//! Call [`Refinement::next_schedule`] for the next schedule, run it, tell [`Refinement::record`]
//! whether any outcome changed; repeat until `next_schedule` returns `None`.

use std::cmp::Reverse;
use std::collections::{BTreeMap, BTreeSet, BinaryHeap};

use petgraph::algo::is_cyclic_directed;
use petgraph::graph::{DiGraph, NodeIndex};
use petgraph::visit::EdgeRef;

use super::{Access, Schedule, Test};

/// What refinement concluded about one data dependence.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EdgeState {
    /// Not tested yet.
    Pending,
    /// Inverting it changed an outcome: a manifest dependence, kept in the graph.
    Manifest,
    /// Inverting it changed nothing: removed from the graph.
    Dropped,
    /// Every schedule that inverts it would also break another kept dependence (a cycle).
    Untestable,
}

impl EdgeState {
    pub fn name(self) -> &'static str {
        match self {
            EdgeState::Pending => "pending",
            EdgeState::Manifest => "manifest",
            EdgeState::Dropped => "dropped",
            EdgeState::Untestable => "untestable",
        }
    }
}

/// `dependent -> on`: `dependent` read a field `on` wrote last in the reference run.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Edge {
    pub dependent: Test,
    pub on: Test,
    pub fields: Vec<usize>,
    pub state: EdgeState,
    /// The schedule that tested it, if any.
    pub schedule: Option<Schedule>,
}

/// The refinement in progress.
#[derive(Clone, Debug)]
pub struct Refinement {
    n: usize,
    pub edges: Vec<Edge>,
    /// Edge indices in source-first order: later dependents first, and for one dependent the
    /// later dependee first (PRADET's Figure 5 discussion).
    order: Vec<usize>,
    testing: Option<usize>,
}

impl Refinement {
    /// The graph of the reference run (the default order `0..n`).
    pub fn new(access: &Access) -> Refinement {
        let n = access.len();
        let mut by_pair: BTreeMap<(Test, Test), Vec<usize>> = BTreeMap::new();
        for t in 0..n {
            for &f in &access.reads[t] {
                if let Some(w) = (0..t).rev().find(|&u| access.writes[u].contains(&f)) {
                    by_pair.entry((t, w)).or_default().push(f);
                }
            }
        }
        let edges: Vec<Edge> = by_pair
            .into_iter()
            .map(|((dependent, on), fields)| Edge {
                dependent,
                on,
                fields,
                state: EdgeState::Pending,
                schedule: None,
            })
            .collect();
        let mut order: Vec<usize> = (0..edges.len()).collect();
        order.sort_by_key(|&e| Reverse((edges[e].dependent, edges[e].on)));
        Refinement {
            n,
            edges,
            order,
            testing: None,
        }
    }

    /// The next schedule to run, or `None` when every edge is decided (pending edges left then
    /// become untestable). Must be followed by [`Refinement::record`].
    pub fn next_schedule(&mut self) -> Option<(usize, Schedule)> {
        assert!(self.testing.is_none(), "record the last schedule first");
        for &e in &self.order {
            if self.edges[e].state != EdgeState::Pending {
                continue;
            }
            if let Some(schedule) = self.schedule_inverting(e) {
                self.testing = Some(e);
                self.edges[e].schedule = Some(schedule.clone());
                return Some((e, schedule));
            }
        }
        for e in &mut self.edges {
            if e.state == EdgeState::Pending {
                e.state = EdgeState::Untestable;
            }
        }
        None
    }

    /// The outcome of the last schedule: did any test's outcome change?
    pub fn record(&mut self, changed: bool) {
        let e = self.testing.take().expect("a schedule was handed out");
        self.edges[e].state = if changed {
            EdgeState::Manifest
        } else {
            EdgeState::Dropped
        };
    }

    /// Runs to the end assuming no inversion changes anything: the schedules `od plan` shows.
    pub fn plan_all(mut self) -> Vec<Schedule> {
        let mut out = Vec::new();
        while let Some((_, s)) = self.next_schedule() {
            out.push(s);
            self.record(false);
        }
        out
    }

    /// The schedule that runs `dependent` of edge `e` before its dependee while honouring every
    /// other pending or manifest edge; `None` if that closes a cycle. Only the weakly connected
    /// component of the edge is scheduled, and nothing after `dependent` (it cannot matter).
    fn schedule_inverting(&self, e: usize) -> Option<Schedule> {
        // Graph edges point from the test that must run first to the one that must follow.
        let mut g: DiGraph<(), ()> = DiGraph::with_capacity(self.n, self.edges.len());
        for _ in 0..self.n {
            g.add_node(());
        }
        for (i, edge) in self.edges.iter().enumerate() {
            let (first, then) = if i == e {
                (edge.dependent, edge.on)
            } else if matches!(edge.state, EdgeState::Pending | EdgeState::Manifest) {
                (edge.on, edge.dependent)
            } else {
                continue;
            };
            g.add_edge(NodeIndex::new(first), NodeIndex::new(then), ());
        }
        if is_cyclic_directed(&g) {
            return None;
        }
        let target = self.edges[e].dependent;
        let component = weak_component(&g, target);
        let order = topological_by_position(&g, &component);
        let end = order.iter().position(|&t| t == target)?;
        Some(order[..=end].to_vec())
    }
}

/// The tests weakly connected to `start`.
fn weak_component(g: &DiGraph<(), ()>, start: Test) -> BTreeSet<Test> {
    let mut seen = BTreeSet::from([start]);
    let mut stack = vec![start];
    while let Some(t) = stack.pop() {
        for u in g.neighbors_undirected(NodeIndex::new(t)) {
            if seen.insert(u.index()) {
                stack.push(u.index());
            }
        }
    }
    seen
}

/// Kahn's algorithm over `nodes`, taking the earliest test of the default order whenever
/// several are ready, so the schedule is the reference order as far as the edges allow.
fn topological_by_position(g: &DiGraph<(), ()>, nodes: &BTreeSet<Test>) -> Vec<Test> {
    let mut indegree: BTreeMap<Test, usize> = nodes.iter().map(|&t| (t, 0)).collect();
    for edge in g.edge_references() {
        if let Some(d) = indegree.get_mut(&edge.target().index()) {
            *d += 1;
        }
    }
    let mut ready: BinaryHeap<Reverse<Test>> = indegree
        .iter()
        .filter(|&(_, &d)| d == 0)
        .map(|(&t, _)| Reverse(t))
        .collect();
    let mut out = Vec::with_capacity(nodes.len());
    while let Some(Reverse(t)) = ready.pop() {
        out.push(t);
        for u in g.neighbors(NodeIndex::new(t)) {
            let d = indegree.get_mut(&u.index()).expect("same component");
            *d -= 1;
            if *d == 0 {
                ready.push(Reverse(u.index()));
            }
        }
    }
    out
}

/// The schedules of a refinement in which nothing is manifest (what `od plan` prints).
pub fn plan(access: &Access) -> Vec<Schedule> {
    Refinement::new(access).plan_all()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// PRADET Figure 5: t1 reads and writes `initialized`; t2 reads `initialized` (already
    /// set) and writes `foo`; t3 reads both.
    fn joint() -> Access {
        Access::from_names(&[
            (vec!["initialized"], vec!["initialized"]),
            (vec!["initialized"], vec!["foo"]),
            (vec!["initialized", "foo"], vec![]),
        ])
    }

    fn states(r: &Refinement) -> Vec<(Test, Test, EdgeState)> {
        r.edges
            .iter()
            .map(|e| (e.dependent, e.on, e.state))
            .collect()
    }

    #[test]
    fn source_first_on_the_joint_dependency_example() {
        let mut r = Refinement::new(&joint());
        // Edges t2 -> t1, t3 -> t1, t3 -> t2 (0-based: 1->0, 2->0, 2->1).
        assert_eq!(r.edges.len(), 3);
        // Source-first: t3 -> t2 first. Inverted, t2 runs after t3: t1, t3 (t2 cut off).
        let (e, s) = r.next_schedule().unwrap();
        assert_eq!((r.edges[e].dependent, r.edges[e].on), (2, 1));
        assert_eq!(s, vec![0, 2]);
        r.record(true); // t3 fails without foo
        // t3 -> t1 would close the cycle t3 -> t2 -> t1 -> t3: deferred; t2 -> t1 next.
        let (e, s) = r.next_schedule().unwrap();
        assert_eq!((r.edges[e].dependent, r.edges[e].on), (1, 0));
        assert_eq!(s, vec![1]);
        r.record(false); // t2 initializes by itself
        // Now t3 -> t1 is testable: t2, t3, with t1 after (cut off).
        let (e, s) = r.next_schedule().unwrap();
        assert_eq!((r.edges[e].dependent, r.edges[e].on), (2, 0));
        assert_eq!(s, vec![1, 2]);
        r.record(false);
        assert!(r.next_schedule().is_none());
        assert_eq!(
            states(&r),
            vec![
                (1, 0, EdgeState::Dropped),
                (2, 0, EdgeState::Dropped),
                (2, 1, EdgeState::Manifest)
            ]
        );
    }

    #[test]
    fn an_edge_that_stays_in_a_cycle_is_untestable() {
        // PRADET Figure 4 B: t2 -> t1 and t3 -> t2 manifest leave t3 -> t1 untestable.
        let mut r = Refinement::new(&joint());
        while r.next_schedule().is_some() {
            r.record(true);
        }
        assert_eq!(
            states(&r),
            vec![
                (1, 0, EdgeState::Manifest),
                (2, 0, EdgeState::Untestable),
                (2, 1, EdgeState::Manifest)
            ]
        );
    }

    #[test]
    fn only_the_component_up_to_the_dependent_is_scheduled() {
        // PRADET Figure 2 (testSetField, testSetCloneString, testToString) plus an unrelated
        // test: testToString -> testSetField goes first (source-first) and runs alone.
        let a = Access::from_names(&[
            (vec![], vec!["data", "cloneString"]),
            (vec!["data", "cloneString"], vec!["cloneString"]),
            (vec![], vec!["other"]),
            (vec!["data"], vec!["cloneString"]),
        ]);
        let mut r = Refinement::new(&a);
        let (_, s) = r.next_schedule().unwrap();
        assert_eq!(s, vec![3]);
        r.record(true);
        let (_, s) = r.next_schedule().unwrap();
        assert_eq!(s, vec![1]);
        r.record(true);
        assert!(r.next_schedule().is_none());
        assert_eq!(plan(&a), vec![vec![3], vec![1]]);
    }

    #[test]
    fn no_reads_no_edges() {
        let a = Access::from_names(&[(vec![], vec!["x"]), (vec![], vec!["x"])]);
        assert!(plan(&a).is_empty());
    }
}
