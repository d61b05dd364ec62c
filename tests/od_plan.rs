//! `paf od plan` through the binary: the schedule counts the issue asks for, worked out by hand
//! in docs/order-dependence.md from the DTDetector algorithms-section figure.

use std::process::Command;

use serde_json::Value;

const EX: &str = "testdata/od/dtdetector-example";

fn plan(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_paf"))
        .args(["od", "plan"])
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("paf runs");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn schedules(algo: &str, k: usize) -> Vec<Vec<String>> {
    let tests = format!("{EX}/tests.txt");
    let access = format!("{EX}/access.json");
    let k = k.to_string();
    let (code, stdout, stderr) = plan(&[
        "--tests", &tests, "--access", &access, "--algo", algo, "--k", &k, "--format", "json",
    ]);
    assert_eq!(code, 0, "{stderr}");
    let v: Value = serde_json::from_str(&stdout).expect("plan prints JSON");
    serde_json::from_value(v["schedules"].clone()).expect("a list of schedules")
}

#[test]
fn last_writer_selects_1_6_18_21() {
    let counts: Vec<usize> = (1..=4)
        .map(|k| schedules("dep-aware-lastwriter", k).len())
        .collect();
    assert_eq!(counts, vec![1, 6, 18, 21]);
    assert_eq!(schedules("dep-aware-lastwriter", 1), vec![vec!["Test4"]]);
    // The paper's five pairs and <Test3, Test1>, which its list leaves out.
    let two = schedules("dep-aware-lastwriter", 2);
    assert!(two.contains(&vec!["Test3".to_string(), "Test1".to_string()]));
}

#[test]
fn pairwise_is_twelve_and_exhaustive_follows_k() {
    assert_eq!(schedules("pairwise", 2).len(), 12);
    assert_eq!(schedules("exhaustive", 1).len(), 4);
    assert_eq!(schedules("exhaustive", 3).len(), 24);
    assert_eq!(schedules("isolate", 2).len(), 4);
    assert_eq!(
        schedules("reverse", 2),
        vec![vec!["Test4", "Test3", "Test2", "Test1"]]
    );
}

#[test]
fn issta_dep_aware_and_pradet_plans() {
    // k = 2: the four singles and <Test3, Test1>, <Test3, Test4>, <Test4, Test2>.
    assert_eq!(schedules("dep-aware", 2).len(), 7);
    // One read-after-write edge (Test4 read the x Test3 wrote): invert it, Test4 runs alone.
    assert_eq!(schedules("pradet", 2), vec![vec!["Test4"]]);
}

#[test]
fn random_is_reproducible_and_several_algorithms_concatenate() {
    let tests = format!("{EX}/tests.txt");
    let args = [
        "--tests", &tests, "--algo", "random", "--trials", "5", "--seed", "42",
    ];
    let (_, a, _) = plan(&args);
    let (_, b, _) = plan(&args);
    assert_eq!(a, b);
    let v: Value = serde_json::from_str(&a).unwrap();
    assert_eq!(v["schedules"].as_array().unwrap().len(), 5);
    let (code, out, _) = plan(&["--tests", &tests, "--algo", "reverse,isolate"]);
    assert_eq!(code, 0);
    let v: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["schedules"].as_array().unwrap().len(), 5);
    assert_eq!(v["algorithms"][1]["schedules"], 4);
}

#[test]
fn bad_input_is_exit_2_with_file_and_line() {
    let tests = format!("{EX}/tests.txt");
    // An algorithm that needs access sets, without them.
    let (code, _, err) = plan(&["--tests", &tests, "--algo", "dep-aware"]);
    assert_eq!(code, 2);
    assert!(err.contains("--access"), "{err}");
    // An unknown algorithm.
    let (code, _, _) = plan(&["--tests", &tests, "--algo", "clever"]);
    assert_eq!(code, 2);
    // A broken access file.
    let dir = tempfile::tempdir().unwrap();
    let bad = dir.path().join("access.json");
    std::fs::write(
        &bad,
        "{\"format\": \"paf-od-access\", \"version\": 1,\n \"tests\": {\"Nope\": {}}}",
    )
    .unwrap();
    let (code, _, err) = plan(&[
        "--tests",
        &tests,
        "--access",
        bad.to_str().unwrap(),
        "--algo",
        "pradet",
    ]);
    assert_eq!(code, 2);
    assert!(err.contains("access.json:2:"), "{err}");
    assert!(err.contains("\"Nope\" is not in the test list"), "{err}");
    // Duplicate test ids.
    let list = dir.path().join("tests.txt");
    std::fs::write(&list, "A\nB\nA\n").unwrap();
    let (code, _, err) = plan(&["--tests", list.to_str().unwrap()]);
    assert_eq!(code, 2);
    assert!(err.contains("tests.txt:3: duplicate test id"), "{err}");
}

#[test]
fn tuscan_rows_of_four_and_triage_from_a_bundle() {
    // The square of four, 0 1 3 2 shifted by 0..4, on Test1..Test4.
    let (code, stdout, stderr) = plan(&[
        "--tests",
        &format!("{EX}/tests.txt"),
        "--algo",
        "tuscan",
        "--format",
        "text",
    ]);
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(
        stdout,
        "# tuscan: 4 schedules\nTest1 Test2 Test4 Test3\nTest2 Test3 Test1 Test4\nTest3 Test4 Test2 Test1\nTest4 Test1 Test3 Test2\n"
    );
    // Triage is the default with a bundle, planned from its outcomes: the static-state
    // example's failing ErrorTest0.test1 and test2 alone, then the one passing test that read
    // state an earlier test wrote: RegressionTest0.test4 reads Defaults.first, which test3
    // wrote (test2 and test3 read nothing an earlier test wrote; the standard streams do not
    // count).
    let (code, stdout, stderr) = plan(&[
        "--bundle",
        "testdata/java/static-state/bundle",
        "--format",
        "text",
    ]);
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(
        stdout,
        "# triage: 3 schedules\nErrorTest0.test1\nErrorTest0.test2\nRegressionTest0.test4\n"
    );
}
