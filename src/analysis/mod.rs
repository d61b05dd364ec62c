//! Phase 1 of PAF (section 3.1): what each test did, and why each failing test failed.
//!
//! [`replay()`] rebuilds a test's dynamic def-use associations from its events; [`failure`]
//! finds a failing test's crash statement, crash variables and method under test; [`backtrack`]
//! follows each crash variable's copy chain to its origin and decides its locality; [`facts`]
//! is what the evaluation's baselines read of each test. Every
//! function here is a pure function of one [`crate::trace::TestTrace`] and the bundle's tables.

pub mod backtrack;
pub mod facts;
pub mod failure;
pub mod replay;

pub use backtrack::{Origin, Step, StepKind};
pub use failure::{CrashKind, CrashVar, Failure, Unanalyzed, analyze_failure, classify};
pub use replay::{DefKind, Definition, FrameInfo, Replay, ReplayError, UseRecord, replay};

#[cfg(test)]
mod tests;
