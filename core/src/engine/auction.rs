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
    let mut spoken: Vec<i32> = Vec::new();
    let mut first_time: Vec<(i32, &Bid)> = Vec::new();
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
    let (mut high, mut high_seat) = (0i32, -1i32);
    let mut pitched = -1i32;
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
        if is_pitch && !rules.pitching {
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
            continue;
        }
        if is_pitch {
            prep.pitchers.push(seat);
        }
        let value = rules.bid_value(w); // pitching is on here: a pitch is worth four
        if is_pitch && w.len() > 6 {
            let suit = "SHDC"
                .find(w.chars().last().unwrap_or('?'))
                .map_or(-1, |s| s as i32);
            prep.pitch_suits.push((seat, suit));
        }
        let in_range = value.is_some_and(|v| rules.min_bid <= v && v <= rules.top_bid);
        if let (true, Some(v)) = (in_range, value) {
            prep.bid_of.push((seat, v)); // a bid in range: the table may have let it stand (judged as played)
        }
        if pitched >= 0 {
            if let Some(v) = value {
                if seat != dealer {
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
                    continue;
                }
                // a takeover is a pitch in a new suit, or a top bid (a smudge is no pitch: its suit is free)
                let same = is_pitch
                    && prep.pitch_suit(seat) >= 0
                    && prep.pitch_suit(seat) == prep.pitch_suit(pitched);
                if (is_pitch && same) || (!is_pitch && v != rules.top_bid) {
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
                    continue;
                }
                prep.takeover = true;
                high = v;
                high_seat = seat;
                continue;
            }
        }
        if let (true, Some(v)) = (is_pitch, value) {
            if v <= high {
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
                continue;
            }
            pitched = if seat != dealer { seat } else { -1 };
            prep.pitched_by = pitched;
        }
        let Some(value) = value.filter(|_| in_range) else {
            // a word that is no bid at all may be a slip of one (`pas`: `pass`)
            let hint = if value.is_none() {
                let mut known: Vec<&str> = vec!["pass"];
                known.extend(rules.top_bid_words.iter().map(String::as_str));
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
                    top_bid_words: AlsoWords(rules.top_bid_words.clone()),
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
            continue;
        };
        let is_dealer = seat == dealer && !sell;
        if value > high {
            high = value;
            high_seat = seat;
        } else if value == high && is_dealer {
            if !rules.dealer_steal {
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
            } else if value == rules.top_bid && !rules.steal_smudge {
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
            } else {
                high_seat = seat;
            }
        } else {
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
