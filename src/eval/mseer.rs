//! The MSeer baseline (Gao and Wong, "MSeer: An Advanced Technique for Locating Multiple Bugs
//! in Parallel", IEEE TSE 2017), the second clustering of PAF's RQ1 (Table 5): failing tests
//! are clustered by the proximity of their suspiciousness rankings of statements.
//!
//! 1. Each failing test, with all passing tests, gives a ranking of the lines by Ochiai (PAF's
//!    evaluation obtained the rankings from GZoltar; MSeer itself used Crosstab). With one
//!    failing test, e_f is 1 for the lines it covers and Ochiai is 1/sqrt(1 + e_p): its lines in
//!    ascending e_p, then every other line tied at 0. Tied lines share the best rank
//!    (1 + the lines scoring strictly higher).
//! 2. The distance of two rankings is MSeer's revised Kendall tau: over every pair of lines
//!    ordered one way by one ranking and strictly the other way by the other (a pair tied in
//!    either is not counted), the sum of 1/r1(i) + 1/r2(i) + 1/r1(j) + 1/r2(j), so that
//!    disagreements among suspicious lines weigh more.
//! 3. The number of clusters and the initial medoids come from each test's potential, as in
//!    Chiu's subtractive clustering: radius r_a = half the 5%-winsorized mean distance,
//!    potential P_i = sum_j exp(-4 d_ij^2 / r_a^2); the test of highest potential is a medoid,
//!    potentials are revised by P_i -= P* exp(-4 d_i*^2 / r_b^2) with r_b = 1.5 r_a, and the next
//!    highest is accepted above 0.5 P_1, ends the search below 0.15 P_1, and in between is
//!    accepted when d_min / r_a + P / P_1 >= 1 (else it is set aside).
//! 4. K-medoids from those medoids: each test to its nearest medoid, each medoid moved to the
//!    member closest to the others in total, until nothing moves.
//!
//! Every choice among equals takes the lowest index, so the result is deterministic (a public
//! reimplementation of MSeer picks at random among equals).

/// Each failing test's ranking of lines, as the distance needs it.
#[derive(Clone, Debug, PartialEq)]
pub struct Ranking {
    /// The lines the test covered, as `(e_p, line)` in ascending order: descending Ochiai.
    lines: Vec<(u32, u32)>,
    /// The rank of each of `lines`, ties sharing the best.
    ranks: Vec<u32>,
}

impl Ranking {
    /// The ranking of a failing test that covered `covered` (lines) when the passing tests
    /// covered each line `ep[line]` times.
    pub fn new(covered: &[u32], ep: &[u32]) -> Ranking {
        let mut lines: Vec<(u32, u32)> = covered.iter().map(|&l| (ep[l as usize], l)).collect();
        lines.sort_unstable();
        let mut ranks = Vec::with_capacity(lines.len());
        for (i, (e, _)) in lines.iter().enumerate() {
            let tied_with_previous = i > 0 && lines[i - 1].0 == *e;
            ranks.push(if tied_with_previous {
                ranks[i - 1]
            } else {
                i as u32 + 1
            });
        }
        Ranking { lines, ranks }
    }

    /// The rank of the lines the test did not cover: all tied after its own.
    fn uncovered(&self) -> u32 {
        self.lines.len() as u32 + 1
    }
}

/// Where a line of the union of two tests' lines is.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Side {
    Both,
    First,
    Second,
}

/// MSeer's revised Kendall tau distance of two failing tests' rankings.
///
/// Only these pairs can be discordant (tied pairs never are, and every line neither test covers
/// is tied at 0 in both): a line only the first covers with one only the second covers
/// (always), and a line both cover with a line only one covers whose e_p is strictly smaller
/// (the first ranks it higher by Ochiai, the other not at all). One pass over the union in
/// ascending e_p sums them.
pub fn distance(a: &Ranking, b: &Ranking) -> f64 {
    // The union in (e_p, line) order, with each line's weight 1/r_a + 1/r_b.
    let (ua, ub) = (
        1.0 / f64::from(a.uncovered()),
        1.0 / f64::from(b.uncovered()),
    );
    let mut union: Vec<(u32, Side, f64)> = Vec::with_capacity(a.lines.len() + b.lines.len());
    let (mut i, mut j) = (0, 0);
    while i < a.lines.len() || j < b.lines.len() {
        let next = match (a.lines.get(i), b.lines.get(j)) {
            (Some(x), Some(y)) if x == y => Side::Both,
            (Some(x), Some(y)) if x < y => Side::First,
            (Some(_), None) => Side::First,
            _ => Side::Second,
        };
        match next {
            Side::Both => {
                let w = 1.0 / f64::from(a.ranks[i]) + 1.0 / f64::from(b.ranks[j]);
                union.push((a.lines[i].0, Side::Both, w));
                i += 1;
                j += 1;
            }
            Side::First => {
                union.push((a.lines[i].0, Side::First, 1.0 / f64::from(a.ranks[i]) + ub));
                i += 1;
            }
            Side::Second => {
                union.push((b.lines[j].0, Side::Second, ua + 1.0 / f64::from(b.ranks[j])));
                j += 1;
            }
        }
    }
    let (mut count_first, mut weight_first, mut count_second, mut weight_second) = (0, 0.0, 0, 0.0);
    // Lines covered by one test only, with e_p strictly below the current group's.
    let (mut below, mut below_weight) = (0u64, 0.0f64);
    let mut sum = 0.0;
    let mut k = 0;
    while k < union.len() {
        let group = union[k..]
            .iter()
            .take_while(|(e, _, _)| *e == union[k].0)
            .count();
        for &(_, side, w) in &union[k..k + group] {
            if side == Side::Both {
                sum += w * below as f64 + below_weight;
            }
        }
        for &(_, side, w) in &union[k..k + group] {
            match side {
                Side::Both => {}
                Side::First => {
                    count_first += 1;
                    weight_first += w;
                }
                Side::Second => {
                    count_second += 1;
                    weight_second += w;
                }
            }
            if side != Side::Both {
                below += 1;
                below_weight += w;
            }
        }
        k += group;
    }
    sum + f64::from(count_second) * weight_first + f64::from(count_first) * weight_second
}

/// Every pairwise distance.
pub fn distances(rankings: &[Ranking]) -> Vec<Vec<f64>> {
    let n = rankings.len();
    let mut d = vec![vec![0.0; n]; n];
    for i in 0..n {
        for j in i + 1..n {
            let v = distance(&rankings[i], &rankings[j]);
            d[i][j] = v;
            d[j][i] = v;
        }
    }
    d
}

/// The mean of `values` after the lowest and highest 5% (rounded up) are set to the nearest
/// value kept; the plain mean when that would leave nothing.
fn winsorized_mean(values: &mut [f64]) -> f64 {
    let n = values.len();
    if n == 0 {
        return 0.0;
    }
    values.sort_by(f64::total_cmp);
    let k = (n as f64 * 0.05).ceil() as usize;
    if 2 * k < n {
        let (lo, hi) = (values[k], values[n - k - 1]);
        values[..k].fill(lo);
        values[n - k..].fill(hi);
    }
    values.iter().sum::<f64>() / n as f64
}

/// The medoids the potentials choose, and the radius r_a.
pub fn initial_medoids(d: &[Vec<f64>]) -> (Vec<usize>, f64) {
    let n = d.len();
    let mut pairs: Vec<f64> = (0..n)
        .flat_map(|i| (i + 1..n).map(move |j| (i, j)))
        .map(|(i, j)| d[i][j])
        .collect();
    let ra = winsorized_mean(&mut pairs) / 2.0;
    if n == 0 {
        return (Vec::new(), ra);
    }
    if ra == 0.0 {
        return (vec![0], ra);
    }
    let alpha = 4.0 / (ra * ra);
    let beta = 4.0 / (1.5 * ra * 1.5 * ra);
    let mut p: Vec<f64> = (0..n)
        .map(|i| d[i].iter().map(|x| (-alpha * x * x).exp()).sum())
        .collect();
    let mut medoids: Vec<usize> = Vec::new();
    let mut first = 0.0;
    // Each round accepts a test (its potential drops to 0) or sets one aside (to 0), and ends
    // when the highest potential is below 0.15 P_1: at most 2n rounds.
    for _ in 0..2 * n + 1 {
        let (r, m) = p
            .iter()
            .copied()
            .enumerate()
            .fold((0, f64::NEG_INFINITY), |best, (i, v)| {
                if v > best.1 { (i, v) } else { best }
            });
        let accept = if medoids.is_empty() {
            first = m;
            true
        } else if m > 0.5 * first {
            true
        } else if m < 0.15 * first {
            break;
        } else {
            let dmin = medoids
                .iter()
                .map(|&k| d[r][k])
                .fold(f64::INFINITY, f64::min);
            dmin / ra + m / first >= 1.0
        };
        if accept {
            medoids.push(r);
            for i in 0..n {
                p[i] -= m * (-beta * d[i][r] * d[i][r]).exp();
            }
            p[r] = 0.0;
        } else {
            p[r] = 0.0;
        }
    }
    medoids.sort_unstable();
    (medoids, ra)
}

/// K-medoids from `medoids`: clusters of indices (each sorted, ordered by first member) and the
/// final medoids.
pub fn k_medoids(d: &[Vec<f64>], medoids: &[usize]) -> (Vec<Vec<usize>>, Vec<usize>) {
    let n = d.len();
    let mut medoids = medoids.to_vec();
    let mut label = vec![0usize; n];
    // Each round either lowers the total distance to the medoids or stops; the bound is a
    // guard only.
    for _ in 0..1000 {
        for (i, l) in label.iter_mut().enumerate() {
            *l = match medoids.iter().position(|&m| m == i) {
                Some(c) => c,
                None => (0..medoids.len()).fold(0, |best, c| {
                    if d[i][medoids[c]] < d[i][medoids[best]] {
                        c
                    } else {
                        best
                    }
                }),
            };
        }
        let mut moved = false;
        for (c, medoid) in medoids.iter_mut().enumerate() {
            let members: Vec<usize> = (0..n).filter(|&i| label[i] == c).collect();
            let cost = |i: usize| members.iter().map(|&k| d[i][k]).sum::<f64>();
            let mut best = (*medoid, cost(*medoid));
            for &i in &members {
                let c = cost(i);
                if c < best.1 {
                    best = (i, c);
                }
            }
            if best.0 != *medoid {
                *medoid = best.0;
                moved = true;
            }
        }
        if !moved {
            break;
        }
    }
    let mut clusters: Vec<Vec<usize>> = (0..medoids.len())
        .map(|c| (0..n).filter(|&i| label[i] == c).collect())
        .filter(|c: &Vec<usize>| !c.is_empty())
        .collect();
    clusters.sort_by_key(|c| c[0]);
    (clusters, medoids)
}

/// MSeer's clustering of failing tests.
#[derive(Clone, Debug, PartialEq)]
pub struct Clustering {
    /// Clusters of failing-test indices.
    pub clusters: Vec<Vec<usize>>,
    /// r_a, half the winsorized mean distance.
    pub radius: f64,
    /// How many medoids the potentials chose (the number of clusters).
    pub medoids: usize,
}

/// Clusters the failing tests whose covered lines are `covered` (one list per test), given how
/// many passing tests covered each line.
pub fn cluster(covered: &[&[u32]], ep: &[u32]) -> Clustering {
    let rankings: Vec<Ranking> = covered.iter().map(|c| Ranking::new(c, ep)).collect();
    let d = distances(&rankings);
    let (initial, radius) = initial_medoids(&d);
    let (clusters, _) = k_medoids(&d, &initial);
    Clustering {
        clusters,
        radius,
        medoids: initial.len(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The revised Kendall tau by its definition: every pair of lines of `universe`, scores by
    /// Ochiai of one failing test (1/sqrt(1 + e_p) when covered, else 0), ranks 1 + the lines
    /// scoring strictly higher.
    fn by_definition(a: &[u32], b: &[u32], ep: &[u32], universe: &[u32]) -> f64 {
        let score = |c: &[u32], l: u32| {
            if c.contains(&l) {
                1.0 / (1.0 + f64::from(ep[l as usize])).sqrt()
            } else {
                0.0
            }
        };
        let rank = |c: &[u32], l: u32| {
            1.0 + universe
                .iter()
                .filter(|&&k| score(c, k) > score(c, l))
                .count() as f64
        };
        let mut sum = 0.0;
        for (x, &i) in universe.iter().enumerate() {
            for &j in &universe[x + 1..] {
                let sa = (score(a, i) - score(a, j)).signum();
                let sb = (score(b, i) - score(b, j)).signum();
                let tied = score(a, i) == score(a, j) || score(b, i) == score(b, j);
                if !tied && sa != sb {
                    sum +=
                        1.0 / rank(a, i) + 1.0 / rank(b, i) + 1.0 / rank(a, j) + 1.0 / rank(b, j);
                }
            }
        }
        sum
    }

    #[test]
    fn distance_by_hand() {
        // Lines 0..3 with e_p 0, 1, 1, 2. Test a covers 0, 1, 3: ranks 1, 2, 3 (uncovered 4);
        // test b covers 1, 2: both rank 1 (tied at e_p 1; uncovered 3).
        let ep = [0, 1, 1, 2];
        let a = Ranking::new(&[0, 1, 3], &ep);
        let b = Ranking::new(&[1, 2], &ep);
        assert_eq!(a.ranks, [1, 2, 3]);
        assert_eq!(b.ranks, [1, 1]);
        // Discordant pairs: (0, 2): a ranks 0 first, b ranks 2 first: 1/1 + 1/3 + 1/4 + 1/1;
        // (3, 2): a ranks 3 (rank 3) above 2 (4), b ranks 2 (1) above 3 (3):
        // 1/3 + 1/3 + 1/4 + 1/1; (1, 0): both covered by a (0 above 1), b ranks 1 above 0:
        // 1/2 + 1/1 + 1/1 + 1/3. Not discordant: (1, 2): tied in b; (1, 3): same order;
        // (0, 3): tied in b.
        let expected = (1.0 + 1.0 / 3.0 + 0.25 + 1.0)
            + (1.0 / 3.0 + 1.0 / 3.0 + 0.25 + 1.0)
            + (0.5 + 1.0 + 1.0 + 1.0 / 3.0);
        assert!((distance(&a, &b) - expected).abs() < 1e-12);
        assert!((distance(&b, &a) - expected).abs() < 1e-12);
        assert!((by_definition(&[0, 1, 3], &[1, 2], &ep, &[0, 1, 2, 3]) - expected).abs() < 1e-12);
        assert_eq!(distance(&a, &a), 0.0);
    }

    #[test]
    fn the_fast_distance_is_the_definition() {
        use rand::{RngExt, SeedableRng};
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(3);
        for _ in 0..200 {
            let lines = rng.random_range(1..9u32);
            let ep: Vec<u32> = (0..lines).map(|_| rng.random_range(0..4)).collect();
            let pick = |rng: &mut rand_chacha::ChaCha8Rng| -> Vec<u32> {
                (0..lines).filter(|_| rng.random_bool(0.5)).collect()
            };
            let (a, b) = (pick(&mut rng), pick(&mut rng));
            let universe: Vec<u32> = (0..lines).collect();
            let want = by_definition(&a, &b, &ep, &universe);
            let got = distance(&Ranking::new(&a, &ep), &Ranking::new(&b, &ep));
            assert!(
                (want - got).abs() < 1e-9,
                "{a:?} {b:?} {ep:?}: {want} {got}"
            );
        }
    }

    /// The suite of `testdata/eval/spectrum/` (tests/eval.rs describes it), lines by number.
    #[test]
    fn the_spectrum_suite_by_hand() {
        let mut ep = vec![0u32; 51];
        for l in [10, 11, 13, 14, 30, 40, 41] {
            ep[l] = 3;
        }
        let f1: &[u32] = &[10, 11, 12, 14];
        let f3: &[u32] = &[30, 40, 41, 42, 43];
        let f5: &[u32] = &[40, 50];
        let (r1, r3, r5) = (
            Ranking::new(f1, &ep),
            Ranking::new(f3, &ep),
            Ranking::new(f5, &ep),
        );
        // fail1 and fail3 share no line: every line of one against every line of the other.
        // Weights 1/r_1 + 1/r_3 (uncovered: 5 and 6): fail1's 12: 1 + 1/6, its 10, 11, 14:
        // 1/2 + 1/6, sum 19/6; fail3's 42, 43: 1/5 + 1, its 30, 40, 41: 1/5 + 1/3, sum 4.
        // 5 * 19/6 + 4 * 4 = 191/6.
        assert!((distance(&r1, &r3) - 191.0 / 6.0).abs() < 1e-12);
        // fail1 and fail5 share none either (uncovered: 5 and 3): fail1's lines weigh
        // 1 + 1/3 and 3 * (1/2 + 1/3), sum 23/6; fail5's 50: 1/5 + 1, 40: 1/5 + 1/2, sum 19/10.
        // 2 * 23/6 + 4 * 19/10 = 229/15.
        assert!((distance(&r1, &r5) - 229.0 / 15.0).abs() < 1e-12);
        // fail3 and fail5 share 40 (e_p 3). Only-one lines: fail3's 42, 43 (4/3 each), 30, 41
        // (2/3 each), sum 4; fail5's 50 (1/6 + 1). Pairs across: 1 * 4 + 4 * 7/6 = 26/3. Line 40
        // (1/3 + 1/2) against the only-one lines of smaller e_p, 42, 43 and 50 (30 and 41 tie
        // with it): 3 * 5/6 + (4/3 + 4/3 + 7/6) = 19/3. In all 15.
        assert!((distance(&r3, &r5) - 15.0).abs() < 1e-12);
        let c = cluster(&[f1, f1, f3, f3, f5], &ep);
        assert!((c.radius - 1409.0 / 150.0).abs() < 1e-12);
        assert_eq!(c.clusters, [vec![0, 1], vec![2, 3], vec![4]]);
        assert_eq!(c.medoids, 3);
    }

    #[test]
    fn two_groups_of_rankings_give_two_clusters() {
        // Tests 0 and 1 cover lines 0-2, tests 2 and 3 lines 3-5, all with e_p 0: the two
        // groups are at distance 0 within and far apart, so two medoids, two clusters.
        let ep = [0; 6];
        let (x, y): (&[u32], &[u32]) = (&[0, 1, 2], &[3, 4, 5]);
        let c = cluster(&[x, x, y, y], &ep);
        assert_eq!(c.clusters, [vec![0, 1], vec![2, 3]]);
        assert_eq!(c.medoids, 2);
        // All equal: one cluster.
        let c = cluster(&[x, x, x], &ep);
        assert_eq!(c.clusters, [vec![0, 1, 2]]);
        assert_eq!(cluster(&[], &ep).clusters, Vec::<Vec<usize>>::new());
    }

    #[test]
    fn winsorizing_clips_the_extremes() {
        let mut v: Vec<f64> = (0..19).map(f64::from).collect();
        v[18] = 100.0;
        // Sorted: 0, 1, ..., 17, 100; k = ceil(0.95) = 1: 0 -> 1, 100 -> 17.
        let want = (1.0 + (1..=17).sum::<i32>() as f64 + 17.0) / 19.0;
        assert!((winsorized_mean(&mut v) - want).abs() < 1e-12);
    }
}
