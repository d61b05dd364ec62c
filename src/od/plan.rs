//! `od plan`: the schedules algorithms would run, without running them, as a [`Plan`] and its
//! renderings: [`json`] (one schedule per line) and [`text`] (a header per algorithm).

use super::algo::{self, Algo, Params, TooMany};
use super::{Access, Schedule};

/// The schedules of each algorithm over a default order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Plan {
    /// The default order: a schedule's entries index it.
    pub ids: Vec<String>,
    /// Per algorithm, in the order asked for, its schedules (for `pradet`, with no edge
    /// manifest).
    pub algorithms: Vec<(Algo, Vec<Schedule>)>,
}

/// The schedules of `algos` over `ids` with the access sets `access`; `failing` says which
/// tests failed in the default order (as recorded in a bundle), which `triage` plans from.
pub fn plan(
    algos: &[Algo],
    ids: Vec<String>,
    access: &Access,
    params: Params,
    failing: &[bool],
) -> Result<Plan, TooMany> {
    let algorithms = algos
        .iter()
        .map(|&a| Ok((a, algo::schedules(a, &ids, access, params, failing)?)))
        .collect::<Result<_, TooMany>>()?;
    Ok(Plan { ids, algorithms })
}

impl Plan {
    fn names(&self, schedule: &Schedule) -> Vec<&str> {
        schedule.iter().map(|&t| self.ids[t].as_str()).collect()
    }
}

/// `{"schedules": [...]}`, one schedule per line (a plan can be long, and this keeps it
/// greppable), with each algorithm's count when there are several.
pub fn json(plan: &Plan) -> String {
    let mut s = String::from("{\"schedules\": [");
    let mut first = true;
    for (_, schedules) in &plan.algorithms {
        for sched in schedules {
            s.push_str(if first { "\n  " } else { ",\n  " });
            s.push_str(&serde_json::to_string(&plan.names(sched)).expect("strings serialize"));
            first = false;
        }
    }
    s.push_str(if first { "]" } else { "\n]" });
    if plan.algorithms.len() > 1 {
        let counts: Vec<serde_json::Value> = plan
            .algorithms
            .iter()
            .map(|(a, s)| serde_json::json!({"algo": a.name(), "schedules": s.len()}))
            .collect();
        s.push_str(&format!(
            ",\n\"algorithms\": {}",
            serde_json::to_string(&counts).expect("serializes")
        ));
    }
    s.push_str("}\n");
    s
}

/// `# ALGO: N schedules`, then one schedule per line, test ids separated by spaces.
pub fn text(plan: &Plan) -> String {
    let mut s = String::new();
    for (algo, schedules) in &plan.algorithms {
        s.push_str(&format!("# {algo}: {} schedules\n", schedules.len()));
        for sched in schedules {
            s.push_str(&plan.names(sched).join(" "));
            s.push('\n');
        }
    }
    s
}
