//! The test ids of a bundle, kept compactly: a hash of every id for the duplicate check and the
//! ids themselves only of the tests a report can name.

use rustc_hash::{FxHashMap, FxHashSet};

/// The test ids of a bundle: how many there are, a 64-bit hash of every one (for the
/// duplicate check), and the ids themselves only of the tests that are *kept*: the ones a
/// report can name (failing tests, passing tests that cover a DUA of interest), or all of them
/// when asked. A suite of hundreds of thousands of passing tests then costs a hash per test,
/// not its id (docs/performance.md).
#[derive(Clone, Debug, Default)]
pub struct TestIds {
    count: usize,
    /// Hashes of every id pushed.
    hashes: FxHashSet<u64>,
    /// The kept ids, one string; `kept[k]` is (test index, end offset in `text`).
    text: String,
    kept: Vec<(u32, usize)>,
    /// Hash of a kept id -> its position in `kept` (the first, if hashes collide).
    index: FxHashMap<u64, u32>,
    /// Kept ids whose hash an earlier, different kept id already had (rare): found exactly.
    collided: FxHashMap<String, u32>,
}

/// What [`TestIds::push`] found.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Pushed {
    /// A new id, with its index.
    New(usize),
    /// The id of the kept test with this index.
    Duplicate(usize),
    /// An id with the hash of an earlier id that was not kept: the same id, or (rarely) a hash
    /// collision. Only another look at the file can tell ([`TestIds::hash`] says which hash).
    Unsure(usize),
}

impl TestIds {
    pub fn hash(id: &str) -> u64 {
        use std::hash::{BuildHasher, BuildHasherDefault};
        BuildHasherDefault::<rustc_hash::FxHasher>::default().hash_one(id)
    }

    /// Appends `id` (keeping it if `keep`), checking it against the ids before it.
    pub fn push(&mut self, id: &str, keep: bool) -> Pushed {
        let i = self.count;
        let hash = Self::hash(id);
        if !self.hashes.insert(hash) {
            return match self.find(id) {
                Some(earlier) => Pushed::Duplicate(earlier),
                None => {
                    // Counted and kept like a new id: it is one if the hashes merely collide.
                    self.count += 1;
                    if keep {
                        self.keep(i, id);
                    }
                    Pushed::Unsure(i)
                }
            };
        }
        self.count += 1;
        if keep {
            self.keep(i, id);
        }
        Pushed::New(i)
    }

    /// Keeps the id of test `i`, the last one pushed (no-op if it is kept already).
    pub fn keep(&mut self, i: usize, id: &str) {
        if self.kept.last().is_some_and(|&(k, _)| k as usize >= i) {
            return;
        }
        let position = self.kept.len() as u32;
        self.text.push_str(id);
        self.kept.push((i as u32, self.text.len()));
        match self.index.entry(Self::hash(id)) {
            std::collections::hash_map::Entry::Vacant(e) => {
                e.insert(position);
            }
            std::collections::hash_map::Entry::Occupied(_) => {
                self.collided.insert(id.to_string(), position);
            }
        }
    }

    fn kept_text(&self, position: usize) -> &str {
        let start = if position == 0 {
            0
        } else {
            self.kept[position - 1].1
        };
        &self.text[start..self.kept[position].1]
    }

    /// The index of the kept test `id`.
    pub fn find(&self, id: &str) -> Option<usize> {
        let position = match self.index.get(&Self::hash(id)) {
            Some(&p) if self.kept_text(p as usize) == id => p,
            _ => *self.collided.get(id)?,
        };
        Some(self.kept[position as usize].0 as usize)
    }

    /// The id of test `i`, if it was kept.
    pub fn get(&self, i: usize) -> Option<&str> {
        let position = self
            .kept
            .binary_search_by_key(&(i as u32), |&(k, _)| k)
            .ok()?;
        Some(self.kept_text(position))
    }

    /// How many tests there are (kept or not).
    pub fn len(&self) -> usize {
        self.count
    }

    pub fn is_empty(&self) -> bool {
        self.count == 0
    }

    /// The kept ids, in bundle order.
    pub fn iter(&self) -> impl Iterator<Item = &str> {
        (0..self.kept.len()).map(|p| self.kept_text(p))
    }
}

/// The id of a test a report names; every such test is kept (a failing test, or a passing
/// test that covers a DUA of interest), so a missing one is a bug.
impl std::ops::Index<usize> for TestIds {
    type Output = str;

    fn index(&self, i: usize) -> &str {
        self.get(i)
            .unwrap_or_else(|| panic!("test {i} was not kept: a report names only kept tests"))
    }
}

#[cfg(test)]
mod tests {
    use super::{Pushed, TestIds};

    #[test]
    fn test_ids_keep_order_find_ids_and_refuse_duplicates() {
        let mut ids = TestIds::default();
        for (i, id) in ["a.T.t1", "", "a.T.t10", "b.U.t1"].iter().enumerate() {
            assert_eq!(ids.push(id, true), Pushed::New(i));
        }
        assert_eq!(ids.push("a.T.t10", true), Pushed::Duplicate(2));
        assert_eq!(ids.push("", false), Pushed::Duplicate(1));
        assert_eq!(ids.len(), 4);
        assert_eq!(
            ids.iter().collect::<Vec<_>>(),
            ["a.T.t1", "", "a.T.t10", "b.U.t1"]
        );
        assert_eq!(&ids[3], "b.U.t1");
        assert_eq!(ids.find("b.U.t1"), Some(3));
        assert_eq!(ids.find("a.T.t"), None);
    }

    #[test]
    fn ids_not_kept_are_counted_and_hashed_only() {
        let mut ids = TestIds::default();
        assert_eq!(ids.push("f1", true), Pushed::New(0));
        assert_eq!(ids.push("p1", false), Pushed::New(1));
        assert_eq!(ids.push("p2", false), Pushed::New(2));
        ids.keep(2, "p2");
        assert_eq!(ids.push("p3", false), Pushed::New(3));
        assert_eq!((ids.len(), ids.get(1), ids.get(2)), (4, None, Some("p2")));
        assert_eq!(ids.find("p1"), None);
        assert_eq!(ids.find("p2"), Some(2));
        // A repeat of a kept id is certain; of an id not kept, only suspected.
        assert_eq!(ids.push("p2", false), Pushed::Duplicate(2));
        assert_eq!(ids.push("p1", false), Pushed::Unsure(4));
        assert_eq!(ids.len(), 5);
        assert_eq!(ids.iter().collect::<Vec<_>>(), ["f1", "p2"]);
    }
}
