//! Merging bundles (`paf trace merge`, `paf trace java --isolate`): the bundles of a sharded
//! trace (`paf trace java --shard i/N`) into one, and the traces of tests run alone into a
//! bundle's `isolated.jsonl`.
//!
//! Each bundle numbers its statements in the order its JVM met them, so the same statement
//! has different ids in different bundles. A statement is identified by its content, every
//! field but `id` (class, method, file, line, bytecode index, modifiers); the merged table
//! numbers them in first-seen order and every statement id in the events (`stmt`, `site`, an
//! allocation's `fields[].stmt`) and in `static-duas.jsonl` (`def`, `use`) is rewritten. The
//! rewrite is textual (`"stmt": N` is a key and its number in any valid JSON line), so the
//! records keep their bytes otherwise. Two statements that differ only in what a statement
//! record does not say (overloads on one line at the same bytecode index, with the same
//! modifiers) become one; docs/java.md says so.

use std::borrow::Cow;
use std::collections::{BTreeMap, HashMap, HashSet};
use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use serde_json::Value;

use super::lines::Lines;
use super::problem::Problem;
use super::scan::Marks;
use super::write::{Behind, Compression};

/// What a merge wrote.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Merged {
    pub parts: usize,
    pub tests: usize,
    pub statements: usize,
}

/// The merged statement table: content key -> new id, and the records in id order.
#[derive(Default)]
struct Statements {
    ids: HashMap<String, u64>,
    records: Vec<String>,
    /// The id the next new statement gets.
    next: u64,
}

impl Statements {
    /// Takes in the table of the bundle being added to, keeping its ids and records as they
    /// are (its tests refer to them); statements new to it will be numbered after them.
    fn own(path: &Path) -> Result<Statements, Vec<Problem>> {
        let mut t = Statements::default();
        let mut lines = Lines::open(path).map_err(|p| vec![p])?;
        while let Some(line) = lines.next_line().map_err(|p| vec![p])? {
            let (id, key, _) = parse_statement(path, line.text, line.number)?;
            t.ids.entry(key).or_insert(id);
            t.records.push(line.text.to_string());
            t.next = t.next.max(id + 1);
        }
        Ok(t)
    }

    /// Takes in a bundle's statement table; the map from its ids to the merged ids.
    fn absorb(&mut self, path: &Path) -> Result<IdMap, Vec<Problem>> {
        let mut lines = Lines::open(path).map_err(|p| vec![p])?;
        let mut map = IdMap::default();
        while let Some(line) = lines.next_line().map_err(|p| vec![p])? {
            let (old, key, mut value) = parse_statement(path, line.text, line.number)?;
            let next = self.next;
            let id = *self.ids.entry(key).or_insert(next);
            if id == next {
                self.next += 1;
                if let Some(obj) = value.as_object_mut() {
                    obj.insert("id".into(), Value::from(id));
                }
                self.records.push(record(&value));
            }
            map.insert(old, id);
        }
        Ok(map)
    }
}

/// A statement record's id, its content key (every field but `id`; serde_json's maps are
/// sorted by key, so the key does not depend on the order of the fields in the file), and
/// the record without its id.
fn parse_statement(
    path: &Path,
    text: &str,
    number: u64,
) -> Result<(u64, String, Value), Vec<Problem>> {
    let mut value: Value =
        serde_json::from_str(text).map_err(|e| vec![Problem::json(path, number, &e)])?;
    let Some(old) = value.get("id").and_then(Value::as_u64) else {
        return Err(vec![Problem::at(
            path,
            number,
            "a statement without an integer \"id\"; expected {\"id\": N, \"class\", ...}",
        )]);
    };
    if let Some(obj) = value.as_object_mut() {
        obj.remove("id");
    }
    Ok((old, value.to_string(), value))
}

/// A statement record with `id` first, as tracers write it.
fn record(value: &Value) -> String {
    let mut s = String::from("{");
    let obj = value.as_object();
    let id = obj
        .and_then(|o| o.get("id"))
        .cloned()
        .unwrap_or(Value::Null);
    s.push_str(&format!("\"id\":{id}"));
    for (k, v) in obj.into_iter().flatten().filter(|(k, _)| *k != "id") {
        s.push_str(&format!(",{}:{v}", Value::from(k.as_str())));
    }
    s.push('}');
    s
}

/// `line` with every statement id under `keys` mapped; an id the map lacks is a problem. The
/// line itself when every id maps to itself (the first shard's, as a rule).
fn remap<'l>(
    line: &'l str,
    keys: &Keys,
    map: &IdMap,
    path: &Path,
    number: u64,
) -> Result<Cow<'l, str>, Problem> {
    let ids = keys.ids(line.as_bytes());
    let mut out = String::new();
    let mut last = 0;
    for (start, end) in ids {
        // ASCII digits: a slice of the line on character boundaries.
        let old: u64 = line[start..end].parse().unwrap_or(u64::MAX);
        let Some(&new) = map.get(&old) else {
            return Err(Problem::at(
                path,
                number,
                format!("statement id {old} is not in the bundle's statement table"),
            ));
        };
        if new != old || !out.is_empty() {
            if out.is_empty() {
                out.reserve(line.len() + 16);
            }
            out.push_str(&line[last..start]);
            out.push_str(&new.to_string());
            last = end;
        }
    }
    if out.is_empty() {
        return Ok(Cow::Borrowed(line));
    }
    out.push_str(&line[last..]);
    Ok(Cow::Owned(out))
}

/// A merged bundle's statement id for each of a part's.
type IdMap = rustc_hash::FxHashMap<u64, u64>;

/// The keys whose numbers are statement ids, found as JSON writes them: the quoted key, any
/// whitespace, a colon, any whitespace, then ASCII digits (`"stmt": 4`). A key's letters
/// elsewhere (a local named `stmt`) are not followed by a colon, so they are left alone. By
/// hand rather than by a regex: this search is most of a merge's time (la4j's 21 million
/// events, docs/performance.md "Thirtieth round").
struct Keys([memchr::memmem::Finder<'static>; 2]);

impl Keys {
    /// Where the ids are in `line`, in order: each a range of digits.
    fn ids(&self, line: &[u8]) -> Vec<(usize, usize)> {
        let mut ids = Vec::new();
        for key in &self.0 {
            for at in key.find_iter(line) {
                let mut i = at + key.needle().len();
                let skip = |mut i: usize| {
                    while line.get(i).is_some_and(u8::is_ascii_whitespace) {
                        i += 1;
                    }
                    i
                };
                i = skip(i);
                if line.get(i) != Some(&b':') {
                    continue;
                }
                let start = skip(i + 1);
                let mut end = start;
                while line.get(end).is_some_and(u8::is_ascii_digit) {
                    end += 1;
                }
                if end > start {
                    ids.push((start, end));
                }
            }
        }
        ids.sort_unstable();
        ids
    }
}

/// `"stmt": N` and `"site": N`: the statement ids of events.
fn event_keys() -> &'static Keys {
    static KEYS: OnceLock<Keys> = OnceLock::new();
    KEYS.get_or_init(|| Keys([b"\"stmt\"", b"\"site\""].map(memchr::memmem::Finder::new)))
}

/// `"def": N` and `"use": N`: the statement ids of a static DUA.
fn dua_keys() -> &'static Keys {
    static KEYS: OnceLock<Keys> = OnceLock::new();
    KEYS.get_or_init(|| Keys([b"\"def\"", b"\"use\""].map(memchr::memmem::Finder::new)))
}

/// The test id of a `begin` record, if the line is one.
fn begin_id(text: &str) -> Option<String> {
    if !text.contains("\"begin\"") {
        return None;
    }
    let v: Value = serde_json::from_str(text).ok()?;
    (v.get("k")? == "begin").then(|| v.get("test")?.as_str().map(str::to_string))?
}

/// `NAME.jsonl` in any of its forms in `dir`, if there.
fn find(dir: &Path, name: &str) -> Option<PathBuf> {
    ["", ".gz", ".zst"]
        .iter()
        .map(|s| dir.join(format!("{name}.jsonl{s}")))
        .find(|p| p.is_file())
}

fn cannot(path: &Path, e: impl std::fmt::Display) -> Vec<Problem> {
    vec![Problem::in_file(path, format!("cannot write: {e}"))]
}

/// Streams a tests file's lines through `each` (its line and number).
fn each_line(
    path: &Path,
    mut each: impl FnMut(&str, u64) -> Result<(), Problem>,
) -> Result<(), Vec<Problem>> {
    let mut lines = Lines::open(path).map_err(|p| vec![p])?;
    while let Some(line) = lines.next_line().map_err(|p| vec![p])? {
        each(line.text, line.number).map_err(|p| vec![p])?;
    }
    Ok(())
}

/// Writes `lines` to `path` through a temporary file beside it, renamed when complete.
fn write_file(
    path: &Path,
    fill: impl FnOnce(&mut dyn Write) -> Result<(), Vec<Problem>>,
) -> Result<(), Vec<Problem>> {
    let mut name = path.file_name().unwrap_or_default().to_os_string();
    name.push(".tmp");
    let tmp = path.with_file_name(name);
    {
        let mut w = Behind::create(&tmp, Compression::of(path)).map_err(|e| cannot(&tmp, e))?;
        fill(&mut w)?;
        w.finish().map_err(|e| cannot(&tmp, e))?;
    }
    fs::rename(&tmp, path).map_err(|e| cannot(path, e))
}

/// Merges the bundles `parts` (the shards of one trace, in order) into a new bundle at `out`:
/// one statement table, every shard's tests in order (a test id in two shards is an error),
/// the static DUAs of all, and their `isolated.jsonl` if any. The manifest is the first
/// shard's, with `merged` set to the number of shards. `out` must not be one of the parts.
pub fn merge(parts: &[PathBuf], out: &Path) -> Result<Merged, Vec<Problem>> {
    let Some(first) = parts.first() else {
        return Err(vec![Problem::in_file(out, "no bundles to merge")]);
    };
    for p in parts {
        if same_dir(p, out) {
            return Err(vec![Problem::in_file(
                out,
                "is one of the bundles to merge; expected a new directory for -o",
            )]);
        }
    }
    let mut table = Statements::default();
    let mut maps = Vec::new();
    for p in parts {
        let path = find(p, "statements").ok_or_else(|| {
            vec![Problem::in_file(
                &p.join("statements.jsonl"),
                "missing: not a bundle",
            )]
        })?;
        maps.push(table.absorb(&path)?);
    }
    fs::create_dir_all(out).map_err(|e| cannot(out, e))?;
    let manifest = manifest(first)?;
    let tests_name = find(first, "tests")
        .and_then(|p| p.file_name().map(|n| n.to_os_string()))
        .unwrap_or_else(|| "tests.jsonl".into());
    let (tests, marks) = merge_tests(parts, &maps, "tests", &out.join(&tests_name), true)?;
    write_marks(out, marks)?;
    if parts.iter().any(|p| find(p, "isolated").is_some()) {
        merge_tests(parts, &maps, "isolated", &out.join("isolated.jsonl"), false)?;
    }
    merge_duas(parts, &maps, &out.join("static-duas.jsonl"))?;
    write_file(&out.join("statements.jsonl"), |w| {
        for r in &table.records {
            writeln!(w, "{r}").map_err(|e| cannot(out, e))?;
        }
        Ok(())
    })?;
    let mut text = serde_json::to_string_pretty(&merged_manifest(manifest, parts.len()))
        .map_err(|e| cannot(out, e))?;
    text.push('\n');
    fs::write(out.join("manifest.json"), text).map_err(|e| cannot(out, e))?;
    Ok(Merged {
        parts: parts.len(),
        tests,
        statements: table.records.len(),
    })
}

/// Writes the merged tests file's `marks` into `out` as `tests.marks` (docs/trace-format.md;
/// the parts' own marks are of other files). Without marks (a line over 4 MiB hid the places
/// of the headers after it), an earlier merge's marks in the directory are removed instead.
fn write_marks(out: &Path, marks: Option<Marks>) -> Result<(), Vec<Problem>> {
    let path = out.join(super::MARKS_FILE);
    match marks {
        Some(marks) => {
            let tmp = out.join(format!("{}.tmp", super::MARKS_FILE));
            fs::write(&tmp, marks.text()).map_err(|e| cannot(&tmp, e))?;
            fs::rename(&tmp, &path).map_err(|e| cannot(&path, e))
        }
        None => match fs::remove_file(&path) {
            Err(e) if e.kind() != std::io::ErrorKind::NotFound => Err(cannot(&path, e)),
            _ => Ok(()),
        },
    }
}

fn same_dir(a: &Path, b: &Path) -> bool {
    a == b || matches!((fs::canonicalize(a), fs::canonicalize(b)), (Ok(x), Ok(y)) if x == y)
}

fn manifest(dir: &Path) -> Result<Value, Vec<Problem>> {
    let path = dir.join("manifest.json");
    let text = fs::read_to_string(&path)
        .map_err(|e| vec![Problem::in_file(&path, format!("cannot read: {e}"))])?;
    serde_json::from_str(&text).map_err(|e| vec![Problem::json(&path, e.line() as u64, &e)])
}

fn merged_manifest(mut m: Value, parts: usize) -> Value {
    if let Some(obj) = m.as_object_mut() {
        let java = obj
            .entry("java")
            .or_insert_with(|| Value::Object(Default::default()));
        if let Some(j) = java.as_object_mut() {
            j.insert("merged".into(), Value::from(parts));
        }
    }
    m
}

/// The `name` file of every part, statement ids rewritten, into `out`: the number of tests and,
/// with `marks`, the file's marks (`tests.marks`), from a scan of its bytes as they are written
/// (on a thread of its own; `None` where a scan cannot make them, a line over 4 MiB).
fn merge_tests(
    parts: &[PathBuf],
    maps: &[IdMap],
    name: &str,
    out: &Path,
    marks: bool,
) -> Result<(usize, Option<Marks>), Vec<Problem>> {
    let mut seen: HashMap<String, PathBuf> = HashMap::new();
    let (tee, chunks) = std::sync::mpsc::sync_channel(4);
    let (written, scanned) = std::thread::scope(|scope| {
        let scan = marks.then(|| scope.spawn(|| Marks::of_chunks(out, chunks)));
        let written = write_file(out, |w| {
            // Dropped at the end of this closure, success or not, which ends the scan.
            let mut w = Tee {
                inner: w,
                chunk: Vec::new(),
                send: marks.then_some(tee),
            };
            for (p, map) in parts.iter().zip(maps) {
                let Some(path) = find(p, name) else {
                    continue;
                };
                each_line(&path, |text, number| {
                    if let Some(id) = begin_id(text)
                        && let Some(other) = seen.insert(id.clone(), p.clone())
                    {
                        return Err(Problem::at(
                            &path,
                            number,
                            format!(
                                "test {id:?} is also in {}; expected each test in one shard",
                                other.display()
                            ),
                        ));
                    }
                    let line = remap(text, event_keys(), map, &path, number)?;
                    writeln!(w, "{line}").map_err(|e| Problem::in_file(out, e.to_string()))
                })?;
            }
            Ok(())
        });
        // A scan that panicked made no marks: the bundle goes without.
        (written, scan.map(|s| s.join().unwrap_or(Ok(None))))
    });
    written?;
    let marks = match scanned {
        Some(m) => m.map_err(|p| vec![p])?,
        None => None,
    };
    Ok((seen.len(), marks))
}

/// A writer that also hands what it writes, in chunks of about 1 MiB, to a channel (a scan
/// for the marks); the rest when dropped, and the end of the bytes with it.
struct Tee<'w> {
    inner: &'w mut dyn Write,
    chunk: Vec<u8>,
    send: Option<std::sync::mpsc::SyncSender<Vec<u8>>>,
}

impl Write for Tee<'_> {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        self.inner.write_all(bytes)?;
        if let Some(send) = &self.send {
            self.chunk.extend_from_slice(bytes);
            // The scan stopped (it reads to the end): it has its answer.
            if self.chunk.len() >= 1 << 20 && send.send(std::mem::take(&mut self.chunk)).is_err() {
                self.send = None;
            }
        }
        Ok(bytes.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.inner.flush()
    }
}

impl Drop for Tee<'_> {
    fn drop(&mut self) {
        if let Some(send) = self.send.take()
            && !self.chunk.is_empty()
        {
            let _ = send.send(std::mem::take(&mut self.chunk));
        }
    }
}

/// The static DUAs of every part, remapped, each once.
fn merge_duas(parts: &[PathBuf], maps: &[IdMap], out: &Path) -> Result<(), Vec<Problem>> {
    let mut lines: BTreeMap<usize, Vec<String>> = BTreeMap::new();
    let mut seen = HashSet::new();
    for (i, (p, map)) in parts.iter().zip(maps).enumerate() {
        let Some(path) = find(p, "static-duas") else {
            continue;
        };
        each_line(&path, |text, number| {
            let line = remap(text, dua_keys(), map, &path, number)?.into_owned();
            if seen.insert(line.clone()) {
                lines.entry(i).or_default().push(line);
            }
            Ok(())
        })?;
    }
    if lines.is_empty() {
        return Ok(());
    }
    write_file(out, |w| {
        for line in lines.values().flatten() {
            writeln!(w, "{line}").map_err(|e| cannot(out, e))?;
        }
        Ok(())
    })
}

/// Adds the tests of `parts` (bundles of tests each run alone in a fresh JVM) to `bundle`'s
/// `isolated.jsonl`, in the bundle's statement ids (statements new to it are appended to its
/// table). A test already there is replaced. The number of tests added.
pub fn add_isolated(bundle: &Path, parts: &[PathBuf]) -> Result<usize, Vec<Problem>> {
    let statements = find(bundle, "statements").ok_or_else(|| {
        vec![Problem::in_file(
            &bundle.join("statements.jsonl"),
            "missing: not a bundle",
        )]
    })?;
    let mut table = Statements::own(&statements)?;
    let known = table.records.len();
    let maps: Vec<IdMap> = parts
        .iter()
        .map(|p| {
            let path = find(p, "statements").ok_or_else(|| {
                vec![Problem::in_file(
                    &p.join("statements.jsonl"),
                    "missing: not a bundle",
                )]
            })?;
            table.absorb(&path)
        })
        .collect::<Result<_, _>>()?;
    let mut new_ids = HashSet::new();
    for p in parts {
        if let Some(path) = find(p, "tests") {
            each_line(&path, |text, _| {
                new_ids.extend(begin_id(text));
                Ok(())
            })?;
        }
    }
    let target = find(bundle, "isolated").unwrap_or_else(|| bundle.join("isolated.jsonl"));
    let kept = kept_isolated(&target, &new_ids)?;
    write_file(&target, |w| {
        for line in &kept {
            writeln!(w, "{line}").map_err(|e| cannot(&target, e))?;
        }
        for (p, map) in parts.iter().zip(&maps) {
            let Some(path) = find(p, "tests") else {
                continue;
            };
            each_line(&path, |text, number| {
                let line = remap(text, event_keys(), map, &path, number)?;
                writeln!(w, "{line}").map_err(|e| Problem::in_file(&target, e.to_string()))
            })?;
        }
        Ok(())
    })?;
    if table.records.len() > known {
        write_file(&statements, |w| {
            for r in &table.records {
                writeln!(w, "{r}").map_err(|e| cannot(&statements, e))?;
            }
            Ok(())
        })?;
    }
    Ok(new_ids.len())
}

/// The lines of an existing `isolated.jsonl` whose tests are not being replaced.
fn kept_isolated(path: &Path, replaced: &HashSet<String>) -> Result<Vec<String>, Vec<Problem>> {
    let mut kept = Vec::new();
    if !path.is_file() {
        return Ok(kept);
    }
    let mut keep = true;
    each_line(path, |text, number| {
        if let Some(id) = begin_id(text) {
            keep = !replaced.contains(&id);
        }
        let _ = number;
        if keep {
            kept.push(text.to_string());
        }
        Ok(())
    })?;
    Ok(kept)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn statement_ids_are_rewritten_in_place() {
        let map: IdMap = [(3, 7), (4, 0)].into_iter().collect();
        let line =
            r#"{"k":"alloc","obj":1,"frame":2,"stmt":3,"fields":[{"field":"A.f", "stmt": 4}]}"#;
        let got = remap(line, event_keys(), &map, Path::new("t"), 1).unwrap();
        assert_eq!(
            got,
            r#"{"k":"alloc","obj":1,"frame":2,"stmt":7,"fields":[{"field":"A.f", "stmt": 0}]}"#
        );
        // A name that merely contains the key's letters is left alone.
        let line = r#"{"k":"use","frame":1,"stmt":4,"var":{"local":"stmt"}}"#;
        let got = remap(line, event_keys(), &map, Path::new("t"), 1).unwrap();
        assert_eq!(
            got,
            r#"{"k":"use","frame":1,"stmt":0,"var":{"local":"stmt"}}"#
        );
        let err = remap(r#"{"stmt":9}"#, event_keys(), &map, Path::new("t"), 5).unwrap_err();
        assert_eq!(err.line, Some(5));
        assert_eq!(
            err.message,
            "statement id 9 is not in the bundle's statement table"
        );
        // Whitespace around the colon; "site" too; a key with no number, or with no colon
        // after it, or cut off by the line's end, is left as it is.
        let line = "{\"stmt\" :\t3, \"site\":4,\"x\":\"stmt\",\"stmt\":null,\"site\"";
        let got = remap(line, event_keys(), &map, Path::new("t"), 1).unwrap();
        assert_eq!(
            got,
            "{\"stmt\" :\t7, \"site\":0,\"x\":\"stmt\",\"stmt\":null,\"site\""
        );
        // Ids that map to themselves leave the line as it is, unchanged and uncopied; one that
        // does not is rewritten after them.
        let map: IdMap = [(3, 3), (4, 4), (5, 6)].into_iter().collect();
        let line = r#"{"stmt":3,"site":4}"#;
        let got = remap(line, event_keys(), &map, Path::new("t"), 1).unwrap();
        assert!(matches!(got, Cow::Borrowed(l) if l == line));
        let got = remap(
            r#"{"stmt":3,"site":5}"#,
            event_keys(),
            &map,
            Path::new("t"),
            1,
        );
        assert_eq!(got.unwrap(), r#"{"stmt":3,"site":6}"#);
        // A static DUA's keys.
        let got = remap(
            r#"{"def":5,"use":3,"var":"use"}"#,
            dua_keys(),
            &map,
            Path::new("t"),
            1,
        );
        assert_eq!(got.unwrap(), r#"{"def":6,"use":3,"var":"use"}"#);
    }

    #[test]
    fn statements_are_one_by_content() {
        let dir = tempfile::tempdir().unwrap();
        let a = dir.path().join("a.jsonl");
        let b = dir.path().join("b.jsonl");
        fs::write(&a, "{\"id\":0,\"class\":\"C\",\"method\":\"m\",\"file\":\"C.java\",\"line\":3}\n{\"id\":1,\"class\":\"C\",\"method\":\"n\",\"file\":\"C.java\",\"line\":5}\n").unwrap();
        // The same two statements in the other order, fields reordered, and a new one.
        fs::write(&b, "{\"id\":0,\"class\":\"C\",\"method\":\"n\",\"line\":5,\"file\":\"C.java\"}\n{\"id\":1,\"class\":\"D\",\"file\":\"D.java\",\"line\":1}\n{\"id\":2,\"class\":\"C\",\"method\":\"m\",\"file\":\"C.java\",\"line\":3}\n").unwrap();
        let mut t = Statements::default();
        let ma = t.absorb(&a).unwrap();
        let mb = t.absorb(&b).unwrap();
        assert_eq!((ma[&0], ma[&1]), (0, 1));
        assert_eq!((mb[&0], mb[&1], mb[&2]), (1, 2, 0));
        assert_eq!(
            t.records[2],
            r#"{"id":2,"class":"D","file":"D.java","line":1}"#
        );
    }
}
