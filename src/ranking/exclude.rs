//! Before phase 2: failures the order-dependence filter found to be caused by the order tests
//! ran in (`paf rank --exclude-od`) leave the analysis, so they neither make nor join a
//! flow-set, and are listed apart with their evidence.

use crate::analysis::{Failure, Unanalyzed};
use crate::od::report::Excluded;
use crate::trace::TestIds;

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
