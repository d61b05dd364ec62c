//! `paf.od/2` reports that do not hold together, as a hand edit leaves them: `od replay` and
//! `rank --exclude-od` refuse them with exit code 2 and one problem per value at fault, at its
//! line, where replay used to panic. The reports are edited from a real `od detect` report of
//! testdata/od/dtdetector-example (Test2 fails after Test3 then Test1).

use std::path::{Path, PathBuf};
use std::process::Output;

use serde_json::Value;

mod common;
use common::{paf_output as paf, root};

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// The report of `od detect` on the example in the order Test3 Test1 Test2 Test4: one
/// verdict, Test2 a victim whose witness is Test3 Test1 Test2.
fn detected(dir: &Path) -> Value {
    let ex = root().join("testdata/od/dtdetector-example");
    let tests = dir.join("tests.txt");
    std::fs::write(&tests, "Test3\nTest1\nTest2\nTest4\n").unwrap();
    let report = dir.join("od.json");
    let out = paf(&[
        "od",
        "detect",
        "--runner",
        ex.join("run").to_str().unwrap(),
        "--tests",
        tests.to_str().unwrap(),
        "--algo",
        "isolate",
        "--no-progress",
        "-o",
        report.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let r: Value = serde_json::from_slice(&std::fs::read(&report).unwrap()).unwrap();
    assert_eq!(r["verdicts"][0]["test"], "Test2", "{r}");
    assert_eq!(r["verdicts"][0]["findings"].as_array().unwrap().len(), 1);
    r
}

/// Writes `report` as pretty JSON to `dir/name`; its path and text.
fn write(dir: &Path, name: &str, report: &Value) -> (PathBuf, String) {
    let path = dir.join(name);
    let json = serde_json::to_string_pretty(report).unwrap() + "\n";
    std::fs::write(&path, &json).unwrap();
    (path, json)
}

/// The 1-based line of the first line of `text` that starts with `start` (spaces aside).
fn line(text: &str, start: &str) -> usize {
    line_after(text, 0, start)
}

/// The same, among the lines after line `after`.
fn line_after(text: &str, after: usize, start: &str) -> usize {
    text.lines()
        .skip(after)
        .position(|l| l.trim_start().starts_with(start))
        .expect("the line is there")
        + after
        + 1
}

/// The line of the first line starting with `start` in the verdicts (after the dependency
/// graph, which has witnesses too).
fn verdict_line(text: &str, start: &str) -> usize {
    line_after(text, line(text, "\"verdicts\": ["), start)
}

/// Exit code 2, these lines on standard error, nothing on standard output.
fn refused(out: &Output, expected: &[String]) {
    let err = text(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    let want: String = expected.iter().map(|l| format!("{l}\n")).collect();
    assert_eq!(err, want);
    assert_eq!(text(&out.stdout), "");
}

#[test]
fn a_witness_without_its_test_is_a_problem_at_its_line() {
    let dir = tempfile::tempdir().unwrap();
    let mut r = detected(dir.path());
    r["verdicts"][0]["witness"] = serde_json::json!(["Test3", "Test1"]);
    let (path, json) = write(dir.path(), "witness.json", &r);
    let out = paf(&[
        "od",
        "replay",
        path.to_str().unwrap(),
        "Test2",
        "--runner",
        "true",
    ]);
    refused(
        &out,
        &[format!(
            "error: {}:{}: verdict for \"Test2\": its witness does not run the test; expected an order that runs \"Test2\"",
            path.display(),
            verdict_line(&json, "\"witness\": [")
        )],
    );
}

#[test]
fn a_verdict_for_an_unlisted_test_is_a_problem_at_its_line() {
    let dir = tempfile::tempdir().unwrap();
    let mut r = detected(dir.path());
    // Renamed in the verdict only, and without an isolated outcome (replay would run the test
    // alone): replay used to look Test5 up in the test list and panic.
    r["verdicts"][0]["test"] = "Test5".into();
    r["verdicts"][0]
        .as_object_mut()
        .unwrap()
        .remove("isolated_outcome");
    let (path, json) = write(dir.path(), "unlisted.json", &r);
    let p = path.display();
    let expected = [
        format!(
            "error: {p}:{}: verdict for \"Test5\": the test is not in the report's test list; expected only ids from \"tests\"",
            line(&json, "\"test\": \"Test5\"")
        ),
        format!(
            "error: {p}:{}: verdict for \"Test5\": its witness does not run the test; expected an order that runs \"Test5\"",
            verdict_line(&json, "\"witness\": [")
        ),
        format!(
            "error: {p}:{}: verdict for \"Test5\": the order of finding 0 does not run the test; expected an order that runs \"Test5\"",
            line_after(&json, line(&json, "\"findings\": ["), "\"order\": [")
        ),
    ];
    let out = paf(&[
        "od",
        "replay",
        path.to_str().unwrap(),
        "Test5",
        "--runner",
        "true",
    ]);
    refused(&out, &expected);
    // rank --exclude-od reads reports the same way.
    let out = paf(&[
        "rank",
        "testdata/java/motivating/bundle",
        "--exclude-od",
        path.to_str().unwrap(),
    ]);
    refused(&out, &expected);
}

#[test]
fn an_unlisted_polluter_is_a_problem_at_its_line() {
    let dir = tempfile::tempdir().unwrap();
    let mut r = detected(dir.path());
    r["verdicts"][0]["polluters"][1] = "Test9".into();
    let (path, json) = write(dir.path(), "polluter.json", &r);
    // The second polluter, on the line after `"polluters": [` and the first.
    let at = verdict_line(&json, "\"polluters\": [") + 2;
    let out = paf(&[
        "od",
        "replay",
        path.to_str().unwrap(),
        "Test2",
        "--runner",
        "true",
    ]);
    refused(
        &out,
        &[format!(
            "error: {}:{at}: verdict for \"Test2\": \"Test9\" in its polluters is not in the report's test list; expected only ids from \"tests\"",
            path.display()
        )],
    );
}

#[test]
fn an_edge_with_an_unlisted_test_or_a_wrong_last_test_is_a_problem_at_its_line() {
    let dir = tempfile::tempdir().unwrap();
    let mut r = detected(dir.path());
    // The one edge: Test2 must not run after Test3 and Test1.
    assert_eq!(r["dependencies"][0]["kind"], "polluter");
    r["dependencies"][0]["on"][0] = "Test9".into();
    r["dependencies"][0]["baseline"] = serde_json::json!(["Test2", "Test3"]);
    let (path, json) = write(dir.path(), "edge.json", &r);
    let p = path.display();
    let expected = [
        format!(
            "error: {p}:{}: dependency of \"Test2\": \"Test9\" in its on is not in the report's test list; expected only ids from \"tests\"",
            line(&json, "\"on\": [") + 1
        ),
        format!(
            "error: {p}:{}: dependency of \"Test2\": its baseline does not end with the test; expected an order whose last test is \"Test2\"",
            line(&json, "\"baseline\": [")
        ),
    ];
    let out = paf(&[
        "od",
        "replay",
        path.to_str().unwrap(),
        "Test2",
        "--runner",
        "true",
    ]);
    refused(&out, &expected);
}
