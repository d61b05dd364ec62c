//! Phase 4 (PAF section 3.4): order flow-sets local first, then by ascending likelihood, ties
//! in a seeded random order; derive the individual-test ranking from it (representatives
//! first, or flow-set by flow-set: [`TestOrder`]).

use rand::SeedableRng;
use rand::seq::SliceRandom;
use rand_chacha::ChaCha8Rng;

use super::flowset::FlowSet;
use super::score::{Ratio, Score};

/// The seed used when the user gives none: output is the same bytes on every run.
pub const DEFAULT_SEED: u64 = 0;

/// The sort key of a flow-set: local first, then likelihood ascending; a flow-set whose theta
/// is empty (no likelihood) goes after all others of its locality group.
fn key(set: &FlowSet, score: &Score) -> (bool, bool, Option<Ratio>) {
    (
        !set.is_local(),
        score.likelihood.is_none(),
        score.likelihood,
    )
}

/// Returns flow-set indices in rank order.
///
/// Flow-sets are first put in bundle order (of their first member), then sorted stably by
/// `key`; each run of equal keys is shuffled with one ChaCha8 generator seeded by `seed`,
/// runs taken in order, so a seed gives the same ranking on any machine.
pub fn rank(sets: &[FlowSet], scores: &[Score], seed: u64) -> Vec<usize> {
    let mut order: Vec<usize> = (0..sets.len()).collect();
    order.sort_by_key(|&i| (key(&sets[i], &scores[i]), sets[i].members[0]));
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut start = 0;
    while start < order.len() {
        let k = key(&sets[order[start]], &scores[order[start]]);
        let end = start
            + order[start..]
                .iter()
                .take_while(|&&i| key(&sets[i], &scores[i]) == k)
                .count();
        order[start..end].shuffle(&mut rng);
        start = end;
    }
    order
}

/// How the individual-test ranking (`paf.rank/1`'s `tests`) lists the tests of flow-sets.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, clap::ValueEnum)]
pub enum TestOrder {
    /// Each flow-set's representative in rank order (one test per flow-set, the way the
    /// flow-set table is read), then the other members of each flow-set in rank order.
    #[default]
    Representatives,
    /// Flow-set by flow-set: each flow-set's tests together, representative first.
    Blocks,
}

/// The individual-test ranking: flow-sets in rank order, each with its representative first
/// and its other members in bundle order; with [`TestOrder::Representatives`] the
/// representatives of all flow-sets come before any other member. Returns failure indices
/// paired with the flow-set's position in `order`.
pub fn tests_in_order(
    sets: &[FlowSet],
    order: &[usize],
    test_order: TestOrder,
) -> Vec<(usize, usize)> {
    let others = |pos: usize, set: &FlowSet| {
        let rep = set.representative;
        set.members
            .iter()
            .filter(move |&&m| m != rep)
            .map(move |&m| (m, pos))
            .collect::<Vec<_>>()
    };
    let mut out = Vec::new();
    match test_order {
        TestOrder::Blocks => {
            for (pos, &s) in order.iter().enumerate() {
                out.push((sets[s].representative, pos));
                out.extend(others(pos, &sets[s]));
            }
        }
        TestOrder::Representatives => {
            out.extend(
                order
                    .iter()
                    .enumerate()
                    .map(|(pos, &s)| (sets[s].representative, pos)),
            );
            for (pos, &s) in order.iter().enumerate() {
                out.extend(others(pos, &sets[s]));
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ranking::flowset::FlowKey;
    use crate::trace::StmtIx;

    /// Flow-sets from `(local, likelihood)`, likelihood as `"n/d"` or `"-"` (empty theta);
    /// set `i` has first member `i`.
    fn sets(spec: &[(bool, &str)]) -> (Vec<FlowSet>, Vec<Score>) {
        spec.iter()
            .enumerate()
            .map(|(i, &(local, likelihood))| {
                let set = FlowSet {
                    key: FlowKey {
                        crash_stmt: StmtIx(i as u32),
                        contract: None,
                        vars: Vec::new(),
                    },
                    members: vec![i],
                    representative: i,
                    local_members: usize::from(local),
                };
                let likelihood = likelihood.split_once('/').map(|(n, d)| Ratio {
                    num: n.parse().unwrap(),
                    den: d.parse().unwrap(),
                });
                (
                    set,
                    Score {
                        vars: Vec::new(),
                        likelihood,
                    },
                )
            })
            .unzip()
    }

    fn check(spec: &[(bool, &str)], seed: u64, expect: &[usize]) {
        let (sets, scores) = sets(spec);
        assert_eq!(rank(&sets, &scores, seed), expect);
    }

    const L: bool = true;
    const N: bool = false;

    #[test]
    fn local_first_then_ascending_likelihood_then_empty_theta() {
        let spec = [
            (N, "0/1"),
            (L, "1/2"),
            (L, "0/3"),
            (L, "-"),
            (N, "-"),
            (L, "1/1"),
            (N, "2/3"),
        ];
        // Local: 0/3 (2), 1/2 (1), 1/1 (5), none (3); non-local: 0/1 (0), 2/3 (6), none (4).
        for seed in [0, 1, 99] {
            check(&spec, seed, &[2, 1, 5, 3, 0, 6, 4]);
        }
    }

    /// The orders `rank` gives the spec for seeds 0..50.
    fn orders(spec: &[(bool, &str)]) -> Vec<Vec<usize>> {
        let (sets, scores) = sets(spec);
        (0..50).map(|seed| rank(&sets, &scores, seed)).collect()
    }

    #[test]
    fn ties_are_shuffled_by_the_seed_within_their_group_only() {
        // 1/3 and 2/6 are the same likelihood: a tie.
        let spec = [(L, "1/3"), (N, "0/1"), (L, "2/6"), (L, "1/3"), (N, "0/2")];
        let orders = orders(&spec);
        for order in &orders {
            let mut head = order[..3].to_vec();
            head.sort();
            assert_eq!(head, [0, 2, 3], "{order:?}");
            let mut tail = order[3..].to_vec();
            tail.sort();
            assert_eq!(tail, [1, 4], "{order:?}");
        }
        let mut distinct = orders.clone();
        distinct.sort();
        distinct.dedup();
        // 3! * 2! = 12 possible orders; 50 seeds must find more than one.
        assert!(distinct.len() > 1, "the seed never changes the order");
        // 2/6 ties with 1/3, so it is not always after them.
        assert!(orders.iter().any(|o| o[0] == 2), "2/6 is never first");
        let (sets, scores) = sets(&spec);
        for seed in [0, 7] {
            assert_eq!(rank(&sets, &scores, seed), orders[seed as usize]);
        }
    }

    #[test]
    fn individual_tests_follow_their_flow_set_representative_first() {
        let set = |members: Vec<usize>, representative| FlowSet {
            key: FlowKey {
                crash_stmt: StmtIx(0),
                contract: None,
                vars: Vec::new(),
            },
            members,
            representative,
            local_members: 0,
        };
        let sets = [set(vec![0, 3, 4], 4), set(vec![1, 2], 1)];
        // Flow-set 1 (tests 1, 2; representative 1) is ranked first, flow-set 0 (tests 0, 3,
        // 4; representative 4) second.
        assert_eq!(
            tests_in_order(&sets, &[1, 0], TestOrder::Blocks),
            [(1, 0), (2, 0), (4, 1), (0, 1), (3, 1)]
        );
        assert_eq!(
            tests_in_order(&sets, &[1, 0], TestOrder::Representatives),
            [(1, 0), (4, 1), (2, 0), (0, 1), (3, 1)]
        );
    }
}
