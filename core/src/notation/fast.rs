//! The fast path: the common lines of a log read in one pass over their bytes, straight into
//! their records.
//!
//! The chunk a line comes from was checked once to be printable ASCII (so valid UTF-8, a byte a
//! column, the space the one separator). Tricks, deals, widows, bids, trump lines, discards,
//! draws, scores and totals are read byte by byte into the open hand's records: no token is
//! copied, no string made, a name is found by its fingerprint among the game's seats, every byte
//! is checked against the statement's grammar (so a comment or a stray space is never taken). Blank lines, tags, `hand N` and `dealer NAME` go
//! straight to the general path's own statement readers, without its per-line search for the
//! keyword and the comment. Anything else (a comment, a double space, an unknown name, a bad
//! card, a statement out of place) and the line is left untouched to the general path, findings
//! and all. Both paths give the same records for every line: the differential tests and the
//! fuzz driver check it.

use super::Line;
use super::{Building, KEY, Parser, SEAT, Slot, Span, Spare, find_name_at};
use crate::cards::Card;
use crate::notation::{
    Bid, Bids, Cards, Columns, Deal, Exchange, ExchangeKind, Game, Hand, Holding, MAX_SCORE,
    MAX_TRICK, Meta, Name, Play, Plays, ScoreEntry, ScoreKind, ScoreLine, Trick, TrumpLine, Widow,
    intern_into,
};

/// A game's names as the fast path looks them up, borrowed beside the open hand.
struct Seats<'a> {
    names: &'a [String],
    fingerprints: &'a [u64],
    index: &'a std::collections::HashMap<String, u32>,
    flags: &'a [u8],
}

impl Seats<'_> {
    /// The name `line[start..end]` is, if it is one of the game's with `flag` (a seat, or a
    /// score key).
    #[inline(always)]
    fn get(&self, line: &[u8], start: usize, end: usize, flag: u8) -> Option<Name> {
        let i = find_name_at(self.names, self.fingerprints, self.index, line, start, end)?;
        self.flags
            .get(i)
            .is_some_and(|f| f & flag != 0)
            .then_some(Name(i as u32))
    }
}

/// What the fast path reads into: the open hand, the game's names and bid words, and where the
/// game's last statement is.
struct Open<'a> {
    hand: &'a mut Hand,
    seats: Seats<'a>,
    words: &'a mut Vec<String>,
    end_line: &'a mut u32,
}

/// The open hand of the game being read, when the fast path may read into it: a hand is open,
/// the game is not full, and its seats are known (a game without a `Players` tag takes any name,
/// which is the general path's business).
#[inline]
fn open(b: &mut Option<Building>) -> Option<Open<'_>> {
    let Building {
        game,
        hand,
        known,
        index,
        fingerprints,
        full,
        ..
    } = b.as_mut()?;
    if *full || known.players == 0 {
        return None;
    }
    let Game {
        names,
        words,
        end_line,
        ..
    } = game;
    Some(Open {
        hand: hand.as_mut()?,
        seats: Seats {
            names,
            fingerprints,
            index,
            flags: &known.flags,
        },
        words,
        end_line,
    })
}

/// The open hand, when a statement for `slot` may go into it with no finding (see [`open`] and
/// [`fits`]).
#[inline]
fn open_for(b: &mut Option<Building>, slot: Slot) -> Option<Open<'_>> {
    open(b).filter(|o| fits(o.hand, slot))
}

/// Whether a statement for `slot` stands in hand `h` with no finding: not a repeat (tricks and
/// exchanges come several to a hand), and no
/// later statement already there (the general path's order check, by the same definition).
#[inline]
fn fits(h: &Hand, slot: Slot) -> bool {
    if !matches!(slot, Slot::Tricks | Slot::Exchanges) && slot.filled(h) {
        return false;
    }
    !Slot::ORDER
        .iter()
        .skip_while(|s| **s != slot)
        .skip(1)
        .any(|s| *s != Slot::Revokes && s.filled(h))
}

/// The offset of the first byte at or after `at` that is `a` or `b`, or the end.
#[inline]
fn until2(line: &[u8], mut at: usize, a: u8, b: u8) -> usize {
    while let Some(&c) = line.get(at) {
        if c == a || c == b {
            break;
        }
        at += 1;
    }
    at
}

/// A whole number with an optional sign, in at most six ASCII digits, within `-max..=max`.
#[inline]
fn number(tok: &[u8], max: i64) -> Option<i64> {
    let (neg, digits) = match tok.split_first() {
        Some((b'-', rest)) => (true, rest),
        Some((b'+', rest)) => (false, rest),
        _ => (false, tok),
    };
    if digits.is_empty() || digits.len() > 6 {
        return None;
    }
    let mut v = 0i64;
    for &d in digits {
        if !d.is_ascii_digit() {
            return None;
        }
        v = v * 10 + i64::from(d - b'0');
    }
    let v = if neg { -v } else { v };
    (-max..=max).contains(&v).then_some(v)
}

/// The card `line[from..to]` names.
#[inline]
fn card(line: &[u8], from: usize, to: usize) -> Option<Card> {
    Card::parse_printable(line.get(from..to)?)
}

/// The card token at `at`, ended by a space, `stop` or the line's end, and the offset after it.
#[inline(always)]
fn card_token(b: &[u8], at: usize, stop: u8) -> Option<(Card, usize)> {
    // most tokens are a rank and a suit: two bytes, no search for the end
    if let [r, s, rest @ ..] = b.get(at..)? {
        if rest.first().is_none_or(|&c| c == b' ' || c == stop) {
            return Some((Card::parse_printable(&[*r, *s])?, at + 2));
        }
    }
    let end = until2(b, at, b' ', stop);
    Some((card(b, at, end)?, end))
}

/// A statement's line with no comment before it and no remark after it (the fast path takes
/// no line that has either).
#[inline]
fn bare(line: u32) -> Meta {
    Meta {
        line,
        comments: Vec::new(),
        remark: None,
    }
}

/// A column: a byte offset plus one (the line is ASCII).
#[inline]
fn col(at: usize) -> u32 {
    at as u32 + 1
}

impl Parser {
    /// Read `line` (printable ASCII, no line end) by the fast path; `false` leaves it to the
    /// general path, with nothing changed.
    pub(super) fn fast_line(&mut self, line: &str) -> bool {
        if !self.fast {
            return false;
        }
        let b = line.as_bytes();
        let Some(&first) = b.first() else {
            return true; // a blank line holds nothing (as the general path finds)
        };
        match first {
            b'0'..=b'9' => self.fast_tricks(line),
            b'[' => self.direct(line, 0),
            b'h' if b.starts_with(b"hand ") => self.direct(line, 4),
            b'd' if b.starts_with(b"dealer ") => self.direct(line, 6),
            b'd' if b.starts_with(b"deal ") => self.fast_deal(line),
            b'b' if b.starts_with(b"bids ") => self.fast_bids(line),
            b'w' if b.starts_with(b"widow: ") => self.fast_widow(line),
            b't' if b.starts_with(b"trump ") => self.fast_trump(line),
            b'd' if b.starts_with(b"discard ") => self.fast_exchange(line, ExchangeKind::Discard),
            b'd' if b.starts_with(b"draw ") => self.fast_exchange(line, ExchangeKind::Draw),
            b's' if b.starts_with(b"score ") => self.fast_score(line, ScoreKind::Score),
            b't' if b.starts_with(b"total ") => self.fast_score(line, ScoreKind::Total),
            _ => false,
        }
    }

    /// A tag (`kw` 0), `hand` or `dealer` line (`kw` the keyword's length) with no comment and no
    /// space at its end: given to the general path's reader of that statement, as its dispatch
    /// would, without searching the line for a comment and a keyword.
    fn direct(&mut self, line: &str, kw: usize) -> bool {
        let b = line.as_bytes();
        if b.last() == Some(&b' ') || super::find_byte(b'%', b).is_some() {
            return false;
        }
        let line = Line::printable(line);
        if kw == 0 {
            self.tag(&line, 0, b.len(), None);
            return true;
        }
        let lineno = self.lineno;
        match self.building.as_mut() {
            Some(bu) if !bu.full => bu.game.end_line = lineno,
            _ => return false,
        }
        let at = Span {
            line: &line,
            start: kw,
            end: b.len(),
            col: 1,
        };
        if kw == 4 {
            self.hand(at, None);
        } else {
            self.dealer(at, None);
        }
        true
    }

    /// The comment lines waiting for the next statement.
    #[inline]
    fn comments(&mut self) -> Vec<String> {
        std::mem::take(&mut self.pending_comments)
    }

    fn fast_tricks(&mut self, line: &str) -> bool {
        let lineno = self.lineno;
        let Some(o) = open_for(&mut self.building, Slot::Tricks) else {
            return false;
        };
        let before = o.hand.tricks.len();
        if !read_tricks(line, &o.seats, lineno, &mut o.hand.tricks) {
            o.hand.tricks.truncate(before);
            return false;
        }
        *o.end_line = lineno;
        if !self.pending_comments.is_empty() {
            let comments = std::mem::take(&mut self.pending_comments);
            if let Some(t) = self
                .building
                .as_mut()
                .and_then(|b| b.hand.as_mut())
                .and_then(|h| h.tricks.get_mut(before))
            {
                t.meta.comments = comments;
            }
        }
        true
    }

    fn fast_score(&mut self, line: &str, kind: ScoreKind) -> bool {
        let lineno = self.lineno;
        let b = line.as_bytes();
        let slot = match kind {
            ScoreKind::Score => Slot::Score,
            ScoreKind::Total => Slot::Total,
        };
        let Some(o) = open_for(&mut self.building, slot) else {
            return false;
        };
        let mut entries = Spare::take(&mut self.spare.entries, o.seats.names.len());
        let mut at = 6;
        loop {
            let key_end = until2(b, at, b' ', b',');
            if b.get(key_end) != Some(&b' ') {
                return false;
            }
            let Some(key) = o.seats.get(b, at, key_end, KEY) else {
                return false;
            };
            let num_at = key_end + 1;
            let num_end = until2(b, num_at, b' ', b',');
            let Some(value) = b.get(num_at..num_end).and_then(|n| number(n, MAX_SCORE)) else {
                return false;
            };
            entries.push(ScoreEntry {
                key,
                value: value as i32,
                column: col(at),
                value_column: col(num_at),
                value_len: (num_end - num_at) as u32, // ASCII: a character a byte
            });
            at = num_end;
            if at >= b.len() {
                break;
            }
            if b.get(at..at + 2) != Some(b", ") {
                return false;
            }
            at += 2;
        }
        *o.end_line = lineno;
        let meta = bare(lineno);
        let line = Some(ScoreLine {
            kind,
            entries,
            meta,
            unreadable: false,
            end_column: col(b.len()),
        });
        match kind {
            ScoreKind::Score => o.hand.score = line,
            ScoreKind::Total => o.hand.total = line,
        }
        self.with_comments(|h| match kind {
            ScoreKind::Score => h.score.as_mut().map(|s| &mut s.meta),
            ScoreKind::Total => h.total.as_mut().map(|s| &mut s.meta),
        });
        true
    }

    /// Give the waiting comment lines to the statement just read (`meta` finds it in the hand).
    #[inline]
    fn with_comments(&mut self, meta: impl FnOnce(&mut Hand) -> Option<&mut Meta>) {
        if self.pending_comments.is_empty() {
            return;
        }
        let comments = self.comments();
        if let Some(m) = self
            .building
            .as_mut()
            .and_then(|b| b.hand.as_mut())
            .and_then(meta)
        {
            m.comments = comments;
        }
    }

    fn fast_bids(&mut self, line: &str) -> bool {
        let lineno = self.lineno;
        let b = line.as_bytes();
        let Some(o) = open_for(&mut self.building, Slot::Bids) else {
            return false;
        };
        // the words are interned once the whole line is read: a line left to the general path
        // must find the game as it was
        let mut spoken: smallvec::SmallVec<[(Name, usize, usize, usize); 10]> =
            smallvec::SmallVec::new();
        let mut at = 5;
        loop {
            let name_end = until2(b, at, b' ', b',');
            if b.get(name_end) != Some(&b' ') {
                return false;
            }
            let Some(player) = o.seats.get(b, at, name_end, SEAT) else {
                return false;
            };
            let word_at = name_end + 1;
            let mut word_end = word_at;
            while let Some(&c) = b.get(word_end) {
                if !(c.is_ascii_lowercase() || c.is_ascii_digit()) {
                    break;
                }
                word_end += 1;
            }
            if word_end == word_at {
                return false;
            }
            spoken.push((player, word_at, word_end, at));
            at = word_end;
            if at >= b.len() {
                break;
            }
            if b.get(at..at + 2) != Some(b", ") {
                return false;
            }
            at += 2;
        }
        let mut bids = Spare::take(&mut self.spare.bids, spoken.len());
        for (player, from, to, at) in spoken {
            bids.push(Bid {
                player,
                word: intern_into(o.words, line.get(from..to).unwrap_or("")),
                column: col(at),
            });
        }
        *o.end_line = lineno;
        o.hand.bids = Some(Bids {
            bids,
            meta: bare(lineno),
            unreadable: false,
        });
        self.with_comments(|h| h.bids.as_mut().map(|s| &mut s.meta));
        true
    }

    fn fast_deal(&mut self, line: &str) -> bool {
        let lineno = self.lineno;
        let b = line.as_bytes();
        let Some(o) = open_for(&mut self.building, Slot::Deal) else {
            return false;
        };
        let mut holdings = Spare::take(&mut self.spare.holdings, o.seats.names.len());
        let mut at = 5;
        loop {
            let Some((holding, end)) = read_holding(b, at, &o.seats) else {
                return false;
            };
            holdings.push(holding);
            at = end;
            if at >= b.len() {
                break;
            }
            if b.get(at..at + 2) != Some(b"; ") {
                return false;
            }
            at += 2;
        }
        *o.end_line = lineno;
        o.hand.deal = Some(Deal {
            holdings,
            meta: bare(lineno),
            unreadable: Vec::new(),
            incomplete: false,
        });
        self.with_comments(|h| h.deal.as_mut().map(|s| &mut s.meta));
        true
    }

    /// `widow: CARD ...`: the cards left aside, one space between them.
    fn fast_widow(&mut self, line: &str) -> bool {
        let lineno = self.lineno;
        let b = line.as_bytes();
        let Some(o) = open_for(&mut self.building, Slot::Widow) else {
            return false;
        };
        // `widow:` with no card is the general path's (it reads the colon apart)
        let Some((cards, columns, end)) = read_cards(b, 6).filter(|r| !r.0.is_empty()) else {
            return false;
        };
        if end != b.len() {
            return false;
        }
        *o.end_line = lineno;
        o.hand.widow = Some(Widow {
            cards,
            columns,
            meta: bare(lineno),
        });
        self.with_comments(|h| h.widow.as_mut().map(|s| &mut s.meta));
        true
    }

    /// `trump S`: the suit named by its letter (a word is the general path's).
    fn fast_trump(&mut self, line: &str) -> bool {
        let lineno = self.lineno;
        let Some(o) = open_for(&mut self.building, Slot::Trump) else {
            return false;
        };
        let Some(suit) = line
            .get(6..)
            .filter(|t| t.len() == 1)
            .and_then(crate::cards::Suit::parse_word)
        else {
            return false;
        };
        *o.end_line = lineno;
        o.hand.trump = Some(TrumpLine {
            suit,
            column: col(6),
            meta: bare(lineno),
        });
        self.with_comments(|h| h.trump.as_mut().map(|s| &mut s.meta));
        true
    }

    /// `discard NAME: CARD ...` or `draw NAME: CARD ...`: one player's cards.
    fn fast_exchange(&mut self, line: &str, kind: ExchangeKind) -> bool {
        let lineno = self.lineno;
        let b = line.as_bytes();
        let Some(o) = open_for(&mut self.building, Slot::Exchanges) else {
            return false;
        };
        let Some((holding, end)) = read_holding(b, kind.word().len() + 1, &o.seats) else {
            return false;
        };
        if end != b.len() || holding.cards.is_empty() {
            return false;
        }
        *o.end_line = lineno;
        if o.hand.exchanges.is_empty() {
            // a discard for each player, and the pitcher's draw and discard (ten-point)
            o.hand.exchanges.reserve(o.seats.names.len() + 2);
        }
        o.hand.exchanges.push(Exchange {
            kind,
            holding,
            meta: bare(lineno),
        });
        self.with_comments(|h| h.exchanges.last_mut().map(|s| &mut s.meta));
        true
    }
}

/// `NAME: CARD ...` from `at` (a seat's name, a colon, then a space before each card), and the
/// offset after its last card; None when the piece is not in that form.
#[inline]
fn read_holding(b: &[u8], at: usize, seats: &Seats<'_>) -> Option<(Holding, usize)> {
    let name_end = until2(b, at, b':', b' ');
    if b.get(name_end) != Some(&b':') {
        return None;
    }
    let player = seats.get(b, at, name_end, SEAT)?;
    let (cards, columns, end) = read_cards(b, name_end + 1)?;
    Some((
        Holding {
            player,
            cards,
            columns,
            column: col(at),
        },
        end,
    ))
}

/// The cards from `at`, each after one space, up to the first byte that is not a space before a
/// card (`;`, or the end); None when a token there is not a card.
#[inline]
fn read_cards(b: &[u8], mut at: usize) -> Option<(Cards, Columns, usize)> {
    let (mut cards, mut columns) = (Cards::new(), Columns::new());
    while b.get(at) == Some(&b' ') {
        at += 1;
        let (c, end) = card_token(b, at, b';')?;
        cards.push(c);
        columns.push(col(at));
        at = end;
    }
    Some((cards, columns, at))
}

/// The tricks of a trick line (`N. NAME:CARD ...`, or bare cards), pushed onto `tricks`;
/// `false` when the line is not one the fast path takes (the caller drops what was pushed).
#[inline]
fn read_tricks(line: &str, seats: &Seats<'_>, lineno: u32, tricks: &mut Vec<Trick>) -> bool {
    let b = line.as_bytes();
    let mut at = 0;
    while at < b.len() {
        // `N.`: one or two digits and a dot
        let ncol = col(at);
        let mut digits_end = at;
        while b.get(digits_end).is_some_and(u8::is_ascii_digit) {
            digits_end += 1;
        }
        if b.get(digits_end) != Some(&b'.') {
            return false;
        }
        let Some(number) = b
            .get(at..digits_end)
            .filter(|d| d.len() <= 2)
            .and_then(|d| number(d, MAX_TRICK))
        else {
            return false;
        };
        at = digits_end + 1;
        tricks.push(Trick {
            number: number as u32,
            plays: Plays::new(),
            short: false,
            column: ncol,
            meta: bare(lineno),
            unreadable: false,
        });
        let Some(t) = tricks.last_mut() else {
            return false;
        };
        let mut long = None;
        while b.get(at) == Some(&b' ') {
            at += 1;
            let start = at;
            let first = b.get(start).copied().unwrap_or(0);
            if first.is_ascii_digit() {
                let mut d = start;
                while b.get(d).is_some_and(u8::is_ascii_digit) {
                    d += 1;
                }
                if b.get(d) == Some(&b'.') {
                    break; // the next trick on the same line
                }
            }
            // the token, and its first colon
            let mut end = start;
            let mut colon = usize::MAX;
            while let Some(&c) = b.get(end) {
                if c == b' ' {
                    break;
                }
                if c == b':' && colon == usize::MAX {
                    colon = end;
                }
                end += 1;
            }
            let named = colon != usize::MAX;
            if *long.get_or_insert(named) != named {
                return false; // the forms mixed: E101's
            }
            let (player, card_at) = if named {
                let Some(p) = seats.get(b, start, colon, SEAT) else {
                    return false;
                };
                (Some(p), colon + 1)
            } else {
                (None, start)
            };
            let Some(card) = card(b, card_at, end) else {
                return false;
            };
            t.plays.push(Play {
                player,
                card,
                column: col(start),
            });
            at = end;
        }
        if t.plays.is_empty() {
            return false;
        }
        t.short = long == Some(false);
    }
    true
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
        eprintln!(
            "{} files: the fast path read {fast} lines, both paths agree",
            paths.len()
        );
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
            let edits: [&dyn Fn(&str) -> String; 15] = [
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
                // `widow:KD`, `discard Ann:` with no card, `trump hearts`
                &|l| l.replacen(": ", ":", 1),
                &|l| format!("{}:", l.split(':').next().unwrap_or("")),
                &|l| l.replacen(" H", " hearts", 1),
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
        eprintln!(
            "every preset and its mutations: the fast path read {fast} lines, both paths agree"
        );
        assert!(fast > 5000, "the fast path read {fast} lines");
    }
}
