//! `paf od detect` on the examples of testdata/od/, through their `run` scripts (a real process
//! per schedule). The expected verdicts, witnesses and polluters are worked out by hand from
//! the papers (docs/order-dependence.md, "Examples"); each algorithm that can find them must,
//! and each that cannot must not.

use std::path::Path;
use std::process::Command;

use serde_json::Value;

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// Runs `od detect` on an example and returns the JSON report.
fn detect_with(example: &str, tests: Option<&Path>, args: &[&str], env: &[(&str, &Path)]) -> Value {
    let dir = root().join("testdata/od").join(example);
    let tests = tests.map_or(dir.join("tests.txt"), Path::to_path_buf);
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_paf"));
    cmd.args(["od", "detect", "--runner"])
        .arg(dir.join("run"))
        .arg("--tests")
        .arg(tests)
        .arg("--access")
        .arg(dir.join("access.json"))
        .args(["--format", "json", "--no-progress"])
        .args(args);
    for (k, v) in env {
        cmd.env(k, v);
    }
    let out = cmd.output().expect("paf runs");
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: Value = serde_json::from_slice(&out.stdout).expect("JSON report");
    assert_eq!(v["schema"], "paf.od/2");
    v
}

fn detect(example: &str, args: &[&str]) -> Value {
    detect_with(example, None, args, &[])
}

fn verdict<'a>(report: &'a Value, test: &str) -> Option<&'a Value> {
    report["verdicts"]
        .as_array()
        .unwrap()
        .iter()
        .find(|v| v["test"] == test)
}

fn strings(v: &Value) -> Vec<String> {
    serde_json::from_value(v.clone()).unwrap()
}

fn tested(report: &Value) -> Vec<String> {
    report["verdicts"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v["test"].as_str().unwrap().to_string())
        .collect()
}

#[test]
fn dtdetector_example_test2_needs_test3_then_test1() {
    // Test2 fails only when Test3 (x = 0) then Test1 (y = 0) ran before it, with no Test4 in
    // between: a 3-permutation. Only algorithms that run such a permutation find it.
    for (algo, k) in [
        ("exhaustive", "3"),
        ("dep-aware", "3"),
        ("dep-aware-lastwriter", "3"),
    ] {
        let r = detect("dtdetector-example", &["--algo", algo, "--k", k, "-j", "2"]);
        assert_eq!(tested(&r), vec!["Test2"], "{algo}");
        let v = verdict(&r, "Test2").unwrap();
        assert_eq!(v["verdict"], "victim");
        assert_eq!(strings(&v["witness"]), vec!["Test3", "Test1", "Test2"]);
        assert_eq!(strings(&v["polluters"]), vec!["Test3", "Test1"]);
        assert_eq!(v["default_outcome"]["outcome"], "pass");
        assert_eq!(v["isolated_outcome"]["outcome"], "pass");
        assert_eq!(v["witness_outcome"]["exception"], "AssertionError");
        assert_eq!(v["order_caused_failure"], false);
        assert_eq!(v["findings"][0]["one_minimal"], true);
        assert_eq!(strings(&v["found_by"]), vec![algo]);
        // Confirmation re-ran both orders three times and they agreed.
        for c in v["confirmation"].as_array().unwrap() {
            assert_eq!(c["agreed"], true);
            assert_eq!(c["observed"].as_array().unwrap().len(), 3);
        }
    }
    for (algo, k) in [
        ("reverse", "2"),
        ("isolate", "2"),
        ("pairwise", "2"),
        ("exhaustive", "2"),
        ("dep-aware", "2"),
        ("dep-aware-lastwriter", "2"),
        ("pradet", "2"),
        ("twice", "2"),
    ] {
        let r = detect("dtdetector-example", &["--algo", algo, "--k", k, "-j", "2"]);
        assert!(tested(&r).is_empty(), "{algo} k={k}: {r}");
    }
}

#[test]
fn dtdetector_example_runs_per_algorithm_and_dependencies() {
    let r = detect(
        "dtdetector-example",
        &[
            "--algo",
            "reverse,isolate,dep-aware-lastwriter,pradet",
            "--k",
            "3",
            "-j",
            "2",
        ],
    );
    let runs: Vec<(String, u64)> = r["algorithms"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| {
            (
                a["algo"].as_str().unwrap().to_string(),
                a["runs"].as_u64().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        runs,
        vec![
            ("reverse".to_string(), 1),
            ("isolate".to_string(), 4),
            ("dep-aware-lastwriter".to_string(), 18),
            ("pradet".to_string(), 1),
        ]
    );
    // PRADET: the one read-after-write edge, Test4 on Test3 (x), is dropped: Test4 alone
    // changes nothing (it has no assertion).
    let p = &r["candidates"]["pradet"][0];
    assert_eq!(
        (p["dependent"].as_str(), p["on"].as_str()),
        (Some("Test4"), Some("Test3"))
    );
    assert_eq!(p["status"], "dropped");
    assert_eq!(strings(&p["schedule"]), vec!["Test4"]);
    // ElectricTest: Test4 read Test3's x; Test3 overwrote the x Test1 read; Test4 overwrote
    // the y Test2 read.
    let data: Vec<(String, String, String)> = r["candidates"]["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| {
            (
                d["kind"].as_str().unwrap().to_string(),
                d["reader"].as_str().unwrap().to_string(),
                d["writer"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    let s = |a: &str, b: &str, c: &str| (a.to_string(), b.to_string(), c.to_string());
    assert_eq!(
        data,
        vec![
            s("read-after-write", "Test4", "Test3"),
            s("write-after-read", "Test1", "Test3"),
            s("write-after-read", "Test2", "Test4"),
        ]
    );
}

#[test]
fn a_victim_failing_in_the_default_order_is_an_order_caused_failure() {
    // The same four tests in the order Test3, Test1, Test2, Test4: Test2 fails in the default
    // order and passes alone.
    let dir = tempfile::tempdir().unwrap();
    let list = dir.path().join("tests.txt");
    std::fs::write(&list, "Test3\nTest1\nTest2\nTest4\n").unwrap();
    let r = detect_with(
        "dtdetector-example",
        Some(&list),
        &["--algo", "isolate"],
        &[],
    );
    let v = verdict(&r, "Test2").unwrap();
    assert_eq!(v["verdict"], "victim");
    assert_eq!(v["order_caused_failure"], true);
    assert_eq!(strings(&v["witness"]), vec!["Test3", "Test1", "Test2"]);
    assert_eq!(r["summary"]["order_caused_failures"], 1);
    assert_eq!(r["summary"]["failing_in_default_order"], 1);
}

#[test]
fn pradet_datasource_both_tests_need_test_set_field() {
    for (algo, k) in [
        ("reverse", "2"),
        ("isolate", "2"),
        ("pairwise", "2"),
        ("dep-aware-lastwriter", "1"),
        ("dep-aware", "1"),
        ("pradet", "2"),
    ] {
        let r = detect("pradet-datasource", &["--algo", algo, "--k", k, "-j", "2"]);
        assert_eq!(tested(&r), vec![CLONE, TO_STRING], "{algo}");
        for t in [CLONE, TO_STRING] {
            let v = verdict(&r, t).unwrap();
            // NPE alone (data is null), pass after testSetField: brittle, and its failure was
            // masked by the default order.
            assert_eq!(v["verdict"], "brittle", "{algo} {t}");
            assert_eq!(v["isolated_outcome"]["exception"], "NullPointerException");
            assert_eq!(strings(&v["state_setters"]), vec![SET]);
            assert_eq!(strings(&v["witness"]), vec![SET, t]);
            assert_eq!(v["masked_failure"], true);
        }
    }
    // PRADET: source-first tests testToString's edge first; both edges are manifest.
    let r = detect("pradet-datasource", &["--algo", "pradet"]);
    let edges = r["candidates"]["pradet"].as_array().unwrap();
    assert!(edges.iter().all(|e| e["status"] == "manifest"));
    assert_eq!(r["algorithms"][0]["runs"], 2);
    // The hidden dependence: testSetField, testToString, testSetCloneString fails the clone
    // string assertion. Only a 3-permutation shows it.
    for algo in ["exhaustive", "dep-aware-lastwriter", "dep-aware"] {
        let r = detect(
            "pradet-datasource",
            &["--algo", algo, "--k", "3", "-j", "2"],
        );
        let v = verdict(&r, CLONE).unwrap();
        assert_eq!(strings(&v["polluters"]), vec![TO_STRING], "{algo}");
        let f = v["findings"]
            .as_array()
            .unwrap()
            .iter()
            .find(|f| f["outcome"]["exception"] == "AssertionError")
            .expect("the assertion failure is a finding");
        assert_eq!(strings(&f["order"]), vec![SET, TO_STRING, CLONE]);
        assert_eq!(f["one_minimal"], true);
    }
    let r = detect("pradet-datasource", &["--algo", "pairwise"]);
    assert!(strings(&verdict(&r, CLONE).unwrap()["polluters"]).is_empty());
}

#[test]
fn pradet_joint_dependencies_source_first() {
    let r = detect("pradet-joint", &["--algo", "pradet"]);
    // Source-first: t3 -> t2 first (runs t1, t3: t3 fails without foo, manifest); t3 -> t1
    // would close a cycle, so t2 -> t1 next (t2 alone passes, dropped); then t3 -> t1 (t2, t3
    // pass: dropped). Three runs.
    let edges: Vec<(String, String, String, Vec<String>)> = r["candidates"]["pradet"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| {
            (
                e["dependent"].as_str().unwrap().to_string(),
                e["on"].as_str().unwrap().to_string(),
                e["status"].as_str().unwrap().to_string(),
                strings(&e["schedule"]),
            )
        })
        .collect();
    let e = |a: &str, b: &str, s: &str, sch: &[&str]| {
        (
            a.to_string(),
            b.to_string(),
            s.to_string(),
            sch.iter().map(|x| x.to_string()).collect::<Vec<_>>(),
        )
    };
    assert_eq!(
        edges,
        vec![
            e("Test.t2", "Test.t1", "dropped", &["Test.t2"]),
            e("Test.t3", "Test.t1", "dropped", &["Test.t2", "Test.t3"]),
            e("Test.t3", "Test.t2", "manifest", &["Test.t1", "Test.t3"]),
        ]
    );
    assert_eq!(r["algorithms"][0]["runs"], 3);
    // t3 is brittle: it fails alone; t2 alone sets everything it needs.
    let v = verdict(&r, "Test.t3").unwrap();
    assert_eq!(v["verdict"], "brittle");
    assert_eq!(strings(&v["state_setters"]), vec!["Test.t2"]);
    assert_eq!(strings(&v["witness"]), vec!["Test.t2", "Test.t3"]);
    // After t1 alone it fails on foo instead: a finding, but t1 is no polluter.
    assert!(strings(&v["polluters"]).is_empty());
    assert_eq!(tested(&r), vec!["Test.t3"]);
}

#[test]
fn cli_masked_failures() {
    for (algo, k) in [
        ("reverse", "2"),
        ("isolate", "2"),
        ("pairwise", "2"),
        ("dep-aware", "2"),
        ("dep-aware-lastwriter", "1"),
        ("pradet", "2"),
    ] {
        let r = detect("cli-masked", &["--algo", algo, "--k", k, "-j", "2"]);
        assert_eq!(
            tested(&r),
            vec![
                "HelpFormatterTest.testPrintUsage",
                "OptionsTest.testArgName"
            ],
            "{algo}"
        );
        for v in r["verdicts"].as_array().unwrap() {
            assert_eq!(v["verdict"], "brittle");
            assert_eq!(v["masked_failure"], true);
            assert_eq!(v["default_outcome"]["outcome"], "pass");
            assert_eq!(v["isolated_outcome"]["exception"], "NullPointerException");
            assert_eq!(
                strings(&v["state_setters"]),
                vec!["OptionBuilderTest.testCreate"]
            );
        }
        assert_eq!(r["summary"]["masked_failures"], 2);
    }
    // The first run of each test in a `twice` schedule is an isolated run, so `twice` sees the
    // same two masked failures; the second runs agree with the first, so nothing is
    // self-dependent.
    let r = detect("cli-masked", &["--algo", "twice"]);
    assert_eq!(
        tested(&r),
        vec![
            "HelpFormatterTest.testPrintUsage",
            "OptionsTest.testArgName"
        ]
    );
    assert_eq!(r["summary"]["self_dependent"], 0);
}

#[test]
fn a_non_deterministic_test_is_not_order_dependent() {
    let shared = tempfile::tempdir().unwrap();
    let r = detect_with(
        "nondeterministic",
        None,
        &["--algo", "reverse,isolate,pairwise,twice", "-j", "1"],
        &[("OD_EXAMPLE_SHARED", shared.path())],
    );
    assert_eq!(tested(&r), vec!["Clock.testTick"]);
    let v = verdict(&r, "Clock.testTick").unwrap();
    assert_eq!(v["verdict"], "non-deterministic");
    assert_eq!(v["order_caused_failure"], false);
    assert!(
        v["confirmation"]
            .as_array()
            .unwrap()
            .iter()
            .any(|c| c["agreed"] == false)
    );
    assert_eq!(r["summary"]["victims"], 0);
    assert_eq!(r["summary"]["brittle"], 0);
}

#[test]
fn a_self_dependent_test_is_not_order_dependent() {
    let r = detect(
        "self-dependent",
        &[
            "--algo",
            "reverse,isolate,pairwise,dep-aware-lastwriter,pradet,twice",
        ],
    );
    assert_eq!(tested(&r), vec!["Registry.testRegister"]);
    let v = verdict(&r, "Registry.testRegister").unwrap();
    assert_eq!(v["verdict"], "self-dependent");
    assert_eq!(
        strings(&v["witness"]),
        vec!["Registry.testRegister", "Registry.testRegister"]
    );
    assert_eq!(v["witness_outcome"]["exception"], "AssertionError");
    assert_eq!(strings(&v["found_by"]), vec!["twice"]);
    // Without the twice probe nothing changes.
    let r = detect("self-dependent", &["--algo", "reverse,isolate,pairwise"]);
    assert!(tested(&r).is_empty());
}

#[test]
fn random_finds_the_cli_masked_failures() {
    // With 10 shuffles of 4 tests, some shuffle puts testPrintUsage and testArgName before
    // testCreate (each does so with probability 1/2 per shuffle).
    let r = detect("cli-masked", &["--algo", "random", "--seed", "0"]);
    assert_eq!(r["verdicts"].as_array().unwrap().len(), 2);
    // Same seed, same report.
    let again = detect("cli-masked", &["--algo", "random", "--seed", "0"]);
    assert_eq!(r["verdicts"], again["verdicts"]);
}

/// The edges of a report: (dependent, kind, on, witness, baseline), all confirmed.
type EdgeRow = (String, String, Vec<String>, Vec<String>, Vec<String>);

fn edges(report: &Value) -> Vec<EdgeRow> {
    report["dependencies"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| {
            assert_eq!(e["confirmed"], true, "{e}");
            (
                e["dependent"].as_str().unwrap().to_string(),
                e["kind"].as_str().unwrap().to_string(),
                strings(&e["on"]),
                strings(&e["witness"]),
                strings(&e["baseline"]),
            )
        })
        .collect()
}

fn edge(dependent: &str, kind: &str, on: &[&str], witness: &[&str], baseline: &[&str]) -> EdgeRow {
    let v = |s: &[&str]| s.iter().map(|x| x.to_string()).collect::<Vec<_>>();
    (
        dependent.to_string(),
        kind.to_string(),
        v(on),
        v(witness),
        v(baseline),
    )
}

const SET: &str = "DataSourceTest.testSetField";
const CLONE: &str = "DataSourceTest.testSetCloneString";
const TO_STRING: &str = "DataSourceTest.testToString";

#[test]
fn pradet_figure_2_gives_three_dependencies() {
    // PRADET's Figure 2 reports three manifest dependencies: testSetCloneString and
    // testToString each need testSetField first, and testToString before testSetCloneString
    // makes it fail (the footnote's order testSetField, testToString, testSetCloneString).
    // Every algorithm that runs that order gives all three edges, each confirmed.
    let three = vec![
        edge(CLONE, "state-setter", &[SET], &[SET, CLONE], &[CLONE]),
        edge(
            CLONE,
            "polluter",
            &[TO_STRING],
            &[SET, TO_STRING, CLONE],
            &[SET, CLONE],
        ),
        edge(
            TO_STRING,
            "state-setter",
            &[SET],
            &[SET, TO_STRING],
            &[TO_STRING],
        ),
    ];
    for (algo, k) in [
        ("exhaustive", "3"),
        ("dep-aware", "3"),
        ("dep-aware-lastwriter", "3"),
        ("tuscan", "2"),
    ] {
        let r = detect("pradet-datasource", &["--algo", algo, "--k", k, "-j", "2"]);
        assert_eq!(edges(&r), three, "{algo}");
        assert_eq!(r["summary"]["dependencies"], 3);
        let d = &r["dependencies"][1];
        assert_eq!(d["witness_outcome"]["exception"], "AssertionError");
        // The polluter edge's baseline is the passing order.
        assert_eq!(d["baseline_outcome"]["outcome"], "pass");
        assert_eq!(d["one_minimal"], true);
        // Witness and baseline each re-run three times.
        let c = d["confirmation"].as_array().unwrap();
        assert_eq!(c.len(), 2);
        assert!(
            c.iter()
                .all(|c| c["agreed"] == true && c["observed"].as_array().unwrap().len() == 3)
        );
        // The verdicts stay a summary of the edges.
        let v = verdict(&r, CLONE).unwrap();
        assert_eq!(v["verdict"], "brittle");
        assert_eq!(strings(&v["state_setters"]), vec![SET]);
        assert_eq!(strings(&v["polluters"]), vec![TO_STRING]);
    }
    // Pairs never put testToString between testSetField and testSetCloneString: two edges.
    let r = detect("pradet-datasource", &["--algo", "pairwise"]);
    assert_eq!(edges(&r), vec![three[0].clone(), three[2].clone()]);
}

#[test]
fn triage_runs_the_failing_tests_and_the_maybe_masked_ones_alone() {
    // cli-masked, default order all passing: testPrintUsage and testArgName read argName,
    // which testCreate (before them) wrote; testClone reads nothing. Two runs alone, two
    // masked failures, each needing testCreate.
    let r = detect("cli-masked", &["--algo", "triage"]);
    assert_eq!(r["algorithms"][0]["schedules"], 2);
    let create = "OptionBuilderTest.testCreate";
    assert_eq!(
        edges(&r),
        vec![
            edge(
                "HelpFormatterTest.testPrintUsage",
                "state-setter",
                &[create],
                &[create, "HelpFormatterTest.testPrintUsage"],
                &["HelpFormatterTest.testPrintUsage"]
            ),
            edge(
                "OptionsTest.testArgName",
                "state-setter",
                &[create],
                &[create, "OptionsTest.testArgName"],
                &["OptionsTest.testArgName"]
            ),
        ]
    );
    assert_eq!(r["summary"]["masked_failures"], 2);
    // The algorithms section's figure in the order Test3 Test1 Test2 Test4: Test2 fails; Test1
    // and Test4 read the x Test3 wrote. Three runs alone; Test2 passes alone: an order-caused
    // failure, its polluters found by delta debugging over Test3 and Test1.
    let dir = tempfile::tempdir().unwrap();
    let list = dir.path().join("tests.txt");
    std::fs::write(&list, "Test3\nTest1\nTest2\nTest4\n").unwrap();
    let r = detect_with(
        "dtdetector-example",
        Some(&list),
        &["--algo", "triage"],
        &[],
    );
    assert_eq!(r["algorithms"][0]["schedules"], 3);
    assert_eq!(
        edges(&r),
        vec![edge(
            "Test2",
            "polluter",
            &["Test3", "Test1"],
            &["Test3", "Test1", "Test2"],
            &["Test2"]
        )]
    );
    assert_eq!(verdict(&r, "Test2").unwrap()["order_caused_failure"], true);
}

#[test]
fn tuscan_covers_every_pair_in_about_n_orders() {
    // n (even) or n + 1 (odd) orders against pairwise's n (n - 1), and the same findings on
    // the pair-dependent examples.
    for (example, n, tuscan, pairwise, found) in [
        ("cli-masked", 4, 4, 12, 2),
        ("pradet-datasource", 3, 4, 6, 2),
        ("pradet-joint", 3, 4, 6, 1),
        ("self-dependent", 2, 2, 2, 0),
    ] {
        let t = detect(example, &["--algo", "tuscan"]);
        let p = detect(example, &["--algo", "pairwise"]);
        assert_eq!(t["algorithms"][0]["schedules"], tuscan, "{example}");
        assert_eq!(p["algorithms"][0]["schedules"], pairwise, "{example}");
        assert_eq!(t["tests"].as_array().unwrap().len(), n);
        assert_eq!(tested(&t).len(), found, "{example}");
        assert_eq!(tested(&t), tested(&p), "{example}");
    }
    // Test2 of the algorithms section's figure needs Test3 then Test1 with no Test4 after
    // Test3: no row of the square of four has that (the rows are 1 2 4 3, 2 3 1 4, 3 4 2 1,
    // 4 1 3 2), as no pair does.
    let r = detect("dtdetector-example", &["--algo", "tuscan"]);
    assert!(tested(&r).is_empty(), "{r}");
}

#[test]
fn batched_schedules_find_the_same_dependencies() {
    // --batch 4: the example runner runs up to four schedules per process, each with a state
    // directory of its own; the edges are confirmed one schedule per process.
    let one = detect("pradet-datasource", &["--algo", "exhaustive", "--k", "3"]);
    let four = detect(
        "pradet-datasource",
        &["--algo", "exhaustive", "--k", "3", "--batch", "4"],
    );
    assert_eq!(one["dependencies"], four["dependencies"]);
    assert_eq!(four["settings"]["batch"], 4);
    assert_eq!(tested(&one), tested(&four));
}

/// `od detect`'s tables: in a pipe ASCII and as wide as their content (the golden), at
/// `--width 80` no line wider than 80 columns, every verdict and edge still named.
#[test]
fn the_tables_fit_the_terminal() {
    let dir = root().join("testdata/od/pradet-datasource");
    let table = |extra: &[&str]| {
        let out = Command::new(env!("CARGO_BIN_EXE_paf"))
            .args(["od", "detect", "--runner"])
            .arg(dir.join("run"))
            .arg("--tests")
            .arg(dir.join("tests.txt"))
            .arg("--access")
            .arg(dir.join("access.json"))
            .args(["--algo", "tuscan", "--k", "2", "-j", "2", "--no-progress"])
            .args(extra)
            .output()
            .expect("paf runs");
        assert_eq!(out.status.code(), Some(0));
        String::from_utf8(out.stdout).unwrap()
    };
    let plain = table(&[]);
    assert!(plain.contains("+---") && !plain.contains('│'), "{plain}");
    let golden = root().join("testdata/od/golden/pradet-datasource.txt");
    if std::env::var_os("UPDATE_GOLDEN").is_some() {
        std::fs::write(&golden, &plain).unwrap();
    }
    assert_eq!(plain, std::fs::read_to_string(&golden).unwrap());
    let narrow = table(&["--width", "80"]);
    assert!(narrow.lines().all(|l| l.chars().count() <= 80), "{narrow}");
    for name in [
        "testSetCloneString",
        "testToString",
        "state-setter",
        "polluter",
    ] {
        assert!(
            narrow.contains(name),
            "{name} missing at 80 columns:\n{narrow}"
        );
    }
}
