//! The [`Page`] as one self-contained HTML file (`paf report`): inline CSS, no network, no
//! script needed to read it. Each ranked flow-set is a `<details>` row that expands to its
//! crash variables' dataflow, step by step with the source lines around each statement, its
//! theta with the passing tests covering each DUA, and its tests; then the unanalyzed and
//! excluded failures, and, when given, the order-dependence findings and the evaluation with
//! its APFD plot. Written with maud, which escapes every text. It only formats.

use maud::{DOCTYPE, Markup, PreEscaped, html};

use super::page::{EvalSection, Page, Snippet};
use super::render::{at, excluded, likelihood, origin, short_exception, summary_line, title};
use super::{FlowSetReport, Location, Step, ThetaEntry, VarReport};
use crate::od::report::{OdReport, Res};
use crate::words::{count, counted};

/// The heading shows at most this much of the subject.
const TITLE_CHARS: usize = 90;

/// Covering tests listed per DUA before "+N more".
const COVERING_SHOWN: usize = 10;

const STYLE: &str = r#"
:root { --fg: #1f2328; --muted: #59636e; --line: #d1d9e0; --bg2: #f6f8fa; --local: #b35900;
        --nonlocal: #0969da; --focus: #fff8c5; }
* { box-sizing: border-box; }
body { font: 14px/1.45 system-ui, -apple-system, "Segoe UI", sans-serif; color: var(--fg);
       margin: 0 auto; max-width: 1200px; padding: 16px 24px 48px; }
h1 { font-size: 22px; margin: 8px 0; overflow-wrap: anywhere; } h2 { font-size: 18px; margin: 28px 0 8px; }
h3 { font-size: 14px; margin: 14px 0 6px; }
code, pre, .mono { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; font-size: 12.5px; }
.muted { color: var(--muted); } .subject { overflow-wrap: anywhere; }
.grid { display: grid; grid-template-columns: 3.5em 6.5em 8.5em minmax(9em, 1.3fr) minmax(10em, 1.6fr) minmax(10em, 1.6fr) minmax(8em, 1.1fr);
        gap: 0 12px; align-items: baseline; padding: 6px 8px; }
.head { font-weight: 600; border-bottom: 2px solid var(--line); }
.grid > span { overflow-wrap: anywhere; }
details.fs { border-bottom: 1px solid var(--line); }
details.fs > summary { cursor: pointer; list-style: none; }
details.fs > summary::-webkit-details-marker { display: none; }
details.fs > summary:hover { background: var(--bg2); }
details.fs[open] > summary { background: var(--bg2); font-weight: 600; }
.badge { display: inline-block; padding: 0 6px; border-radius: 10px; font-size: 12px; font-weight: 600; }
.local { color: #fff; background: var(--local); } .non-local { color: #fff; background: var(--nonlocal); }
.body { padding: 4px 16px 16px 40px; }
ol.chain { padding-left: 20px; margin: 4px 0; } ol.chain > li { margin: 6px 0; }
pre.code { margin: 4px 0; padding: 4px 0; background: var(--bg2); border: 1px solid var(--line);
           border-radius: 4px; overflow-x: auto; }
pre.code span { display: block; padding: 0 8px; white-space: pre; }
pre.code span.focus { background: var(--focus); }
pre.code i { display: inline-block; width: 4em; color: var(--muted); font-style: normal; user-select: none; }
table.list { border-collapse: collapse; width: 100%; margin: 4px 0; }
table.list th, table.list td { text-align: left; vertical-align: top; padding: 4px 8px; border-bottom: 1px solid var(--line); }
table.list th { border-bottom: 2px solid var(--line); }
table.list td, .body p, ol.chain code { overflow-wrap: anywhere; }
.tools { margin: 8px 0; } .tools button { font: inherit; margin-right: 6px; }
img.plot { max-width: 100%; border: 1px solid var(--line); }
"#;

/// Opens the flow-set a link points at (`report.html#fs-3`) and lets the buttons expand all.
const SCRIPT: &str = r#"
function openTarget() {
  var t = location.hash && document.getElementById(location.hash.slice(1));
  if (t && t.tagName === 'DETAILS') { t.open = true; t.scrollIntoView(); }
}
function setAll(open) { document.querySelectorAll('details.fs').forEach(function (d) { d.open = open; }); }
window.addEventListener('hashchange', openTarget);
openTarget();
"#;

/// The page as an HTML document, with a final newline.
pub fn html(page: &Page) -> String {
    let report = &page.report;
    let subject = report.subject.as_deref().unwrap_or("ranked failures");
    let (title, cut) = title(report, TITLE_CHARS);
    let markup = html! {
        (DOCTYPE)
        html lang="en" {
            head {
                meta charset="utf-8";
                meta name="viewport" content="width=device-width, initial-scale=1";
                meta name="generator" content=(page.generator);
                title { (title) }
                style { (PreEscaped(STYLE)) }
            }
            body {
                header {
                    h1 { (title) }
                    @if cut { p.muted.subject { "Subject: " (subject) } }
                    p #summary { (summary_line(report)) "." }
                    p.muted { (sources_note(page)) " Written by " (page.generator) "." }
                }
                main {
                    (ranking(page))
                    (unanalyzed(page))
                    (excluded_list(page))
                    @if let Some(od) = &page.od { (od_section(od)) }
                    @if let Some(eval) = &page.eval { (eval_section(eval)) }
                }
                script { (PreEscaped(SCRIPT)) }
            }
        }
    };
    let mut out = markup.into_string();
    out.push('\n');
    out
}

fn sources_note(page: &Page) -> String {
    if page.sources_named == 0 {
        "Source lines are not shown: the bundle names no source roots (--source-root DIR).".into()
    } else {
        format!(
            "Source lines shown from {} of {} named.",
            page.sources_found,
            count(page.sources_named, "file", "files")
        )
    }
}

fn ranking(page: &Page) -> Markup {
    let report = &page.report;
    html! {
        section #ranking {
            h2 { "Ranked flow-sets" }
            p.muted {
                "One row per flow-set (failures with the same crash statement, crash variables and \
                 origins). Local flow-sets, whose bad value was made inside the method under test, \
                 come first; within each group, the least likely precondition violation first. \
                 Click a row for its dataflow, theta and tests."
            }
            @if report.flow_sets.is_empty() {
                p { "No analyzed failure: nothing to rank." }
            } @else {
                div.tools {
                    button type="button" onclick="setAll(true)" { "Expand all" }
                    button type="button" onclick="setAll(false)" { "Collapse all" }
                }
                div.grid.head {
                    span { "Rank" } span { "Locality" } span { "Likelihood" } span { "Exception" }
                    span { "Crash at" } span { "Origin" } span { "Tests" }
                }
                @for fs in &report.flow_sets { (flow_set(page, fs)) }
            }
        }
    }
}

fn flow_set(page: &Page, fs: &FlowSetReport) -> Markup {
    html! {
        details.fs id=(format!("fs-{}", fs.rank)) data-rank=(fs.rank) {
            summary.grid.row {
                span.mono { (fs.rank) }
                span { span.badge.(fs.locality) { (fs.locality) } }
                span.mono { (likelihood(fs)) }
                span title=(fs.crash.exception) { (short_exception(&fs.crash.exception)) }
                span.mono { (at(&fs.crash.statement)) }
                span.mono { (origin(&fs.crash.origin)) }
                span.mono { (super::render::tests_cell(fs)) }
            }
            div.body {
                p {
                    (fs.crash.exception) " at " code { (at(&fs.crash.statement)) }
                    " in " code { (fs.crash.statement.method) }
                    @if let Some(t) = &fs.crash.thrown_at {
                        " (thrown at " code { (at(t)) } ")"
                    }
                    "; crash variables chosen by " (fs.crash.kind) "; method under test "
                    code { (fs.crash.mut_method) } "."
                    @if let Some(f) = &fs.fallback { " Fallback: " (f) "." }
                }
                @for v in &fs.crash.origins { (variable(page, v)) }
                (theta(fs))
                h3 { "Tests (" (fs.tests.len()) ")" }
                p.mono {
                    @for (i, t) in fs.tests.iter().enumerate() {
                        @if i > 0 { ", " }
                        (t)
                        @if *t == fs.representative { " (representative)" }
                    }
                }
            }
        }
    }
}

fn variable(page: &Page, v: &VarReport) -> Markup {
    let last = v.chain.last();
    html! {
        div.variable {
            h3 {
                "Crash variable " code { (v.variable) } " "
                span.badge.(if v.local { "local" } else { "non-local" }) {
                    (if v.local { "local" } else { "non-local" })
                }
                " likelihood "
                @match v.likelihood {
                    Some(l) => { (format!("{l:.2}")) " (" (v.covered) "/" (v.theta_size) ")" },
                    None => { "n/a (empty theta)" },
                }
            }
            p.muted { "Failure-inducing dataflow, origin first:" }
            ol.chain {
                @for s in &v.chain { li.step { (step(page, s)) } }
                @if let Some(last) = last {
                    li.crash {
                        "Crash: " code { (last.var) } " used at " code { (at(&last.use_)) }
                        // The last definition's lines already show a use on its own line.
                        @if last.def.as_ref().is_none_or(|d| d.path != last.use_.path || d.line != last.use_.line) {
                            (snippet(page, &last.use_))
                        }
                    }
                }
            }
        }
    }
}

fn step(page: &Page, s: &Step) -> Markup {
    html! {
        @match &s.def {
            Some(def) => {
                code { (s.var) } " = " (s.how) " at " code { (at(def)) }
                span.muted { " (" (def.method) "), reaching " code { (at(&s.use_)) } }
                (snippet(page, def))
            },
            None => {
                code { (s.var) } ": " (s.how) "; used at " code { (at(&s.use_)) }
                (snippet(page, &s.use_))
            },
        }
    }
}

fn snippet(page: &Page, l: &Location) -> Markup {
    let found: Option<&Snippet> = l
        .path
        .as_ref()
        .and_then(|p| page.snippets.get(p))
        .and_then(|by_line| by_line.get(&l.line));
    html! {
        @if let Some(s) = found {
            pre.code {
                @for (i, text) in s.lines.iter().enumerate() {
                    @let n = s.first + u32::try_from(i).unwrap_or(0);
                    span.focus[n == s.focus] { i { (n) } (text) }
                }
            }
        }
    }
}

fn theta(fs: &FlowSetReport) -> Markup {
    html! {
        h3 {
            "Theta: " (counted(fs.theta.len(), "DUA")) " reaching the crash statement on the crash variables"
        }
        @if fs.theta.is_empty() {
            p.muted { "None: the likelihood is not defined." }
        } @else {
            table.list {
                tr { th { "Definition" } th { "Use" } th { "Variable" } th { "Covered by passing tests" } }
                @for t in &fs.theta { (theta_row(t)) }
            }
        }
    }
}

fn theta_row(t: &ThetaEntry) -> Markup {
    let position =
        |p: &super::Position| format!("{}:{}", p.path.as_ref().unwrap_or(&p.file), p.line);
    html! {
        tr {
            td.mono { (position(&t.def)) @if t.is_static { " (static)" } }
            td.mono { (position(&t.use_)) }
            td.mono { (t.var) }
            td {
                @if t.covered_by_count == 0 {
                    span.muted { "none" }
                } @else {
                    (t.covered_by_count) ": "
                    span.mono { (crate::words::cut_list(&t.covered_by, COVERING_SHOWN)) }
                    @let unlisted = (t.covered_by_count as usize).saturating_sub(t.covered_by.len());
                    @if unlisted > 0 { span.muted { " (+" (unlisted) " not listed: --max-covering)" } }
                }
            }
        }
    }
}

fn unanalyzed(page: &Page) -> Markup {
    let list = &page.report.unanalyzed;
    html! {
        section #unanalyzed {
            h2 { "Unanalyzed failures (" (list.len()) ")" }
            @if list.is_empty() {
                p.muted { "Every failing test was analyzed." }
            } @else {
                p.muted { "Ranked last, in bundle order." }
                table.list {
                    tr { th { "Test" } th { "Exception" } th { "Why not analyzed" } }
                    @for u in list {
                        tr { td.mono { (u.test) } td { (u.exception.as_deref().unwrap_or("-")) } td { (u.reason) } }
                    }
                }
            }
        }
    }
}

fn excluded_list(page: &Page) -> Markup {
    let list = &page.report.excluded;
    html! {
        @if !list.is_empty() {
            section #excluded {
                h2 { "Excluded as order-caused (" (list.len()) ")" }
                table.list {
                    tr { th { "Test" } th { "Evidence" } }
                    @for e in list { tr { td.mono { (e.test) } td { (excluded(e)) } } }
                }
            }
        }
    }
}

fn res(r: &Res) -> String {
    r.text()
}

fn od_section(od: &OdReport) -> Markup {
    let s = &od.summary;
    html! {
        section #od {
            h2 { "Order dependence" }
            p {
                (counted(s.tests, "test")) ", " (s.failing_in_default_order) " failing in the default order: "
                (counted(s.victims, "victim")) " (" (count(s.order_caused_failures, "order-caused failure", "order-caused failures")) "), "
                (s.brittle) " brittle, " (s.self_dependent) " self-dependent, "
                (s.non_deterministic) " non-deterministic, " (s.inconclusive) " inconclusive; "
                (counted(s.runs, "run")) "."
            }
            @if od.verdicts.is_empty() {
                p.muted { "No test changed its outcome." }
            } @else {
                table.list {
                    tr { th { "Test" } th { "Verdict" } th { "Default order" } th { "Alone" } th { "Witness (minimal order)" } th { "Polluters" } th { "State-setters" } }
                    @for v in &od.verdicts {
                        tr {
                            td.mono { (v.test) }
                            td { (v.verdict.name()) @if v.order_caused_failure { " (order-caused failure)" } }
                            td { (res(&v.default_outcome)) }
                            td { (v.isolated_outcome.as_ref().map_or("-".to_string(), res)) }
                            td.mono { (v.witness.join(" ")) " → " (res(&v.witness_outcome)) }
                            td.mono { (v.polluters.join(", ")) }
                            td.mono { (v.state_setters.join(", ")) }
                        }
                    }
                }
            }
        }
    }
}

fn eval_section(eval: &EvalSection) -> Markup {
    let e = &eval.report;
    html! {
        section #eval {
            h2 { "Evaluation against " code { (e.truth.file) } }
            p {
                (count(e.truth.faults.len(), "fault", "faults")) ", "
                (count(e.truth.revealing_tests, "fault-revealing test", "fault-revealing tests")) "."
            }
            table.list {
                tr { th { "Ranking" } th { "Unit" } th { "APFD" } th { "Random runs (mean ± sd)" } }
                @for r in &e.rankings {
                    tr {
                        td { (r.name) }
                        td { (r.unit) }
                        td.mono { (r.apfd.value.map_or("undefined".to_string(), |v| format!("{v:.3}"))) }
                        td.mono {
                            @match &r.spread {
                                Some(s) => { (format!("{:.3} ± {:.3} ({} runs)", s.mean, s.stddev, s.runs)) },
                                None => { "-" },
                            }
                        }
                    }
                }
            }
            @if !e.clusterings.is_empty() {
                table.list {
                    tr { th { "Clustering" } th { "Clusters" } th { "F-measure" } }
                    @for c in &e.clusterings {
                        tr {
                            td { (c.name) }
                            td.mono { (c.f_measure.clusters) }
                            td.mono { (c.f_measure.value.map_or("-".to_string(), |v| format!("{v:.3}"))) }
                        }
                    }
                }
            }
            @if let Some(svg) = &eval.apfd_svg {
                img.plot alt="APFD curves" src=(svg_data_uri(svg));
            }
        }
    }
}

/// An SVG document as a `data:` URI (an image, so nothing in it can run).
fn svg_data_uri(svg: &str) -> String {
    let mut out = String::from("data:image/svg+xml;charset=utf-8,");
    for c in svg.chars() {
        match c {
            '%' => out.push_str("%25"),
            '#' => out.push_str("%23"),
            '\n' => out.push_str("%0A"),
            '\r' => {}
            _ => out.push(c),
        }
    }
    out
}
