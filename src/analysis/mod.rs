//! Phase 1 of PAF (section 3.1): what each test did, and why each failing test failed.
//!
//! [`replay`] rebuilds a test's dynamic def-use associations from its events as they stream
//! past, keeping what a [`replay::Recorder`] asks for; [`failure`] finds a failing test's crash
//! statement, crash variables and method under test, keeping its candidates as the events go
//! ([`crash`]); [`backtrack`] follows each crash variable's copy chain to its origin and decides
//! its locality; [`facts`] is what the evaluation's baselines read of each test. Everything here
//! is a pure computation over one test's events and the bundle's tables.

pub mod backtrack;
mod body;
mod crash;
pub mod facts;
pub mod failure;
mod kinds;
pub mod replay;

pub use backtrack::{Origin, Step, StepKind};
pub use failure::{
    CrashKind, CrashVar, Failure, FailureReplay, Replayed, Unanalyzed, analyze_failure, classify,
};
pub use replay::{
    Check, DefHow, Definition, Duas, Replay, ReplayError, Replayer, UseAt, UseRecord, replay,
};

#[cfg(test)]
mod tests;
