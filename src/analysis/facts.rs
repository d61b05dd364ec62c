//! What the evaluation's baselines need from each test, gathered while the engine reads it
//! (`paf eval`): a failing test's exception and its method under test's entry values, and the
//! entry values of the calls a passing test's body made.

use super::replay::Replay;
use crate::trace::{EntryValues, Event, ExceptionInfo, Symbols, TestTrace};

/// A failing test as the baselines see it.
#[derive(Clone, Debug, PartialEq)]
pub struct FailingTest {
    pub id: String,
    pub exception: Option<ExceptionInfo>,
    /// The method under test ([`Replay::mut_frame`]) and, if the tracer wrote them, its
    /// argument and receiver-field values at entry.
    pub mut_entry: Option<(String, Option<EntryValues>)>,
}

/// The baselines' view of a bundle.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Facts {
    /// Failing tests in bundle order.
    pub failing: Vec<FailingTest>,
    /// `(method, values)` of every call a passing test's body made that carries values.
    pub passing_entries: Vec<(String, EntryValues)>,
}

/// The facts of one failing test.
pub fn failing(test: &TestTrace, replay: &Replay, symbols: &Symbols) -> FailingTest {
    let mut_entry = replay.mut_frame().and_then(|frame| {
        match &test.events[replay.frames[&frame].enter as usize] {
            Event::Enter { method, values, .. } => Some((
                symbols.name(*method).to_string(),
                values.as_deref().cloned(),
            )),
            _ => None,
        }
    });
    FailingTest {
        id: test.id.clone(),
        exception: test.exception.clone(),
        mut_entry,
    }
}

/// The calls a passing test's body made with entry values, each method named by `name`.
pub fn passing(
    test: &TestTrace,
    name: impl Fn(crate::trace::Sym) -> String,
) -> Vec<(String, EntryValues)> {
    test.events
        .iter()
        .filter_map(|e| match e {
            Event::Enter {
                caller: None,
                method,
                values: Some(v),
                ..
            } => Some((name(*method), (**v).clone())),
            _ => None,
        })
        .collect()
}
