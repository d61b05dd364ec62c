//! What `paf report` shows, as a value ([`Page`]): the ranking's [`Report`], the source lines
//! around every statement a flow-set names (when the sources were found), and optionally the
//! order-dependence findings (`paf.od/1`) and the evaluation against a truth with its APFD
//! plot. Built here, from values the CLI read; [`super::html`] only formats it.

use std::collections::{BTreeMap, BTreeSet};

use serde::Serialize;

use super::{Location, Report};
use crate::eval::EvalReport;
use crate::od::report::OdReport;

/// Lines shown before and after a statement's line.
pub const CONTEXT_LINES: u32 = 2;

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Page {
    pub report: Report,
    /// Source lines around a statement, by its repository path and line.
    pub snippets: BTreeMap<String, BTreeMap<u32, Snippet>>,
    /// How many of the files the report names were found and shown.
    pub sources_found: usize,
    pub sources_named: usize,
    pub od: Option<OdReport>,
    pub eval: Option<EvalSection>,
    /// `paf VERSION`.
    pub generator: String,
}

/// The evaluation against a truth and its APFD curves as SVG.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct EvalSection {
    pub report: EvalReport,
    pub apfd_svg: Option<String>,
}

/// Consecutive source lines, `first` being the number of the first; `focus` is the statement's.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Snippet {
    pub first: u32,
    pub focus: u32,
    pub lines: Vec<String>,
}

/// Every location a flow-set names: its crash statement, where the exception surfaced, and
/// each step of each crash variable's dataflow.
fn locations(report: &Report) -> impl Iterator<Item = &Location> {
    report.flow_sets.iter().flat_map(|fs| {
        std::iter::once(&fs.crash.statement)
            .chain(fs.crash.thrown_at.as_ref())
            .chain(
                fs.crash
                    .origins
                    .iter()
                    .flat_map(|v| v.chain.iter())
                    .flat_map(|s| s.def.iter().chain(std::iter::once(&s.use_))),
            )
    })
}

/// The repository paths of the source files the page would show (the CLI reads these).
pub fn wanted_sources(report: &Report) -> BTreeSet<String> {
    locations(report).filter_map(|l| l.path.clone()).collect()
}

/// The page of `report`, with snippets cut from `sources` (repository path -> lines).
pub fn build(
    report: Report,
    sources: &BTreeMap<String, Vec<String>>,
    od: Option<OdReport>,
    eval: Option<EvalSection>,
) -> Page {
    let mut snippets: BTreeMap<String, BTreeMap<u32, Snippet>> = BTreeMap::new();
    for l in locations(&report) {
        let Some(path) = &l.path else { continue };
        let Some(lines) = sources.get(path) else {
            continue;
        };
        if let Some(s) = snippet(lines, l.line) {
            snippets.entry(path.clone()).or_default().insert(l.line, s);
        }
    }
    let named = wanted_sources(&report);
    Page {
        sources_found: named.iter().filter(|p| sources.contains_key(*p)).count(),
        sources_named: named.len(),
        report,
        snippets,
        od,
        eval,
        generator: format!("paf {}", env!("CARGO_PKG_VERSION")),
    }
}

/// Lines `line - CONTEXT_LINES ..= line + CONTEXT_LINES` of a file (1-based), if `line` is in it.
fn snippet(lines: &[String], line: u32) -> Option<Snippet> {
    let n = u32::try_from(lines.len()).ok()?;
    if line == 0 || line > n {
        return None;
    }
    let first = line.saturating_sub(CONTEXT_LINES).max(1);
    let last = (line + CONTEXT_LINES).min(n);
    Some(Snippet {
        first,
        focus: line,
        lines: lines[(first - 1) as usize..last as usize].to_vec(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_snippet_is_the_line_and_two_either_side_within_the_file() {
        let lines: Vec<String> = (1..=6).map(|i| format!("line {i}")).collect();
        let s = snippet(&lines, 1).unwrap();
        assert_eq!((s.first, s.focus, s.lines.len()), (1, 1, 3));
        let s = snippet(&lines, 4).unwrap();
        assert_eq!((s.first, s.lines[0].as_str()), (2, "line 2"));
        assert_eq!(s.lines.len(), 5);
        let s = snippet(&lines, 6).unwrap();
        assert_eq!((s.first, s.lines.len()), (4, 3));
        assert_eq!(snippet(&lines, 7), None);
        assert_eq!(snippet(&lines, 0), None);
    }
}
