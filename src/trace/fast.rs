//! A hand-written parser for the record lines tracers actually write: compact JSON (no
//! whitespace), no escapes in strings, non-negative integers. It fills a [`Record`] in place,
//! borrowing every string from the line, and gives up on anything else, for serde to parse.
//!
//! Why: serde's derived parser builds the large flat [`Record`] in locals and moves it (a
//! fifth of the reading time went to `memmove`), and matches each key through generic code.
//! This parser does neither, so it must agree with serde exactly: it accepts a line only if
//! serde would accept it and give the same record, and returns `false` on every surprise
//! (whitespace, an escape or control character in a string, a number that is negative,
//! fractional, with an exponent or too large for a `u64`, `null` for a known field, a
//! repeated known key, an unknown variant, a missing `"k"`, anything after the object), so
//! that every error message and every accepted input stay serde's. `tests/fast_parse.rs` (a
//! property test over generated odd records) and the unit tests below check that agreement.
//!
//! The rare structured fields (`exception`, `values`) are handed to serde on the bytes of their
//! value alone; unknown fields are skipped with the same strict rules (objects and arrays of
//! plain values, nested at most [`MAX_DEPTH`] deep).

use std::borrow::Cow;

use serde::Deserialize;

use super::model::{How, Outcome, Role};
use super::raw::{FieldDefault, Kind, Record, Var};

/// Unknown values nested deeper than this are left to serde.
const MAX_DEPTH: usize = 16;
/// Values handed to serde with more brackets than this are left to its whole-line parse
/// (serde_json stops at 128 levels of nesting).
const MAX_SERDE_BRACKETS: usize = 64;

/// Parses `text` (one line without its line end) into `record`, which must be
/// `Record::default()`. `true`: `record` is exactly what `serde_json::from_str` gives. `false`:
/// the line needs serde (it may be valid or not); `record` holds anything.
pub fn parse_into<'t>(text: &'t str, record: &mut Record<'t>) -> bool {
    parse_bytes(text.as_bytes(), record)
}

/// [`parse_into`] of a line not yet checked to be UTF-8: `true` only if the whole line is
/// UTF-8 too (and so `serde_json::from_str` of it gives `record`). Outside strings the parser
/// takes ASCII bytes only, and each string it reads is checked (an ASCII one by the same scan
/// that finds its end), so the line is never checked as a whole: that check was 4% of `rank`.
pub fn parse_bytes<'t>(line: &'t [u8], record: &mut Record<'t>) -> bool {
    let mut p = Parser { bytes: line, at: 0 };
    p.record(record).is_some() && p.at == p.bytes.len()
}

/// A position in one line; every method returns `None` to give up.
struct Parser<'t> {
    bytes: &'t [u8],
    at: usize,
}

const ONES: u64 = u64::from_ne_bytes([1; 8]);
const HIGH: u64 = ONES << 7;

/// The high bit of each byte of `w` that ends or escapes a string or may not appear in one
/// (`"`, `\\`, a control character), and, with `non_ascii`, of each byte above 0x7f (the
/// classic "has a zero byte" test: the lowest flagged byte is always a true one, higher ones
/// may be false).
fn flags(w: u64, non_ascii: bool) -> u64 {
    let zero = |v: u64| v.wrapping_sub(ONES) & !v;
    let quote = zero(w ^ (ONES * u64::from(b'"')));
    let backslash = zero(w ^ (ONES * u64::from(b'\\')));
    let control = w.wrapping_sub(ONES * 0x20) & !w;
    let high = if non_ascii { w } else { 0 };
    (quote | backslash | control | high) & HIGH
}

/// The position of the first byte that ends or escapes a string or may not appear in one
/// (`"`, `\\`, a control character), and whether a byte before it is not ASCII. Eight bytes at
/// a time: the string scan was a quarter of the parse.
fn special(bytes: &[u8]) -> Option<(usize, bool)> {
    let mut at = 0;
    let mut high = 0;
    while let Some(word) = bytes.get(at..at + 8) {
        let w = u64::from_le_bytes(word.try_into().ok()?);
        let found = flags(w, false);
        if found != 0 {
            let i = found.trailing_zeros() as usize / 8;
            // The bytes below the special one.
            let below = w & ((1u64 << (8 * i)) - 1);
            return Some((at + i, (high | below) & HIGH != 0));
        }
        high |= w;
        at += 8;
    }
    let tail = bytes[at..]
        .iter()
        .position(|&b| b == b'"' || b == b'\\' || b < 0x20)?;
    let non_ascii = high & HIGH != 0 || !bytes[at..at + tail].is_ascii();
    Some((at + tail, non_ascii))
}

/// `bytes` as text, if it is UTF-8; `ascii` says it is known to be ASCII, so not checked again.
fn text(bytes: &[u8], ascii: bool) -> Option<&str> {
    if ascii {
        // SAFETY: every byte is below 0x80 (the caller's scan said so; `special` is checked
        // against a byte-by-byte search by a property test), and ASCII is UTF-8.
        Some(unsafe { std::str::from_utf8_unchecked(bytes) })
    } else {
        std::str::from_utf8(bytes).ok()
    }
}

/// A key of at most 15 bytes as a number (its bytes, little-endian, zero above), so that keys
/// are told apart by integer compares rather than a `memcmp` per candidate; a longer key is
/// `u128::MAX`, which no known key is (keys hold no control characters, so no zero byte).
fn pack(bytes: &[u8], start: usize, len: usize) -> u128 {
    if len > 15 {
        return u128::MAX;
    }
    let word = match bytes
        .get(start..start + 16)
        .and_then(|w| <[u8; 16]>::try_from(w).ok())
    {
        Some(w) => u128::from_le_bytes(w),
        None => {
            let mut w = [0u8; 16];
            w[..len].copy_from_slice(&bytes[start..start + len]);
            u128::from_le_bytes(w)
        }
    };
    word & ((1u128 << (8 * len)) - 1)
}

/// [`pack`] of a known key, at compile time.
const fn key(name: &[u8]) -> u128 {
    let mut w = [0u8; 16];
    let mut i = 0;
    while i < name.len() {
        w[i] = name[i];
        i += 1;
    }
    u128::from_le_bytes(w)
}

const K_CALLBACK: u128 = key(b"callback");
const K_CALLEE: u128 = key(b"callee");
const K_CALLER: u128 = key(b"caller");
const K_CAST: u128 = key(b"cast");
const K_ELEM: u128 = key(b"elem");
const K_EVENTS: u128 = key(b"events");
const K_EXCEPTION: u128 = key(b"exception");
const K_FIELD: u128 = key(b"field");
const K_FIELDS: u128 = key(b"fields");
const K_FRAME: u128 = key(b"frame");
const K_FROM: u128 = key(b"from");
const K_HOW: u128 = key(b"how");
const K_INDEX: u128 = key(b"index");
const K_K: u128 = key(b"k");
const K_LENGTH: u128 = key(b"length");
const K_LOCAL: u128 = key(b"local");
const K_METHOD: u128 = key(b"method");
const K_NAME: u128 = key(b"name");
const K_NULL: u128 = key(b"null");
const K_OBJ: u128 = key(b"obj");
const K_OUTCOME: u128 = key(b"outcome");
const K_RET: u128 = key(b"ret");
const K_ROLE: u128 = key(b"role");
const K_STATIC: u128 = key(b"static");
const K_STMT: u128 = key(b"stmt");
const K_TEST: u128 = key(b"test");
const K_TEST_LINE: u128 = key(b"test_line");
const K_THIS: u128 = key(b"this");
const K_THROW: u128 = key(b"throw");
const K_TRUNCATED: u128 = key(b"truncated");
const K_USES: u128 = key(b"uses");
const K_VALUES: u128 = key(b"values");
const K_VAR: u128 = key(b"var");

/// Sets a field once: a repeated known key is serde's "duplicate field" error.
fn once<T>(slot: &mut Option<T>, value: T) -> Option<()> {
    if slot.is_some() {
        return None;
    }
    *slot = Some(value);
    Some(())
}

impl<'t> Parser<'t> {
    fn peek(&self) -> Option<u8> {
        self.bytes.get(self.at).copied()
    }

    fn eat(&mut self, b: u8) -> Option<()> {
        (self.peek()? == b).then(|| self.at += 1)
    }

    /// The members of an object, `{` already eaten: calls `member` with each key (the parser
    /// then at its value) until the closing `}`.
    fn members(&mut self, mut member: impl FnMut(&mut Self, u128) -> Option<()>) -> Option<()> {
        if self.peek()? == b'}' {
            self.at += 1;
            return Some(());
        }
        loop {
            let key = self.short()?;
            self.eat(b':')?;
            member(self, key)?;
            match self.peek()? {
                b',' => self.at += 1,
                b'}' => {
                    self.at += 1;
                    return Some(());
                }
                _ => return None,
            }
        }
    }

    /// The elements of an array, `[` already eaten, each read by `element`.
    fn elements(&mut self, mut element: impl FnMut(&mut Self) -> Option<()>) -> Option<()> {
        if self.peek()? == b']' {
            self.at += 1;
            return Some(());
        }
        loop {
            element(self)?;
            match self.peek()? {
                b',' => self.at += 1,
                b']' => {
                    self.at += 1;
                    return Some(());
                }
                _ => return None,
            }
        }
    }

    /// A string without escapes or control characters, borrowed from the line (checked to be
    /// UTF-8).
    fn string(&mut self) -> Option<&'t str> {
        self.eat(b'"')?;
        let start = self.at;
        let rest = &self.bytes[start..];
        let (len, non_ascii) = special(rest)?;
        if rest[len] != b'"' {
            return None;
        }
        self.at = start + len + 1;
        text(&rest[..len], !non_ascii)
    }

    /// A short ASCII string (a key, a kind) as a number, as [`pack`] gives it (`u128::MAX` if
    /// longer than 15 bytes): sixteen bytes looked at in two words, no text made. `None` on
    /// an escape, a control character or a byte that is not ASCII (serde may take a non-ASCII
    /// key, as an unknown one: the line goes to serde then).
    // Inlined into the loops over members: called apart, its result went through memory.
    #[inline(always)]
    fn short(&mut self) -> Option<u128> {
        self.eat(b'"')?;
        let start = self.at;
        let Some(words) = self.bytes.get(start..start + 16) else {
            return self.short_tail(start);
        };
        let lo = u64::from_le_bytes(words[..8].try_into().ok()?);
        let hi = u64::from_le_bytes(words[8..].try_into().ok()?);
        let (f_lo, f_hi) = (flags(lo, true), flags(hi, true));
        let i = match (f_lo, f_hi) {
            (0, 0) => return self.short_tail(start),
            (0, f) => 8 + f.trailing_zeros() as usize / 8,
            (f, _) => f.trailing_zeros() as usize / 8,
        };
        if words[i] != b'"' {
            return None;
        }
        self.at = start + i + 1;
        let word = u128::from(lo) | (u128::from(hi) << 64);
        Some(word & ((1u128 << (8 * i)) - 1))
    }

    /// [`Parser::short`] of a string near the end of the line or longer than 15 bytes.
    fn short_tail(&mut self, start: usize) -> Option<u128> {
        self.at = start - 1;
        let s = self.string()?;
        if !s.is_ascii() {
            return None;
        }
        Some(pack(s.as_bytes(), 0, s.len()))
    }

    fn cow(&mut self) -> Option<Cow<'t, str>> {
        self.string().map(Cow::Borrowed)
    }

    /// A non-negative integer that fits a `u64`, in JSON's spelling (no leading zero), not
    /// followed by a fraction or an exponent.
    fn u64(&mut self) -> Option<u64> {
        let rest = &self.bytes[self.at..];
        let digits = rest.iter().position(|b| !b.is_ascii_digit())?;
        if digits == 0 || (digits > 1 && rest[0] == b'0') || digits > 20 {
            return None;
        }
        if matches!(rest[digits], b'.' | b'e' | b'E') {
            return None;
        }
        let mut n: u64 = 0;
        for &d in &rest[..digits] {
            n = n.checked_mul(10)?.checked_add(u64::from(d - b'0'))?;
        }
        self.at += digits;
        Some(n)
    }

    fn bool(&mut self) -> Option<bool> {
        let rest = &self.bytes[self.at..];
        if rest.starts_with(b"true") {
            self.at += 4;
            Some(true)
        } else if rest.starts_with(b"false") {
            self.at += 5;
            Some(false)
        } else {
            None
        }
    }

    /// A field that serde parses (`exception`, `values`): the value's own bytes, found by
    /// serde's streaming reader, so that the result is serde's.
    fn serde<T: Deserialize<'t>>(&mut self) -> Option<T> {
        // The rest of the line as text (a rare field: checking it again costs little).
        let rest = std::str::from_utf8(&self.bytes[self.at..]).ok()?;
        let mut stream = serde_json::Deserializer::from_str(rest).into_iter::<T>();
        let value = stream.next()?.ok()?;
        let end = self.at + stream.byte_offset();
        // Serde's nesting limit counts from the record, one level above this value: a value
        // nested near the limit is left to serde's whole-line parse (brackets inside strings
        // count too, which only sends more lines there).
        let brackets = self.bytes[self.at..end]
            .iter()
            .filter(|&&b| b == b'{' || b == b'[')
            .count();
        if brackets > MAX_SERDE_BRACKETS {
            return None;
        }
        self.at = end;
        Some(value)
    }

    /// Skips a value of a field serde ignores.
    fn skip(&mut self, depth: usize) -> Option<()> {
        if depth > MAX_DEPTH {
            return None;
        }
        match self.peek()? {
            b'"' => self.string().map(drop),
            b'{' => {
                self.at += 1;
                self.members(|p, _| p.skip(depth + 1))
            }
            b'[' => {
                self.at += 1;
                self.elements(|p| p.skip(depth + 1))
            }
            b't' | b'f' => self.bool().map(drop),
            b'n' => {
                let null = self.bytes[self.at..].starts_with(b"null");
                null.then(|| self.at += 4)
            }
            b'-' => {
                self.at += 1;
                self.u64().map(drop)
            }
            _ => self.u64().map(drop),
        }
    }

    // Enum values are matched as numbers too (a `match` on strings calls `memcmp`).

    fn kind(&mut self) -> Option<Kind> {
        const BEGIN: u128 = key(b"begin");
        const END: u128 = key(b"end");
        const ENTER: u128 = key(b"enter");
        const EXIT: u128 = key(b"exit");
        const DEF: u128 = key(b"def");
        const USE: u128 = key(b"use");
        const BRANCH: u128 = key(b"branch");
        const ALLOC: u128 = key(b"alloc");
        Some(match self.short()? {
            BEGIN => Kind::Begin,
            END => Kind::End,
            ENTER => Kind::Enter,
            EXIT => Kind::Exit,
            DEF => Kind::Def,
            USE => Kind::Use,
            BRANCH => Kind::Branch,
            ALLOC => Kind::Alloc,
            _ => return None,
        })
    }

    fn outcome(&mut self) -> Option<Outcome> {
        const PASS: u128 = key(b"pass");
        const FAIL: u128 = key(b"fail");
        match self.short()? {
            PASS => Some(Outcome::Pass),
            FAIL => Some(Outcome::Fail),
            _ => None,
        }
    }

    fn how(&mut self) -> Option<How> {
        const CONST: u128 = key(b"const");
        const NEW: u128 = key(b"new");
        const ARITH: u128 = key(b"arith");
        const CALL: u128 = key(b"call");
        const PARAM: u128 = key(b"param");
        const OTHER: u128 = key(b"other");
        Some(match self.short()? {
            CONST => How::Const,
            NEW => How::New,
            ARITH => How::Arith,
            CALL => How::Call,
            PARAM => How::Param,
            OTHER => How::Other,
            _ => return None,
        })
    }

    fn role(&mut self) -> Option<Role> {
        const DEREF: u128 = key(b"deref");
        const INDEX: u128 = key(b"index");
        const ARG: u128 = key(b"arg");
        const VALUE: u128 = key(b"value");
        Some(match self.short()? {
            DEREF => Role::Deref,
            INDEX => Role::Index,
            ARG => Role::Arg,
            VALUE => Role::Value,
            _ => return None,
        })
    }

    /// A variable reference object, into `slot` (once): parsed in place, as a `Var` is large.
    fn var_into(&mut self, slot: &mut Option<Var<'t>>) -> Option<()> {
        if slot.is_some() {
            return None;
        }
        self.var(slot.insert(Var::default()))
    }

    /// A variable reference object, into `v` (a `Var::default()`).
    fn var(&mut self, v: &mut Var<'t>) -> Option<()> {
        self.eat(b'{')?;
        self.members(|p, key| match key {
            K_LOCAL => once(&mut v.local, p.cow()?),
            K_FRAME => once(&mut v.frame, p.u64()?),
            K_FIELD => once(&mut v.field, p.cow()?),
            K_OBJ => once(&mut v.obj, p.u64()?),
            K_STATIC => once(&mut v.static_, p.cow()?),
            K_ELEM => once(&mut v.elem, p.u64()?),
            K_INDEX => once(&mut v.index, p.u64()?),
            K_NAME => once(&mut v.name, p.cow()?),
            K_RET => once(&mut v.ret, p.u64()?),
            _ => p.skip(1),
        })
    }

    fn vars(&mut self) -> Option<Vec<Var<'t>>> {
        self.eat(b'[')?;
        let mut vars = Vec::new();
        self.elements(|p| {
            vars.push(Var::default());
            let last = vars.last_mut()?;
            p.var(last)
        })?;
        Some(vars)
    }

    /// The `fields` of an `alloc`: `{"field": ..., "stmt": ...}` objects, both required.
    fn field_defaults(&mut self) -> Option<Vec<FieldDefault<'t>>> {
        self.eat(b'[')?;
        let mut out = Vec::new();
        self.elements(|p| {
            p.eat(b'{')?;
            let (mut field, mut stmt) = (None, None);
            p.members(|p, key| match key {
                K_FIELD => once(&mut field, p.cow()?),
                K_STMT => once(&mut stmt, p.u64()?),
                _ => p.skip(1),
            })?;
            out.push(FieldDefault {
                field: field?,
                stmt: stmt?,
            });
            Some(())
        })?;
        Some(out)
    }

    /// The whole record: every field of [`Record`], by key, in any order.
    fn record(&mut self, r: &mut Record<'t>) -> Option<()> {
        self.eat(b'{')?;
        let mut k = None;
        self.members(|p, key| match key {
            K_K => once(&mut k, p.kind()?),
            K_TEST => once(&mut r.test, p.cow()?),
            K_OUTCOME => once(&mut r.outcome, p.outcome()?),
            K_EXCEPTION => once(&mut r.exception, p.serde()?),
            K_EVENTS => once(&mut r.events, p.u64()?),
            K_TRUNCATED => once(&mut r.truncated, p.bool()?),
            K_FRAME => once(&mut r.frame, p.u64()?),
            K_METHOD => once(&mut r.method, p.cow()?),
            K_CALLER => once(&mut r.caller, p.u64()?),
            K_THIS => once(&mut r.this, p.u64()?),
            K_TEST_LINE => once(&mut r.test_line, p.u64()?),
            K_CALLBACK => once(&mut r.callback, p.bool()?),
            K_THROW => once(&mut r.throw, p.cow()?),
            K_STMT => once(&mut r.stmt, p.u64()?),
            K_VAR => p.var_into(&mut r.var),
            K_FROM => p.var_into(&mut r.from),
            K_CAST => once(&mut r.cast, p.bool()?),
            K_HOW => once(&mut r.how, p.how()?),
            K_CALLEE => once(&mut r.callee, p.cow()?),
            K_ROLE => once(&mut r.role, p.role()?),
            K_NULL => once(&mut r.null, p.bool()?),
            K_USES => once(&mut r.uses, p.vars()?),
            K_OBJ => once(&mut r.obj, p.u64()?),
            K_FIELDS => once(&mut r.fields, p.field_defaults()?),
            K_LENGTH => once(&mut r.length, p.u64()?),
            K_VALUES => once(&mut r.values, p.serde()?),
            _ => p.skip(1),
        })?;
        r.k = k?;
        Some(())
    }
}

#[cfg(test)]
mod tests {
    use std::borrow::Cow;

    use super::parse_into;
    use crate::trace::model::{How, Outcome, Role};
    use crate::trace::raw::{FieldDefault, Kind, Record, Var};

    /// The fast parse of `line`, if it takes it; when it does, serde must agree.
    fn fast(line: &str) -> Option<Record<'_>> {
        let mut record = Record::default();
        if !parse_into(line, &mut record) {
            return None;
        }
        let serde: Record<'_> = serde_json::from_str(line).expect("serde takes what fast takes");
        assert_eq!(serde, record, "{line}");
        Some(record)
    }

    fn local(name: &str) -> Var<'_> {
        Var {
            local: Some(Cow::Borrowed(name)),
            ..Var::default()
        }
    }

    proptest::proptest! {
        /// The eight-at-a-time search finds what a byte-by-byte one finds.
        #[test]
        fn special_is_the_first_special_byte(
            bytes in proptest::collection::vec(
                proptest::prop_oneof![
                    proptest::prelude::any::<u8>(),
                    proptest::sample::select(vec![b'"', b'\\', 0x1f, 0x20, 0x7f, 0x80, 0xa0, b'a']),
                ],
                0..40,
            )
        ) {
            let naive = bytes
                .iter()
                .position(|&b| b == b'"' || b == b'\\' || b < 0x20)
                .map(|i| (i, !bytes[..i].is_ascii()));
            proptest::prop_assert_eq!(super::special(&bytes), naive);
        }

        /// A short string read as a number is what `pack` makes of it, or `None` on the
        /// same bytes a byte-by-byte reading gives up on.
        #[test]
        fn short_strings_are_packed(
            bytes in proptest::collection::vec(
                proptest::prop_oneof![
                    4 => proptest::sample::select(vec![b'a', b'k', b'_', b'.']),
                    1 => proptest::sample::select(vec![b'"', b'\\', 0x1f, 0x7f, 0x80, 0xc3, 0xa9]),
                ],
                0..40,
            )
        ) {
            let mut line = vec![b'"'];
            line.extend(&bytes);
            let mut p = super::Parser { bytes: &line, at: 0 };
            let got = p.short().map(|k| (k, p.at));
            let naive = bytes.iter().position(|&b| b == b'"' || b == b'\\' || !(0x20..=0x7f).contains(&b));
            let want = match naive {
                Some(i) if bytes[i] == b'"' => Some((super::pack(&bytes, 0, i), i + 2)),
                _ => None,
            };
            proptest::prop_assert_eq!(got, want);
        }
    }

    /// Bytes that are not UTF-8 in a string make the line serde's (whose check says where).
    #[test]
    fn lines_that_are_not_utf8_are_left_to_serde() {
        for line in [
            &b"{\"k\":\"exit\",\"throw\":\"a\xffb\"}"[..],
            b"{\"k\":\"exit\",\"x\":\"\xc3\"}",
            b"{\"k\":\"exit\",\"\xe9\":1}",
            b"{\"k\":\"exit\",\"throw\":\"e\"}\xff",
        ] {
            let mut record = Record::default();
            assert!(!super::parse_bytes(line, &mut record), "{line:?}");
        }
        let mut record = Record::default();
        assert!(super::parse_bytes(
            "{\"k\":\"exit\",\"throw\":\"caf\u{e9} \u{1F600}\"}".as_bytes(),
            &mut record
        ));
        assert_eq!(record.throw.as_deref(), Some("caf\u{e9} \u{1F600}"));
    }

    #[test]
    fn the_records_tracers_write_are_taken() {
        let def = fast(
            r#"{"k":"def","frame":2,"stmt":215,"var":{"field":"synth.W.f2","obj":1},"from":{"local":"b"},"cast":true}"#,
        )
        .unwrap();
        assert_eq!(def.k, Kind::Def);
        assert_eq!(
            (def.frame, def.stmt, def.cast),
            (Some(2), Some(215), Some(true))
        );
        let var = def.var.unwrap();
        assert_eq!(var.field.as_deref(), Some("synth.W.f2"));
        assert_eq!(var.obj, Some(1));
        assert_eq!(def.from, Some(local("b")));
        assert!(def.how.is_none() && def.test.is_none());

        let alloc = fast(
            r#"{"k":"alloc","obj":1,"class":"P","frame":1,"fields":[{"field":"P.e","stmt":31},{"field":"P.p","stmt":32}]}"#,
        )
        .unwrap();
        assert_eq!(
            alloc.fields.unwrap(),
            vec![
                FieldDefault {
                    field: "P.e".into(),
                    stmt: 31
                },
                FieldDefault {
                    field: "P.p".into(),
                    stmt: 32
                }
            ]
        );

        let branch = fast(r#"{"k":"branch","frame":3,"stmt":9,"uses":[{"local":"a"},{"elem":4,"index":0,"name":"xs"}]}"#)
            .unwrap();
        let uses = branch.uses.unwrap();
        assert_eq!(uses[0], local("a"));
        assert_eq!(
            (uses[1].elem, uses[1].index, uses[1].name.as_deref()),
            (Some(4), Some(0), Some("xs"))
        );

        let use_ =
            fast(r#"{"k":"use","frame":2,"stmt":42,"var":{"ret":3},"role":"deref","null":true}"#)
                .unwrap();
        assert_eq!(
            (use_.role, use_.null, use_.var.unwrap().ret),
            (Some(Role::Deref), Some(true), Some(3))
        );

        let made = fast(r#"{"k":"def","frame":3,"stmt":45,"var":{"local":"e"},"how":"call","callee":"java.util.HashMap.get"}"#)
            .unwrap();
        assert_eq!(
            (made.how, made.callee.as_deref()),
            (Some(How::Call), Some("java.util.HashMap.get"))
        );

        let exit =
            fast(r#"{"k":"exit","frame":3,"throw":"java.lang.NullPointerException"}"#).unwrap();
        assert_eq!(
            exit.throw.as_deref(),
            Some("java.lang.NullPointerException")
        );
    }

    #[test]
    fn structured_fields_and_unknown_ones_are_taken() {
        let end = fast(
            r#"{"k":"end","test":"t1","outcome":"fail","events":22,"exception":{"type":"E","message":null,"frames":[{"class":"C","method":"m","file":"C.java","line":47}]},"statics":{"a":[1,-2,{"b":null}]}}"#,
        )
        .unwrap();
        assert_eq!(
            (end.test.as_deref(), end.outcome, end.events),
            (Some("t1"), Some(Outcome::Fail), Some(22))
        );
        let e = end.exception.unwrap();
        assert_eq!((e.kind.as_str(), e.frames[0].line), ("E", 47));

        let enter = fast(
            r#"{"k":"enter","frame":5,"method":"C.priceOf","this":6,"site":3,"a_key_longer_than_sixteen_bytes":[],"values":{"args":{"name":{"length":4}},"fields":{"C.count":0}}}"#,
        )
        .unwrap();
        assert_eq!(
            (enter.frame, enter.this, enter.method.as_deref()),
            (Some(5), Some(6), Some("C.priceOf"))
        );
        assert_eq!(enter.values.unwrap().args.len(), 1);

        // Keys in any order; u64::MAX is a u64; unicode is not an escape.
        let odd =
            fast(r#"{"stmt":18446744073709551615,"k":"use","var":{"local":"café"},"frame":0}"#)
                .unwrap();
        assert_eq!((odd.stmt, odd.frame), (Some(u64::MAX), Some(0)));
        assert_eq!(odd.var.unwrap(), local("café"));
    }

    #[test]
    fn every_surprise_is_left_to_serde() {
        for line in [
            r#"{"k": "exit","frame":1}"#, // whitespace
            r#" {"k":"exit","frame":1}"#,
            r#"{"k":"exit","frame":1} "#,
            r#"{"k":"exit","method":"a\"b"}"#, // escapes
            r#"{"k":"\u0065xit","frame":1}"#,
            "{\"k\":\"exit\",\"method\":\"a\tb\"}", // a control character (serde: an error)
            r#"{"k":"exit","frame":-1}"#,           // numbers that are not u64s
            r#"{"k":"exit","frame":1.0}"#,
            r#"{"k":"exit","frame":1e2}"#,
            r#"{"k":"exit","frame":01}"#,
            r#"{"k":"exit","frame":18446744073709551616}"#,
            r#"{"k":"exit","frame":null}"#, // null for a known field (serde: None)
            r#"{"k":"exit","frame":1,"frame":2}"#, // a repeated key
            r#"{"k":"Exit","frame":1}"#,    // an unknown variant
            r#"{"frame":1}"#,               // no kind
            r#"{"k":"exit","frame":1}x"#,   // trailing bytes
            r#"{"k":"exit","frame":1,}"#,
            r#"{"k":"exit","frame":1"#,     // truncated
            r#"{"k":"exit","x":1.5}"#,      // an unknown field holding a fraction
            r#"{"k":"exit","frame":true}"#, // a wrong type
            r#"{"k":"alloc","obj":1,"fields":[{"field":"f"}]}"#, // a field default without stmt
            r#"{"k":"exit","x":[[[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]]]}"#, // nested deeper than MAX_DEPTH
        ] {
            assert!(fast(line).is_none(), "fast took {line}");
        }
    }
}
