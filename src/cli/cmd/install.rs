//! `paf completions SHELL` and `paf man`: what an installed `paf` needs beside the binary, a
//! shell's completion script (clap_complete) and a man page (clap_mangen), both made from the
//! same clap definition as `--help`.

use clap::{Args, CommandFactory};
use clap_complete::Shell;

use super::super::args::Cli;
use super::super::{CliError, exit, output};

#[derive(Args, Debug)]
pub struct CompletionsArgs {
    /// The shell to complete for.
    #[arg(value_enum)]
    pub shell: Shell,
}

/// Prints the completion script of `a.shell`.
pub fn completions(a: &CompletionsArgs) -> Result<u8, CliError> {
    let mut cmd = Cli::command();
    let mut script = Vec::new();
    clap_complete::generate(a.shell, &mut cmd, "paf", &mut script);
    let text = String::from_utf8(script)
        .map_err(|e| CliError::Internal(format!("completion script is not UTF-8: {e}")))?;
    output::emit(&text, None)?;
    Ok(exit::OK)
}

#[derive(Args, Debug)]
pub struct ManArgs {
    /// A command's own page (`paf man rank` prints paf-rank.1); without one, paf.1.
    pub command: Option<String>,
}

/// Prints the man page of `paf` (paf.1) or of one of its commands (paf-rank.1).
pub fn man(a: &ManArgs) -> Result<u8, CliError> {
    let mut cmd = Cli::command();
    cmd.build();
    let page_of = match &a.command {
        None => cmd,
        Some(name) => {
            let Some(sub) = cmd.find_subcommand(name) else {
                let names: Vec<&str> = cmd.get_subcommands().map(clap::Command::get_name).collect();
                return Err(CliError::Usage(format!(
                    "no command {name:?}: expected one of {}",
                    names.join(", ")
                )));
            };
            sub.clone()
        }
    };
    let mut page = Vec::new();
    clap_mangen::Man::new(page_of)
        .render(&mut page)
        .map_err(|e| CliError::Internal(format!("man page: {e}")))?;
    let text = String::from_utf8(page)
        .map_err(|e| CliError::Internal(format!("man page is not UTF-8: {e}")))?;
    output::emit(&text, None)?;
    Ok(exit::OK)
}
