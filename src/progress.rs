//! How long jobs report how far they have got: reading a bundle (bytes) and running order
//! schedules (runs). The library only counts; the command line draws ([`crate::cli`]'s bar).

/// Told how far a job has got.
pub trait Progress {
    /// The job grew by `units` (bytes to read, runs to make).
    fn grow(&mut self, units: u64);
    /// `done` units are done in all, making `items` items so far (tests read, runs made).
    fn advance(&mut self, done: u64, items: u64);
    /// The stage now under way, when a job has several (an order-dependence algorithm).
    fn stage(&mut self, _name: &str) {}
}

/// No progress reports.
impl Progress for () {
    fn grow(&mut self, _: u64) {}
    fn advance(&mut self, _: u64, _: u64) {}
}
