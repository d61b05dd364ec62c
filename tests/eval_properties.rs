//! Property tests of the evaluation metrics: the best ordering's APFD bounds every ordering's,
//! the F-measure is 1 exactly when the clusterings are equal, and both are invariant under
//! renaming and reordering of test ids (and of fault labels).

use std::collections::BTreeSet;

use proptest::prelude::*;

use paf::eval::input::Truth;
use paf::eval::metrics::{self, Weighting};
use paf::eval::{self, Settings};

/// Every permutation of `0..n` (n is small).
fn permutations(n: usize) -> Vec<Vec<usize>> {
    if n == 0 {
        return vec![Vec::new()];
    }
    let mut out = Vec::new();
    for p in permutations(n - 1) {
        for i in 0..=p.len() {
            let mut q = p.clone();
            q.insert(i, n - 1);
            out.push(q);
        }
    }
    out
}

fn reorder(items: &[Vec<usize>], order: &[usize]) -> Vec<Vec<usize>> {
    order.iter().map(|&i| items[i].clone()).collect()
}

/// A fault matrix: `n` tests, each revealing a subset of `m` faults.
fn matrix() -> impl Strategy<Value = (Vec<Vec<usize>>, usize)> {
    (1usize..=6, 1usize..=4).prop_flat_map(|(n, m)| {
        (
            proptest::collection::vec(proptest::collection::btree_set(0..m, 0..=m), n)
                .prop_map(|sets| sets.into_iter().map(|s| s.into_iter().collect()).collect()),
            Just(m),
        )
    })
}

/// The canonical form of a clustering: a set of sets.
fn canonical(clusters: &[Vec<usize>]) -> BTreeSet<BTreeSet<usize>> {
    clusters
        .iter()
        .filter(|c| !c.is_empty())
        .map(|c| c.iter().copied().collect())
        .collect()
}

/// A partition of `0..n` from a label per item.
fn partition(labels: &[usize]) -> Vec<Vec<usize>> {
    let mut groups: Vec<Vec<usize>> = vec![Vec::new(); labels.iter().max().map_or(0, |m| m + 1)];
    for (i, &l) in labels.iter().enumerate() {
        groups[l].push(i);
    }
    groups.retain(|g| !g.is_empty());
    groups
}

proptest! {
    /// The best of all orderings (by brute force) is at least any ordering, and when every test
    /// reveals at most one fault, the ordering that puts one revealing test of each fault first
    /// is a best one.
    #[test]
    fn the_best_ordering_bounds_every_ordering((items, m) in matrix(), pick in 0usize..720) {
        let n = items.len();
        let all = permutations(n);
        let best = all
            .iter()
            .map(|p| metrics::apfd(&reorder(&items, p), m).value.expect("n, m > 0"))
            .fold(f64::NEG_INFINITY, f64::max);
        let any = metrics::apfd(&reorder(&items, &all[pick % all.len()]), m)
            .value
            .expect("n, m > 0");
        prop_assert!(best >= any);
        prop_assert!((0.0..1.0).contains(&any));
        if items.iter().all(|f| f.len() <= 1) {
            let mut seen = BTreeSet::new();
            let (mut head, mut tail) = (Vec::new(), Vec::new());
            for (i, f) in items.iter().enumerate() {
                match f.first() {
                    Some(&x) if seen.insert(x) => head.push(i),
                    _ => tail.push(i),
                }
            }
            head.extend(tail);
            let greedy = metrics::apfd(&reorder(&items, &head), m).value.expect("n, m > 0");
            prop_assert_eq!(greedy, best);
        }
    }

    /// Renaming tests and faults and reordering the truth's lines changes no APFD.
    #[test]
    fn apfd_is_invariant_under_renaming_and_reordering(
        (items, m) in matrix(),
        rename in any::<u64>(),
    ) {
        let n = items.len();
        let truth_pairs = |test: &dyn Fn(usize) -> String, fault: &dyn Fn(usize) -> String| {
            let mut pairs: Vec<(String, String)> = Vec::new();
            for (i, fs) in items.iter().enumerate() {
                pairs.push((test(i), String::new()));
                for &f in fs {
                    pairs.push((test(i), fault(f)));
                }
            }
            pairs
        };
        let ranking = |test: &dyn Fn(usize) -> String| (0..n).map(test).collect::<Vec<_>>();
        let measure = |pairs: &[(String, String)], ids: Vec<String>| {
            let truth = Truth::from_pairs(pairs.iter().map(|(t, f)| (t.as_str(), f.as_str())));
            let r = eval::compare_files(&[("r".into(), ids)], &[], &truth, "t", &Settings::default(), true)
                .expect("ids match");
            let a = &r.rankings[0].apfd;
            (a.value, a.n, a.m, a.tf_sum, a.undetected.len())
        };
        let plain = measure(&truth_pairs(&|i| format!("t{i}"), &|f| format!("F{f}")), ranking(&|i| format!("t{i}")));
        // Another name for every test and fault (a bijection), and the truth lines reversed
        // and rotated.
        let salt = rename % 1000;
        let mut pairs = truth_pairs(&|i| format!("x{}", (i as u64 * 7 + salt) % 10_000), &|f| format!("G{}", 9 - f));
        pairs.reverse();
        let k = (rename as usize) % pairs.len().max(1);
        pairs.rotate_left(k);
        let renamed = measure(&pairs, ranking(&|i| format!("x{}", (i as u64 * 7 + salt) % 10_000)));
        prop_assert_eq!(plain, renamed);
        let revealed: BTreeSet<usize> = items.iter().flatten().copied().filter(|&f| f < m).collect();
        prop_assert_eq!(plain.2, revealed.len());
    }

    /// The F-measure (either weighting) is 1 exactly when the produced clustering equals the
    /// true one, and it does not change when ids are renamed and clusters and members reordered.
    #[test]
    fn f_measure_is_one_exactly_for_equal_clusterings(
        truth_labels in proptest::collection::vec(0usize..4, 1..9),
        produced_labels in proptest::collection::vec(0usize..4, 9),
        equal in any::<bool>(),
        shift in 1usize..50,
    ) {
        let n = truth_labels.len();
        let truth = partition(&truth_labels);
        let produced = if equal { truth.clone() } else { partition(&produced_labels[..n]) };
        let same = canonical(&truth) == canonical(&produced);
        for w in [Weighting::Truth, Weighting::Produced] {
            let f = metrics::f_measure(&produced, &truth, w);
            let value = f.value.expect("non-empty");
            prop_assert_eq!(value == 1.0, same, "{:?} vs {:?}: {}", produced, truth, value);
            prop_assert!((0.0..=1.0).contains(&value));
            // Rename item i to (i + shift) mod (n + shift) (a bijection onto other numbers),
            // reverse the cluster order and each cluster's members.
            let rename = |c: &Vec<Vec<usize>>| -> Vec<Vec<usize>> {
                c.iter()
                    .rev()
                    .map(|g| g.iter().rev().map(|&i| (i + shift) % (n + shift)).collect())
                    .collect()
            };
            let g = metrics::f_measure(&rename(&produced), &rename(&truth), w);
            prop_assert!((g.value.unwrap() - value).abs() < 1e-12);
            prop_assert_eq!(g.clusters, f.clusters);
            prop_assert!((g.purity.unwrap() - f.purity.unwrap()).abs() < 1e-12);
        }
    }
}
