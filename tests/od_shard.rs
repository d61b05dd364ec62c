//! `paf od detect --shard i/N` and `paf od merge` on a shipped example: the planned schedules
//! split between shards by content (each in exactly one, the same on a re-run), and the merged
//! report is byte for byte the report of one machine. Also `od convert` between paf.od/2 and
//! iDFlakies' flaky-lists.json, and paf.od/1 reports read back.

use std::path::Path;
use std::process::Output;

use serde_json::Value;

mod common;
use common::{paf_output as paf, root};

fn ok(out: &Output) -> String {
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout.clone()).unwrap()
}

/// `paf od SUB` on testdata/od/pradet-datasource with the algorithms of the test and `extra`.
fn od(sub: &str, extra: &[&str]) -> Output {
    let ex = root().join("testdata/od/pradet-datasource");
    let mut args: Vec<String> = vec![
        "od".into(),
        sub.into(),
        "--runner".into(),
        ex.join("run").display().to_string(),
        "--tests".into(),
        ex.join("tests.txt").display().to_string(),
        "--access".into(),
        ex.join("access.json").display().to_string(),
        "--algo".into(),
        "reverse,random,pairwise,tuscan,isolate,pradet,twice".into(),
        "--trials".into(),
        "4".into(),
        "--no-progress".into(),
        "-j".into(),
        "2".into(),
    ];
    args.extend(extra.iter().map(|s| s.to_string()));
    let refs: Vec<&str> = args.iter().map(String::as_str).collect();
    paf(&refs)
}

/// The counts a shard prints: (algorithm, its share, planned).
fn shares(text: &str) -> Vec<(String, u64, u64)> {
    text.lines()
        .filter(|l| l.contains("planned schedules"))
        .map(|l| {
            let w: Vec<&str> = l.split_whitespace().collect();
            (
                w[0].trim_end_matches(':').to_string(),
                w[1].parse().unwrap(),
                w[3].parse().unwrap(),
            )
        })
        .collect()
}

fn path(dir: &Path, name: &str) -> String {
    dir.join(name).display().to_string()
}

#[test]
fn three_shards_merged_are_the_report_of_one_machine() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    ok(&od("detect", &["-o", &path(d, "single.json")]));
    let mut split: Vec<(String, u64, u64)> = Vec::new();
    let mut journals = Vec::new();
    for i in 1..=3 {
        let j = path(d, &format!("shard-{i}.jsonl"));
        let text = ok(&od("detect", &["--shard", &format!("{i}/3"), "-o", &j]));
        assert!(
            text.contains("left to od merge (adaptive): pradet"),
            "{text}"
        );
        for (algo, share, planned) in shares(&text) {
            match split.iter_mut().find(|(a, _, _)| *a == algo) {
                Some(s) => s.1 += share,
                None => split.push((algo, share, planned)),
            }
        }
        // A shard run again reuses its journal.
        let again = ok(&od("detect", &["--shard", &format!("{i}/3"), "-o", &j]));
        assert!(
            again.starts_with(&format!("shard {i}/3: 0 runs executed")),
            "{again}"
        );
        journals.push(j);
    }
    // Every planned schedule is in exactly one shard: 1 reverse, 4 random, 6 pairs, 4 Tuscan
    // orders (n = 3), 3 alone, 3 twice.
    let want: Vec<(String, u64, u64)> = [
        ("reverse", 1),
        ("random", 4),
        ("pairwise", 6),
        ("tuscan", 4),
        ("isolate", 3),
        ("twice", 3),
    ]
    .iter()
    .map(|&(a, n)| (a.to_string(), n, n))
    .collect();
    assert_eq!(split, want);
    let mut args: Vec<&str> = journals.iter().map(String::as_str).collect();
    let merged = path(d, "merged.json");
    args.extend(["-o", &merged, "--format", "json"]);
    let out = od("merge", &args);
    ok(&out);
    let single = std::fs::read(d.join("single.json")).unwrap();
    let merged_bytes = std::fs::read(d.join("merged.json")).unwrap();
    assert!(
        single == merged_bytes,
        "the merged report differs from the single run's:\n{}\n---\n{}",
        String::from_utf8_lossy(&single),
        String::from_utf8_lossy(&merged_bytes)
    );
    // The merge reused the shards' planned runs (some orders are planned by several
    // algorithms: Tuscan's first row is the default order) and ran only what follows from
    // them (PRADET, confirmation, minimization): together the runs of the single machine.
    let err = String::from_utf8_lossy(&out.stderr);
    let words: Vec<&str> = err.split_whitespace().collect();
    let executed: u64 = words[2].parse().unwrap();
    let reused: u64 = words[5].parse().unwrap();
    let single: Value = serde_json::from_slice(&single).unwrap();
    assert_eq!(
        executed + reused,
        single["summary"]["runs"].as_u64().unwrap(),
        "{err}"
    );
    // At least the default order, the 6 pairs, the 3 alone and the 3 twice, all distinct.
    assert!(reused >= 13, "{err}");
}

#[test]
fn a_merge_refuses_its_output_as_a_journal_and_other_runners_journals() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let j = path(d, "shard.jsonl");
    ok(&od("detect", &["--shard", "1/2", "-o", &j]));
    let out = od("merge", &[&j, "-o", &j]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("is both a journal to merge and the output")
    );
    let out = paf(&[
        "od",
        "merge",
        &j,
        "--runner",
        "true",
        "--tests",
        root()
            .join("testdata/od/pradet-datasource/tests.txt")
            .to_str()
            .unwrap(),
        "-o",
        &path(d, "m.json"),
    ]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("shard.jsonl:1") && err.contains("another runner command"),
        "{err}"
    );
    let out = od("detect", &["--shard", "3/2", "-o", &j]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("expected i/N with 1 <= i <= N"));
}

#[test]
fn reports_convert_to_idflakies_and_back() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let report = path(d, "od.json");
    ok(&od("detect", &["-o", &report]));
    let lists = ok(&paf(&["od", "convert", &report, "--to", "idflakies"]));
    let v: Value = serde_json::from_str(&lists).unwrap();
    // The three edges of PRADET's Figure 2 (tuscan runs SetField, ToString, SetCloneString).
    // A state-setter edge: passing with the setter before (intended), failing alone.
    let dts = v["dts"].as_array().unwrap();
    assert_eq!(dts.len(), 3, "{lists}");
    let clone = "DataSourceTest.testSetCloneString";
    assert_eq!(dts[0]["name"], clone);
    assert_eq!(dts[0]["type"], "OD");
    assert_eq!(
        dts[0]["intended"]["order"],
        serde_json::json!(["DataSourceTest.testSetField"])
    );
    assert_eq!(dts[0]["intended"]["result"], "PASS");
    assert_eq!(dts[0]["revealed"]["order"], serde_json::json!([]));
    // The suite's NullPointerException is no assertion: an ERROR, as JUnit counts it.
    assert_eq!(dts[0]["revealed"]["result"], "ERROR");
    // The polluter edge: passing after the setter alone, failing (AssertionError: a FAILURE)
    // with testToString in between.
    assert_eq!(dts[1]["revealed"]["result"], "FAILURE");
    assert_eq!(
        dts[1]["revealed"]["order"],
        serde_json::json!(["DataSourceTest.testSetField", "DataSourceTest.testToString"])
    );
    // Read back: the same three edges, as a paf.od/2 report.
    let file = d.join("flaky-lists.json");
    std::fs::write(&file, &lists).unwrap();
    let back: Value = serde_json::from_str(&ok(&paf(&[
        "od",
        "convert",
        file.to_str().unwrap(),
        "--to",
        "paf",
    ])))
    .unwrap();
    assert_eq!(back["schema"], "paf.od/2");
    let kinds: Vec<(&str, &str)> = back["dependencies"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| {
            (
                e["dependent"].as_str().unwrap(),
                e["kind"].as_str().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        kinds,
        vec![
            (clone, "state-setter"),
            (clone, "polluter"),
            ("DataSourceTest.testToString", "state-setter")
        ]
    );
    assert_eq!(back["summary"]["masked_failures"], 2);
    // -o may not be the input.
    let out = paf(&["od", "convert", &report, "--to", "paf", "-o", &report]);
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn a_paf_od_1_report_reads_as_paf_od_2_with_its_edges() {
    // testdata/od/reports/paf-od-1.json is a report in the schema before the dependency graph
    // (dtdetector-example in the order Test3 Test1 Test2 Test4): Test2 a victim of Test3 and
    // Test1. Read as paf.od/2 it has that polluter edge, and rank --exclude-od still reads it.
    let v1 = "testdata/od/reports/paf-od-1.json";
    let r: Value = serde_json::from_str(&ok(&paf(&["od", "convert", v1, "--to", "paf"]))).unwrap();
    assert_eq!(r["schema"], "paf.od/2");
    let e = &r["dependencies"][0];
    assert_eq!(e["dependent"], "Test2");
    assert_eq!(e["kind"], "polluter");
    assert_eq!(e["on"], serde_json::json!(["Test3", "Test1"]));
    assert_eq!(e["witness"], serde_json::json!(["Test3", "Test1", "Test2"]));
    assert_eq!(e["baseline"], serde_json::json!(["Test2"]));
    assert_eq!(r["candidates"]["data"][0]["kind"], "read-after-write");
    assert_eq!(r["verdicts"][0]["order_caused_failure"], true);
}
