//! Exception kinds beyond PAF's four (issue 12, docs/algorithm.md "More exception kinds"): the
//! receiver rule for exceptions the JDK raises about the state of the object it was called on,
//! the choice between that rule and the branch rule by where the exception was raised, and the
//! account of a `StackOverflowError` by its repeating cycle of frames.

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
        return Err(overflow_reason(&exception.frames));
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

/// The repeating cycle of a stack, caller first, as `Class.method (File:line)` entries, if
/// the stack repeats one (at least three times in a row).
pub(super) fn cycle(frames: &[StackFrame]) -> Option<Vec<String>> {
    // Two frames are the same point of the recursion when class, method and line agree.
    fn key(f: &StackFrame) -> (&str, &str, i64) {
        (&f.class, &f.method, f.line)
    }
    const MAX_PERIOD: usize = 64;
    let n = frames.len();
    for p in 1..=MAX_PERIOD.min(n / 3) {
        // The longest run of frames that repeats with period p.
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
            let mut cycle: Vec<String> = frames[start..start + p]
                .iter()
                .rev()
                .map(|f| match &f.file {
                    Some(file) => format!("{}.{} ({file}:{})", f.class, f.method, f.line),
                    None => format!("{}.{} (line {})", f.class, f.method, f.line),
                })
                .collect();
            // The same cycle entered at another frame reads the same.
            let first = (0..p).min_by_key(|&i| &cycle[i]).unwrap_or(0);
            cycle.rotate_left(first);
            return Some(cycle);
        }
    }
    None
}

/// Why a `StackOverflowError` is unanalyzed, naming the cycle of frames that repeats.
fn overflow_reason(frames: &[StackFrame]) -> String {
    let cycle = match cycle(frames) {
        Some(c) => {
            let back = c.first().cloned().unwrap_or_default();
            format!(
                "unbounded recursion through the cycle {} -> {back}",
                c.join(" -> ")
            )
        }
        None => "no repeating cycle of frames in the recorded stack".to_string(),
    };
    format!(
        "java.lang.StackOverflowError: {cycle}; paf does not analyze stack overflows (the value \
         that keeps the recursion going cannot be told soundly from the trace: the overflow \
         strikes at any instruction of the deepest frame); look at the condition that should \
         end the recursion in that cycle"
    )
}
