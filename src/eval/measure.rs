//! Turns rankings and clusterings of test ids into the report's measured entries: maps ids to
//! the truth's fault indices, calls [`super::metrics`], and names faults again. Shared by the
//! bundle's baselines and the files given on the command line.

use std::collections::HashMap;

use rand::SeedableRng;
use rand::seq::SliceRandom;
use rand_chacha::ChaCha8Rng;

use super::input::Truth;
use super::metrics::{self, Alarms, Weighting};
use super::{
    ApfdReport, Classified, ClusterParams, ClusteringEval, Count, FMeasureReport, FaultSummary,
    RankingEval, Settings, Spread, TruthSummary,
};

/// The faults of each item of a ranking whose items are groups of tests.
pub(super) fn items_faults(groups: &[Vec<&str>], truth: &Truth) -> Vec<Vec<usize>> {
    groups
        .iter()
        .map(|g| {
            let mut f: Vec<usize> = g
                .iter()
                .flat_map(|t| truth.faults_of(t).iter().copied())
                .collect();
            f.sort_unstable();
            f.dedup();
            f
        })
        .collect()
}

/// The truth as the report summarizes it: each fault with its number of revealing tests.
pub(super) fn truth_summary(truth: &Truth, file: &str) -> TruthSummary {
    TruthSummary {
        file: file.to_string(),
        faults: truth
            .faults
            .iter()
            .enumerate()
            .map(|(f, name)| FaultSummary {
                fault: name.clone(),
                tests: truth.tests_of_fault(f),
            })
            .collect(),
        revealing_tests: truth.revealing().count(),
        true_clusters: (0..truth.faults.len())
            .filter(|&f| truth.tests_of_fault(f) > 0)
            .count(),
    }
}

/// Why the APFD of `n` items against `m` faults is undefined, if it is.
fn undefined(n: usize, m: usize) -> Option<String> {
    if m == 0 {
        Some("the truth names no fault (m = 0): no fault can be detected early or late".into())
    } else if n == 0 {
        Some("nothing is ranked (n = 0)".into())
    } else {
        None
    }
}

/// A ranking measured as it is (one order).
pub(super) fn single(
    name: &str,
    unit: &'static str,
    items: &[Vec<usize>],
    truth: &Truth,
    alarms: Option<Alarms>,
) -> RankingEval {
    let m = truth.faults.len();
    let a = metrics::apfd(items, m);
    let undefined = undefined(a.n, m);
    RankingEval {
        name: name.to_string(),
        unit,
        apfd: ApfdReport {
            value: a.value,
            undefined: undefined.clone(),
            n: a.n,
            m: a.m,
            tf_sum: Count::Exact(a.tf_sum()),
            undetected: a
                .undetected()
                .iter()
                .map(|&f| truth.faults[f].clone())
                .collect(),
            first: truth
                .faults
                .iter()
                .zip(&a.first)
                .map(|(f, t)| (f.clone(), t.map(|t| Count::Exact(t as u64))))
                .collect(),
        },
        spread: None,
        alarms,
        curve: if undefined.is_some() {
            Vec::new()
        } else {
            metrics::curve(items, m)
                .into_iter()
                .map(|(x, y)| [x, y])
                .collect()
        },
        classified: Vec::new(),
    }
}

/// A ranking of `items` with the alarms (`alarm[i]`) first and a random order within each
/// group, measured over `settings.runs` orders (run r shuffles with seed + r). With an
/// undefined APFD the orders are not measured: only the alarms are.
pub(super) fn randomized(
    name: &str,
    items: &[Vec<usize>],
    alarm: &[bool],
    truth: &Truth,
    settings: &Settings,
    alarms: Option<Alarms>,
    classified: Vec<Classified>,
) -> RankingEval {
    let m = truth.faults.len();
    let n = items.len();
    if let Some(why) = undefined(n, m) {
        let mut out = single(name, "tests", items, truth, alarms);
        out.apfd.undefined = Some(why);
        out.classified = classified;
        return out;
    }
    let runs = settings.runs.max(1);
    let first_group: Vec<usize> = (0..n).filter(|&i| alarm[i]).collect();
    let second_group: Vec<usize> = (0..n).filter(|&i| !alarm[i]).collect();
    let mut values = Vec::with_capacity(runs);
    let mut tf_sum = 0u64;
    let mut first_sum = vec![0u64; m];
    let mut detected = vec![0usize; m];
    let mut curve_sum = vec![0.0f64; n + 1];
    for r in 0..runs {
        let mut rng = ChaCha8Rng::seed_from_u64(settings.seed.wrapping_add(r as u64));
        let mut a = first_group.clone();
        let mut b = second_group.clone();
        a.shuffle(&mut rng);
        b.shuffle(&mut rng);
        let order: Vec<Vec<usize>> = a.iter().chain(&b).map(|&i| items[i].clone()).collect();
        let result = metrics::apfd(&order, m);
        // n > 0 and m > 0 (checked above), so the APFD is defined.
        values.push(result.value.unwrap_or(0.0));
        tf_sum += result.tf_sum();
        for (f, t) in result.first.iter().enumerate() {
            if let Some(t) = t {
                first_sum[f] += *t as u64;
                detected[f] += 1;
            }
        }
        for (k, (_, y)) in metrics::curve(&order, m).into_iter().enumerate() {
            curve_sum[k] += y;
        }
    }
    let mean = values.iter().sum::<f64>() / runs as f64;
    let var = values.iter().map(|v| (v - mean) * (v - mean)).sum::<f64>() / runs as f64;
    let min = values.iter().copied().fold(f64::INFINITY, f64::min);
    let max = values.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    RankingEval {
        name: name.to_string(),
        unit: "tests",
        apfd: ApfdReport {
            value: Some(mean),
            undefined: None,
            n,
            m,
            tf_sum: Count::Mean(tf_sum as f64 / runs as f64),
            undetected: (0..m)
                .filter(|&f| detected[f] == 0)
                .map(|f| truth.faults[f].clone())
                .collect(),
            first: truth
                .faults
                .iter()
                .enumerate()
                .map(|(f, name)| {
                    (
                        name.clone(),
                        (detected[f] > 0)
                            .then(|| Count::Mean(first_sum[f] as f64 / detected[f] as f64)),
                    )
                })
                .collect(),
        },
        spread: Some(Spread {
            runs,
            seeds: [settings.seed, settings.seed.wrapping_add(runs as u64 - 1)],
            mean,
            stddev: var.sqrt(),
            min,
            max,
        }),
        alarms,
        curve: curve_sum
            .iter()
            .enumerate()
            .map(|(k, s)| {
                [
                    if n == 0 { 0.0 } else { k as f64 / n as f64 },
                    s / runs as f64,
                ]
            })
            .collect(),
        classified,
    }
}

/// A clustering of tests measured over the truth's fault-revealing tests: other tests are
/// dropped from its clusters, and a revealing test it does not place is a cluster of its own.
pub(super) fn clustering(
    name: &str,
    groups: &[Vec<&str>],
    truth: &Truth,
    weighting: Weighting,
    params: Option<ClusterParams>,
) -> ClusteringEval {
    let revealing: Vec<&str> = truth.revealing().collect();
    let index: HashMap<&str, usize> = revealing.iter().enumerate().map(|(i, t)| (*t, i)).collect();
    let mut placed = vec![false; revealing.len()];
    let mut produced: Vec<Vec<usize>> = Vec::new();
    for g in groups {
        let c: Vec<usize> = g.iter().filter_map(|t| index.get(t).copied()).collect();
        for &i in &c {
            placed[i] = true;
        }
        if !c.is_empty() {
            produced.push(c);
        }
    }
    produced.extend(
        (0..revealing.len())
            .filter(|&i| !placed[i])
            .map(|i| vec![i]),
    );
    let true_clusters: Vec<Vec<usize>> = (0..truth.faults.len())
        .map(|f| {
            revealing
                .iter()
                .enumerate()
                .filter(|(_, t)| truth.faults_of(t).contains(&f))
                .map(|(i, _)| i)
                .collect()
        })
        .collect();
    let f = metrics::f_measure(&produced, &true_clusters, weighting);
    ClusteringEval {
        name: name.to_string(),
        f_measure: FMeasureReport {
            value: f.value,
            clusters: f.clusters,
            purity: f.purity,
            weighting: f.weighting,
        },
        params,
    }
}

/// Precision and recall of a classifier's alarms: a test is a true alarm when it reveals a fault.
pub(super) fn alarm_counts<T>(alarm: &[bool], items: &[Vec<T>]) -> Alarms {
    metrics::alarms(alarm.iter().zip(items).map(|(&a, f)| (a, !f.is_empty())))
}
