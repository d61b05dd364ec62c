//! Schedule generators of the detection algorithms, as pure functions of the test ids, the
//! access sets and the parameters (DTDetector ISSTA'14 section 4 and its algorithms section;
//! PRADET's is adaptive and lives in [`super::pradet`]). Every test is a position in the
//! default order, so `0..n` is the default schedule.

use std::collections::BTreeMap;
use std::fmt;

use rand::SeedableRng;
use rand::seq::SliceRandom;
use rand_chacha::ChaCha8Rng;

use super::{Access, Schedule, Test};

/// Refuse to enumerate more permutations than this (for k-bounded algorithms on big suites).
pub const MAX_PERMUTATIONS: u128 = 20_000_000;

/// Refuse Tuscan squares with more test runs than this: n orders of n tests each, every
/// result kept (about 4,500 tests).
pub const MAX_TUSCAN_RUNS: u128 = 20_000_000;

/// A detection algorithm, as named on the command line (`--algo`).
///
/// The variants' doc comments are for readers of the code: `help = None` keeps them out of
/// `--help`, which lists the names only.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, clap::ValueEnum)]
pub enum Algo {
    /// The default order reversed (ISSTA'14 Figure 3).
    #[value(help = None)]
    Reverse,
    /// `trials` seeded shuffles (Figure 4).
    #[value(help = None)]
    Random,
    /// Each test alone: the exhaustive algorithm with k = 1.
    #[value(help = None)]
    Isolate,
    /// Every ordered pair: the exhaustive algorithm with k = 2.
    #[value(help = None)]
    Pairwise,
    /// Every k-permutation (Figure 5).
    #[value(help = None)]
    Exhaustive,
    /// ISSTA'14 dependence-aware k-bounded (Figure 6 and section 4.4).
    #[value(help = None)]
    DepAware,
    /// The last-writer dependence-aware algorithm of the algorithms section.
    #[value(name = "dep-aware-lastwriter", help = None)]
    DepAwareLastWriter,
    /// PRADET's refinement of the read-after-write graph (adaptive).
    #[value(help = None)]
    Pradet,
    /// Each test twice in one process: the self-dependence probe.
    #[value(help = None)]
    Twice,
    /// Covering orders: every ordered pair of tests adjacent in some order, in about n orders
    /// (iDFlakies' Tuscan-square detector).
    #[value(help = None)]
    Tuscan,
    /// The failing tests alone, and the passing tests that may fail alone (masked failures):
    /// runs that grow with the failing tests, not the suite.
    #[value(help = None)]
    Triage,
}

impl Algo {
    pub fn name(self) -> &'static str {
        match self {
            Algo::Reverse => "reverse",
            Algo::Random => "random",
            Algo::Isolate => "isolate",
            Algo::Pairwise => "pairwise",
            Algo::Exhaustive => "exhaustive",
            Algo::DepAware => "dep-aware",
            Algo::DepAwareLastWriter => "dep-aware-lastwriter",
            Algo::Pradet => "pradet",
            Algo::Twice => "twice",
            Algo::Tuscan => "tuscan",
            Algo::Triage => "triage",
        }
    }

    /// Whether the schedules depend on earlier results, so that a shard cannot plan them
    /// (`od detect --shard` leaves them to `od merge`).
    pub fn adaptive(self) -> bool {
        matches!(self, Algo::Pradet)
    }

    /// Whether the algorithm needs read/write sets.
    pub fn needs_access(self) -> bool {
        matches!(
            self,
            Algo::DepAware | Algo::DepAwareLastWriter | Algo::Pradet
        )
    }
}

impl fmt::Display for Algo {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Parameters of the non-adaptive algorithms.
#[derive(Clone, Copy, Debug)]
pub struct Params {
    /// Length of the permutations of the k-bounded algorithms.
    pub k: usize,
    /// Number of shuffles of `random`.
    pub trials: usize,
    pub seed: u64,
}

impl Default for Params {
    fn default() -> Self {
        Params {
            k: 2,
            trials: 10,
            seed: 0,
        }
    }
}

/// Too many schedules to enumerate.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{}", too_many(self))]
pub struct TooMany {
    pub algo: Algo,
    pub n: usize,
    pub k: usize,
    pub count: u128,
}

fn too_many(t: &TooMany) -> String {
    if t.algo == Algo::Tuscan {
        format!(
            "tuscan over {} tests runs {} tests in all (at most {MAX_TUSCAN_RUNS}); use triage, isolate or a dependence-aware algorithm, or a smaller test list",
            t.n, t.count
        )
    } else {
        format!(
            "{} with k = {} over {} tests enumerates {} permutations (at most {MAX_PERMUTATIONS}); use a smaller --k or a dependence-aware algorithm",
            t.algo, t.k, t.n, t.count
        )
    }
}

/// The schedules of a non-adaptive algorithm (`pradet` is planned by [`super::pradet`]);
/// `failing` says which tests failed in the default order (only `triage` reads it).
pub fn schedules(
    algo: Algo,
    ids: &[String],
    access: &Access,
    params: Params,
    failing: &[bool],
) -> Result<Vec<Schedule>, TooMany> {
    let n = ids.len();
    let check = |k: usize| {
        let count = permutation_count(n, k);
        if count > MAX_PERMUTATIONS {
            Err(TooMany { algo, n, k, count })
        } else {
            Ok(())
        }
    };
    let square = (n as u128) * ((n + n % 2) as u128);
    if algo == Algo::Tuscan && square > MAX_TUSCAN_RUNS {
        return Err(TooMany {
            algo,
            n,
            k: n,
            count: square,
        });
    }
    Ok(match algo {
        Algo::Reverse => vec![reverse(n)],
        Algo::Random => random(ids, params.trials, params.seed),
        Algo::Isolate => k_permutations(n, 1).collect(),
        Algo::Pairwise => {
            check(2)?;
            k_permutations(n, 2).collect()
        }
        Algo::Exhaustive => {
            check(params.k)?;
            k_permutations(n, params.k).collect()
        }
        Algo::DepAware => {
            check(params.k)?;
            dep_aware(access, params.k)
        }
        Algo::DepAwareLastWriter => {
            check(params.k)?;
            dep_aware_last_writer(access, params.k)
        }
        Algo::Pradet => super::pradet::plan(access),
        Algo::Twice => (0..n).map(|t| vec![t, t]).collect(),
        Algo::Tuscan => tuscan(n),
        Algo::Triage => triage(failing, access),
    })
}

/// Orders of `0..n` in which every ordered pair of distinct tests is adjacent somewhere: the
/// rows of a row-complete Latin square (Williams' construction) for even n, n orders; for odd
/// n, the square of n + 1 with test n taken out of every row, n + 1 orders (taking a test out
/// joins its two neighbours, and every pair of the others stays adjacent where it was). This
/// is what iDFlakies' Tuscan-square detector covers: all n(n - 1) ordered pairs as neighbours
/// in about n orders, each a whole run of the suite, where `pairwise` needs one run per pair.
pub fn tuscan(n: usize) -> Vec<Schedule> {
    if n <= 1 {
        return (0..n).map(|t| vec![t]).collect();
    }
    let m = n + n % 2;
    // 0, 1, m-1, 2, m-2, ...: the steps between neighbours are 1, -2, 3, -4, ... mod m, all
    // distinct, so shifting the row by 0..m puts every difference, hence every ordered pair,
    // at exactly one place.
    let base: Vec<usize> = (0..m)
        .map(|j| match j {
            0 => 0,
            j if j % 2 == 1 => j.div_ceil(2),
            j => m - j / 2,
        })
        .collect();
    (0..m)
        .map(|shift| {
            base.iter()
                .map(|&b| (b + shift) % m)
                .filter(|&t| t < n)
                .collect()
        })
        .collect()
}

/// Triage: each test that failed in the default order alone (a failure that disappears alone
/// is order-caused), then each passing test that may fail alone, alone (a masked failure: it
/// passed only because an earlier test set state it needs). With read/write sets, the
/// passing tests that may are those that read a field an earlier test in the default order
/// wrote; without read/write sets (`--tests` alone) every passing test may, while recorded
/// sets in which no test touches shared state leave none. The failing tests first, then the
/// others, each group in default order.
pub fn triage(failing: &[bool], access: &Access) -> Vec<Schedule> {
    let n = failing.len();
    let known = access.known;
    let mut written = std::collections::BTreeSet::new();
    let mut masked = vec![false; n];
    for t in 0..n {
        if known {
            masked[t] = !failing[t] && !access.reads[t].is_disjoint(&written);
            written.extend(access.writes[t].iter().copied());
        } else {
            masked[t] = !failing[t];
        }
    }
    let first = (0..n).filter(|&t| failing[t]);
    let then = (0..n).filter(|&t| masked[t]);
    first.chain(then).map(|t| vec![t]).collect()
}

/// n! / (n-k)!, saturating.
pub fn permutation_count(n: usize, k: usize) -> u128 {
    if k > n {
        return 0;
    }
    (0..k).fold(1u128, |acc, i| acc.saturating_mul((n - i) as u128))
}

/// The default order reversed.
pub fn reverse(n: usize) -> Schedule {
    (0..n).rev().collect()
}

/// `trials` shuffles. Each shuffles the test ids *sorted by name* with one ChaCha8 generator
/// seeded by `seed`, so a seed gives the same orders on any machine and whatever the order of
/// the test list; trial i does not depend on how many trials follow it.
pub fn random(ids: &[String], trials: usize, seed: u64) -> Vec<Schedule> {
    let mut sorted: Vec<Test> = (0..ids.len()).collect();
    sorted.sort_by(|&a, &b| ids[a].cmp(&ids[b]));
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    (0..trials)
        .map(|_| {
            let mut s = sorted.clone();
            s.shuffle(&mut rng);
            s
        })
        .collect()
}

/// All sequences of `k` distinct tests out of `0..n`, in lexicographic order of positions.
pub fn k_permutations(n: usize, k: usize) -> KPermutations {
    KPermutations {
        n,
        k,
        current: if k <= n { Some(Vec::new()) } else { None },
        used: vec![false; n],
    }
}

/// Iterator of [`k_permutations`]: a depth-first walk that keeps the current prefix.
pub struct KPermutations {
    n: usize,
    k: usize,
    /// The last permutation yielded (empty before the first).
    current: Option<Vec<Test>>,
    used: Vec<bool>,
}

impl KPermutations {
    /// The smallest unused test greater than or equal to `from`.
    fn next_unused(&self, from: usize) -> Option<usize> {
        (from..self.n).find(|&t| !self.used[t])
    }

    /// Extends `cur` with the smallest unused tests up to length k.
    fn fill(&mut self, cur: &mut Vec<Test>) -> bool {
        while cur.len() < self.k {
            match self.next_unused(0) {
                Some(t) => {
                    self.used[t] = true;
                    cur.push(t);
                }
                None => return false,
            }
        }
        true
    }
}

impl Iterator for KPermutations {
    type Item = Schedule;

    fn next(&mut self) -> Option<Schedule> {
        let mut cur = self.current.take()?;
        if cur.is_empty() {
            if self.k == 0 {
                return None;
            }
            if !self.fill(&mut cur) {
                return None;
            }
            self.current = Some(cur.clone());
            return Some(cur);
        }
        // Advance: bump the last position that can take a larger unused test, refill the rest.
        loop {
            let last = cur.pop()?;
            self.used[last] = false;
            if let Some(t) = self.next_unused(last + 1) {
                self.used[t] = true;
                cur.push(t);
                if self.fill(&mut cur) {
                    self.current = Some(cur.clone());
                    return Some(cur);
                }
                return None;
            }
        }
    }
}

/// For each position of `ts` and each field its test reads: the position in `ts` of the last
/// earlier test that writes the field, as the test (None: the initial value).
fn last_writers(ts: &[Test], access: &Access) -> Vec<BTreeMap<usize, Option<Test>>> {
    ts.iter()
        .enumerate()
        .map(|(i, &t)| {
            access.reads[t]
                .iter()
                .map(|&f| {
                    let w = ts[..i]
                        .iter()
                        .rev()
                        .find(|&&u| access.writes[u].contains(&f))
                        .copied();
                    (f, w)
                })
                .collect()
        })
        .collect()
}

/// The last-writer dependence-aware k-bounded algorithm (algorithms section figure): a
/// k-permutation runs when some test in it would read a field last written by a different test
/// (or by none) than in the default order. For the section's four-test example this selects
/// 1, 6, 18 and 21 permutations for k = 1..4 (the figure prints 1, 5, 18, 20; see
/// docs/order-dependence.md).
pub fn dep_aware_last_writer(access: &Access, k: usize) -> Vec<Schedule> {
    let n = access.len();
    let default: Vec<Test> = (0..n).collect();
    let reference = last_writers(&default, access);
    k_permutations(n, k)
        .filter(|ts| {
            let here = last_writers(ts, access);
            ts.iter()
                .zip(&here)
                .any(|(&t, writers)| *writers != reference[t])
        })
        .collect()
}

/// The ISSTA'14 dependence-aware k-bounded algorithm. For k >= 2 (Figure 6): every test alone
/// (the isolation baseline, kPermutations(T, 1)), then each k-permutation in which some test
/// reads a field an earlier test of the permutation writes. For k = 1 (section 4.4): each test
/// that reads or writes anything, alone.
pub fn dep_aware(access: &Access, k: usize) -> Vec<Schedule> {
    let n = access.len();
    if k <= 1 {
        return (0..n)
            .filter(|&t| access.touches(t))
            .map(|t| vec![t])
            .collect();
    }
    let mut out: Vec<Schedule> = (0..n).map(|t| vec![t]).collect();
    out.extend(k_permutations(n, k).filter(|ts| {
        (1..ts.len()).any(|i| {
            ts[..i]
                .iter()
                .any(|&u| !access.writes[u].is_disjoint(&access.reads[ts[i]]))
        })
    }));
    out
}

/// A data dependence between two tests of the default order (ElectricTest section 3).
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct DataDependence {
    pub kind: DepKind,
    /// The test that reads.
    pub reader: Test,
    /// For read-after-write: the last earlier writer. For write-after-read: a later writer.
    pub writer: Test,
    pub fields: Vec<usize>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum DepKind {
    /// `reader` reads a value `writer` wrote last: `writer` must run before `reader`.
    ReadAfterWrite,
    /// `writer` overwrites, after `reader`, a value `reader` read: `writer` must not run
    /// between `reader`'s writer and `reader` (an anti-dependence).
    WriteAfterRead,
}

impl DepKind {
    pub fn name(self) -> &'static str {
        match self {
            DepKind::ReadAfterWrite => "read-after-write",
            DepKind::WriteAfterRead => "write-after-read",
        }
    }
}

/// ElectricTest's data dependencies of the default order: each read-after-write dependence
/// (reader -> last earlier writer) and each write-after-read anti-dependence (reader -> every
/// later writer of a field it read), fields grouped per pair. Candidates only: a data
/// dependence need not change any outcome.
pub fn data_dependences(access: &Access) -> Vec<DataDependence> {
    let n = access.len();
    let mut pairs: BTreeMap<(DepKind, Test, Test), Vec<usize>> = BTreeMap::new();
    for reader in 0..n {
        for &f in &access.reads[reader] {
            if let Some(w) = (0..reader).rev().find(|&u| access.writes[u].contains(&f)) {
                pairs
                    .entry((DepKind::ReadAfterWrite, reader, w))
                    .or_default()
                    .push(f);
            }
            for w in reader + 1..n {
                if access.writes[w].contains(&f) {
                    pairs
                        .entry((DepKind::WriteAfterRead, reader, w))
                        .or_default()
                        .push(f);
                }
            }
        }
    }
    pairs
        .into_iter()
        .map(|((kind, reader, writer), fields)| DataDependence {
            kind,
            reader,
            writer,
            fields,
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn command_line_names_are_the_report_names() {
        use clap::ValueEnum;
        for a in Algo::value_variants() {
            let value = a.to_possible_value().expect("no variant is skipped");
            assert_eq!(value.get_name(), a.name());
            assert!(value.get_help().is_none(), "--help lists names only");
        }
    }

    /// DTDetector algorithms section figure: Test1 reads x; Test2 reads y; Test3 writes x;
    /// Test4 reads x and writes y.
    fn figure() -> Access {
        Access::from_names(&[
            (vec!["x"], vec![]),
            (vec!["y"], vec![]),
            (vec![], vec!["x"]),
            (vec!["x"], vec!["y"]),
        ])
    }

    #[test]
    fn k_permutations_are_complete_distinct_and_lexicographic() {
        let all: Vec<_> = k_permutations(3, 2).collect();
        assert_eq!(
            all,
            vec![
                vec![0, 1],
                vec![0, 2],
                vec![1, 0],
                vec![1, 2],
                vec![2, 0],
                vec![2, 1]
            ]
        );
        assert_eq!(k_permutations(4, 4).count(), 24);
        assert_eq!(k_permutations(4, 3).count(), 24);
        assert_eq!(k_permutations(5, 1).count(), 5);
        assert_eq!(k_permutations(2, 3).count(), 0);
        assert_eq!(k_permutations(0, 0).count(), 0);
        assert_eq!(permutation_count(4, 2), 12);
        assert_eq!(permutation_count(10, 3), 720);
    }

    #[test]
    fn last_writer_counts_of_the_algorithms_section_figure() {
        // Worked by hand in docs/order-dependence.md: 1, 6, 18, 21 (the figure prints 5 for
        // k = 2 because its list omits <Test3, Test1>, and 20 for k = 4).
        let a = figure();
        let counts: Vec<usize> = (1..=4)
            .map(|k| dep_aware_last_writer(&a, k).len())
            .collect();
        assert_eq!(counts, vec![1, 6, 18, 21]);
        assert_eq!(dep_aware_last_writer(&a, 1), vec![vec![3]]);
        // The five the paper lists for k = 2, plus <Test3, Test1>: Test1 would read the x
        // Test3 wrote instead of the initial x.
        assert_eq!(
            dep_aware_last_writer(&a, 2),
            vec![
                vec![0, 3],
                vec![1, 3],
                vec![2, 0],
                vec![3, 0],
                vec![3, 1],
                vec![3, 2]
            ]
        );
        // The three 4-permutations left out are those that keep every last writer: Test4 last
        // (after Test3, and after Test2 so Test2 reads the initial y), Test1 before Test3.
        let all: Vec<_> = k_permutations(4, 4).collect();
        let kept = dep_aware_last_writer(&a, 4);
        let skipped: Vec<_> = all.into_iter().filter(|p| !kept.contains(p)).collect();
        assert_eq!(
            skipped,
            vec![vec![0, 1, 2, 3], vec![0, 2, 1, 3], vec![1, 0, 2, 3]]
        );
    }

    #[test]
    fn exhaustive_and_pairwise_counts() {
        let ids: Vec<String> = (1..=4).map(|i| format!("Test{i}")).collect();
        let a = figure();
        let p = Params {
            k: 2,
            ..Params::default()
        };
        assert_eq!(
            schedules(Algo::Pairwise, &ids, &a, p, &[false; 4])
                .unwrap()
                .len(),
            12
        );
        assert_eq!(
            schedules(Algo::Exhaustive, &ids, &a, p, &[false; 4])
                .unwrap()
                .len(),
            12
        );
        let p3 = Params { k: 3, ..p };
        assert_eq!(
            schedules(Algo::Exhaustive, &ids, &a, p3, &[false; 4])
                .unwrap()
                .len(),
            24
        );
        assert_eq!(
            schedules(Algo::Pairwise, &ids, &a, p3, &[false; 4])
                .unwrap()
                .len(),
            12
        );
        assert_eq!(
            schedules(Algo::Isolate, &ids, &a, p, &[false; 4])
                .unwrap()
                .len(),
            4
        );
        assert_eq!(
            schedules(Algo::Reverse, &ids, &a, p, &[false; 4]).unwrap(),
            vec![vec![3, 2, 1, 0]]
        );
        assert_eq!(
            schedules(Algo::Twice, &ids, &a, p, &[false; 4]).unwrap()[1],
            vec![1, 1]
        );
    }

    #[test]
    fn issta_dep_aware_on_the_figure() {
        let a = figure();
        // k = 1: every test touches a field, so all four run alone.
        assert_eq!(dep_aware(&a, 1).len(), 4);
        // k = 2: the four singles, then the pairs whose second test reads what the first
        // writes: <Test3, Test1> (x), <Test3, Test4> (x), <Test4, Test2> (y).
        assert_eq!(
            dep_aware(&a, 2),
            vec![
                vec![0],
                vec![1],
                vec![2],
                vec![3],
                vec![2, 0],
                vec![2, 3],
                vec![3, 1]
            ]
        );
        // A test that touches nothing is only ever run alone.
        let b = Access::from_names(&[(vec!["x"], vec![]), (vec![], vec![]), (vec![], vec!["x"])]);
        assert_eq!(dep_aware(&b, 1), vec![vec![0], vec![2]]);
        assert_eq!(
            dep_aware(&b, 2),
            vec![vec![0], vec![1], vec![2], vec![2, 0]]
        );
    }

    #[test]
    fn too_many_permutations_are_refused() {
        let ids: Vec<String> = (0..400).map(|i| format!("T{i}")).collect();
        let a = Access::empty(400);
        let p = Params {
            k: 3,
            ..Params::default()
        };
        let err = schedules(Algo::Exhaustive, &ids, &a, p, &[false; 4]).unwrap_err();
        assert_eq!(err.count, 400 * 399 * 398);
    }

    #[test]
    fn too_big_tuscan_squares_are_refused() {
        // 4,473 tests (odd): 4,474 orders of 4,473 tests = 20,012,202 runs, over the cap;
        // 4,472 * 4,472 = 19,998,784 would pass.
        let n = 4_473;
        let ids: Vec<String> = (0..n).map(|i| format!("T{i}")).collect();
        let err = schedules(
            Algo::Tuscan,
            &ids,
            &Access::empty(n),
            Params::default(),
            &[],
        )
        .unwrap_err();
        assert_eq!(err.count, 20_012_202);
        assert!(
            err.to_string()
                .starts_with("tuscan over 4473 tests runs 20012202 tests")
        );
        const { assert!(4_472u128 * 4_472 <= MAX_TUSCAN_RUNS) };
    }

    #[test]
    fn random_depends_on_the_sorted_ids_and_the_seed_only() {
        let ids: Vec<String> = ["b", "c", "a", "d", "e"].map(String::from).to_vec();
        let shuffled: Vec<String> = ["e", "a", "d", "c", "b"].map(String::from).to_vec();
        let names = |ids: &[String], s: &Schedule| -> Vec<String> {
            s.iter().map(|&t| ids[t].clone()).collect()
        };
        let r1 = random(&ids, 5, 7);
        let r2 = random(&shuffled, 5, 7);
        for (a, b) in r1.iter().zip(&r2) {
            assert_eq!(names(&ids, a), names(&shuffled, b));
        }
        // A trial does not depend on how many follow it.
        assert_eq!(random(&ids, 2, 7), r1[..2].to_vec());
        assert_ne!(random(&ids, 5, 8), r1);
    }

    /// Every ordered pair of distinct tests that some schedule has as neighbours.
    fn adjacent_pairs(schedules: &[Schedule]) -> std::collections::BTreeSet<(Test, Test)> {
        schedules
            .iter()
            .flat_map(|s| s.windows(2).map(|w| (w[0], w[1])))
            .collect()
    }

    #[test]
    fn tuscan_squares_by_hand() {
        // n = 4: the row 0 1 3 2 (steps 1, 2, 3) shifted by 0..4.
        assert_eq!(
            tuscan(4),
            vec![
                vec![0, 1, 3, 2],
                vec![1, 2, 0, 3],
                vec![2, 3, 1, 0],
                vec![3, 0, 2, 1]
            ]
        );
        // n = 3: the square of 4 without test 3; 3 1 0 2... loses its 3.
        assert_eq!(
            tuscan(3),
            vec![vec![0, 1, 2], vec![1, 2, 0], vec![2, 1, 0], vec![0, 2, 1]]
        );
        assert_eq!(tuscan(1), vec![vec![0]]);
        assert!(tuscan(0).is_empty());
    }

    proptest::proptest! {
        /// Each schedule runs every test once, and every ordered pair is adjacent somewhere:
        /// n (n - 1) pairs in n orders (even n) or n + 1 (odd n).
        #[test]
        fn tuscan_covers_every_ordered_pair(n in 2usize..40) {
            let rows = tuscan(n);
            proptest::prop_assert_eq!(rows.len(), n + n % 2);
            for r in &rows {
                let mut sorted = r.clone();
                sorted.sort_unstable();
                proptest::prop_assert_eq!(sorted, (0..n).collect::<Vec<_>>());
            }
            proptest::prop_assert_eq!(adjacent_pairs(&rows).len(), n * (n - 1));
        }
    }

    #[test]
    fn triage_runs_the_failing_and_the_maybe_masked_tests_alone() {
        // The figure: Test1 reads x, Test2 reads y, Test3 writes x, Test4 reads x, writes y.
        // With Test2 failing: Test2 alone, then Test4 (it reads the x Test3 wrote); Test1 reads
        // x too, but nothing before it wrote x.
        let a = figure();
        assert_eq!(
            triage(&[false, true, false, false], &a),
            vec![vec![1], vec![3]]
        );
        // Without read/write sets every passing test may be masked.
        assert_eq!(
            triage(&[false, true, false, false], &Access::empty(4)),
            vec![vec![1], vec![0], vec![2], vec![3]]
        );
        // Recorded sets in which nobody touches shared state: only the failing test.
        let none: Vec<(Vec<&str>, Vec<&str>)> = vec![(vec![], vec![]); 4];
        assert_eq!(
            triage(&[false, true, false, false], &Access::from_names(&none)),
            vec![vec![1]]
        );
    }

    #[test]
    fn electric_test_dependences_of_the_figure() {
        let deps = data_dependences(&figure());
        let got: Vec<_> = deps
            .iter()
            .map(|d| (d.kind, d.reader, d.writer, d.fields.clone()))
            .collect();
        // Test4 reads the x Test3 wrote; Test3 overwrites the x Test1 read; Test4 overwrites
        // the y Test2 read.
        assert_eq!(
            got,
            vec![
                (DepKind::ReadAfterWrite, 3, 2, vec![0]),
                (DepKind::WriteAfterRead, 0, 2, vec![0]),
                (DepKind::WriteAfterRead, 1, 3, vec![1]),
            ]
        );
    }
}
