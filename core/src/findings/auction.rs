//! Auction (A3xx): who speaks when, which bids stand, who pitches.

use super::{AlsoWords, DidYouMean, Listed, Quoted, Spaced, SuitName};

violation! {
    A301 {
        severity: Error,
        fix: None,
        section: "rules.md#speaking-order-a301-a302",
        title: "bid out of turn, or a player missing from the auction",
        why: "Each player speaks once, clockwise from the dealer's left (the eldest hand's left when selling), the dealer last.",
        example: "dealer Ann / bids Cal 2, Bob pass, Dee pass, Ann pass",
    }
    /// `expected` is the player whose turn it was, or `nobody (everyone has spoken)`.
    OutOfTurn { player: String, expected: String, from: &'static str, order: Spaced<String> }
        compare(expected, player)
        => "{player} bids out of turn: expected {expected} (order from the {from}'s left: {order})",
    Missing { players: Listed<String>, auction: &'static str } compare(players, "nothing")
        => "the auction is missing {players}: with auction={auction} every player speaks once, passes included",
}

violation! {
    A302 {
        severity: Error,
        fix: None,
        section: "rules.md#speaking-order-a301-a302",
        title: "a player bids twice",
        why: "Each player has one chance to bid.",
        example: "bids Bob 2, Cal pass, Bob 3",
    }
    BidsTwice { player: String } => "{player} bids twice in one auction (each player speaks once)",
}

violation! {
    A303 {
        severity: Error,
        fix: None,
        section: "rules.md#bid-words-and-the-top-bid-a303-a304",
        title: "bid not high enough",
        why: "Every bid must beat the standing bid (the dealer may equal it where the preset allows a steal).",
        example: "bids Bob 3, Cal 2",
    }
    PitchTooLow { player: String, worth: i32, high: i32, by: String, word: String }
        compare(format!("a standing bid below {worth}"), word)
        => "{player} pitches (worth {worth}) over a standing bid of {high} by {by}: a pitch must beat the standing bid",
    NotHigher { player: String, bid: i32, high: i32, by: String } compare(format!("more than {high}"), bid)
        => "{player} bids {bid}, not higher than the standing bid of {high} by {by}",
}

violation! {
    A304 {
        severity: Error,
        fix: None,
        section: "rules.md#bid-words-and-the-top-bid-a303-a304",
        title: "bid out of range for the preset",
        why: "Bids run from the preset's minimum to its top bid.",
        example: "bids Bob 7     % auction bids 2-4",
    }
    NoPitching { player: String, preset: String, word: String, min_bid: i32, max_bid: i32 }
        compare(format!("{min_bid}-{max_bid}"), word)
        => "{player} pitches in the auction, but {preset} has no pitching (pitching=off)",
    OutOfRange {
        player: String,
        word: Quoted,
        suggestion: DidYouMean,
        preset: String,
        min_bid: i32,
        max_bid: i32,
        top_bid_words: AlsoWords,
    }
        compare(format!("{min_bid}-{max_bid}"), word.0)
        => "{player} bids {word}{suggestion}: {preset} bids run from {min_bid} to {max_bid}{top_bid_words} (min_bid={min_bid}, max_bid={max_bid})",
}

violation! {
    A305 {
        severity: Error,
        fix: None,
        section: "rules.md#dealer-steal-a305",
        title: "steal not allowed",
        why: "Whether the dealer may take the contract by equalling the high bid (and whether a smudge may be equalled) is a preset key.",
        example: "setback: bids Bob 2, Cal pass, Dee pass, Ann 2   % Ann deals",
    }
    NoSteal { dealer: String, high: i32, preset: String } compare(format!("more than {high}"), high)
        => "the dealer {dealer} equals the high bid {high}: {preset} does not let the dealer steal (dealer_steal=off: the dealer must bid higher)",
    NoSmudgeSteal { dealer: String, what: String, high: i32, preset: String } compare("pass", high)
        => "the dealer {dealer} equals a {what} of {high}: in {preset} a smudge cannot be stolen (steal_smudge=off)",
}

violation! {
    A306 {
        severity: Error,
        fix: None,
        section: "rules.md#when-everybody-passes-a306",
        title: "all-pass handled wrongly",
        why: "When nobody bids, the preset says who pitches (eldest hand, no contract), whether the hand is thrown in (same dealer again), or that the dealer must bid.",
        example: "partnership: everyone passes, dealer included",
    }
    PlayedAfterRedeal { preset: String }
        => "everybody passed: under {preset} (all_pass=redeal) the hand is thrown in and the same dealer deals again, but the record plays it",
    DealerPassed { dealer: String, preset: String, min_bid: i32 }
        => "everybody passed, including the dealer {dealer}: under {preset} (all_pass=dealer-bids) the dealer must then bid at least {min_bid} (min_bid)",
    PlayedAfterSetBack { preset: String, dealer: String, min_bid: i32 }
        => "everybody passed: under {preset} (all_pass=dealer-set-back) the hand is not played and the dealer {dealer}'s side is set back {min_bid}, but the record plays it",
    ThrownIn { preset: String }
        => "everybody passed and the hand was thrown in, but under {preset} (all_pass=eldest-pitches) the eldest hand pitches with no contract",
}

violation! {
    A307 {
        severity: Error,
        fix: None,
        section: "rules.md#who-pitches-a307-p403",
        title: "the pitcher is not the auction's winner",
        why: "The auction's winner pitches: someone else leading the first trick takes the contract from them.",
        example: "bids Bob 2, Cal 3, Dee pass, Ann pass / 1. Bob:AS ...",
    }
    WrongPitcher { leader: String, winner: String } compare(winner, leader)
        => "{leader} leads the first trick, but the auction's winner is {winner}, who pitches",
}

violation! {
    A308 {
        severity: Error,
        fix: None,
        section: "rules.md#the-selling-auction-auctionsell-a308",
        title: "selling auction: the eldest hand's last word is missing or misplaced",
        why: "In the selling auction the eldest hand ends the auction with `sells` or `keeps`.",
        example: "bids Cal 2, Dee pass, Ann pass        % Bob, eldest, says nothing",
    }
    LastWordNotEldest { eldest: String, player: String }
        => "the last word of a selling auction belongs to the eldest hand {eldest}, not {player}",
    EldestWordEarly { player: String, word: Quoted }
        => "{player} says {word}, which only the eldest hand says, last, in a selling auction (auction=sell)",
    NoLastWord { eldest: String } => "the eldest hand {eldest} must end a selling auction with `sells` or `keeps`",
    SellsNothing { eldest: String } => "{eldest} sells, but nobody bid: with no bid the eldest hand pitches",
}

violation! {
    A309 {
        severity: Error,
        fix: None,
        section: "rules.md#the-partnership-variations",
        title: "pitching: a bid after a pitch by someone other than the dealer, or a takeover that is not a new suit or a top bid",
        why: "With pitching=on a pitch (worth four) can only be taken over by the dealer, pitching another suit or bidding a smudge.",
        example: "bids Bob pitch H, Cal 5, Dee pass, Ann pass   % only Ann, the dealer, may take over",
    }
    BidAfterPitch { player: String, pitcher: String, dealer: String, word: String } compare("pass", word)
        => "{player} bids after {pitcher}'s pitch: with pitching=on only the dealer {dealer} may then take over",
    SameSuitTakeover { dealer: String, pitcher: String, suit: SuitName } compare("a new suit", suit)
        => "the dealer {dealer} takes over {pitcher}'s pitch in {suit:#}, the suit already pitched: a takeover is a pitch in a new suit or a smudge",
    BadTakeover { dealer: String, pitcher: String, word: Quoted }
        compare("pitch in another suit, or smudge", word.0)
        => "the dealer {dealer} takes over {pitcher}'s pitch with {word}: a takeover is a pitch in a new suit or a smudge",
}
