//! Splitting the planned schedules between machines (`od detect --shard i/N`): a schedule
//! belongs to the shard its content hashes to, the CRC-32 of its test ids and repetition, so
//! every machine, every re-run and every resume agrees on the split without talking to the
//! others, and adding a test moves only the schedules that contain it.

use std::fmt;

/// The `index`-th (1-based) of `count` shares.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Shard {
    pub index: u32,
    pub count: u32,
}

/// `--shard` text that is not `i/N` with 1 <= i <= N.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("--shard {0:?}: expected i/N with 1 <= i <= N, such as 2/4")]
pub struct BadShard(pub String);

impl Shard {
    /// `i/N`.
    pub fn parse(text: &str) -> Result<Shard, BadShard> {
        let bad = || BadShard(text.to_string());
        let (i, n) = text.split_once('/').ok_or_else(bad)?;
        let index: u32 = i.trim().parse().map_err(|_| bad())?;
        let count: u32 = n.trim().parse().map_err(|_| bad())?;
        if index == 0 || index > count {
            return Err(bad());
        }
        Ok(Shard { index, count })
    }

    /// Whether the run `rep` of the schedule of these test ids is this shard's.
    pub fn owns<S: AsRef<str>>(self, ids: &[S], rep: u32) -> bool {
        share_of(ids, rep, self.count) == self.index - 1
    }
}

impl fmt::Display for Shard {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}", self.index, self.count)
    }
}

/// The 0-based share of `count` that a run belongs to: the CRC-32 of the ids, each followed
/// by a newline, then the repetition as decimal text, modulo `count`.
pub fn share_of<S: AsRef<str>>(ids: &[S], rep: u32, count: u32) -> u32 {
    let mut h = crc32fast::Hasher::new();
    for id in ids {
        h.update(id.as_ref().as_bytes());
        h.update(b"\n");
    }
    h.update(rep.to_string().as_bytes());
    h.finalize() % count.max(1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shards_parse_and_refuse() {
        assert_eq!(Shard::parse("2/4"), Ok(Shard { index: 2, count: 4 }));
        for bad in ["0/4", "5/4", "2", "a/b", "1/0", ""] {
            assert!(Shard::parse(bad).is_err(), "{bad}");
        }
        assert_eq!(Shard::parse("3/7").unwrap().to_string(), "3/7");
    }

    #[test]
    fn the_share_is_the_crc_of_the_content() {
        // CRC-32 (IEEE) of "A\nB\n0" is 0x6324e708 = 1663362824 (python3 -c 'import zlib;
        // print(zlib.crc32(b"A\nB\n0"))'), which is 4 mod 7 and 0 mod 2.
        assert_eq!(share_of(&["A", "B"], 0, 7), 4);
        assert_eq!(share_of(&["A", "B"], 0, 2), 0);
        assert_eq!(share_of(&["A", "B"], 0, 1), 0);
        // Each run is in exactly one shard.
        for rep in 0..5 {
            let owners = (1..=3)
                .filter(|&i| Shard { index: i, count: 3 }.owns(&["x", "y", "z"], rep))
                .count();
            assert_eq!(owners, 1);
        }
    }
}
