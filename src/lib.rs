//! `paf`: prioritizes the failures of automatically generated tests (PAF, Jiang et al.).
//!
//! Phases, each a module with typed inputs and outputs:
//! [`trace`] (load) -> [`dataflow`] -> [`coverage`] -> [`flowset`] -> [`score`] -> [`rank`]
//! -> [`report`]. [`pipeline`] drives them; [`cli`] is the command line. See ARCHITECTURE.md.

pub mod cli;
pub mod coverage;
pub mod dataflow;
pub mod eval;
pub mod explain;
pub mod flowset;
pub mod od;
pub mod pipeline;
pub mod rank;
pub mod report;
pub mod score;
pub mod synth;
pub mod trace;
