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

    /// A two-letter token: rank then suit, either case.
    #[inline]
    fn from_pair(r: u8, s: u8) -> Option<Card> {
        let rank = RANK_OF.get(usize::from(r)).copied().unwrap_or(0xff);
        let suit = SUIT_OF.get(usize::from(s)).copied().unwrap_or(0xff);
        (rank < 13 && suit < 4).then(|| Card(suit * 13 + rank))
    }

    /// Read a token of printable ASCII without spaces as [`Card::parse`] reads it (the lexer's
    /// fast path, which has no `&str` to hand).
    #[inline]
    pub fn parse_printable(token: &[u8]) -> Option<Card> {
        match token {
            [r, s] => Card::from_pair(*r, *s),
            _ => parse_ascii(token),
        }
    }

    /// Read a card token; `None` when it is not one.
    ///
    /// A rank `A K Q J T 9 ... 2` (`10` for the ten) then a suit `S H D C` or `♠ ♥ ♦ ♣`, in
    /// any case; the suit symbol may also come first, as some servers print it. `JKH` and
    /// `JKL` are the jokers.
    #[inline]
    pub fn parse(token: &str) -> Option<Card> {
        if let [r, s] = token.as_bytes() {
            return Card::from_pair(*r, *s);
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

/// A suit's name in words ("spades"); "no suit" for anything else.
pub fn suit_name(suit: i32) -> &'static str {
    usize::try_from(suit)
        .ok()
        .and_then(|s| SUIT_WORDS.get(s))
        .copied()
        .unwrap_or("no suit")
}

/// A suit's letter ("S"); "?" for anything else.
pub fn suit_letter(suit: i32) -> &'static str {
    match suit {
        0 => "S",
        1 => "H",
        2 => "D",
        3 => "C",
        _ => "?",
    }
}

/// The other suit of the same colour: spades-clubs, hearts-diamonds.
pub const SAME_COLOUR: [u8; 4] = [3, 2, 1, 0];
const JACK_RANK: u8 = 9;

/// A set of cards as a bit mask: bit `c` for card `c`.
pub type CardMask = u64;

/// What each card is worth toward Game: ace 4, king 3, queen 2, jack 1, ten 10.
#[allow(clippy::indexing_slicing)] // evaluated at compile time, over constants only
pub const GAME_COUNT: [u8; 54] = {
    let mut t = [0u8; 54];
    let mut c = 0;
    while c < 52 {
        t[c] = match c % 13 {
            12 => 4,
            11 => 3,
            10 => 2,
            9 => 1,
            8 => 10,
            _ => 0,
        };
        c += 1;
    }
    t
};

impl Card {
    /// The printed suit, 0-3; the jokers 4.
    pub fn suit(self) -> i32 {
        if self.0 < 52 {
            i32::from(self.0 / 13)
        } else {
            4
        }
    }

    /// The rank, 0 (two) to 12 (ace); the jokers 13 (high) and 14 (low).
    pub fn rank(self) -> i32 {
        if self.0 < 52 {
            i32::from(self.0 % 13)
        } else {
            13 + i32::from(self.0 - 52)
        }
    }

    /// This card's bit in a [`CardMask`].
    pub fn bit(self) -> CardMask {
        1u64 << self.0
    }

    /// The card of `rank` (0-12) in `suit` (0-3).
    pub fn of(rank: u8, suit: u8) -> Card {
        Card((suit % 4) * 13 + rank % 13)
    }

    /// Whether this card is in `deck` (the jokers only in the 54-card deck).
    pub fn in_deck(self, deck: Deck) -> bool {
        self.0 < 52 || deck == Deck::Jokers
    }
}

/// The cards of a mask, lowest first.
pub fn cards_of(mask: CardMask) -> impl Iterator<Item = Card> {
    let mut m = mask;
    std::iter::from_fn(move || {
        if m == 0 {
            return None;
        }
        let c = m.trailing_zeros() as u8;
        m &= m - 1;
        Some(Card(c))
    })
}

/// Which cards beyond the plain suits are trumps: the deck's shape as play sees it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum Deck {
    /// 52 cards, ace high, each card in its printed suit.
    #[default]
    Plain,
    /// 52 cards, and the jick (the jack of trump's colour) a trump just below the jack (`jick=on`).
    Jick,
    /// 54 cards: two jokers, and the off-jack and both jokers trumps below the jack (`deck=54`).
    Jokers,
}

impl Deck {
    /// Every deck shape, in the order of [`Deck::code`].
    pub const ALL: [Deck; 3] = [Deck::Plain, Deck::Jick, Deck::Jokers];

    /// The cards in the deck.
    pub fn size(self) -> u32 {
        if self == Deck::Jokers { 54 } else { 52 }
    }

    /// Whether the jack of trump's colour is a trump (the jick, or the off-jack of the 54 cards).
    pub fn off_jack_trump(self) -> bool {
        self != Deck::Plain
    }

    /// The name shown and written for this deck shape (`plain`, `jick`, `jokers`).
    pub fn code(self) -> &'static str {
        match self {
            Deck::Plain => "plain",
            Deck::Jick => "jick",
            Deck::Jokers => "jokers",
        }
    }

    /// The deck shape named `code`.
    pub fn from_code(code: &str) -> Option<Deck> {
        Deck::ALL.into_iter().find(|d| d.code() == code)
    }
}

/// The off-jack of `trump`: the jack of the other suit of trump's colour (smear's jick).
pub fn off_jack(trump: u8) -> Card {
    Card::of(
        JACK_RANK,
        SAME_COLOUR
            .get(usize::from(trump % 4))
            .copied()
            .unwrap_or(0),
    )
}

/// The trumps of `trump`, highest first: A K Q J (the jick, or off-J JKH JKL with the
/// 54-card deck) T ... 2.
pub fn trump_order(trump: u8, deck: Deck) -> Vec<Card> {
    let plain: Vec<Card> = (0..13u8).rev().map(|r| Card::of(r, trump)).collect();
    if deck == Deck::Plain {
        return plain;
    }
    let mut out: Vec<Card> = plain.iter().take(4).copied().collect();
    out.push(off_jack(trump));
    if deck == Deck::Jokers {
        out.extend([JOKER_HIGH, JOKER_LOW]);
    }
    out.extend(plain.iter().skip(4).copied());
    out
}

/// How every card plays under one trump suit (or none yet) and one deck: its suit in play,
/// its strength among the trumps, and each suit's cards in play. One definition of trump
/// order and effective suit, read by the engine, the bots and the replay alike.
#[derive(Clone, Debug)]
pub struct TrumpTable {
    suit: [i8; 54],
    strength: [i8; 54],
    masks: [CardMask; 4],
    /// The trump suit (-1: not known).
    pub trump: i32,
}

impl TrumpTable {
    fn build(trump: i32, deck: Deck) -> TrumpTable {
        let mut t = TrumpTable {
            suit: [4; 54],
            strength: [-1; 54],
            masks: [0; 4],
            trump,
        };
        let known = (0..4).contains(&trump);
        let tr = trump.clamp(0, 3) as u8;
        let order = if known {
            trump_order(tr, deck)
        } else {
            Vec::new()
        };
        for c in 0..54u8 {
            let card = Card(c);
            let mut s = card.suit();
            let extra = (c >= 52 && deck == Deck::Jokers)
                || (card == off_jack(tr) && deck.off_jack_trump());
            if known && extra {
                s = trump;
            }
            if let Some(slot) = t.suit.get_mut(usize::from(c)) {
                *slot = s as i8;
            }
            if let Some(pos) = order.iter().position(|&o| o == card) {
                if let Some(slot) = t.strength.get_mut(usize::from(c)) {
                    *slot = (order.len() - 1 - pos) as i8;
                }
            }
            if let Some(m) = t.masks.get_mut(s.clamp(0, 4) as usize) {
                *m |= card.bit();
            }
        }
        t
    }

    /// The table for `trump` (-1 or anything outside 0-3: not known) and deck.
    pub fn get(trump: i32, deck: Deck) -> &'static TrumpTable {
        static TABLES: std::sync::LazyLock<Vec<TrumpTable>> = std::sync::LazyLock::new(|| {
            Deck::ALL
                .into_iter()
                .flat_map(|d| {
                    (0..5).map(move |t| TrumpTable::build(if t == 4 { -1 } else { t }, d))
                })
                .collect()
        });
        let t = if (0..4).contains(&trump) { trump } else { 4 };
        let i = deck as usize * 5 + t as usize;
        #[allow(clippy::indexing_slicing)] // i < 15 by construction
        &TABLES[i]
    }

    /// The suit `card` belongs to in play: 0-3, or 4 for a joker while it is no trump.
    #[inline]
    pub fn suit(&self, card: Card) -> i32 {
        i32::from(self.suit.get(usize::from(card.0)).copied().unwrap_or(4))
    }

    /// How high `card` ranks among the trumps (the two of trumps 0); -1 if it is no trump.
    #[inline]
    pub fn strength(&self, card: Card) -> i32 {
        i32::from(
            self.strength
                .get(usize::from(card.0))
                .copied()
                .unwrap_or(-1),
        )
    }

    /// Whether `card` is a trump.
    #[inline]
    pub fn is_trump(&self, card: Card) -> bool {
        self.strength(card) >= 0
    }

    /// The cards that count as `suit` in play (0 for anything but a suit).
    #[inline]
    pub fn mask(&self, suit: i32) -> CardMask {
        if (0..4).contains(&suit) {
            self.masks.get(suit as usize).copied().unwrap_or(0)
        } else {
            0
        }
    }

    /// The trumps (0 while trump is not known).
    #[inline]
    pub fn trumps(&self) -> CardMask {
        self.mask(self.trump)
    }

    /// What `card` is worth in a trick whose led suit is `led`: a trump above every other card,
    /// then a card of the led suit by rank, then nothing (-1).
    #[inline]
    pub fn in_trick(&self, card: Card, led: i32) -> i32 {
        let s = self.strength(card);
        if s >= 0 {
            100 + s
        } else if self.suit(card) == led {
            card.rank()
        } else {
            -1
        }
    }

    /// The position in play order of the card that takes a trick (0 for an empty trick).
    pub fn winner_pos(&self, cards: impl IntoIterator<Item = Card>) -> usize {
        let mut it = cards.into_iter().enumerate();
        let Some((_, first)) = it.next() else {
            return 0;
        };
        let led = self.suit(first);
        let (mut best, mut pos) = (self.in_trick(first, led), 0);
        for (i, c) in it {
            let v = self.in_trick(c, led);
            if v > best {
                best = v;
                pos = i;
            }
        }
        pos
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
    fn a_two_byte_token_that_is_no_card_is_none_whatever_its_bytes() {
        // every pair, including ranks and suits far out of range (no overflow on the way)
        for r in 0..=255u8 {
            for t in 0..=255u8 {
                let c = Card::parse_printable(&[r, t]);
                assert_eq!(
                    c.is_some(),
                    RANK_OF.get(usize::from(r)).is_some_and(|&x| x < 13)
                        && SUIT_OF.get(usize::from(t)).is_some_and(|&x| x < 4)
                );
            }
        }
    }

    #[test]
    fn names_round_trip() {
        for i in 0..54u8 {
            let c = Card::new(i).map(Card::name);
            assert_eq!(c.and_then(Card::parse).map(Card::index), Some(i));
        }
    }

    #[test]
    fn the_jick_is_a_trump_below_the_jack() {
        let hearts = TrumpTable::get(1, Deck::Jick);
        let Some(jd) = Card::parse("JD") else {
            return;
        };
        assert_eq!(
            hearts.suit(jd),
            1,
            "the jick follows hearts, never diamonds"
        );
        let order: Vec<&str> = trump_order(1, Deck::Jick)
            .into_iter()
            .map(Card::name)
            .collect();
        assert_eq!(order[..6], ["AH", "KH", "QH", "JH", "JD", "TH"]);
        assert_eq!(hearts.mask(2) & jd.bit(), 0);
        assert_eq!(Card::parse("2H").map(|c| hearts.strength(c)), Some(0));
        // a jick led wins over the ten of trumps; the jack takes it
        let t = |s: &str| s.split(' ').filter_map(Card::parse).collect::<Vec<_>>();
        assert_eq!(hearts.winner_pos(t("TH JD 2H AD")), 1);
        assert_eq!(hearts.winner_pos(t("JD JH")), 1);
        // no jokers in the 52-card deck, and the plain deck leaves the jack of diamonds alone
        assert!(!JOKER_HIGH.in_deck(Deck::Jick));
        assert_eq!(TrumpTable::get(1, Deck::Plain).suit(jd), 2);
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
