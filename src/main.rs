//! The `paf` binary: all behaviour lives in the library (`paf::cli`).

use std::process::ExitCode;

// Records are parsed on one thread and dropped on another; mimalloc frees across threads
// without the lock contention of the system allocator (docs/performance.md).
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> ExitCode {
    // A panic is a bug in paf, never bad input: report it with the documented exit code 1
    // (the default panic message, printed by the hook, says where).
    std::panic::catch_unwind(paf::cli::main).unwrap_or_else(|_| {
        eprintln!("error: internal error: paf panicked; please report this with the command line");
        ExitCode::from(paf::cli::exit::INTERNAL)
    })
}
