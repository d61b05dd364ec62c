//! `paf rank --exclude-od` end to end without a JVM: `od detect` takes the default order from a
//! bundle (testdata/java/motivating/bundle) and runs a stand-in suite through
//! testdata/od/odrunner.py in which fTest2 fails only after fTest1; `rank --exclude-od` then
//! drops fTest2 from the ranking and lists it under `excluded` with its witness, while fTest1,
//! which fails alone too, stays ranked.

use std::process::Output;

use serde_json::Value;

mod common;
use common::{paf_output as paf, root};

const F1: &str = "org.example.ProjectEntryTest.fTest1";
const F2: &str = "org.example.ProjectEntryTest.fTest2";
const BUNDLE: &str = "testdata/java/motivating/bundle";

fn ok_json(out: &Output) -> Value {
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("JSON")
}

/// A suite over the bundle's test ids: fTest1 always fails and leaves state behind; fTest2
/// fails only when it finds that state.
const SUITE: &str = r#"
@test("org.example.ProjectEntryTest.fTest1")
def f1(s):
    s.put("entries", None)
    deref(s.get("entries"))


@test("org.example.ProjectEntryTest.fTest2")
def f2(s):
    if s.get("entries", "fresh") is None:
        deref(None)


@test("org.example.ProjectEntryTest.pTest1")
def p1(s):
    pass


@test("org.example.ProjectEntryTest.pTest2")
def p2(s):
    pass
"#;

#[test]
fn rank_exclude_od_drops_order_caused_failures_and_keeps_the_rest() {
    let dir = tempfile::tempdir().unwrap();
    let suite = dir.path().join("suite.py");
    std::fs::write(&suite, SUITE).unwrap();
    let runner = format!(
        "python3 '{}' '{}'",
        root().join("testdata/od/odrunner.py").display(),
        suite.display()
    );
    let od = dir.path().join("od.json");
    let report = ok_json(&paf(&[
        "od",
        "detect",
        "--runner",
        &runner,
        "--bundle",
        BUNDLE,
        "--algo",
        "isolate",
        "--format",
        "json",
        "-o",
        od.to_str().unwrap(),
    ]));
    // The default order is the bundle's.
    let tests: Vec<String> = serde_json::from_value(report["tests"].clone()).unwrap();
    assert_eq!(tests[..2], [F1.to_string(), F2.to_string()]);
    assert_eq!(report["summary"]["order_caused_failures"], 1);

    let before = ok_json(&paf(&["rank", BUNDLE, "--format", "json"]));
    let ranked = |r: &Value| -> Vec<String> {
        r["tests"]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| t["test"].as_str().unwrap().to_string())
            .collect()
    };
    assert!(ranked(&before).contains(&F2.to_string()));
    assert!(before.get("excluded").is_none());

    let after = ok_json(&paf(&[
        "rank",
        BUNDLE,
        "--exclude-od",
        od.to_str().unwrap(),
        "--format",
        "json",
    ]));
    assert_eq!(ranked(&after), vec![F1.to_string()]);
    for fs in after["flow_sets"].as_array().unwrap() {
        assert!(!fs["tests"].as_array().unwrap().iter().any(|t| t == F2));
    }
    assert_eq!(
        after["excluded"],
        serde_json::json!([{
            "test": F2,
            "verdict": "victim",
            "witness": [F1, F2],
            "polluters": [F1],
        }])
    );
    let table = paf(&["rank", BUNDLE, "--exclude-od", od.to_str().unwrap()]);
    let text = String::from_utf8_lossy(&table.stdout);
    assert!(
        text.contains(&format!(
            "Excluded: 1 failure caused by the test order (--exclude-od)\n  {F2} (victim): fails after {F1}; witness: {F1} {F2}\n"
        )),
        "{text}"
    );
}

#[test]
fn rank_exclude_od_rejects_what_is_not_an_od_report() {
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("missing.json");
    let out = paf(&["rank", BUNDLE, "--exclude-od", missing.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("missing.json"));
    let other = dir.path().join("rank.json");
    std::fs::write(&other, "{\n  \"schema\": \"paf.rank/1\"\n}\n").unwrap();
    let out = paf(&["rank", BUNDLE, "--exclude-od", other.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("rank.json:2") && err.contains("expected a paf.od/1 report"),
        "{err}"
    );
}
