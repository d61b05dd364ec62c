//! The `paf` binary: all behaviour lives in the library (`paf::cli`).

fn main() -> std::process::ExitCode {
    paf::cli::main()
}
