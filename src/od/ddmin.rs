//! Delta debugging (Zeller and Hildebrandt's ddmin) over the tests that ran before an
//! order-dependent test: the smallest set of them, in their original order, that still gives
//! the test the observed outcome. The oracle runs whole batches so that the caller can run
//! them in parallel; which candidate is taken never depends on timing.

/// What one candidate subset did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Trial {
    /// The test showed the target outcome.
    Reproduced,
    /// The test showed another outcome.
    Other,
    /// No outcome (timeout, crash): neither.
    Unresolved,
}

/// The result of a minimization.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Minimized {
    /// The kept items, in their original order.
    pub items: Vec<usize>,
    /// Removing any one kept item loses the outcome (checked, not assumed).
    pub one_minimal: bool,
}

/// Minimizes `items` (which must reproduce) with an oracle that answers a batch of candidate
/// subsets at once. Candidates of one step are tried as a batch (all subsets, then, if none
/// reproduces, all complements), and the first that reproduces in batch order is taken.
pub fn ddmin(items: &[usize], mut oracle: impl FnMut(&[Vec<usize>]) -> Vec<Trial>) -> Minimized {
    // An empty prefix that reproduces means no test before it is needed.
    if oracle(&[Vec::new()])[0] == Trial::Reproduced {
        return Minimized {
            items: Vec::new(),
            one_minimal: true,
        };
    }
    let mut c: Vec<usize> = items.to_vec();
    let mut n = 2usize;
    while c.len() >= 2 {
        let chunks = split(&c, n);
        let trials = oracle(&chunks);
        if let Some(i) = trials.iter().position(|&t| t == Trial::Reproduced) {
            c = chunks[i].clone();
            n = 2;
            continue;
        }
        if n > 2 {
            let complements: Vec<Vec<usize>> = (0..chunks.len())
                .map(|i| {
                    chunks
                        .iter()
                        .enumerate()
                        .filter(|&(j, _)| j != i)
                        .flat_map(|(_, ch)| ch.iter().copied())
                        .collect()
                })
                .collect();
            let trials = oracle(&complements);
            if let Some(i) = trials.iter().position(|&t| t == Trial::Reproduced) {
                c = complements[i].clone();
                n = (n - 1).max(2);
                continue;
            }
        }
        if n >= c.len() {
            break;
        }
        n = (2 * n).min(c.len());
    }
    // 1-minimality: no single removal may reproduce (answers come from the caller's cache
    // when the last step already ran them).
    let removals: Vec<Vec<usize>> = (0..c.len())
        .map(|i| {
            c.iter()
                .enumerate()
                .filter(|&(j, _)| j != i)
                .map(|(_, &x)| x)
                .collect()
        })
        .collect();
    let one_minimal = oracle(&removals).iter().all(|&t| t != Trial::Reproduced);
    Minimized {
        items: c,
        one_minimal,
    }
}

/// `c` in `n` contiguous chunks of nearly equal size (the first ones longer).
fn split(c: &[usize], n: usize) -> Vec<Vec<usize>> {
    let n = n.min(c.len()).max(1);
    let (q, r) = (c.len() / n, c.len() % n);
    let mut out = Vec::with_capacity(n);
    let mut start = 0;
    for i in 0..n {
        let len = q + usize::from(i < r);
        out.push(c[start..start + len].to_vec());
        start += len;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// An oracle that reproduces when `needed` is a subset of the candidate.
    fn needs(needed: &[usize]) -> impl FnMut(&[Vec<usize>]) -> Vec<Trial> + '_ {
        move |batch| {
            batch
                .iter()
                .map(|c| {
                    if needed.iter().all(|x| c.contains(x)) {
                        Trial::Reproduced
                    } else {
                        Trial::Other
                    }
                })
                .collect()
        }
    }

    #[test]
    fn finds_two_polluters_among_eight() {
        let m = ddmin(&[0, 1, 2, 3, 4, 5, 6, 7], needs(&[2, 6]));
        assert_eq!(m.items, vec![2, 6]);
        assert!(m.one_minimal);
    }

    #[test]
    fn dtdetector_figure_witness() {
        // Test2 fails after Test3 then Test1; the prefix also holds Test4 after them.
        let m = ddmin(&[2, 3, 0], needs(&[2, 0]));
        assert_eq!(m.items, vec![2, 0]);
    }

    #[test]
    fn empty_prefix_is_tried_first() {
        let mut calls = 0;
        let m = ddmin(&[1, 2, 3], |b| {
            calls += 1;
            vec![Trial::Reproduced; b.len()]
        });
        assert_eq!(m.items, Vec::<usize>::new());
        assert_eq!(calls, 1);
    }

    #[test]
    fn split_keeps_order_and_sizes() {
        assert_eq!(split(&[1, 2, 3, 4, 5], 2), vec![vec![1, 2, 3], vec![4, 5]]);
        assert_eq!(split(&[1, 2], 4), vec![vec![1], vec![2]]);
    }

    #[test]
    fn unresolved_is_never_taken() {
        // Only the full set reproduces; the rest is unresolved: nothing can be removed.
        let m = ddmin(&[0, 1, 2], |b| {
            b.iter()
                .map(|c| {
                    if c.len() == 3 {
                        Trial::Reproduced
                    } else {
                        Trial::Unresolved
                    }
                })
                .collect()
        });
        assert_eq!(m.items, vec![0, 1, 2]);
        assert!(m.one_minimal);
    }

    proptest! {
        /// With a monotone oracle ddmin returns exactly the needed set, which is 1-minimal.
        #[test]
        fn monotone_oracle_gives_the_needed_set(
            n in 1usize..24,
            picks in proptest::collection::btree_set(0usize..24, 1..5),
        ) {
            let items: Vec<usize> = (0..n).collect();
            let needed: Vec<usize> = picks.into_iter().filter(|&p| p < n).collect();
            prop_assume!(!needed.is_empty());
            let m = ddmin(&items, needs(&needed));
            prop_assert_eq!(m.items, needed);
            prop_assert!(m.one_minimal);
        }

        /// Whatever the oracle, the result keeps the original order, reproduces, and is a
        /// subset of the input.
        #[test]
        fn result_is_an_ordered_reproducing_subset(
            n in 1usize..16,
            seed in any::<u64>(),
        ) {
            let items: Vec<usize> = (0..n).collect();
            // An arbitrary deterministic oracle; the full set always reproduces.
            let verdict = |c: &Vec<usize>| {
                if c.len() == n { return Trial::Reproduced; }
                let h = c.iter().fold(seed, |h, &x| h.wrapping_mul(31).wrapping_add(x as u64 + 1));
                match h % 3 { 0 => Trial::Reproduced, 1 => Trial::Other, _ => Trial::Unresolved }
            };
            let m = ddmin(&items, |b| b.iter().map(verdict).collect());
            prop_assert!(m.items.windows(2).all(|w| w[0] < w[1]));
            prop_assert!(m.items.is_empty() || verdict(&m.items) == Trial::Reproduced);
        }
    }
}
