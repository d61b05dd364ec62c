//! Before phase 2: failures the order-dependence filter found to be caused by the order tests
//! ran in (`paf rank --exclude-od`) leave the analysis, so they neither make nor join a
//! flow-set, and are listed apart with their evidence; masked failures whose isolated trace
//! joined the analysis (`paf rank --od`) are named.

use crate::analysis::{Failure, Unanalyzed};
use crate::od::report::{Excluded, Masked};
use crate::trace::TestIds;

/// The masked failures of an order-dependence report, split by whether the analysis holds
/// their failure alone.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct MaskedSplit {
    /// In the analysis: ranked.
    pub joined: Vec<Masked>,
    /// Not in the bundle's isolated traces (or passing there): not ranked.
    pub missing: Vec<Masked>,
}

/// Which of `wanted` joined the analysis (`joined`: the test indices whose isolated failure
/// did), in the order given.
pub fn masked(ids: &TestIds, joined: &[usize], wanted: Vec<Masked>) -> MaskedSplit {
    let mut split = MaskedSplit::default();
    for m in wanted {
        match ids.find(&m.test) {
            Some(ix) if joined.contains(&ix) => split.joined.push(m),
            _ => split.missing.push(m),
        }
    }
    split
}

/// Drops from `failures` and `unanalyzed` every test `order_caused` names that failed in the
/// bundle, and returns those, in the order given. A test the bundle does not hold, or that
/// passed in it, has nothing to exclude.
pub fn exclude(
    ids: &TestIds,
    failures: &mut Vec<Failure>,
    unanalyzed: &mut Vec<Unanalyzed>,
    order_caused: Vec<Excluded>,
) -> Vec<Excluded> {
    let mut dropped = Vec::new();
    for e in order_caused {
        let Some(ix) = ids.find(&e.test) else {
            continue;
        };
        let failed =
            failures.iter().any(|f| f.test == ix) || unanalyzed.iter().any(|u| u.test == ix);
        if !failed {
            continue;
        }
        failures.retain(|f| f.test != ix);
        unanalyzed.retain(|u| u.test != ix);
        dropped.push(e);
    }
    dropped
}
