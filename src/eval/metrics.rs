//! The metrics of PAF's evaluation (section 5), as pure functions of rankings and clusterings:
//! APFD and its curve (RQ3), the clustering F-measure and purity (RQ1), and alarm precision and
//! recall (RQ2).
//!
//! Tests and faults are plain indices here; [`super`] maps ids to them.

use serde::Serialize;

/// APFD of one ranking (PAF Eq. 2).
#[derive(Clone, Debug, PartialEq)]
pub struct Apfd {
    /// The APFD value; `None` (undefined) when nothing is ranked or the truth names no fault.
    pub value: Option<f64>,
    /// Items ranked.
    pub n: usize,
    /// Faults in the truth, detected or not.
    pub m: usize,
    /// TF_i (1-based rank of the first item revealing fault i) for each fault, `None` when no
    /// ranked item reveals it.
    pub first: Vec<Option<usize>>,
}

impl Apfd {
    /// The sum of TF_i over the detected faults.
    pub fn tf_sum(&self) -> u64 {
        self.first.iter().flatten().map(|&t| t as u64).sum()
    }

    /// The faults no ranked item reveals.
    pub fn undetected(&self) -> Vec<usize> {
        (0..self.m).filter(|&f| self.first[f].is_none()).collect()
    }
}

/// APFD of `items`, a ranking in which item k reveals the faults `items[k]` (indices below `m`).
///
/// APFD = 1 - (TF_1 + ... + TF_m)/(n m) + 1/(2n). A fault no item reveals is kept in `m` and
/// adds nothing to the area under the curve (the NAPFD convention of Qu et al.: with p the
/// share of faults detected, APFD = p - sum/(n m) + p/(2n), which is Eq. 2 when p = 1). The value
/// is computed as one exact integer ratio, sum of (2(n - TF_i) + 1) over 2 n m.
pub fn apfd(items: &[Vec<usize>], m: usize) -> Apfd {
    let n = items.len();
    let mut first: Vec<Option<usize>> = vec![None; m];
    for (k, faults) in items.iter().enumerate() {
        for &f in faults {
            if f < m && first[f].is_none() {
                first[f] = Some(k + 1);
            }
        }
    }
    let value = (n > 0 && m > 0).then(|| {
        let num: u64 = first
            .iter()
            .flatten()
            .map(|&tf| 2 * (n - tf) as u64 + 1)
            .sum();
        num as f64 / (2 * n as u64 * m as u64) as f64
    });
    Apfd { value, n, m, first }
}

/// The APFD curve (PAF Figure 4): after examining k of the n items (x = k/n), the share of the m
/// faults detected (y), for k = 0..=n. Joined by straight lines, the area under it is the APFD.
pub fn curve(items: &[Vec<usize>], m: usize) -> Vec<(f64, f64)> {
    let n = items.len();
    let mut seen = vec![false; m];
    let mut found = 0usize;
    let mut out = Vec::with_capacity(n + 1);
    out.push((0.0, 0.0));
    for (k, faults) in items.iter().enumerate() {
        for &f in faults {
            if f < m && !seen[f] {
                seen[f] = true;
                found += 1;
            }
        }
        let y = if m == 0 { 0.0 } else { found as f64 / m as f64 };
        out.push(((k + 1) as f64 / n as f64, y));
    }
    out
}

/// How the F-measure weights the best match of each cluster.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, clap::ValueEnum)]
#[serde(rename_all = "lowercase")]
pub enum Weighting {
    /// Each true cluster (fault) by its size, with its best produced cluster: the standard
    /// definition (Steinbach, Karypis and Kumar 2000).
    Truth,
    /// Each produced cluster by its size, with its best true cluster: the formula as printed in
    /// PAF section 5.1.
    Produced,
}

/// The F-measure of a clustering, with its size and purity.
#[derive(Clone, Debug, PartialEq)]
pub struct FMeasure {
    /// `None` when there is nothing to measure (no test in any true cluster).
    pub value: Option<f64>,
    /// Produced clusters (non-empty ones).
    pub clusters: usize,
    /// Share of the tests that are in their cluster's majority fault; `None` as for `value`.
    pub purity: Option<f64>,
    pub weighting: Weighting,
}

/// F(C, O) = 2 P R / (P + R) with P = |C ∩ O|/|C| and R = |C ∩ O|/|O|, which is
/// 2 |C ∩ O| / (|C| + |O|); 0 when they do not meet.
fn f_pair(common: usize, produced: usize, truth: usize) -> f64 {
    if common == 0 {
        0.0
    } else {
        2.0 * common as f64 / (produced + truth) as f64
    }
}

/// The F-measure of `produced` against `truth`, both lists of clusters of test indices.
///
/// `produced` is a partition of the tests it holds; `truth` clusters (one per fault) may overlap
/// when a test reveals several faults. With `Weighting::Truth`, the value is the sum over true
/// clusters O_j of |O_j|/N max_i F(C_i, O_j), N = sum |O_j|; with `Weighting::Produced`, the sum
/// over produced clusters C_i of |C_i|/N max_j F(C_i, O_j), N = sum |C_i|. Purity is the sum
/// over C_i of max_j |C_i ∩ O_j|, over sum |C_i|. The weighted sum is divided by N last, so
/// equal clusterings give exactly 1.
pub fn f_measure(produced: &[Vec<usize>], truth: &[Vec<usize>], weighting: Weighting) -> FMeasure {
    let produced: Vec<&Vec<usize>> = produced.iter().filter(|c| !c.is_empty()).collect();
    let truth: Vec<&Vec<usize>> = truth.iter().filter(|c| !c.is_empty()).collect();
    let size = produced
        .iter()
        .chain(truth.iter())
        .flat_map(|c| c.iter())
        .max()
        .map_or(0, |&m| m + 1);
    // common[i][j] = |C_i ∩ O_j|, through a membership table of the true clusters.
    let mut member: Vec<Vec<usize>> = vec![Vec::new(); size];
    for (j, o) in truth.iter().enumerate() {
        for &t in o.iter() {
            member[t].push(j);
        }
    }
    let mut common = vec![vec![0usize; truth.len()]; produced.len()];
    for (i, c) in produced.iter().enumerate() {
        for &t in c.iter() {
            for &j in &member[t] {
                common[i][j] += 1;
            }
        }
    }
    let produced_total: usize = produced.iter().map(|c| c.len()).sum();
    let truth_total: usize = truth.iter().map(|o| o.len()).sum();
    let value = match weighting {
        Weighting::Truth => (truth_total > 0).then(|| {
            truth
                .iter()
                .enumerate()
                .map(|(j, o)| {
                    let best = (0..produced.len())
                        .map(|i| f_pair(common[i][j], produced[i].len(), o.len()))
                        .fold(0.0, f64::max);
                    o.len() as f64 * best
                })
                .sum::<f64>()
                / truth_total as f64
        }),
        Weighting::Produced => (produced_total > 0 && truth_total > 0).then(|| {
            produced
                .iter()
                .enumerate()
                .map(|(i, c)| {
                    let best = (0..truth.len())
                        .map(|j| f_pair(common[i][j], c.len(), truth[j].len()))
                        .fold(0.0, f64::max);
                    c.len() as f64 * best
                })
                .sum::<f64>()
                / produced_total as f64
        }),
    };
    let purity = (produced_total > 0 && truth_total > 0).then(|| {
        let majority: usize = common
            .iter()
            .map(|row| row.iter().copied().max().unwrap_or(0))
            .sum();
        majority as f64 / produced_total as f64
    });
    FMeasure {
        value,
        clusters: produced.len(),
        purity,
        weighting,
    }
}

/// Precision and recall of a set of alarms.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Alarms {
    /// Items raised as alarms ("no precondition violation").
    pub alarms: usize,
    /// Alarms that reveal a fault.
    #[serde(rename = "true")]
    pub true_alarms: usize,
    /// Items that reveal a fault, alarmed or not.
    pub relevant: usize,
    /// Items classified, alarmed or not.
    pub items: usize,
    /// true / alarms; `None` without alarms.
    pub precision: Option<f64>,
    /// true / relevant; `None` when nothing reveals a fault.
    pub recall: Option<f64>,
    /// (alarms - true) / (items - relevant): the share of the items that reveal no fault which
    /// are raised as alarms (for PAF, put in the local group); `None` when every item reveals
    /// a fault.
    pub false_alarm_share: Option<f64>,
}

/// Precision and recall of alarms over items; each item is `(alarmed, reveals a fault)`.
pub fn alarms(items: impl IntoIterator<Item = (bool, bool)>) -> Alarms {
    let (mut alarms, mut true_alarms, mut relevant, mut count) = (0, 0, 0, 0);
    for (alarmed, revealing) in items {
        alarms += usize::from(alarmed);
        true_alarms += usize::from(alarmed && revealing);
        relevant += usize::from(revealing);
        count += 1;
    }
    let (false_alarms, clean) = (alarms - true_alarms, count - relevant);
    Alarms {
        alarms,
        true_alarms,
        relevant,
        items: count,
        precision: (alarms > 0).then(|| true_alarms as f64 / alarms as f64),
        recall: (relevant > 0).then(|| true_alarms as f64 / relevant as f64),
        false_alarm_share: (clean > 0).then(|| false_alarms as f64 / clean as f64),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() < 1e-12
    }

    #[test]
    fn apfd_of_the_motivating_example_is_three_quarters() {
        // fTest1 (reveals the fault) before fTest2: n = 2, m = 1, TF_1 = 1:
        // 1 - 1/2 + 1/4 = 0.75.
        let a = apfd(&[vec![0], vec![]], 1);
        assert_eq!((a.n, a.m, a.tf_sum()), (2, 1, 1));
        assert!(close(a.value.unwrap(), 0.75));
        // The other order: 1 - 2/2 + 1/4 = 0.25.
        assert!(close(apfd(&[vec![], vec![0]], 1).value.unwrap(), 0.25));
    }

    #[test]
    fn apfd_of_the_textbook_example_of_figure_4() {
        // The suite of PAF Figure 4 (after Rothermel et al.): tests A..E, ten faults; A reveals
        // faults 1 and 5, B 6 and 7, C 1 to 7, D 5, E 8 to 10. Order A-B-C-D-E:
        // TF = 1, 3, 3, 3, 1, 2, 2, 5, 5, 5 (faults 1..10): sum 30;
        // APFD = 1 - 30/50 + 1/10 = 0.5, the 50% the paper states.
        let items = vec![
            vec![0, 4],
            vec![5, 6],
            vec![0, 1, 2, 3, 4, 5, 6],
            vec![4],
            vec![7, 8, 9],
        ];
        let a = apfd(&items, 10);
        assert_eq!(a.tf_sum(), 30);
        assert!(close(a.value.unwrap(), 0.5));
        // The order C-E-B-A-D: TF = 1 for faults 1..7, 2 for 8..10: sum 13;
        // APFD = 1 - 13/50 + 1/10 = 0.84.
        let reordered: Vec<Vec<usize>> =
            [2, 4, 1, 0, 3].iter().map(|&i| items[i].clone()).collect();
        assert!(close(apfd(&reordered, 10).value.unwrap(), 0.84));
    }

    #[test]
    fn an_undetected_fault_is_kept_in_m_and_adds_nothing() {
        // Three items, two faults; fault 1 is revealed by none. TF_0 = 2.
        // (2(3 - 2) + 1) / (2 * 3 * 2) = 3/12 = 0.25.
        let a = apfd(&[vec![], vec![0], vec![]], 2);
        assert_eq!(a.undetected(), [1]);
        assert_eq!(a.tf_sum(), 2);
        assert!(close(a.value.unwrap(), 0.25));
        // Nothing ranked, or no fault: undefined.
        assert_eq!(apfd(&[], 2).value, None);
        assert_eq!(apfd(&[vec![], vec![]], 0).value, None);
    }

    #[test]
    fn the_area_under_the_curve_is_the_apfd() {
        let items = vec![vec![], vec![1], vec![0, 1], vec![], vec![2]];
        let c = curve(&items, 3);
        assert_eq!(c.len(), 6);
        assert_eq!(c[0], (0.0, 0.0));
        assert!(close(c[2].1, 1.0 / 3.0) && close(c[3].1, 2.0 / 3.0) && close(c[5].1, 1.0));
        let area: f64 = c
            .windows(2)
            .map(|w| (w[1].0 - w[0].0) * (w[0].1 + w[1].1) / 2.0)
            .sum();
        assert!(close(area, apfd(&items, 3).value.unwrap()), "{area}");
    }

    #[test]
    fn f_measure_by_hand() {
        // Truth: fault A = {0, 1, 2}, fault B = {3}. Produced: {0, 1}, {2, 3}.
        // F({0,1}, A) = 2*2/(2+3) = 0.8; F({2,3}, A) = 2*1/(2+3) = 0.4; F({2,3}, B) = 2/3.
        // Truth weighting: 3/4 * 0.8 + 1/4 * 2/3 = 0.6 + 1/6.
        // Produced weighting: 2/4 * 0.8 + 2/4 * 2/3 = 0.4 + 1/3.
        // Purity: (2 + 1) / 4 = 0.75.
        let truth = vec![vec![0, 1, 2], vec![3]];
        let produced = vec![vec![0, 1], vec![2, 3]];
        let t = f_measure(&produced, &truth, Weighting::Truth);
        assert!(close(t.value.unwrap(), 0.6 + 1.0 / 6.0));
        assert_eq!(t.clusters, 2);
        assert!(close(t.purity.unwrap(), 0.75));
        let p = f_measure(&produced, &truth, Weighting::Produced);
        assert!(close(p.value.unwrap(), 0.4 + 1.0 / 3.0));
        // Equal clusterings score 1 either way.
        for w in [Weighting::Truth, Weighting::Produced] {
            assert_eq!(f_measure(&truth, &truth, w).value, Some(1.0));
        }
        assert_eq!(f_measure(&produced, &[], Weighting::Truth).value, None);
    }

    /// PAF's Table 5 for the subjects with one fault, where the published F-measure and number
    /// of clusters pin the clustering down (up to which cluster holds which test): with N
    /// revealing tests and a largest cluster of c of them, the truth-weighted F-measure is
    /// 2c / (c + N). Coll1, ReBucket: 0.593 with 23 clusters of 38 tests: c = 16 (32/54) and 22
    /// singletons. Coll2, ReBucket: 0.64, 10 clusters of 17: 8 (16/25) and 9 singletons.
    /// Rhino1-3, ReBucket: 0.048, 0.053, 0.044 with one singleton per test (41, 37, 44 tests):
    /// 2/42, 2/38, 2/45. Coll1, MSeer: 0.733, 2 clusters of 38: 22 and 16 (44/60). Coll2,
    /// MSeer: 0.786, 2 of 17: 11 and 6 (22/28). Rhino1, MSeer: 0.988, 2 of 41: 40 and 1
    /// (80/81). Rhino3, MSeer: 0.842, 2 of 44: 32 and 12 (64/76). The produced weighting (the
    /// formula as printed) gives other numbers wherever the clusters differ in size, e.g. Coll1
    /// ReBucket 16/38 * 32/54 + 22 * 1/38 * 2/39 = 0.279, Coll1 MSeer 22/38 * 44/60 +
    /// 16/38 * 32/54 = 0.674, Rhino1 MSeer 40/41 * 80/81 + 1/41 * 2/42 = 0.965; Coll2
    /// ReBucket 0.36, Coll2 MSeer 0.693, Rhino3 MSeer 0.729 likewise. With singletons only
    /// (Rhino ReBucket) both weightings give 2/(N + 1).
    #[test]
    fn the_truth_weighting_gives_the_papers_table_5() {
        // (subject, tests, cluster sizes, published, produced weighting if it differs)
        type Case = (&'static str, usize, Vec<usize>, f64, Option<f64>);
        let cases: [Case; 9] = [
            (
                "Coll1 ReB",
                38,
                [vec![16], vec![1; 22]].concat(),
                0.593,
                Some(0.279),
            ),
            (
                "Coll2 ReB",
                17,
                [vec![8], vec![1; 9]].concat(),
                0.64,
                Some(0.36),
            ),
            ("Rhino1 ReB", 41, vec![1; 41], 0.048, None),
            ("Rhino2 ReB", 37, vec![1; 37], 0.053, None),
            ("Rhino3 ReB", 44, vec![1; 44], 0.044, None),
            ("Coll1 MSe", 38, vec![22, 16], 0.733, Some(0.674)),
            ("Coll2 MSe", 17, vec![11, 6], 0.786, Some(0.693)),
            ("Rhino1 MSe", 41, vec![40, 1], 0.988, Some(0.965)),
            ("Rhino3 MSe", 44, vec![32, 12], 0.842, Some(0.729)),
        ];
        let round = |v: f64| (v * 1000.0).round() / 1000.0;
        for (name, n, sizes, published, produced) in cases {
            assert_eq!(sizes.iter().sum::<usize>(), n, "{name}");
            let truth = vec![(0..n).collect::<Vec<_>>()];
            let mut start = 0;
            let clusters: Vec<Vec<usize>> = sizes
                .iter()
                .map(|&k| {
                    start += k;
                    (start - k..start).collect()
                })
                .collect();
            let t = f_measure(&clusters, &truth, Weighting::Truth);
            assert_eq!(round(t.value.unwrap()), published, "{name}");
            assert_eq!(t.clusters, sizes.len(), "{name}");
            let p = f_measure(&clusters, &truth, Weighting::Produced)
                .value
                .unwrap();
            match produced {
                Some(v) => assert_eq!(round(p), v, "{name}"),
                None => assert_eq!(round(p), published, "{name}: both weightings agree"),
            }
        }
    }

    #[test]
    fn alarms_by_hand() {
        // Alarms: items 0 (revealing), 1 (not); item 2 reveals a fault but is not alarmed.
        let a = alarms([(true, true), (true, false), (false, true), (false, false)]);
        assert_eq!((a.alarms, a.true_alarms, a.relevant, a.items), (2, 1, 2, 4));
        assert_eq!((a.precision, a.recall), (Some(0.5), Some(0.5)));
        // One false alarm among the two items that reveal nothing.
        assert_eq!(a.false_alarm_share, Some(0.5));
        let none = alarms([(false, false)]);
        assert_eq!((none.precision, none.recall), (None, None));
        assert_eq!(none.false_alarm_share, Some(0.0));
        // No fault at all: every alarm is false; precision 0, recall undefined, 2 of 3
        // fault-free items alarmed.
        let clean = alarms([(true, false), (false, false), (true, false)]);
        assert_eq!((clean.precision, clean.recall), (Some(0.0), None));
        assert_eq!(clean.false_alarm_share, Some(2.0 / 3.0));
    }
}
