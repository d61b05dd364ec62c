//! What the evaluation's baselines need from each test, gathered while the engine reads it
//! (`paf eval`): a failing test's exception and its method under test's entry values, and the
//! entry values of the calls a passing test's body made.

use crate::trace::{EntryValues, ExceptionInfo};

/// A failing test as the baselines see it.
#[derive(Clone, Debug, PartialEq)]
pub struct FailingTest {
    pub id: String,
    pub exception: Option<ExceptionInfo>,
    /// The method under test ([`super::failure::FailureReplay`] finds it) and, if the tracer
    /// wrote them, its argument and receiver-field values at entry.
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
