//! What the baselines need from a bundle, gathered in one pass over its tests: each failing
//! test's exception and its method under test's entry values, and the entry values of the
//! passing tests' calls.

use crate::trace::{Bundle, EntryValues, Event, ExceptionInfo, Outcome, Problem, TestTrace};

/// A failing test as the baselines see it.
#[derive(Clone, Debug, PartialEq)]
pub struct FailingTest {
    pub id: String,
    pub exception: Option<ExceptionInfo>,
    /// The method under test (the last call of the test body that did not return normally)
    /// and, if the tracer wrote them, its argument and receiver-field values at entry.
    pub mut_entry: Option<(String, Option<EntryValues>)>,
}

/// The baselines' view of a bundle.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Facts {
    /// Failing tests in bundle order.
    pub failing: Vec<FailingTest>,
    /// `(method, values)` of every call a passing test's body made that carries values.
    pub passing_entries: Vec<(String, EntryValues)>,
    /// Calls of passing test bodies, with or without values.
    pub passing_calls: usize,
}

/// The method under test of a test: the last `enter` without a caller whose frame did not exit
/// normally (its exit threw, or it has none). Returns the index of that `enter` event.
pub fn mut_enter(test: &TestTrace) -> Option<usize> {
    let mut candidate: Option<usize> = None;
    let mut open: Vec<(u64, usize)> = Vec::new();
    for (i, e) in test.events.iter().enumerate() {
        match e {
            Event::Enter {
                frame,
                caller: None,
                ..
            } => open.push((*frame, i)),
            Event::Exit { frame, threw } => {
                if let Some(pos) = open.iter().position(|(f, _)| f == frame) {
                    let (_, at) = open.remove(pos);
                    if threw.is_some() {
                        candidate = candidate.max(Some(at));
                    }
                }
            }
            _ => {}
        }
    }
    // A call without an exit: the exception escaped to the test body.
    open.into_iter()
        .map(|(_, at)| at)
        .fold(candidate, |c, at| c.max(Some(at)))
}

/// Reads every test of the bundle once.
pub fn gather(bundle: &mut Bundle) -> Result<Facts, Vec<Problem>> {
    let mut facts = Facts::default();
    let mut problems = Vec::new();
    let mut reader = bundle.tests().map_err(|p| vec![p])?;
    while let Some(item) = reader.next() {
        let test = match item {
            Ok(t) => t,
            Err(mut p) => {
                problems.append(&mut p);
                continue;
            }
        };
        let symbols = reader.symbols();
        match test.outcome {
            Outcome::Pass => {
                for e in &test.events {
                    if let Event::Enter {
                        caller: None,
                        method,
                        values,
                        ..
                    } = e
                    {
                        facts.passing_calls += 1;
                        if let Some(v) = values {
                            facts
                                .passing_entries
                                .push((symbols.name(*method).to_string(), (**v).clone()));
                        }
                    }
                }
            }
            Outcome::Fail => {
                let mut_entry = mut_enter(&test).and_then(|i| match &test.events[i] {
                    Event::Enter { method, values, .. } => Some((
                        symbols.name(*method).to_string(),
                        values.as_deref().cloned(),
                    )),
                    _ => None,
                });
                facts.failing.push(FailingTest {
                    id: test.id.clone(),
                    exception: test.exception.clone(),
                    mut_entry,
                });
            }
        }
    }
    if problems.is_empty() {
        Ok(facts)
    } else {
        Err(problems)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::trace::testing::read;

    /// The event index `mut_enter` picks in a test made of `events`.
    fn mut_of(events: &[&str]) -> Option<usize> {
        let text = format!(
            "{{\"k\":\"begin\",\"test\":\"t\"}}\n{}\n{{\"k\":\"end\",\"test\":\"t\",\"outcome\":\"pass\",\"events\":{}}}\n",
            events.join("\n"),
            events.len()
        );
        mut_enter(read(&text).single())
    }

    const M: &str = r#""method":"C.m""#;

    #[test]
    fn the_mut_is_the_last_test_body_call_that_did_not_return() {
        let enter = |f: u32| format!(r#"{{"k":"enter","frame":{f},{M}}}"#);
        let inner = |f: u32, c: u32| format!(r#"{{"k":"enter","frame":{f},{M},"caller":{c}}}"#);
        let exit = |f: u32| format!(r#"{{"k":"exit","frame":{f}}}"#);
        let threw = |f: u32| format!(r#"{{"k":"exit","frame":{f},"throw":"E"}}"#);
        // Call 1 throws (caught by the test), call 2 returns: the MUT is call 1 (event 0).
        let a = [enter(1), threw(1), enter(2), exit(2)];
        assert_eq!(
            mut_of(&a.iter().map(String::as_str).collect::<Vec<_>>()),
            Some(0)
        );
        // Call 2 never exits (the exception escaped to the test body); its callee threw.
        let b = [enter(1), threw(1), enter(2), inner(3, 2), threw(3)];
        assert_eq!(
            mut_of(&b.iter().map(String::as_str).collect::<Vec<_>>()),
            Some(2)
        );
        // Every call returned: no MUT.
        let c = [enter(1), exit(1)];
        assert_eq!(
            mut_of(&c.iter().map(String::as_str).collect::<Vec<_>>()),
            None
        );
    }
}
