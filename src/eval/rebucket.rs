//! Stack-trace clustering baselines: ReBucket's position-dependent model (Dang et al., ICSE 2012)
//! and exact signature grouping.
//!
//! ReBucket's similarity of call stacks C1 and C2 (frames numbered from the top, 0-based) is the
//! best common subsequence S of frames, each matched pair (i, j) weighted by
//! e^(-c min(i, j)) e^(-o |i - j|), over sum_{k < l} e^(-c k), l the length of the shorter stack:
//! frames near the top count most (c), and a match far out of alignment counts less (o).
//! Stacks are then merged by agglomerative clustering, complete linkage, while the distance
//! 1 - similarity of the two closest clusters is at most d. ReBucket trains c, o and d on
//! historical buckets; a generated suite has none, so fixed values are used ([`Params::DEFAULT`]).

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

/// Clusters stacks with ReBucket: agglomerative, complete linkage, merging while the closest
/// two clusters are at distance at most `p.d`. Identical stacks start in one cluster (their
/// distance is 0 and complete linkage treats them alike). Returns clusters of stack indices,
/// each sorted, ordered by their first member; ties merge the pair with the smallest indices.
pub fn cluster<T: PartialEq + Eq + std::hash::Hash>(
    stacks: &[Vec<T>],
    p: Params,
) -> Vec<Vec<usize>> {
    // Distinct stacks, in order of first appearance.
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
    let n = distinct.len();
    let mut dist = vec![vec![0.0f64; n]; n];
    for i in 0..n {
        for j in i + 1..n {
            let d = 1.0 - similarity(distinct[i], distinct[j], p);
            dist[i][j] = d;
            dist[j][i] = d;
        }
    }
    // Live clusters as lists of distinct-stack indices; the complete-linkage distance between
    // two clusters is kept in `dist` at their lowest index.
    let mut alive: Vec<bool> = vec![true; n];
    let mut parts: Vec<Vec<usize>> = (0..n).map(|i| vec![i]).collect();
    loop {
        let mut best: Option<(f64, usize, usize)> = None;
        for i in 0..n {
            if !alive[i] {
                continue;
            }
            for j in i + 1..n {
                if alive[j] && best.is_none_or(|(d, _, _)| dist[i][j] < d) {
                    best = Some((dist[i][j], i, j));
                }
            }
        }
        let Some((d, i, j)) = best else {
            break;
        };
        if d > p.d {
            break;
        }
        alive[j] = false;
        let moved = std::mem::take(&mut parts[j]);
        parts[i].extend(moved);
        for k in 0..n {
            if alive[k] && k != i {
                let merged = dist[i][k].max(dist[j][k]);
                dist[i][k] = merged;
                dist[k][i] = merged;
            }
        }
    }
    let mut out: Vec<Vec<usize>> = (0..n)
        .filter(|&i| alive[i])
        .map(|i| {
            let mut c: Vec<usize> = parts[i]
                .iter()
                .flat_map(|&k| members[k].iter().copied())
                .collect();
            c.sort_unstable();
            c
        })
        .collect();
    out.sort_by_key(|c| c[0]);
    out
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
        assert_eq!(group_by_key(&["x", "y", "x"]), [vec![0, 2], vec![1]]);
    }
}
