//! `paf rank --exclude-od` end to end without a JVM: `od detect` takes the default order from a
//! bundle (testdata/java/motivating/bundle) and runs a stand-in suite through
//! testdata/od/odrunner.py in which fTest2 fails only after fTest1; `rank --exclude-od` then
//! drops fTest2 from the ranking and lists it under `excluded` with its witness, while fTest1,
//! which fails alone too, stays ranked. And `paf rank --od` on the Java-traced static-state
//! example (its committed bundle with the isolated trace of RegressionTest0.test4, and the
//! report `od detect` wrote through tracer/java/run-order.sh): the two order-caused failures
//! leave, the masked failure joins, as golden files in testdata/od/golden/.

use std::process::Output;

use serde_json::Value;

mod common;
use common::{paf_output as paf, root};

/// Compares `actual` with the golden file, or rewrites it under `UPDATE_GOLDEN=1`.
fn check_golden(golden: &str, actual: &str) {
    let path = root().join(golden);
    if std::env::var_os("UPDATE_GOLDEN").is_some() {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, actual).unwrap();
        return;
    }
    let expected = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("{golden}: {e} (run with UPDATE_GOLDEN=1 to create it)"));
    pretty_assertions::assert_eq!(expected, actual, "golden file {golden}");
}

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
        err.contains("rank.json:2") && err.contains("expected a paf.od/2 report"),
        "{err}"
    );
}

const STATIC_STATE: &str = "testdata/java/static-state/bundle";
const STATIC_STATE_OD: &str = "testdata/java/static-state/od.json";

#[test]
fn rank_od_ranks_the_masked_failure_of_the_static_state_example() {
    // Worked by hand from testdata/java/static-state: ErrorTest0.test1 and test2 fail only
    // after RegressionTest0.test1 and test3 (order-caused, excluded); RegressionTest0.test4
    // passes only after test3 registered a default option: alone it dereferences the null
    // Defaults.first at Parser.java:27 (the local `o`, whose origin the trace cannot see: a
    // static field no test of the isolated run set). So the ranking is that one failure.
    let out = ok_json(&paf(&[
        "rank",
        STATIC_STATE,
        "--od",
        STATIC_STATE_OD,
        "--format",
        "json",
    ]));
    let ranked: Vec<&str> = out["tests"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["test"].as_str().unwrap())
        .collect();
    assert_eq!(ranked, vec!["RegressionTest0.test4"]);
    assert_eq!(out["tests"][0]["masked"], true);
    let fs = &out["flow_sets"][0];
    assert_eq!(fs["crash"]["exception"], "java.lang.NullPointerException");
    assert_eq!(fs["crash"]["statement"]["line"], 27);
    assert_eq!(fs["crash"]["variables"], serde_json::json!(["o"]));
    assert_eq!(
        out["masked"],
        serde_json::json!([{
            "test": "RegressionTest0.test4",
            "isolated": "java.lang.NullPointerException at org.cli.Parser:27",
            "state_setters": ["RegressionTest0.test3"],
        }])
    );
    let excluded: Vec<&str> = out["excluded"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["test"].as_str().unwrap())
        .collect();
    assert_eq!(excluded, vec!["ErrorTest0.test1", "ErrorTest0.test2"]);
    for (args, file) in [
        (vec!["--format", "json"], "rank-od.json"),
        (vec![], "rank-od.txt"),
        (
            vec!["--by", "test", "--format", "csv"],
            "rank-od-by-test.csv",
        ),
    ] {
        let mut all = vec!["rank", STATIC_STATE, "--od", STATIC_STATE_OD];
        all.extend(args);
        let out = paf(&all);
        assert_eq!(
            out.status.code(),
            Some(0),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        check_golden(
            &format!("testdata/od/golden/static-state/{file}"),
            &String::from_utf8(out.stdout).unwrap(),
        );
    }
    // Without --od the masked failure is not ranked (it passed in the bundle), and with
    // --exclude-od only the exclusion happens.
    let plain = ok_json(&paf(&[
        "rank",
        STATIC_STATE,
        "--exclude-od",
        STATIC_STATE_OD,
        "--format",
        "json",
    ]));
    assert!(plain["tests"].as_array().unwrap().is_empty());
    assert!(plain.get("masked").is_none());
}

#[test]
fn rank_od_warns_about_a_masked_failure_without_an_isolated_trace() {
    // The motivating bundle has no isolated.jsonl: the masked failure of a report naming one of
    // its passing tests cannot be ranked, and the warning says how to record it.
    let dir = tempfile::tempdir().unwrap();
    let lists = dir.path().join("flaky-lists.json");
    std::fs::write(
        &lists,
        r#"{"dts": [{"name": "org.example.ProjectEntryTest.pTest2", "type": "OD",
            "intended": {"order": ["org.example.ProjectEntryTest.pTest1"], "result": "PASS", "testRunId": "a"},
            "revealed": {"order": [], "result": "ERROR", "testRunId": "b"}}]}"#,
    )
    .unwrap();
    let out = paf(&[
        "rank",
        BUNDLE,
        "--od",
        lists.to_str().unwrap(),
        "--format",
        "json",
    ]);
    assert_eq!(out.status.code(), Some(0));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("masked failure org.example.ProjectEntryTest.pTest2 has no failing trace")
            && err.contains("paf trace java --isolate org.example.ProjectEntryTest.pTest2"),
        "{err}"
    );
}
