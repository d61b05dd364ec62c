//! Exception kinds beyond PAF's four (issue 12, docs/algorithm.md "More exception kinds"): the
//! receiver rule for exceptions the JDK raises about the state of the object it was called on,
//! the choice between that rule and the branch rule by where the exception was raised, and a
//! `StackOverflowError`'s repeating cycle of frames and the guard of its recursion.

use super::crash::{Seen, Track, role_index};
use super::failure::{CrashKind, classify};
use crate::trace::{ExceptionInfo, Role, StackFrame};

/// The exceptions the JDK raises about the state of the object a call was made on (an
/// unmodifiable or fixed-size collection, an iterator whose collection changed or that was
/// already advanced past): [`CrashKind::Receiver`] when raised inside a JDK call, the branch
/// rule when the code under test threw them itself.
pub(super) const RECEIVER_STATE: &[&str] = &[
    "java.lang.IllegalStateException",
    "java.lang.UnsupportedOperationException",
    "java.util.ConcurrentModificationException",
];

/// The exception's crash-variable rule, or why it has none; unlike [`classify`] it sees the
/// stack, which names the cycle of a `StackOverflowError`.
pub(super) fn classify_exception(exception: &ExceptionInfo) -> Result<CrashKind, String> {
    if exception.kind == "java.lang.StackOverflowError" {
        return overflow(&exception.frames);
    }
    classify(&exception.kind)
}

/// The rule once the site is known: a receiver-state exception the code under test threw
/// itself (no uninstrumented callee between the site and the throw) is a branch-guarded
/// exception, as PAF has it for `IllegalStateException`.
pub(super) fn at_site(kind: CrashKind, raised_in_callee: bool) -> CrashKind {
    match kind {
        CrashKind::Receiver if !raised_in_callee => CrashKind::Branch,
        k => k,
    }
}

/// The receiver of the JDK call that raised the exception: the latest dereference at the call
/// site before the throw (the tracer records a call's receiver, role `deref`, just before its
/// arguments).
pub(super) fn receiver(
    track: &Track,
    exception: &str,
    callee: &str,
    position: &str,
) -> Result<Vec<Seen>, String> {
    match &track.by_role[role_index(Role::Deref)] {
        Some(u) => Ok(vec![u.clone()]),
        None => Err(format!(
            "{exception} raised in {callee} called at {position} on a receiver the trace does not \
             name (`this`, or an object made on that line): paf takes the receiver of the call \
             as the crash variable; look at how the object called there got its state"
        )),
    }
}

/// The cycle of frames a stack repeats: where its run starts (innermost) and its frames.
pub(super) struct Cycle {
    /// The index of the run's innermost frame: the frames before it are where the overflow
    /// struck.
    pub start: usize,
    /// `Class.method (File:line)` of each frame of the cycle, caller first, starting from the
    /// alphabetically first, so the same cycle reads the same wherever the overflow struck.
    pub frames: Vec<String>,
}

impl Cycle {
    /// `A -> B -> A`: the cycle, back to its first frame.
    fn describe(&self) -> String {
        let back = self.frames.first().cloned().unwrap_or_default();
        format!("{} -> {back}", self.frames.join(" -> "))
    }
}

/// The repeating cycle of a stack (innermost first), if one repeats at least three times in a
/// row: the shortest period, up to 64 frames.
pub(super) fn cycle(frames: &[StackFrame]) -> Option<Cycle> {
    // Two frames are the same point of the recursion when class, method and line agree.
    fn key(f: &StackFrame) -> (&str, &str, i64) {
        (&f.class, &f.method, f.line)
    }
    const MAX_PERIOD: usize = 64;
    let n = frames.len();
    for p in 1..=MAX_PERIOD.min(n / 3) {
        // The longest run of frames that repeats with period p, its first (innermost) wins.
        let (mut run, mut best, mut start) = (0usize, 0usize, 0usize);
        for i in 0..n - p {
            if key(&frames[i]) == key(&frames[i + p]) {
                run += 1;
                if run > best {
                    best = run;
                    start = i + 1 - run;
                }
            } else {
                run = 0;
            }
        }
        if best >= 2 * p {
            let mut names: Vec<String> = frames[start..start + p]
                .iter()
                .rev()
                .map(|f| match &f.file {
                    Some(file) => format!("{}.{} ({file}:{})", f.class, f.method, f.line),
                    None => format!("{}.{} (line {})", f.class, f.method, f.line),
                })
                .collect();
            let first = (0..p).min_by_key(|&i| &names[i]).unwrap_or(0);
            names.rotate_left(first);
            return Some(Cycle {
                start,
                frames: names,
            });
        }
    }
    None
}

/// Whether a frame is the JDK's (a call the code under test made, where the overflow struck).
fn jdk(class: &str) -> bool {
    ["java.", "javax.", "jdk.", "sun.", "com.sun."]
        .iter()
        .any(|p| class.starts_with(p))
}

/// A `StackOverflowError` is analyzed at the innermost frame of its cycle (the site, since
/// the frames inside it are the agent's prologue, line -1, or the JDK's); why not, else.
fn overflow(frames: &[StackFrame]) -> Result<CrashKind, String> {
    const WHAT: &str = "look at the condition that should end the recursion in that cycle";
    let Some(cycle) = cycle(frames) else {
        return Err(format!(
            "java.lang.StackOverflowError with no repeating cycle of frames in the recorded \
             stack; {WHAT}"
        ));
    };
    if let Some(f) = frames[..cycle.start]
        .iter()
        .find(|f| f.line >= 0 && !jdk(&f.class))
    {
        return Err(format!(
            "java.lang.StackOverflowError: unbounded recursion through the cycle {}; the \
             overflow struck in {}.{} (line {}), outside the cycle's recursive calls, so the \
             innermost frame's last branch need not be the recursion's guard; {WHAT}",
            cycle.describe(),
            f.class,
            f.method,
            f.line
        ));
    }
    Ok(CrashKind::Recursion)
}

/// The guard of the recursion: the variables of the last branch the innermost frame of the
/// cycle took before its recursive call (the site is that call's line).
pub(super) fn recursion_guard(track: &Track, position: &str) -> Result<Vec<Seen>, String> {
    match &track.branch {
        Some((_, uses)) if !uses.is_empty() => Ok(uses.to_vec()),
        _ => Err(format!(
            "java.lang.StackOverflowError: the recursive call at {position} is not under a \
             branch of its frame whose variables the trace names (the recursion is \
             unconditional, or its guard is in another method of the cycle); look at the \
             condition that should end the recursion"
        )),
    }
}
