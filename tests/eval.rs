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
        "warning: testdata/eval/undetected/ranking.txt: 1 test is not in testdata/eval/undetected/truth.csv \
         (counted as revealing no fault): x\n\
         warning: testdata/eval/undetected/ranking.txt: 1 test of testdata/eval/undetected/truth.csv is \
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

/// Each test's decision by the classifying baseline `name`.
fn flags(r: &Value, name: &str) -> Vec<bool> {
    ranking(r, name)["classified"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["alarm"].as_bool().unwrap())
        .collect()
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
    assert_eq!(r["failing"], 9);
    // JCrasher: fail1 AIOOBE at height 1 (reported); fail2 put -> get, height 2 (reported);
    // fail3 NPE at height 1 (suppressed); fail4 in a non-public class, height 0 (suppressed);
    // fail5 HashMap.get (unknown: trimmed) < helper (private: trimmed) < get < put, height 2
    // (reported); fail6 an AssertionError (suppressed); fail7 AIOOBE at height 1 (reported);
    // fail8 p.Oops at height 2, a checked exception by the statement table's superclass
    // (p.Oops extends java.lang.Exception: suppressed; its name alone would have made it a
    // runtime exception, reported); fail9 p.Slot at height 1, a subclass of
    // ArrayIndexOutOfBoundsException by its recorded superclasses (reported, as instanceof).
    assert_eq!(
        flags(&r, "JCrasher"),
        [true, true, false, false, true, false, true, false, true]
    );
    let classified = &ranking(&r, "JCrasher")["classified"];
    assert_eq!(
        classified[7]["reason"],
        "a checked exception: JCrasher ignores checked exceptions"
    );
    let a = &ranking(&r, "JCrasher")["alarms"];
    assert_eq!(
        (&a["alarms"], &a["true"], &a["relevant"]),
        (&5.into(), &2.into(), &2.into())
    );
    assert!(close(&a["precision"], 0.4) && close(&a["recall"], 1.0));
    // Three of the seven tests that reveal no fault are alarms.
    assert!(close(&a["false_alarm_share"], 3.0 / 7.0));
    // Daikon violations: from pass1 (get i=1, size 3) and pass2 (get i=2, size 3):
    // 1 <= i <= 2 and this.size == 3 at get. fail1 (i = 5) and fail7 (i = 0, size 4) violate
    // them; put and Hidden.run have no invariants; fail6's calls all returned; fail9 (i = 1,
    // size 3) violates nothing.
    let expected = [false, true, true, true, true, true, false, true, true];
    assert_eq!(flags(&r, "Daikon violations"), expected);
    let classified = &ranking(&r, "Daikon violations")["classified"];
    assert_eq!(classified[0]["reason"], "p.Api.get: violates 1 <= i <= 2");
    assert_eq!(
        classified[6]["reason"],
        "p.Api.get: violates 1 <= i <= 2; this.size == 3"
    );
    assert_eq!(
        classified[5]["reason"],
        "no call of the test body threw: nothing to check"
    );
    // Daikon, the paper's rule: fail1 and fail7's crash variable i is get's argument, and the
    // invariant 1 <= i <= 2 exists: false alarms (although fail1 reveals F1). fail2 and fail3
    // crash on the field p.Api.data, which has no invariant; fail4, 5, 8 and 9 have no crash
    // variable (unanalyzed) and fail6 no MUT: alarms. Same flags as the violations here.
    assert_eq!(flags(&r, "Daikon"), expected);
    let classified = &ranking(&r, "Daikon")["classified"];
    assert_eq!(
        classified[0]["reason"],
        "p.Api.get: invariants relate to i (1 <= i <= 2)"
    );
    assert_eq!(
        classified[2]["reason"],
        "p.Api.get: no invariant at entry over p.Api.data"
    );
    for name in ["Daikon", "Daikon violations"] {
        let a = &ranking(&r, name)["alarms"];
        assert_eq!((&a["alarms"], &a["true"]), (&7.into(), &1.into()), "{name}");
    }
    // In every random order, JCrasher's five alarms come first and hold both faults.
    let first = &ranking(&r, "JCrasher")["apfd"]["first"];
    assert!(first["F1"].as_f64().unwrap() <= 5.0 && first["F2"].as_f64().unwrap() <= 5.0);
    // Unordered: fail1 (F1) first, fail2 (F2) second: (2(9-1)+1 + 2(9-2)+1) / (2*9*2) = 32/36.
    assert!(close(
        &ranking(&r, "unordered")["apfd"]["value"],
        32.0 / 36.0
    ));
    // ReBucket: [get] (fail1, fail3, fail7, fail9) and [get, put] (fail2, fail8) have
    // similarity 1 (the shorter stack matches at the top, for any c and o) and merge;
    // [HashMap.get, helper, get, put] is at distance 1 - e^-2 from both (> d = 0.5).
    // Over the revealing tests {fail1, fail2}: one cluster against two faults, F = 2/3.
    // Training cannot do better: the two stacks are at distance 0 whatever c and o.
    for name in ["ReBucket untrained", "ReBucket trained"] {
        let rb = &clustering(&r, name)["f_measure"];
        assert!(
            close(&rb["value"], 2.0 / 3.0) && close(&rb["purity"], 0.5),
            "{name}"
        );
        assert_eq!(rb["clusters"], 1);
    }
    let params = &clustering(&r, "ReBucket untrained")["params"];
    assert_eq!(
        (&params["c"], &params["trained"]),
        (&1.0.into(), &false.into())
    );
    assert_eq!(
        clustering(&r, "ReBucket trained")["params"]["trained"],
        true
    );
    // Signatures tell an AIOOBE from an NPE at the same frame.
    for name in ["top frame", "whole stack", "PAF (flow-sets)"] {
        let f = &clustering(&r, name)["f_measure"];
        assert!(close(&f["value"], 1.0), "{name}");
        assert_eq!(f["clusters"], 2, "{name}");
    }
}

const SPECTRUM: &str = "testdata/eval/spectrum";
const SPECTRUM_TRUTH: &str = "testdata/eval/spectrum/truth.csv";

/// The suite of `testdata/eval/spectrum/`: lines (one statement each) Shop.java 10-14
/// (`price(i)`: 10 the parameter, 11 a branch on i, 12 the cache lookup taken for i >= 3, 13
/// the table lookup for i < 3, 14 the dereference of the result x), Cart.java 30
/// (`<init>` sets items), 40-43 (`total()`: 40 dereferences items, 41 sums, 42 looks a rate
/// up when the cart has a discount, 43 dereferences it) and 50 (`empty()`, a cart whose items
/// stay null). Passing: price(1), price(2), price(1) cover 10, 11, 13, 14; three carts
/// without discount cover 30, 40, 41. Failing: fail1, fail2 (F1: price(3), price(7)) cover
/// 10, 11, 12, 14 and crash at 14 on x from 12; fail3, fail4 (F2: carts with a discount)
/// cover 30, 40-43 and crash at 43 on t from 42; fail5 (no fault: total() on `empty()`)
/// covers 50, 40 and crashes at 40 on the field items, null since its declaration.
#[test]
fn mseer_and_the_papers_daikon_rule_on_a_hand_written_suite() {
    let (r, err) = eval_json(&[SPECTRUM, "--truth", SPECTRUM_TRUTH, "--runs", "10"]);
    assert_eq!(err, "");
    // MSeer. Each failing test's Ochiai ranking (one failing test with the six passing:
    // 1/sqrt(1 + e_p)), ties sharing the best rank: fail1 ranks 12 (e_p 0) first, then 10,
    // 11, 14 (e_p 3) tied at 2, the lines it missed at 5; fail3 ranks 42, 43 at 1, 30, 40, 41
    // at 3, the rest at 6; fail5 ranks 50 at 1, 40 at 2, the rest at 3. Revised Kendall tau
    // (mseer::tests works the pairs out): d(fail1, fail3) = 191/6, d(fail1, fail5) = 229/15,
    // d(fail3, fail5) = 15, d(fail1, fail2) = d(fail3, fail4) = 0. Of the ten distances the
    // 5%-winsorized mean is (2*15 + 2*229/15 + 4*191/6)/10 = 1409/75, so r_a = 1409/150.
    // Potentials: fail3 is highest (its e^-(4*15^2/r_a^2) term beats fail1's
    // e^-(4*(229/15)^2/r_a^2)), then fail1 (above half the first), then fail5 (below half,
    // but its nearest medoid is 15 > r_a away): three medoids, clusters {fail1, fail2},
    // {fail3, fail4}, {fail5}: over the revealing tests, the true clusters.
    let mseer = clustering(&r, "MSeer");
    assert!(close(&mseer["params"]["radius"], 1409.0 / 150.0));
    assert_eq!(mseer["params"]["medoids"], 3);
    assert!(close(&mseer["f_measure"]["value"], 1.0));
    assert_eq!(mseer["f_measure"]["clusters"], 2);
    // The revealing tests alone: distances 0, 0 and four of 191/6; winsorized, 4/6 of 191/6,
    // so r_a = 191/18; fail1 and fail3 are the medoids.
    let only = clustering(&r, "MSeer, revealing tests only");
    assert!(close(&only["params"]["radius"], 191.0 / 18.0));
    assert_eq!(only["params"]["medoids"], 2);
    assert!(close(&only["f_measure"]["value"], 1.0));
    // Daikon, the paper's rule: x (fail1, fail2) and t (fail3, fail4) come from calls inside
    // the MUT, so no entry variable is on their dataflow: alarms, all true. fail5's crash
    // variable is the receiver field items, and the passing calls of total() give
    // this.items != null: an invariant relevant to it exists, a false alarm.
    assert_eq!(flags(&r, "Daikon"), [true, true, true, true, false]);
    let classified = &ranking(&r, "Daikon")["classified"];
    assert_eq!(
        classified[0]["reason"],
        "p.Shop.price: the dataflow of x starts inside the MUT: no entry variable on it"
    );
    assert_eq!(
        classified[4]["reason"],
        "p.Cart.total: invariants relate to p.Cart.items (this.items != null)"
    );
    let a = &ranking(&r, "Daikon")["alarms"];
    assert!(close(&a["precision"], 1.0) && close(&a["recall"], 1.0));
    // Daikon violations: 1 <= i <= 2 at price (from i = 1, 2, 1) is violated by i = 3 and 7;
    // this.discount == false at total by the discounted carts; this.items != null by fail5:
    // no alarm at all, recall 0.
    assert_eq!(flags(&r, "Daikon violations"), [false; 5]);
    let a = &ranking(&r, "Daikon violations")["alarms"];
    assert_eq!((&a["alarms"], &a["precision"]), (&0.into(), &Value::Null));
    assert!(close(&a["recall"], 0.0));
    // PAF: flow-sets F2 (0/1, local), F1 (1/2, local), fail5 (non-local). Flow-sets: n = 3,
    // TF = 2, 1: (3 + 5)/12. Tests, representatives first: fail3, fail1, fail5, fail4, fail2:
    // TF = 2, 1 of n = 5: (7 + 9)/20; flow-set by flow-set: fail3, fail4, fail1, fail2, fail5:
    // TF = 3, 1: (5 + 9)/20.
    assert!(close(
        &ranking(&r, "PAF (flow-sets)")["apfd"]["value"],
        8.0 / 12.0
    ));
    assert!(close(
        &ranking(&r, "PAF (tests)")["apfd"]["value"],
        16.0 / 20.0
    ));
    assert!(close(
        &ranking(&r, "PAF (tests, blocks)")["apfd"]["value"],
        14.0 / 20.0
    ));
}

#[test]
fn localize_ranks_lines_by_ochiai_and_dstar() {
    let (code, out, err) = paf(&["localize", SPECTRUM, "--top", "0", "--format", "json"]);
    assert_eq!((code, err.as_str()), (0, ""));
    let r: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(r["schema"], "paf.localize/1");
    assert_eq!((&r["failing"], &r["passing"]), (&5.into(), &6.into()));
    // Lines a failing test covered (13 is covered by passing tests only): ten.
    assert_eq!(r["candidates"], 10);
    let line = |file: &str, n: u64| {
        r["lines"]
            .as_array()
            .unwrap()
            .iter()
            .find(|l| l["file"] == file && l["line"] == n)
            .unwrap_or_else(|| panic!("no line {file}:{n}"))
            .clone()
    };
    // F = 5. Ochiai e_f / sqrt(5 (e_f + e_p)); DStar e_f^2 / (e_p + 5 - e_f).
    // 12, 42, 43 (e_f 2, e_p 0): 2/sqrt(10), DStar 4/3. 40 (e_f 3: fail3, 4, 5; e_p 3):
    // 3/sqrt(30), DStar 9/5. 50 (e_f 1, e_p 0): 1/sqrt(5), DStar 1/4. 10, 11, 14, 30, 41
    // (e_f 2, e_p 3): 2/5, DStar 4/6.
    let cases = [
        ("Shop.java", 12, 2.0 / 10f64.sqrt(), 1, 4.0 / 3.0, 2),
        ("Cart.java", 43, 2.0 / 10f64.sqrt(), 1, 4.0 / 3.0, 2),
        ("Cart.java", 40, 3.0 / 30f64.sqrt(), 4, 9.0 / 5.0, 1),
        ("Cart.java", 50, 1.0 / 5f64.sqrt(), 5, 0.25, 10),
        ("Shop.java", 14, 0.4, 6, 4.0 / 6.0, 5),
    ];
    for (file, n, ochiai, o_rank, dstar, d_rank) in cases {
        let l = line(file, n);
        assert!(close(&l["ochiai"], ochiai), "{file}:{n}: {l}");
        assert!(close(&l["dstar"], dstar), "{file}:{n}: {l}");
        assert_eq!(
            (&l["ochiai_rank"], &l["dstar_rank"]),
            (&o_rank.into(), &d_rank.into())
        );
    }
    // Sorted by Ochiai: the three lines at rank 1 first; by DStar, line 40 first.
    assert_eq!(r["lines"][0]["ochiai_rank"], 1);
    let (_, out, _) = paf(&[
        "localize", SPECTRUM, "--by", "dstar", "--top", "1", "--format", "json",
    ]);
    let r: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(r["lines"].as_array().unwrap().len(), 1);
    assert_eq!(
        (&r["lines"][0]["file"], &r["lines"][0]["line"]),
        (&"Cart.java".into(), &40.into())
    );
}

#[test]
fn a_truth_without_a_fault_gives_alarms_but_no_apfd() {
    // Every failing test of the spectrum suite, none revealing a fault.
    let dir = tempfile::tempdir().unwrap();
    let truth = dir.path().join("truth.csv");
    std::fs::write(
        &truth,
        "test,fault\nT.fail1,\nT.fail2,\nT.fail3,\nT.fail4,\nT.fail5,\n",
    )
    .unwrap();
    let truth = truth.display().to_string();
    let (r, err) = eval_json(&[SPECTRUM, "--truth", &truth, "--runs", "5"]);
    assert_eq!(err, "");
    assert_eq!(r["truth"]["faults"], serde_json::json!([]));
    for rk in r["rankings"].as_array().unwrap() {
        assert_eq!(rk["apfd"]["value"], Value::Null, "{}", rk["name"]);
        assert!(
            rk["apfd"]["undefined"]
                .as_str()
                .unwrap()
                .starts_with("the truth names no fault"),
            "{}",
            rk["name"]
        );
        assert_eq!(rk["curve"], serde_json::json!([]));
    }
    // PAF puts 4 of the 5 failing tests (two local flow-sets) in the local group: every alarm
    // false, precision 0, recall undefined, a false-alarm share of 4/5; as flow-sets, 2 of 3.
    let a = &ranking(&r, "PAF (tests)")["alarms"];
    assert_eq!((&a["alarms"], &a["true"]), (&4.into(), &0.into()));
    assert!(close(&a["precision"], 0.0) && close(&a["false_alarm_share"], 0.8));
    assert_eq!(a["recall"], Value::Null);
    let a = &ranking(&r, "PAF (flow-sets)")["alarms"];
    assert!(close(&a["false_alarm_share"], 2.0 / 3.0));
    // Nothing to cluster: every F-measure is undefined, and ReBucket cannot be trained.
    for c in r["clusterings"].as_array().unwrap() {
        assert_eq!(c["f_measure"]["value"], Value::Null, "{}", c["name"]);
    }
    assert!(
        r["clusterings"]
            .as_array()
            .unwrap()
            .iter()
            .all(|c| c["name"] != "ReBucket trained")
    );
    let (code, out, _) = paf(&["eval", SPECTRUM, "--truth", &truth, "--runs", "5"]);
    assert_eq!(code, 0);
    assert!(
        out.contains("the truth names no fault: APFD is undefined"),
        "{out}"
    );
    // --plot has nothing to draw.
    let svg = dir.path().join("x.svg").display().to_string();
    let (code, _, err) = paf(&["eval", SPECTRUM, "--truth", &truth, "--plot", &svg]);
    assert_eq!(code, 2, "{err}");
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
                 error: {bad}:2: 1 field: expected 2 (test,fault; quote a comma inside an id)\n"
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
    let (code, out, err) = paf(&["localize", LIBRARY]);
    assert_eq!((code, err.as_str()), (0, ""), "localize");
    check("testdata/eval/golden/library-localize.txt", &out);
    // An 80-column terminal: columns give way in the documented order, prose wraps.
    let (code, out, err) = paf(&["eval", LIBRARY, "--truth", LIBRARY_TRUTH, "--width", "80"]);
    assert_eq!((code, err.as_str()), (0, ""), "eval --width 80");
    assert!(out.lines().all(|l| l.chars().count() <= 80), "{out}");
    check("testdata/eval/golden/library-80.txt", &out);
    let (code, out, err) = paf(&["localize", LIBRARY, "--width", "80"]);
    assert_eq!((code, err.as_str()), (0, ""), "localize --width 80");
    assert!(out.lines().all(|l| l.chars().count() <= 80), "{out}");
    check("testdata/eval/golden/library-localize-80.txt", &out);
}

/// The flow-set rank of each test of `paf rank`'s `tests`, with `flags`.
fn flow_set_ranks(flags: &[&str]) -> Vec<u64> {
    let mut args = vec!["rank", LIBRARY, "--format", "json"];
    args.extend_from_slice(flags);
    let (code, out, err) = paf(&args);
    assert_eq!(code, 0, "{err}");
    let r: Value = serde_json::from_str(&out).unwrap();
    r["tests"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["flow_set_rank"].as_u64().unwrap_or(u64::MAX))
        .collect()
}

#[test]
fn the_individual_test_order_is_representatives_first_and_blocks_on_request() {
    // The library suite has 20 flow-sets and 94 failing tests (all analyzed, the three
    // NumberFormatExceptions too). By default the 20 representatives come first, one per
    // flow-set in rank order, then the other members flow-set by flow-set; with --test-order
    // blocks each flow-set's tests are together.
    let reps = flow_set_ranks(&[]);
    assert_eq!(reps.len(), 94);
    assert_eq!(reps[..20], (1..=20).collect::<Vec<u64>>()[..]);
    assert!(reps[20..].windows(2).all(|w| w[0] <= w[1]));
    let blocks = flow_set_ranks(&["--test-order", "blocks"]);
    assert!(blocks.windows(2).all(|w| w[0] <= w[1]));
    let (mut a, mut b) = (reps.clone(), blocks.clone());
    a.sort_unstable();
    b.sort_unstable();
    assert_eq!(a, b, "the same tests, in another order");
    assert_ne!(reps, blocks);
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
