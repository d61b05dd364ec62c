//! Stack-trace clustering baselines: ReBucket's position-dependent model (Dang et al., ICSE 2012)
//! and exact signature grouping.
//!
//! ReBucket's similarity of call stacks C1 and C2 (frames numbered from the top, 0-based) is the
//! best common subsequence S of frames, each matched pair (i, j) weighted by
//! e^(-c min(i, j)) e^(-o |i - j|), over sum_{k < l} e^(-c k), l the length of the shorter stack:
//! frames near the top count most (c), and a match far out of alignment counts less (o).
//! Stacks are then merged by agglomerative clustering, complete linkage, while the distance
//! 1 - similarity of the two closest clusters is at most d. ReBucket trains c, o and d on
//! historical buckets by the F-measure of its clustering; a generated suite has none, so
//! `paf eval` reports both the fixed values [`Params::DEFAULT`] (untrained) and [`train`] on the
//! truth it is given (in-sample: the same data it is measured on).

use std::collections::HashMap;

/// ReBucket's parameters.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize)]
pub struct Params {
    /// Weight of a frame's distance from the top of the stack.
    pub c: f64,
    /// Weight of the offset between two matched frames.
    pub o: f64,
    /// Largest distance (1 - similarity) at which two clusters still merge.
    pub d: f64,
}

impl Params {
    /// c = 1 and o = 1 (the middle of the [0, 2] range ReBucket's training searches), d = 0.5.
    pub const DEFAULT: Params = Params {
        c: 1.0,
        o: 1.0,
        d: 0.5,
    };
}

/// ReBucket's position-dependent similarity of two stacks (innermost frame first), in [0, 1].
/// Two empty stacks are the same (1); an empty and a non-empty one share nothing (0).
pub fn similarity<T: PartialEq>(a: &[T], b: &[T], p: Params) -> f64 {
    if a.is_empty() || b.is_empty() {
        return if a.is_empty() && b.is_empty() {
            1.0
        } else {
            0.0
        };
    }
    // best[i][j]: the best weight of a common subsequence of a[..i] and b[..j].
    let mut best = vec![vec![0.0f64; b.len() + 1]; a.len() + 1];
    for i in 1..=a.len() {
        for j in 1..=b.len() {
            let mut v = best[i - 1][j].max(best[i][j - 1]);
            if a[i - 1] == b[j - 1] {
                let (x, y) = (i - 1, j - 1);
                let w = (-p.c * x.min(y) as f64).exp() * (-p.o * x.abs_diff(y) as f64).exp();
                v = v.max(best[i - 1][j - 1] + w);
            }
            best[i][j] = v;
        }
    }
    let l = a.len().min(b.len());
    let norm: f64 = (0..l).map(|k| (-p.c * k as f64).exp()).sum();
    (best[a.len()][b.len()] / norm).min(1.0)
}

/// Stacks with equal frames merged: the distinct stacks in order of first appearance, and the
/// indices of the stacks equal to each.
struct Distinct<'a, T> {
    stacks: Vec<&'a Vec<T>>,
    members: Vec<Vec<usize>>,
}

impl<'a, T: Eq + std::hash::Hash> Distinct<'a, T> {
    fn of(stacks: &'a [Vec<T>]) -> Self {
        let mut distinct: Vec<&Vec<T>> = Vec::new();
        let mut of: HashMap<&Vec<T>, usize> = HashMap::new();
        let mut members: Vec<Vec<usize>> = Vec::new();
        for (i, s) in stacks.iter().enumerate() {
            let k = *of.entry(s).or_insert_with(|| {
                distinct.push(s);
                members.push(Vec::new());
                distinct.len() - 1
            });
            members[k].push(i);
        }
        Distinct {
            stacks: distinct,
            members,
        }
    }

    /// The distance 1 - similarity of every two distinct stacks.
    fn distances(&self, p: Params) -> Vec<Vec<f64>> {
        let n = self.stacks.len();
        let mut dist = vec![vec![0.0f64; n]; n];
        for (i, j) in (0..n).flat_map(|i| (i + 1..n).map(move |j| (i, j))) {
            let d = 1.0 - similarity(self.stacks[i], self.stacks[j], p);
            dist[i][j] = d;
            dist[j][i] = d;
        }
        dist
    }

    /// The clusters of stack indices after `merges` (each sorted, ordered by first member).
    fn clusters(&self, merges: &[Merge]) -> Vec<Vec<usize>> {
        let n = self.stacks.len();
        let mut parts: Vec<Vec<usize>> = (0..n).map(|i| vec![i]).collect();
        for m in merges {
            let moved = std::mem::take(&mut parts[m.absorbed]);
            parts[m.kept].extend(moved);
        }
        let mut out: Vec<Vec<usize>> = parts
            .iter()
            .filter(|p| !p.is_empty())
            .map(|p| {
                let mut c: Vec<usize> = p
                    .iter()
                    .flat_map(|&k| self.members[k].iter().copied())
                    .collect();
                c.sort_unstable();
                c
            })
            .collect();
        out.sort_by_key(|c| c[0]);
        out
    }
}

/// One step of agglomerative clustering: the cluster `absorbed` joins `kept` at `distance`.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Merge {
    distance: f64,
    kept: usize,
    absorbed: usize,
}

/// Every merge of agglomerative clustering with complete linkage, closest pair first (ties: the
/// pair with the smallest indices), until one cluster is left. Complete linkage never merges
/// at a smaller distance than before, so cutting the list at a threshold d gives the clustering
/// that merges while the closest two clusters are at most d apart.
fn merges(mut dist: Vec<Vec<f64>>) -> Vec<Merge> {
    let n = dist.len();
    let mut alive: Vec<bool> = vec![true; n];
    let mut out = Vec::new();
    loop {
        let mut best: Option<(f64, usize, usize)> = None;
        for i in (0..n).filter(|&i| alive[i]) {
            for j in (i + 1..n).filter(|&j| alive[j]) {
                if best.is_none_or(|(d, _, _)| dist[i][j] < d) {
                    best = Some((dist[i][j], i, j));
                }
            }
        }
        let Some((distance, i, j)) = best else {
            break;
        };
        alive[j] = false;
        for k in 0..n {
            if alive[k] && k != i {
                let merged = dist[i][k].max(dist[j][k]);
                dist[i][k] = merged;
                dist[k][i] = merged;
            }
        }
        out.push(Merge {
            distance,
            kept: i,
            absorbed: j,
        });
    }
    out
}

/// Clusters stacks with ReBucket: agglomerative, complete linkage, merging while the closest
/// two clusters are at distance at most `p.d`. Identical stacks start in one cluster (their
/// distance is 0 and complete linkage treats them alike). Returns clusters of stack indices,
/// each sorted, ordered by their first member; ties merge the pair with the smallest indices.
pub fn cluster<T: PartialEq + Eq + std::hash::Hash>(
    stacks: &[Vec<T>],
    p: Params,
) -> Vec<Vec<usize>> {
    let distinct = Distinct::of(stacks);
    let all = merges(distinct.distances(p));
    let kept = all.iter().take_while(|m| m.distance <= p.d).count();
    distinct.clusters(&all[..kept])
}

/// The values of c and o training tries: 0 to 2 in steps of 0.1 (the range ReBucket's training
/// searches).
pub fn grid() -> Vec<f64> {
    (0..=20).map(|i| f64::from(i) / 10.0).collect()
}

/// ReBucket's training: the parameters whose clustering of `stacks` scores best by `objective`
/// (higher is better), with its score. c and o range over [`grid`]; for each, d takes every
/// distance at which a merge happens (and 0), since only those change the clustering. Ties
/// keep the first found, in order of c, o, then d ascending. `None` when the objective never
/// scores (it returns `None`).
pub fn train<T: PartialEq + Eq + std::hash::Hash>(
    stacks: &[Vec<T>],
    mut objective: impl FnMut(&[Vec<usize>]) -> Option<f64>,
) -> Option<(Params, f64)> {
    let distinct = Distinct::of(stacks);
    let mut best: Option<(Params, f64)> = None;
    for &c in &grid() {
        for &o in &grid() {
            let p = Params { c, o, d: 0.0 };
            let all = merges(distinct.distances(p));
            // Cut after k merges, where the next merge is farther (or there is none).
            let cuts = (0..=all.len()).filter(|&k| {
                let here = if k == 0 { 0.0 } else { all[k - 1].distance };
                all.get(k).is_none_or(|next| next.distance > here)
            });
            for k in cuts {
                let d = if k == 0 { 0.0 } else { all[k - 1].distance };
                let Some(score) = objective(&distinct.clusters(&all[..k])) else {
                    continue;
                };
                if best.is_none_or(|(_, s)| score > s) {
                    best = Some((Params { c, o, d }, score));
                }
            }
        }
    }
    best
}

/// Groups items with equal keys, in order of first appearance.
pub fn group_by_key<K: Eq + std::hash::Hash>(keys: &[K]) -> Vec<Vec<usize>> {
    let mut index: HashMap<&K, usize> = HashMap::new();
    let mut out: Vec<Vec<usize>> = Vec::new();
    for (i, k) in keys.iter().enumerate() {
        let g = *index.entry(k).or_insert_with(|| {
            out.push(Vec::new());
            out.len() - 1
        });
        out[g].push(i);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() < 1e-12
    }

    #[test]
    fn similarity_by_hand() {
        let p = Params {
            c: 1.0,
            o: 1.0,
            d: 0.5,
        };
        // Identical stacks: 1.
        assert!(close(
            similarity(&["a", "b", "c"], &["a", "b", "c"], p),
            1.0
        ));
        // Same top frame only: 1 / (1 + e^-1).
        let e1 = (-1.0f64).exp();
        assert!(close(
            similarity(&["a", "x"], &["a", "y"], p),
            1.0 / (1.0 + e1)
        ));
        // [x, a] against [a]: the only match is a at (1, 0): e^-0 e^-1 = e^-1, over l = 1: e^-1.
        assert!(close(similarity(&["x", "a"], &["a"], p), e1));
        // Nothing in common: 0; empty stacks.
        assert_eq!(similarity(&["a"], &["b"], p), 0.0);
        assert_eq!(similarity::<&str>(&[], &[], p), 1.0);
        assert_eq!(similarity(&[], &["a"], p), 0.0);
        // With c = o = 0 every match weighs 1: the longest common subsequence over l.
        let flat = Params {
            c: 0.0,
            o: 0.0,
            d: 0.5,
        };
        assert!(close(
            similarity(&["a", "b", "c"], &["b", "c", "d", "e"], flat),
            2.0 / 3.0
        ));
    }

    #[test]
    fn clusters_by_hand() {
        let p = Params {
            c: 1.0,
            o: 1.0,
            d: 0.5,
        };
        // s0 = s2 = [a, b]; s1 = [a, c] (similarity 1/(1 + e^-1) = 0.73, distance 0.27);
        // s3 = [z] (distance 1 to all).
        let stacks = vec![vec!["a", "b"], vec!["a", "c"], vec!["a", "b"], vec!["z"]];
        assert_eq!(cluster(&stacks, p), [vec![0, 1, 2], vec![3]]);
        // With d = 0.2 the 0.27 step is too far.
        let tight = Params { d: 0.2, ..p };
        assert_eq!(cluster(&stacks, tight), [vec![0, 2], vec![1], vec![3]]);
        // d = 1 merges everything (every distance is at most 1).
        let loose = Params { d: 1.0, ..p };
        assert_eq!(cluster(&stacks, loose), [vec![0, 1, 2, 3]]);
        assert_eq!(group_by_key(&["x", "y", "x"]), [vec![0, 2], vec![1]]);
    }

    #[test]
    fn training_finds_the_parameters_of_the_true_clusters() {
        // s0 = [a, b], s1 = [a, c], s2 = [z]; the objective rewards exactly {0, 1} and {2}.
        // With c = o = 0 the distance of s0 and s1 is 1 - 1/2 = 1/2 (one of two frames
        // matches), s2 is at 1 from both: cutting after the first merge (d = 1/2) gives
        // {0, 1}, {2}. The grid's first (c, o) is (0, 0), and its first cut scoring 1 is that.
        let stacks = vec![vec!["a", "b"], vec!["a", "c"], vec!["z"]];
        let want = [vec![0, 1], vec![2]];
        let (p, score) = train(&stacks, |c| Some(if c == want { 1.0 } else { 0.0 })).unwrap();
        assert_eq!((p.c, p.o, p.d, score), (0.0, 0.0, 0.5, 1.0));
        assert!(train(&stacks, |_| None).is_none());
        assert_eq!(cluster(&stacks, p), want);
    }
}
