//! The text form of an [`Explanation`], for a terminal. It only formats.

use super::Explanation;
use crate::report::Location;

/// The explanation as text for a terminal.
pub fn text(e: &Explanation) -> String {
    let mut out = String::new();
    let loc = |l: &Location| format!("{}:{} ({})", l.file, l.line, l.method);
    match e.status {
        "passing" => {
            out.push_str(&format!(
                "Test {} passed: it is not ranked; its DUAs count as coverage for theta.\n",
                e.test
            ));
            return out;
        }
        "unanalyzed" => {
            out.push_str(&format!(
                "Test {} failed with {} and was not analyzed: {}.\n",
                e.test,
                e.exception.as_deref().unwrap_or("no exception"),
                e.reason.as_deref().unwrap_or("")
            ));
            if let Some(rank) = e.test_rank {
                out.push_str(&format!(
                    "It is ranked last, at {rank}, with the other unanalyzed failures.\n"
                ));
            }
            return out;
        }
        _ => {}
    }
    out.push_str(&format!(
        "Test {} failed with {}.\n",
        e.test,
        e.exception.as_deref().unwrap_or("")
    ));
    if let (Some(m), Some(at)) = (&e.mut_method, e.mut_entered_at_event) {
        out.push_str(&format!(
            "Method under test: {m} (entered at event {at}).\n"
        ));
    }
    if let Some(c) = &e.crash_statement {
        out.push_str(&format!("Crash statement: {}.\n", loc(c)));
    }
    if let Some(f) = &e.fallback {
        out.push_str(&format!("Fallback: {f}.\n"));
    }
    for v in &e.variables {
        out.push_str(&format!(
            "\nCrash variable {} ({}).\n  Failure-inducing dataflow, origin first:\n",
            v.variable, v.locality
        ));
        for s in &v.chain {
            let def = s.def.as_ref().map_or("(untraced)".to_string(), |d| {
                format!("{}:{}", d.file, d.line)
            });
            out.push_str(&format!(
                "    ({def}, {}:{}, {})  {}\n",
                s.use_.file, s.use_.line, s.var, s.how
            ));
        }
        out.push_str(&format!("  Locality: {}.\n", v.why));
    }
    if let Some(fs) = &e.flow_set {
        out.push_str(&format!(
            "\nFlow-set {} of {}: {}, likelihood {}, {} test(s): {}\n",
            fs.rank,
            e.flow_sets_in_total,
            fs.locality,
            match (&fs.likelihood, &fs.likelihood_ratio) {
                (Some(l), Some(r)) => format!("{l:.2} ({r})"),
                _ => "n/a (empty theta)".to_string(),
            },
            fs.tests.len(),
            fs.tests.join(", ")
        ));
        out.push_str("Theta (DUAs reaching the crash statement on the crash variables):\n");
        for t in &fs.theta {
            let by = if t.covered_by.is_empty() {
                "covered by no passing test".to_string()
            } else {
                format!("covered by {}", t.covered_by.join(", "))
            };
            out.push_str(&format!(
                "  ({}:{}, {}:{}, {}){}: {by}\n",
                t.def.file,
                t.def.line,
                t.use_.file,
                t.use_.line,
                t.var,
                if t.is_static { " [static]" } else { "" }
            ));
        }
    }
    if let Some(rank) = e.test_rank {
        out.push_str(&format!("\nIndividual-test rank: {rank}.\n"));
    }
    out
}
