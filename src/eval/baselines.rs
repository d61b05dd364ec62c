//! What [`super::compare`] measures on a bundle, one function per family: PAF's report read three
//! ways, the plain baselines (bundle order and random orders), the classifying baselines
//! (JCrasher, and Daikon by the paper's rule and by invariant violations), and the clusterings
//! (PAF's flow-sets, ReBucket trained and untrained, MSeer, and the two stack signatures). Each
//! builds its rankings or clusterings of test ids from PAF's report or the engine's facts and
//! leaves the measuring to [`super::measure`].

use std::collections::HashMap;

use super::input::Truth;
use super::jcrasher::{self, AccessTable};
use super::measure::{alarm_counts, clustering, items_faults, randomized, single};
use super::metrics::{self, Weighting};
use super::{
    Classified, ClusterParams, ClusteringEval, RankingEval, Settings, daikon, mseer, rebucket,
};
use crate::analysis::facts::{Facts, FailingTest};
use crate::report::Report;
use crate::trace::StackFrame;

/// PAF's report as three rankings: its flow-sets, its tests in the report's order
/// (representatives first), and its tests flow-set by flow-set. A flow-set, and each of its
/// tests, is an alarm when it is local.
pub(super) fn paf_rankings(paf: &Report, truth: &Truth) -> [RankingEval; 3] {
    let alarmed = alarmed_tests(paf);
    [
        paf_flow_sets(paf, truth),
        paf_tests(paf, &alarmed, truth),
        paf_blocks(paf, &alarmed, truth),
    ]
}

/// For each of PAF's ranked tests (in report order), whether its flow-set is local.
fn alarmed_tests(paf: &Report) -> Vec<bool> {
    let local_of: HashMap<usize, bool> = paf
        .flow_sets
        .iter()
        .map(|fs| (fs.rank, fs.locality == "local"))
        .collect();
    paf.tests
        .iter()
        .map(|t| {
            t.flow_set_rank
                .is_some_and(|r| local_of.get(&r) == Some(&true))
        })
        .collect()
}

/// PAF, flow-sets: each flow-set one item, then each unanalyzed test one item.
fn paf_flow_sets(paf: &Report, truth: &Truth) -> RankingEval {
    let mut groups: Vec<Vec<&str>> = paf
        .flow_sets
        .iter()
        .map(|fs| fs.tests.iter().map(String::as_str).collect())
        .collect();
    let mut local: Vec<bool> = paf
        .flow_sets
        .iter()
        .map(|fs| fs.locality == "local")
        .collect();
    for u in &paf.unanalyzed {
        groups.push(vec![u.test.as_str()]);
        local.push(false);
    }
    let items = items_faults(&groups, truth);
    let alarms = alarm_counts(&local, &items);
    single("PAF (flow-sets)", "flow-sets", &items, truth, Some(alarms))
}

/// PAF, individual tests, in the report's test order.
fn paf_tests(paf: &Report, alarmed: &[bool], truth: &Truth) -> RankingEval {
    let tests: Vec<Vec<&str>> = paf.tests.iter().map(|t| vec![t.test.as_str()]).collect();
    let items = items_faults(&tests, truth);
    let alarms = alarm_counts(alarmed, &items);
    single("PAF (tests)", "tests", &items, truth, Some(alarms))
}

/// PAF's tests flow-set by flow-set (`paf rank --test-order blocks`): each flow-set's tests
/// together, representative first, flow-sets in rank order, then the unanalyzed tests.
fn paf_blocks(paf: &Report, alarmed: &[bool], truth: &Truth) -> RankingEval {
    let mut blocks: Vec<Vec<&str>> = paf
        .flow_sets
        .iter()
        .flat_map(|fs| fs.tests.iter().map(|t| vec![t.as_str()]))
        .collect();
    blocks.extend(paf.unanalyzed.iter().map(|u| vec![u.test.as_str()]));
    let items = items_faults(&blocks, truth);
    let by_test: HashMap<&str, bool> = paf
        .tests
        .iter()
        .zip(alarmed)
        .map(|(t, &a)| (t.test.as_str(), a))
        .collect();
    let alarms = metrics::alarms(
        blocks
            .iter()
            .zip(&items)
            .map(|(t, f)| (by_test.get(t[0]).copied().unwrap_or(false), !f.is_empty())),
    );
    single("PAF (tests, blocks)", "tests", &items, truth, Some(alarms))
}

/// The failing tests in bundle order (`items`, the faults of each), as they are and in random
/// orders. Neither raises alarms.
pub(super) fn plain(items: &[Vec<usize>], truth: &Truth, settings: &Settings) -> [RankingEval; 2] {
    let none = vec![false; items.len()];
    [
        single("unordered", "tests", items, truth, None),
        randomized("random", items, &none, truth, settings, None, Vec::new()),
    ]
}

/// JCrasher's exception filter on each failing test's stack.
pub(super) fn jcrasher(
    facts: &Facts,
    access: &AccessTable,
    items: &[Vec<usize>],
    truth: &Truth,
    settings: &Settings,
) -> RankingEval {
    let decisions = facts.failing.iter().map(|t| {
        let v = jcrasher::classify(t.exception.as_ref(), access);
        (v.report, v.reason)
    });
    classifier(
        "JCrasher",
        decisions.collect(),
        facts,
        items,
        truth,
        settings,
    )
}

/// Daikon's invariants mined from the passing tests at each method's entry, used two ways at a
/// failing test's method under test: the paper's rule (`Daikon`: a false alarm when invariants
/// relevant to the crash variable exist) and the rule DSD-Crasher and Eclat filter inputs by
/// (`Daikon violations`: a false alarm when the entry values violate an invariant).
pub(super) fn daikon(
    facts: &Facts,
    items: &[Vec<usize>],
    truth: &Truth,
    settings: &Settings,
) -> [RankingEval; 2] {
    let invariants =
        daikon::Invariants::mine(facts.passing_entries.iter().map(|(m, v)| (m.as_str(), v)));
    let paper = facts
        .failing
        .iter()
        .map(|t| relevant_decision(&invariants, t))
        .collect();
    let violations = facts
        .failing
        .iter()
        .map(|t| violation_decision(&invariants, t))
        .collect();
    [
        classifier("Daikon", paper, facts, items, truth, settings),
        classifier(
            "Daikon violations",
            violations,
            facts,
            items,
            truth,
            settings,
        ),
    ]
}

/// The paper's Daikon rule (PAF section 5.2): a failing test is a false alarm when invariants
/// at its MUT's entry relevant to a crash variable exist, otherwise an alarm. The relevant
/// variables are the MUT's arguments and receiver fields on the crash variable's copy chain.
fn relevant_decision(invariants: &daikon::Invariants, test: &FailingTest) -> (bool, String) {
    let Some((method, _)) = &test.mut_entry else {
        return (
            true,
            "no call of the test body threw: no MUT, so no invariant relates to the crash".into(),
        );
    };
    let Some(vars) = &test.crash_vars else {
        return (
            true,
            format!("{method}: PAF found no crash variable, so no invariant relates to it"),
        );
    };
    let mut found = Vec::new();
    for cv in vars {
        for inv in invariants.relevant(method, &cv.args, &cv.fields) {
            found.push(format!("{} ({inv})", cv.var));
        }
    }
    if !found.is_empty() {
        return (
            false,
            format!("{method}: invariants relate to {}", found.join("; ")),
        );
    }
    let names: Vec<&str> = vars.iter().map(|v| v.var.as_str()).collect();
    let entry: Vec<String> = vars
        .iter()
        .flat_map(|v| v.args.iter().chain(&v.fields).cloned())
        .collect();
    let why = if entry.is_empty() {
        format!(
            "the dataflow of {} starts inside the MUT: no entry variable on it",
            names.join(", ")
        )
    } else {
        format!("no invariant at entry over {}", entry.join(", "))
    };
    (true, format!("{method}: {why}"))
}

/// The invariant-violation rule: a failing test is an alarm when no invariant at its MUT's
/// entry is violated, or there is nothing to check.
fn violation_decision(invariants: &daikon::Invariants, test: &FailingTest) -> (bool, String) {
    match &test.mut_entry {
        None => (
            true,
            "no call of the test body threw: nothing to check".to_string(),
        ),
        Some((method, None)) => (
            true,
            format!("{method}: the trace has no entry values to check"),
        ),
        Some((method, Some(values))) => {
            let v = invariants.violations(method, values);
            if v.is_empty() {
                (true, format!("{method}: no invariant at entry is violated"))
            } else {
                (false, format!("{method}: violates {}", v.join("; ")))
            }
        }
    }
}

/// A classifying baseline's ranking: its alarms first, each group in random order, with the
/// decision (`(alarm, reason)`) on each failing test in bundle order.
fn classifier(
    name: &str,
    decisions: Vec<(bool, String)>,
    facts: &Facts,
    items: &[Vec<usize>],
    truth: &Truth,
    settings: &Settings,
) -> RankingEval {
    let alarm: Vec<bool> = decisions.iter().map(|(a, _)| *a).collect();
    let classified = facts
        .failing
        .iter()
        .zip(decisions)
        .map(|(t, (alarm, reason))| Classified {
            test: t.id.clone(),
            alarm,
            reason,
        })
        .collect();
    let alarms = alarm_counts(&alarm, items);
    randomized(
        name,
        items,
        &alarm,
        truth,
        settings,
        Some(alarms),
        classified,
    )
}

/// PAF's flow-sets as a clustering. Unanalyzed tests are in no flow-set, so each revealing one
/// counts as a cluster of its own.
pub(super) fn paf_clustering(paf: &Report, truth: &Truth, weighting: Weighting) -> ClusteringEval {
    let clusters: Vec<Vec<&str>> = paf
        .flow_sets
        .iter()
        .map(|fs| fs.tests.iter().map(String::as_str).collect())
        .collect();
    clustering("PAF (flow-sets)", &clusters, truth, weighting, None)
}

/// Each failing test's stack without the test method's frame (the last one), which differs in
/// every test.
fn stacks(facts: &Facts) -> Vec<&[StackFrame]> {
    facts
        .failing
        .iter()
        .map(|t| {
            t.exception
                .as_ref()
                .map_or(&[][..], |e| &e.frames[..e.frames.len().saturating_sub(1)])
        })
        .collect()
}

/// The clusterings of the failing tests (`failing`, in bundle order) by equal signatures of
/// the top frame and of the whole stack.
pub(super) fn signature_clusterings(
    facts: &Facts,
    failing: &[&str],
    truth: &Truth,
    settings: &Settings,
) -> [ClusteringEval; 2] {
    let stacks = stacks(facts);
    let (top, whole) = signatures(facts, &stacks);
    let by_signature = |name: &str, keys: &[String]| {
        let groups = to_ids(rebucket::group_by_key(keys), failing);
        clustering(name, &groups, truth, settings.weighting, None)
    };
    [
        by_signature("top frame", &top),
        by_signature("whole stack", &whole),
    ]
}

/// Groups of indices into `failing` as groups of test ids.
fn to_ids<'a>(groups: Vec<Vec<usize>>, failing: &[&'a str]) -> Vec<Vec<&'a str>> {
    groups
        .into_iter()
        .map(|g| g.into_iter().map(|i| failing[i]).collect())
        .collect()
}

/// ReBucket on the stacks' methods (`class.method`, without lines): with parameters trained on
/// the truth (in-sample, when it names a fault revealed by a failing test), and with the
/// untrained defaults of `settings`.
pub(super) fn rebucket_clusterings(
    facts: &Facts,
    failing: &[&str],
    truth: &Truth,
    settings: &Settings,
) -> Vec<ClusteringEval> {
    let methods: Vec<Vec<String>> = stacks(facts)
        .iter()
        .map(|s| {
            s.iter()
                .map(|f| format!("{}.{}", f.class, f.method))
                .collect()
        })
        .collect();
    let run = |name: &str, p: rebucket::Params, trained: bool| {
        let groups = to_ids(rebucket::cluster(&methods, p), failing);
        let params = ClusterParams::ReBucket {
            c: p.c,
            o: p.o,
            d: p.d,
            trained,
        };
        clustering(name, &groups, truth, settings.weighting, Some(params))
    };
    let trained = rebucket::train(&methods, |groups| {
        let groups = to_ids(groups.to_vec(), failing);
        clustering("", &groups, truth, settings.weighting, None)
            .f_measure
            .value
    });
    let mut out = Vec::new();
    if let Some((p, _)) = trained {
        out.push(run("ReBucket trained", p, true));
    }
    out.push(run("ReBucket untrained", settings.rebucket, false));
    out
}

/// MSeer: the failing tests clustered by the revised Kendall tau distance of their Ochiai
/// rankings of lines; then, as a second reading of PAF's RQ1 ("clustering fault revealing
/// tests"), the fault-revealing tests alone (the truth chooses its input: an oracle).
pub(super) fn mseer_clusterings(
    facts: &Facts,
    failing: &[&str],
    truth: &Truth,
    settings: &Settings,
) -> Vec<ClusteringEval> {
    let run = |name: &str, which: &[usize]| {
        let covered: Vec<&[u32]> = which
            .iter()
            .map(|&i| facts.failing[i].covered.as_slice())
            .collect();
        let m = mseer::cluster(&covered, &facts.passing_coverage);
        let groups: Vec<Vec<&str>> = m
            .clusters
            .into_iter()
            .map(|g| g.into_iter().map(|k| failing[which[k]]).collect())
            .collect();
        let params = ClusterParams::MSeer {
            formula: "ochiai",
            radius: m.radius,
            medoids: m.medoids,
        };
        clustering(name, &groups, truth, settings.weighting, Some(params))
    };
    let all: Vec<usize> = (0..failing.len()).collect();
    let revealing: Vec<usize> = all
        .iter()
        .copied()
        .filter(|&i| !truth.faults_of(failing[i]).is_empty())
        .collect();
    let mut out = vec![run("MSeer", &all)];
    if !revealing.is_empty() {
        out.push(run("MSeer, revealing tests only", &revealing));
    }
    out
}

/// Each failing test's signatures: its exception at the top frame, and its exception at the
/// whole stack (frames as `class.method:line`).
fn signatures(facts: &Facts, stacks: &[&[StackFrame]]) -> (Vec<String>, Vec<String>) {
    let frame_text = |f: &StackFrame| format!("{}.{}:{}", f.class, f.method, f.line);
    let exception = |t: &FailingTest| {
        t.exception
            .as_ref()
            .map_or("(none)", |e| e.kind.as_str())
            .to_string()
    };
    let top = facts
        .failing
        .iter()
        .zip(stacks)
        .map(|(t, s)| {
            let f = s.first().map_or("(test body)".to_string(), frame_text);
            format!("{} at {f}", exception(t))
        })
        .collect();
    let whole = facts
        .failing
        .iter()
        .zip(stacks)
        .map(|(t, s)| {
            let frames: Vec<String> = s.iter().map(frame_text).collect();
            format!("{} at {}", exception(t), frames.join(" < "))
        })
        .collect();
    (top, whole)
}
