//! The Pitch log notation (version 1, with the extensions of docs/notation.md): the records
//! a log is read into, the parser that reads them, and the canonical writer.
//!
//! Records hold what the log says, with its line and column, and nothing judged: whether a
//! card was legal is the engine's business. Player and team names are interned per game
//! ([`Name`] indexes [`Game::names`]), so a play costs no allocation.

pub mod lexer;
pub mod parser;
pub mod writer;

use crate::cards::{Card, Suit};

/// The notation version this crate reads and writes.
pub const NOTATION_VERSION: u32 = 1;

/// The largest hand number (`hand N`); a game this long does not exist at a table.
pub const MAX_HAND: i64 = 9_999;
/// The largest trick number (`N.`) and trick named in `revoke NAME trick N`.
pub const MAX_TRICK: i64 = 99;
/// The largest magnitude of a number in a `score` or `total` line.
pub const MAX_SCORE: i64 = 99_999;

/// A player or team name, as an index into its game's [`Game::names`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Name(pub u32);

/// What every statement carries: its line, the comment lines just before it, and the
/// comment at its end.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Meta {
    /// The 1-based line of the statement.
    pub line: u32,
    /// Whole-line `%` comments just before the statement (text after the `%`).
    pub comments: Vec<String>,
    /// The `%` comment at the end of the statement's line, if any.
    pub remark: Option<String>,
}

/// A `[Name "value"]` pair.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Tag {
    /// The tag's name, `[A-Za-z][A-Za-z0-9_]*`.
    pub name: String,
    /// The value, unescaped.
    pub value: String,
    /// Line and comments.
    pub meta: Meta,
}

/// A statement naming one player or team: `dealer NAME`, `winner KEY`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Named {
    /// Who is named.
    pub name: Name,
    /// The name's column.
    pub column: u32,
    /// Line and comments.
    pub meta: Meta,
}

/// A list of cards, inline up to a full hand of a 54-card deal.
pub type Cards = smallvec::SmallVec<[Card; 16]>;
/// The columns of a list of cards.
pub type Columns = smallvec::SmallVec<[u32; 16]>;

/// A player's cards in a `deal`, `discard` or `draw` statement.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Holding {
    /// Whose cards.
    pub player: Name,
    /// The cards, in the order written.
    pub cards: Cards,
    /// Each card's column.
    pub columns: Columns,
    /// The player name's column.
    pub column: u32,
}

/// A `deal` statement.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Deal {
    /// One holding per player named.
    pub holdings: Vec<Holding>,
    /// Line and comments.
    pub meta: Meta,
    /// Players with a card token that could not be read.
    pub unreadable: Vec<Name>,
    /// A holding was dropped (an unknown player, a bad shape).
    pub incomplete: bool,
}

/// A `widow:` statement: the undealt cards.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Widow {
    /// The cards.
    pub cards: Cards,
    /// Each card's column.
    pub columns: Columns,
    /// Line and comments.
    pub meta: Meta,
}

/// One word of the auction: `pass`, a number, a top-bid name, `pitch [SUIT]`, `sells`, `keeps`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Bid {
    /// Who spoke.
    pub player: Name,
    /// The word, lower case (`pitch H` keeps its suit letter upper case), as an index into
    /// [`Game::words`].
    pub word: Name,
    /// The player name's column.
    pub column: u32,
}

/// A `bids` statement.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Bids {
    /// The bids in the order spoken.
    pub bids: Vec<Bid>,
    /// Line and comments.
    pub meta: Meta,
    /// A bid could not be read (E101 or E104).
    pub unreadable: bool,
}

/// A `trump SUIT` statement.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TrumpLine {
    /// The suit named.
    pub suit: Suit,
    /// The suit's column.
    pub column: u32,
    /// Line and comments.
    pub meta: Meta,
}

/// Which exchange statement.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ExchangeKind {
    /// `discard NAME: CARDS`.
    Discard,
    /// `draw NAME: CARDS`.
    Draw,
}

impl ExchangeKind {
    /// The keyword.
    pub fn word(self) -> &'static str {
        match self {
            ExchangeKind::Discard => "discard",
            ExchangeKind::Draw => "draw",
        }
    }
}

/// A `discard` or `draw` statement.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Exchange {
    /// Discard or draw.
    pub kind: ExchangeKind,
    /// Whose cards, and which.
    pub holding: Holding,
    /// Line and comments.
    pub meta: Meta,
}

/// `revoke NAME [trick N]`: a revoke called at the table.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RevokeCall {
    /// Who is accused.
    pub player: Name,
    /// The trick named, if any.
    pub trick: Option<u32>,
    /// The name's column.
    pub column: u32,
    /// Line and comments.
    pub meta: Meta,
}

/// One card played; `player` is `None` in the short trick form.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Play {
    /// Who played it, when written `NAME:CARD`.
    pub player: Option<Name>,
    /// The card.
    pub card: Card,
    /// The token's column.
    pub column: u32,
}

/// The plays of a trick, inline up to ten (a trick has one card per seat).
pub type Plays = smallvec::SmallVec<[Play; 10]>;

/// One trick.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Trick {
    /// The trick number as written.
    pub number: u32,
    /// The cards in the order played, leader first.
    pub plays: Plays,
    /// Written in the short form (bare cards).
    pub short: bool,
    /// The trick number's column.
    pub column: u32,
    /// Line and comments (several tricks on one line share the line).
    pub meta: Meta,
    /// A card token could not be read (E103).
    pub unreadable: bool,
}

/// Which score line.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ScoreKind {
    /// `score`: this hand's points.
    Score,
    /// `total`: the running totals.
    Total,
}

impl ScoreKind {
    /// The keyword.
    pub fn word(self) -> &'static str {
        match self {
            ScoreKind::Score => "score",
            ScoreKind::Total => "total",
        }
    }
}

/// One `KEY N` entry of a score line.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ScoreEntry {
    /// A player or team.
    pub key: Name,
    /// The number written, within ±[`MAX_SCORE`].
    pub value: i32,
    /// The key's column.
    pub column: u32,
    /// The number's column, and its length in characters (where `auditor fix` rewrites it).
    pub value_column: u32,
    pub value_len: u32,
}

/// A `score` or `total` line as the score keeper wrote it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ScoreLine {
    /// Score or total.
    pub kind: ScoreKind,
    /// The entries in the order written.
    pub entries: Vec<ScoreEntry>,
    /// Line and comments.
    pub meta: Meta,
    /// An entry could not be read.
    pub unreadable: bool,
    /// The column just after the statement's last character (before any comment).
    pub end_column: u32,
}

/// A `note "TEXT"` statement.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Note {
    /// The text, unescaped.
    pub text: String,
    /// Line and comments.
    pub meta: Meta,
}

/// One deal of the cards, from `hand N` to the next `hand` or game.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Hand {
    /// The hand number as written (or the next number, when unreadable).
    pub number: u32,
    /// Line and comments of the `hand` line.
    pub meta: Meta,
    /// `dealer NAME`.
    pub dealer: Option<Named>,
    /// `deal ...`.
    pub deal: Option<Deal>,
    /// `widow: ...`.
    pub widow: Option<Widow>,
    /// `bids ...`.
    pub bids: Option<Bids>,
    /// `trump SUIT`.
    pub trump: Option<TrumpLine>,
    /// Discards and draws in the order written.
    pub exchanges: Vec<Exchange>,
    /// Revokes called.
    pub revokes: Vec<RevokeCall>,
    /// The tricks in the order written.
    pub tricks: Vec<Trick>,
    /// `score ...`.
    pub score: Option<ScoreLine>,
    /// `total ...`.
    pub total: Option<ScoreLine>,
    /// Notes.
    pub notes: Vec<Note>,
    /// A `misdeal` line (its line and comments).
    pub misdeal: Option<Meta>,
    /// The statements that unknown lines of this hand were a misspelling of (`bisd`: `bids`),
    /// each already an E102: a statement missing for that reason is not reported again.
    pub misread: Vec<&'static str>,
}

/// A tag block and the hands that follow it.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Game {
    /// The player and team names that records of this game refer to.
    pub names: Vec<String>,
    /// The bid words the game's auctions use (`pass`, `2`, `smudge` ...).
    pub words: Vec<String>,
    /// The tags in the order written.
    pub tags: Vec<Tag>,
    /// The hands in the order written.
    pub hands: Vec<Hand>,
    /// `winner KEY`.
    pub winner: Option<Named>,
    /// Comment lines after the game's last statement.
    pub trailing_comments: Vec<String>,
    /// 1-based position of the game in its file.
    pub index: u32,
    /// The first line of the game.
    pub line: u32,
    /// The last line of a statement of the game.
    pub end_line: u32,
}

impl Game {
    /// The text of a name.
    pub fn name_of(&self, name: Name) -> &str {
        self.names.get(name.0 as usize).map_or("", String::as_str)
    }

    /// The text of a bid word.
    pub fn word_of(&self, word: Name) -> &str {
        self.words.get(word.0 as usize).map_or("", String::as_str)
    }

    /// Intern a bid word, returning its index.
    pub fn intern_word(&mut self, word: &str) -> Name {
        intern_into(&mut self.words, word)
    }

    /// The value of the first tag called `name`, if any.
    pub fn tag(&self, name: &str) -> Option<&str> {
        self.tags
            .iter()
            .find(|t| t.name == name)
            .map(|t| t.value.as_str())
    }

    /// Intern `name`, returning its index.
    pub fn intern(&mut self, name: &str) -> Name {
        intern_into(&mut self.names, name)
    }
}

/// The index of `text` in `list`, added at the end when it is not there yet.
fn intern_into(list: &mut Vec<String>, text: &str) -> Name {
    if let Some(i) = list.iter().position(|t| t == text) {
        return Name(lexer::to_u32(i));
    }
    list.push(text.to_string());
    Name(lexer::to_u32(list.len() - 1))
}

pub use crate::findings::{Code, Finding};
