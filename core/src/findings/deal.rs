//! Deal (D2xx): the cards dealt, drawn and played against one deck and the hand size.

use super::{Listed, Spaced, WithPlayers};
use crate::cards::Card;

violation! {
    D201 {
        severity: Error,
        fix: None,
        section: "notation.md#hands",
        title: "a card dealt or played twice",
        why: "One deck has one of each card: a duplicate means the record is wrong somewhere.",
        example: "1. Ann:AS Bob:3S Cal:AS Dee:KS",
    }
    DealtTwice { card: Card, first: String, second: String }
        => "{card} is dealt twice (to {first} and to {second})",
    HoldingTwice { player: String } => "{player} is dealt twice in one deal line",
    DrawnTwice { card: Card, player: String, holder: String }
        => "{card} is drawn by {player}, but it was already dealt or drawn ({holder})",
    PlayedTwice { card: Card, first_trick: u32 } => "{card} is played twice (first in trick {first_trick})",
}

violation! {
    D202 {
        severity: Error,
        fix: None,
        section: "notation.md#hands",
        title: "wrong hand size",
        why: "Each player holds the preset's hand size; a short or long hand breaks the replay.",
        example: "deal Ann: AS KS QS JS TS    % five cards",
    }
    DealSize { player: String, dealt: usize, preset: String, deal_size: u32, players: WithPlayers, key: String }
        compare(deal_size, dealt)
        => "{player} is dealt {dealt} cards; {preset} deals {deal_size}{players} (deal_size={key})",
    NoCards { players: Listed<String> } => "the deal line gives no cards to {players}",
    WidowSize { held: usize, deal_size: u32, players: usize, deck_size: u32, stock: i64 } compare(stock, held)
        => "the widow holds {held} cards; after dealing {deal_size} to each of {players} players the {deck_size}-card deck leaves {stock}",
    TooManyTricks { played: usize, size: usize } compare(size, played)
        => "{played} tricks recorded, but each player holds {size} cards",
    CardsPlayed { player: String, played: u32, size: usize } => "{player} plays {played} cards; each holds {size}",
}

violation! {
    D203 {
        severity: Error,
        fix: None,
        section: "rules.md#rule-keys",
        title: "a card outside this variant's deck",
        why: "Jokers exist only in the ten-point presets.",
        example: "1. Ann:JKH ...",
    }
    NotInDeck { card: Card, deck_size: u32, preset: String }
        => "{card} is not in the {deck_size}-card deck of {preset} (deck={deck_size})",
}

violation! {
    D204 {
        severity: Error,
        fix: None,
        section: "notation.md#hands",
        title: "a card played that the deal did not give the player",
        why: "The deal line and the tricks disagree: one of them is wrong.",
        example: "deal Ann: AS ...; 1. Ann:KS  % Ann was not dealt KS",
    }
    /// `gave` is `the deal gave to`, or `the discard left with` after an exchange.
    NotDealt { player: String, card: Card, gave: &'static str, owner: String }
        compare(format!("a card dealt to {player}"), card)
        => "{player} plays {card}, which {gave} {owner}",
}

violation! {
    D205 {
        severity: Error,
        fix: None,
        section: "rules.md#dealer-rotation-d205",
        title: "wrong dealer in rotation",
        why: "The deal passes clockwise (after a setback throw-in the same dealer deals again); a wrong dealer changes who bids last and who may steal.",
        example: "hand 1 dealer Ann / hand 2 dealer Cal",
    }
    WrongDealer { dealer: String, expected: String } compare(expected, dealer)
        => "{dealer} deals, but the deal passes clockwise: {expected} should deal this hand",
}

violation! {
    D206 {
        severity: Error,
        fix: None,
        section: "rules.md#the-partnership-variations",
        title: "an illegal discard or draw (variants with a discard after trump)",
        why: "After trump is named only non-trumps may be thrown, except trumps in excess of the hand size; a player can only throw what they hold; with `discard=all-non-trumps` every non-trump dealt goes; the dealer refills every hand to the hand size (`draw=on`) or everyone discards down to it; with `leftover=bidder` the pitcher takes what the stock still holds.",
        example: "trump S / discard Ann: 7D 3S   % 3S is a trump, and Ann holds only four",
    }
    NotHeld { player: String, card: Card } compare(format!("a card {player} held"), card)
        => "{player} discards {card}, which {player} did not hold",
    TrumpDiscarded { player: String, card: Card, rule: String } compare("a card that is not a trump", card)
        => "{player} discards {card}, a trump: {rule}",
    NonTrumpKept { player: String, kept: Spaced<Card> } compare("no card that is not a trump", kept)
        => "{player} keeps {kept}: with discard=all-non-trumps every non-trump dealt is thrown after trump is named",
    /// `and_draw` is ` and draw` with draw=on; `refill` says what the rule does.
    WrongCount { player: String, held: u32, and_draw: &'static str, refill: &'static str, size: u32 }
        compare(size, held)
        => "{player} holds {held} cards after the discard{and_draw}: {refill} {size} (hand_size={size})",
    LeftoverNotDrawn { rest: Spaced<Card>, when: &'static str, bidder: String }
        compare(format!("{bidder} draws {rest}"), "not drawn")
        => "{rest} left in the stock: with leftover=bidder, {when} the leftover cards go to the bidder {bidder}",
}
