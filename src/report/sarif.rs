//! The [`Report`] as SARIF 2.1.0 (`--format sarif`), for code scanning: one result per
//! flow-set in rank order, a rule per (locality, exception), the rank and likelihood as
//! properties, the flow-set's fingerprint as `partialFingerprints`, and each crash variable's
//! failure-inducing dataflow as a `codeFlow` (origin first, ending at the crash statement).
//! Failures left out of the ranking are the run's notifications. It only formats.

use std::collections::BTreeMap;

use serde_json::{Value, json};
use serde_sarif::sarif;

use super::render::{at, likelihood, origin, short_exception};
use super::{FlowSetReport, Location, Report, VarReport};
use crate::words::{count, cut_list};

/// Where relative URIs start: the repository root (GitHub code scanning reads them so).
const SRCROOT: &str = "%SRCROOT%";

/// Version 2.1.0's schema, as SARIF files name it.
const SCHEMA: &str = "https://json.schemastore.org/sarif-2.1.0.json";

/// The SARIF log, pretty-printed, with a final newline.
pub fn sarif(report: &Report) -> String {
    let rules = rules(report);
    let results: Vec<sarif::Result> = report
        .flow_sets
        .iter()
        .map(|fs| result(report, fs, &rules))
        .collect();
    let driver = sarif::ToolComponent::builder()
        .name("paf")
        .version(env!("CARGO_PKG_VERSION"))
        .semantic_version(env!("CARGO_PKG_VERSION"))
        .full_name("paf: prioritized failures of generated tests (PAF, ESEC/FSE 2018)")
        .rules(rules.iter().map(|(id, _)| rule(id)).collect::<Vec<_>>())
        .build();
    let mut invocation = sarif::Invocation::builder()
        .execution_successful(true)
        .build();
    let notes = notifications(report);
    if !notes.is_empty() {
        invocation.tool_execution_notifications = Some(notes);
    }
    let run = sarif::Run::builder()
        .tool(sarif::Tool::builder().driver(driver).build())
        .invocations(vec![invocation])
        .results(results)
        .properties(bag([
            ("subject", json!(report.subject)),
            ("seed", json!(report.seed)),
            ("summary", json!(report.summary)),
        ]))
        .build();
    let log = sarif::Sarif::builder()
        .schema(SCHEMA)
        .version(json!("2.1.0"))
        .runs(vec![run])
        .build();
    let mut out = serde_json::to_string_pretty(&log).expect("a SARIF log always serializes");
    out.push('\n');
    out
}

/// A flow-set's rule: its locality and exception (`local/java.lang.NullPointerException`).
fn rule_id(fs: &FlowSetReport) -> String {
    format!("{}/{}", fs.locality, fs.crash.exception)
}

/// The rules in order of first use, each with its index.
fn rules(report: &Report) -> Vec<(String, usize)> {
    let mut rules: Vec<(String, usize)> = Vec::new();
    for fs in &report.flow_sets {
        let id = rule_id(fs);
        if !rules.iter().any(|(r, _)| *r == id) {
            let index = rules.len();
            rules.push((id, index));
        }
    }
    rules
}

fn rule(id: &str) -> sarif::ReportingDescriptor {
    let (locality, exception) = id.split_once('/').unwrap_or(("", id));
    let short = short_exception(exception);
    let (what, level, help) = if locality == "local" {
        (
            format!("{short} from a value made inside the method under test"),
            "warning",
            "The crash variable's value was made after the method under test was entered, so \
             the generated call sequence did not hand it in: PAF ranks such failures first as \
             likely faults. Among them, a low likelihood means the passing tests never covered \
             the dataflow that failed.",
        )
    } else {
        (
            format!("{short} from a value the test handed in"),
            "note",
            "The crash variable's value existed before the method under test was entered: the \
             generated test may have broken an implicit precondition. PAF ranks these after the \
             local ones, the most likely precondition violations last.",
        )
    };
    sarif::ReportingDescriptor::builder()
        .id(id)
        .name(format!(
            "{}{short}",
            if locality == "local" {
                "Local"
            } else {
                "NonLocal"
            }
        ))
        .short_description(message_string(&what))
        .full_description(message_string(help))
        .default_configuration(
            sarif::ReportingConfiguration::builder()
                .level(json!(level))
                .build(),
        )
        .build()
}

fn message_string(text: &str) -> sarif::MultiformatMessageString {
    sarif::MultiformatMessageString::builder()
        .text(text)
        .build()
}

fn message(text: String) -> sarif::Message {
    sarif::Message::builder().text(text).build()
}

fn bag<const N: usize>(pairs: [(&str, Value); N]) -> sarif::PropertyBag {
    sarif::PropertyBag::builder()
        .additional_properties(
            pairs
                .into_iter()
                .map(|(k, v)| (k.to_string(), v))
                .collect::<BTreeMap<_, _>>(),
        )
        .build()
}

/// A SARIF location of statement `l`, with `text` as its message.
fn location(l: &Location, text: Option<String>) -> sarif::Location {
    let artifact = match &l.path {
        Some(path) => sarif::ArtifactLocation::builder()
            .uri(path.as_str())
            .uri_base_id(SRCROOT)
            .build(),
        None => sarif::ArtifactLocation::builder()
            .uri(l.file.as_str())
            .build(),
    };
    let physical = if l.line >= 1 {
        sarif::PhysicalLocation::builder()
            .artifact_location(artifact)
            .region(
                sarif::Region::builder()
                    .start_line(i64::from(l.line))
                    .build(),
            )
            .build()
    } else {
        // Line 0: the tracer did not know it; the file still is a location.
        sarif::PhysicalLocation::builder()
            .artifact_location(artifact)
            .build()
    };
    let logical = sarif::LogicalLocation::builder()
        .fully_qualified_name(l.method.as_str())
        // `Class.<field>`: a field's declaration, where allocation sets its default.
        .kind(if l.method.ends_with(".<field>") {
            "member"
        } else {
            "function"
        })
        .build();
    let mut located = sarif::Location::builder()
        .physical_location(physical)
        .logical_locations(vec![logical])
        .build();
    located.message = text.map(message);
    located
}

fn result(report: &Report, fs: &FlowSetReport, rules: &[(String, usize)]) -> sarif::Result {
    let id = rule_id(fs);
    let index = rules.iter().find(|(r, _)| *r == id).map_or(0, |(_, i)| *i);
    let level = if fs.locality == "local" {
        sarif::ResultLevel::Warning
    } else {
        sarif::ResultLevel::Note
    };
    let text = format!(
        "{} on {} at {}: flow-set {} of {}, {}, likelihood {}; the value comes from {}. {}: {} (paf explain BUNDLE {} shows why).",
        short_exception(&fs.crash.exception),
        fs.crash.variables.join(", "),
        at(&fs.crash.statement),
        fs.rank,
        report.flow_sets.len(),
        fs.locality,
        likelihood(fs),
        origin(&fs.crash.origin),
        count(fs.tests.len(), "failing test", "failing tests"),
        cut_list(&fs.tests, 5),
        fs.representative,
    );
    let flows: Vec<sarif::CodeFlow> = fs.crash.origins.iter().filter_map(code_flow).collect();
    let mut result = sarif::Result::builder()
        .rule_id(id)
        .rule_index(i64::try_from(index).unwrap_or(i64::MAX))
        .level(level)
        .message(message(text))
        .locations(vec![location(&fs.crash.statement, None)])
        .partial_fingerprints(BTreeMap::from([(
            "pafFlowSet/v1".to_string(),
            fs.fingerprint.clone(),
        )]))
        .properties(bag([
            ("rank", json!(fs.rank)),
            ("locality", json!(fs.locality)),
            ("likelihood", json!(fs.likelihood)),
            ("likelihoodRatio", json!(fs.likelihood_ratio)),
            ("tests", json!(fs.tests)),
            ("representative", json!(fs.representative)),
            ("exception", json!(fs.crash.exception)),
        ]))
        .build();
    if !flows.is_empty() {
        result.code_flows = Some(flows);
    }
    result
}

/// A crash variable's dataflow: each step's definition, origin first, then the crash use.
fn code_flow(v: &VarReport) -> Option<sarif::CodeFlow> {
    let last = v.chain.last()?;
    let mut steps: Vec<sarif::ThreadFlowLocation> = v
        .chain
        .iter()
        .map(|s| {
            let (at, text) = match &s.def {
                Some(def) => (def, format!("{} = {}", s.var, s.how)),
                None => (&s.use_, format!("{}: {}", s.var, s.how)),
            };
            thread_flow_location(location(at, Some(text)))
        })
        .collect();
    steps.push(thread_flow_location(location(
        &last.use_,
        Some(format!("{} used here: the crash", last.var)),
    )));
    let thread = sarif::ThreadFlow::builder().locations(steps).build();
    Some(
        sarif::CodeFlow::builder()
            .message(message(format!(
                "How {} got its value ({}), origin first",
                v.variable,
                if v.local { "local" } else { "non-local" }
            )))
            .thread_flows(vec![thread])
            .build(),
    )
}

fn thread_flow_location(l: sarif::Location) -> sarif::ThreadFlowLocation {
    sarif::ThreadFlowLocation::builder().location(l).build()
}

/// The failures the ranking leaves out, as notes: unanalyzed ones and order-caused ones.
fn notifications(report: &Report) -> Vec<sarif::Notification> {
    let unanalyzed = report.unanalyzed.iter().map(|u| {
        format!(
            "{} failed{} and was not analyzed: {}; it is ranked last",
            u.test,
            u.exception
                .as_deref()
                .map(|e| format!(" with {e}"))
                .unwrap_or_default(),
            u.reason
        )
    });
    let excluded = report.excluded.iter().map(|e| {
        format!(
            "{} was left out as order-caused ({}): {}",
            e.test,
            e.verdict,
            super::render::excluded(e)
        )
    });
    unanalyzed
        .chain(excluded)
        .map(|text| {
            sarif::Notification::builder()
                .level(json!("note"))
                .message(message(text))
                .build()
        })
        .collect()
}
