//! `paf synth`: the same seed writes the same bytes, and what it plants is what `paf rank`
//! finds: each planted fault a local flow-set of its own tests, each precondition trap a
//! non-local flow-set whose crash statement passing tests reach.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use pretty_assertions::assert_eq;
use serde_json::Value;

mod common;
use common::{files, paf};

fn synth(dir: &Path, seed: u64, extra: &[&str]) {
    synth_sized(dir, (90, 150), seed, extra);
}

fn synth_sized(dir: &Path, (failing, passing): (usize, usize), seed: u64, extra: &[&str]) {
    let (seed, failing, passing) = (seed.to_string(), failing.to_string(), passing.to_string());
    let mut args = vec![
        "synth",
        "--failing",
        &failing,
        "--passing",
        &passing,
        "--events-per-test",
        "40",
        "--seed",
        &seed,
        "-o",
        dir.to_str().unwrap(),
    ];
    args.extend_from_slice(extra);
    let (code, _, stderr) = paf(&args);
    assert_eq!(code, 0, "{stderr}");
    assert!(stderr.contains("truth in truth.csv"), "{stderr}");
}

/// Runs `paf` with `args`, which must succeed, and parses its standard output as JSON.
fn paf_json(args: &[&str]) -> Value {
    let (code, json, stderr) = paf(args);
    assert_eq!(code, 0, "paf {args:?}: {stderr}");
    serde_json::from_str(&json).unwrap_or_else(|e| panic!("paf {args:?}: {e}"))
}

/// The strings of a JSON array of strings.
fn strings(v: &Value) -> Vec<&str> {
    v.as_array()
        .unwrap()
        .iter()
        .map(|t| t.as_str().unwrap())
        .collect()
}

/// The string field `key` of each object of a JSON array.
fn strings_at<'v>(v: &'v Value, key: &str) -> Vec<&'v str> {
    v.as_array()
        .unwrap()
        .iter()
        .map(|t| t[key].as_str().unwrap())
        .collect()
}

#[test]
fn the_same_seed_writes_the_same_bytes() {
    let dirs: Vec<_> = (0..3).map(|_| tempfile::tempdir().unwrap()).collect();
    synth(dirs[0].path(), 11, &[]);
    synth(dirs[1].path(), 11, &[]);
    synth(dirs[2].path(), 12, &[]);
    let a = files(dirs[0].path());
    assert_eq!(
        a.keys().collect::<Vec<_>>(),
        [
            "manifest.json",
            "statements.jsonl",
            "tests.jsonl",
            "tests.marks",
            "truth.csv"
        ]
    );
    assert!(a == files(dirs[1].path()), "seed 11 twice differs");
    assert!(
        a["tests.jsonl"] != files(dirs[2].path())["tests.jsonl"],
        "seeds 11 and 12 write the same tests"
    );
}

/// A compressed bundle holds the plain one's tests, and the plain one's marks beside them (the
/// marks count decompressed bytes), as `paf trace java` keeps its agent's beside either.
#[test]
fn compressed_bundles_hold_the_same_tests_and_marks() {
    let plain = tempfile::tempdir().unwrap();
    synth(plain.path(), 5, &[]);
    let want = paf(&["rank", plain.path().to_str().unwrap(), "--format", "json"]);
    let marks = std::fs::read(plain.path().join("tests.marks")).unwrap();
    for (flag, name) in [("gzip", "tests.jsonl.gz"), ("zstd", "tests.jsonl.zst")] {
        let dir = tempfile::tempdir().unwrap();
        synth(dir.path(), 5, &["--compress", flag]);
        assert!(dir.path().join(name).is_file(), "{name}");
        assert!(
            std::fs::read(dir.path().join("tests.marks")).unwrap() == marks,
            "{flag}: the marks differ from the plain bundle's"
        );
        let got = paf(&["rank", dir.path().to_str().unwrap(), "--format", "json"]);
        assert_eq!(got, want, "{flag}");
        let (code, _, stderr) = paf(&["validate", dir.path().to_str().unwrap()]);
        assert_eq!(code, 0, "{flag}: {stderr}");
    }
}

#[test]
fn planted_faults_are_local_and_traps_are_non_local_and_covered() {
    let dir = tempfile::tempdir().unwrap();
    synth(dir.path(), 3, &[]);
    let truth: BTreeMap<String, String> = std::fs::read_to_string(dir.path().join("truth.csv"))
        .unwrap()
        .lines()
        .skip(1)
        .map(|l| {
            let (t, f) = l.split_once(',').unwrap();
            (t.to_string(), f.to_string())
        })
        .collect();
    let report = paf_json(&["rank", dir.path().to_str().unwrap(), "--format", "json"]);
    let mut faults_seen = BTreeSet::new();
    let mut traps = 0;
    let mut last_local = true;
    for set in report["flow_sets"].as_array().unwrap() {
        let tests: Vec<&str> = strings(&set["tests"]);
        let labels: BTreeSet<Option<&String>> = tests.iter().map(|t| truth.get(*t)).collect();
        assert_eq!(labels.len(), 1, "a flow-set mixes planted items: {tests:?}");
        let local = set["locality"] == "local";
        assert!(
            last_local || !local,
            "a local flow-set ranks after a non-local one"
        );
        last_local = local;
        let ratio = set["likelihood_ratio"].as_str().unwrap();
        match labels.into_iter().next().unwrap() {
            Some(fault) => {
                assert!(local, "fault {fault} is not local");
                assert!(faults_seen.insert(fault.clone()), "fault {fault} split");
                assert!(["0/1", "1/2"].contains(&ratio), "fault {fault}: {ratio}");
            }
            None => {
                traps += 1;
                assert!(!local, "trap {tests:?} is local");
                assert_eq!(ratio, "1/2", "trap {tests:?}");
                let covered = set["theta"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .filter(|d| d["covered_by_count"].as_u64().unwrap() > 0)
                    .count();
                assert_eq!(covered, 1, "trap {tests:?}: passing tests reach the crash");
            }
        }
    }
    let planted: BTreeSet<&String> = truth.values().collect();
    assert_eq!(faults_seen.iter().collect::<BTreeSet<_>>(), planted);
    assert!(traps >= 2, "only {traps} traps");
    // The rest are the assertion failures, which PAF cannot analyze.
    for u in report["unanalyzed"].as_array().unwrap() {
        assert!(!truth.contains_key(u["test"].as_str().unwrap()));
    }
}

/// `--order-dependent`: `paf od detect`, with the synthetic runner, finds exactly the planted
/// victims and their polluters, and `rank --exclude-od` takes them out of the ranking.
#[test]
fn order_dependent_pairs_are_found_by_od_and_excluded_from_the_ranking() {
    let dir = tempfile::tempdir().unwrap();
    // Small: `isolate` runs every test alone, one runner process each.
    synth_sized(dir.path(), (12, 20), 9, &["--order-dependent", "3"]);
    let bundle = dir.path().to_str().unwrap();
    let truth: Value =
        serde_json::from_str(&std::fs::read_to_string(dir.path().join("od-truth.json")).unwrap())
            .unwrap();
    let planted: BTreeMap<String, String> = truth["pairs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| {
            (
                p["victim"].as_str().unwrap().to_string(),
                p["polluter"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    assert_eq!(planted.len(), 3);

    let runner = format!(
        "python3 {}/scripts/synth-od-runner.py {}/od-truth.json",
        env!("CARGO_MANIFEST_DIR"),
        bundle
    );
    let od = dir.path().join("od.json");
    let (code, _, stderr) = paf(&[
        "od",
        "detect",
        "--runner",
        &runner,
        "--bundle",
        bundle,
        "--algo",
        "isolate",
        "--no-progress",
        "--format",
        "json",
        "-o",
        od.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{stderr}");
    let report: Value = serde_json::from_str(&std::fs::read_to_string(&od).unwrap()).unwrap();
    let found: BTreeMap<String, String> = report["verdicts"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| {
            assert_eq!(v["verdict"], "victim", "{v}");
            let polluters: Vec<&str> = strings(&v["polluters"]);
            (v["test"].as_str().unwrap().to_string(), polluters.join(" "))
        })
        .collect();
    assert_eq!(found, planted);

    let ranked = paf_json(&[
        "rank",
        bundle,
        "--exclude-od",
        od.to_str().unwrap(),
        "--format",
        "json",
    ]);
    let excluded: BTreeSet<&str> = strings_at(&ranked["excluded"], "test")
        .into_iter()
        .collect();
    assert_eq!(excluded, planted.keys().map(String::as_str).collect());
    let ranked_tests: BTreeSet<&str> = strings_at(&ranked["tests"], "test").into_iter().collect();
    assert!(ranked_tests.is_disjoint(&excluded), "{ranked_tests:?}");
}

/// As an `eval` workload: PAF's flow-set ranking puts every planted fault before every trap
/// (the first-detection ranks are exactly 1..=m), with every alarm true and one cluster per
/// fault.
#[test]
fn eval_finds_every_planted_fault_first() {
    let dir = tempfile::tempdir().unwrap();
    synth(dir.path(), 21, &[]);
    let truth = dir.path().join("truth.csv");
    let report = paf_json(&[
        "eval",
        dir.path().to_str().unwrap(),
        "--truth",
        truth.to_str().unwrap(),
        "--format",
        "json",
    ]);
    let paf_sets = &report["rankings"][0];
    assert_eq!(paf_sets["name"], "PAF (flow-sets)");
    let apfd = &paf_sets["apfd"];
    let m = apfd["m"].as_u64().unwrap();
    assert!(m >= 1, "{apfd}");
    let mut first: Vec<u64> = apfd["first"]
        .as_object()
        .unwrap()
        .values()
        .map(|v| v.as_u64().unwrap())
        .collect();
    first.sort_unstable();
    assert_eq!(first, (1..=m).collect::<Vec<_>>(), "{apfd}");
    assert_eq!(paf_sets["alarms"]["precision"], 1.0);
    assert_eq!(paf_sets["alarms"]["recall"], 1.0);
    let clusters = &report["clusterings"][0];
    assert_eq!(clusters["name"], "PAF (flow-sets)");
    assert_eq!(clusters["f_measure"]["value"], 1.0, "{clusters}");
}
