//! Cards as small integers: `suit * 13 + rank`, rank 0 the two and 12 the ace, suits
//! spades 0, hearts 1, diamonds 2, clubs 3; the jokers of the ten-point presets are 52 (high)
//! and 53 (low). The same numbering as `auditor.cards`, so a card crosses into Python as an int.

/// The suit letters in suit order.
pub const SUIT_LETTERS: [u8; 4] = *b"SHDC";
/// The suit symbols in suit order (accepted on input, never written).
pub const SUIT_SYMBOLS: [char; 4] = ['♠', '♥', '♦', '♣'];
const RANK_LETTERS: [u8; 13] = *b"23456789TJQKA";
const SUIT_WORDS: [&str; 4] = ["spades", "hearts", "diamonds", "clubs"];

/// One card of the 54-card deck.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Card(u8);

/// One of the four suits.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Suit(u8);

impl Suit {
    /// The suit numbered `n` (0 spades ... 3 clubs), if there is one.
    pub fn new(n: u8) -> Option<Suit> {
        (n < 4).then_some(Suit(n))
    }

    /// The suit's number, 0 to 3.
    pub fn index(self) -> u8 {
        self.0
    }

    /// The canonical letter: `S`, `H`, `D` or `C`.
    pub fn letter(self) -> char {
        SUIT_LETTERS
            .get(usize::from(self.0))
            .map_or('?', |&b| char::from(b))
    }

    /// A suit as a letter, a symbol or a word, in any case: `S`, `♠`, `spades`.
    pub fn parse_word(text: &str) -> Option<Suit> {
        let mut chars = text.chars();
        if let (Some(c), None) = (chars.next(), chars.next()) {
            // Unicode case mapping, as Python's str.upper(): the long s `ſ` is an `S`
            let mut upper = c.to_uppercase();
            if let (Some(u), None) = (upper.next(), upper.next()) {
                if let Some(s) = suit_of_char(u) {
                    return Some(s);
                }
            }
        }
        SUIT_WORDS
            .iter()
            .position(|w| text.eq_ignore_ascii_case(w))
            .and_then(|i| Suit::new(i as u8))
    }
}

fn suit_of_char(c: char) -> Option<Suit> {
    if c.is_ascii() {
        return suit_of_byte(c as u8);
    }
    SUIT_SYMBOLS
        .iter()
        .position(|&s| s == c)
        .and_then(|i| Suit::new(i as u8))
}

/// Rank (0-12) and suit (0-3) of each ASCII byte, either case; 0xff for none.
const RANK_OF: [u8; 256] = byte_table(&RANK_LETTERS);
const SUIT_OF: [u8; 256] = byte_table(&SUIT_LETTERS);

#[allow(clippy::indexing_slicing)] // evaluated at compile time, over constants only
const fn byte_table(letters: &[u8]) -> [u8; 256] {
    let mut t = [0xffu8; 256];
    let mut i = 0;
    while i < letters.len() {
        let b = letters[i];
        t[b as usize] = i as u8;
        t[b.to_ascii_lowercase() as usize] = i as u8;
        i += 1;
    }
    t
}

fn suit_of_byte(b: u8) -> Option<Suit> {
    Suit::new(SUIT_OF.get(usize::from(b)).copied().unwrap_or(0xff))
}

fn rank_of_byte(b: u8) -> Option<u8> {
    RANK_OF.get(usize::from(b)).copied().filter(|&r| r < 13)
}

/// The high joker.
pub const JOKER_HIGH: Card = Card(52);
/// The low joker.
pub const JOKER_LOW: Card = Card(53);

impl Card {
    /// The card numbered `n` (0 to 53), if there is one.
    pub fn new(n: u8) -> Option<Card> {
        (n < 54).then_some(Card(n))
    }

    /// The card's number, 0 to 53.
    pub fn index(self) -> u8 {
        self.0
    }

    /// The canonical token: `AS`, `TD`, `JKH`.
    pub fn name(self) -> &'static str {
        CARD_NAMES.get(usize::from(self.0)).copied().unwrap_or("??")
    }

    /// Read a card token; `None` when it is not one.
    ///
    /// A rank `A K Q J T 9 ... 2` (`10` for the ten) then a suit `S H D C` or `♠ ♥ ♦ ♣`, in
    /// any case; the suit symbol may also come first, as some servers print it. `JKH` and
    /// `JKL` are the jokers.
    #[inline]
    pub fn parse(token: &str) -> Option<Card> {
        if let [r, s] = token.as_bytes() {
            let rank = RANK_OF.get(usize::from(*r)).copied().unwrap_or(0xff);
            let suit = SUIT_OF.get(usize::from(*s)).copied().unwrap_or(0xff);
            return (rank < 13 && suit < 4).then(|| Card(suit * 13 + rank));
        }
        let t = token.trim_matches(crate::notation::lexer::is_space);
        if t.is_ascii() {
            return parse_ascii(t.as_bytes());
        }
        // Unicode case mapping, as Python's str.upper(), for the rare non-ASCII token.
        let upper: String = t.to_uppercase();
        let mut chars: Vec<char> = upper.chars().collect();
        if chars.len() < 2 {
            return None;
        }
        if let Some(&first) = chars.first() {
            if SUIT_SYMBOLS.contains(&first) {
                chars.rotate_left(1);
            }
        }
        let (suit_char, rank) = chars.split_last()?;
        let suit = suit_of_char(*suit_char)?;
        let rank = match rank {
            ['1', '0'] => 8,
            [r] if r.is_ascii() => rank_of_byte(*r as u8)?,
            _ => return None,
        };
        Card::new(suit.0 * 13 + rank)
    }
}

fn parse_ascii(t: &[u8]) -> Option<Card> {
    match t {
        [r, s] => Card::new(suit_of_byte(*s)?.0 * 13 + rank_of_byte(*r)?),
        [a, b, c] if a.eq_ignore_ascii_case(&b'J') && b.eq_ignore_ascii_case(&b'K') => {
            match c.to_ascii_uppercase() {
                b'H' => Some(JOKER_HIGH),
                b'L' => Some(JOKER_LOW),
                _ => None,
            }
        }
        [b'1', b'0', s] => Card::new(suit_of_byte(*s)?.0 * 13 + 8),
        _ => None,
    }
}

/// Canonical names indexed by card number.
pub const CARD_NAMES: [&str; 54] = [
    "2S", "3S", "4S", "5S", "6S", "7S", "8S", "9S", "TS", "JS", "QS", "KS", "AS", "2H", "3H", "4H",
    "5H", "6H", "7H", "8H", "9H", "TH", "JH", "QH", "KH", "AH", "2D", "3D", "4D", "5D", "6D", "7D",
    "8D", "9D", "TD", "JD", "QD", "KD", "AD", "2C", "3C", "4C", "5C", "6C", "7C", "8C", "9C", "TC",
    "JC", "QC", "KC", "AC", "JKH", "JKL",
];

#[cfg(test)]
#[allow(clippy::indexing_slicing)]
mod tests {
    use super::*;

    fn n(t: &str) -> Option<u8> {
        Card::parse(t).map(Card::index)
    }

    #[test]
    fn tokens_as_python_reads_them() {
        assert_eq!(n("2s"), Some(0));
        assert_eq!(n("10C"), Some(47));
        assert_eq!(n("♥A"), Some(25));
        assert_eq!(n("A♥"), Some(25));
        assert_eq!(n("JKL"), Some(53));
        assert_eq!(n("jkh"), Some(52));
        assert_eq!(n("1S"), None);
        assert_eq!(n(""), None);
        assert_eq!(n("AX"), None);
        assert_eq!(n("♥10"), Some(21));
        assert_eq!(n("QH "), Some(23));
    }

    #[test]
    fn names_round_trip() {
        for i in 0..54u8 {
            let c = Card::new(i).map(Card::name);
            assert_eq!(c.and_then(Card::parse).map(Card::index), Some(i));
        }
    }

    #[test]
    fn suit_words() {
        assert_eq!(Suit::parse_word("h").map(Suit::index), Some(1));
        assert_eq!(Suit::parse_word("♣").map(Suit::index), Some(3));
        assert_eq!(Suit::parse_word("Spades").map(Suit::index), Some(0));
        assert_eq!(Suit::parse_word("X"), None);
        assert_eq!(Suit::parse_word("\u{17f}").map(Suit::index), Some(0));
    }
}
