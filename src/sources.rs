//! The user's source files: which source root holds each file of a bundle's statement table
//! ([`locate`], for repository paths in reports) and their lines ([`read`], for the code the
//! HTML report shows around each step). The only module besides `trace` that reads the user's
//! files for `rank`, `explain` and `report`; a file that cannot be read is simply not shown.

use std::collections::{BTreeMap, BTreeSet};
use std::io::Read;
use std::path::Path;

use crate::report::{SourcePaths, relative_path};
use crate::trace::Tables;

/// A source file larger than this is not read (generated code; the report stays small).
const MAX_SOURCE_BYTES: u64 = 4 << 20;

/// The repository paths of the statement table's files: each under the first of `roots` that
/// holds it, looked up from `base` (the repository root, or the current directory); a file no
/// root holds is placed under the first root. No roots: no paths.
pub fn locate(tables: &Tables, roots: &[String], base: &Path) -> SourcePaths {
    if roots.is_empty() {
        return SourcePaths::none().clone();
    }
    let sym = &tables.symbols;
    let files: BTreeSet<String> = tables
        .statements
        .iter()
        .map(|s| relative_path(sym.name(s.class), sym.name(s.file)))
        .collect();
    let found = files
        .into_iter()
        .filter_map(|rel| {
            let at = roots
                .iter()
                .position(|root| base.join(root).join(&rel).is_file())?;
            Some((rel, at))
        })
        .collect();
    SourcePaths::new(roots, found)
}

/// The lines of each file in `paths` (repository paths, looked up from `base`) that can be
/// read: at most [`MAX_SOURCE_BYTES`], decoded as UTF-8 with invalid bytes replaced.
pub fn read<'a>(
    paths: impl IntoIterator<Item = &'a str>,
    base: &Path,
) -> BTreeMap<String, Vec<String>> {
    let mut out = BTreeMap::new();
    for path in paths {
        if out.contains_key(path) {
            continue;
        }
        let Ok(file) = std::fs::File::open(base.join(path)) else {
            continue;
        };
        let mut bytes = Vec::new();
        if file
            .take(MAX_SOURCE_BYTES + 1)
            .read_to_end(&mut bytes)
            .is_err()
            || bytes.len() as u64 > MAX_SOURCE_BYTES
        {
            continue;
        }
        let text = String::from_utf8_lossy(&bytes);
        out.insert(path.to_string(), text.lines().map(str::to_string).collect());
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn files_are_found_under_the_root_that_holds_them() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("test/a")).unwrap();
        std::fs::write(dir.path().join("test/a/T.java"), "class T {\n}\n").unwrap();
        let mut tables = Tables::default();
        let (class, file) = (
            tables.symbols.intern("a.T"),
            tables.symbols.intern("T.java"),
        );
        tables.statements.insert(crate::trace::Statement {
            id: 1,
            class,
            method: None,
            file,
            line: 1,
            bci: None,
            access: None,
        });
        let roots = ["main".to_string(), "test".to_string()];
        let paths = locate(&tables, &roots, dir.path());
        assert_eq!(
            paths.path("a.T", "T.java").as_deref(),
            Some("test/a/T.java")
        );
        let text = read(["test/a/T.java", "missing/X.java"], dir.path());
        assert_eq!(text.len(), 1);
        assert_eq!(text["test/a/T.java"], ["class T {", "}"]);
    }
}
