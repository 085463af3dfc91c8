//! Play (P4xx): who leads, who plays in what order, the trump named, the hand played out.

use super::{Listed, Spaced, SuitName};
use crate::cards::Card;

violation! {
    P401 {
        severity: Error,
        fix: None,
        section: "rules.md#play-p401-p402-p404-p406-r501",
        title: "trick led by the wrong player",
        why: "The winner of each trick leads the next.",
        example: "Ann wins trick 1, Bob leads trick 2",
    }
    WrongLeader { player: String, trick: u32, leader: String, won: u32 } compare(leader, player)
        => "{player} leads trick {trick}, but {leader} won trick {won} and leads next",
    LeadPassed { player: String, trick: u32, leader: String, winner: String, won: u32 } compare(leader, player)
        => "{player} leads trick {trick}, but {leader} leads it: {winner} won trick {won} and holds no trump, so the lead passes left (trumps_only=on)",
}

violation! {
    P402 {
        severity: Error,
        fix: None,
        section: "rules.md#play-p401-p402-p404-p406-r501",
        title: "wrong number of cards in a trick, a player playing twice, or not in clockwise order",
        why: "Each player plays one card to each trick, clockwise from the leader (with `trumps_only`, each player still holding a trump).",
        example: "1. Ann:AS Bob:3S Cal:9S",
    }
    /// `among` names who plays in turn where that is not everyone.
    OutOfTurn { trick: u32, player: String, expected: String, among: &'static str } compare(expected, player)
        => "trick {trick}: {player} plays where {expected} should (play goes clockwise from the leader{among})",
    PlaysTwice { trick: u32, player: String, expected: String, among: &'static str } compare(expected, player)
        => "trick {trick}: {player} plays twice (play goes clockwise from the leader{among})",
    ShortFormDropOuts { trick: u32, cards: usize, players: usize } compare("the long form", "the short form")
        => "trick {trick} has {cards} cards for {players} players in the short form: with drop-outs and no deal line, write NAME:CARD so that the record says who played",
    MustPlayTrump { trick: u32, players: Listed<String>, verb: &'static str }
        compare(format!("a card from {players}"), "none")
        => "trick {trick}: {players} still {verb} a trump and must play one (trumps_only=on: only players without a trump drop out)",
        /// Every trick of the hand names its players anticlockwise from the leader.
    Anticlockwise { trick: u32, tricks: usize } compare("clockwise", "anticlockwise")
        => "the tricks look written anticlockwise: in each of the hand's {tricks} tricks the cards run to the leader's right, but play goes clockwise from the leader (the first at trick {trick})",
    CardCount { trick: u32, cards: usize, players: usize } compare(players, cards)
        => "trick {trick} has {cards} cards; with {players} players it needs {players}",
}

violation! {
    P403 {
        severity: Error,
        fix: None,
        section: "rules.md#who-pitches-a307-p403",
        title: "first lead not by the pitcher",
        why: "When nobody bid, the preset names who pitches (the eldest hand); they lead the first trick.",
        example: "auction, all pass, dealer Ann: Cal leads trick 1 instead of Bob",
    }
    NotPitcher { player: String, pitcher: String, all_pass: &'static str } compare(pitcher, player)
        => "{player} leads the first trick, but the pitcher is {pitcher} (nobody bid: with all_pass={all_pass} {pitcher} must pitch)",
}

violation! {
    P404 {
        severity: Error,
        fix: None,
        section: "rules.md#play-p401-p402-p404-p406-r501",
        title: "the trump line contradicts the first lead",
        why: "The first card led names trump (a joker names none: a `trump` line must then name it).",
        example: "trump H / 1. Ann:AS ...",
    }
    NoTrumpLine {}
        => "with first_trick_trump=free the trump suit must be named on a `trump` line; taking the first card led",
    LeadNotNamedTrump { lead: Card, named: SuitName } compare("a trump", lead)
        => "the first card led, {lead}, is not a trump: {named:#} was named on the trump line before the discard, and the pitcher leads a trump",
    /// `names` says what the lead names: `names hearts`, or `names no suit` for a joker.
    TrumpLineDiffers { named: SuitName, lead: Card, names: String, expected: &'static str } compare(expected, named)
        => "the trump line says {named:#}, but the first card led, {lead}, {names}",
    JokerLead { lead: Card }
        => "the first card led is {lead}, which names no suit: trump must be named on a `trump` line",
    PitchedOtherSuit { pitcher: String, pitched: SuitName, trump: SuitName } compare(pitched, trump)
        => "{pitcher} pitched {pitched:#} on the bids line, but trump is {trump:#}",
}

violation! {
    P405 {
        severity: Error,
        fix: None,
        section: "rules.md#first_trick_trumpfree-p404-p405",
        title: "trump played to a first trick that forbids it",
        why: "With first_trick_trump=free nobody may trump the first trick.",
        example: "(partnership first_trick_trump=free)",
    }
    TrumpedFirst { player: String, card: Card } compare("a card that is not a trump", card)
        => "{player} trumps the first trick with {card}: with first_trick_trump=free nobody may play a trump to it (the card stands and takes the trick)",
}

violation! {
    P406 {
        severity: Error,
        fix: None,
        section: "rules.md#play-p401-p402-p404-p406-r501",
        title: "hand not played out, or tricks out of sequence",
        why: "Every card dealt is played; a missing trick means the points cannot be recomputed.",
        example: "tricks 1-5 recorded, trick 6 missing",
    }
    NoTricks { expected: u32 } => "the hand is not played out: no tricks recorded, {expected} expected",
    OutOfOrder { numbers: Spaced<u32> } => "tricks are written out of order ({numbers}): replayed in number order",
        Gap { number: u32, expected: usize } compare(expected, number)
        => "trick {number} where trick {expected} was expected",
    /// `what` and `verb` agree with the number of tricks missing.
    Missing { what: &'static str, missing: Spaced<u32>, verb: &'static str, played: usize, size: u32 }
        compare(size, played)
        => "the hand is not played out: {what} {missing} {verb} missing ({played} of {size} tricks recorded)",
    TrumpsLeft { players: Listed<String>, verb: &'static str, played: usize }
        => "the hand is not played out: {players} still {verb} a trump after trick {played}",
    Short { played: usize, size: usize } compare(size, played)
        => "the hand is not played out: {played} of {size} tricks recorded",
}

violation! {
    P407 {
        severity: Error,
        fix: None,
        section: "rules.md#the-ten-point-presets-tenpoint-tenpoint52",
        title: "a card played by a player who has dropped out (trumps_only)",
        why: "Where only trumps may be played, a player without a trump drops out of the hand's play and plays no more cards.",
        example: "(tenpoint52, trump S) 3. Ann:AS Bob:4H   % Bob holds no spade",
    }
    DroppedOut { player: String, card: Card, trick: u32 } compare("no card (dropped out)", card)
        => "{player} plays {card} to trick {trick} holding no trump: with trumps_only=on only trumps may be played, and a player without one drops out of the hand's play (the card is set aside: it takes no trick and counts for nothing)",
}
