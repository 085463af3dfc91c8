//! Input (E1xx): what a log says that cannot be read as the notation, or does not fit it.

use super::{DidYouMean, Listed, Shown, Spaced, TagsPresent};

violation! {
    /// A path given on the command line that cannot be read (made by the command, not the core).
    E100 {
        severity: Error,
        fix: None,
        section: "notation.md#bad-input-how-it-is-reported",
        title: "a path that does not exist or cannot be read",
        why: "Nothing in it could be audited.",
        example: "auditor audit missing.pitch",
    }
    NoSuchPath { path: String } => "no such file or folder: {path}",
    NoLogs { folder: String } => "no *.pitch files in the folder {folder}",
    Unreadable { path: String, reason: String } => "cannot read {path}: {reason}",
}

violation! {
    E101 {
        severity: Error,
        fix: None,
        section: "notation.md#statements",
        title: "syntax error: a statement that cannot be read",
        why: "The statement is skipped; the rest of the hand is still read, but what it said is lost.",
        example: "bids Bob, Cal pass          % Bob's bid has no word",
    }
    BadName { name: Shown, what: &'static str } => "{name} is not a valid {what} name",
    TagShape {} => "a tag pair is written [Name \"value\"]",
    BadDate { value: Shown } => "Date is written YYYY.MM.DD, not {value}",
    HandNumberRange { token: Shown, max: i64, read_as: u32 }
        => "hand number {token} is out of range: hands are numbered 1 to {max} (read as hand {read_as})",
    HandShape { read_as: u32 }
        => "a hand starts `hand N` with N a whole number (ASCII digits) (read as hand {read_as})",
    DealerShape {} => "write `dealer NAME`",
    HoldingsShape { statement: &'static str } => "{statement} lists NAME: CARDS, separated by ';'",
    HoldingName { statement: &'static str } => "{statement}: one player name before each ':'",
    EmptyBid {} => "an empty bid between commas",
    PitchSuit { token: Shown } => "{token} is not a suit (S H D C)",
    BidWord { token: Shown } => "{token} is not a bid word",
    BidShape {} => "each bid is NAME WORD (pass, a number, smudge, pitch, sells, keeps)",
    TrumpShape {} => "write `trump SUIT` with SUIT one of S H D C",
    OnePlayerPerLine { statement: &'static str } => "one player per {statement} line",
    RevokeTrickRange { token: Shown, max: i64 }
        => "trick {token} is out of range: tricks are numbered 1 to {max}",
    RevokeShape {} => "write `revoke NAME` or `revoke NAME trick N`",
    TrickDot { token: String }
        => "a trick number is followed by a dot: write `{token}.` (read as trick {token})",
    TrickShape {} => "a trick starts with its number and a dot: `1. Ann:AS Bob:3S ...`",
    TrickNumberRange { token: Shown, max: i64 }
        => "trick number {token} is out of range: tricks are numbered 1 to {max} (its cards are not read)",
    MixedForms { trick: u32 } => "trick {trick} mixes NAME:CARD and bare cards; use one form",
    SpaceAfterColon { play: Shown }
        => "no space may stand between a player's colon and the card: write {play}",
    EmptyTrick { trick: u32 } => "trick {trick} has no cards",
    ScoreEntryShape { statement: &'static str }
        => "each {statement} entry is KEY N (a player or team, then a whole number)",
    ScoreRange { token: Shown, statement: &'static str, max: i64 }
        => "{token} is out of range: a {statement} is a whole number from -{max} to {max}",
    NoteShape {} => "write `note \"TEXT\"` with the text in double quotes",
    MisdealShape {} => "`misdeal` takes nothing after it",
        WinnerShape {} => "write `winner NAME` (a player, or a team in partnership presets)",
    TooManyHands { max: i64 }
        => "the game already holds {max} hands, the most a game can number: this hand and the rest of the game are not read",
}

violation! {
    E102 {
        severity: Error,
        fix: None,
        section: "notation.md#statements",
        title: "unknown statement keyword",
        why: "A misspelt keyword means a whole statement is skipped.",
        example: "dealr Ann",
    }
    UnknownStatement { word: Shown, suggestion: DidYouMean, keywords: Listed<&'static str> }
        => "unknown statement {word} ({suggestion:+}expected one of: {keywords}, a trick, or a [Tag \"value\"] pair)",
    UpperCase { keyword: &'static str, word: Shown } => "keywords are lower case: write '{keyword}', not {word}",
}

violation! {
    E103 {
        severity: Error,
        fix: None,
        section: "notation.md#tricks",
        title: "bad card token",
        why: "A card that cannot be read is left out of its trick, so the hand cannot be replayed in full.",
        example: "1. Ann:AX Bob:3S Cal:9S Dee:KS",
    }
    BadCard { token: Shown, suggestion: DidYouMean }
        => "bad card token {token}{suggestion}: expected a rank A K Q J T 9-2 then a suit S H D C",
}

violation! {
    E104 {
        severity: Error,
        fix: None,
        section: "notation.md#games-and-tags",
        title: "unknown player",
        why: "Every name must be seated in the Players tag (or be a team of the Teams tag in score lines).",
        example: "dealer Eve                  % Players \"Ann Bob Cal Dee\"",
    }
    UnknownName { what: &'static str, name: Shown, known: Spaced<String>, suggestion: DidYouMean }
        => "unknown {what} {name} (this game has: {known:#}){suggestion:#}",
}

violation! {
    E105 {
        severity: Error,
        fix: None,
        section: "rules.md#overriding-a-rule",
        title: "bad Rules tag, or a rule option this version does not support",
        why: "Without a rule set the game cannot be audited.",
        example: "[Rules \"auction game=seven\"]",
    }
    BadRules { problem: String } => "bad Rules tag: {problem}",
    Unsupported { setting: String }
        => "rule option {setting} is not supported by this version of the auditor: the game is parsed and stored but not audited",
}

violation! {
    E106 {
        severity: Error,
        fix: None,
        section: "notation.md#hands",
        title: "hand numbering: hands count 1, 2, 3 ... within a game",
        why: "A gap or repeat often means a hand was lost or pasted twice.",
        example: "hand 1 ... hand 3",
    }
    FirstHand { number: u32 } compare(1, number)
        => "the game opens with hand {number}: hands are numbered from 1, expected hand 1",
    HandGap { number: u32, previous: u32, expected: u32 } compare(expected, number)
        => "hand {number} follows hand {previous}: expected hand {expected}",
}

violation! {
    E107 {
        severity: Error,
        fix: None,
        section: "notation.md#required-tags-for-each-preset",
        title: "missing or bad required tag (Rules, Players, Teams) or a seating the preset does not allow",
        why: "Seats and rules drive every other check.",
        example: "[Players \"Ann Bob Ann\"]",
    }
    NoRulesTag { tags: TagsPresent } => "the game has no Rules tag: which preset it follows is unknown{tags}",
    NoPlayersTag { tags: TagsPresent } => "the game has no Players tag: the seats are unknown{tags}",
    BadPlayers { bad: Shown } => "Players needs names in seat order; bad: {bad}",
    SeatedTwice {} => "a player is seated twice in the Players tag",
    BadTeams { problem: String } => "bad Teams tag: {problem}",
    PlayerCount { seated: usize, preset: String, range: String, key: String }
        => "{seated} players seated, but {preset} is for {range} (players={key})",
    DeckTooSmall { seated: usize, deck: u32, deal_size: u32, most: usize }
        => "{seated} players seated, but the {deck}-card deck deals {deal_size} cards to at most {most} players",
    NoTeamsTag {} => "a partnership game needs a Teams tag, e.g. [Teams \"NS: Ann Cal; EW: Bob Dee\"]",
    TeamsMembers {} => "the Teams tag must place every seated player in exactly one team",
    TeamSizes { sizes: Listed<String> } => "partnership teams are pairs, two or three of them: {sizes:#}",
    PartnersApart { teams: Listed<String>, seats: Spaced<String> }
        => "partners must sit opposite each other (alternate seats): {teams:#} do not, in seat order {seats}",
}

violation! {
    E108 {
        severity: Error,
        fix: None,
        section: "notation.md#hands",
        title: "statement out of place: outside a hand, out of order, repeated, or a required one missing",
        why: "The notation fixes the order of a hand's statements so that a record reads one way only.",
        example: "a `deal` line after the tricks",
    }
    BeforeTags { statement: &'static str }
        => "'{statement}' before any tag block: a game starts with [Rules ...] and [Players ...] tags",
    OutsideHand { statement: &'static str } => "'{statement}' outside a hand: open one with `hand N`",
    Repeated { statement: &'static str, hand: u32 }
        => "a second '{statement}' line in hand {hand} (the first one is kept)",
    OutOfOrder { statement: &'static str, after: &'static str, order: Listed<&'static str> }
        => "'{statement}' is out of order: it comes after a '{after}' statement (the order is {order})",
    HandAfterWinner {} => "a hand after the winner line",
    TrickBeforeTags {} => "a trick before any tag block",
    SecondWinner {} => "a second winner line (the first one is kept)",
    NoDealer {} => "the hand has no `dealer` line",
    NoBids {} => "the hand has no `bids` line",
    ExchangeNotApplied {}
        => "discard and draw lines belong to variants with a discard or a draw (draw=on, or a deal larger than hand_size): not applied",
}

violation! {
    E109 {
        severity: Error,
        fix: None,
        section: "notation.md#encoding-and-file-shape",
        title: "text encoding: bytes that are not UTF-8, NUL bytes, or a file that is not text",
        why: "The bytes are replaced and the line read anyway; a binary file is skipped whole.",
        example: "caf\\xe9",
    }
    NulByte {} => "NUL byte in the text (removed before reading the line)",
    NotUtf8 { column: u32 } => "bytes that are not UTF-8 at column {column} (read as U+FFFD)",
    NotText { sniffed: usize }
        => "this is not a text file (NUL bytes or mostly non-UTF-8 in its first {sniffed} bytes): skipped",
}
