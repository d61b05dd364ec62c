//! Failures raised in the test body (an extension beyond PAF, issue 12): Randoop's contract
//! checks, regression assertions and JDK calls the test made. Their crash variables are what the
//! code under test returned to the failing line, traced back into the code under test.
//!
//! The rule (docs/algorithm.md, "Failures raised in the test body"): the *checked calls* are
//! the calls the failing line of the test body made into instrumented code that returned a
//! value (else those of the nearest earlier line that made one, as a recorded fallback). For
//! each, the returned value is followed through its copies; where it was made (not copied) in
//! the call's own frame, the crash variables are the variables that made it (the operands of
//! the computation, or the condition a returned constant was chosen by); otherwise the value
//! itself. The method under test is the first checked call.

use std::rc::Rc;

use super::backtrack::DefNode;
use super::crash::{BodyCalls, LINE_CALLS_KEPT, LineCalls, Returned, Seen, Tracker};
use super::failure::{CrashKind, CrashVar, Failure, Site};
use super::replay::DefHow;
use crate::trace::{ExceptionInfo, StatementTable, StmtIx, Symbols, VarName};

/// What is known of a failure raised in the test body before its events.
pub(super) struct BodyPlan {
    exception: String,
    /// The failing line of the test method, and `file:line` for messages.
    line: u32,
    position: String,
    contract: Option<String>,
    /// The earlier lines whose stored values the failing line reads (the exception's
    /// `read_lines`).
    read: Vec<u32>,
}

/// Frames of the test framework and the JDK: never the test body.
const MACHINERY: &[&str] = &[
    "org.junit.",
    "junit.",
    "org.opentest4j.",
    "java.",
    "javax.",
    "jdk.",
    "sun.",
    "paf.",
];

impl BodyPlan {
    /// The plan of a failure none of whose stack frames is in instrumented code, at its test
    /// body's frame (the outermost frame that is neither the test framework's nor the JDK's):
    /// `None` when the exception surfaced in instrumented code or no such frame has a line.
    pub(super) fn of(
        exception: &ExceptionInfo,
        statements: &StatementTable,
        symbols: &Symbols,
    ) -> Option<BodyPlan> {
        if Site::find(exception, statements, symbols).is_ok() {
            return None;
        }
        let frame = exception
            .frames
            .iter()
            .rev()
            .find(|f| !MACHINERY.iter().any(|p| f.class.starts_with(p)))?;
        let line = u32::try_from(frame.line).ok()?;
        Some(BodyPlan {
            exception: exception.kind.clone(),
            line,
            position: format!("{}:{}", frame.file.as_deref().unwrap_or("?"), frame.line),
            contract: exception.message.as_deref().and_then(contract_of),
            read: exception.read_lines.clone().unwrap_or_default(),
        })
    }

    /// The lines whose calls the replay keeps besides the latest line's.
    pub(super) fn read_lines(&self) -> Vec<u32> {
        self.read.clone()
    }

    /// The analysis once every event was replayed.
    pub(super) fn analyze(self, t: &Tracker, index: usize, events: u64) -> Result<Failure, String> {
        let empty = BodyCalls::default();
        let body = t.body.as_ref().unwrap_or(&empty);
        let lines = &body.latest;
        // The failing line's own calls; else those of the lines it reads its values from; else
        // (a fallback) the nearest earlier line's.
        let read: Vec<Returned> = if lines.line == Some(self.line) {
            Vec::new()
        } else {
            let mut kept: Vec<&LineCalls> = body.kept.iter().collect();
            kept.sort_by_key(|k| k.line);
            kept.iter()
                .flat_map(|k| k.checked().iter().cloned())
                .collect()
        };
        let calls: &[Returned] = match lines.line {
            _ if !read.is_empty() => &read,
            // Without the tracer's test lines the calls cannot be told apart by line: the
            // latest one alone.
            None => lines.checked().last().map_or(&[], std::slice::from_ref),
            Some(_) => lines.checked(),
        };
        let Some(first) = calls.first() else {
            return Err(format!(
                "{} raised in the test body at {} after no call into the code under test \
                 returned a value: no value of the code under test reaches the failing line \
                 (look at the test's own values there)",
                self.exception, self.position
            ));
        };
        let mut fallback = match lines.line {
            Some(l) if l == self.line => None,
            _ if !read.is_empty() => None,
            Some(l) => Some(format!(
                "line {} of the test body called no code under test that returned a value; \
                 the checked calls are those of the nearest earlier line that did, line {l}",
                self.line
            )),
            None => Some(
                "the tracer recorded no test-body lines; the checked call is the latest call \
                 from the test body that returned a value"
                    .to_string(),
            ),
        };
        if lines.dropped > 0 {
            let note = format!(
                "the line made {} calls that returned a value; the first {LINE_CALLS_KEPT} are \
                 the checked calls",
                LINE_CALLS_KEPT + lines.dropped
            );
            fallback = Some(match fallback {
                Some(f) => format!("{f}; {note}"),
                None => note,
            });
        }
        let uses: Vec<Seen> = calls.iter().flat_map(crash_uses).collect();
        let vars = body_vars(&uses, 2 * i64::from(first.enter));
        Ok(Failure {
            test: index,
            exception: self.exception,
            kind: CrashKind::Returned,
            crash_stmt: vars[0].at,
            thrown_at: vars[0].at,
            mut_method: first.method,
            mut_enter: first.enter,
            vars,
            fallback,
            events: events as usize,
            contract: self.contract,
        })
    }
}

/// The contract of Randoop's message `Contract failed: equals-hashcode on a and b`. Some
/// contracts are spelled as their check, with the test's variables
/// (`Contract failed: observerAdder4.equals(observerAdder4)`): the variables, Randoop's names
/// ending in a number, become `x0`, `x1`, ... in order, so that every test breaking the contract
/// names it alike (`x0.equals(x0)`).
fn contract_of(message: &str) -> Option<String> {
    static VARIABLE: std::sync::OnceLock<regex::Regex> = std::sync::OnceLock::new();
    let rest = message
        .trim_start()
        .strip_prefix("Contract failed:")?
        .trim();
    let name = rest.split(" on ").next().unwrap_or(rest).trim();
    let name = name.trim_end_matches('.');
    if name.is_empty() {
        return None;
    }
    let variable = VARIABLE.get_or_init(|| {
        regex::Regex::new(r"\b[A-Za-z_$][A-Za-z_$0-9]*[0-9]\b").expect("a valid pattern")
    });
    let mut seen: Vec<String> = Vec::new();
    let name = variable.replace_all(name, |c: &regex::Captures<'_>| {
        let v = c[0].to_string();
        let i = seen.iter().position(|s| *s == v).unwrap_or_else(|| {
            seen.push(v);
            seen.len() - 1
        });
        format!("x{i}")
    });
    Some(name.into_owned())
}

/// The crash uses of one checked call: the operands its value was made from in its own frame,
/// or the returned value itself (at its `return`).
fn crash_uses(call: &Returned) -> Vec<Seen> {
    let ret = &call.ret;
    let returned = match ret.how {
        DefHow::Copy { from, .. } => Seen {
            stmt: ret.stmt,
            var: from,
            reach: ret.source.clone(),
        },
        _ => Seen {
            stmt: ret.stmt,
            var: VarName::Ret(call.method),
            reach: Some(ret.clone()),
        },
    };
    let made = made_at(ret);
    match call.made.iter().find(|(s, _)| Some(*s) == made) {
        Some((_, operands)) if !operands.is_empty() => operands.to_vec(),
        _ => vec![returned],
    }
}

/// Where a returned value was made: the statement of the first definition of its copy chain
/// that is not a copy (`None` when the chain leaves the trace).
fn made_at(ret: &Rc<DefNode>) -> Option<StmtIx> {
    let mut def = ret;
    loop {
        match (&def.how, &def.source) {
            (DefHow::Copy { .. }, Some(source)) => def = source,
            (DefHow::Copy { .. }, None) => return None,
            _ => return Some(def.stmt),
        }
    }
}

/// Each distinct (use, variable, origin) backtracked; local if its origin executed after the
/// first checked call was entered (`mut_start`, a locality time).
fn body_vars(uses: &[Seen], mut_start: i64) -> Vec<CrashVar> {
    let mut vars: Vec<CrashVar> = Vec::new();
    for u in uses {
        let v = CrashVar::backtracked(u, u.stmt, mut_start);
        if !vars
            .iter()
            .any(|w| w.at == v.at && w.var == v.var && w.origin == v.origin)
        {
            vars.push(v);
        }
    }
    vars
}

#[cfg(test)]
mod tests {
    use super::contract_of;

    #[test]
    fn contract_names_come_from_randoops_messages() {
        let cases = [
            (
                "Contract failed: equals-hashcode on complex4 and complex9",
                Some("equals-hashcode"),
            ),
            (
                "Contract failed: equals-reflexive on obj0.",
                Some("equals-reflexive"),
            ),
            (
                "Contract failed: compareTo-equals on a and b",
                Some("compareTo-equals"),
            ),
            ("Contract failed: toString throws", Some("toString throws")),
            (
                "Contract failed: observerAdder4.equals(observerAdder4)",
                Some("x0.equals(x0)"),
            ),
            (
                "Contract failed: a1.compareTo(b2) == -b2.compareTo(a1)",
                Some("x0.compareTo(x1) == -x1.compareTo(x0)"),
            ),
            ("expected:<1> but was:<2>", None),
            ("Contract failed:", None),
        ];
        for (message, want) in cases {
            assert_eq!(contract_of(message).as_deref(), want, "{message}");
        }
    }
}
