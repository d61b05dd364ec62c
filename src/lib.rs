//! `paf`: prioritizes the failures of automatically generated tests, after PAF (Mijung Kim,
//! Shing-Chi Cheung and Sunghun Kim, ESEC/FSE 2018).
//!
//! The ranking chain, one folder per stage: [`trace`] (reading bundles into immutable tables
//! and a tests-file handle) -> [`engine`] (two streaming passes that run phase 1,
//! [`analysis`], on every test) -> [`ranking`] (phases 2 to 4) -> [`report`] (the report value
//! and its renderers) and [`explain`]. Beside it: [`eval`] measures rankings, [`od`] finds
//! order-dependent failures, [`synth`] writes synthetic bundles, [`progress`] is how long jobs
//! report, and [`cli`] is the command line. See ARCHITECTURE.md.

// A function over 100 lines reads better split into named steps; one that reads better whole
// says why in an `#[allow]` beside it.
#![warn(clippy::too_many_lines)]

pub mod analysis;
pub mod cli;
pub mod engine;
pub mod eval;
pub mod explain;
pub mod od;
pub mod progress;
pub mod ranking;
pub mod report;
pub mod sources;
pub mod synth;
pub mod trace;
pub mod words;
