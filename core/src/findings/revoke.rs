//! Revoke (R5xx): a player who did not follow the follow rule while able to, and what it cost.

use std::fmt;

use super::{Field, InTrick, Points, Spaced, Value};

/// The revokes a record shows, as `Bob trick 2`: shown as ` (revokes shown: Bob trick 2, Cal
/// trick 5)`, or as nothing when it shows none.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Shown(pub Vec<String>);

impl fmt::Display for Shown {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.0.is_empty() {
            Ok(())
        } else {
            write!(f, " (revokes shown: {})", self.0.join(", "))
        }
    }
}

impl Field for Shown {
    fn value(&self) -> Value {
        self.0.value()
    }
}
use crate::cards::Card;

violation! {
    R501 {
        severity: Error,
        fix: None,
        section: "rules.md#revokes-r501-r502",
        title: "revoke: a player did not follow the follow rule while able to",
        why: "A revoke changes who can win tricks; the preset's penalty applies (the revoker scores nothing and is set back the bid).",
        example: "2. Cal:9S Dee:4H   % Cal led spades; Dee held 7S",
    }
    /// `held` are the cards that would have been legal; `rule` the rule broken, in words;
    /// `expected` what the player should have played.
    RevokePlay { player: String, card: Card, trick: u32, led: Card, held: Spaced<Card>, rule: String, expected: String }
        compare(expected, card)
        => "{player} plays {card} to trick {trick} ({led} led) while holding {held}: {rule}",
}

violation! {
    R502 {
        severity: Warning,
        fix: None,
        section: "rules.md#revokes-r501-r502",
        title: "a revoke called at the table that the record does not show",
        why: "Either the call was wrong (and the penalty must not apply) or the record of the play is wrong.",
        example: "revoke Bob trick 3   % Bob followed suit in trick 3",
    }
    /// `play` says what the accused played where the call names a trick; `shown` lists the
    /// revokes the record does show (`Bob trick 2`).
    NotShown { player: String, trick: InTrick, play: String, shown: Shown }
        compare("a revoke in the record", "no revoke")
        => "a revoke by {player}{trick} was called at the table, but the record shows {player} following the rule{play}{shown}",
}

violation! {
    R503 {
        severity: Info,
        fix: None,
        section: "rules.md#revokes-r501-r502",
        title: "what a revoke cost the innocent side, by perfect play from the revoke on",
        why: "The loss an innocent side sustained by a revoke must be made good where the tricks clearly show it: the points it was sure to take had the revoker played a legal card (the revoker's side then playing to hold it down), against the points it took. Zero when the revoke gained nothing, and said so.",
        example: "R503 the revoke by Dee in trick 3 cost NS 1 point: had Dee played a legal card (7S), NS were sure to take 3 points (line: 3. Dee:7S ...), and took 2 points",
    }
    /// `line` is the play that keeps what the innocent side was sure of, from the revoke's trick on.
    Cost { revoker: String, trick: u32, innocent: String, damage: Points, legal: Card, sure: Points, took: Points, line: String }
        compare(format!("{sure} sure"), format!("{took} taken"))
        => "the revoke by {revoker} in trick {trick} cost {innocent} {damage}: had {revoker} played a legal card ({legal}), {innocent} were sure to take {sure} (line: {line}), and took {took}",
    NoCost { revoker: String, trick: u32, innocent: String, legal: Card, sure: Points, took: Points, line: String }
        compare(format!("{sure} sure"), format!("{took} taken"))
        => "the revoke by {revoker} in trick {trick} cost {innocent} nothing: had {revoker} played a legal card ({legal}), {innocent} were sure of {sure} (line: {line}), and took {took}",
    NotDemonstrable { revoker: String, trick: u32, innocent: String, why: String }
        compare("an examination of the tricks", "none possible")
        => "what the revoke by {revoker} in trick {trick} cost {innocent} cannot be demonstrated: {why}",
}
