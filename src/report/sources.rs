//! Repository paths of source files: which source root holds each file of the statement table,
//! as a value ([`SourcePaths`]). Finding the files is IO and happens in [`crate::sources`];
//! this is what the report reads.

use std::collections::BTreeMap;

/// The source roots (relative to the repository root, `src/main/java`) and, per file, the root
/// that holds it. A file no root was seen to hold is placed under the first root.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SourcePaths {
    roots: Vec<String>,
    /// `package/dirs/File.java` -> index into `roots`.
    found: BTreeMap<String, usize>,
}

static NONE: SourcePaths = SourcePaths {
    roots: Vec::new(),
    found: BTreeMap::new(),
};

impl SourcePaths {
    /// No source roots: locations carry no path.
    pub fn none() -> &'static SourcePaths {
        &NONE
    }

    /// `roots` (without a leading `./` or trailing slashes) with `found`: relative path -> index of its root.
    pub fn new(roots: &[String], found: BTreeMap<String, usize>) -> SourcePaths {
        let roots = roots
            .iter()
            .map(|r| {
                let r = r.trim_end_matches('/');
                let r = r.strip_prefix("./").unwrap_or(r);
                if r.is_empty() { "." } else { r }.to_string()
            })
            .collect::<Vec<_>>();
        let found = found
            .into_iter()
            .filter(|&(_, i)| i < roots.len())
            .collect();
        SourcePaths { roots, found }
    }

    pub fn roots(&self) -> &[String] {
        &self.roots
    }

    /// The repository path of `file` of binary class `class`, or `None` without roots.
    pub fn path(&self, class: &str, file: &str) -> Option<String> {
        let first = self.roots.first()?;
        let relative = relative_path(class, file);
        let root = self.found.get(&relative).map_or(first, |&i| &self.roots[i]);
        Some(if root == "." {
            relative
        } else {
            format!("{root}/{relative}")
        })
    }
}

/// Where a source file sits under its source root: the package of `class` as folders, then
/// `file` (`a.b.Outer$Inner`, `Outer.java` -> `a/b/Outer.java`).
pub fn relative_path(class: &str, file: &str) -> String {
    match class.rsplit_once('.') {
        Some((package, _)) => format!("{}/{file}", package.replace('.', "/")),
        None => file.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_package_becomes_folders() {
        assert_eq!(
            relative_path("org.example.Outer$Inner", "Outer.java"),
            "org/example/Outer.java"
        );
        assert_eq!(relative_path("Top", "Top.java"), "Top.java");
    }

    #[test]
    fn a_file_is_under_the_root_that_holds_it_or_the_first() {
        let roots = ["src/main/java/".to_string(), "src/test/java".to_string()];
        let found = BTreeMap::from([("a/T.java".to_string(), 1)]);
        let paths = SourcePaths::new(&roots, found);
        assert_eq!(
            paths.path("a.T", "T.java").as_deref(),
            Some("src/test/java/a/T.java")
        );
        assert_eq!(
            paths.path("a.b.C", "C.java").as_deref(),
            Some("src/main/java/a/b/C.java")
        );
        assert_eq!(SourcePaths::none().path("a.C", "C.java"), None);
        let dot = SourcePaths::new(&["./".to_string()], BTreeMap::new());
        assert_eq!(dot.path("a.C", "C.java").as_deref(), Some("a/C.java"));
    }
}
