//! The order-dependence filter: finds test failures caused by the order tests ran in
//! (DTDetector, PRADET, ElectricTest) by running schedules through a real test runner, so that
//! `paf rank --exclude-od` can leave them out of the ranking. See docs/order-dependence.md.
//!
//! Pure parts: [`algo`] (schedules from test ids and access sets), [`pradet`] (the dependency
//! graph refinement as a state machine), [`ddmin`] (delta debugging), [`verdict`] (what a set
//! of observations means). Parts with effects: [`runner`] (one schedule in one fresh process),
//! [`exec`] (cache, journal, parallelism, budget, progress), [`detect`] (drives everything),
//! [`replay`] (runs a report's recorded orders again), [`input`] (reads test lists, access
//! files and reports). [`plan`], [`report`] and [`replay`] hold `od plan`'s, `od detect`'s and
//! `od replay`'s results and render them.

pub mod algo;
pub mod batch;
mod check;
mod compat;
pub mod ddmin;
pub mod detect;
pub mod exec;
pub mod graph;
pub mod idflakies;
pub mod input;
pub mod plan;
pub mod pradet;
pub mod replay;
pub mod report;
pub mod runner;
pub mod shard;
pub mod verdict;

use std::collections::BTreeSet;

use serde::{Deserialize, Serialize};

/// A test, as its position in the default order.
pub type Test = usize;

/// An order to run tests in, one fresh process per schedule.
pub type Schedule = Vec<Test>;

/// The static state each test reads and writes, recorded in the default order.
///
/// `reads` are the *upward-exposed* reads: state the test reads before writing it itself, so
/// a value it may have received from an earlier test. `writes` is everything it writes.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Access {
    /// Names of the state locations (static fields, files), indexed by the sets below.
    pub fields: Vec<String>,
    pub reads: Vec<BTreeSet<usize>>,
    pub writes: Vec<BTreeSet<usize>>,
    /// Whether the sets were recorded (an access file, a bundle's statics): then empty sets
    /// mean the test touched no shared state, not that nothing is known (`triage` reads it).
    pub known: bool,
}

impl Access {
    /// An access table for `n` tests with nothing known of what they read or write.
    pub fn empty(n: usize) -> Access {
        Access {
            fields: Vec::new(),
            reads: vec![BTreeSet::new(); n],
            writes: vec![BTreeSet::new(); n],
            known: false,
        }
    }

    /// Builds the table from names, interning the fields in first-seen order (recorded sets:
    /// `known`, even when every set is empty).
    pub fn from_names<S: AsRef<str>>(per_test: &[(Vec<S>, Vec<S>)]) -> Access {
        let mut access = Access::empty(per_test.len());
        access.known = true;
        for (t, (reads, writes)) in per_test.iter().enumerate() {
            for r in reads {
                let f = access.field(r.as_ref());
                access.reads[t].insert(f);
            }
            for w in writes {
                let f = access.field(w.as_ref());
                access.writes[t].insert(f);
            }
        }
        access
    }

    /// The index of a field name, added if new.
    pub fn field(&mut self, name: &str) -> usize {
        match self.fields.iter().position(|f| f == name) {
            Some(i) => i,
            None => {
                self.fields.push(name.to_string());
                self.fields.len() - 1
            }
        }
    }

    pub fn len(&self) -> usize {
        self.reads.len()
    }

    pub fn is_empty(&self) -> bool {
        self.reads.is_empty()
    }

    /// Whether the test reads or writes anything.
    pub fn touches(&self, t: Test) -> bool {
        !self.reads[t].is_empty() || !self.writes[t].is_empty()
    }
}

/// What one test did in one run, as the runner reported it.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(tag = "outcome", rename_all = "lowercase")]
pub enum Outcome {
    Pass,
    /// Failed with `exception` thrown at `class`:`line` (any of them may be unknown).
    Fail {
        exception: Option<String>,
        class: Option<String>,
        line: Option<i64>,
    },
}

impl Outcome {
    pub fn is_pass(&self) -> bool {
        matches!(self, Outcome::Pass)
    }

    /// Short text for tables: `pass`, or `fail Exception at Class:line`.
    pub fn text(&self) -> String {
        match self {
            Outcome::Pass => "pass".to_string(),
            Outcome::Fail {
                exception,
                class,
                line,
            } => {
                let mut s = format!("fail {}", exception.as_deref().unwrap_or("(no exception)"));
                if class.is_some() || line.is_some() {
                    s.push_str(&format!(
                        " at {}:{}",
                        class.as_deref().unwrap_or("?"),
                        line.map_or("?".to_string(), |l| l.to_string())
                    ));
                }
                s
            }
        }
    }
}

/// Why a test has no outcome in a run. Never read as a failure.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Missing {
    /// The schedule ran past its time limit and its process group was killed.
    Timeout,
    /// The runner ended (exit status or signal given) before writing this test's result.
    Crashed(String),
    /// The runner ended normally but wrote no (or no readable) result for this test.
    NoResult,
    /// The runner could not be started.
    NotStarted(String),
    /// The runner reported the test as skipped.
    Skipped,
}

impl Missing {
    pub fn text(&self) -> String {
        match self {
            Missing::Timeout => "no result: timeout".to_string(),
            Missing::Crashed(how) => format!("no result: runner crashed ({how})"),
            Missing::NoResult => "no result".to_string(),
            Missing::NotStarted(why) => format!("no result: runner not started ({why})"),
            Missing::Skipped => "skipped".to_string(),
        }
    }

    /// The reason back from [`Missing::text`] (a journal keeps the text).
    pub fn from_text(text: &str) -> Missing {
        let inner = |prefix: &str| {
            text.strip_prefix(prefix)
                .and_then(|r| r.strip_suffix(')'))
                .map(str::to_string)
        };
        if text == "no result: timeout" {
            Missing::Timeout
        } else if text == "skipped" {
            Missing::Skipped
        } else if let Some(how) = inner("no result: runner crashed (") {
            Missing::Crashed(how)
        } else if let Some(why) = inner("no result: runner not started (") {
            Missing::NotStarted(why)
        } else {
            Missing::NoResult
        }
    }
}

/// One test's result in one run: an outcome, or the reason there is none.
pub type Observed = Result<Outcome, Missing>;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn missing_reasons_survive_their_text() {
        for m in [
            Missing::Timeout,
            Missing::Crashed("killed by signal 9".into()),
            Missing::Crashed("exit status 3".into()),
            Missing::NoResult,
            Missing::NotStarted("No such file or directory (os error 2)".into()),
            Missing::Skipped,
        ] {
            assert_eq!(Missing::from_text(&m.text()), m);
        }
    }
}
