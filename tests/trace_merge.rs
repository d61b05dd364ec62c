//! `paf trace merge`: the bundles of a sharded trace merged into one. Without a JVM: the
//! shipped traces/motivating bundle cut in two "shards" (its first two tests, and its last two
//! with every statement renumbered, as another JVM would have numbered them); the merge must
//! rank exactly as the whole bundle does. A test in two shards is refused.

use std::collections::HashMap;
use std::path::Path;

use serde_json::Value;

mod common;
use common::{paf, root};

/// Renumbers the statement ids of a value: every `stmt` and `site` key.
fn renumber(v: &mut Value, map: &HashMap<u64, u64>) {
    match v {
        Value::Object(o) => {
            for (k, x) in o.iter_mut() {
                match (k.as_str(), x.as_u64()) {
                    ("stmt" | "site", Some(id)) => *x = Value::from(map[&id]),
                    _ => renumber(x, map),
                }
            }
        }
        Value::Array(a) => a.iter_mut().for_each(|x| renumber(x, map)),
        _ => {}
    }
}

/// Writes a bundle of `tests` (the test lines, whole tests) with the statement table of
/// traces/motivating, its ids mapped through `map`.
fn shard(dir: &Path, tests: &[&str], map: &HashMap<u64, u64>) {
    let src = root().join("traces/motivating");
    std::fs::create_dir_all(dir).unwrap();
    std::fs::copy(src.join("manifest.json"), dir.join("manifest.json")).unwrap();
    let mut statements: Vec<Value> = std::fs::read_to_string(src.join("statements.jsonl"))
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    for s in &mut statements {
        let id = s["id"].as_u64().unwrap();
        s["id"] = Value::from(map[&id]);
    }
    statements.sort_by_key(|s| s["id"].as_u64());
    let text: String = statements.iter().map(|s| format!("{s}\n")).collect();
    std::fs::write(dir.join("statements.jsonl"), text).unwrap();
    let mut out = String::new();
    for line in tests {
        let mut v: Value = serde_json::from_str(line).unwrap();
        renumber(&mut v, map);
        out.push_str(&format!("{v}\n"));
    }
    std::fs::write(dir.join("tests.jsonl"), out).unwrap();
}

fn refs(v: &[String]) -> Vec<&str> {
    v.iter().map(String::as_str).collect()
}

#[test]
fn a_merged_sharded_trace_ranks_as_the_whole_bundle() {
    let src = root().join("traces/motivating");
    let lines: Vec<String> = std::fs::read_to_string(src.join("tests.jsonl"))
        .unwrap()
        .lines()
        .map(String::from)
        .collect();
    // Cut before the third test's begin record.
    let begins: Vec<usize> = (0..lines.len())
        .filter(|&i| lines[i].contains("\"k\":\"begin\""))
        .collect();
    assert_eq!(begins.len(), 4);
    let (first, second) = lines.split_at(begins[2]);
    let ids: Vec<u64> = std::fs::read_to_string(src.join("statements.jsonl"))
        .unwrap()
        .lines()
        .map(|l| {
            serde_json::from_str::<Value>(l).unwrap()["id"]
                .as_u64()
                .unwrap()
        })
        .collect();
    let n = ids.len();
    let same: HashMap<u64, u64> = ids.iter().map(|&i| (i, i)).collect();
    // The second shard's JVM met the statements in the opposite order.
    let reversed: HashMap<u64, u64> = ids
        .iter()
        .zip(ids.iter().rev())
        .map(|(&i, &j)| (i, j))
        .collect();
    let dir = tempfile::tempdir().unwrap();
    let (a, b, out) = (
        dir.path().join("a"),
        dir.path().join("b"),
        dir.path().join("m"),
    );
    shard(&a, &refs(first), &same);
    shard(&b, &refs(second), &reversed);
    let (code, _, err) = paf(&[
        "trace",
        "merge",
        a.to_str().unwrap(),
        b.to_str().unwrap(),
        "-o",
        out.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(err.contains("merged 2 bundles: 4 tests"), "{err}");
    // 76 lines of traces/motivating/tests.jsonl less a begin and an end per test: 68 events.
    let (code, text, _) = paf(&["validate", out.to_str().unwrap()]);
    assert_eq!(code, 0, "{text}");
    assert!(
        text.contains(&format!(
            "ok: 4 tests (2 failing, 2 passing), 68 events, {n} statements"
        )),
        "{text}"
    );
    // The merged tests file gets marks of its own: each begin record and the first end after
    // it, by byte offset and line number (the shards' marks, if any, are of other files).
    let tests = std::fs::read_to_string(out.join("tests.jsonl")).unwrap();
    let mut want = format!("paf-marks 1 {}\n", tests.len());
    let (mut byte, mut ended) = (0, true);
    for (i, line) in tests.split_inclusive('\n').enumerate() {
        let k = serde_json::from_str::<Value>(line).unwrap()["k"].clone();
        if k == "begin" || (k == "end" && !ended) {
            want.push_str(&format!("{} {byte} {}\n", &k.as_str().unwrap()[..1], i + 1));
            ended = k == "end";
        }
        byte += line.len();
    }
    assert_eq!(want.lines().count(), 1 + 2 * 4);
    assert_eq!(
        std::fs::read_to_string(out.join("tests.marks")).unwrap(),
        want
    );
    let whole = paf(&["rank", "traces/motivating", "--format", "json"]);
    let merged = paf(&["rank", out.to_str().unwrap(), "--format", "json"]);
    assert_eq!(merged.1, whole.1);
    // The same shard twice holds every test twice.
    let (code, _, err) = paf(&[
        "trace",
        "merge",
        a.to_str().unwrap(),
        a.to_str().unwrap(),
        "-o",
        dir.path().join("twice").to_str().unwrap(),
    ]);
    assert_eq!(code, 2);
    assert!(
        err.contains("is also in") && err.contains("expected each test in one shard"),
        "{err}"
    );
    // The output may not be a shard.
    let (code, _, err) = paf(&[
        "trace",
        "merge",
        a.to_str().unwrap(),
        "-o",
        a.to_str().unwrap(),
    ]);
    assert_eq!(code, 2);
    assert!(err.contains("is one of the bundles to merge"), "{err}");
}
