//! Phase 4 (PAF section 3.4): order flow-sets local first, then by ascending likelihood, ties
//! in a seeded random order; derive the individual-test ranking from it.

use rand::SeedableRng;
use rand::seq::SliceRandom;
use rand_chacha::ChaCha8Rng;

use crate::flowset::FlowSet;
use crate::score::{Ratio, Score};

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
/// [`key`]; each run of equal keys is shuffled with one ChaCha8 generator seeded by `seed`,
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

/// The individual-test ranking: flow-sets in rank order, each with its representative first
/// and its other members in bundle order. Returns failure indices paired with the flow-set's
/// position in `order`.
pub fn tests_in_order(sets: &[FlowSet], order: &[usize]) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    for (pos, &s) in order.iter().enumerate() {
        let set = &sets[s];
        out.push((set.representative, pos));
        out.extend(
            set.members
                .iter()
                .filter(|&&m| m != set.representative)
                .map(|&m| (m, pos)),
        );
    }
    out
}
