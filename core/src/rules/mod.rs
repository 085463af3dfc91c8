//! Rule variants as data: every rule key declared once, the presets read from one data file
//! (`auditor/presets.toml`), overrides by key, and the resolved rule set the engine reads.
//!
//! A key is declared in [`keys`] with its type (which says how its value is read, written and
//! ranged), its meaning, and its field of [`Settings`]. A preset is a row of values
//! ([`presets`]); a game's `[Rules "partnership game=11"]` tag or a run's `--rules` changes
//! keys of it; a club's house presets are rows of their own with a base preset. Every choice
//! is an enum, so the engine asks what a key says, never which preset it runs.

pub mod keys;
pub mod presets;

pub use crate::cards::Deck;
pub use keys::{KEYS, KeyInfo, KeyType, Settings};
pub use presets::{RulesError, define_house_presets, parse_rules, preset, preset_names, resolve};

/// The value words of a choice key, as a `Rules` tag writes them.
macro_rules! key_words {
    ($($(#[doc = $doc:literal])* $ty:ident { $($variant:ident => $word:literal),* $(,)? })*) => {
        $($(#[doc = $doc])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        pub enum $ty {
            $($variant),*
        }

        impl $ty {
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
    /// Who plays with whom.
    Teams { Alone => "none", Partners => "partners" }
    /// The deck: 52 cards, or 54 with two jokers.
    DeckSize { FiftyTwo => "52", FiftyFour => "54" }
    /// The auction's shape: once round from the dealer's left, or the selling auction.
    Auction { OnceRound => "once-round", Sell => "sell" }
    /// What happens when everybody passes.
    AllPass {
        EldestPitches => "eldest-pitches",
        Redeal => "redeal",
        DealerBids => "dealer-bids",
        DealerSetBack => "dealer-set-back",
    }
    /// Who scores Low.
    Low { Holder => "holder", Taker => "taker" }
    /// Who wins when several sides could reach the target in one hand.
    GoingOut {
        PitcherFirst => "pitcher-first",
        PointsOrder => "points-order",
        BidderOnly => "bidder-only",
    }
    /// What a top bid means.
    Smudge { None => "none", WinsGame => "wins-game", AllTricks => "all-tricks", Moon => "moon" }
    /// How the Game point is won.
    GamePoint { Count => "count", Ten => "ten" }
    /// The revoke penalty.
    Revoke { Bid => "bid", HighestBid => "highest-bid" }
    /// The stakes paid at the end of a game.
    Settlement { None => "none", Club => "club" }
    /// What the discard after trump throws.
    Discard { NonTrumps => "non-trumps", AllNonTrumps => "all-non-trumps" }
    /// Where the stock left after the refill goes.
    Leftover { None => "none", Bidder => "bidder" }
    /// What a player must play to a trick.
    Follow { FollowOrTrump => "follow-or-trump", Strict => "strict", FreeWhenVoid => "free-when-void" }
    /// How the first trick's trump is set.
    FirstTrickTrump { Led => "led", Free => "free" }
}

/// What a pitch in place of a bid is worth (pitching=on).
pub const PITCH_VALUE: i32 = 4;

/// The range of the number a bid word may be: a bigger one is no bid (A304), never a contract.
pub const BID_NUMBER_MAX: i32 = 99;

/// One complete rule set: the preset it names, every key's value, and what follows from them.
/// The keys read through [`std::ops::Deref`] (`rules.game`, `rules.low`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RuleSet {
    /// The preset named (a built-in one or a house preset).
    pub preset: String,
    /// Every key's value.
    pub settings: Settings,
    /// Points and scores belong to teams of partners.
    pub partnership: bool,
    /// Which cards beyond the plain suits are trumps (the jick, the jokers).
    pub deck: Deck,
    /// The highest bid, resolved (`max_bid=all` is the points in play).
    pub top_bid: i32,
    /// What all the points of a hand are worth together.
    pub points_in_play: i32,
    /// The points in play each hand, in counting order (High, Low, Jack, ..., Game).
    pub point_names: Vec<&'static str>,
    /// `key=value` settings this version cannot audit (E105).
    pub unsupported: Vec<String>,
    /// The shortest `Rules` text naming this rule set from a built-in preset (the dataset's
    /// `rules` column, which reads the same wherever the dataset goes).
    pub text: String,
}

impl std::ops::Deref for RuleSet {
    type Target = Settings;

    fn deref(&self) -> &Settings {
        &self.settings
    }
}

impl RuleSet {
    /// The rule set of `settings`, named `preset`; `text` is its shortest `Rules` text.
    pub fn new(preset: &str, settings: Settings, text: String) -> RuleSet {
        let deck = match (settings.deck, settings.jick) {
            (DeckSize::FiftyFour, _) => Deck::Jokers,
            (DeckSize::FiftyTwo, true) => Deck::Jick,
            (DeckSize::FiftyTwo, false) => Deck::Plain,
        };
        let mut point_names = vec!["High", "Low", "Jack"];
        match deck {
            Deck::Jokers => point_names.extend(["Off-jack", "High joker", "Low joker"]),
            Deck::Jick => point_names.push("Jick"),
            Deck::Plain => {}
        }
        if settings.trey {
            point_names.push("Trey");
        }
        point_names.push("Game");
        let points_in_play = point_names
            .iter()
            .map(|p| if *p == "Trey" { 3 } else { 1 })
            .sum();
        let top_bid = if settings.max_bid.0 == 0 {
            points_in_play
        } else {
            settings.max_bid.0
        };
        RuleSet {
            preset: preset.to_string(),
            partnership: settings.teams == Teams::Partners,
            deck,
            top_bid,
            points_in_play,
            point_names,
            unsupported: keys::unsupported(&settings),
            text,
            settings,
        }
    }

    /// Cards dealt to each of `players`.
    pub fn deal_size_for(&self, players: usize) -> u32 {
        self.settings.deal_size.for_players(players)
    }

    /// The `deal_size` value as a `Rules` tag writes it (`9,6:8`).
    pub fn deal_size_text(&self) -> String {
        self.settings.deal_size.format()
    }

    /// Whether hands change after trump is named: a draw, or a deal larger than the hand played.
    pub fn has_exchange(&self, players: usize) -> bool {
        self.draw || self.deal_size_for(players) > self.hand_size
    }

    /// The cards in the deck.
    pub fn deck_size(&self) -> u32 {
        self.deck.size()
    }

    /// The stakes are paid as the club pays them.
    pub fn club_settlement(&self) -> bool {
        self.settlement == Settlement::Club
    }

    /// The stock left after the refill goes to the pitcher.
    pub fn leftover_to_bidder(&self) -> bool {
        self.leftover == Leftover::Bidder
    }

    /// The number a bid word stands for (a pitch is worth four where there is pitching);
    /// `None` for a word that is no bid.
    pub fn bid_value(&self, word: &str) -> Option<i32> {
        if self.pitching && word.split(' ').next() == Some("pitch") {
            return Some(PITCH_VALUE);
        }
        // the parser writes bid words in lower case already: a copy only for another caller's word
        let w = if word
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit())
        {
            std::borrow::Cow::Borrowed(word)
        } else {
            std::borrow::Cow::Owned(word.to_lowercase())
        };
        if self.top_bid_words.0.iter().any(|t| *t == *w) {
            return Some(self.top_bid);
        }
        bid_number(&w)
    }

    /// What the table calls the top bid.
    pub fn top_word(&self) -> &str {
        self.top_bid_words
            .0
            .first()
            .map_or("top bid", String::as_str)
    }

    /// The most seats this rule set can deal to: every player needs a hand from the deck.
    pub fn max_seats(&self) -> usize {
        max_seats(&self.settings)
    }
}

/// The most seats `settings` can deal to: every player needs `deal_size` cards from the deck.
pub fn max_seats(settings: &Settings) -> usize {
    let size = match settings.deck {
        DeckSize::FiftyTwo => 52,
        DeckSize::FiftyFour => 54,
    };
    (1..=64usize)
        .take_while(|&n| settings.deal_size.for_players(n) as usize * n <= size)
        .last()
        .unwrap_or(1)
}

/// The number a bid word is, when it is one within range (ASCII digits, 0 to 99).
pub fn bid_number(word: &str) -> Option<i32> {
    if word.is_empty() || word.len() > 3 || !word.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    word.parse::<i32>().ok().filter(|&n| n <= BID_NUMBER_MAX)
}

#[cfg(test)]
#[allow(clippy::panic, clippy::indexing_slicing)]
mod tests {
    use super::*;

    #[test]
    fn the_presets_resolve_what_follows_from_their_keys() {
        let p = |n: &str| preset(n).unwrap_or_else(|e| panic!("{n}: {}", e.message));
        let (auction, tenpoint, smear) = (p("auction"), p("tenpoint"), p("smear"));
        assert_eq!(
            (auction.deck, auction.top_bid, auction.points_in_play),
            (Deck::Plain, 4, 4)
        );
        assert_eq!((tenpoint.deck, tenpoint.top_bid), (Deck::Jokers, 10));
        assert_eq!(
            (tenpoint.deal_size_for(4), tenpoint.deal_size_for(6)),
            (9, 8)
        );
        assert_eq!(
            (smear.deck, smear.points_in_play, smear.game),
            (Deck::Jick, 5, 11)
        );
        assert!(tenpoint.has_exchange(4) && !p("partnership").has_exchange(4));
        assert_eq!((p("cutthroat").max_seats(), tenpoint.max_seats()), (8, 6));
        assert_eq!(p("setback").bid_value("moon"), Some(4));
        assert_eq!(auction.bid_value("32768"), None);
    }
}
