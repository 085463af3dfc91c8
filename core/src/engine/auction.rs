//! The auction: who speaks in what order, which bids stand, who pitches and for what.

use super::{Finding, Prepared, Seats};
use crate::findings::auction::{A301, A302, A303, A304, A305, A306, A308, A309};
use crate::findings::{AlsoWords, DidYouMean, Facts, Listed, Quoted, Spaced};
use crate::notation::{Bid, Game, Hand};
use crate::rules::{AllPass, Auction, PITCH_VALUE, RuleSet, Smudge, bid_number};

/// The order the players speak in: clockwise from the dealer's left, dealer last; or, in a
/// selling auction, from the eldest hand's left round to the dealer (the eldest hand speaks last).
pub fn speaking_order(rules: &RuleSet, seats: usize, dealer: i32) -> Vec<i32> {
    let n = seats as i32;
    let after = |k: i32| {
        if n == 0 {
            0
        } else {
            (dealer + k).rem_euclid(n)
        }
    };
    match rules.auction {
        Auction::Sell => (0..n - 1).map(|i| after(2 + i)).collect(),
        Auction::OnceRound => (0..n).map(|i| after(1 + i)).collect(),
    }
}

/// How the auction rules one bid, given the bids before it: the one definition of which bids
/// stand, read by the engine's check of a record and by the bots of `simulate` alike.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ruling {
    /// A bid higher than the standing one: it stands.
    Raises,
    /// The dealer equals the standing bid, and the rules let the dealer steal it.
    Steals,
    /// The dealer takes over a pitch (a pitch in a new suit, or the top bid).
    TakesOver,
    /// A pitch where the rules have no pitching (A304).
    NoPitching,
    /// A bid after another player's pitch by someone other than the dealer (A309).
    AfterPitch,
    /// The dealer's takeover of a pitch is neither a pitch in a new suit nor the top bid (A309).
    BadTakeover,
    /// A pitch (worth this much) not above the standing bid (A303).
    PitchNotHigher(i32),
    /// No bid, or one outside `min_bid` to the top bid (A304).
    OutOfRange,
    /// The dealer equals the standing bid (of this value) where the dealer may not steal (A305).
    NoSteal(i32),
    /// The dealer equals a standing top bid (of this value) that may not be stolen (A305).
    NoStealTop(i32),
    /// A bid (of this value) not above the standing one (A303).
    NotHigher(i32),
}

impl Ruling {
    /// Whether the bid stands (it raises, steals or takes over).
    pub fn stands(self) -> bool {
        matches!(self, Ruling::Raises | Ruling::Steals | Ruling::TakesOver)
    }
}

/// Where an auction stands after the bids spoken so far.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Standing {
    /// The standing bid's value (0: none yet).
    pub high: i32,
    /// Who holds it (-1: nobody).
    pub high_seat: i32,
    /// A player other than the dealer who pitched: only the dealer may speak after (-1: none).
    pub pitched: i32,
    /// The suit written with that pitch (-1: none).
    pub pitched_suit: i32,
    dealer: i32,
    sell: bool,
}

impl Standing {
    /// An auction before anyone has spoken, `dealer` dealing (`sell`: a selling auction).
    pub fn new(dealer: i32, sell: bool) -> Standing {
        Standing {
            high: 0,
            high_seat: -1,
            pitched: -1,
            pitched_suit: -1,
            dealer,
            sell,
        }
    }

    /// Rule on `seat`'s bid worth `value` (None: no bid word), `pitch` holding the suit written with
    /// a pitch (-1: none) when the bid is one, and take it into the standing when it stands.
    pub fn bid(
        &mut self,
        rules: &RuleSet,
        seat: i32,
        value: Option<i32>,
        pitch: Option<i32>,
    ) -> Ruling {
        let is_pitch = pitch.is_some();
        if is_pitch && !rules.pitching {
            return Ruling::NoPitching;
        }
        if let (true, Some(v)) = (self.pitched >= 0, value) {
            if seat != self.dealer {
                return Ruling::AfterPitch;
            }
            // a takeover is a pitch in a new suit, or a top bid (a smudge is no pitch: its suit is free)
            let suit = pitch.unwrap_or(-1);
            let same = suit >= 0 && suit == self.pitched_suit;
            if (is_pitch && same) || (!is_pitch && v != rules.top_bid) {
                return Ruling::BadTakeover;
            }
            (self.high, self.high_seat) = (v, seat);
            return Ruling::TakesOver;
        }
        if let (Some(suit), Some(v)) = (pitch, value) {
            if v <= self.high {
                return Ruling::PitchNotHigher(v);
            }
            // a pitch by the dealer ends the auction; anyone else's leaves the dealer a takeover
            (self.pitched, self.pitched_suit) = if seat != self.dealer {
                (seat, suit)
            } else {
                (-1, -1)
            };
        }
        let Some(v) = value.filter(|&v| rules.min_bid <= v && v <= rules.top_bid) else {
            return Ruling::OutOfRange;
        };
        if v > self.high {
            (self.high, self.high_seat) = (v, seat);
            Ruling::Raises
        } else if v == self.high && seat == self.dealer && !self.sell {
            if !rules.dealer_steal {
                Ruling::NoSteal(v)
            } else if v == rules.top_bid && !rules.steal_smudge {
                Ruling::NoStealTop(v)
            } else {
                self.high_seat = seat;
                Ruling::Steals
            }
        } else {
            Ruling::NotHigher(v)
        }
    }

    /// How `seat`'s bid would be ruled, the standing left as it is.
    pub fn would(
        &self,
        rules: &RuleSet,
        seat: i32,
        value: Option<i32>,
        pitch: Option<i32>,
    ) -> Ruling {
        let mut trial = *self;
        trial.bid(rules, seat, value, pitch)
    }

    /// Whether `seat` may pass: not the dealer when everybody passed under `all_pass=dealer-bids`
    /// (the dealer must then bid at least `min_bid`; a record where the dealer passes is A306).
    pub fn may_pass(&self, rules: &RuleSet, seat: i32) -> bool {
        !(rules.all_pass == AllPass::DealerBids
            && !self.sell
            && seat == self.dealer
            && self.high_seat < 0)
    }
}

/// Check the auction; set pitcher, contract, high bid and sale on `prep`.
pub fn auction(
    h: &Hand,
    seats: &Seats,
    rules: &RuleSet,
    dealer: i32,
    prep: &mut Prepared,
    game: &Game,
) {
    let line = h.bids.as_ref().map_or(h.meta.line, |b| b.meta.line);
    let find = |prep: &mut Prepared, facts: Facts, col: u32, subject: Option<&str>| {
        let mut f = Finding::new(facts, line, col);
        f.subject = subject.map(str::to_string);
        prep.push(f);
    };
    let word = |b: &Bid| game.word_of(b.word);
    let player = |b: &Bid| game.name_of(b.player);
    let eldest = seats.after(dealer, 1);
    let sell = rules.auction == Auction::Sell;
    let order = speaking_order(rules, seats.n, dealer);
    let mut bids: Vec<&Bid> = h
        .bids
        .as_ref()
        .map(|b| b.bids.iter().collect())
        .unwrap_or_default();
    let mut final_word: Option<&Bid> = None;
    if sell {
        if let Some(&last) = bids.last() {
            let w = word(last);
            if w == "sells" || w == "keeps" || (w == "pass" && seats.seat(last.player) == eldest) {
                final_word = bids.pop();
                if seats.seat(last.player) != eldest {
                    find(
                        prep,
                        A308::LastWordNotEldest {
                            eldest: seats.name(eldest).into(),
                            player: player(last).into(),
                        }
                        .into(),
                        last.column,
                        Some(player(last)),
                    );
                }
            }
        }
    }
    let mut spoken: Vec<i32> = Vec::with_capacity(bids.len());
    let mut first_time: Vec<(i32, &Bid)> = Vec::with_capacity(bids.len());
    for b in &bids {
        let seat = seats.seat(b.player);
        if spoken.contains(&seat) {
            find(
                prep,
                A302::BidsTwice {
                    player: player(b).into(),
                }
                .into(),
                b.column,
                Some(player(b)),
            );
            continue;
        }
        spoken.push(seat);
        first_time.push((seat, b));
    }
    let mut j = 0usize;
    let mut missing: Vec<i32> = Vec::new();
    let mut broke = false;
    for (seat, b) in &first_time {
        while let Some(&o) = order.get(j) {
            if o == *seat || spoken.contains(&o) {
                break;
            }
            missing.push(o);
            j += 1;
        }
        if order.get(j) == Some(seat) {
            j += 1;
            continue;
        }
        let exp = order
            .get(j)
            .map_or("nobody (everyone has spoken)".to_string(), |&o| {
                seats.name(o).to_string()
            });
        let who: Vec<String> = order.iter().map(|&x| seats.name(x).to_string()).collect();
        find(
            prep,
            A301::OutOfTurn {
                player: player(b).into(),
                expected: exp,
                from: if sell { "eldest hand" } else { "dealer" },
                order: Spaced(who),
            }
            .into(),
            b.column,
            Some(player(b)),
        );
        broke = true;
        break;
    }
    if !broke {
        missing.extend(order.iter().skip(j).filter(|x| !spoken.contains(x)));
    }
    if let Some(bl) = &h.bids {
        if !missing.is_empty() && !bl.unreadable {
            let names: Vec<String> = missing.iter().map(|&x| seats.name(x).to_string()).collect();
            find(
                prep,
                A301::Missing {
                    players: Listed(names),
                    auction: rules.auction.word(),
                }
                .into(),
                1,
                Some(seats.name(missing.first().copied().unwrap_or(-1))),
            );
        }
    }
    let mut standing = Standing::new(dealer, sell);
    // the highest bid that is no legal bid (A304): (number, by the dealer, seat)
    let mut faulty: Option<(i32, bool, i32)> = None;
    for &(seat, b) in &first_time {
        let w = word(b);
        let who = player(b);
        if w == "pass" {
            continue;
        }
        if w == "sells" || w == "keeps" {
            find(
                prep,
                A308::EldestWordEarly {
                    player: who.into(),
                    word: Quoted(w.into()),
                }
                .into(),
                b.column,
                Some(who),
            );
            continue;
        }
        let is_pitch = w.split(' ').next() == Some("pitch");
        if is_pitch && rules.pitching {
            prep.pitchers.push(seat);
        }
        let value = rules.bid_value(w); // with pitching on, a pitch is worth four
        let mut suit = -1;
        if is_pitch && rules.pitching && w.len() > 6 {
            suit = "SHDC"
                .find(w.chars().last().unwrap_or('?'))
                .map_or(-1, |s| s as i32);
            prep.pitch_suits.push((seat, suit));
        }
        if let Some(v) = value.filter(|&v| rules.min_bid <= v && v <= rules.top_bid) {
            if !is_pitch || rules.pitching {
                prep.bid_of.push((seat, v)); // a bid in range: the table may have let it stand (judged as played)
            }
        }
        let (high, high_seat, pitched) = (standing.high, standing.high_seat, standing.pitched);
        match standing.bid(rules, seat, value, is_pitch.then_some(suit)) {
            Ruling::Raises | Ruling::Steals => {}
            Ruling::TakesOver => prep.takeover = true,
            Ruling::NoPitching => {
                find(
                    prep,
                    A304::NoPitching {
                        player: who.into(),
                        preset: rules.preset.clone(),
                        word: w.into(),
                        min_bid: rules.min_bid,
                        max_bid: rules.top_bid,
                    }
                    .into(),
                    b.column,
                    Some(who),
                );
                prep.bid_of.push((seat, 0));
                faulty = faulty.max(Some((PITCH_VALUE, seat == dealer, seat)));
            }
            Ruling::AfterPitch => {
                find(
                    prep,
                    A309::BidAfterPitch {
                        player: who.into(),
                        pitcher: seats.name(pitched).into(),
                        dealer: seats.name(dealer).into(),
                        word: w.into(),
                    }
                    .into(),
                    b.column,
                    Some(who),
                );
            }
            Ruling::BadTakeover => {
                find(
                    prep,
                    A309::BadTakeover {
                        dealer: who.into(),
                        pitcher: seats.name(pitched).into(),
                        word: Quoted(w.into()),
                    }
                    .into(),
                    b.column,
                    Some(who),
                );
            }
            Ruling::PitchNotHigher(v) => {
                find(
                    prep,
                    A303::PitchTooLow {
                        player: who.into(),
                        worth: v,
                        high,
                        by: seats.name(high_seat).into(),
                        word: w.into(),
                    }
                    .into(),
                    b.column,
                    Some(who),
                );
            }
            Ruling::OutOfRange => {
                // a word that is no bid at all may be a slip of one (`pas`: `pass`)
                let hint = if value.is_none() {
                    let mut known: Vec<&str> = vec!["pass"];
                    known.extend(rules.top_bid_words.0.iter().map(String::as_str));
                    if rules.pitching {
                        known.push("pitch");
                    }
                    if sell {
                        known.extend(["sells", "keeps"]);
                    }
                    crate::notation::parser::did_you_mean(w, known.into_iter()).map(str::to_string)
                } else {
                    None
                };
                find(
                    prep,
                    A304::OutOfRange {
                        player: who.into(),
                        word: Quoted(w.into()),
                        suggestion: DidYouMean(hint),
                        preset: rules.preset.clone(),
                        min_bid: rules.min_bid,
                        max_bid: rules.top_bid,
                        top_bid_words: AlsoWords(rules.top_bid_words.0.clone()),
                    }
                    .into(),
                    b.column,
                    Some(who),
                );
                // a bid that is no legal bid may still be the one the table played on, but never as a contract
                if let Some(n) = bid_number(w).filter(|&n| n > 0) {
                    prep.bid_of.push((seat, 0));
                    faulty = faulty.max(Some((n, seat == dealer, seat)));
                }
            }
            Ruling::NoSteal(_) => {
                find(
                    prep,
                    A305::NoSteal {
                        dealer: who.into(),
                        high,
                        preset: rules.preset.clone(),
                    }
                    .into(),
                    b.column,
                    Some(who),
                );
            }
            Ruling::NoStealTop(_) => {
                let what = if !w.is_empty() && w.chars().all(char::is_alphabetic) {
                    w
                } else {
                    "top bid"
                };
                find(
                    prep,
                    A305::NoSmudgeSteal {
                        dealer: who.into(),
                        what: what.into(),
                        high,
                        preset: rules.preset.clone(),
                    }
                    .into(),
                    b.column,
                    Some(who),
                );
            }
            Ruling::NotHigher(value) => {
                find(
                    prep,
                    A303::NotHigher {
                        player: who.into(),
                        bid: value,
                        high,
                        by: seats.name(high_seat).into(),
                    }
                    .into(),
                    b.column,
                    Some(who),
                );
            }
        }
    }
    prep.pitched_by = standing.pitched;
    let (high, high_seat) = (standing.high, standing.high_seat);
    prep.high_bid = high;
    let has_tricks = !h.tricks.is_empty();
    if sell {
        let fw = final_word.map(word);
        if high_seat >= 0 {
            match fw {
                Some("sells") => {
                    prep.seller = eldest;
                    prep.sale = high;
                    prep.pitcher = high_seat;
                    prep.contract = if rules.sold_contract { high } else { 0 };
                }
                Some("keeps") => {
                    prep.pitcher = eldest;
                    prep.contract = high;
                }
                _ => {
                    find(
                        prep,
                        A308::NoLastWord {
                            eldest: seats.name(eldest).into(),
                        }
                        .into(),
                        1,
                        Some(seats.name(eldest)),
                    );
                    prep.pitcher = high_seat;
                    prep.contract = high;
                }
            }
        } else {
            if let (Some("sells"), Some(b)) = (fw, final_word) {
                find(
                    prep,
                    A308::SellsNothing {
                        eldest: seats.name(eldest).into(),
                    }
                    .into(),
                    b.column,
                    Some(seats.name(eldest)),
                );
            }
            prep.pitcher = eldest;
            prep.contract = 0;
        }
    } else if high_seat >= 0 {
        prep.pitcher = high_seat;
        prep.contract = high;
    } else if let Some((_, _, seat)) =
        faulty.filter(|&(_, by_dealer, _)| !(by_dealer && rules.all_pass == AllPass::DealerBids))
    {
        // nobody made a legal bid, but someone bid (already an A304): that player pitches, with no contract
        prep.pitcher = seat;
        prep.contract = 0;
    } else if h.bids.is_some() {
        match rules.all_pass {
            AllPass::Redeal => {
                prep.thrown_in = true;
                if has_tricks {
                    find(
                        prep,
                        A306::PlayedAfterRedeal {
                            preset: rules.preset.clone(),
                        }
                        .into(),
                        1,
                        None,
                    );
                    prep.thrown_in = false;
                    prep.pitcher = -1;
                }
            }
            AllPass::DealerBids => {
                let said = first_time
                    .iter()
                    .find(|(s, _)| *s == dealer)
                    .map_or("pass", |(_, b)| word(b));
                if said == "pass" {
                    find(
                        prep,
                        A306::DealerPassed {
                            dealer: seats.name(dealer).into(),
                            preset: rules.preset.clone(),
                            min_bid: rules.min_bid,
                        }
                        .into(),
                        1,
                        Some(seats.name(dealer)),
                    );
                    prep.pitcher = dealer;
                    prep.contract = 0;
                    prep.thrown_in = !has_tricks; // the table threw it in: one mistake, reported once
                } else {
                    // the forced dealer bid out of range (already an A304): the bid as written stands
                    prep.pitcher = dealer;
                    prep.contract = bid_number(said).unwrap_or(0);
                }
            }
            AllPass::EldestPitches => {
                prep.pitcher = eldest;
                prep.contract = 0;
            }
            AllPass::DealerSetBack => {
                // not played: the dealer's side is set back, whatever the record does next
                prep.thrown_in = true;
                prep.pitcher = -1;
                prep.contract = 0;
                if has_tricks {
                    find(
                        prep,
                        A306::PlayedAfterSetBack {
                            preset: rules.preset.clone(),
                            dealer: seats.name(dealer).into(),
                            min_bid: rules.min_bid,
                        }
                        .into(),
                        1,
                        Some(seats.name(dealer)),
                    );
                }
            }
        }
    }
    if !has_tricks
        && h.bids.is_some()
        && !prep.thrown_in
        && h.misdeal.is_none()
        && high_seat < 0
        && faulty.is_none()
        && rules.all_pass == AllPass::EldestPitches
    {
        find(
            prep,
            A306::ThrownIn {
                preset: rules.preset.clone(),
            }
            .into(),
            1,
            None,
        );
        prep.thrown_in = true;
    }
    prep.top_bid = prep.contract == rules.top_bid && rules.smudge != Smudge::None;
}
