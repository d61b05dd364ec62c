//! What standard output is: a terminal, with its width and whether its locale shows UTF-8, or
//! a pipe or file. Tables are laid out from this (`report::layout`); nothing here prints.

/// A terminal on standard output.
#[derive(Clone, Copy, Debug)]
pub struct Terminal {
    /// Its columns, when the terminal says.
    pub width: Option<u16>,
    /// Its locale's character set is UTF-8, so box-drawing characters show.
    pub utf8: bool,
}

/// Standard output's terminal, or `None` for a pipe or a file.
pub fn stdout() -> Option<Terminal> {
    let term = console::Term::stdout();
    if !term.is_term() {
        return None;
    }
    Some(Terminal {
        width: term.size_checked().map(|(_rows, cols)| cols),
        utf8: locale_is_utf8(),
    })
}

/// POSIX's order: the first of `LC_ALL`, `LC_CTYPE` and `LANG` that is set decides.
fn locale_is_utf8() -> bool {
    ["LC_ALL", "LC_CTYPE", "LANG"]
        .iter()
        .find_map(|k| std::env::var(k).ok().filter(|v| !v.is_empty()))
        .is_some_and(|v| {
            let v = v.to_ascii_lowercase();
            v.contains("utf-8") || v.contains("utf8")
        })
}
