//! Lines, comments, tokens and columns.
//!
//! The parser works on byte offsets into one decoded line; a finding's column is counted
//! in characters (1-based), as a user's editor counts it. [`Line`] turns one into the other
//! in amortised linear time, with a fast path for the usual all-ASCII line.

use std::cell::Cell;

pub use crate::text::{is_space, py_repr, show};

#[inline]
fn is_space_byte(b: u8) -> bool {
    b <= b' ' && matches!(b, b'\t' | b'\n' | 0x0b | 0x0c | b'\r' | 0x1c..=0x1f | b' ')
}

/// One decoded line, with the map from byte offsets to character columns.
pub struct Line<'a> {
    /// The text of the line, without its line end.
    pub text: &'a str,
    ascii: bool,
    /// Printable ASCII only: the space is the one separator, and bytes are characters.
    simple: bool,
    cursor: Cell<(usize, u32)>,
}

impl<'a> Line<'a> {
    /// Wrap a decoded line.
    pub fn new(text: &'a str) -> Line<'a> {
        // a fold without an early exit, so that it runs a block of bytes at a time
        let simple = text
            .as_bytes()
            .chunks(32)
            .all(|c| c.iter().fold(true, |ok, &b| ok & (0x20..0x7f).contains(&b)));
        Line {
            text,
            ascii: simple || text.is_ascii(),
            simple,
            cursor: Cell::new((0, 0)),
        }
    }

    /// Wrap a line already known to be printable ASCII.
    pub fn printable(text: &'a str) -> Line<'a> {
        Line {
            text,
            ascii: true,
            simple: true,
            cursor: Cell::new((0, 0)),
        }
    }

    /// The tokens of `start..end` of the line.
    #[inline]
    pub fn tokens(&self, start: usize, end: usize) -> Tokens<'a> {
        Tokens {
            text: self.text,
            pos: start,
            end: end.min(self.text.len()),
            simple: self.simple,
        }
    }

    /// The 1-based character column of byte offset `at`.
    #[inline]
    pub fn col(&self, at: usize) -> u32 {
        let at = at.min(self.text.len());
        if self.ascii {
            return to_u32(at) + 1;
        }
        let (mut byte, mut chars) = self.cursor.get();
        if at < byte {
            (byte, chars) = (0, 0);
        }
        let seg = self.text.get(byte..at).unwrap_or("");
        chars += to_u32(seg.chars().count());
        self.cursor.set((at, chars));
        chars + 1
    }
}

/// A length or offset as a column number; lines longer than 4 GiB do not exist here
/// (the reader splits them), but saturate rather than wrap.
pub fn to_u32(n: usize) -> u32 {
    u32::try_from(n).unwrap_or(u32::MAX)
}

/// The first `needle` in `hay`: a plain loop for the short haystacks of a statement (where
/// memchr's set-up costs more than it saves), memchr for long ones.
#[inline]
pub fn find_byte(needle: u8, hay: &[u8]) -> Option<usize> {
    if hay.len() < 96 {
        hay.iter().position(|&b| b == needle)
    } else {
        memchr::memchr(needle, hay)
    }
}

/// The byte offsets of every `needle` in `hay`.
pub fn find_bytes(needle: u8, hay: &[u8]) -> impl Iterator<Item = usize> + '_ {
    hay.iter()
        .enumerate()
        .filter(move |(_, b)| **b == needle)
        .map(|(i, _)| i)
}

/// The byte offset of a line's `%` comment, if it has one (a `%` inside a quoted string is text).
pub fn comment_start(text: &str) -> Option<usize> {
    let bytes = text.as_bytes();
    let first = find_byte(b'%', bytes)?;
    if find_byte(b'"', bytes.get(..first).unwrap_or(&[])).is_none() {
        return Some(first);
    }
    let mut in_quote = false;
    let mut escaped = false;
    for (i, &b) in bytes.iter().enumerate() {
        if escaped {
            escaped = false;
        } else if b == b'\\' && in_quote {
            escaped = true;
        } else if b == b'"' {
            in_quote = !in_quote;
        } else if b == b'%' && !in_quote {
            return Some(i);
        }
    }
    None
}

/// Trim white space at both ends of `text[start..end]`; returns the new bounds.
pub fn trim(text: &str, start: usize, end: usize) -> (usize, usize) {
    let seg = text.get(start..end).unwrap_or("");
    let bytes = seg.as_bytes();
    // the usual case: no white space at either end, or plain ASCII white space
    if let (Some(&first), Some(&last)) = (bytes.first(), bytes.last()) {
        if first < 0x80 && last < 0x80 && !is_space_byte(first) && !is_space_byte(last) {
            return (start, end);
        }
    }
    let left = seg.len() - seg.trim_start_matches(is_space).len();
    let right = seg.trim_end_matches(is_space).len();
    (start + left, start + right.max(left))
}

/// The white-space separated tokens of `text[start..end]`, as byte ranges into `text`.
pub struct Tokens<'a> {
    text: &'a str,
    pos: usize,
    end: usize,
    simple: bool,
}

impl<'a> Iterator for Tokens<'a> {
    type Item = (usize, &'a str);

    #[inline]
    fn next(&mut self) -> Option<(usize, &'a str)> {
        let bytes = self.text.as_bytes();
        if self.simple {
            let hay = bytes.get(self.pos..self.end)?;
            let Some(skip) = hay.iter().position(|&b| b != b' ') else {
                self.pos = self.end;
                return None;
            };
            let rest = hay.get(skip..)?;
            let len = rest.iter().position(|&b| b == b' ').unwrap_or(rest.len());
            let start = self.pos + skip;
            self.pos = start + len;
            return self.text.get(start..self.pos).map(|t| (start, t));
        }
        let mut i = self.pos;
        // white space: ASCII bytes in a tight loop, other characters decoded one by one
        while i < self.end {
            let b = *bytes.get(i)?;
            if b < 0x80 {
                if !is_space_byte(b) {
                    break;
                }
                i += 1;
            } else {
                let c = self.text.get(i..)?.chars().next()?;
                if !is_space(c) {
                    break;
                }
                i += c.len_utf8();
            }
        }
        if i >= self.end {
            self.pos = self.end;
            return None;
        }
        let start = i;
        while i < self.end {
            let b = *bytes.get(i)?;
            if b < 0x80 {
                if is_space_byte(b) {
                    break;
                }
                i += 1;
            } else {
                let c = self.text.get(i..)?.chars().next()?;
                if is_space(c) {
                    break;
                }
                i += c.len_utf8();
            }
        }
        self.pos = i;
        self.text.get(start..i).map(|t| (start, t))
    }
}

/// Up to four tokens of a statement, with their count: enough to match every short
/// statement's shape without allocating.
pub struct Few<'a> {
    toks: [(usize, &'a str); 4],
    len: usize,
}

impl<'a> Few<'a> {
    /// Collect the first four tokens (and count them all).
    pub fn of(it: Tokens<'a>) -> Few<'a> {
        let mut f = Few {
            toks: [(0, ""); 4],
            len: 0,
        };
        for t in it {
            if let Some(slot) = f.toks.get_mut(f.len) {
                *slot = t;
            }
            f.len += 1;
        }
        f
    }

    /// The tokens, or the first four and one more marker when there are more: a shape of one
    /// to three tokens matches exactly.
    pub fn slice(&self) -> &[(usize, &'a str)] {
        self.toks.get(..self.len.min(4)).unwrap_or(&[])
    }

    /// The first token.
    pub fn first(&self) -> Option<&(usize, &'a str)> {
        self.slice().first()
    }
}

/// The pieces of `text[start..end]` between `sep` bytes, as byte ranges into `text`.
pub fn pieces(
    text: &str,
    start: usize,
    end: usize,
    sep: u8,
) -> impl Iterator<Item = (usize, usize)> + '_ {
    let seg = text.as_bytes().get(start..end).unwrap_or(&[]);
    let mut from = start;
    let mut cuts = find_bytes(sep, seg).map(move |p| start + p);
    let mut done = false;
    std::iter::from_fn(move || {
        if done {
            return None;
        }
        match cuts.next() {
            Some(cut) => {
                let piece = (from, cut);
                from = cut + 1;
                Some(piece)
            }
            None => {
                done = true;
                Some((from, end))
            }
        }
    })
}

/// A quoted string's text: each `\x` stands for `x`.
pub fn unquote(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut chars = s.chars();
    while let Some(c) = chars.next() {
        if c == '\\' {
            match chars.next() {
                Some(n) => out.push(n),
                None => out.push(c),
            }
        } else {
            out.push(c);
        }
    }
    out
}

/// Write `s` as a quoted string: `"` and `\` escaped.
pub fn quote_into(out: &mut String, s: &str) {
    out.push('"');
    for c in s.chars() {
        if c == '"' || c == '\\' {
            out.push('\\');
        }
        out.push(c);
    }
    out.push('"');
}

/// The length in bytes of a quoted string's body starting at `text[start..]` (just after the
/// opening quote), up to but not including the closing quote; `None` when it never closes.
pub fn quoted_len(text: &str, start: usize) -> Option<usize> {
    let bytes = text.as_bytes().get(start..)?;
    let mut i = 0;
    while let Some(&b) = bytes.get(i) {
        match b {
            b'"' => return Some(i),
            b'\\' => {
                // `\\.`: the escaped character must be there (any but a line end)
                let next = text.get(start + i + 1..)?.chars().next()?;
                i += 1 + next.len_utf8();
            }
            _ => i += 1,
        }
    }
    None
}

/// Whether `s` is a valid player or team name: `[A-Za-z][A-Za-z0-9_.-]*`.
pub fn is_name(s: &str) -> bool {
    let b = s.as_bytes();
    match b.split_first() {
        Some((f, rest)) => {
            f.is_ascii_alphabetic()
                && rest
                    .iter()
                    .all(|c| c.is_ascii_alphanumeric() || matches!(c, b'_' | b'.' | b'-'))
        }
        None => false,
    }
}

/// Whether `s` is all ASCII digits (and not empty).
pub fn is_digits(s: &str) -> bool {
    !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit())
}

/// A whole number written in ASCII digits, if it lies in `lo..=hi`: `Err(true)` when it is a
/// number out of that range, `Err(false)` when it is not a number at all.
pub fn bounded_int(s: &str, lo: i64, hi: i64) -> Result<i64, bool> {
    let (neg, digits) = match s.as_bytes().first() {
        Some(b'-') => (true, s.get(1..).unwrap_or("")),
        Some(b'+') => (false, s.get(1..).unwrap_or("")),
        _ => (false, s),
    };
    if !is_digits(digits) {
        return Err(false);
    }
    let trimmed = digits.trim_start_matches('0');
    if trimmed.len() > 12 {
        return Err(true);
    }
    let mut v: i64 = 0;
    for b in trimmed.bytes() {
        v = v * 10 + i64::from(b - b'0');
    }
    let v = if neg { -v } else { v };
    if v < lo || v > hi { Err(true) } else { Ok(v) }
}

#[cfg(test)]
#[allow(clippy::indexing_slicing)]
mod tests {
    use super::*;

    #[test]
    fn comments_outside_quotes() {
        assert_eq!(comment_start("note \"50% luck\" % Dee"), Some(16));
        assert_eq!(comment_start("dealer Ann % x"), Some(11));
        assert_eq!(comment_start("note \"a\\\"%\""), None);
    }

    #[test]
    fn tokens_and_columns() {
        let text = " 1. AS\u{a0}3S";
        let line = Line::new(text);
        let toks: Vec<_> = line.tokens(0, text.len()).collect();
        assert_eq!(toks, vec![(1, "1."), (4, "AS"), (8, "3S")]);
        assert_eq!(line.col(8), 8);
        assert_eq!(line.col(4), 5);
    }

    #[test]
    fn repr_like_python() {
        assert_eq!(py_repr("Eve"), "'Eve'");
        assert_eq!(py_repr("it's"), "\"it's\"");
        assert_eq!(py_repr("a\tb"), "'a\\tb'");
        assert_eq!(py_repr("Ann\u{200b}"), "'Ann\\u200b'");
        assert_eq!(py_repr("\u{feff}hand"), "'\\ufeffhand'");
        assert_eq!(py_repr("N\u{ad}S"), "'N\\xadS'");
        assert_eq!(py_repr("\u{10ffff}"), "'\\U0010ffff'");
        assert_eq!(show(&"x".repeat(50)), format!("'{}...'", "x".repeat(40)));
    }

    #[test]
    fn numbers_are_bounded() {
        assert_eq!(bounded_int("12", 0, 99), Ok(12));
        assert_eq!(bounded_int("-3", -9, 9), Ok(-3));
        assert_eq!(bounded_int("99999999999999999999999", 0, 99), Err(true));
        assert_eq!(bounded_int("١", 0, 99), Err(false));
        assert_eq!(bounded_int("", 0, 99), Err(false));
    }

    #[test]
    fn quoted_strings() {
        assert_eq!(quoted_len("a\\\"b\" rest", 0), Some(4));
        assert_eq!(quoted_len("abc", 0), None);
        assert_eq!(unquote("a\\\"b\\\\"), "a\"b\\");
    }
}
