//! One resolved rule set, as the engine reads it.
//!
//! The presets and keys are declared once, in Python (`auditor.rules`); a game's rule set
//! is resolved there (preset, then overrides by key) and handed to the core as one
//! [`RuleSet`]. Every choice is an enum here, so the engine asks what a key says, never
//! which preset it runs.

pub use crate::cards::Deck;

/// The auction's shape.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Auction {
    /// Each player bids once, clockwise from the dealer's left, dealer last.
    OnceRound,
    /// Bidding from the eldest hand's left; the eldest hand then sells or keeps.
    Sell,
}

/// What happens when everybody passes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AllPass {
    EldestPitches,
    Redeal,
    DealerBids,
    /// The hand is not played and the dealer (side) is set back the minimum bid.
    DealerSetBack,
}

/// Who scores Low.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Low {
    Holder,
    Taker,
}

/// What a player must play to a trick.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Follow {
    FollowOrTrump,
    Strict,
    FreeWhenVoid,
}

/// Who wins when several sides could reach the target in one hand.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GoingOut {
    PitcherFirst,
    PointsOrder,
    BidderOnly,
}

/// What a top bid means.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Smudge {
    None,
    WinsGame,
    AllTricks,
    Moon,
}

/// How the Game point is won.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GamePoint {
    Count,
    Ten,
}

/// The revoke penalty.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Revoke {
    Bid,
    HighestBid,
}

/// What the discard after trump throws.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Discard {
    NonTrumps,
    AllNonTrumps,
}

/// How the first trick's trump is set.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FirstTrickTrump {
    Led,
    Free,
}

/// One complete rule set. The names of the choices, as written in a `Rules` tag, are kept
/// for the messages (`under strict a player ...`).
#[derive(Clone, Debug)]
pub struct RuleSet {
    pub preset: String,
    pub players: (u32, u32),
    pub partnership: bool,
    pub hand_size: u32,
    pub deal_size: (u32, Vec<(u32, u32)>),
    /// Which cards beyond the plain suits are trumps (the jick, the jokers).
    pub deck: Deck,
    pub min_bid: i32,
    /// The highest bid, resolved (`max_bid=all` is the points in play).
    pub top_bid: i32,
    pub top_bid_words: Vec<String>,
    pub auction: Auction,
    pub dealer_steal: bool,
    pub steal_smudge: bool,
    pub all_pass: AllPass,
    pub sold_contract: bool,
    pub low: Low,
    pub follow: Follow,
    pub follow_name: String,
    pub trumps_only: bool,
    pub game: i32,
    pub count_down: bool,
    pub going_out: GoingOut,
    pub smudge: Smudge,
    pub trey: bool,
    pub game_point: GamePoint,
    pub revoke: Revoke,
    pub club_settlement: bool,
    pub draw: bool,
    pub discard: Discard,
    pub leftover_to_bidder: bool,
    pub pitching: bool,
    pub double_loss: bool,
    pub first_trick_trump: FirstTrickTrump,
    /// `key=value` settings this version cannot audit (E105), as resolved in Python.
    pub unsupported: Vec<String>,
    /// The shortest `Rules` text naming this rule set (the dataset's `rules` column).
    pub text: String,
    /// What all the points of a hand are worth together.
    pub points_in_play: i32,
    /// The points in play each hand, in counting order (High, Low, Jack, ..., Game).
    pub point_names: Vec<String>,
}

/// The value words of the keys that messages name (`low=taker`), as a `Rules` tag writes them.
macro_rules! key_words {
    ($($ty:ident { $($variant:ident => $word:literal),* $(,)? })*) => {
        $(impl $ty {
            /// Every value, with its word.
            pub const ALL: &'static [(&'static str, $ty)] = &[$(($word, $ty::$variant)),*];

            /// The key's value as a `Rules` tag writes it.
            pub fn word(self) -> &'static str {
                match self {
                    $($ty::$variant => $word),*
                }
            }
        })*
    };
}

key_words! {
    Auction { OnceRound => "once-round", Sell => "sell" }
    AllPass {
        EldestPitches => "eldest-pitches",
        Redeal => "redeal",
        DealerBids => "dealer-bids",
        DealerSetBack => "dealer-set-back",
    }
    Low { Holder => "holder", Taker => "taker" }
    GoingOut {
        PitcherFirst => "pitcher-first",
        PointsOrder => "points-order",
        BidderOnly => "bidder-only",
    }
    Smudge { None => "none", WinsGame => "wins-game", AllTricks => "all-tricks", Moon => "moon" }
    GamePoint { Count => "count", Ten => "ten" }
    Revoke { Bid => "bid", HighestBid => "highest-bid" }
    Discard { NonTrumps => "non-trumps", AllNonTrumps => "all-non-trumps" }
    Follow { FollowOrTrump => "follow-or-trump", Strict => "strict", FreeWhenVoid => "free-when-void" }
    FirstTrickTrump { Led => "led", Free => "free" }
}

/// What a pitch in place of a bid is worth (pitching=on).
pub const PITCH_VALUE: i32 = 4;

impl RuleSet {
    /// Cards dealt to each of `players`.
    pub fn deal_size_for(&self, players: usize) -> u32 {
        let (default, by) = &self.deal_size;
        by.iter()
            .find(|(n, _)| *n as usize == players)
            .map_or(*default, |(_, v)| *v)
    }

    /// The `deal_size` value as a `Rules` tag writes it (`9,6:8`).
    pub fn deal_size_text(&self) -> String {
        let (default, by) = &self.deal_size;
        let mut out = default.to_string();
        for (n, v) in by {
            out.push_str(&format!(",{n}:{v}"));
        }
        out
    }

    /// Whether hands change after trump is named: a draw, or a deal larger than the hand played.
    pub fn has_exchange(&self, players: usize) -> bool {
        self.draw || self.deal_size_for(players) > self.hand_size
    }

    /// The cards in the deck.
    pub fn deck_size(&self) -> u32 {
        self.deck.size()
    }

    /// The number a bid word stands for (a pitch is worth four where there is pitching);
    /// `None` for a word that is no bid.
    pub fn bid_value(&self, word: &str) -> Option<i32> {
        if self.pitching && word.split(' ').next() == Some("pitch") {
            return Some(PITCH_VALUE);
        }
        let w = word.to_lowercase();
        if self.top_bid_words.contains(&w) {
            return Some(self.top_bid);
        }
        bid_number(&w)
    }

    /// What the table calls the top bid.
    pub fn top_word(&self) -> &str {
        self.top_bid_words.first().map_or("top bid", String::as_str)
    }

    /// The most seats this rule set can deal to: every player needs a hand from the deck.
    pub fn max_seats(&self) -> usize {
        (1..=64usize)
            .take_while(|&n| self.deal_size_for(n) as usize * n <= self.deck_size() as usize)
            .last()
            .unwrap_or(1)
    }
}

/// The number a bid word is, when it is one within range (ASCII digits, 0 to 99).
pub fn bid_number(word: &str) -> Option<i32> {
    if word.is_empty() || word.len() > 3 || !word.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    word.parse::<i32>().ok().filter(|&n| n <= 99)
}

/// Rule sets for the core's own unit tests (the presets themselves are declared in Python).
#[cfg(test)]
pub mod tests_support {
    use super::*;

    /// A few presets, as `auditor.rules` resolves them.
    pub fn preset(name: &str) -> RuleSet {
        let mut r = RuleSet {
            preset: name.into(),
            players: (3, 7),
            partnership: false,
            hand_size: 6,
            deal_size: (6, Vec::new()),
            deck: Deck::Plain,
            min_bid: 2,
            top_bid: 4,
            top_bid_words: vec!["smudge".into()],
            auction: Auction::OnceRound,
            dealer_steal: true,
            steal_smudge: false,
            all_pass: AllPass::EldestPitches,
            sold_contract: true,
            low: Low::Holder,
            follow: Follow::FollowOrTrump,
            follow_name: "follow-or-trump".into(),
            trumps_only: false,
            game: 7,
            count_down: false,
            going_out: GoingOut::PitcherFirst,
            smudge: Smudge::WinsGame,
            trey: false,
            game_point: GamePoint::Count,
            revoke: Revoke::Bid,
            club_settlement: true,
            draw: false,
            discard: Discard::NonTrumps,
            leftover_to_bidder: false,
            pitching: false,
            double_loss: false,
            first_trick_trump: FirstTrickTrump::Led,
            unsupported: Vec::new(),
            text: name.into(),
            points_in_play: 4,
            point_names: ["High", "Low", "Jack", "Game"].map(String::from).to_vec(),
        };
        match name {
            "partnership" | "cutthroat" => {
                r.partnership = name == "partnership";
                r.low = Low::Taker;
                r.smudge = Smudge::AllTricks;
                r.top_bid = 5;
                r.going_out = GoingOut::BidderOnly;
                r.game = 21;
            }
            "smear" => {
                r.partnership = true;
                r.deck = Deck::Jick;
                r.smudge = Smudge::None;
                r.top_bid = 5;
                r.points_in_play = 5;
            }
            "tenpoint" | "tenpoint52" => {
                r.partnership = true;
                r.deck = Deck::Jokers;
                r.trey = true;
                r.smudge = if name == "tenpoint" {
                    Smudge::None
                } else {
                    Smudge::Moon
                };
                r.trumps_only = name == "tenpoint52";
                r.top_bid = 10;
                r.points_in_play = 10;
                r.game = if name == "tenpoint" { 21 } else { 52 };
            }
            _ => {}
        }
        r
    }
}
