//! Reading the reports of other schemas as `paf.od/2`: a `paf.od/1` report (one verdict per
//! test, no dependency graph) gets the edges its verdicts imply, and an iDFlakies
//! `flaky-lists.json` goes through [`super::idflakies`].

use serde_json::Value;

use super::report::{Dependency, EdgeKind, OD_SCHEMA, OdReport, Res, Verdict, VerdictReport};

/// A `paf.od/1` report as `paf.od/2`: its `dependencies` (ElectricTest's and PRADET's
/// candidates) become `candidates`, and each verdict gives the edges it records: a victim a
/// polluter edge on its polluters (baseline: the test alone), a brittle test a state-setter
/// edge on its state-setters and, with polluters, a polluter edge from the finding that ran
/// them after its setters, a self-dependent test a self edge. They were confirmed the way
/// `paf.od/1` confirmed (the detecting orders re-run), not by re-running the witness.
pub fn from_v1(mut value: Value) -> Result<OdReport, serde_json::Error> {
    if let Some(obj) = value.as_object_mut() {
        if let Some(candidates) = obj.remove("dependencies") {
            obj.insert("candidates".to_string(), candidates);
        }
        obj.insert("schema".to_string(), Value::from(OD_SCHEMA));
        obj.insert("dependencies".to_string(), Value::Array(Vec::new()));
    }
    let mut report: OdReport = serde_json::from_value(value)?;
    report.dependencies = report.verdicts.iter().flat_map(edges_of).collect();
    report.summary.dependencies = report.dependencies.len();
    Ok(report)
}

/// The edges a `paf.od/1` verdict records.
fn edges_of(v: &VerdictReport) -> Vec<Dependency> {
    let alone = vec![v.test.clone()];
    let isolated = v.isolated_outcome.clone().unwrap_or(Res::Pass);
    let minimal = |order: &[String]| {
        v.findings
            .iter()
            .find(|f| f.order == order)
            .is_none_or(|f| f.one_minimal)
    };
    let found_by = |order: &[String]| {
        v.findings
            .iter()
            .find(|f| f.order == order)
            .map_or("default".to_string(), |f| f.found_by.clone())
    };
    let edge = |kind,
                on: &[String],
                witness: &[String],
                outcome: &Res,
                baseline: &[String],
                base: &Res| {
        Dependency {
            dependent: v.test.clone(),
            kind,
            on: on.to_vec(),
            witness: witness.to_vec(),
            witness_outcome: outcome.clone(),
            baseline: baseline.to_vec(),
            baseline_outcome: base.clone(),
            one_minimal: minimal(witness),
            confirmed: true,
            confirmation: Vec::new(),
            found_by: found_by(witness),
            note: Some("from a paf.od/1 report".to_string()),
        }
    };
    let mut out = Vec::new();
    match v.verdict {
        Verdict::Victim if !v.polluters.is_empty() => out.push(edge(
            EdgeKind::Polluter,
            &v.polluters,
            &v.witness,
            &v.witness_outcome,
            &alone,
            &isolated,
        )),
        Verdict::Brittle if !v.state_setters.is_empty() => {
            out.push(edge(
                EdgeKind::StateSetter,
                &v.state_setters,
                &v.witness,
                &v.witness_outcome,
                &alone,
                &isolated,
            ));
            let polluted = v.findings.iter().find(|f| {
                f.outcome.is_fail()
                    && v.polluters.iter().all(|p| f.before.contains(p))
                    && v.state_setters.iter().all(|s| f.before.contains(s))
            });
            if let (false, Some(f)) = (v.polluters.is_empty(), polluted) {
                let baseline: Vec<String> = f
                    .order
                    .iter()
                    .filter(|t| !v.polluters.contains(t))
                    .cloned()
                    .collect();
                out.push(edge(
                    EdgeKind::Polluter,
                    &v.polluters,
                    &f.order,
                    &f.outcome,
                    &baseline,
                    &Res::Pass,
                ));
            }
        }
        Verdict::SelfDependent => out.push(edge(
            EdgeKind::SelfDependent,
            &alone,
            &v.witness,
            &v.witness_outcome,
            &alone,
            &isolated,
        )),
        _ => {}
    }
    out
}
