//! The files `paf eval` reads besides a bundle: the ground truth (`test,fault` CSV), rankings made
//! elsewhere (one test id per line) and clusterings (groups separated by blank lines, or JSON).
//!
//! Parsing works on bytes and reports every problem as a [`Problem`] naming the file, the line and
//! what was expected; [`read`] is the only function here that touches the file system. All three
//! formats accept `\n`, `\r\n` and `\r` line ends.

use std::collections::HashMap;
use std::path::Path;

use crate::trace::Problem;

/// The ground truth: which faults each failing test reveals.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Truth {
    /// Fault labels, sorted; a fault is referred to by its index here.
    pub faults: Vec<String>,
    /// Every test the file names, in the order of its first line, with the faults it reveals
    /// (sorted indices into `faults`; empty for a test declared with an empty fault).
    pub tests: Vec<(String, Vec<usize>)>,
    index: HashMap<String, usize>,
}

impl Truth {
    /// Builds a truth from `(test, fault)` pairs; an empty fault declares a test that reveals none.
    pub fn from_pairs<'a>(pairs: impl IntoIterator<Item = (&'a str, &'a str)>) -> Truth {
        let pairs: Vec<(&str, &str)> = pairs.into_iter().collect();
        let mut faults: Vec<String> = pairs
            .iter()
            .filter(|(_, f)| !f.is_empty())
            .map(|(_, f)| f.to_string())
            .collect();
        faults.sort();
        faults.dedup();
        let mut tests: Vec<(String, Vec<usize>)> = Vec::new();
        let mut index: HashMap<String, usize> = HashMap::new();
        for (test, fault) in pairs {
            let at = *index.entry(test.to_string()).or_insert_with(|| {
                tests.push((test.to_string(), Vec::new()));
                tests.len() - 1
            });
            if !fault.is_empty() {
                // Every fault named in the file was collected into `faults` in the first pass.
                let f = faults
                    .binary_search_by(|x| x.as_str().cmp(fault))
                    .expect("collected above");
                let list = &mut tests[at].1;
                if let Err(pos) = list.binary_search(&f) {
                    list.insert(pos, f);
                }
            }
        }
        Truth {
            faults,
            tests,
            index,
        }
    }

    /// The faults `test` reveals (none for a test the truth does not name).
    pub fn faults_of(&self, test: &str) -> &[usize] {
        self.index
            .get(test)
            .map_or(&[], |&i| self.tests[i].1.as_slice())
    }

    /// Whether the truth names `test` (with or without a fault).
    pub fn names(&self, test: &str) -> bool {
        self.index.contains_key(test)
    }

    /// The tests that reveal at least one fault, in file order.
    pub fn revealing(&self) -> impl Iterator<Item = &str> {
        self.tests
            .iter()
            .filter(|(_, f)| !f.is_empty())
            .map(|(t, _)| t.as_str())
    }

    /// How many tests reveal fault `f`.
    pub fn tests_of_fault(&self, f: usize) -> usize {
        self.tests.iter().filter(|(_, fs)| fs.contains(&f)).count()
    }

    /// The truth without the tests `keep` rejects; the fault list is unchanged, so a fault whose
    /// tests are all dropped still counts (and is reported as undetected).
    pub fn retain(&self, keep: impl Fn(&str) -> bool) -> Truth {
        let mut out = Truth {
            faults: self.faults.clone(),
            tests: Vec::new(),
            index: HashMap::new(),
        };
        for (t, fs) in &self.tests {
            if keep(t) {
                out.index.insert(t.clone(), out.tests.len());
                out.tests.push((t.clone(), fs.clone()));
            }
        }
        out
    }
}

/// Reads a whole input file (a regular file of at most 64 MiB).
pub fn read(path: &Path) -> Result<Vec<u8>, Problem> {
    crate::trace::lines::read_small(path, 64 << 20, "a truth, ranking or clusters file")
}

/// The file as UTF-8 text with every line end turned into `\n` (a BOM is dropped).
fn text(path: &Path, bytes: &[u8]) -> Result<String, Problem> {
    let s = std::str::from_utf8(bytes).map_err(|e| {
        let good = &bytes[..e.valid_up_to()];
        let line = 1 + good.iter().filter(|&&b| b == b'\n').count() as u64;
        Problem::at(path, line, "not UTF-8: expected a UTF-8 text file")
    })?;
    let s = s.strip_prefix('\u{feff}').unwrap_or(s);
    Ok(s.replace("\r\n", "\n").replace('\r', "\n"))
}

/// The test id of a ranking or clusters line: the text before the first tab, trimmed.
fn id_of(line: &str) -> &str {
    line.split('\t').next().unwrap_or("").trim()
}

/// Parses a truth file: CSV with the header `test,fault`, one line per (test, fault) pair. A
/// test revealing several faults has several lines; an empty fault names a test that reveals
/// none. Repeated lines are harmless. A truth may name no fault at all (every failure it lists
/// is a false alarm).
pub fn parse_truth(path: &Path, bytes: &[u8]) -> Result<Truth, Vec<Problem>> {
    let text = text(path, bytes).map_err(|p| vec![p])?;
    let mut reader = csv::ReaderBuilder::new()
        .has_headers(false)
        .flexible(true)
        .from_reader(text.as_bytes());
    let mut problems = Vec::new();
    let mut pairs: Vec<(String, String)> = Vec::new();
    let mut header_seen = false;
    for record in reader.records() {
        let record = match record {
            Ok(r) => r,
            Err(e) => {
                let line = e.position().map_or(1, |p| p.line());
                problems.push(Problem::at(
                    path,
                    line,
                    format!("not valid CSV ({e}): expected test,fault"),
                ));
                continue;
            }
        };
        let line = record.position().map_or(1, |p| p.line());
        let fields: Vec<&str> = record.iter().map(str::trim).collect();
        if fields.iter().all(|f| f.is_empty()) {
            continue;
        }
        if !header_seen {
            header_seen = true;
            if fields != ["test", "fault"] {
                problems.push(Problem::at(
                    path,
                    line,
                    format!(
                        "header is {:?}: expected the header test,fault",
                        fields.join(",")
                    ),
                ));
            }
            continue;
        }
        match fields.as_slice() {
            [test, fault] if !test.is_empty() => pairs.push((test.to_string(), fault.to_string())),
            [_, _] => problems.push(Problem::at(
                path,
                line,
                "the test id is empty: expected test,fault with a test id",
            )),
            _ => problems.push(Problem::at(
                path,
                line,
                format!(
                    "{}: expected 2 (test,fault; quote a comma inside an id)",
                    crate::words::counted(fields.len(), "field")
                ),
            )),
        }
    }
    if !header_seen && problems.is_empty() {
        problems.push(Problem::in_file(
            path,
            "empty: expected the header test,fault and one line per fault-revealing test",
        ));
    }
    if problems.is_empty() {
        Ok(Truth::from_pairs(
            pairs.iter().map(|(t, f)| (t.as_str(), f.as_str())),
        ))
    } else {
        Err(problems)
    }
}

/// Parses a ranking file: one test id per line, in rank order; anything after a tab is
/// ignored, and so are blank lines. A test may be ranked only once.
pub fn parse_ranking(path: &Path, bytes: &[u8]) -> Result<Vec<String>, Vec<Problem>> {
    let text = text(path, bytes).map_err(|p| vec![p])?;
    let mut problems = Vec::new();
    let mut seen: HashMap<&str, usize> = HashMap::new();
    let mut out = Vec::new();
    for (i, line) in text.split('\n').enumerate() {
        let id = id_of(line);
        if id.is_empty() {
            continue;
        }
        match seen.get(id) {
            Some(&first) => problems.push(Problem::at(
                path,
                i as u64 + 1,
                format!("{id} is already ranked on line {first}: expected each test once"),
            )),
            None => {
                seen.insert(id, i + 1);
                out.push(id.to_string());
            }
        }
    }
    if out.is_empty() && problems.is_empty() {
        problems.push(Problem::in_file(
            path,
            "no test ids: expected one test id per line, in rank order",
        ));
    }
    if problems.is_empty() {
        Ok(out)
    } else {
        Err(problems)
    }
}

/// Parses a clusters file: groups of test ids (one per line, anything after a tab ignored)
/// separated by blank lines, or a JSON array of arrays of test ids. A test may be in only one
/// cluster.
pub fn parse_clusters(path: &Path, bytes: &[u8]) -> Result<Vec<Vec<String>>, Vec<Problem>> {
    let text = text(path, bytes).map_err(|p| vec![p])?;
    let mut problems = Vec::new();
    let mut clusters: Vec<Vec<String>> = Vec::new();
    // Each id with the line it is on (JSON: the line its array starts on is not known; 1).
    let mut lines: Vec<Vec<u64>> = Vec::new();
    if text.trim_start().starts_with('[') {
        match serde_json::from_str::<Vec<Vec<String>>>(&text) {
            Ok(groups) => {
                for g in groups {
                    let ids: Vec<String> = g.iter().map(|s| s.trim().to_string()).collect();
                    if !ids.is_empty() {
                        lines.push(vec![1; ids.len()]);
                        clusters.push(ids);
                    }
                }
            }
            Err(e) => {
                return Err(vec![Problem {
                    file: path.to_path_buf(),
                    line: Some(e.line() as u64),
                    column: Some(e.column() as u64),
                    message: format!(
                        "not a JSON array of arrays of test ids: {}",
                        e.to_string()
                            .rsplit_once(" at line ")
                            .map_or(e.to_string(), |(h, _)| h.to_string())
                    ),
                }]);
            }
        }
    } else {
        let mut current: Vec<String> = Vec::new();
        let mut current_lines: Vec<u64> = Vec::new();
        for (i, line) in text.split('\n').enumerate() {
            let id = id_of(line);
            if id.is_empty() {
                if !current.is_empty() {
                    clusters.push(std::mem::take(&mut current));
                    lines.push(std::mem::take(&mut current_lines));
                }
                continue;
            }
            current.push(id.to_string());
            current_lines.push(i as u64 + 1);
        }
        if !current.is_empty() {
            clusters.push(current);
            lines.push(current_lines);
        }
    }
    let mut seen: HashMap<&str, usize> = HashMap::new();
    for (c, ids) in clusters.iter().enumerate() {
        for (k, id) in ids.iter().enumerate() {
            if id.is_empty() {
                problems.push(Problem::at(
                    path,
                    lines[c][k],
                    format!("an empty test id in cluster {}: expected test ids", c + 1),
                ));
                continue;
            }
            match seen.get(id.as_str()) {
                Some(&first) => problems.push(Problem::at(
                    path,
                    lines[c][k],
                    format!(
                        "{id} is already in cluster {first}: expected each test in one cluster"
                    ),
                )),
                None => {
                    seen.insert(id, c + 1);
                }
            }
        }
    }
    if clusters.is_empty() && problems.is_empty() {
        problems.push(Problem::in_file(
            path,
            "no test ids: expected groups of test ids separated by blank lines, or a JSON array of arrays",
        ));
    }
    if problems.is_empty() {
        Ok(clusters)
    } else {
        Err(problems)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    fn p() -> &'static Path {
        Path::new("in.txt")
    }

    fn messages(r: Result<impl std::fmt::Debug, Vec<Problem>>) -> Vec<String> {
        r.expect_err("expected problems")
            .iter()
            .map(|p| p.to_string())
            .collect()
    }

    #[test]
    fn truth_accepts_every_line_ending_and_several_faults_per_test() {
        for eol in ["\n", "\r\n", "\r"] {
            let text = ["test,fault", "t1,F2", "t1,F1", "t2,", "t3,F1", ""].join(eol);
            let truth = parse_truth(p(), text.as_bytes()).unwrap();
            assert_eq!(truth.faults, ["F1", "F2"]);
            assert_eq!(truth.faults_of("t1"), [0, 1]);
            assert_eq!(truth.faults_of("t2"), [] as [usize; 0]);
            assert!(truth.names("t2"));
            assert!(!truth.names("t9"));
            assert_eq!(truth.revealing().collect::<Vec<_>>(), ["t1", "t3"]);
            assert_eq!(truth.tests_of_fault(0), 2);
        }
    }

    #[test]
    fn truth_problems_name_the_line_and_what_was_expected() {
        assert_eq!(
            messages(parse_truth(p(), b"id,bug\nt1,F1\n")),
            ["in.txt:1: header is \"id,bug\": expected the header test,fault"]
        );
        assert_eq!(
            messages(parse_truth(p(), b"test,fault\nt1,F1,x\n,F2\n")),
            [
                "in.txt:2: 3 fields: expected 2 (test,fault; quote a comma inside an id)",
                "in.txt:3: the test id is empty: expected test,fault with a test id"
            ]
        );
        assert_eq!(
            messages(parse_truth(p(), b"")),
            ["in.txt: empty: expected the header test,fault and one line per fault-revealing test"]
        );
        // A truth may name no fault (every failure a false alarm): it parses.
        let clean = parse_truth(p(), b"test,fault\nt1,\nt2,\n").expect("parses");
        assert!(clean.faults.is_empty());
        assert_eq!(clean.tests.len(), 2);
        assert_eq!(
            messages(parse_truth(p(), b"test,fault\r\nt1,F1\r\n\xff,F2\r\n")),
            ["in.txt:3: not UTF-8: expected a UTF-8 text file"]
        );
    }

    #[test]
    fn ranking_ignores_text_after_a_tab_and_blank_lines() {
        let r = parse_ranking(p(), b"a\t0.5 local\r\n\r\n  b  \rc\n").unwrap();
        assert_eq!(r, ["a", "b", "c"]);
        assert_eq!(
            messages(parse_ranking(p(), b"a\nb\na\tagain\n")),
            ["in.txt:3: a is already ranked on line 1: expected each test once"]
        );
        assert_eq!(
            messages(parse_ranking(p(), b"\n\t\n")),
            ["in.txt: no test ids: expected one test id per line, in rank order"]
        );
    }

    #[test]
    fn clusters_are_groups_separated_by_blank_lines_or_json() {
        let c = parse_clusters(p(), b"a\nb\tnote\r\n\r\n\r\nc\r").unwrap();
        assert_eq!(c, [vec!["a", "b"], vec!["c"]]);
        let c = parse_clusters(p(), b" [[\"a\", \"b\"], [], [\"c\"]]").unwrap();
        assert_eq!(c, [vec!["a", "b"], vec!["c"]]);
        assert_eq!(
            messages(parse_clusters(p(), b"a\nb\n\nb\n")),
            ["in.txt:4: b is already in cluster 1: expected each test in one cluster"]
        );
        let m = messages(parse_clusters(p(), b"[[\"a\"], [1]]"));
        assert_eq!(m.len(), 1);
        assert!(
            m[0].starts_with("in.txt:1:")
                && m[0].contains("not a JSON array of arrays of test ids"),
            "{m:?}"
        );
    }

    #[test]
    fn retain_keeps_the_fault_list() {
        let t = Truth::from_pairs([("a", "F1"), ("b", "F2")]);
        let r = t.retain(|x| x == "a");
        assert_eq!(r.faults, ["F1", "F2"]);
        assert_eq!(r.tests_of_fault(1), 0);
        assert_eq!(r.faults_of("b"), [] as [usize; 0]);
    }
}
