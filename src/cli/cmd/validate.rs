//! `paf validate`: every problem of a bundle on standard output, then a summary; exit 2 if any.

use std::path::PathBuf;

use clap::Args;

use super::super::args::{JobsArg, TextFormat};
use super::super::progress::Bar;
use super::super::{CliError, exit, output};
use crate::engine::{self, Checked};
use crate::trace::{Bundle, Problem};

#[derive(Args, Debug)]
pub struct ValidateArgs {
    pub bundle: PathBuf,
    #[arg(long, value_enum, default_value_t = TextFormat::Text)]
    pub format: TextFormat,
    #[command(flatten)]
    pub jobs: JobsArg,
}

pub fn run(a: ValidateArgs) -> Result<u8, CliError> {
    let path = &a.bundle;
    let result = Bundle::open(path).and_then(|bundle| {
        let mut bar = Bar::reading();
        let checked = engine::check(&bundle, a.jobs.jobs(), &mut bar);
        bar.finish();
        Ok((checked?, bundle.tables.statements.len()))
    });
    let code = if result.is_ok() {
        exit::OK
    } else {
        exit::BAD_INPUT
    };
    let text = match a.format {
        TextFormat::Text => text(path, &result),
        TextFormat::Json => json(&result),
    };
    output::emit(&text, None)?;
    Ok(code)
}

type Validated = Result<(Checked, usize), Vec<Problem>>;

fn text(path: &std::path::Path, result: &Validated) -> String {
    match result {
        Ok((c, statements)) => format!(
            "{}: ok: {} tests ({} failing, {} passing), {} events, {} statements\n",
            path.display(),
            c.tests,
            c.failing,
            c.tests - c.failing,
            c.events,
            statements
        ),
        Err(problems) => {
            let mut s: String = problems.iter().map(|p| format!("{p}\n")).collect();
            s.push_str(&format!(
                "{}: {}\n",
                path.display(),
                crate::words::counted(problems.len(), "problem")
            ));
            s
        }
    }
}

fn json(result: &Validated) -> String {
    let value = match result {
        Ok((c, statements)) => serde_json::json!({
            "schema": "paf.validate/1", "ok": true, "problems": [],
            "tests": c.tests, "failing": c.failing,
            "events": c.events, "statements": statements,
        }),
        Err(problems) => serde_json::json!({
            "schema": "paf.validate/1", "ok": false,
            "problems": problems.iter().map(|p| serde_json::json!({
                "file": p.file.display().to_string(), "line": p.line,
                "column": p.column, "message": p.message,
            })).collect::<Vec<_>>(),
        }),
    };
    format!("{value:#}\n")
}
