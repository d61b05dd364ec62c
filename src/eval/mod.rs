//! `paf eval`: measures PAF and the baselines of its evaluation (PAF sections 4 and 5) against a
//! ground truth: APFD and its curve for rankings (RQ3, Figure 5), the clustering F-measure
//! (RQ1, Table 5) and alarm precision and recall (RQ2, Table 6).
//!
//! Phases: [`input`] parses the truth, ranking and clusters files; the engine gathers what the
//! baselines need from a bundle ([`crate::analysis::facts`]); [`jcrasher`] (with
//! [`throwables`]), [`daikon`], [`rebucket`] and [`mseer`] (with [`sbfl`]) are the baselines,
//! and `baselines` builds every ranking and clustering of a bundle from them and PAF's report;
//! [`metrics`] are pure functions of rankings and clusterings, which `measure` applies to test
//! ids; [`compare`] and [`compare_files`] build the [`EvalReport`] (`paf.eval/1`), which
//! [`render`] and [`plot`] only format. [`localize_bundle`] builds `paf localize`'s
//! [`sbfl::Localization`]. This file holds the report types and those entry points. See
//! docs/evaluation.md.

mod baselines;
pub mod daikon;
pub mod input;
pub mod jcrasher;
mod measure;
pub mod metrics;
pub mod mseer;
pub mod plot;
pub mod rebucket;
pub mod render;
pub mod sbfl;
pub mod throwables;

use std::collections::{BTreeMap, HashSet};

use serde::Serialize;

use crate::analysis::facts::Facts;
use crate::engine::{self, Jobs, Options};
use crate::ranking;
use crate::report::{self, Report};
use crate::trace::{Bundle, Problem};
use input::Truth;
use jcrasher::AccessTable;
use measure::{clustering, items_faults, single, truth_summary};
use metrics::{Alarms, Weighting};

pub const EVAL_SCHEMA: &str = "paf.eval/1";

/// Settings that change results.
#[derive(Clone, Debug)]
pub struct Settings {
    /// Seeds PAF's tie shuffle, and the random orders: run r of a randomized ranking uses
    /// seed + r.
    pub seed: u64,
    /// Random orders per randomized ranking (the random baseline, and the random order within
    /// the groups of JCrasher and Daikon).
    pub runs: usize,
    pub weighting: Weighting,
    pub rebucket: rebucket::Params,
    pub options: Options,
}

impl Default for Settings {
    fn default() -> Self {
        Settings {
            seed: ranking::DEFAULT_SEED,
            runs: 100,
            weighting: Weighting::Truth,
            rebucket: rebucket::Params::DEFAULT,
            options: Options::default(),
        }
    }
}

/// The `paf.eval/1` report: every ranking and clustering measured against one truth.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct EvalReport {
    pub schema: &'static str,
    /// The bundle's subject, when a bundle was evaluated.
    pub subject: Option<String>,
    /// What was evaluated: the bundle, or the ranking and clusters files.
    pub inputs: Vec<String>,
    pub truth: TruthSummary,
    pub seed: u64,
    /// How the clusterings' F-measure weights its terms.
    pub weighting: Weighting,
    /// Failing tests of the bundle (`None` for files).
    pub failing: Option<usize>,
    pub rankings: Vec<RankingEval>,
    pub clusterings: Vec<ClusteringEval>,
    /// Ids that do not match between the inputs and the truth (errors under `--strict`).
    pub warnings: Vec<String>,
}

#[derive(Clone, Debug, Serialize, PartialEq, Eq)]
pub struct TruthSummary {
    pub file: String,
    /// Each fault with the number of tests revealing it (among the evaluated tests).
    pub faults: Vec<FaultSummary>,
    /// Tests that reveal at least one fault.
    pub revealing_tests: usize,
    /// Faults with at least one revealing test: the clusters of the optimal clustering.
    pub true_clusters: usize,
}

#[derive(Clone, Debug, Serialize, PartialEq, Eq)]
pub struct FaultSummary {
    pub fault: String,
    pub tests: usize,
}

/// A number that is exact for one ranking and a mean over random orders.
#[derive(Clone, Copy, Debug, Serialize, PartialEq)]
#[serde(untagged)]
pub enum Count {
    Exact(u64),
    Mean(f64),
}

/// APFD of a ranking, in the JSON shape.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct ApfdReport {
    /// The APFD (for randomized rankings, the mean over the runs); `None` when undefined.
    pub value: Option<f64>,
    /// Why the APFD is undefined (nothing ranked, or no fault in the truth).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub undefined: Option<String>,
    pub n: usize,
    pub m: usize,
    /// Sum of TF_i over the detected faults.
    pub tf_sum: Count,
    /// Faults no ranked item reveals: counted in `m`, adding nothing to the area.
    pub undetected: Vec<String>,
    /// TF_i by fault (null when undetected).
    pub first: BTreeMap<String, Option<Count>>,
}

/// The distribution of APFD over the random orders of a randomized ranking.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct Spread {
    pub runs: usize,
    /// The first and last seed of the runs.
    pub seeds: [u64; 2],
    pub mean: f64,
    /// Population standard deviation.
    pub stddev: f64,
    pub min: f64,
    pub max: f64,
}

/// How one test was classified by a baseline.
#[derive(Clone, Debug, Serialize, PartialEq, Eq)]
pub struct Classified {
    pub test: String,
    /// Classified as "no precondition violation": an alarm, ranked in the first group.
    pub alarm: bool,
    pub reason: String,
}

/// One ranking with its metrics.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct RankingEval {
    pub name: String,
    /// What is ranked: `flow-sets` or `tests`.
    pub unit: &'static str,
    pub apfd: ApfdReport,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub spread: Option<Spread>,
    /// Alarm precision and recall (null for rankings that raise no alarms).
    pub alarms: Option<Alarms>,
    /// The APFD curve: (share of the list examined, share of faults detected), from (0, 0);
    /// for randomized rankings the mean over the runs.
    pub curve: Vec<[f64; 2]>,
    /// Per-test decisions of a classifying baseline, in bundle order.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub classified: Vec<Classified>,
}

/// The F-measure of a clustering, in the JSON shape.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct FMeasureReport {
    pub value: Option<f64>,
    pub clusters: usize,
    pub purity: Option<f64>,
    pub weighting: Weighting,
}

/// One clustering with its F-measure.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct ClusteringEval {
    pub name: String,
    pub f_measure: FMeasureReport,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub params: Option<ClusterParams>,
}

/// The parameters a clustering baseline ran with.
#[derive(Clone, Debug, Serialize, PartialEq)]
#[serde(untagged)]
pub enum ClusterParams {
    /// ReBucket's c, o and d; `trained` when they were trained on the truth (in-sample).
    ReBucket {
        c: f64,
        o: f64,
        d: f64,
        trained: bool,
    },
    /// MSeer: the suspiciousness formula, the potentials' radius r_a and the medoids chosen.
    MSeer {
        formula: &'static str,
        radius: f64,
        medoids: usize,
    },
}

/// Problems and warnings of a comparison.
#[derive(Debug)]
pub enum EvalError {
    /// The inputs are broken (bad bundle, bad file).
    Problems(Vec<Problem>),
    /// `--strict` and ids do not match; each string names the ids.
    Strict(Vec<String>),
}

/// Runs PAF and every baseline on `bundle` and measures them against `truth`.
pub fn evaluate_bundle(
    bundle: &Bundle,
    truth: &Truth,
    truth_file: &str,
    settings: &Settings,
    strict: bool,
) -> Result<EvalReport, EvalError> {
    // The baselines' facts are gathered in the same two passes as PAF's analysis.
    let options = Options {
        facts: true,
        ..settings.options.clone()
    };
    let analysis = engine::analyze(bundle, &options, Jobs::all_cores(), &mut ())
        .map_err(EvalError::Problems)?;
    let ranked = ranking::rank(&analysis.failures, &analysis.duas, settings.seed);
    let paf = report::build(
        &bundle.tables,
        &analysis,
        &ranked,
        settings.seed,
        Vec::new(),
    );
    let facts = analysis.facts.unwrap_or_default();
    let access = AccessTable::from_statements(&bundle.tables.statements, &bundle.tables.symbols);
    let mut out = compare(&paf, &facts, &access, truth, truth_file, settings);
    out.inputs = vec![format!("bundle {}", bundle.dir.display())];
    out.subject = bundle.tables.manifest.subject.clone();
    if strict && !out.warnings.is_empty() {
        return Err(EvalError::Strict(out.warnings));
    }
    Ok(out)
}

/// Names for a warning: all of them, comma-separated.
fn names(ids: &[&str]) -> String {
    ids.join(", ")
}

/// Measures PAF's report and the baselines computed from `facts` against `truth`, restricted to
/// the bundle's failing tests. Rankings: PAF's three readings, the plain baselines, JCrasher,
/// the paper's Daikon rule and the invariant-violation rule; clusterings: PAF's flow-sets,
/// ReBucket (trained on the truth when it names a fault, and untrained), MSeer, the two stack
/// signatures.
pub fn compare(
    paf: &Report,
    facts: &Facts,
    access: &AccessTable,
    truth: &Truth,
    truth_file: &str,
    settings: &Settings,
) -> EvalReport {
    let failing: Vec<&str> = facts.failing.iter().map(|t| t.id.as_str()).collect();
    let failing_set: HashSet<&str> = failing.iter().copied().collect();
    let mut warnings = Vec::new();
    let missing: Vec<&str> = truth
        .tests
        .iter()
        .map(|(t, _)| t.as_str())
        .filter(|t| !failing_set.contains(t))
        .collect();
    if !missing.is_empty() {
        warnings.push(format!(
            "{truth_file}: {} not failing tests of the bundle (left out): {}",
            crate::words::count(missing.len(), "test is", "tests are"),
            names(&missing)
        ));
    }
    let truth = truth.retain(|t| failing_set.contains(t));

    // The baselines rank the failing tests, each one item, from bundle order.
    let singles: Vec<Vec<&str>> = failing.iter().map(|t| vec![*t]).collect();
    let items = items_faults(&singles, &truth);
    let mut rankings = Vec::new();
    rankings.extend(baselines::paf_rankings(paf, &truth));
    rankings.extend(baselines::plain(&items, &truth, settings));
    rankings.push(baselines::jcrasher(facts, access, &items, &truth, settings));
    rankings.extend(baselines::daikon(facts, &items, &truth, settings));

    // Clusterings of all failing tests, measured over the fault-revealing ones.
    let mut clusterings = vec![baselines::paf_clustering(paf, &truth, settings.weighting)];
    clusterings.extend(baselines::rebucket_clusterings(
        facts, &failing, &truth, settings,
    ));
    clusterings.extend(baselines::mseer_clusterings(
        facts, &failing, &truth, settings,
    ));
    clusterings.extend(baselines::signature_clusterings(
        facts, &failing, &truth, settings,
    ));

    EvalReport {
        schema: EVAL_SCHEMA,
        subject: None,
        inputs: Vec::new(),
        truth: truth_summary(&truth, truth_file),
        seed: settings.seed,
        weighting: settings.weighting,
        failing: Some(failing.len()),
        rankings,
        clusterings,
        warnings,
    }
}

/// Measures rankings and clusterings read from files against `truth`. `rankings` and
/// `clusterings` are `(name, contents)` pairs.
pub fn compare_files(
    rankings: &[(String, Vec<String>)],
    clusterings: &[(String, Vec<Vec<String>>)],
    truth: &Truth,
    truth_file: &str,
    settings: &Settings,
    strict: bool,
) -> Result<EvalReport, EvalError> {
    let mut warnings = Vec::new();
    let mut check = |name: &str, ids: Vec<&str>| {
        let present: HashSet<&str> = ids.iter().copied().collect();
        let unknown: Vec<&str> = ids.iter().copied().filter(|t| !truth.names(t)).collect();
        if !unknown.is_empty() {
            warnings.push(format!(
                "{name}: {} not in {truth_file} (counted as revealing no fault): {}",
                crate::words::count(unknown.len(), "test is", "tests are"),
                names(&unknown)
            ));
        }
        let absent: Vec<&str> = truth
            .tests
            .iter()
            .map(|(t, _)| t.as_str())
            .filter(|t| !present.contains(t))
            .collect();
        if !absent.is_empty() {
            warnings.push(format!(
                "{name}: {} of {truth_file} {} missing from it: {}",
                crate::words::counted(absent.len(), "test"),
                if absent.len() == 1 { "is" } else { "are" },
                names(&absent)
            ));
        }
    };
    for (name, ids) in rankings {
        check(name, ids.iter().map(String::as_str).collect());
    }
    for (name, groups) in clusterings {
        check(name, groups.iter().flatten().map(String::as_str).collect());
    }
    if strict && !warnings.is_empty() {
        return Err(EvalError::Strict(warnings));
    }
    let ranking_evals = rankings
        .iter()
        .map(|(name, ids)| {
            let groups: Vec<Vec<&str>> = ids.iter().map(|t| vec![t.as_str()]).collect();
            single(name, "tests", &items_faults(&groups, truth), truth, None)
        })
        .collect();
    let clustering_evals = clusterings
        .iter()
        .map(|(name, groups)| {
            let groups: Vec<Vec<&str>> = groups
                .iter()
                .map(|g| g.iter().map(String::as_str).collect())
                .collect();
            clustering(name, &groups, truth, settings.weighting, None)
        })
        .collect();
    let mut inputs: Vec<String> = rankings
        .iter()
        .map(|(n, _)| format!("ranking {n}"))
        .collect();
    inputs.extend(clusterings.iter().map(|(n, _)| format!("clusters {n}")));
    Ok(EvalReport {
        schema: EVAL_SCHEMA,
        subject: None,
        inputs,
        truth: truth_summary(truth, truth_file),
        seed: settings.seed,
        weighting: settings.weighting,
        failing: None,
        rankings: ranking_evals,
        clusterings: clustering_evals,
        warnings,
    })
}
