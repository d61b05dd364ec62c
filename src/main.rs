//! The `paf` binary: all behaviour lives in the library (`paf::cli`).

use std::process::ExitCode;

// Records are parsed on one thread and dropped on another; mimalloc frees across threads
// without the lock contention of the system allocator (docs/performance.md).
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> ExitCode {
    paf::cli::main()
}
