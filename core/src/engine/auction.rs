//! The auction: who speaks in what order, which bids stand, who pitches and for what.

use super::{Finding, Prepared, Seats};
use crate::notation::lexer::py_repr;
use crate::notation::{Bid, Code, Game, Hand};
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
    let find = |prep: &mut Prepared, code: Code, msg: String, col: u32, subject: Option<&str>| {
        let mut f = Finding::new(code, msg, line, col);
        f.subject = subject.map(str::to_string);
        prep.push(f);
    };
    let find_cmp = |prep: &mut Prepared,
                    code: Code,
                    msg: String,
                    col: u32,
                    subject: &str,
                    exp: String,
                    rec: String| {
        prep.push(
            Finding::new(code, msg, line, col)
                .about(subject)
                .compare(exp, rec),
        );
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
                        Code::A308,
                        format!(
                            "the last word of a selling auction belongs to the eldest hand {}, not {}",
                            seats.name(eldest),
                            player(last)
                        ),
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
                Code::A302,
                format!(
                    "{} bids twice in one auction (each player speaks once)",
                    player(b)
                ),
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
        let who: Vec<&str> = order.iter().map(|&x| seats.name(x)).collect();
        find_cmp(
            prep,
            Code::A301,
            format!(
                "{} bids out of turn: expected {exp} (order from the {}'s left: {})",
                player(b),
                if sell { "eldest hand" } else { "dealer" },
                who.join(" ")
            ),
            b.column,
            player(b),
            exp.clone(),
            player(b).to_string(),
        );
        broke = true;
        break;
    }
    if !broke {
        missing.extend(order.iter().skip(j).filter(|x| !spoken.contains(x)));
    }
    if let Some(bl) = &h.bids {
        if !missing.is_empty() && !bl.unreadable {
            let names: Vec<&str> = missing.iter().map(|&x| seats.name(x)).collect();
            let names = names.join(", ");
            find_cmp(
                prep,
                Code::A301,
                format!(
                    "the auction is missing {names}: with auction={} every player speaks once, passes included",
                    rules.auction.word()
                ),
                1,
                seats.name(missing.first().copied().unwrap_or(-1)),
                names.clone(),
                "nothing".into(),
            );
        }
    }
    let (mut high, mut high_seat) = (0i32, -1i32);
    let mut pitched = -1i32;
    // the highest bid that is no legal bid (A304): (number, by the dealer, seat)
    let mut faulty: Option<(i32, bool, i32)> = None;
    let range = format!("{}-{}", rules.min_bid, rules.top_bid);
    for &(seat, b) in &first_time {
        let w = word(b);
        let who = player(b);
        if w == "pass" {
            continue;
        }
        if w == "sells" || w == "keeps" {
            find(
                prep,
                Code::A308,
                format!(
                    "{who} says {}, which only the eldest hand says, last, in a selling auction (auction=sell)",
                    py_repr(w)
                ),
                b.column,
                Some(who),
            );
            continue;
        }
        let is_pitch = w.split(' ').next() == Some("pitch");
        if is_pitch && !rules.pitching {
            find_cmp(
                prep,
                Code::A304,
                format!(
                    "{who} pitches in the auction, but {} has no pitching (pitching=off)",
                    rules.preset
                ),
                b.column,
                who,
                range.clone(),
                w.to_string(),
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
                    find_cmp(
                        prep,
                        Code::A309,
                        format!(
                            "{who} bids after {}'s pitch: with pitching=on only the dealer {} may then take over",
                            seats.name(pitched),
                            seats.name(dealer)
                        ),
                        b.column,
                        who,
                        "pass".into(),
                        w.to_string(),
                    );
                    continue;
                }
                // a takeover is a pitch in a new suit, or a top bid (a smudge is no pitch: its suit is free)
                let same = is_pitch
                    && prep.pitch_suit(seat) >= 0
                    && prep.pitch_suit(seat) == prep.pitch_suit(pitched);
                if (is_pitch && same) || (!is_pitch && v != rules.top_bid) {
                    find_cmp(
                        prep,
                        Code::A309,
                        format!(
                            "the dealer {who} takes over {}'s pitch with {}: a takeover is a pitch in a new suit or a smudge",
                            seats.name(pitched),
                            py_repr(w)
                        ),
                        b.column,
                        who,
                        "pitch in another suit, or smudge".into(),
                        w.to_string(),
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
                find_cmp(
                    prep,
                    Code::A303,
                    format!(
                        "{who} pitches (worth {v}) over a standing bid of {high} by {}: a pitch must beat the standing bid",
                        seats.name(high_seat)
                    ),
                    b.column,
                    who,
                    format!("a standing bid below {v}"),
                    w.to_string(),
                );
                continue;
            }
            pitched = if seat != dealer { seat } else { -1 };
            prep.pitched_by = pitched;
        }
        let Some(value) = value.filter(|_| in_range) else {
            let words = if rules.top_bid_words.is_empty() {
                String::new()
            } else {
                format!(", {}", rules.top_bid_words.join("/"))
            };
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
                crate::notation::parser::did_you_mean(w, known.into_iter())
                    .map(|k| format!(" (did you mean '{k}'?)"))
                    .unwrap_or_default()
            } else {
                String::new()
            };
            find_cmp(
                prep,
                Code::A304,
                format!(
                    "{who} bids {}{hint}: {} bids run from {} to {}{words} (min_bid={}, max_bid={})",
                    py_repr(w),
                    rules.preset,
                    rules.min_bid,
                    rules.top_bid,
                    rules.min_bid,
                    rules.top_bid
                ),
                b.column,
                who,
                range.clone(),
                w.to_string(),
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
                find_cmp(
                    prep,
                    Code::A305,
                    format!(
                        "the dealer {who} equals the high bid {high}: {} does not let the dealer steal (dealer_steal=off: the dealer must bid higher)",
                        rules.preset
                    ),
                    b.column,
                    who,
                    format!("more than {high}"),
                    value.to_string(),
                );
            } else if value == rules.top_bid && !rules.steal_smudge {
                let what = if !w.is_empty() && w.chars().all(char::is_alphabetic) {
                    w
                } else {
                    "top bid"
                };
                find_cmp(
                    prep,
                    Code::A305,
                    format!(
                        "the dealer {who} equals a {what} of {high}: in {} a smudge cannot be stolen (steal_smudge=off)",
                        rules.preset
                    ),
                    b.column,
                    who,
                    "pass".into(),
                    value.to_string(),
                );
            } else {
                high_seat = seat;
            }
        } else {
            find_cmp(
                prep,
                Code::A303,
                format!(
                    "{who} bids {value}, not higher than the standing bid of {high} by {}",
                    seats.name(high_seat)
                ),
                b.column,
                who,
                format!("more than {high}"),
                value.to_string(),
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
                        Code::A308,
                        format!(
                            "the eldest hand {} must end a selling auction with `sells` or `keeps`",
                            seats.name(eldest)
                        ),
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
                    Code::A308,
                    format!(
                        "{} sells, but nobody bid: with no bid the eldest hand pitches",
                        seats.name(eldest)
                    ),
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
                        Code::A306,
                        format!(
                            "everybody passed: under {} (all_pass=redeal) the hand is thrown in and the same dealer deals again, but the record plays it",
                            rules.preset
                        ),
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
                        Code::A306,
                        format!(
                            "everybody passed, including the dealer {}: under {} (all_pass=dealer-bids) the dealer must then bid at least {} (min_bid)",
                            seats.name(dealer),
                            rules.preset,
                            rules.min_bid
                        ),
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
                        Code::A306,
                        format!(
                            "everybody passed: under {} (all_pass=dealer-set-back) the hand is not played and the dealer {}'s side is set back {}, but the record plays it",
                            rules.preset,
                            seats.name(dealer),
                            rules.min_bid
                        ),
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
            Code::A306,
            format!(
                "everybody passed and the hand was thrown in, but under {} (all_pass=eldest-pitches) the eldest hand pitches with no contract",
                rules.preset
            ),
            1,
            None,
        );
        prep.thrown_in = true;
    }
    prep.top_bid = prep.contract == rules.top_bid && rules.smudge != Smudge::None;
}
