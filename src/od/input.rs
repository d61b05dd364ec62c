//! Reading the order-dependence inputs: test lists, access files, a bundle's static accesses,
//! and reports (`paf.od/2`, `paf.od/1`, iDFlakies' `flaky-lists.json`). Every problem names
//! the file and line and says what was expected.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::path::Path;

use serde::Deserialize;

use super::Access;
use super::report::{OD_SCHEMA, OD_SCHEMA_V1, OdReport};
use super::{check, compat, idflakies};
use crate::trace::Problem;
use crate::trace::assemble::EventSink;
use crate::trace::lines::read_small;
use crate::trace::symbols::Names;
use crate::trace::{Bundle, Event, Source, Sym, Var};

/// The most bytes of a test list, access file or report read.
pub const MAX_INPUT: u64 = 64 << 20;

fn read_text(path: &Path) -> Result<String, Vec<Problem>> {
    let bytes =
        read_small(path, MAX_INPUT, "a test list, access file or report").map_err(|p| vec![p])?;
    String::from_utf8(bytes).map_err(|e| {
        let good = &e.as_bytes()[..e.utf8_error().valid_up_to()];
        let line = 1 + good.iter().filter(|&&b| b == b'\n').count() as u64;
        vec![Problem::at(
            path,
            line,
            "not UTF-8: expected a UTF-8 text file",
        )]
    })
}

/// A test list: one id per line, in the default order; blank lines and lines starting with
/// `#` are ignored, surrounding spaces trimmed. Duplicates are errors.
pub fn read_tests(path: &Path) -> Result<Vec<String>, Vec<Problem>> {
    parse_tests(path, &read_text(path)?)
}

pub fn parse_tests(path: &Path, text: &str) -> Result<Vec<String>, Vec<Problem>> {
    let mut ids = Vec::new();
    let mut seen: HashMap<String, usize> = HashMap::new();
    let mut problems = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let id = line.trim();
        if id.is_empty() || id.starts_with('#') {
            continue;
        }
        if let Some(first) = seen.get(id) {
            problems.push(Problem::at(
                path,
                i as u64 + 1,
                format!(
                    "duplicate test id {id:?} (first on line {first}); expected each test once"
                ),
            ));
            continue;
        }
        seen.insert(id.to_string(), i + 1);
        ids.push(id.to_string());
    }
    if ids.is_empty() && problems.is_empty() {
        problems.push(Problem::in_file(
            path,
            "no tests: expected one test id per line",
        ));
    }
    if problems.is_empty() {
        Ok(ids)
    } else {
        Err(problems)
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct AccessFile {
    format: String,
    version: u64,
    tests: BTreeMap<String, TestAccess>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct TestAccess {
    #[serde(default)]
    reads: Vec<String>,
    #[serde(default)]
    writes: Vec<String>,
}

pub const ACCESS_FORMAT: &str = "paf-od-access";

/// An access file (docs/order-dependence.md): for each test id, the state it reads before
/// writing it and the state it writes, recorded in the default order. Tests of `ids` it does
/// not name access nothing; a test it names that is not in `ids` is an error.
pub fn read_access(path: &Path, ids: &[String]) -> Result<Access, Vec<Problem>> {
    let text = read_text(path)?;
    parse_access(path, &text, ids)
}

pub fn parse_access(path: &Path, text: &str, ids: &[String]) -> Result<Access, Vec<Problem>> {
    let file: AccessFile = serde_json::from_str(text).map_err(|e| {
        let mut p = Problem::json(path, e.line() as u64, &e);
        p.message = format!(
            "{}; expected {{\"format\": \"{ACCESS_FORMAT}\", \"version\": 1, \"tests\": {{ID: {{\"reads\": [...], \"writes\": [...]}}}}}}",
            p.message
        );
        vec![p]
    })?;
    let mut problems = Vec::new();
    if file.format != ACCESS_FORMAT || file.version != 1 {
        problems.push(Problem::at(
            path,
            line_of(text, "\"format\""),
            format!(
                "format {:?} version {}: expected \"{ACCESS_FORMAT}\" version 1",
                file.format, file.version
            ),
        ));
    }
    let index: HashMap<&str, usize> = ids
        .iter()
        .enumerate()
        .map(|(i, s)| (s.as_str(), i))
        .collect();
    let mut per_test: Vec<(Vec<String>, Vec<String>)> = vec![(Vec::new(), Vec::new()); ids.len()];
    for (id, a) in file.tests {
        match index.get(id.as_str()) {
            Some(&t) => per_test[t] = (a.reads, a.writes),
            None => problems.push(Problem::at(
                path,
                line_of(text, &serde_json::to_string(&id).unwrap_or_default()),
                format!("test {id:?} is not in the test list; expected only ids of listed tests"),
            )),
        }
    }
    if problems.is_empty() {
        Ok(Access::from_names(&per_test))
    } else {
        Err(problems)
    }
}

/// One test's static-state accesses: the static fields it reads, then those it writes.
pub type StaticAccess = (Vec<String>, Vec<String>);

/// What a bundle says of the suite: its test ids in file order, each test's static-state
/// accesses, and which tests failed when it was traced.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct BundleSuite {
    pub ids: Vec<String>,
    pub access: Vec<StaticAccess>,
    pub failing: Vec<bool>,
}

/// The 1-based line of the first occurrence of `needle` (1 if absent).
fn line_of(text: &str, needle: &str) -> u64 {
    text.find(needle)
        .map_or(1, |at| text[..at].matches('\n').count() as u64 + 1)
}

/// The standard streams: where tests print. Printing reads and changes objects reachable from
/// them (a stream's buffer), so every test that prints would read what every earlier one
/// wrote; no test reads back what another printed, so they are not state for ordering.
pub const OUTPUT_STREAMS: [&str; 2] = ["java.lang.System.out", "java.lang.System.err"];

/// The bundle's test ids in file order and each test's static-state accesses: a static field
/// the test uses (or copies from) before defining it is a read; every static field it defines
/// is a write (docs/trace-format.md, variable kind `static`). When a test's `end` record has
/// `statics`, its `read` and `reachable_read` fields are added to the reads and its `written`
/// and `reachable_written` to the writes (a superset: `statics` does not say whether a read
/// came before the test's own write, so the read is kept, which can only add schedules).
/// [`OUTPUT_STREAMS`] are left out.
pub fn access_from_bundle(path: &Path) -> Result<BundleSuite, Vec<Problem>> {
    let bundle = Bundle::open(path)?;
    let mut suite = BundleSuite {
        ids: Vec::new(),
        access: Vec::new(),
        failing: Vec::new(),
    };
    let mut problems = Vec::new();
    let path = bundle.tests.path().to_path_buf();
    // One parallel pass (the engine's): each test's events give its reads and writes, and its
    // end record's `statics` (the only lines that mention them) add what the agent recorded
    // without an event.
    crate::engine::each_test(
        &bundle,
        crate::engine::Jobs::all_cores(),
        StaticsSeen::default,
        |line| line.contains("\"statics\""),
        |test, seen, lines| seen.with_end_statics(&test.id, lines, &path),
        |test, access| match access {
            Ok(access) => {
                suite.ids.push(test.id);
                suite.access.push(access);
                suite
                    .failing
                    .push(test.outcome == crate::trace::Outcome::Fail);
            }
            Err(p) => problems.push(p),
        },
    )?;
    if problems.is_empty() {
        Ok(suite)
    } else {
        Err(problems)
    }
}

/// Adds `field` to `fields` unless it is there (a test's accesses keep their first order).
fn push_new(fields: &mut Vec<String>, field: &str) {
    if !fields.iter().any(|f| f == field) {
        fields.push(field.to_string());
    }
}

/// One test's static reads and writes, gathered from its events as they are read.
#[derive(Default)]
struct StaticsSeen {
    written: HashSet<Sym>,
    reads: Vec<String>,
    writes: Vec<String>,
}

impl StaticsSeen {
    /// The test's reads and writes: those of its events, then those of its end record's
    /// `statics` among `lines` (a superset: `statics` does not say whether a read came before
    /// the test's own write, so the read is kept, which can only add schedules), without
    /// [`OUTPUT_STREAMS`].
    ///
    /// A `statics` of the wrong shape is a problem of its line (the checks of the pass do not
    /// look inside it).
    fn with_end_statics(
        self,
        id: &str,
        lines: &[(u64, String)],
        path: &Path,
    ) -> Result<(Vec<String>, Vec<String>), Problem> {
        let (mut reads, mut writes) = (self.reads, self.writes);
        let mut recorded = None;
        for (number, line) in lines {
            let parsed: EndLine =
                serde_json::from_str(line).map_err(|e| Problem::json(path, *number, &e))?;
            if parsed.k == "end" && parsed.test.as_deref() == Some(id) {
                recorded = parsed.statics;
            }
        }
        if let Some(s) = recorded {
            for f in s.read.iter().chain(&s.reachable_read) {
                push_new(&mut reads, f);
            }
            for f in s.written.iter().chain(&s.reachable_written) {
                push_new(&mut writes, f);
            }
        }
        reads.retain(|f| !OUTPUT_STREAMS.contains(&f.as_str()));
        writes.retain(|f| !OUTPUT_STREAMS.contains(&f.as_str()));
        Ok((reads, writes))
    }

    /// A read counts if the test has not written the field before.
    fn read(&mut self, name: Sym, names: &dyn Names) {
        if !self.written.contains(&name) {
            push_new(&mut self.reads, names.name(name));
        }
    }
}

impl EventSink for StaticsSeen {
    fn event(&mut self, event: &Event, names: &dyn Names) -> Result<(), String> {
        match event {
            Event::Use {
                var: Var::Static { name },
                ..
            } => self.read(*name, names),
            Event::Branch { uses, .. } => {
                for v in uses {
                    if let Var::Static { name } = v {
                        self.read(*name, names);
                    }
                }
            }
            Event::Def { var, source, .. } => {
                if let Source::Copy {
                    from: Var::Static { name },
                    ..
                } = source
                {
                    self.read(*name, names);
                }
                if let Var::Static { name } = var {
                    self.written.insert(*name);
                    push_new(&mut self.writes, names.name(*name));
                }
            }
            _ => {}
        }
        Ok(())
    }
}

/// The `statics` object of an `end` record (docs/trace-format.md; the Java agent writes it):
/// the static fields the test read and wrote, and the root static field of every object
/// reachable from a static that it read or changed (ElectricTest's heap abstraction).
#[derive(Deserialize, Default)]
struct EndStatics {
    #[serde(default)]
    read: Vec<String>,
    #[serde(default)]
    written: Vec<String>,
    #[serde(default)]
    reachable_read: Vec<String>,
    #[serde(default)]
    reachable_written: Vec<String>,
}

/// The part of a tests-file line this pass needs.
#[derive(Deserialize)]
struct EndLine {
    k: String,
    #[serde(default)]
    test: Option<String>,
    #[serde(default)]
    statics: Option<EndStatics>,
}

/// Access sets for `ids` from a bundle's per-test accesses (tests the bundle lacks access
/// nothing).
pub fn access_for(
    ids: &[String],
    bundle_ids: &[String],
    per_test: &[(Vec<String>, Vec<String>)],
) -> Access {
    let index: HashMap<&str, usize> = bundle_ids
        .iter()
        .enumerate()
        .map(|(i, s)| (s.as_str(), i))
        .collect();
    let rows: Vec<(Vec<String>, Vec<String>)> = ids
        .iter()
        .map(|id| {
            index
                .get(id.as_str())
                .map(|&i| per_test[i].clone())
                .unwrap_or_default()
        })
        .collect();
    Access::from_names(&rows)
}

/// A report written by `od detect` (`paf.od/2`, or `paf.od/1` with the edges its verdicts
/// imply) or an iDFlakies `flaky-lists.json` (an object with `dts`), checked to hold
/// together: every test its verdicts and edges name is in its test list, and every order
/// recorded for a test runs it.
pub fn read_report(path: &Path) -> Result<OdReport, Vec<Problem>> {
    let text = read_text(path)?;
    let value: serde_json::Value =
        serde_json::from_str(&text).map_err(|e| vec![Problem::json(path, e.line() as u64, &e)])?;
    let invalid = |e: String| vec![Problem::in_file(path, e)];
    let report = match value.get("schema").and_then(|s| s.as_str()) {
        Some(OD_SCHEMA) => serde_json::from_value(value)
            .map_err(|e| invalid(format!("not a valid {OD_SCHEMA} report: {e}")))?,
        Some(OD_SCHEMA_V1) => compat::from_v1(value)
            .map_err(|e| invalid(format!("not a valid {OD_SCHEMA_V1} report: {e}")))?,
        None if value.get("dts").is_some() => {
            let lists: idflakies::FlakyLists = serde_json::from_value(value).map_err(|e| {
                invalid(format!(
                    "not a valid iDFlakies flaky-lists.json: {e}; expected {{\"dts\": [{{\"name\", \"intended\", \"revealed\", \"type\"}}]}}"
                ))
            })?;
            idflakies::to_report(&lists).map_err(invalid)?
        }
        _ => {
            return Err(vec![Problem::at(
                path,
                line_of(&text, "\"schema\""),
                format!(
                    "expected a {OD_SCHEMA} report (from paf od detect -o), a {OD_SCHEMA_V1} report or an iDFlakies flaky-lists.json"
                ),
            )]);
        }
    };
    let problems = check::report_problems(path, &text, &report);
    if problems.is_empty() {
        Ok(report)
    } else {
        Err(problems)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn test_lists() {
        let p = Path::new("tests.txt");
        assert_eq!(
            parse_tests(p, "# comment\nA.a\n\n  B.b  \n").unwrap(),
            vec!["A.a", "B.b"]
        );
        let err = parse_tests(p, "A.a\nB.b\nA.a\n").unwrap_err();
        assert_eq!(err[0].line, Some(3));
        assert!(err[0].message.contains("first on line 1"));
        assert!(parse_tests(p, "\n# nothing\n").is_err());
    }

    #[test]
    fn bundle_access_adds_end_statics() {
        // Test a writes C.x (an event); test b reads C.x only through a GETSTATIC that has no
        // event, and reads an object reachable from C.list that test a changed: both only in
        // `end.statics`. Test c has no `statics` and reads C.x through a `use` event.
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        std::fs::write(
            d.join("manifest.json"),
            r#"{"format": "paf-trace", "version": 1}"#,
        )
        .unwrap();
        std::fs::write(
            d.join("statements.jsonl"),
            r#"{"id":0,"class":"C","method":"m","file":"C.java","line":3}"#,
        )
        .unwrap();
        std::fs::write(
            d.join("tests.jsonl"),
            r#"{"k":"begin","test":"a"}
{"k":"enter","frame":1,"method":"C.m"}
{"k":"def","frame":1,"stmt":0,"var":{"static":"C.x"},"how":"const"}
{"k":"exit","frame":1}
{"k":"end","test":"a","outcome":"pass","events":3,"statics":{"read":[],"written":["C.x"],"reachable_read":["C.list"],"reachable_written":["C.list"]}}
{"k":"begin","test":"b"}
{"k":"end","test":"b","outcome":"pass","events":0,"statics":{"read":["C.x"],"written":[],"reachable_read":["C.list"],"reachable_written":[]}}
{"k":"begin","test":"c"}
{"k":"enter","frame":1,"method":"C.m"}
{"k":"use","frame":1,"stmt":0,"var":{"static":"C.x"}}
{"k":"exit","frame":1}
{"k":"end","test":"c","outcome":"pass","events":3}
"#,
        )
        .unwrap();
        let suite = access_from_bundle(d).unwrap();
        let (ids, per_test) = (suite.ids, suite.access);
        assert_eq!(ids, vec!["a", "b", "c"]);
        assert_eq!(suite.failing, vec![false; 3]);
        let s = |v: &[&str]| v.iter().map(|x| x.to_string()).collect::<Vec<_>>();
        assert_eq!(per_test[0], (s(&["C.list"]), s(&["C.x", "C.list"])));
        assert_eq!(per_test[1], (s(&["C.x", "C.list"]), s(&[])));
        assert_eq!(per_test[2], (s(&["C.x"]), s(&[])));
    }

    #[test]
    fn a_statics_of_the_wrong_shape_is_a_problem_of_its_line() {
        // The pass's checks do not look inside `statics`; reading it does, and says where.
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        std::fs::write(
            d.join("manifest.json"),
            r#"{"format": "paf-trace", "version": 1}"#,
        )
        .unwrap();
        std::fs::write(d.join("statements.jsonl"), "").unwrap();
        std::fs::write(
            d.join("tests.jsonl"),
            r#"{"k":"begin","test":"a"}
{"k":"end","test":"a","outcome":"pass","events":0,"statics":{"read":"C.x"}}
"#,
        )
        .unwrap();
        let problems = access_from_bundle(d).err().unwrap();
        assert_eq!(problems.len(), 1);
        assert_eq!(problems[0].line, Some(2));
        assert!(
            problems[0].message.contains("expected a sequence"),
            "{}",
            problems[0].message
        );
    }

    #[test]
    fn access_files() {
        let p = Path::new("access.json");
        let ids: Vec<String> = vec!["T1".into(), "T2".into()];
        let a = parse_access(
            p,
            r#"{"format": "paf-od-access", "version": 1,
               "tests": {"T2": {"reads": ["x"]}, "T1": {"writes": ["x", "y"]}}}"#,
            &ids,
        )
        .unwrap();
        assert_eq!(a.fields, vec!["x", "y"]);
        assert!(a.writes[0].contains(&0) && a.reads[1].contains(&0));
        let err = parse_access(
            p,
            "{\"format\": \"paf-od-access\", \"version\": 1,\n \"tests\": {\n\"T9\": {}}}",
            &ids,
        )
        .unwrap_err();
        assert_eq!(err[0].line, Some(3));
        let err = parse_access(p, "{\"format\": \"paf-od-access\",\n \"version\": 1, \"tests\": {\"T1\": {\"reads\": 3}}}", &ids)
            .unwrap_err();
        assert_eq!(err[0].line, Some(2));
        assert!(
            err[0].message.contains("expected {\"format\""),
            "{}",
            err[0].message
        );
    }
}
