//! The canonical writer: one statement per line, canonical card tokens, comments kept.
//!
//! Parsing what it writes gives the same records back, and writing those gives the same
//! text: `auditor fmt` is idempotent, and a game's key is the hash of this text.

use super::lexer::quote_into;
use super::{Game, Hand, Holding, Meta};
use crate::cards::Card;
use std::fmt::Write;

fn comments(out: &mut String, meta: &Meta) {
    for c in &meta.comments {
        out.push('%');
        out.push_str(c);
        out.push('\n');
    }
}

fn end(out: &mut String, meta: &Meta) {
    if let Some(r) = &meta.remark {
        out.push_str("  %");
        out.push_str(r);
    }
    out.push('\n');
}

fn cards(out: &mut String, cards: &[Card]) {
    for (i, c) in cards.iter().enumerate() {
        if i > 0 {
            out.push(' ');
        }
        out.push_str(c.name());
    }
}

fn holding(out: &mut String, g: &Game, h: &Holding) {
    out.push_str(g.name_of(h.player));
    out.push_str(": ");
    cards(out, &h.cards);
}

/// Append the canonical lines of one hand.
pub fn write_hand(out: &mut String, g: &Game, h: &Hand) {
    comments(out, &h.meta);
    let _ = write!(out, "hand {}", h.number);
    end(out, &h.meta);
    if let Some(d) = &h.dealer {
        comments(out, &d.meta);
        out.push_str("dealer ");
        out.push_str(g.name_of(d.name));
        end(out, &d.meta);
    }
    if let Some(d) = &h.deal {
        comments(out, &d.meta);
        out.push_str("deal ");
        for (i, x) in d.holdings.iter().enumerate() {
            if i > 0 {
                out.push_str("; ");
            }
            holding(out, g, x);
        }
        end(out, &d.meta);
    }
    if let Some(w) = &h.widow {
        comments(out, &w.meta);
        out.push_str("widow: ");
        cards(out, &w.cards);
        end(out, &w.meta);
    }
    if let Some(b) = &h.bids {
        comments(out, &b.meta);
        out.push_str("bids ");
        for (i, bid) in b.bids.iter().enumerate() {
            if i > 0 {
                out.push_str(", ");
            }
            out.push_str(g.name_of(bid.player));
            out.push(' ');
            out.push_str(g.word_of(bid.word));
        }
        end(out, &b.meta);
    }
    if let Some(t) = &h.trump {
        comments(out, &t.meta);
        out.push_str("trump ");
        out.push(t.suit.letter());
        end(out, &t.meta);
    }
    for x in &h.exchanges {
        comments(out, &x.meta);
        out.push_str(x.kind.word());
        out.push(' ');
        holding(out, g, &x.holding);
        end(out, &x.meta);
    }
    for r in &h.revokes {
        comments(out, &r.meta);
        out.push_str("revoke ");
        out.push_str(g.name_of(r.player));
        if let Some(t) = r.trick {
            let _ = write!(out, " trick {t}");
        }
        end(out, &r.meta);
    }
    for t in &h.tricks {
        comments(out, &t.meta);
        let _ = write!(out, "{}.", t.number);
        for p in &t.plays {
            out.push(' ');
            if let Some(who) = p.player {
                out.push_str(g.name_of(who));
                out.push(':');
            }
            out.push_str(p.card.name());
        }
        end(out, &t.meta);
    }
    for s in [&h.score, &h.total].into_iter().flatten() {
        comments(out, &s.meta);
        out.push_str(s.kind.word());
        out.push(' ');
        for (i, e) in s.entries.iter().enumerate() {
            if i > 0 {
                out.push_str(", ");
            }
            let _ = write!(out, "{} {}", g.name_of(e.key), e.value);
        }
        end(out, &s.meta);
    }
    for n in &h.notes {
        comments(out, &n.meta);
        out.push_str("note ");
        quote_into(out, &n.text);
        end(out, &n.meta);
    }
    if let Some(m) = &h.misdeal {
        comments(out, m);
        out.push_str("misdeal");
        end(out, m);
    }
}

/// Append the canonical text of one game: tags, a blank line, hands separated by blank lines.
pub fn write_game(out: &mut String, g: &Game) {
    for t in &g.tags {
        comments(out, &t.meta);
        out.push('[');
        out.push_str(&t.name);
        out.push(' ');
        quote_into(out, &t.value);
        out.push(']');
        end(out, &t.meta);
    }
    for h in &g.hands {
        out.push('\n');
        write_hand(out, g, h);
    }
    if let Some(w) = &g.winner {
        out.push('\n');
        comments(out, &w.meta);
        out.push_str("winner ");
        out.push_str(g.name_of(w.name));
        end(out, &w.meta);
    }
    for c in &g.trailing_comments {
        out.push('%');
        out.push_str(c);
        out.push('\n');
    }
    if g.tags.is_empty()
        && g.hands.is_empty()
        && g.winner.is_none()
        && g.trailing_comments.is_empty()
    {
        out.push('\n');
    }
}

/// The canonical text of several games, separated by blank lines.
pub fn write_games<'a>(games: impl IntoIterator<Item = &'a Game>) -> String {
    let mut out = String::new();
    for (i, g) in games.into_iter().enumerate() {
        if i > 0 {
            out.push('\n');
        }
        write_game(&mut out, g);
    }
    out
}

/// The game's key: a 128-bit BLAKE2b hash of its canonical text, in hex, and nothing else.
pub fn game_key(g: &Game) -> String {
    use blake2::digest::{Update, VariableOutput};
    let mut text = String::new();
    write_game(&mut text, g);
    let mut out = [0u8; 16];
    let mut h = match blake2::Blake2bVar::new(16) {
        Ok(h) => h,
        Err(_) => return String::new(),
    };
    h.update(text.as_bytes());
    if h.finalize_variable(&mut out).is_err() {
        return String::new();
    }
    let mut hex = String::with_capacity(32);
    for b in out {
        let _ = write!(hex, "{b:02x}");
    }
    hex
}

#[cfg(test)]
#[allow(clippy::indexing_slicing)]
mod tests {
    use super::super::parser::parse_all;
    use super::*;

    const TEXT: &str = "[Rules \"auction\"]\n[Players \"Ann Bob Cal\"]\n\n% before\nhand 1  % first\n\
        dealer Ann\nbids Bob 2, Cal pass, Ann pass\n1. Bob:AS Cal:3S Ann:9S\n2. AS 3S\nscore Ann 0, Bob 1, Cal -2\n\
        note \"50% \\\"luck\\\"\"  % really\n\nwinner Bob\n% after\n";

    #[test]
    fn canonical_text_round_trips() {
        let (games, findings) = parse_all(TEXT.as_bytes(), "t");
        assert!(findings.is_empty(), "{findings:?}");
        let text = write_games(&games);
        assert_eq!(text, TEXT);
        let (again, _) = parse_all(text.as_bytes(), "t");
        assert_eq!(write_games(&again), text);
    }

    #[test]
    fn spellings_become_canonical() {
        let t = "[Rules \"auction\"]\n[Players \"Ann Bob\"]\nhand 1\n1. Ann:10h Bob:♠q\n";
        let (games, _) = parse_all(t.as_bytes(), "t");
        assert!(write_games(&games).contains("1. Ann:TH Bob:QS\n"));
    }

    #[test]
    fn key_is_the_hash_of_the_text() {
        let (games, _) = parse_all(TEXT.as_bytes(), "t");
        let k = game_key(&games[0]);
        assert_eq!(k.len(), 32);
        let (other, _) = parse_all(TEXT.replace("Cal -2", "Cal -3").as_bytes(), "t");
        assert_ne!(k, game_key(&other[0]));
    }
}
