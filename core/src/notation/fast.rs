//! The fast path: the common lines of a log (tricks, deals, bids, scores and totals) read in
//! one pass over their bytes, straight into their records.
//!
//! It takes only what it is sure of: a printable line with single spaces, no comment, every
//! name a seat (or a side) of the game, every card and number well formed and in range, the
//! statement in its place in the hand. Anything else, it leaves the line untouched and the
//! general path reads it, findings and all. Both paths give the same records for every line
//! (the differential tests and the fuzz driver check it).

use super::{KEY, Parser, SEAT, Slot};
use crate::cards::Card;
use crate::notation::{
    Bid, Bids, Cards, Columns, Deal, Hand, Holding, MAX_SCORE, MAX_TRICK, Meta, Name, Play, Plays,
    ScoreEntry, ScoreKind, ScoreLine, Trick,
};

/// A line's bytes with a cursor; a column is the byte offset plus one (the line is ASCII).
struct Cursor<'a> {
    b: &'a [u8],
    at: usize,
}

impl<'a> Cursor<'a> {
    #[inline]
    fn peek(&self) -> Option<u8> {
        self.b.get(self.at).copied()
    }

    #[inline]
    fn done(&self) -> bool {
        self.at >= self.b.len()
    }

    #[inline]
    fn col(&self) -> u32 {
        self.at as u32 + 1
    }

    /// Bytes up to (not including) the next byte in `stops` or the end, moving past them.
    #[inline]
    fn until(&mut self, stops: &[u8]) -> &'a [u8] {
        let start = self.at;
        while let Some(&c) = self.b.get(self.at) {
            if stops.contains(&c) {
                break;
            }
            self.at += 1;
        }
        self.b.get(start..self.at).unwrap_or(&[])
    }

    /// Step over `c` if it is next.
    #[inline]
    fn eat(&mut self, c: u8) -> bool {
        if self.peek() == Some(c) {
            self.at += 1;
            true
        } else {
            false
        }
    }
}

/// A whole number with an optional sign, written in ASCII digits, within `-max..=max`.
#[inline]
fn number(tok: &[u8], max: i64) -> Option<i64> {
    let (neg, digits) = match tok.split_first() {
        Some((b'-', rest)) => (true, rest),
        Some((b'+', rest)) => (false, rest),
        _ => (false, tok),
    };
    if digits.is_empty() || digits.len() > 6 || !digits.iter().all(u8::is_ascii_digit) {
        return None;
    }
    let v = digits
        .iter()
        .fold(0i64, |v, d| v * 10 + i64::from(d - b'0'));
    let v = if neg { -v } else { v };
    (-max..=max).contains(&v).then_some(v)
}

#[inline]
fn text(tok: &[u8]) -> &str {
    std::str::from_utf8(tok).unwrap_or("")
}

impl Parser {
    /// Read `line` (printable ASCII, no line end) by the fast path; `false` leaves it to the
    /// general path, with nothing changed.
    pub(super) fn fast_line(&mut self, line: &[u8]) -> bool {
        if !self.fast {
            return false;
        }
        let (Some(&first), Some(&last)) = (line.first(), line.last()) else {
            return false;
        };
        if first == b' ' || last == b' ' || memchr::memchr(b'%', line).is_some() {
            return false;
        }
        match self.building.as_ref() {
            Some(b) if b.hand.is_some() && !b.full && b.known.players > 0 => {}
            _ => return false,
        }
        if first.is_ascii_digit() {
            return self.fast_tricks(line);
        }
        let (kw, rest) = match line.get(..6) {
            Some(b"score ") => (Slot::Score, 6),
            Some(b"total ") => (Slot::Total, 6),
            _ => match line.get(..5) {
                Some(b"bids ") => (Slot::Bids, 5),
                Some(b"deal ") => (Slot::Deal, 5),
                _ => return false,
            },
        };
        if !self.fits(kw) {
            return false;
        }
        let cur = Cursor { b: line, at: rest };
        match kw {
            Slot::Score => self.fast_score(cur, ScoreKind::Score),
            Slot::Total => self.fast_score(cur, ScoreKind::Total),
            Slot::Bids => self.fast_bids(cur),
            _ => self.fast_deal(cur),
        }
    }

    /// Whether a statement for `slot` stands in the open hand with no finding: not a repeat, and
    /// no later statement already there.
    fn fits(&self, slot: Slot) -> bool {
        let Some(h) = self.building.as_ref().and_then(|b| b.hand.as_ref()) else {
            return false;
        };
        let filled = |s: Slot| s.filled(h);
        if slot != Slot::Tricks && filled(slot) {
            return false;
        }
        !Slot::ORDER
            .iter()
            .skip_while(|s| **s != slot)
            .skip(1)
            .any(|s| *s != Slot::Revokes && filled(*s))
    }

    /// The game's name for `tok` if it is one with `flag` (a seat, or a score key).
    #[inline]
    fn known(&self, tok: &[u8], flag: u8) -> Option<Name> {
        let b = self.building.as_ref()?;
        let i = b.lookup(std::str::from_utf8(tok).ok()?)?;
        b.known
            .flags
            .get(i)
            .is_some_and(|f| f & flag != 0)
            .then_some(Name(i as u32))
    }

    fn hand_mut_fast(&mut self) -> Option<&mut Hand> {
        let line = self.lineno;
        let b = self.building.as_mut()?;
        b.game.end_line = line;
        b.hand.as_mut()
    }

    fn meta_fast(&mut self) -> Meta {
        Meta {
            line: self.lineno,
            comments: std::mem::take(&mut self.pending_comments),
            remark: None,
        }
    }

    fn fast_tricks(&mut self, line: &[u8]) -> bool {
        if !self.fits(Slot::Tricks) {
            return false;
        }
        let mut cur = Cursor { b: line, at: 0 };
        let mut tricks: Vec<Trick> = Vec::new();
        while !cur.done() {
            // `N.` then one or more cards, all `NAME:CARD` or all bare
            let ncol = cur.col();
            let digits = cur.until(b". ");
            if !cur.eat(b'.') || digits.is_empty() || digits.len() > 2 {
                return false;
            }
            let Some(number) = number(digits, MAX_TRICK).filter(|&n| n >= 0) else {
                return false;
            };
            let mut plays = Plays::new();
            let mut long = None;
            while cur.eat(b' ') {
                if cur.peek().is_some_and(|c| c.is_ascii_digit())
                    && cur.b.get(cur.at..).is_some_and(|r| {
                        let d = r.iter().take_while(|c| c.is_ascii_digit()).count();
                        r.get(d) == Some(&b'.')
                    })
                {
                    break; // the next trick on the same line
                }
                let tcol = cur.col();
                let tok = cur.until(b" ");
                let (player, card) = match memchr::memchr(b':', tok) {
                    Some(c) => {
                        let (name, card) =
                            (tok.get(..c).unwrap_or(&[]), tok.get(c + 1..).unwrap_or(&[]));
                        (Some(self.known(name, SEAT)), card)
                    }
                    None => (None, tok),
                };
                if *long.get_or_insert(player.is_some()) != player.is_some() {
                    return false; // the forms mixed: E101's
                }
                let Some(card) = Card::parse(text(card)) else {
                    return false;
                };
                let player = match player {
                    Some(Some(p)) => Some(p),
                    Some(None) => return false,
                    None => None,
                };
                plays.push(Play {
                    player,
                    card,
                    column: tcol,
                });
            }
            if plays.is_empty() {
                return false;
            }
            tricks.push(Trick {
                number: number as u32,
                short: long == Some(false),
                plays,
                column: ncol,
                meta: Meta::default(),
                unreadable: false,
            });
        }
        let mut comments = Some(std::mem::take(&mut self.pending_comments));
        let line_no = self.lineno;
        let Some(h) = self.hand_mut_fast() else {
            return false;
        };
        for mut t in tricks {
            t.meta = Meta {
                line: line_no,
                comments: comments.take().unwrap_or_default(),
                remark: None,
            };
            h.tricks.push(t);
        }
        true
    }

    fn fast_score(&mut self, mut cur: Cursor<'_>, kind: ScoreKind) -> bool {
        let mut entries = Vec::with_capacity(4);
        loop {
            let kcol = cur.col();
            let key = cur.until(b" ,");
            if !cur.eat(b' ') {
                return false;
            }
            let vcol = cur.col();
            let num = cur.until(b" ,");
            let (Some(key), Some(value)) = (self.known(key, KEY), number(num, MAX_SCORE)) else {
                return false;
            };
            entries.push(ScoreEntry {
                key,
                value: value as i32,
                column: kcol,
                value_column: vcol,
                value_len: num.len() as u32, // ASCII digits and a sign: a character a byte
            });
            if cur.done() {
                break;
            }
            if !(cur.eat(b',') && cur.eat(b' ')) {
                return false;
            }
        }
        let end_column = cur.col();
        let meta = self.meta_fast();
        let Some(h) = self.hand_mut_fast() else {
            return false;
        };
        let line = Some(ScoreLine {
            kind,
            entries,
            meta,
            unreadable: false,
            end_column,
        });
        match kind {
            ScoreKind::Score => h.score = line,
            ScoreKind::Total => h.total = line,
        }
        true
    }

    fn fast_bids(&mut self, mut cur: Cursor<'_>) -> bool {
        // the words are interned once the whole line is read: a line left to the general path
        // must find the game as it was
        let mut spoken: smallvec::SmallVec<[(Name, &[u8], u32); 10]> = smallvec::SmallVec::new();
        loop {
            let ncol = cur.col();
            let name = cur.until(b" ,");
            if !cur.eat(b' ') {
                return false;
            }
            let word = cur.until(b" ,");
            let plain = !word.is_empty()
                && word
                    .iter()
                    .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit());
            let Some(player) = self.known(name, SEAT).filter(|_| plain) else {
                return false;
            };
            spoken.push((player, word, ncol));
            if cur.done() {
                break;
            }
            if !(cur.eat(b',') && cur.eat(b' ')) {
                return false;
            }
        }
        let Some(b) = self.building.as_mut() else {
            return false;
        };
        let bids: Vec<Bid> = spoken
            .into_iter()
            .map(|(player, word, column)| Bid {
                player,
                word: b.game.intern_word(text(word)),
                column,
            })
            .collect();
        let meta = self.meta_fast();
        let Some(h) = self.hand_mut_fast() else {
            return false;
        };
        h.bids = Some(Bids {
            bids,
            meta,
            unreadable: false,
        });
        true
    }

    fn fast_deal(&mut self, mut cur: Cursor<'_>) -> bool {
        let mut holdings = Vec::with_capacity(4);
        loop {
            let ncol = cur.col();
            let name = cur.until(b": ;");
            let Some(player) = self.known(name, SEAT) else {
                return false;
            };
            if !cur.eat(b':') {
                return false;
            }
            let (mut cards, mut columns) = (Cards::new(), Columns::new());
            while cur.eat(b' ') {
                let col = cur.col();
                let Some(card) = Card::parse(text(cur.until(b" ;"))) else {
                    return false;
                };
                cards.push(card);
                columns.push(col);
            }
            holdings.push(Holding {
                player,
                cards,
                columns,
                column: ncol,
            });
            if cur.done() {
                break;
            }
            if !(cur.eat(b';') && cur.eat(b' ')) {
                return false;
            }
        }
        let meta = self.meta_fast();
        let Some(h) = self.hand_mut_fast() else {
            return false;
        };
        h.deal = Some(Deal {
            holdings,
            meta,
            unreadable: Vec::new(),
            incomplete: false,
        });
        true
    }
}

#[cfg(test)]
#[allow(clippy::indexing_slicing)]
mod tests {
    use crate::notation::parser::Parser;

    /// The games and findings of `data` by both paths, fed whole and in chunks of `chunk`;
    /// the lines the fast path read.
    fn agree(data: &[u8], what: &str, chunk: usize) -> u64 {
        let run = |fast: bool| {
            let mut p = Parser::new("t.pitch", 1, 0);
            if !fast {
                p = p.general_only();
            }
            for c in data.chunks(chunk.max(1)) {
                p.feed(c);
            }
            p.finish();
            (p.take_games(), p.take_findings(), p.fast_lines())
        };
        let (fg, ff, n) = run(true);
        let (gg, gf, _) = run(false);
        assert_eq!(ff, gf, "{what}: the findings differ");
        assert_eq!(fg.len(), gg.len(), "{what}: the games differ");
        for (a, b) in fg.iter().zip(&gg) {
            for (x, y) in a.hands.iter().zip(&b.hands) {
                assert_eq!(x, y, "{what}: hand {} differs", x.number);
            }
            assert_eq!(a, b, "{what}: game {} differs", a.index);
        }
        n
    }

    fn files(dir: &std::path::Path, out: &mut Vec<std::path::PathBuf>) {
        let Ok(entries) = std::fs::read_dir(dir) else {
            return;
        };
        for e in entries.flatten() {
            let p = e.path();
            if p.is_dir() {
                files(&p, out);
            } else if p.extension().is_some_and(|x| x == "pitch") {
                out.push(p);
            }
        }
    }

    #[test]
    fn both_paths_agree_on_the_golden_cases_and_the_sample_logs() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
        let mut paths = Vec::new();
        files(&root.join("tests/golden"), &mut paths);
        files(&root.join("sample_logs"), &mut paths);
        assert!(paths.len() > 50, "{} files", paths.len());
        let mut fast = 0;
        for p in &paths {
            let data = std::fs::read(p).unwrap_or_default();
            fast += agree(&data, &p.display().to_string(), 1 << 20);
        }
        assert!(fast > 1000, "the fast path read {fast} lines");
    }

    #[test]
    fn both_paths_agree_on_simulated_games_of_every_preset_and_their_mutations() {
        let mut fast = 0;
        for name in crate::simulate::tests::PRESETS {
            let rules = crate::simulate::tests::preset(name);
            let (text, _) = crate::simulate::tests::run(&rules, 8, 11, 1, &[]);
            fast += agree(text.as_bytes(), name, 1 << 20);
            fast += agree(text.as_bytes(), name, 777);
            // every line of the first game changed the ways a hand-typed log differs
            let lines: Vec<&str> = text.lines().take(60).collect();
            let edits: [&dyn Fn(&str) -> String; 12] = [
                &|l| l.replacen(' ', "  ", 1),
                &|l| l.replacen(", ", ",", 1),
                &|l| l.replacen("Bob", "Bbo", 1),
                &|l| l.replacen("Ann", "NS", 1),
                &|l| l.replacen('S', "X", 1),
                &|l| l.replacen(' ', " 99999999 ", 1),
                &|l| l.replacen(':', ": ", 1),
                &|l| format!("{l}  % note"),
                &|l| format!("{l};"),
                &|l| l.to_uppercase(),
                &|l| l.replacen(' ', "", 1),
                &|l| l.replacen(". ", ".", 1),
            ];
            for (i, l) in lines.iter().enumerate() {
                for e in &edits {
                    let mut t: Vec<String> = lines.iter().map(|x| x.to_string()).collect();
                    t[i] = e(l);
                    // the line twice as well: a repeat is the general path's
                    t.insert(i, e(l));
                    agree(
                        t.join("\n").as_bytes(),
                        &format!("{name} line {i}: {}", t[i]),
                        1 << 20,
                    );
                }
            }
        }
        assert!(fast > 5000, "the fast path read {fast} lines");
    }
}
