//! The progress bar on stderr, for both long jobs (reading a bundle, running order schedules):
//! shown only when stderr is a terminal and only once the job has taken longer than a second,
//! so short runs and pipes stay silent.

use std::io::IsTerminal;
use std::time::{Duration, Instant};

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

use crate::progress::Progress;

/// How long a job must take before the bar appears.
const DELAY: Duration = Duration::from_secs(1);

/// What a bar counts.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Units {
    /// Bytes of a tests file, with the tests read so far beside it.
    Bytes,
    /// Runs of order schedules, with the algorithm under way beside it.
    Runs,
}

/// A bar on stderr.
pub struct Bar {
    bar: ProgressBar,
    units: Units,
    started: Instant,
    /// The bar may be drawn (stderr is a terminal) but is not yet visible.
    waiting: bool,
}

impl Bar {
    /// The bar of a bundle being read.
    pub fn reading() -> Bar {
        Bar::new(
            Units::Bytes,
            "{spinner} reading tests {bytes}/{total_bytes} [{wide_bar}] {msg} ETA {eta}",
            true,
        )
    }

    /// The bar of order schedules being run; `show: false` never draws (`--no-progress`).
    pub fn runs(show: bool) -> Bar {
        Bar::new(
            Units::Runs,
            "{msg:>12} [{bar:30}] {pos}/{len} runs, {elapsed} elapsed, ETA {eta}",
            show,
        )
    }

    fn new(units: Units, template: &str, show: bool) -> Bar {
        let bar = ProgressBar::with_draw_target(Some(0), ProgressDrawTarget::hidden());
        if let Ok(style) = ProgressStyle::with_template(template) {
            bar.set_style(style.progress_chars("=> "));
        }
        Bar {
            bar,
            units,
            started: Instant::now(),
            waiting: show && std::io::stderr().is_terminal(),
        }
    }

    /// Removes the bar, if it was shown.
    pub fn finish(&self) {
        self.bar.finish_and_clear();
    }

    /// Makes the bar visible once the job has taken long enough.
    fn show_when_due(&mut self) {
        if self.waiting && self.started.elapsed() >= DELAY {
            self.waiting = false;
            self.bar.set_draw_target(ProgressDrawTarget::stderr());
        }
    }
}

impl Progress for Bar {
    fn grow(&mut self, units: u64) {
        self.bar.inc_length(units);
    }

    fn advance(&mut self, done: u64, items: u64) {
        // Reading reports every test; drawing is rate-limited by indicatif, but even updating
        // the message costs, so a bundle's bar moves every 256 tests.
        if self.units == Units::Bytes && !items.is_multiple_of(256) {
            return;
        }
        self.show_when_due();
        self.bar.set_position(done);
        if self.units == Units::Bytes {
            self.bar.set_message(format!("{items} tests"));
        }
    }

    fn stage(&mut self, name: &str) {
        self.show_when_due();
        self.bar.set_message(name.to_string());
    }
}
