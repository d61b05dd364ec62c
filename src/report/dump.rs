//! `paf rank --dump PHASE`: one phase's output as JSON, to see what each phase concluded
//! (difftastic's `--dump` idea). Like the renderers, it only resolves ids to text.

use serde_json::{Value, json};

use super::Resolver;
use crate::engine::Analysis;
use crate::trace::Tables;

/// Phase 1: every analyzed failure with its crash variables, chains and origins.
pub fn dataflow(tables: &Tables, analysis: &Analysis) -> String {
    let r = Resolver::new(tables, analysis);
    let failures: Vec<Value> = analysis
        .failures
        .iter()
        .map(|f| {
            json!({
                "test": analysis.test_ids[f.test],
                "exception": f.exception,
                "crash_statement": r.location(f.crash_stmt),
                "thrown_at": r.location(f.thrown_at),
                "mut": analysis.symbols.name(f.mut_method),
                "mut_enter_event": f.mut_enter,
                "fallback": f.fallback,
                "variables": f.vars.iter().map(|v| json!({
                    "variable": r.var(v.var),
                    "origin": r.origin(v.origin),
                    "local": v.local,
                    "origin_time": v.origin_time,
                    "chain": v.chain.iter().map(|s| json!({
                        "def": s.def.map(|d| r.position(d)),
                        "use": r.position(s.use_),
                        "var": r.var(s.var),
                        "how": r.step_kind(s.kind),
                    })).collect::<Vec<_>>(),
                })).collect::<Vec<_>>(),
            })
        })
        .collect();
    let unanalyzed: Vec<Value> = analysis
        .unanalyzed
        .iter()
        .map(|u| json!({"test": analysis.test_ids[u.test], "reason": u.reason}))
        .collect();
    format!(
        "{:#}\n",
        json!({"phase": "dataflow", "failures": failures, "unanalyzed": unanalyzed})
    )
}

/// The DUA table: every DUA seen, sorted by position, with its coverage.
pub fn duas(tables: &Tables, analysis: &Analysis) -> String {
    let r = Resolver::new(tables, analysis);
    let mut rows: Vec<Value> = Vec::new();
    let mut all: Vec<_> = analysis.duas.iter().collect();
    all.sort_by_key(|(d, _)| {
        let (def, use_) = (r.position(d.def), r.position(d.use_));
        (def.file, def.line, use_.file, use_.line, r.var(d.var))
    });
    for (dua, _) in all {
        rows.push(
            serde_json::to_value(r.theta_entry(dua, &analysis.duas, &analysis.test_ids))
                .unwrap_or(Value::Null),
        );
    }
    format!("{:#}\n", json!({"phase": "duas", "duas": rows}))
}
