//! When each step of `paf trace java` ended, from the tests' end to the bundle in place: `-v`
//! prints them, so that what a run spends after its tests can be read without a profiler
//! (docs/performance.md, "Thirty-second round").

use std::time::Instant;

/// The steps' ends, in the order paf saw them, measured from the command's start.
pub(super) struct Steps {
    start: Instant,
    ends: Vec<(&'static str, Instant)>,
}

impl Steps {
    pub(super) fn new(start: Instant) -> Steps {
        Steps {
            start,
            ends: Vec::new(),
        }
    }

    /// Step `what` ended at `when`.
    pub(super) fn at(&mut self, what: &'static str, when: Instant) {
        self.ends.push((what, when));
    }

    /// Step `what` ends now.
    pub(super) fn now(&mut self, what: &'static str) {
        self.at(what, Instant::now());
    }

    /// `paf trace: steps: FIRST at T s, then +D s SECOND, ...; T s in all`: the first step's end
    /// from the start, each later one's time since the one before (none of them earlier than
    /// the one before, however the clock read). `None` before any step.
    pub(super) fn line(&self) -> Option<String> {
        let (first, at) = self.ends.first()?;
        let secs = |d: std::time::Duration| format!("{:.3} s", d.as_secs_f64());
        let mut line = format!(
            "paf trace: steps: {first} at {}",
            secs(at.saturating_duration_since(self.start))
        );
        let mut last = *at;
        for (what, when) in &self.ends[1..] {
            let when = (*when).max(last);
            line.push_str(&format!(
                ", then +{} {what}",
                secs(when.saturating_duration_since(last))
            ));
            last = when;
        }
        line.push_str(&format!(
            "; {} in all",
            secs(last.saturating_duration_since(self.start))
        ));
        Some(line)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    /// The line of steps that ended these many milliseconds after the start.
    fn line_of(ends: &[(&'static str, u64)]) -> Option<String> {
        let t0 = Instant::now();
        let mut s = Steps::new(t0);
        for &(what, ms) in ends {
            s.at(what, t0 + Duration::from_millis(ms));
        }
        s.line()
    }

    #[test]
    fn the_first_step_is_timed_from_the_start_and_each_later_one_from_the_step_before() {
        // 512 ms; 526 - 512 = 14 ms; 567 - 526 = 41 ms; 567 ms in all
        assert_eq!(
            line_of(&[
                ("the tests", 512),
                ("the bundle", 526),
                ("the static DUAs", 567)
            ])
            .as_deref(),
            Some(
                "paf trace: steps: the tests at 0.512 s, then +0.014 s the bundle, then +0.041 s \
                 the static DUAs; 0.567 s in all"
            )
        );
    }

    #[test]
    fn a_step_that_ended_before_the_one_before_it_takes_no_time() {
        // worker 0's exit is read by another thread: it may come after a later step's end
        assert_eq!(
            line_of(&[("the bundle", 300), ("worker 0", 200), ("in place", 350)]).as_deref(),
            Some(
                "paf trace: steps: the bundle at 0.300 s, then +0.000 s worker 0, then +0.050 s \
                 in place; 0.350 s in all"
            )
        );
    }

    #[test]
    fn no_step_no_line() {
        assert_eq!(line_of(&[]), None);
    }
}
