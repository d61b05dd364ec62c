//! A progress bar on stderr while a bundle is read: shown only when stderr is a terminal and
//! only once reading has taken longer than a second, so short runs and pipes stay silent.

use std::io::IsTerminal;
use std::time::{Duration, Instant};

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

use crate::pipeline::Progress;

/// How long a run must take before the bar appears.
const DELAY: Duration = Duration::from_secs(1);

/// The bar over the bytes of the tests file.
pub struct Bar {
    bar: ProgressBar,
    started: Instant,
    /// The bar may be drawn (stderr is a terminal) but is not yet visible.
    waiting: bool,
}

impl Bar {
    /// A bar, hidden until it has a length ([`Progress::start`]) and a second has passed.
    pub fn new() -> Bar {
        let bar = ProgressBar::with_draw_target(Some(0), ProgressDrawTarget::hidden());
        if let Ok(style) = ProgressStyle::with_template(
            "{spinner} reading tests {bytes}/{total_bytes} [{wide_bar}] {msg} ETA {eta}",
        ) {
            bar.set_style(style.progress_chars("=> "));
        }
        Bar {
            bar,
            started: Instant::now(),
            waiting: std::io::stderr().is_terminal(),
        }
    }

    /// Removes the bar, if it was shown.
    pub fn finish(&self) {
        self.bar.finish_and_clear();
    }
}

impl Progress for Bar {
    fn start(&mut self, total: u64) {
        self.bar.set_length(total);
    }

    fn tick(&mut self, bytes: u64, tests: usize) {
        // Drawing is rate-limited by indicatif; updating the position is cheap.
        if !tests.is_multiple_of(256) {
            return;
        }
        if self.waiting && self.started.elapsed() >= DELAY {
            self.waiting = false;
            self.bar.set_draw_target(ProgressDrawTarget::stderr());
        }
        self.bar.set_position(bytes);
        self.bar.set_message(format!("{tests} tests"));
    }
}
