//! Reading trace bundles (format v1): the only module that reads bundle files.
//!
//! [`Bundle::open`] reads the small files eagerly and returns them as immutable [`Tables`]
//! (manifest, statement table, interned names, parsed static DUAs), beside a [`TestsFile`]
//! handle: the tests are never loaded whole. [`scan`] cuts the tests file into one segment per
//! test, [`assemble()`] checks a segment and makes it a [`TestTrace`], the [`Ledger`] makes the
//! checks that span the file, and [`TestReader`] does all three on the calling thread.

pub mod assemble;
pub mod convert;
pub mod fast;
pub mod feed;
pub mod ids;
pub mod ledger;
pub mod lines;
pub mod merge;
pub mod model;
pub mod names;
pub mod problem;
pub mod raw;
pub mod reader;
pub mod scan;
pub mod seekable;
mod source;
pub mod split;
pub mod staging;
pub mod symbols;
pub mod tail;
pub mod write;

use std::path::{Path, PathBuf};

pub use assemble::assemble;
pub use ids::{Pushed, TestIds};
pub use ledger::Ledger;
use lines::Lines;
pub use model::*;
pub use names::{Dua, VarName};
pub use problem::Problem;
pub use reader::TestReader;
pub use symbols::{Intern, LocalSymbols, Sym, Symbols};

/// A tests file's size and time of last change ([`TestsFile::stamp`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Stamp(u64, std::time::SystemTime);

/// The bundle's optional index of the tests file's header lines (docs/trace-format.md).
pub const MARKS_FILE: &str = "tests.marks";

/// Every file a bundle may hold: what no output may overwrite.
pub const BUNDLE_FILES: [&str; 14] = [
    "manifest.json",
    "statements.jsonl",
    "statements.jsonl.gz",
    "statements.jsonl.zst",
    "static-duas.jsonl",
    "static-duas.jsonl.gz",
    "static-duas.jsonl.zst",
    "tests.jsonl",
    "tests.jsonl.gz",
    "tests.jsonl.zst",
    "isolated.jsonl",
    "isolated.jsonl.gz",
    "isolated.jsonl.zst",
    MARKS_FILE,
];

/// The format version this reader understands.
pub const FORMAT_VERSION: u64 = 1;

/// Descriptive fields of `manifest.json`.
#[derive(Clone, Debug, Default)]
pub struct Manifest {
    pub producer: Option<String>,
    pub subject: Option<String>,
    /// Where the sources are, relative to the repository root: reports give each statement's
    /// file as `ROOT/package/File.java` (docs/trace-format.md).
    pub source_roots: Vec<String>,
}

/// The small files of a bundle, read whole and never changed afterwards: every phase takes
/// them by shared reference.
#[derive(Debug, Default)]
pub struct Tables {
    pub manifest: Manifest,
    pub statements: StatementTable,
    /// The names of the statement table and the static DUAs. Names met in the tests are
    /// interned into a copy the engine owns (`engine::Analysis::symbols`).
    pub symbols: Symbols,
    /// The statically computed DUAs of `static-duas.jsonl`.
    pub static_duas: Vec<Dua>,
}

/// The tests file of a bundle: a handle, never read whole.
#[derive(Debug)]
pub struct TestsFile {
    path: PathBuf,
}

impl TestsFile {
    /// Cuts the tests file into segments, keeping the bytes of those `keep` names.
    pub fn scan(&self, keep: scan::Keep) -> Result<scan::Scanner, Problem> {
        scan::Scanner::open(&self.path, keep)
    }

    /// [`TestsFile::scan`], a zstd file with a seek table decompressed on `threads` threads
    /// ([`scan::Scanner::open_decompressing_on`]).
    pub fn scan_decompressing_on(
        &self,
        keep: scan::Keep,
        threads: usize,
    ) -> Result<scan::Scanner, Problem> {
        scan::Scanner::open_decompressing_on(&self.path, keep, threads)
    }

    /// The file's size and time of last change, if it has them: two reads of the file with
    /// the same stamp read the same bytes (as far as a stamp can tell).
    pub fn stamp(&self) -> Option<Stamp> {
        let meta = std::fs::metadata(&self.path).ok()?;
        Some(Stamp(meta.len(), meta.modified().ok()?))
    }

    /// [`TestsFile::scan`] in two halves on two threads when the file is large and plain
    /// (`split`): the same pieces, sooner.
    pub fn scan_halves(&self, keep: scan::Keep) -> Result<split::Pieces, Problem> {
        split::Pieces::open(&self.path, keep)
    }

    /// Streams the tests in file order on the calling thread, interning names into a copy of
    /// the tables' symbols.
    pub fn reader<'t>(&self, tables: &'t Tables) -> Result<TestReader<'t>, Problem> {
        Ok(TestReader::new(
            self.scan(scan::Keep::All)?,
            tables.symbols.clone(),
            &tables.statements,
        ))
    }

    /// The marks the bundle's `tests.marks` gives for the tests file (docs/trace-format.md):
    /// where each test's begin and first end record are, so that a read of the file goes to
    /// those lines instead of searching for them (and, in a zstd file with a seek table,
    /// starts decompressing again at the next one it wants: `seekable`). Only for a plain
    /// `tests.jsonl`, or a `tests.jsonl.zst` whose seek table gives its decompressed length,
    /// of the length the marks were made for; `None` otherwise, or if the file is not one of
    /// marks.
    pub fn marks(&self) -> Option<std::sync::Arc<scan::Marks>> {
        let len = match self.path.file_name()?.to_str()? {
            "tests.jsonl" => std::fs::metadata(&self.path).ok()?.len(),
            "tests.jsonl.zst" => {
                let file = lines::open_regular(&self.path).ok()?;
                seekable::SeekTable::read(&file)?.decompressed_len()
            }
            _ => return None,
        };
        let marks = scan::Marks::read(&self.path.with_file_name(MARKS_FILE), Some(len))?;
        Some(std::sync::Arc::new(marks))
    }

    /// The size of each segment, by ordinal, as the bundle's `tests.marks` gives them for this
    /// tests file, plain or compressed (`paf trace java` keeps its agent's marks beside either):
    /// a hint, for how to share out a read, never a result. `None` for another file
    /// (`isolated.jsonl`) or without marks that can be read.
    pub fn sizes_hint(&self) -> Option<Vec<u64>> {
        let name = self.path.file_name()?.to_str()?;
        if !matches!(name, "tests.jsonl" | "tests.jsonl.gz" | "tests.jsonl.zst") {
            return None;
        }
        let len = if self.compressed() {
            None
        } else {
            Some(std::fs::metadata(&self.path).ok()?.len())
        };
        Some(scan::Marks::read(&self.path.with_file_name(MARKS_FILE), len)?.sizes())
    }

    /// The size of the tests file on disk (compressed, if it is), for progress reports.
    pub fn size(&self) -> u64 {
        std::fs::metadata(&self.path).map_or(0, |m| m.len())
    }

    /// The path of the tests file, for messages.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The tests file is compressed (gzip or zstd): it can only be read from its start.
    pub fn compressed(&self) -> bool {
        lines::compressed(&self.path)
    }
}

/// An opened bundle: its small tables in memory, its tests still on disk.
#[derive(Debug)]
pub struct Bundle {
    pub dir: PathBuf,
    pub tables: Tables,
    pub tests: TestsFile,
    /// `isolated.jsonl`, when the bundle has one: traces of tests each run alone in a fresh
    /// JVM (`paf trace java --isolate`), in the tests file's format and statement table.
    pub isolated: Option<TestsFile>,
}

impl Bundle {
    /// Opens the bundle at `path` (its directory, or its `manifest.json`) and reads the
    /// manifest, statement table and static DUAs. Every problem found is returned.
    pub fn open(path: &Path) -> Result<Bundle, Vec<Problem>> {
        let dir = existing_bundle_dir(path).map_err(|p| vec![p])?;
        let mut problems = Vec::new();
        let mut tables = Tables {
            manifest: read_manifest(&dir.join("manifest.json")).unwrap_or_else(|p| {
                problems.push(p);
                Manifest::default()
            }),
            ..Tables::default()
        };
        match find_jsonl(&dir, "statements", true) {
            Ok(Some(path)) => read_statements(
                &path,
                &mut tables.symbols,
                &mut tables.statements,
                &mut problems,
            ),
            Ok(None) => {}
            Err(p) => problems.push(p),
        }
        match find_jsonl(&dir, "static-duas", false) {
            Ok(Some(path)) => read_static_duas(
                &path,
                &mut tables.symbols,
                &tables.statements,
                &mut tables.static_duas,
                &mut problems,
            ),
            Ok(None) => {}
            Err(p) => problems.push(p),
        }
        let tests_path = match find_jsonl(&dir, "tests", true) {
            Ok(path) => path.unwrap_or_default(),
            Err(p) => {
                problems.push(p);
                PathBuf::new()
            }
        };
        let isolated = find_jsonl(&dir, "isolated", false).unwrap_or_else(|p| {
            problems.push(p);
            None
        });
        if !problems.is_empty() {
            return Err(problems);
        }
        Ok(Bundle {
            dir,
            tables,
            tests: TestsFile { path: tests_path },
            isolated: isolated.map(|path| TestsFile { path }),
        })
    }
}

/// The directory of the bundle a command was given: `path`, or the directory of the
/// `manifest.json` it names.
pub fn bundle_dir(path: &Path) -> &Path {
    if path.file_name().is_some_and(|n| n == "manifest.json") {
        path.parent().unwrap_or(Path::new("."))
    } else {
        path
    }
}

/// [`bundle_dir`], which must be a directory.
pub(crate) fn existing_bundle_dir(path: &Path) -> Result<PathBuf, Problem> {
    let dir = bundle_dir(path);
    if !dir.is_dir() {
        let what = if dir.exists() {
            "not a directory: expected a bundle directory holding manifest.json"
        } else {
            "no such bundle directory"
        };
        return Err(Problem::in_file(dir, what));
    }
    Ok(dir.to_path_buf())
}

/// Finds `NAME.jsonl`, `NAME.jsonl.gz` or `NAME.jsonl.zst` in `dir`; more than one is
/// ambiguous, and one that is there but is no regular file (a directory, a named pipe, a
/// device, a link loop) is a problem that says what it is.
pub(crate) fn find_jsonl(
    dir: &Path,
    name: &str,
    required: bool,
) -> Result<Option<PathBuf>, Problem> {
    let found: Vec<PathBuf> = ["", ".gz", ".zst"]
        .iter()
        .map(|suffix| dir.join(format!("{name}.jsonl{suffix}")))
        .filter(|p| std::fs::symlink_metadata(p).is_ok())
        .collect();
    if let [one] = found.as_slice()
        && let Some(mut p) = lines::wrong_kind(one)
    {
        p.message = p
            .message
            .replace("expected a file", "expected the bundle's file of records");
        return Err(p);
    }
    match found.as_slice() {
        [] if required => Err(Problem::in_file(
            &dir.join(format!("{name}.jsonl")),
            format!(
                "missing: a bundle must hold {name}.jsonl (or {name}.jsonl.gz, {name}.jsonl.zst)"
            ),
        )),
        [] => Ok(None),
        [one] => Ok(Some(one.clone())),
        several => {
            let names: Vec<String> = several
                .iter()
                .map(|p| {
                    p.file_name()
                        .unwrap_or_default()
                        .to_string_lossy()
                        .into_owned()
                })
                .collect();
            let (last, rest) = names.split_last().expect("several"); // this arm has two or more
            Err(Problem::in_file(
                dir,
                format!(
                    "{} and {last} both exist: expected only one of them",
                    rest.join(", ")
                ),
            ))
        }
    }
}

/// The most bytes `manifest.json` may have: it is a few descriptive fields.
const MAX_MANIFEST: u64 = 1 << 20;

pub(crate) fn read_manifest(path: &Path) -> Result<Manifest, Problem> {
    if std::fs::symlink_metadata(path).is_err() {
        return Err(Problem::in_file(
            path,
            "missing: a bundle must hold manifest.json",
        ));
    }
    let bytes = lines::read_small(path, MAX_MANIFEST, "a small JSON object")?;
    let text = std::str::from_utf8(&bytes)
        .map_err(|_| Problem::in_file(path, "not UTF-8: expected a UTF-8 JSON object"))?;
    let raw: raw::Manifest = serde_json::from_str(text).map_err(|e| Problem {
        file: path.to_path_buf(),
        line: Some(e.line() as u64),
        column: Some(e.column() as u64),
        message: format!(
            "expected {{\"format\": \"paf-trace\", \"version\": 1, ...}}: {}",
            e.to_string()
                .rsplit_once(" at line ")
                .map_or("", |(h, _)| h)
        ),
    })?;
    if raw.format != "paf-trace" {
        return Err(Problem::in_file(
            path,
            format!("format is {:?}: expected \"paf-trace\"", raw.format),
        ));
    }
    if raw.version != FORMAT_VERSION {
        return Err(Problem::in_file(
            path,
            format!(
                "format version {} is not supported: expected {FORMAT_VERSION}",
                raw.version
            ),
        ));
    }
    if let Some(bad) = raw.source_roots.iter().find(|r| r.trim().is_empty()) {
        return Err(Problem::in_file(
            path,
            format!(
                "source_roots holds {bad:?}: expected directory paths, relative to the repository root"
            ),
        ));
    }
    Ok(Manifest {
        producer: raw.producer,
        subject: raw.subject,
        source_roots: raw.source_roots,
    })
}

/// Calls `each` for every parsed line of a small JSON Lines file, collecting problems.
fn for_each_record<T: serde::de::DeserializeOwned>(
    path: &Path,
    problems: &mut Vec<Problem>,
    mut each: impl FnMut(u64, T, &mut Vec<Problem>),
) {
    let mut lines = match Lines::open(path) {
        Ok(lines) => lines,
        Err(p) => {
            problems.push(p);
            return;
        }
    };
    loop {
        match lines.next_line() {
            Ok(Some(line)) => match serde_json::from_str::<T>(line.text) {
                Ok(record) => each(line.number, record, problems),
                Err(e) => problems.push(Problem::json_record(
                    path,
                    line.number,
                    line.text,
                    &e,
                    |s| serde_json::from_str::<T>(s).map(drop),
                )),
            },
            Ok(None) => break,
            Err(p) => {
                let fatal = p.line.is_none();
                problems.push(p);
                if fatal {
                    break;
                }
            }
        }
    }
}

fn read_statements(
    path: &Path,
    symbols: &mut Symbols,
    table: &mut StatementTable,
    problems: &mut Vec<Problem>,
) {
    for_each_record::<raw::Statement>(path, problems, |line, s, problems| {
        let stmt = Statement {
            id: s.id,
            class: symbols.intern(&s.class),
            method: s.method.as_deref().map(|m| symbols.intern(m)),
            file: symbols.intern(&s.file),
            line: s.line,
            bci: s.bci,
            access: s.access.map(Box::new),
        };
        if !table.insert(stmt) {
            problems.push(Problem::at(
                path,
                line,
                format!(
                    "statement id {} is already defined: expected unique ids",
                    s.id
                ),
            ));
        }
    });
}

fn read_static_duas(
    path: &Path,
    symbols: &mut Symbols,
    table: &StatementTable,
    out: &mut Vec<Dua>,
    problems: &mut Vec<Problem>,
) {
    for_each_record::<raw::StaticDua>(path, problems, |line, d, problems| {
        let def = table.resolve(d.def);
        let use_ = table.resolve(d.use_);
        for (id, found) in [(d.def, def), (d.use_, use_)] {
            if found.is_none() {
                problems.push(Problem::at(
                    path,
                    line,
                    format!("unknown statement id {id}: expected an id from statements.jsonl"),
                ));
            }
        }
        if let (Some(def), Some(use_)) = (def, use_) {
            out.push(Dua {
                def,
                use_,
                var: VarName::parse(&d.var, symbols),
            });
        }
    });
}

/// Reading tests from memory, for the unit tests of this and later phases.
#[cfg(test)]
pub(crate) mod testing {
    use super::*;

    /// What [`read`] returns: the tables and every test (or its problems) in file order.
    pub(crate) struct Read {
        pub symbols: Symbols,
        pub statements: StatementTable,
        pub tests: Vec<Result<TestTrace, Vec<Problem>>>,
    }

    impl Read {
        /// The only test, which must have been read without problems.
        pub(crate) fn single(&self) -> &TestTrace {
            assert_eq!(self.tests.len(), 1, "expected one test");
            match &self.tests[0] {
                Ok(t) => t,
                Err(p) => panic!("test has problems: {p:#?}"),
            }
        }

        /// The bundle id of a statement index.
        pub(crate) fn id(&self, ix: StmtIx) -> u64 {
            self.statements.get(ix).id
        }
    }

    /// A statement table of ids 1 to 99, statement `n` being in method `C.m` (class `C`,
    /// method `m`) on line `n` of `C.java`.
    pub(crate) fn statements(symbols: &mut Symbols) -> StatementTable {
        let mut table = StatementTable::default();
        for id in 1..100 {
            table.insert(Statement {
                id,
                class: symbols.intern("C"),
                method: Some(symbols.intern("m")),
                file: symbols.intern("C.java"),
                line: id as u32,
                bci: None,
                access: None,
            });
        }
        table
    }

    /// Reads `tests_jsonl` (the text of a `tests.jsonl`) against [`statements`].
    pub(crate) fn read(tests_jsonl: &str) -> Read {
        let mut symbols = Symbols::default();
        let statements = statements(&mut symbols);
        let scanner = scan::Scanner::from_reader(
            Path::new("tests.jsonl"),
            Box::new(std::io::Cursor::new(tests_jsonl.as_bytes().to_vec())),
            Default::default(),
            scan::Keep::All,
        );
        let mut reader = TestReader::new(scanner, symbols, &statements);
        let tests: Vec<_> = reader.by_ref().collect();
        let (_, symbols) = reader.finish();
        Read {
            symbols,
            statements,
            tests,
        }
    }
}
