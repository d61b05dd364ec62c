//! The output formats where users work, beyond their goldens: SARIF validates against the
//! SARIF 2.1.0 schema (the one serde-sarif ships) and carries the dataflow and stable
//! fingerprints; the `paf.rank/1`, `paf.eval/1` and `paf.od/2` documents validate against
//! their schemas in docs/; JUnit XML reads back; Markdown and tables fit; repository paths come
//! from source roots; completions and man pages print.

use std::path::Path;

use serde_json::Value;

mod common;
use common::{paf, root};

/// The shipped bundles, as `traces/NAME`.
fn bundles() -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(root().join("traces"))
        .unwrap()
        .filter_map(Result::ok)
        .filter(|e| e.path().join("manifest.json").is_file())
        .map(|e| format!("traces/{}", e.file_name().to_string_lossy()))
        .collect();
    names.sort();
    names
}

/// `paf ARGS` that must succeed quietly: its standard output.
fn ok(args: &[&str]) -> String {
    let (code, stdout, stderr) = paf(args);
    assert_eq!((code, stderr.as_str()), (0, ""), "paf {args:?}");
    stdout
}

fn json(args: &[&str]) -> Value {
    serde_json::from_str(&ok(args)).unwrap_or_else(|e| panic!("paf {args:?}: {e}"))
}

/// Validates `instance` against `schema` with formats checked; the errors as text.
fn errors(schema: &Value, instance: &Value) -> Vec<String> {
    let validator = jsonschema::options()
        .should_validate_formats(true)
        .build(schema)
        .expect("a valid schema");
    validator
        .iter_errors(instance)
        .map(|e| format!("{e} at {}", e.instance_path()))
        .collect()
}

fn schema(path: &Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

/// The SARIF 2.1.0 JSON schema as the serde-sarif crate ships it (its types are generated
/// from it), found through `cargo metadata`, so that nothing third-party is copied here.
fn sarif_schema() -> Value {
    // Only the host's packages: `cargo metadata` would otherwise want every platform's
    // (Windows-only crates a Linux build never downloaded), and the run is offline.
    let rustc = std::env::var("RUSTC").unwrap_or_else(|_| "rustc".into());
    let version = std::process::Command::new(rustc)
        .arg("-vV")
        .output()
        .expect("rustc -vV runs");
    let host = String::from_utf8_lossy(&version.stdout)
        .lines()
        .find_map(|l| l.strip_prefix("host: ").map(str::to_owned))
        .expect("rustc -vV names the host");
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let out = std::process::Command::new(cargo)
        .args(["metadata", "--format-version", "1", "--offline", "--locked"])
        .args(["--filter-platform", &host])
        .current_dir(root())
        .output()
        .expect("cargo metadata runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let meta: Value = serde_json::from_slice(&out.stdout).unwrap();
    let manifest = meta["packages"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["name"] == "serde-sarif")
        .and_then(|p| p["manifest_path"].as_str())
        .expect("serde-sarif is a dependency");
    let path = Path::new(manifest)
        .parent()
        .unwrap()
        .join("src/schema.json");
    let mut s = schema(&path);
    fix_language_patterns(&mut s);
    assert_eq!(
        s["title"],
        "Static Analysis Results Format (SARIF) Version 2.1.0 JSON Schema"
    );
    s
}

/// The 2.1.0 schema's `language` pattern, `^[a-zA-Z]{2}|^[a-zA-Z]{2}-[a-zA-Z]{2}]?$`, has a
/// stray `]` that strict regex engines (and the meta-schema's `"format": "regex"`) reject; it
/// means a language tag, `en` or `en-US`, as the corrected schema spells it. paf writes no
/// `language`, so this changes nothing the test checks of paf's output.
fn fix_language_patterns(v: &mut Value) {
    match v {
        Value::Object(map) => {
            for (k, x) in map.iter_mut() {
                if k == "pattern" && x.as_str().is_some_and(|p| p.ends_with("]?$")) {
                    *x = Value::String("^[a-zA-Z]{2}(-[a-zA-Z]{2})?$".into());
                } else {
                    fix_language_patterns(x);
                }
            }
        }
        Value::Array(items) => items.iter_mut().for_each(fix_language_patterns),
        _ => {}
    }
}

const LIBRARY: &str = "testdata/java/library/bundle";
const LIBRARY_SRC: &str = "testdata/java/library/src";

#[test]
fn sarif_validates_against_the_2_1_0_schema() {
    let schema = sarif_schema();
    let bundles = bundles();
    let mut runs: Vec<Vec<&str>> = bundles
        .iter()
        .map(|b| vec!["rank", b.as_str(), "--format", "sarif"])
        .collect();
    runs.push(vec![
        "rank",
        LIBRARY,
        "--format",
        "sarif",
        "--source-root",
        LIBRARY_SRC,
    ]);
    for args in runs {
        let log = json(&args);
        let errs = errors(&schema, &log);
        assert!(errs.is_empty(), "paf {args:?}: {errs:#?}");
    }
}

/// The library's SARIF with repository paths, pinned as a golden.
#[test]
fn sarif_of_the_library_with_source_roots_matches_its_golden() {
    let out = ok(&[
        "rank",
        LIBRARY,
        "--format",
        "sarif",
        "--source-root",
        LIBRARY_SRC,
    ]);
    let golden = root().join("testdata/report/library.sarif");
    if std::env::var_os("UPDATE_GOLDEN").is_some() {
        std::fs::write(&golden, &out).unwrap();
    }
    pretty_assertions::assert_eq!(std::fs::read_to_string(&golden).unwrap(), out);
    let log: Value = serde_json::from_str(&out).unwrap();
    let first = &log["runs"][0]["results"][0];
    // RingLog.get's off-by-one (F2 of testdata/java/library/truth.csv) is flow-set 1: local.
    assert_eq!(
        first["ruleId"],
        "local/java.lang.ArrayIndexOutOfBoundsException"
    );
    let loc = &first["locations"][0]["physicalLocation"];
    assert_eq!(
        loc["artifactLocation"]["uri"],
        "testdata/java/library/src/org/shelf/RingLog.java"
    );
    assert_eq!(loc["artifactLocation"]["uriBaseId"], "%SRCROOT%");
}

/// The motivating example's flow-set 2 (PAF Figure 2): `project` is null from its field
/// declaration (line 32), copied by `getProject()`'s return (56), used at line 59. So its code
/// flow has three locations in that order, and the result is a non-local note.
#[test]
fn sarif_code_flows_follow_the_copy_chain_origin_first() {
    let log = json(&["rank", "traces/motivating", "--format", "sarif"]);
    let results = log["runs"][0]["results"].as_array().unwrap();
    assert_eq!(results.len(), 2, "one result per flow-set");
    let second = &results[1];
    assert_eq!(second["ruleId"], "non-local/java.lang.NullPointerException");
    assert_eq!(second["level"], "note");
    assert_eq!(second["properties"]["rank"], 2);
    let steps = second["codeFlows"][0]["threadFlows"][0]["locations"]
        .as_array()
        .unwrap();
    let lines: Vec<i64> = steps
        .iter()
        .map(|s| {
            s["location"]["physicalLocation"]["region"]["startLine"]
                .as_i64()
                .unwrap()
        })
        .collect();
    assert_eq!(lines, [32, 56, 59]);
    let rules = log["runs"][0]["tool"]["driver"]["rules"]
        .as_array()
        .unwrap();
    assert_eq!(rules.len(), 2, "local and non-local NullPointerException");
    assert_eq!(results[0]["ruleIndex"], 0);
    assert_eq!(second["ruleIndex"], 1);
}

/// copy-chain's two flow-sets tie (same locality and likelihood), so the seed decides their
/// order; each flow-set keeps its fingerprint whatever its rank.
#[test]
fn sarif_fingerprints_do_not_depend_on_the_rank() {
    let by_seed = |seed: &str| -> Vec<(String, String)> {
        let log = json(&[
            "rank",
            "traces/copy-chain",
            "--format",
            "sarif",
            "--seed",
            seed,
        ]);
        log["runs"][0]["results"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| {
                (
                    r["properties"]["tests"][0].as_str().unwrap().to_string(),
                    r["partialFingerprints"]["pafFlowSet/v1"]
                        .as_str()
                        .unwrap()
                        .to_string(),
                )
            })
            .collect()
    };
    let mut orders = Vec::new();
    for seed in 0..8 {
        let mut results = by_seed(&seed.to_string());
        orders.push(results[0].0.clone());
        results.sort();
        assert_eq!(results, {
            let mut r0 = by_seed("0");
            r0.sort();
            r0
        });
    }
    orders.sort();
    orders.dedup();
    assert_eq!(orders.len(), 2, "some seed puts the other flow-set first");
}

#[test]
fn rank_eval_and_od_documents_validate_against_their_schemas() {
    let rank = schema(&root().join("docs/paf.rank.schema.json"));
    for b in bundles() {
        let doc = json(&["rank", &b, "--format", "json"]);
        assert!(
            errors(&rank, &doc).is_empty(),
            "{b}: {:#?}",
            errors(&rank, &doc)
        );
    }
    let with_paths = json(&[
        "rank",
        LIBRARY,
        "--format",
        "json",
        "--source-root",
        LIBRARY_SRC,
    ]);
    assert!(errors(&rank, &with_paths).is_empty());
    // rank --od's masked failures (the golden of tests/od_rank.rs).
    let masked = schema(&root().join("testdata/od/golden/static-state/rank-od.json"));
    assert!(
        errors(&rank, &masked).is_empty(),
        "{:#?}",
        errors(&rank, &masked)
    );
    let eval = schema(&root().join("docs/paf.eval.schema.json"));
    let doc = json(&[
        "eval",
        LIBRARY,
        "--truth",
        "testdata/java/library/truth.csv",
        "--format",
        "json",
        "--runs",
        "5",
    ]);
    assert!(errors(&eval, &doc).is_empty(), "{:#?}", errors(&eval, &doc));
    let od = schema(&root().join("docs/paf.od.schema.json"));
    let committed = schema(&root().join("testdata/java/static-state/od.json"));
    assert!(
        errors(&od, &committed).is_empty(),
        "{:#?}",
        errors(&od, &committed)
    );
    for example in ["pradet-datasource", "cli-masked"] {
        let dir = root().join("testdata/od").join(example);
        let doc = json(&[
            "od",
            "detect",
            "--runner",
            dir.join("run").to_str().unwrap(),
            "--tests",
            dir.join("tests.txt").to_str().unwrap(),
            "--access",
            dir.join("access.json").to_str().unwrap(),
            "--algo",
            "reverse,pairwise,tuscan,pradet",
            "--format",
            "json",
            "--no-progress",
        ]);
        assert_eq!(doc["schema"], "paf.od/2");
        assert!(!doc["verdicts"].as_array().unwrap().is_empty(), "{example}");
        assert!(
            !doc["dependencies"].as_array().unwrap().is_empty(),
            "{example}"
        );
        assert!(
            errors(&od, &doc).is_empty(),
            "{example}: {:#?}",
            errors(&od, &doc)
        );
    }
}

/// Every failing test is one test case, in rank order, failed (or, unanalyzed, failed with the
/// reason); the flow-set's rank and locality are properties.
#[test]
fn junit_xml_has_a_test_case_per_failing_test_in_rank_order() {
    for b in bundles() {
        let rank = json(&["rank", &b, "--format", "json"]);
        let xml = ok(&["rank", &b, "--format", "junit"]);
        let report =
            quick_junit::Report::deserialize_from_str(&xml).unwrap_or_else(|e| panic!("{b}: {e}"));
        let cases = &report.test_suites[0].test_cases;
        let tests = rank["tests"].as_array().unwrap();
        assert_eq!(cases.len(), tests.len(), "{b}");
        assert_eq!(report.failures, tests.len(), "{b}");
        for (case, t) in cases.iter().zip(tests) {
            let id = t["test"].as_str().unwrap();
            let name = match &case.classname {
                Some(c) => format!("{}.{}", c.as_str(), case.name.as_str()),
                None => case.name.as_str().to_string(),
            };
            assert_eq!(name, id, "{b}");
            let rank_prop = case
                .properties
                .iter()
                .find(|p| p.name.as_str() == "paf.rank")
                .map(|p| p.value.as_str().to_string());
            assert_eq!(rank_prop, Some(t["rank"].to_string()), "{b} {id}");
        }
    }
}

/// Tables laid out for a width stay within it, every line, on every shipped bundle and the
/// Java library (long repository paths), by flow-set and by test.
#[test]
fn tables_fit_the_width_they_are_given() {
    let mut cases: Vec<Vec<String>> = bundles()
        .into_iter()
        .map(|b| vec!["rank".to_string(), b])
        .collect();
    cases.push(
        ["rank", LIBRARY, "--source-root", LIBRARY_SRC]
            .map(String::from)
            .to_vec(),
    );
    for case in cases {
        for by in ["flow-set", "test"] {
            for width in ["60", "80", "100"] {
                let mut args: Vec<&str> = case.iter().map(String::as_str).collect();
                args.extend(["--by", by, "--width", width]);
                let out = ok(&args);
                let limit: usize = width.parse().unwrap();
                for line in out.lines() {
                    assert!(
                        line.chars().count() <= limit,
                        "paf {args:?}: a line of {} columns:\n{line}",
                        line.chars().count()
                    );
                }
                assert!(out.lines().any(|l| l.starts_with("| Rank")), "{out}");
            }
        }
    }
}

/// Piped (as here), a table is ASCII and as wide as its content; `--ascii` is accepted.
#[test]
fn piped_tables_are_ascii_and_unwrapped() {
    for b in bundles() {
        let out = ok(&["rank", &b]);
        assert!(out.is_ascii() || !out.contains('│'), "{b}");
        assert!(!out.contains(['┌', '│', '╞']), "{b}: box drawing in a pipe");
        assert_eq!(out, ok(&["rank", &b, "--ascii"]), "{b}");
    }
}

/// Source roots, from the manifest or from `--source-root`, give every location its
/// repository path; an empty root in the manifest is bad input.
#[test]
fn source_roots_give_repository_paths() {
    let dir = tempfile::tempdir().unwrap();
    let bundle = dir.path().join("b");
    copy_dir(&root().join(LIBRARY), &bundle);
    let manifest = bundle.join("manifest.json");
    let mut m: Value = serde_json::from_str(&std::fs::read_to_string(&manifest).unwrap()).unwrap();
    m["source_roots"] = serde_json::json!(["src/main/java", LIBRARY_SRC]);
    std::fs::write(&manifest, m.to_string()).unwrap();
    let b = bundle.to_str().unwrap();
    let doc = json(&["rank", b, "--format", "json"]);
    let statement = &doc["flow_sets"][0]["crash"]["statement"];
    // The second root holds the file (the run is from the repository root); the first does not.
    assert_eq!(
        statement["path"],
        "testdata/java/library/src/org/shelf/RingLog.java"
    );
    assert_eq!(statement["file"], "RingLog.java");
    let chain = &doc["flow_sets"][0]["crash"]["origins"][0]["chain"][0];
    assert_eq!(
        chain["def"]["path"],
        "testdata/java/library/src/org/shelf/RingLog.java"
    );
    // --source-root replaces the manifest's roots.
    let other = json(&["rank", b, "--format", "json", "--source-root", "elsewhere"]);
    assert_eq!(
        other["flow_sets"][0]["crash"]["statement"]["path"],
        "elsewhere/org/shelf/RingLog.java"
    );
    let text = ok(&["explain", b, "ErrorTest1.test039"]);
    assert!(
        text.contains("testdata/java/library/src/org/shelf/RingLog.java:35"),
        "{text}"
    );
    m["source_roots"] = serde_json::json!([""]);
    std::fs::write(&manifest, m.to_string()).unwrap();
    let (code, _, stderr) = paf(&["rank", b]);
    assert_eq!(code, 2);
    assert!(
        stderr.contains("manifest.json") && stderr.contains("source_roots holds \"\""),
        "{stderr}"
    );
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap() {
        let e = e.unwrap();
        std::fs::copy(e.path(), to.join(e.file_name())).unwrap();
    }
}

/// `paf explain` cuts a long list of covering tests and names how many more there are;
/// `--all` lists them all. In the library, flow-set 8's one DUA is covered by 62 passing tests
/// and flow-set 2 holds 12 tests (`paf rank --format json`).
#[test]
fn explain_cuts_long_lists() {
    let cut = ok(&["explain", LIBRARY, "ErrorTest0.test007"]);
    assert!(cut.contains("covered by 62 passing tests: "), "{cut}");
    assert!(cut.contains(" (+52 more)\n"), "{cut}");
    let all = ok(&["explain", LIBRARY, "ErrorTest0.test007", "--all"]);
    let line = all.lines().find(|l| l.contains("covered by 62")).unwrap();
    let (_, names) = line.split_once("passing tests: ").unwrap();
    assert_eq!(names.split(", ").count(), 62, "{line}");
    let tests = ok(&["explain", LIBRARY, "ErrorTest1.test030"]);
    assert!(tests.contains("12 tests: ErrorTest1.test030, "), "{tests}");
    assert!(tests.contains(" (+2 more)\n"), "{tests}");
}

/// The HTML page names nothing outside itself: no external script, style, image or font.
#[test]
fn html_report_is_self_contained() {
    let page = ok(&[
        "report",
        LIBRARY,
        "--source-root",
        LIBRARY_SRC,
        "--truth",
        "testdata/java/library/truth.csv",
    ]);
    for needle in ["src=\"http", "href=\"http", "<link", "url(", "@import"] {
        assert!(!page.contains(needle), "the page loads {needle}");
    }
    assert!(page.starts_with("<!DOCTYPE html>"));
    assert_eq!(page.matches("<details class=\"fs\"").count(), 20);
    assert!(page.contains("<pre class=\"code\">"), "source lines shown");
    assert!(
        page.contains("data:image/svg+xml"),
        "the APFD plot is inline"
    );
    let (code, _, stderr) = paf(&["report", LIBRARY, "-o", "testdata"]);
    assert_eq!(code, 2, "{stderr}");
}

/// `paf report --od` shows the order-dependence findings and takes the order-caused failures
/// out of the ranking (the od report comes from a stand-in suite, as in tests/od_rank.rs).
#[test]
fn html_report_shows_order_dependence_findings() {
    let dir = tempfile::tempdir().unwrap();
    let od = dir.path().join("od.json");
    let example = root().join("testdata/od/cli-masked");
    ok(&[
        "od",
        "detect",
        "--runner",
        example.join("run").to_str().unwrap(),
        "--tests",
        example.join("tests.txt").to_str().unwrap(),
        "--access",
        example.join("access.json").to_str().unwrap(),
        "--no-progress",
        "--format",
        "json",
        "-o",
        od.to_str().unwrap(),
    ]);
    let page = ok(&["report", "traces/motivating", "--od", od.to_str().unwrap()]);
    assert!(page.contains("<section id=\"od\">"), "od section");
    assert!(page.contains("Order dependence"));
}

#[test]
fn completions_and_man_pages_print() {
    let bash = ok(&["completions", "bash"]);
    assert!(bash.contains("_paf()") && bash.contains("report"), "{bash}");
    for shell in ["zsh", "fish", "elvish", "powershell"] {
        assert!(!ok(&["completions", shell]).is_empty(), "{shell}");
    }
    let man = ok(&["man"]);
    assert!(man.starts_with(".ie") || man.contains(".TH paf 1"), "{man}");
    assert!(man.contains("paf\\-rank(1)"), "{man}");
    let rank = ok(&["man", "rank"]);
    assert!(rank.contains("\\-\\-source\\-root"), "{rank}");
    let (code, _, stderr) = paf(&["man", "nope"]);
    assert_eq!(code, 2);
    assert!(stderr.contains("no command \"nope\""), "{stderr}");
}
