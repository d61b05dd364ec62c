//! `paf eval` end to end: hand-computed cases from `testdata/eval/`, the file-format rules, exit
//! codes, and goldens of whole outputs on the traced library suite (`UPDATE_GOLDEN=1` rewrites
//! them, and the SVG of docs/evaluation.md).

use std::path::Path;

use pretty_assertions::assert_eq;
use serde_json::Value;

mod common;
use common::{paf, root};

/// Runs `paf eval ... --format json`, expecting success, and parses the report.
fn eval_json(args: &[&str]) -> (Value, String) {
    let mut all = vec!["eval"];
    all.extend_from_slice(args);
    all.extend_from_slice(&["--format", "json"]);
    let (code, out, err) = paf(&all);
    assert_eq!(code, 0, "paf {all:?} failed: {err}");
    (serde_json::from_str(&out).expect("JSON report"), err)
}

fn ranking<'a>(report: &'a Value, name: &str) -> &'a Value {
    report["rankings"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["name"] == name)
        .unwrap_or_else(|| panic!("no ranking {name}"))
}

fn clustering<'a>(report: &'a Value, name: &str) -> &'a Value {
    report["clusterings"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["name"] == name)
        .unwrap_or_else(|| panic!("no clustering {name}"))
}

fn close(v: &Value, expected: f64) -> bool {
    (v.as_f64().expect("a number") - expected).abs() < 1e-12
}

#[test]
fn the_motivating_example_has_apfd_three_quarters() {
    // fTest1 (reveals the one fault) before fTest2: n = 2, m = 1, TF = 1;
    // APFD = 1 - 1/(2*1) + 1/(2*2) = 0.75.
    let (r, err) = eval_json(&[
        "--ranking",
        "testdata/eval/motivating/ranking.txt",
        "--truth",
        "testdata/eval/motivating/truth.csv",
    ]);
    assert_eq!(err, "");
    assert_eq!(r["schema"], "paf.eval/1");
    let apfd = &r["rankings"][0]["apfd"];
    assert_eq!(apfd["n"], 2);
    assert_eq!(apfd["m"], 1);
    assert_eq!(apfd["tf_sum"], 1);
    assert_eq!(apfd["undetected"], serde_json::json!([]));
    assert!(close(&apfd["value"], 0.75));

    // PAF itself on the bundle ranks fTest1 first, as flow-sets and as tests; its one local
    // flow-set is the one true alarm.
    let (r, _) = eval_json(&[
        "traces/motivating",
        "--truth",
        "testdata/eval/motivating/truth.csv",
        "--runs",
        "3",
    ]);
    for name in ["PAF (flow-sets)", "PAF (tests)", "unordered"] {
        assert!(close(&ranking(&r, name)["apfd"]["value"], 0.75), "{name}");
    }
    let alarms = &ranking(&r, "PAF (flow-sets)")["alarms"];
    assert_eq!((&alarms["alarms"], &alarms["true"]), (&1.into(), &1.into()));
}

#[test]
fn the_textbook_suite_of_figure_4() {
    // A reveals faults 1, 5; B 6, 7; C 1-7; D 5; E 8-10.
    // A-B-C-D-E: TF = 1, 3, 3, 3, 1, 2, 2, 5, 5, 5, sum 30: APFD = 1 - 30/50 + 1/10 = 0.5.
    // C-E-B-A-D: TF = 1 (x7), 2 (x3), sum 13: APFD = 1 - 13/50 + 1/10 = 0.84.
    let (r, _) = eval_json(&[
        "--ranking",
        "testdata/eval/figure4/abcde.txt",
        "--ranking",
        "testdata/eval/figure4/cebad.txt",
        "--truth",
        "testdata/eval/figure4/truth.csv",
    ]);
    let first = &r["rankings"][0]["apfd"];
    let second = &r["rankings"][1]["apfd"];
    assert_eq!((&first["tf_sum"], &first["m"]), (&30.into(), &10.into()));
    assert!(close(&first["value"], 0.5));
    assert_eq!(second["tf_sum"], 13);
    assert!(close(&second["value"], 0.84));
    assert_eq!(first["first"]["8"], 5);
}

#[test]
fn an_undetected_fault_and_unknown_ids_are_reported_by_name() {
    // Ranking x, a, b; truth a -> F1, b -> F2, z -> F3 (z is not ranked). n = 3, m = 3;
    // TF(F1) = 2, TF(F2) = 3, F3 undetected: (2(3-2)+1 + 2(3-3)+1) / (2*3*3) = 4/18.
    let args = [
        "--ranking",
        "testdata/eval/undetected/ranking.txt",
        "--truth",
        "testdata/eval/undetected/truth.csv",
    ];
    let (r, err) = eval_json(&args);
    let apfd = &r["rankings"][0]["apfd"];
    assert!(close(&apfd["value"], 4.0 / 18.0));
    assert_eq!(apfd["undetected"], serde_json::json!(["F3"]));
    assert_eq!(apfd["first"]["F3"], Value::Null);
    assert_eq!(
        err,
        "warning: testdata/eval/undetected/ranking.txt: 1 test(s) are not in testdata/eval/undetected/truth.csv \
         (counted as revealing no fault): x\n\
         warning: testdata/eval/undetected/ranking.txt: 1 test(s) of testdata/eval/undetected/truth.csv are \
         missing from it: z\n"
    );
    assert_eq!(r["warnings"].as_array().unwrap().len(), 2);
    // With --strict the same mismatches are an error (exit code 2), still by name.
    let mut strict = vec!["eval"];
    strict.extend_from_slice(&args);
    strict.push("--strict");
    let (code, out, err) = paf(&strict);
    assert_eq!((code, out.as_str()), (2, ""));
    assert!(
        err.starts_with("error: --strict: the ids of the inputs and the truth do not match:"),
        "{err}"
    );
    assert!(
        err.contains("revealing no fault): x\n") && err.contains("missing from it: z"),
        "{err}"
    );
}

#[test]
fn clusters_by_hand_in_both_file_forms_and_weightings() {
    // Truth A = {t0, t1, t2}, B = {t3}; produced {t0, t1}, {t2, t3}.
    // F({t0,t1}, A) = 4/5, F({t2,t3}, A) = 2/5, F({t2,t3}, B) = 2/3.
    // Truth weighting: 3/4 * 4/5 + 1/4 * 2/3 = 23/30. Produced: 1/2 * 4/5 + 1/2 * 2/3 = 11/15.
    // Purity (2 + 1)/4.
    for file in ["groups.txt", "groups.json"] {
        let clusters = format!("testdata/eval/clusters/{file}");
        let truth = "testdata/eval/clusters/truth.csv";
        let (r, err) = eval_json(&["--clusters", &clusters, "--truth", truth]);
        assert_eq!(err, "");
        let f = &r["clusterings"][0]["f_measure"];
        assert!(close(&f["value"], 23.0 / 30.0), "{file}: {f}");
        assert_eq!(
            (&f["clusters"], &f["weighting"]),
            (&2.into(), &"truth".into())
        );
        assert!(close(&f["purity"], 0.75));
        let (r, _) = eval_json(&[
            "--clusters",
            &clusters,
            "--truth",
            truth,
            "--weighting",
            "produced",
        ]);
        assert!(close(
            &r["clusterings"][0]["f_measure"]["value"],
            11.0 / 15.0
        ));
    }
}

/// Writes `text` with its `\n` line ends replaced by `eol` into `dir/name`.
fn with_eol(dir: &Path, name: &str, source: &str, eol: &str) -> String {
    let text = std::fs::read_to_string(root().join(source)).unwrap();
    let path = dir.join(name);
    std::fs::write(&path, text.replace('\n', eol)).unwrap();
    path.display().to_string()
}

#[test]
fn windows_and_old_mac_line_endings_give_the_same_numbers() {
    let dir = tempfile::tempdir().unwrap();
    let mut reports = Vec::new();
    for (k, eol) in ["\n", "\r\n", "\r"].iter().enumerate() {
        let ranking = with_eol(
            dir.path(),
            &format!("r{k}.txt"),
            "testdata/eval/figure4/cebad.txt",
            eol,
        );
        let truth = with_eol(
            dir.path(),
            &format!("t{k}.csv"),
            "testdata/eval/clusters/truth.csv",
            eol,
        );
        let clusters = with_eol(
            dir.path(),
            &format!("c{k}.txt"),
            "testdata/eval/clusters/groups.txt",
            eol,
        );
        let truth4 = with_eol(
            dir.path(),
            &format!("f{k}.csv"),
            "testdata/eval/figure4/truth.csv",
            eol,
        );
        let (r, _) = eval_json(&["--ranking", &ranking, "--truth", &truth4]);
        let (c, _) = eval_json(&["--clusters", &clusters, "--truth", &truth]);
        reports.push((
            r["rankings"][0]["apfd"].clone(),
            c["clusterings"][0]["f_measure"].clone(),
        ));
    }
    assert!(close(&reports[0].0["value"], 0.84));
    assert_eq!(reports[0], reports[1]);
    assert_eq!(reports[0], reports[2]);
}

#[test]
fn the_baselines_on_a_hand_written_bundle() {
    let (r, err) = eval_json(&[
        "testdata/eval/baselines",
        "--truth",
        "testdata/eval/baselines/truth.csv",
        "--runs",
        "20",
    ]);
    assert_eq!(err, "");
    assert_eq!(r["failing"], 7);
    let flags = |name: &str| -> Vec<bool> {
        ranking(&r, name)["classified"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| c["alarm"].as_bool().unwrap())
            .collect()
    };
    // JCrasher: fail1 AIOOBE at height 1 (reported); fail2 put -> get, height 2 (reported);
    // fail3 NPE at height 1 (suppressed); fail4 in a non-public class, height 0 (suppressed);
    // fail5 HashMap.get (unknown: trimmed) < helper (private: trimmed) < get < put, height 2
    // (reported); fail6 an AssertionError (suppressed); fail7 AIOOBE at height 1 (reported).
    assert_eq!(
        flags("JCrasher"),
        [true, true, false, false, true, false, true]
    );
    let a = &ranking(&r, "JCrasher")["alarms"];
    assert_eq!(
        (&a["alarms"], &a["true"], &a["relevant"]),
        (&4.into(), &2.into(), &2.into())
    );
    assert!(close(&a["precision"], 0.5) && close(&a["recall"], 1.0));
    // Daikon: from pass1 (get i=1, size 3) and pass2 (get i=2, size 3): 1 <= i <= 2 and
    // this.size == 3 at get. fail1 (i = 5) and fail7 (i = 0, size 4) violate them; put and
    // Hidden.run have no invariants; fail6's calls all returned.
    assert_eq!(
        flags("Daikon"),
        [false, true, true, true, true, true, false]
    );
    let classified = &ranking(&r, "Daikon")["classified"];
    assert_eq!(classified[0]["reason"], "p.Api.get: violates 1 <= i <= 2");
    assert_eq!(
        classified[6]["reason"],
        "p.Api.get: violates 1 <= i <= 2; this.size == 3"
    );
    assert_eq!(
        classified[5]["reason"],
        "no call of the test body threw: nothing to check"
    );
    let a = &ranking(&r, "Daikon")["alarms"];
    assert_eq!((&a["alarms"], &a["true"]), (&5.into(), &1.into()));
    // In every random order, JCrasher's four alarms come first and hold both faults.
    let first = &ranking(&r, "JCrasher")["apfd"]["first"];
    assert!(first["F1"].as_f64().unwrap() <= 4.0 && first["F2"].as_f64().unwrap() <= 4.0);
    // Unordered: fail1 (F1) first, fail2 (F2) second: (2(7-1)+1 + 2(7-2)+1) / (2*7*2) = 24/28.
    assert!(close(
        &ranking(&r, "unordered")["apfd"]["value"],
        24.0 / 28.0
    ));
    // ReBucket: [get] (fail1, fail3, fail7) and [get, put] (fail2) have similarity 1 and merge;
    // [HashMap.get, helper, get, put] is at distance 1 - e^-2 from both (> d = 0.5).
    // Over the revealing tests {fail1, fail2}: one cluster against two faults, F = 2/3.
    let rb = &clustering(&r, "ReBucket")["f_measure"];
    assert!(close(&rb["value"], 2.0 / 3.0) && close(&rb["purity"], 0.5));
    assert_eq!(rb["clusters"], 1);
    assert_eq!(clustering(&r, "ReBucket")["params"]["c"], 1.0);
    // Signatures tell an AIOOBE from an NPE at the same frame.
    for name in ["top frame", "whole stack", "PAF (flow-sets)"] {
        let f = &clustering(&r, name)["f_measure"];
        assert!(close(&f["value"], 1.0), "{name}");
        assert_eq!(f["clusters"], 2, "{name}");
    }
}

#[test]
fn bad_input_is_reported_with_file_and_line_and_exit_code_2() {
    let dir = tempfile::tempdir().unwrap();
    let bad_truth = dir.path().join("truth.csv");
    std::fs::write(&bad_truth, "test;fault\nx;F1\n").unwrap();
    let dup = dir.path().join("ranking.txt");
    std::fs::write(&dup, "a\nb\na\n").unwrap();
    let (bad, dup) = (bad_truth.display().to_string(), dup.display().to_string());
    let good_truth = "testdata/eval/motivating/truth.csv";
    let cases: Vec<(Vec<&str>, String)> = vec![
        (
            vec![
                "--ranking",
                "testdata/eval/motivating/ranking.txt",
                "--truth",
                &bad,
            ],
            format!(
                "error: {bad}:1: header is \"test;fault\": expected the header test,fault\n\
                 error: {bad}:2: 1 field(s): expected 2 (test,fault; quote a comma inside an id)\n"
            ),
        ),
        (
            vec!["--ranking", &dup, "--truth", good_truth],
            format!("error: {dup}:3: a is already ranked on line 1: expected each test once\n"),
        ),
        (
            vec!["--ranking", "testdata/eval/nope.txt", "--truth", good_truth],
            "error: testdata/eval/nope.txt: no such file\n".to_string(),
        ),
        (
            vec!["testdata/eval/no-bundle", "--truth", good_truth],
            "error: testdata/eval/no-bundle: no such bundle directory\n".to_string(),
        ),
    ];
    for (args, expected) in cases {
        let mut all = vec!["eval"];
        all.extend(args);
        let (code, out, err) = paf(&all);
        assert_eq!(
            (code, out.as_str(), err.as_str()),
            (2, "", expected.as_str()),
            "{all:?}"
        );
    }
    // Usage errors: no input, a bundle with --ranking, no truth.
    for args in [
        vec!["eval", "--truth", good_truth],
        vec![
            "eval",
            "traces/motivating",
            "--ranking",
            "x",
            "--truth",
            good_truth,
        ],
        vec!["eval", "traces/motivating"],
        vec![
            "eval",
            "traces/motivating",
            "--truth",
            good_truth,
            "--runs",
            "0",
        ],
    ] {
        let (code, _, err) = paf(&args);
        assert_eq!(code, 2, "{args:?}: {err}");
    }
}

/// Compares `actual` with the golden file, or rewrites it under `UPDATE_GOLDEN=1`.
fn check(golden: &str, actual: &str) {
    let path = root().join(golden);
    if std::env::var_os("UPDATE_GOLDEN").is_some() {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, actual).unwrap();
        return;
    }
    let expected = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("{golden}: {e} (run with UPDATE_GOLDEN=1 to create it)"));
    assert_eq!(expected, actual, "golden file {golden}");
}

const LIBRARY: &str = "testdata/java/library/bundle";
const LIBRARY_TRUTH: &str = "testdata/java/library/truth.csv";

#[test]
fn the_library_suite_matches_its_goldens_and_the_documented_plot() {
    let dir = tempfile::tempdir().unwrap();
    let svg = dir.path().join("apfd.svg");
    let svg_arg = svg.display().to_string();
    for (format, golden) in [
        ("table", "testdata/eval/golden/library.txt"),
        ("json", "testdata/eval/golden/library.json"),
        ("csv", "testdata/eval/golden/library.csv"),
    ] {
        let (code, out, err) = paf(&[
            "eval",
            LIBRARY,
            "--truth",
            LIBRARY_TRUTH,
            "--format",
            format,
            "--plot",
            &svg_arg,
        ]);
        assert_eq!((code, err.as_str()), (0, ""), "{format}");
        check(golden, &out);
        if format == "table" && std::env::var_os("UPDATE_GOLDEN").is_none() {
            let doc = std::fs::read_to_string(root().join("docs/evaluation.md")).unwrap();
            assert!(
                doc.contains(&out),
                "docs/evaluation.md does not show the current table; paste {golden} into it"
            );
        }
    }
    let plot = std::fs::read_to_string(&svg).unwrap();
    assert!(plot.starts_with("<svg"), "not an SVG");
    check("docs/evaluation-apfd.svg", &plot);
}

#[test]
fn the_same_seed_gives_the_same_bytes_and_another_seed_other_random_orders() {
    let run = |seed: &str| {
        let (code, out, _) = paf(&[
            "eval",
            LIBRARY,
            "--truth",
            LIBRARY_TRUTH,
            "--format",
            "csv",
            "--seed",
            seed,
            "--runs",
            "10",
        ]);
        assert_eq!(code, 0);
        out
    };
    assert_eq!(run("7"), run("7"));
    let random_row = |csv: &str| {
        csv.lines()
            .find(|l| l.starts_with("ranking,random,"))
            .unwrap()
            .to_string()
    };
    assert_ne!(random_row(&run("7")), random_row(&run("8")));
}

#[test]
fn a_bad_access_or_values_field_names_the_file_line_and_what_was_expected() {
    let src = root().join("testdata/eval/baselines");
    // Each case breaks one file of a copy of the hand-written bundle.
    let cases = [
        (
            "statements.jsonl",
            r#""method": ["public"]"#,
            r#""method": ["publik"]"#,
            "statements.jsonl:1:",
            "unknown variant `publik`, expected one of `public`",
        ),
        (
            "tests.jsonl",
            r#""args":{"i":1}"#,
            r#""args":{"i":[1]}"#,
            "tests.jsonl:2:",
            "expected null, a boolean, a number, or an object such as {\"length\": 3}",
        ),
    ];
    for (file, from, to, at, expected) in cases {
        let dir = tempfile::tempdir().unwrap();
        for f in ["manifest.json", "statements.jsonl", "tests.jsonl"] {
            let text = std::fs::read_to_string(src.join(f)).unwrap();
            let text = if f == file {
                text.replacen(from, to, 1)
            } else {
                text
            };
            std::fs::write(dir.path().join(f), text).unwrap();
        }
        let bundle = dir.path().display().to_string();
        let (code, out, err) = paf(&[
            "eval",
            &bundle,
            "--truth",
            "testdata/eval/baselines/truth.csv",
        ]);
        assert_eq!((code, out.as_str()), (2, ""), "{file}");
        assert!(err.contains(at) && err.contains(expected), "{file}: {err}");
    }
}
