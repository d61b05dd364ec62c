//! Phases 2 to 4 of PAF (sections 3.2 to 3.4): from analyzed failures and DUA coverage to a
//! ranking. [`flowset`] clusters failures into flow-sets and decides their locality, [`score`]
//! computes theta and the likelihood of a precondition violation from the [`coverage`] table,
//! [`order`] ranks; [`exclude`] takes order-caused failures out before any of it.

pub mod coverage;
pub mod exclude;
pub mod flowset;
pub mod order;
pub mod score;

use crate::analysis::Failure;
use coverage::DuaTable;
use flowset::FlowSet;
use score::Score;

pub use order::{DEFAULT_SEED, TestOrder};

/// Phases 2 to 4: flow-sets, their scores and their order.
#[derive(Debug)]
pub struct Ranked {
    pub sets: Vec<FlowSet>,
    pub scores: Vec<Score>,
    /// Flow-set indices in rank order.
    pub order: Vec<usize>,
    /// How the report lists the individual tests (representatives first unless set).
    pub test_order: TestOrder,
}

/// Groups `failures` into flow-sets, scores them against `duas` and orders them; `seed` breaks
/// ties.
pub fn rank(failures: &[Failure], duas: &DuaTable, seed: u64) -> Ranked {
    let sets = flowset::group(failures);
    let scores = score::score(&sets, duas);
    let order = order::rank(&sets, &scores, seed);
    Ranked {
        sets,
        scores,
        order,
        test_order: TestOrder::default(),
    }
}
