//! The checks [`super::input::read_report`] makes of a `paf.od/2` report beyond its JSON
//! shape. `od replay` and `rank --exclude-od` look a verdict's tests up in the report's test
//! list and its test up in its own orders, and the dependency graph's edges likewise; a
//! hand-edited report where they are missing must be a list of problems, each at the line of
//! the value at fault, never a panic.

use std::collections::HashSet;
use std::path::Path;

use super::report::{Dependency, OdReport, VerdictReport};
use crate::trace::Problem;

/// One step from a JSON value to a value inside it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Step {
    Key(&'static str),
    Index(usize),
}

/// A value of the report that is not what the library expects, and where it is.
struct Violation {
    at: Vec<Step>,
    message: String,
}

/// The problems of `report`, read from `text` at `path`: every test a verdict names (its
/// test, witness, polluters, state-setters and findings' orders) must be in the report's
/// `tests`, and its witness and findings' orders must run the test itself.
pub fn report_problems(path: &Path, text: &str, report: &OdReport) -> Vec<Problem> {
    let listed: HashSet<&str> = report.tests.iter().map(String::as_str).collect();
    let mut found = Vec::new();
    for (i, v) in report.verdicts.iter().enumerate() {
        found.extend(VerdictCheck::new(&listed, i, v).run());
    }
    for (i, d) in report.dependencies.iter().enumerate() {
        found.extend(edge_problems(&listed, i, d));
    }
    found
        .into_iter()
        .map(|f| match line(text, &f.at) {
            Some(line) => Problem::at(path, line, f.message),
            None => Problem::in_file(path, f.message),
        })
        .collect()
}

/// The checks of one verdict, the `i`-th.
struct VerdictCheck<'a> {
    listed: &'a HashSet<&'a str>,
    i: usize,
    v: &'a VerdictReport,
    found: Vec<Violation>,
}

impl<'a> VerdictCheck<'a> {
    fn new(listed: &'a HashSet<&'a str>, i: usize, v: &'a VerdictReport) -> Self {
        VerdictCheck {
            listed,
            i,
            v,
            found: Vec::new(),
        }
    }

    fn run(mut self) -> Vec<Violation> {
        let v = self.v;
        if !self.listed.contains(v.test.as_str()) {
            self.push(
                &[Step::Key("test")],
                "the test is not in the report's test list; expected only ids from \"tests\""
                    .to_string(),
            );
        }
        self.order("its witness", &v.witness, &[Step::Key("witness")]);
        for (k, f) in v.findings.iter().enumerate() {
            let at = [Step::Key("findings"), Step::Index(k), Step::Key("order")];
            self.order(&format!("the order of finding {k}"), &f.order, &at);
        }
        self.ids("its polluters", &v.polluters, &[Step::Key("polluters")]);
        let setters = [Step::Key("state_setters")];
        self.ids("its state-setters", &v.state_setters, &setters);
        self.found
    }

    /// A violation at `steps` inside the verdict.
    fn push(&mut self, steps: &[Step], what: String) {
        let mut at = vec![Step::Key("verdicts"), Step::Index(self.i)];
        at.extend_from_slice(steps);
        let message = format!("verdict for {:?}: {what}", self.v.test);
        self.found.push(Violation { at, message });
    }

    /// Every id of `ids` (`what`, at `steps`) must be a listed test.
    fn ids(&mut self, what: &str, ids: &[String], steps: &[Step]) {
        for (j, id) in ids.iter().enumerate() {
            if !self.listed.contains(id.as_str()) {
                let mut at = steps.to_vec();
                at.push(Step::Index(j));
                self.push(
                    &at,
                    format!(
                        "{id:?} in {what} is not in the report's test list; expected only ids from \"tests\""
                    ),
                );
            }
        }
    }

    /// An order recorded for the verdict: listed tests, the verdict's test among them.
    fn order(&mut self, what: &str, order: &[String], steps: &[Step]) {
        self.ids(what, order, steps);
        if !order.contains(&self.v.test) {
            let test = &self.v.test;
            self.push(
                steps,
                format!("{what} does not run the test; expected an order that runs {test:?}"),
            );
        }
    }
}

/// The problems of the `i`-th edge: its tests must be listed, and its witness and baseline
/// must end with the dependent test (its outcome is the one recorded).
fn edge_problems(listed: &HashSet<&str>, i: usize, d: &Dependency) -> Vec<Violation> {
    let mut found = Vec::new();
    let at = |steps: &[Step]| {
        let mut at = vec![Step::Key("dependencies"), Step::Index(i)];
        at.extend_from_slice(steps);
        at
    };
    let mut push = |steps: &[Step], what: String| {
        found.push(Violation {
            at: at(steps),
            message: format!("dependency of {:?}: {what}", d.dependent),
        });
    };
    if !listed.contains(d.dependent.as_str()) {
        push(
            &[Step::Key("dependent")],
            "the test is not in the report's test list; expected only ids from \"tests\"".into(),
        );
    }
    for (key, ids) in [
        ("on", &d.on),
        ("witness", &d.witness),
        ("baseline", &d.baseline),
    ] {
        for (j, id) in ids.iter().enumerate() {
            if !listed.contains(id.as_str()) {
                push(
                    &[Step::Key(key), Step::Index(j)],
                    format!(
                        "{id:?} in its {key} is not in the report's test list; expected only ids from \"tests\""
                    ),
                );
            }
        }
    }
    for (key, order) in [("witness", &d.witness), ("baseline", &d.baseline)] {
        if order.last() != Some(&d.dependent) {
            push(
                &[Step::Key(key)],
                format!(
                    "its {key} does not end with the test; expected an order whose last test is {:?}",
                    d.dependent
                ),
            );
        }
    }
    found
}

/// The 1-based line on which the value at `at` starts in `text`, a valid JSON document;
/// `None` if it cannot be found (a key written with escapes, say).
fn line(text: &str, at: &[Step]) -> Option<u64> {
    let b = text.as_bytes();
    let mut pos = skip_space(b, 0);
    for step in at {
        pos = match *step {
            Step::Key(key) => member(b, pos, key)?,
            Step::Index(i) => element(b, pos, i)?,
        };
    }
    Some(b[..pos].iter().filter(|&&c| c == b'\n').count() as u64 + 1)
}

/// Where the value of member `key` starts, in the object starting at `pos`.
fn member(b: &[u8], pos: usize, key: &str) -> Option<usize> {
    if b.get(pos) != Some(&b'{') {
        return None;
    }
    let mut p = skip_space(b, pos + 1);
    while b.get(p) == Some(&b'"') {
        let end = skip_string(b, p)?;
        let name = &b[p + 1..end - 1];
        p = skip_space(b, end);
        if b.get(p) != Some(&b':') {
            return None;
        }
        p = skip_space(b, p + 1);
        if name == key.as_bytes() {
            return Some(p);
        }
        p = skip_space(b, skip_value(b, p)?);
        if b.get(p) == Some(&b',') {
            p = skip_space(b, p + 1);
        }
    }
    None
}

/// Where element `i` starts, in the array starting at `pos`.
fn element(b: &[u8], pos: usize, i: usize) -> Option<usize> {
    if b.get(pos) != Some(&b'[') {
        return None;
    }
    let mut p = skip_space(b, pos + 1);
    for _ in 0..i {
        p = skip_space(b, skip_value(b, p)?);
        if b.get(p) != Some(&b',') {
            return None;
        }
        p = skip_space(b, p + 1);
    }
    (p < b.len() && b[p] != b']').then_some(p)
}

/// Where the value starting at `pos` ends (the index after it).
fn skip_value(b: &[u8], pos: usize) -> Option<usize> {
    match b.get(pos)? {
        b'"' => skip_string(b, pos),
        b'{' | b'[' => {
            let mut depth = 0usize;
            let mut p = pos;
            loop {
                match b.get(p)? {
                    b'"' => {
                        p = skip_string(b, p)?;
                        continue;
                    }
                    b'{' | b'[' => depth += 1,
                    b'}' | b']' => {
                        depth -= 1;
                        if depth == 0 {
                            return Some(p + 1);
                        }
                    }
                    _ => {}
                }
                p += 1;
            }
        }
        // A number, true, false or null.
        _ => Some(
            b[pos..]
                .iter()
                .position(|&c| matches!(c, b',' | b'}' | b']') || c.is_ascii_whitespace())
                .map_or(b.len(), |n| pos + n),
        ),
    }
}

/// Where the string whose opening quote is at `pos` ends (the index after its closing quote).
fn skip_string(b: &[u8], pos: usize) -> Option<usize> {
    let mut p = pos + 1;
    loop {
        match b.get(p)? {
            b'\\' => p += 2,
            b'"' => return Some(p + 1),
            _ => p += 1,
        }
    }
}

fn skip_space(b: &[u8], mut p: usize) -> usize {
    while b.get(p).is_some_and(u8::is_ascii_whitespace) {
        p += 1;
    }
    p
}

#[cfg(test)]
mod tests {
    use super::*;
    use Step::{Index, Key};

    #[test]
    fn lines_of_values_by_path() {
        let text = "{\"a\": \"x\\\"}[\",\n \"b\": [1, {\"c\": [true,\n null]}],\n \"d\": {}}";
        assert_eq!(line(text, &[]), Some(1));
        assert_eq!(line(text, &[Key("a")]), Some(1));
        assert_eq!(line(text, &[Key("b")]), Some(2));
        assert_eq!(
            line(text, &[Key("b"), Index(1), Key("c"), Index(1)]),
            Some(3)
        );
        assert_eq!(line(text, &[Key("d")]), Some(4));
        assert_eq!(line(text, &[Key("b"), Index(2)]), None);
        assert_eq!(line(text, &[Key("e")]), None);
        assert_eq!(line(text, &[Key("a"), Index(0)]), None);
    }
}
