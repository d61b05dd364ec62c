//! Words in output: a count with its noun in the right number ("1 test", "2 tests") and a long
//! list cut to its first items ("a, b, c (+7 more)"). Shared by every renderer, so that no
//! output says "test(s)".

/// `n` and the noun in the number `n` needs: `count(1, "test", "tests")` is `1 test`.
pub fn count(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

/// `count` for nouns whose plural adds an `s` (`test`, `flow-set`, `victim`).
pub fn counted(n: usize, noun: &str) -> String {
    if n == 1 {
        format!("1 {noun}")
    } else {
        format!("{n} {noun}s")
    }
}

/// The first `shown` items joined with `, `, and `(+N more)` for the rest; all of them when
/// they are at most `shown + 1` (a "+1 more" saves nothing).
pub fn cut_list<S: AsRef<str>>(items: &[S], shown: usize) -> String {
    let shown = if items.len() <= shown + 1 {
        items.len()
    } else {
        shown
    };
    let mut out = items[..shown]
        .iter()
        .map(AsRef::as_ref)
        .collect::<Vec<_>>()
        .join(", ");
    let rest = items.len() - shown;
    if rest > 0 {
        out.push_str(&format!(" (+{rest} more)"));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_agree_with_their_nouns() {
        assert_eq!(counted(0, "test"), "0 tests");
        assert_eq!(counted(1, "test"), "1 test");
        assert_eq!(counted(2, "victim"), "2 victims");
        assert_eq!(
            count(1, "DUA of interest", "DUAs of interest"),
            "1 DUA of interest"
        );
        assert_eq!(
            count(3, "DUA of interest", "DUAs of interest"),
            "3 DUAs of interest"
        );
    }

    #[test]
    fn long_lists_are_cut_with_the_count_of_the_rest() {
        let five = ["a", "b", "c", "d", "e"];
        assert_eq!(cut_list(&five, 2), "a, b (+3 more)");
        assert_eq!(cut_list(&five, 4), "a, b, c, d, e");
        assert_eq!(cut_list(&five, 5), "a, b, c, d, e");
        assert_eq!(cut_list::<&str>(&[], 3), "");
    }
}
