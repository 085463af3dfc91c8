//! Perfect play: the exact value of the rest of a hand when every card is known.
//!
//! Once the tricks of a hand are recorded, every card each player held for the play is known
//! (every card is played; under `trumps_only` the cards never played could never have been).
//! The solver then answers, from any position (cards left in each hand, the trick so far,
//! what each side has taken), what the rest of the hand is worth when every player plays
//! perfectly.
//!
//! **What is maximised.** An [`Objective`] names whose points are counted (a set of sides) and
//! which seats try to raise them; every other seat tries to lower them. For the pitcher's
//! objective the points become the hand's score through the one definition of a contract
//! ([`Contract::value`]): a contract short of its bid is worth minus the bid, a failed
//! all-tricks smudge minus the top bid. With players alone (cutthroat, auction) the pitcher
//! plays against all the others together.
//!
//! **Method**, as the double-dummy solvers of bridge do it: fail-soft alpha-beta over single
//! cards ([`search`]), with a transposition table ([`table`]) at trick boundaries that keeps a
//! lower and an upper bound per position and is shared by every question asked about one hand
//! ([`Context`]). At the start of each trick, what the cards still out make sure of (a trump
//! that only its own side can overtake, and the count that comes with it) bounds the value
//! before any card is tried. A position's key is exact: the cards still out, with the
//! worthless cards of a suit that play as one another (only who holds them, in what order
//! among the cards still out, matters) put in a canonical form, and the leader; the counts
//! toward Game are kept beside it, and an entry's bounds serve the same position with counts
//! better or worse for the counted side ([`table`]). Cards of one suit in one hand with no
//! card still out between them, and the same count and points, are played as one. The
//! follow rules, the trick winner and the trump order are the engine's own ([`legal`](crate::engine::play::legal),
//! [`TrumpTable::winner_pos`](crate::cards::TrumpTable::winner_pos)); the points taken by a card
//! are [`captured_points`](crate::engine::points::captured_points).
//!
//! [`Contract::value`]: crate::engine::contract::Contract::value

mod layout;
mod node;
#[cfg(test)]
mod reference;
mod search;
mod table;
#[cfg(test)]
pub(crate) mod tests;

pub use layout::{Layout, Position};
pub use search::{Claim, Context, Solver};

use super::contract::Contract;

/// The most seats the solver plays (the 52-card deck deals six cards to at most eight).
pub const MAX_SEATS: usize = 8;

/// Whose points are counted, and who plays to raise them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Objective {
    /// The sides whose points are counted (bit per side).
    pub sides: u16,
    /// The seats that play to raise the value (bit per seat); the others play to lower it.
    pub raisers: u16,
    /// Count the points as the pitcher's score under this contract (None: points as won).
    pub contract: Option<Contract>,
}

impl Objective {
    /// An all-tricks smudge: what counts is every trick, not the points.
    pub fn sweep(&self) -> bool {
        self.contract.is_some_and(|c| c.sweep)
    }
}

/// Why a hand cannot be solved.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NotAnalysable(pub String);
