//! What the observations of one test mean (iDFlakies' categories): pure functions from its
//! isolated outcome and the distinct outcomes the schedules showed.

use super::Outcome;
use super::report::Verdict;

/// The classification of a confirmed order-dependent test.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Classified {
    pub verdict: Verdict,
    /// Indices into the distinct outcomes: those to minimize (every one but the isolated one).
    pub findings: Vec<usize>,
    /// The finding that is the test's witness.
    pub main: usize,
}

/// `seen` holds the distinct outcomes in the order first seen; `default` is the outcome in
/// the default order, when there is one. A test that passes alone is a victim, its witness the
/// failure seen in the default order if there is one, else the first failure. A test that
/// fails alone and passes in some order is brittle, its witness that pass. A test that fails
/// alone and only fails differently elsewhere is a victim of the tests that change its failure
/// (it is never an order-caused failure: it fails alone too).
pub fn classify(isolated: &Outcome, seen: &[Outcome], default: Option<&Outcome>) -> Classified {
    let findings: Vec<usize> = (0..seen.len()).filter(|&i| seen[i] != *isolated).collect();
    let first =
        |pred: &dyn Fn(&Outcome) -> bool| findings.iter().copied().find(|&i| pred(&seen[i]));
    let (verdict, main) = if isolated.is_pass() {
        let main = default
            .filter(|d| !d.is_pass())
            .and_then(|d| first(&|o| o == d))
            .or_else(|| first(&|o| !o.is_pass()));
        (Verdict::Victim, main)
    } else if let Some(pass) = first(&|o| o.is_pass()) {
        (Verdict::Brittle, Some(pass))
    } else {
        let main = default
            .filter(|d| *d != isolated)
            .and_then(|d| first(&|o| o == d))
            .or_else(|| findings.first().copied());
        (Verdict::Victim, main)
    };
    Classified {
        verdict,
        main: main.unwrap_or(0),
        findings,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fail(e: &str, line: i64) -> Outcome {
        Outcome::Fail {
            exception: Some(e.to_string()),
            class: Some("C".to_string()),
            line: Some(line),
        }
    }

    #[test]
    fn victim_failing_in_the_default_order() {
        let seen = [fail("NPE", 3), Outcome::Pass];
        let c = classify(&Outcome::Pass, &seen, Some(&seen[0]));
        assert_eq!(c.verdict, Verdict::Victim);
        assert_eq!((c.findings, c.main), (vec![0], 0));
    }

    #[test]
    fn brittle_with_a_masked_failure_and_a_pollution() {
        // PRADET Figure 2, testSetCloneString: passes in the default order, NPE alone,
        // assertion failure after testSetField then testToString.
        let seen = [Outcome::Pass, fail("NPE", 13), fail("AssertionError", 13)];
        let c = classify(&fail("NPE", 13), &seen, Some(&seen[0]));
        assert_eq!(c.verdict, Verdict::Brittle);
        assert_eq!((c.findings, c.main), (vec![0, 2], 0));
    }

    #[test]
    fn failing_alone_and_differently_elsewhere_is_a_victim() {
        let seen = [fail("A", 1), fail("B", 2)];
        let c = classify(&fail("A", 1), &seen, Some(&seen[0]));
        assert_eq!(c.verdict, Verdict::Victim);
        assert_eq!(c.main, 1);
    }

    #[test]
    fn the_default_failure_is_the_witness_even_if_another_came_first() {
        let seen = [fail("A", 1), fail("B", 2), Outcome::Pass];
        let c = classify(&Outcome::Pass, &seen, Some(&seen[1]));
        assert_eq!(c.main, 1);
        let c = classify(&Outcome::Pass, &seen, Some(&Outcome::Pass));
        assert_eq!(c.main, 0);
    }
}
