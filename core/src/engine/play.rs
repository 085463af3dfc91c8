//! The play: who sits where in each trick, who leads, which cards are legal, who takes each trick.
//!
//! [`legal`] and [`breaks_follow`] are the one definition of the follow rules, and
//! [`TrumpTable::winner_pos`] of the trick winner: the engine, the bots of `simulate` and
//! the replay all call them.

use super::exchange::{Dealt, check_deal, exchange};
use super::{Finding, Prepared, Seats, auction};
use crate::cards::{Card, CardMask, TrumpTable, suit_letter, suit_name};
use crate::findings::auction::{A307, A309};
use crate::findings::deal::{D201, D202, D204, D205};
use crate::findings::input::E108;
use crate::findings::play::{P401, P402, P403, P404, P405, P406, P407};
use crate::findings::{Listed, Spaced, SuitName};
use crate::notation::{Game, Hand};
use crate::rules::{Auction, FirstTrickTrump, Follow, RuleSet};

/// How a play is judged against the follow rule in force.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FollowRule {
    Follow(Follow),
    /// Only trumps may be played (`trumps_only`); a player without one drops out.
    TrumpsOnly,
    /// The first trick under `first_trick_trump=free`: follow suit when able, never trump.
    FreeFirst,
}

impl FollowRule {
    /// The rule for trick `trick` (0-based) of a hand whose first card led is `lead`.
    pub fn of(rules: &RuleSet, table: &TrumpTable, trick: usize, lead: Option<Card>) -> FollowRule {
        if rules.trumps_only {
            FollowRule::TrumpsOnly
        } else if trick == 0
            && rules.first_trick_trump == FirstTrickTrump::Free
            && lead.is_some_and(|c| table.suit(c) != table.trump)
        {
            FollowRule::FreeFirst
        } else {
            FollowRule::Follow(rules.follow)
        }
    }
}

/// Whether playing `card` from `held`, to a trick whose first card is `led_card` (None: leading),
/// breaks the follow rule. The one definition of a revoke.
pub fn breaks_follow(
    rule: FollowRule,
    table: &TrumpTable,
    held: CardMask,
    led_card: Option<Card>,
    card: Card,
) -> bool {
    let is_trump = table.is_trump(card);
    let has_trump = held & table.trumps() != 0;
    let Some(led_card) = led_card else {
        return rule == FollowRule::TrumpsOnly && !is_trump && has_trump;
    };
    let led = table.suit(led_card);
    let could_follow = held & table.mask(led) != 0;
    let followed = table.suit(card) == led;
    let ok = match rule {
        FollowRule::Follow(Follow::FollowOrTrump) => followed || !could_follow || is_trump,
        FollowRule::Follow(Follow::Strict) => {
            followed || (!could_follow && (is_trump || !has_trump))
        }
        FollowRule::Follow(Follow::FreeWhenVoid) => followed || !could_follow,
        FollowRule::TrumpsOnly => is_trump || !has_trump,
        // trumping the free first trick is P405's, not a revoke
        FollowRule::FreeFirst => followed || !could_follow || is_trump,
    };
    !ok
}

/// The cards of `held` that may be played to a trick whose first card is `led_card` (None: leading).
///
/// The follow rule of [`breaks_follow`], worked out on the whole hand at once (a test checks
/// that they agree card by card); the first trick under `first_trick_trump=free` also keeps
/// trumps out while the player holds anything else.
pub fn legal(
    rule: FollowRule,
    table: &TrumpTable,
    held: CardMask,
    led_card: Option<Card>,
) -> CardMask {
    let trumps = held & table.trumps();
    let Some(led_card) = led_card else {
        return if rule == FollowRule::TrumpsOnly && trumps != 0 {
            trumps
        } else {
            held
        };
    };
    let led = table.suit(led_card);
    let suit = held & table.mask(led);
    // a lead of no suit (a joker that is no trump) is followed by the other such joker
    let suitless = if (0..4).contains(&led) {
        0
    } else {
        held & !trumps & (crate::cards::JOKER_HIGH.bit() | crate::cards::JOKER_LOW.bit())
    };
    following(rule, held, trumps, suit, suitless)
}

/// The follow rule for a follower on masks of any numbering of the cards: of `held`, its
/// `trumps`, its cards of the `suit` led, and the `suitless` ones that follow a lead of no
/// suit. [`legal`] asks it on the cards, the solver on its own numbering.
pub fn following(rule: FollowRule, held: u64, trumps: u64, suit: u64, suitless: u64) -> u64 {
    match rule {
        FollowRule::Follow(Follow::FollowOrTrump) => {
            if suit != 0 {
                suit | trumps
            } else {
                held
            }
        }
        FollowRule::Follow(Follow::Strict) => {
            if suit != 0 {
                suit
            } else if trumps != 0 {
                trumps | suitless
            } else {
                held
            }
        }
        FollowRule::Follow(Follow::FreeWhenVoid) => {
            if suit != 0 {
                suit
            } else {
                held
            }
        }
        FollowRule::TrumpsOnly => {
            if trumps != 0 {
                trumps
            } else {
                held
            }
        }
        FollowRule::FreeFirst => {
            let allowed = if suit != 0 { suit | trumps } else { held };
            if held & !trumps != 0 {
                allowed & !trumps
            } else {
                allowed
            }
        }
    }
}

/// What the tricks of a prepared hand come to: each trick's taker, the revokes, and where every card went.
#[derive(Clone, Debug)]
pub struct Played {
    /// Taker of each kept trick (-1: an empty trick).
    pub winners: Vec<i32>,
    /// (trick, position) of each play that broke the follow rule.
    pub revokes: Vec<(usize, usize)>,
    /// Seat that took the trick each card fell in (-1: not played), and that trick (1-based; 0: not played).
    pub card_taker: [i32; 54],
    pub card_trick: [u32; 54],
    /// Highest and lowest trump in play: (seat that played it, card, taker of its trick).
    pub high: Option<(i32, Card, i32)>,
    pub low: Option<(i32, Card, i32)>,
    /// Per seat: Game count taken, tricks taken.
    pub counts: Vec<i32>,
    pub tricks_won: Vec<i32>,
}

/// Replay the tricks of a prepared hand.
pub fn replay(prep: &Prepared, rules: &RuleSet, n: usize) -> Played {
    let table = TrumpTable::get(prep.trump, rules.deck);
    let mut p = Played {
        winners: Vec::with_capacity(prep.cards.len()),
        revokes: Vec::new(),
        card_taker: [-1; 54],
        card_trick: [0; 54],
        high: None,
        low: None,
        counts: vec![0; n],
        tricks_won: vec![0; n],
    };
    let lead = prep.cards.first().and_then(|cs| cs.first()).copied();
    let mut walk = prep.walk_holdings(n);
    let mut hi: Option<(i32, i32, Card, usize)> = None; // strength, seat, card, trick
    let mut lo: Option<(i32, i32, Card, usize)> = None;
    for (t, (cs, ss)) in prep.cards.iter().zip(&prep.seats).enumerate() {
        let Some(&led_card) = cs.first() else {
            p.winners.push(-1);
            continue;
        };
        let pos = table.winner_pos(cs.iter().copied());
        let winner = ss.get(pos).copied().unwrap_or(-1);
        p.winners.push(winner);
        let rule = FollowRule::of(rules, table, t, lead);
        let mut count = 0;
        for (i, (&c, &s)) in cs.iter().zip(ss).enumerate() {
            let held = walk.held(s, t);
            // after a missing trick what each player held is unknown: no revoke is judged there,
            // nor before it where the deal is not written (the holdings come from the later play)
            if prep
                .gap_at
                .is_none_or(|g| t < g && prep.dealt.iter().all(|&m| m != 0))
                && breaks_follow(
                    rule,
                    table,
                    held,
                    if i == 0 { None } else { Some(led_card) },
                    c,
                )
            {
                p.revokes.push((t, i));
            }
            if let Some(slot) = p.card_taker.get_mut(usize::from(c.index())) {
                *slot = winner;
            }
            if let Some(slot) = p.card_trick.get_mut(usize::from(c.index())) {
                *slot = t as u32 + 1;
            }
            count += i32::from(
                crate::cards::GAME_COUNT
                    .get(usize::from(c.index()))
                    .copied()
                    .unwrap_or(0),
            );
            let st = table.strength(c);
            if st >= 0 {
                if hi.is_none_or(|(b, ..)| st > b) {
                    hi = Some((st, s, c, t));
                }
                if lo.is_none_or(|(b, ..)| st < b) {
                    lo = Some((st, s, c, t));
                }
            }
        }
        walk.played(cs, ss);
        if let Ok(w) = usize::try_from(winner) {
            if let Some(x) = p.counts.get_mut(w) {
                *x += count;
            }
            if let Some(x) = p.tricks_won.get_mut(w) {
                *x += 1;
            }
        }
    }
    let taker = |t: usize| p.winners.get(t).copied().unwrap_or(-1);
    p.high = hi.map(|(_, s, c, t)| (s, c, taker(t)));
    p.low = lo.map(|(_, s, c, t)| (s, c, taker(t)));
    p
}

/// Pass 1 for one hand: dealer, auction, deal, exchange, and who sits where in every trick.
///
/// `expected` lists the dealers the rotation allows, the likeliest first (empty: any).
pub fn prepare_hand(
    h: &Hand,
    game: &Game,
    seats: &Seats,
    rules: &RuleSet,
    expected: &[i32],
) -> Prepared {
    let mut prep = Prepared {
        number: h.number,
        line: h.meta.line,
        dealer: -1,
        pitcher: -1,
        written_dealer: -1,
        seller: -1,
        trump: -1,
        pitched_by: -1,
        playable: true,
        ..Prepared::default()
    };
    let n = seats.n;
    let sell = rules.auction == Auction::Sell;
    let first_bidder = h
        .bids
        .as_ref()
        .and_then(|b| b.bids.first())
        .map_or(-1, |b| seats.seat(b.player));
    let by_bids =
        (first_bidder >= 0).then(|| seats.after(first_bidder, if sell { -2 } else { -1 }));
    let dealer = match &h.dealer {
        Some(d) if seats.seat(d.name) >= 0 => {
            let mut dealer = seats.seat(d.name);
            prep.written_dealer = dealer;
            if let Some(&right) = expected.first().filter(|_| !expected.contains(&dealer)) {
                let name = game.name_of(d.name);
                prep.push(
                    Finding::new(
                        D205::WrongDealer {
                            dealer: name.into(),
                            expected: seats.name(right).into(),
                        },
                        d.meta.line,
                        d.column,
                    )
                    .about(name),
                );
                // if the auction was spoken in the rightful dealer's order, the dealer line is the slip
                if by_bids == Some(right) {
                    dealer = right;
                }
            }
            dealer
        }
        written => {
            if written.is_none() && !h.misread.contains(&"dealer") {
                prep.push(Finding::new(E108::NoDealer {}, h.meta.line, 1));
            }
            // a dealer not written (or not seated, already an E104): the bidding order says who dealt
            by_bids.or(expected.first().copied()).unwrap_or(0)
        }
    };
    prep.dealer = dealer;
    if h.misdeal.is_some() {
        prep.misdeal = true;
        prep.playable = false;
        return prep;
    }
    // no bids line (or a misspelt one, already its E102): the bidding is unknown, and so are the
    // pitcher and the contract. The play is still judged; the hand's score is not checked.
    let bidding_unknown = h.bids.is_none();
    if bidding_unknown && !h.misread.contains(&"bids") {
        prep.push(Finding::new(E108::NoBids {}, h.meta.line, 1));
    }
    if !bidding_unknown {
        auction::auction(h, seats, rules, dealer, &mut prep, game);
    }
    if prep.thrown_in {
        prep.playable = false;
        return prep;
    }
    let mut dealt = check_deal(h, game, seats, rules, &mut prep);
    if h.tricks.is_empty() {
        prep.push(Finding::new(
            P406::NoTricks {
                expected: rules.hand_size,
            },
            h.meta.line,
            1,
        ));
        prep.playable = false;
        return prep;
    }
    let mut tricks: Vec<&crate::notation::Trick> = h.tricks.iter().collect();
    let numbers: Vec<u32> = tricks.iter().map(|t| t.number).collect();
    let mut sorted = numbers.clone();
    sorted.sort_unstable();
    if sorted.iter().enumerate().all(|(i, &k)| k as usize == i + 1) && numbers != sorted {
        if let Some(at) = tricks
            .iter()
            .enumerate()
            .find(|(k, t)| t.number as usize != k + 1)
            .map(|(_, t)| *t)
        {
            prep.push(
                Finding::new(
                    P406::OutOfOrder {
                        numbers: Spaced(numbers.clone()),
                    },
                    at.meta.line,
                    at.column,
                )
                .in_trick(at.number),
            );
        }
        tricks.sort_by_key(|t| t.number);
    }
    let Some(first) = tricks.first().copied() else {
        return prep;
    };
    let deck = rules.deck;
    let lead = first.plays.first().map(|p| p.card);
    let free_first = rules.first_trick_trump == FirstTrickTrump::Free;
    let plain = TrumpTable::get(-1, deck);
    let mut p404 = false;
    // the first trick missing (its P406 follows), or a card of it unreadable (its E103; the card
    // that named trump may be that one): trump is what the trump line says, or unknown, and
    // nothing is judged against the lead
    let lead_unknown = first.number != 1 || first.unreadable;
    if free_first {
        match &h.trump {
            None => {
                prep.push(Finding::new(P404::NoTrumpLine {}, h.meta.line, 1));
                p404 = true;
                prep.trump = if lead_unknown {
                    -1
                } else {
                    lead.filter(|c| c.index() < 52).map_or(-1, Card::suit)
                };
                prep.playable = prep.playable && prep.trump >= 0;
            }
            Some(tl) => prep.trump = i32::from(tl.suit.index()),
        }
    } else if lead_unknown {
        prep.trump = h.trump.as_ref().map_or(-1, |t| i32::from(t.suit.index()));
        p404 = true;
    } else if let Some(lead) = lead {
        let named = h.trump.as_ref().map_or(-1, |t| i32::from(t.suit.index()));
        let named_table = TrumpTable::get(named, deck);
        // where the discard was made after trump was named, the named trump stands whatever is led
        let named_first = named >= 0 && rules.has_exchange(n) && !h.exchanges.is_empty();
        let lead_is_named = named >= 0 && named_table.suit(lead) == named;
        prep.trump = if named >= 0 && (named_first || lead_is_named) {
            named
        } else {
            plain.suit(lead)
        };
        let lead_col = first.plays.first().map_or(1, |p| p.column);
        if named_first && !lead_is_named {
            prep.push(
                Finding::new(
                    P404::LeadNotNamedTrump {
                        lead,
                        named: SuitName(named),
                    },
                    first.meta.line,
                    lead_col,
                )
                .in_trick(1),
            );
            p404 = true;
        } else if named >= 0 && prep.trump != named {
            let what = if lead.index() >= 52 {
                "names no suit".to_string()
            } else {
                format!("names {}", suit_name(lead.suit()))
            };
            let (line, col) = h
                .trump
                .as_ref()
                .map_or((h.meta.line, 1), |t| (t.meta.line, t.column));
            let exp = if lead.index() < 52 {
                suit_letter(lead.suit())
            } else {
                "a trump"
            };
            prep.push(Finding::new(
                P404::TrumpLineDiffers {
                    named: SuitName(named),
                    lead,
                    names: what,
                    expected: exp,
                },
                line,
                col,
            ));
            p404 = true;
        }
        if prep.trump > 3 {
            if named < 0 {
                prep.push(
                    Finding::new(P404::JokerLead { lead }, first.meta.line, lead_col).in_trick(1),
                );
                p404 = true;
            }
            prep.trump = -1;
            prep.playable = false;
        }
    }
    let table = TrumpTable::get(prep.trump, deck);
    let trump_mask = if prep.trump >= 0 { table.trumps() } else { 0 };
    if rules.has_exchange(n) {
        exchange(h, game, seats, rules, &mut prep, &mut dealt, trump_mask);
    } else if let Some(x) = h.exchanges.first() {
        prep.push(Finding::new(E108::ExchangeNotApplied {}, x.meta.line, 1));
    }
    play_tricks(
        h, game, seats, rules, &mut prep, &dealt, &tricks, trump_mask, p404,
    );
    if bidding_unknown {
        prep.playable = false;
    }
    prep
}

/// Whether every trick of a hand names its players (with a card from each seat) in the order
/// opposite to the play's: the leader, then the player on the leader's right, and so on. With
/// three players or more, and two tricks or more, that is a writer's habit, not a table's.
fn written_anticlockwise(tricks: &[&crate::notation::Trick], seats: &Seats) -> bool {
    let n = seats.n;
    if n < 3 || tricks.len() < 2 {
        return false;
    }
    tricks.iter().all(|t| {
        t.plays.len() == n
            && t.plays.iter().all(|p| p.player.is_some())
            && t.plays.first().and_then(|p| p.player).is_some_and(|lead| {
                let lead = seats.seat(lead);
                t.plays.iter().enumerate().all(|(i, p)| {
                    p.player
                        .is_some_and(|x| seats.seat(x) == seats.after(lead, -(i as i32)))
                })
            })
    })
}

/// P402 for a play out of turn: a player twice, or where another should play.
fn out_of_turn(
    t: &crate::notation::Trick,
    column: u32,
    who: String,
    expected: String,
    twice: bool,
    among: &'static str,
) -> Finding {
    let facts = if twice {
        P402::PlaysTwice {
            trick: t.number,
            player: who.clone(),
            expected,
            among,
        }
    } else {
        P402::OutOfTurn {
            trick: t.number,
            player: who.clone(),
            expected,
            among,
        }
    };
    Finding::new(facts, t.meta.line, column)
        .in_trick(t.number)
        .about(who)
}

fn has(mask: CardMask, c: Card) -> bool {
    mask & c.bit() != 0
}

#[allow(clippy::too_many_arguments)]
fn play_tricks(
    h: &Hand,
    game: &Game,
    seats: &Seats,
    rules: &RuleSet,
    prep: &mut Prepared,
    dealt: &Dealt,
    tricks: &[&crate::notation::Trick],
    trump_mask: CardMask,
    p404: bool,
) {
    let n = seats.n;
    let ni = n as i32;
    let deck = rules.deck;
    let dealer = prep.dealer;
    let seat_of_play = |p: &crate::notation::Play| p.player.map_or(-1, |x| seats.seat(x));
    // trumps_only: who still holds a trump, where the hands after the discard are known
    let mut trumps_left: Vec<i32> = if rules.trumps_only {
        prep.dealt
            .iter()
            .map(|&m| {
                if m != 0 {
                    (m & trump_mask).count_ones() as i32
                } else {
                    -1
                }
            })
            .collect()
    } else {
        Vec::new()
    };
    if !trumps_left.is_empty() {
        for t in tricks {
            for p in &t.plays {
                // a hand the plays contradict (D204 below) is judged from its plays instead
                let s = seat_of_play(p);
                let held = usize::try_from(s)
                    .ok()
                    .and_then(|s| prep.dealt.get(s))
                    .copied()
                    .unwrap_or(0);
                if s >= 0 && held != 0 && !has(held, p.card) {
                    for o in 0..n {
                        if o as i32 == s || prep.dealt.get(o).is_some_and(|&m| has(m, p.card)) {
                            if let Some(x) = trumps_left.get_mut(o) {
                                *x = -1;
                            }
                        }
                    }
                }
            }
        }
    }
    // trumps_only: who plays in each trick (a player who still plays is still in)
    let seats_in_trick: Vec<Vec<i32>> = tricks
        .iter()
        .filter(|_| rules.trumps_only)
        .map(|t| {
            t.plays
                .iter()
                .filter(|p| p.player.is_some())
                .map(seat_of_play)
                .collect()
        })
        .collect();
    let mut played_at: [Option<u32>; 54] = [None; 54];
    prep.cards.reserve(tricks.len());
    prep.seats.reserve(tricks.len());
    prep.trick_lines.reserve(tricks.len());
    prep.play_cols.reserve(tricks.len());
    let mut leader = prep.pitcher;
    let mut last_winner = prep.pitcher;
    let mut gap_reported = false;
    let anticlockwise = written_anticlockwise(tricks, seats);
    let mut anticlockwise_reported = false;
    let mut count_by_seat = vec![0u32; n];
    let name = |s: i32| seats.name(s).to_string();
    for (ti, t) in tricks.iter().enumerate() {
        let mut this_p402 = false;
        let mut this_dup = false;
        let follows = match ti.checked_sub(1).and_then(|p| tricks.get(p)) {
            Some(prev) => t.number == prev.number.saturating_add(1),
            None => t.number == 1,
        };
        if !follows && prep.gap_at.is_none() {
            // a trick missing before this one (P406): who leads it, and what each player still
            // holds, are not known; the missing trick's P406 is the one finding
            prep.gap_at = Some(prep.cards.len());
        }
        // (where only trumps are played, who is still in after a missing trick is unknown too)
        if !follows || (rules.trumps_only && prep.gap_at.is_some()) {
            leader = -1;
        }
        if t.number as usize != ti + 1 {
            // one finding for the hand: the tricks missing, or where the numbering first goes wrong
            if !gap_reported {
                gap_reported = true;
                let numbers: Vec<u32> = tricks.iter().map(|t| t.number).collect();
                let size = rules.hand_size;
                let in_order = numbers.windows(2).all(|w| w.first() < w.get(1))
                    && numbers.last().is_some_and(|&m| m <= size);
                let facts = if in_order {
                    let missing: Vec<u32> = (1..=size).filter(|k| !numbers.contains(k)).collect();
                    let one = missing.len() == 1;
                    P406::Missing {
                        what: if one { "trick" } else { "tricks" },
                        missing: Spaced(missing),
                        verb: if one { "is" } else { "are" },
                        played: numbers.len(),
                        size,
                    }
                } else {
                    P406::Gap {
                        number: t.number,
                        expected: ti + 1,
                    }
                };
                prep.push(Finding::new(facts, t.meta.line, t.column).in_trick(t.number));
            }
            prep.playable = false;
        }
        let plays = &t.plays;
        let Some(first_play) = plays.first() else {
            prep.playable = false;
            continue;
        };
        // who is still in; every seat unless only trumps are played (then read where it matters)
        let in_play: super::Row<i32> = if rules.trumps_only {
            (0..ni)
                .filter(|&s| {
                    let left = trumps_left.get(s as usize).copied().unwrap_or(-1);
                    left > 0
                        || (left < 0
                            && seats_in_trick
                                .iter()
                                .skip(ti)
                                .any(|later| later.contains(&s)))
                })
                .collect()
        } else {
            super::Row::new()
        };
        if rules.trumps_only && leader >= 0 && !in_play.contains(&leader) && !in_play.is_empty() {
            // the winner has no trump left: the lead passes to the next player on the left still in
            let from = leader;
            leader = in_play
                .iter()
                .copied()
                .min_by_key(|&s| seats.distance(from, s))
                .unwrap_or(leader);
        }
        let owner_of_first = (0..ni)
            .find(|&o| {
                prep.dealt
                    .get(o as usize)
                    .is_some_and(|&m| has(m, first_play.card))
            })
            .unwrap_or(-1);
        if t.short && rules.trumps_only && plays.len() < n && trumps_left.iter().any(|&x| x < 0) {
            prep.push(
                Finding::new(
                    P402::ShortFormDropOuts {
                        trick: t.number,
                        cards: plays.len(),
                        players: n,
                    },
                    t.meta.line,
                    t.column,
                )
                .in_trick(t.number),
            );
            this_p402 = true;
            prep.playable = false;
        }
        // a trick written as bare cards whose leader is not known (after a missing or broken
        // trick, no deal to say who held the card led): its seats, and so its winner, are guesses
        let mut seats_unknown = false;
        let row_seats: super::Row<i32> = if t.short {
            // seats follow the leader; the first trick's leader is whoever the deal gave the card led
            // (after a missing or broken trick, whoever held the card led)
            let mut start = if (ti == 0 || leader < 0) && owner_of_first >= 0 {
                owner_of_first
            } else {
                leader
            };
            if start < 0 {
                seats_unknown = ti > 0 || !follows;
                start = seats.after(dealer, 1);
            }
            let mut ring: super::Row<i32> = if in_play.is_empty() {
                (0..ni).collect()
            } else {
                in_play.clone()
            };
            ring.sort_by_key(|&s| seats.distance(start, s));
            (0..plays.len())
                .map(|i| ring.get(i % ring.len().max(1)).copied().unwrap_or(0))
                .collect()
        } else {
            // a trick mixing both forms (already an E101) takes its unnamed seats from the position
            let first = match first_play.player {
                Some(x) => seats.seat(x),
                None => leader.max(0),
            };
            plays
                .iter()
                .enumerate()
                .map(|(i, p)| match p.player {
                    Some(x) => seats.seat(x),
                    None => seats.after(first, i as i32),
                })
                .collect()
        };
        let lead_seat = row_seats.first().copied().unwrap_or(-1);
        let who = seats.name(lead_seat);
        let auction_faulted = ti == 0 && prep.auction_faulted;
        if ti == 0
            && follows
            && leader != lead_seat
            && h.bids.as_ref().is_some_and(|b| b.unreadable)
        {
            // part of the auction could not be read: the first leader pitched, for a contract we may not know
            leader = lead_seat;
            prep.pitcher = lead_seat;
            prep.contract = prep.bid_of(leader).unwrap_or(0);
            prep.playable = prep.bid_of(leader).is_some();
        }
        if ti == 0 && follows && leader != lead_seat && auction_faulted {
            if let Some(v) = prep.bid_of(lead_seat) {
                // the table let a faulty auction stand: judge the hand as played, one mistake one finding
                leader = lead_seat;
                prep.pitcher = lead_seat;
                prep.contract = v;
                prep.top_bid = v == rules.top_bid && rules.smudge != crate::rules::Smudge::None;
                prep.takeover =
                    leader == dealer && prep.pitched_by >= 0 && prep.pitched_by != dealer;
            }
        }
        if leader >= 0 && lead_seat != leader && !t.unreadable {
            if ti == 0 {
                if prep.contract > 0 || prep.seller >= 0 {
                    let line = h.bids.as_ref().map_or(t.meta.line, |b| b.meta.line);
                    prep.push(
                        Finding::new(
                            A307::WrongPitcher {
                                leader: who.to_string(),
                                winner: name(leader),
                            },
                            line,
                            1,
                        )
                        .about(who),
                    );
                } else {
                    prep.push(
                        Finding::new(
                            P403::NotPitcher {
                                player: who.to_string(),
                                pitcher: name(leader),
                                all_pass: rules.all_pass.word(),
                            },
                            t.meta.line,
                            first_play.column,
                        )
                        .in_trick(1)
                        .about(who),
                    );
                }
            } else {
                let won = t.number.saturating_sub(1);
                let facts = if leader == last_winner {
                    P401::WrongLeader {
                        player: who.to_string(),
                        trick: t.number,
                        leader: name(leader),
                        won,
                    }
                } else {
                    P401::LeadPassed {
                        player: who.to_string(),
                        trick: t.number,
                        leader: name(leader),
                        winner: name(last_winner),
                        won,
                    }
                };
                prep.push(
                    Finding::new(facts, t.meta.line, first_play.column)
                        .in_trick(t.number)
                        .about(who),
                );
            }
        }
        let mut absent: Vec<i32> = Vec::new();
        if rules.trumps_only {
            // each player still holding a trump plays one, clockwise; a card from a player who is out is P407's
            let present: Vec<i32> = row_seats
                .iter()
                .copied()
                .filter(|s| in_play.contains(s))
                .collect();
            let start = present.first().copied().unwrap_or(lead_seat);
            let mut expected_order = in_play.clone();
            expected_order.sort_by_key(|&s| seats.distance(start, s));
            absent = expected_order
                .iter()
                .copied()
                .filter(|s| !row_seats.contains(s))
                .collect();
            // after a missing trick who still holds a trump is unknown
            let judged = !t.unreadable && prep.gap_at.is_none();
            if !absent.is_empty() && judged {
                let names: Vec<String> = absent.iter().map(|&s| name(s)).collect();
                prep.push(
                    Finding::new(
                        P402::MustPlayTrump {
                            trick: t.number,
                            players: Listed(names),
                            verb: if absent.len() == 1 { "holds" } else { "hold" },
                        },
                        t.meta.line,
                        t.column,
                    )
                    .in_trick(t.number)
                    .about(name(absent.first().copied().unwrap_or(-1))),
                );
                prep.playable = false;
            } else if !t.short && judged && present[..] != expected_order[..] {
                let bad = present
                    .iter()
                    .enumerate()
                    .position(|(i, s)| expected_order.get(i) != Some(s))
                    .unwrap_or(0);
                let bad_seat = present.get(bad).copied().unwrap_or(-1);
                let twice = present.iter().take(bad).any(|&s| s == bad_seat);
                let from = if row_seats.iter().take(bad).any(|&s| s == bad_seat) {
                    bad
                } else {
                    0
                };
                let at = row_seats
                    .iter()
                    .skip(from)
                    .position(|&s| s == bad_seat)
                    .map_or(0, |i| i + from);
                let who_bad = name(bad_seat);
                let exp_seat = expected_order
                    .get(bad)
                    .map_or("nobody".to_string(), |&s| name(s));
                let col = plays.get(at).map_or(t.column, |p| p.column);
                prep.push(out_of_turn(
                    t,
                    col,
                    who_bad,
                    exp_seat,
                    twice,
                    ", among the players still holding a trump",
                ));
                prep.playable = false;
            }
        } else {
            // each seat in turn from the leader: checked in place, the order built only for a finding
            let fits = row_seats.len() <= n
                && row_seats
                    .iter()
                    .enumerate()
                    .all(|(i, &s)| s == seats.after(lead_seat, i as i32));
            let expected_order =
                || -> super::Row<i32> { (0..ni).map(|i| seats.after(lead_seat, i)).collect() };
            if !t.short && !t.unreadable && !fits && anticlockwise {
                // every trick written the other way round: one slip of the writer, one finding
                if !anticlockwise_reported {
                    anticlockwise_reported = true;
                    let col = plays.get(1).map_or(t.column, |p| p.column);
                    prep.push(
                        Finding::new(
                            P402::Anticlockwise {
                                trick: t.number,
                                tricks: tricks.len(),
                            },
                            t.meta.line,
                            col,
                        )
                        .in_trick(t.number),
                    );
                }
                this_p402 = true;
                prep.playable = false;
            } else if !t.short && !t.unreadable && !fits {
                let expected_order = expected_order();
                let bad = row_seats
                    .iter()
                    .enumerate()
                    .position(|(i, s)| expected_order.get(i) != Some(s))
                    .unwrap_or(0);
                let bad_seat = row_seats.get(bad).copied().unwrap_or(-1);
                let exp_seat = expected_order
                    .get(bad)
                    .map_or("nobody (every player has played)".to_string(), |&s| name(s));
                let who_bad = name(bad_seat); // a bare card of a mixed trick has no name written
                let twice = row_seats.iter().take(bad).any(|&s| s == bad_seat);
                let col = plays.get(bad).map_or(t.column, |p| p.column);
                prep.push(out_of_turn(t, col, who_bad, exp_seat, twice, ""));
                this_p402 = true;
                prep.playable = false;
            }
            if !t.unreadable && plays.len() != n && !this_p402 {
                prep.push(
                    Finding::new(
                        P402::CardCount {
                            trick: t.number,
                            cards: plays.len(),
                            players: n,
                        },
                        t.meta.line,
                        t.column,
                    )
                    .in_trick(t.number),
                );
                prep.playable = false;
            }
        }
        if t.unreadable {
            prep.playable = false; // an unreadable card (E103): the hand cannot be recomputed, say no more
            // nor is it known which card was played there: from this trick on, what each player
            // still held is unknown, as after a missing trick (no revoke judged on a guess)
            prep.gap_at.get_or_insert(prep.cards.len());
        }
        // bare cards are placed by their position: past an unreadable one (E103) who played the
        // rest is a guess, so none is judged against a seat's cards (D204) or held to a seat (what
        // each seat held is read from the cards it plays)
        let guessed = t.short && t.unreadable;
        let mut cards: super::Row<Card> = super::Row::new();
        let mut row: super::Row<i32> = super::Row::new();
        let mut cols: super::Row<u32> = super::Row::new();
        // a trick holds at most one card per seat: past that it is already a P402, and its cards
        // are not judged one by one (a trick of 100,000 cards costs what a trick of `n` does)
        for (p, &s) in plays.iter().zip(&row_seats).take(n.max(1)) {
            let c = p.card;
            let mut set_aside = false;
            let slot = usize::from(c.index());
            if !c.in_deck(deck) {
                if !dealt.reported_outside_deck(c) {
                    prep.push(
                        super::exchange::not_in_deck(c, rules, t.meta.line, p.column)
                            .in_trick(t.number)
                            .about(name(s)),
                    );
                    this_dup = true;
                }
                prep.playable = false;
            } else if let Some(first_in) = played_at.get(slot).copied().flatten() {
                prep.push(
                    Finding::new(
                        D201::PlayedTwice {
                            card: c,
                            first_trick: first_in,
                        },
                        t.meta.line,
                        p.column,
                    )
                    .in_trick(t.number)
                    .about(name(s)),
                );
                this_dup = true;
                prep.playable = false;
            } else {
                if let Some(x) = played_at.get_mut(slot) {
                    *x = Some(t.number);
                }
                let held = usize::try_from(s)
                    .ok()
                    .and_then(|i| prep.dealt.get(i))
                    .copied()
                    .unwrap_or(0);
                if held != 0 && !has(held, c) && !guessed {
                    let owner = (0..ni)
                        .find(|&o| prep.dealt.get(o as usize).is_some_and(|&m| has(m, c)))
                        .map_or("nobody".to_string(), name);
                    let gave = if prep.exchanged {
                        "the discard left with"
                    } else {
                        "the deal gave to"
                    };
                    prep.push(
                        Finding::new(
                            D204::NotDealt {
                                player: name(s),
                                card: c,
                                gave,
                                owner,
                            },
                            t.meta.line,
                            p.column,
                        )
                        .in_trick(t.number)
                        .about(name(s)),
                    );
                }
                if rules.trumps_only && prep.trump >= 0 && !has(trump_mask, c) && (s as usize) < n {
                    let left = trumps_left.get(s as usize).copied().unwrap_or(-1);
                    let holds = if left >= 0 {
                        left > 0
                    } else {
                        let me = seats.name(s);
                        tricks.iter().skip(ti).any(|u| {
                            u.plays.iter().any(|q| {
                                q.player.is_some_and(|x| game.name_of(x) == me)
                                    && has(trump_mask, q.card)
                            })
                        })
                    };
                    if !holds {
                        // holding a trump, it is a revoke (R501); without one, the player is out
                        prep.push(
                            Finding::new(
                                P407::DroppedOut {
                                    player: name(s),
                                    card: c,
                                    trick: t.number,
                                },
                                t.meta.line,
                                p.column,
                            )
                            .in_trick(t.number)
                            .about(name(s)),
                        );
                        set_aside = true;
                    }
                }
            }
            if let Some(x) = usize::try_from(s).ok().and_then(|i| trumps_left.get_mut(i)) {
                if *x > 0 && has(trump_mask, c) {
                    *x -= 1;
                }
            }
            if let Some(x) = usize::try_from(s)
                .ok()
                .and_then(|i| count_by_seat.get_mut(i))
            {
                *x += 1;
            }
            if !set_aside && !guessed {
                cards.push(c);
                row.push(s);
                cols.push(p.column);
            }
        }
        // after a broken trick (unreadable card, a card played twice, cards missing) its winner is not
        // known for sure: the next trick's record says who led
        let broken = t.unreadable
            || seats_unknown
            || !absent.is_empty()
            || (!rules.trumps_only && plays.len() != n)
            || this_dup;
        let table = TrumpTable::get(prep.trump, deck);
        last_winner = if cards.is_empty() {
            leader
        } else {
            row.get(table.winner_pos(cards.iter().copied()))
                .copied()
                .unwrap_or(-1)
        };
        leader = if broken || prep.trump < 0 {
            -1
        } else {
            last_winner
        };
        prep.cards.push(cards);
        prep.seats.push(row);
        prep.trick_lines.push(t.meta.line);
        prep.play_cols.push(cols);
    }
    let table = TrumpTable::get(prep.trump, deck);
    let bids_line = h.bids.as_ref().map(|b| b.meta.line);
    if let Some(bl) = bids_line {
        // a takeover by pitch must name a new suit (a smudge needs none)
        if prep.takeover
            && prep.trump >= 0
            && prep.pitch_suit(prep.pitched_by) == prep.trump
            && prep.pitch_suit(prep.pitcher) < 0
            && prep.pitchers.contains(&prep.pitcher)
        {
            prep.push(
                Finding::new(
                    A309::SameSuitTakeover {
                        dealer: name(prep.pitcher),
                        pitcher: name(prep.pitched_by),
                        suit: SuitName(prep.trump),
                    },
                    bl,
                    1,
                )
                .about(name(prep.pitcher)),
            );
        }
    }
    let pitched_suit = prep.pitch_suit(prep.pitcher);
    if pitched_suit >= 0 && prep.trump >= 0 && pitched_suit != prep.trump && !p404 {
        let (line, col) = tricks.first().map_or((h.meta.line, 1), |t| {
            (t.meta.line, t.plays.first().map_or(1, |p| p.column))
        });
        prep.push(
            Finding::new(
                P404::PitchedOtherSuit {
                    pitcher: name(prep.pitcher),
                    pitched: SuitName(pitched_suit),
                    trump: SuitName(prep.trump),
                },
                line,
                col,
            )
            .in_trick(1),
        );
    }
    let lead = prep.cards.first().and_then(|cs| cs.first()).copied();
    if rules.first_trick_trump == FirstTrickTrump::Free
        && prep.gap_at != Some(0) // the first trick is the one missing
        && lead.is_some_and(|c| table.suit(c) != table.trump)
    {
        let first: Vec<(usize, Card, i32)> = prep
            .cards
            .first()
            .map(|cs| {
                cs.iter()
                    .zip(prep.seats.first().into_iter().flatten())
                    .enumerate()
                    .map(|(i, (&c, &s))| (i, c, s))
                    .collect()
            })
            .unwrap_or_default();
        for (pos, c, seat) in first {
            if pos > 0 && has(trump_mask, c) && prep.held_before(seat, 0) & !trump_mask != 0 {
                let line = prep.trick_lines.first().copied().unwrap_or(h.meta.line);
                let col = prep
                    .play_cols
                    .first()
                    .and_then(|cs| cs.get(pos))
                    .copied()
                    .unwrap_or(1);
                prep.push(
                    Finding::new(
                        P405::TrumpedFirst {
                            player: name(seat),
                            card: c,
                        },
                        line,
                        col,
                    )
                    .in_trick(1)
                    .about(name(seat)),
                );
            }
        }
    }
    let played = h.tricks.len();
    let size = rules.hand_size as usize;
    let last_line = h.tricks.last().map_or(h.meta.line, |t| t.meta.line);
    let too_many = |prep: &mut Prepared| {
        let line = h.tricks.get(size).map_or(last_line, |t| t.meta.line);
        prep.push(Finding::new(D202::TooManyTricks { played, size }, line, 1));
        prep.playable = false;
    };
    if rules.trumps_only {
        let short: Vec<i32> = (0..ni)
            .filter(|&s| trumps_left.get(s as usize).is_some_and(|&x| x > 0))
            .collect();
        if played > size {
            too_many(prep);
        } else if !short.is_empty() && prep.playable {
            let names: Vec<String> = short.iter().map(|&s| seats.name(s).to_string()).collect();
            let first = names.first().cloned().unwrap_or_default();
            prep.push(
                Finding::new(
                    P406::TrumpsLeft {
                        players: Listed(names),
                        verb: if short.len() == 1 { "holds" } else { "hold" },
                        played,
                    },
                    last_line,
                    1,
                )
                .about(first),
            );
            prep.playable = false;
        }
    } else if played < size && !gap_reported {
        prep.push(Finding::new(P406::Short { played, size }, last_line, 1));
        prep.playable = false;
    } else if played > size {
        too_many(prep);
    } else if prep.playable {
        for s in 0..n {
            let k = count_by_seat.get(s).copied().unwrap_or(0);
            if k as usize != size {
                prep.push(
                    Finding::new(
                        D202::CardsPlayed {
                            player: seats.name(s as i32).into(),
                            played: k,
                            size,
                        },
                        last_line,
                        1,
                    )
                    .about(seats.name(s as i32)),
                );
                prep.playable = false;
            }
        }
    }
}

#[cfg(test)]
#[allow(clippy::indexing_slicing)]
mod legal_tests {
    use super::*;
    use crate::cards::{Deck, cards_of};

    #[test]
    fn legal_agrees_with_breaks_follow_card_by_card() {
        let mut x: u64 = 0x2545_f491_4f6c_dd1d;
        let rules = [
            FollowRule::Follow(Follow::FollowOrTrump),
            FollowRule::Follow(Follow::Strict),
            FollowRule::Follow(Follow::FreeWhenVoid),
            FollowRule::TrumpsOnly,
            FollowRule::FreeFirst,
        ];
        for _ in 0..20_000 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let deck = Deck::ALL[(x % 3) as usize];
            let table = TrumpTable::get((x >> 8) as i32 % 5, deck);
            let held = (x >> 3) & ((1u64 << 54) - 1) & ((x >> 1) | (x >> 2));
            let led = Card::new(((x >> 40) % 54) as u8).filter(|_| x % 7 != 0);
            for rule in rules {
                let mut want = 0;
                for c in cards_of(held) {
                    let trumps_it = rule == FollowRule::FreeFirst
                        && led.is_some()
                        && table.is_trump(c)
                        && held & !table.trumps() != 0;
                    if !breaks_follow(rule, table, held, led, c) && !trumps_it {
                        want |= c.bit();
                    }
                }
                assert_eq!(
                    legal(rule, table, held, led),
                    want,
                    "{rule:?} {held:x} {led:?}"
                );
            }
        }
    }
}

#[cfg(test)]
#[allow(clippy::indexing_slicing, clippy::panic)]
mod bound_tests {
    use crate::notation::parser::parse_all;
    fn preset(name: &str) -> crate::rules::RuleSet {
        match crate::rules::preset(name) {
            Ok(r) => r,
            Err(e) => panic!("{name}: {}", e.message),
        }
    }

    #[test]
    fn a_trick_of_thousands_of_cards_is_judged_for_its_first_card_per_seat_only() {
        let names = ["Amy", "Ben", "Cal"];
        let mut t = String::from(
            "[Rules \"auction\"]\n[Players \"Amy Ben Cal\"]\nhand 1\ndealer Amy\nbids Ben 2, Cal pass, Amy pass\n1.",
        );
        for i in 0..5_000 {
            t.push_str(&format!(
                " {}:{}",
                names[i % 3],
                crate::cards::CARD_NAMES[i * 7 % 52]
            ));
        }
        t.push('\n');
        let (games, _) = parse_all(t.as_bytes(), "t");
        assert_eq!(games[0].hands[0].tricks[0].plays.len(), 5_000);
        let res = crate::engine::audit_game(&games[0], &preset("auction"));
        // the P402 for the trick, and at most a finding for each of its first three cards
        assert!(res.findings.len() <= 6, "{:?}", res.findings);
        assert!(res.findings.iter().any(|f| f.code().as_str() == "P402"));
    }

    #[test]
    fn seats_past_the_rules_bound_are_one_finding() {
        let names: Vec<String> = (0..20_000).map(|i| format!("P{i}")).collect();
        let t = format!(
            "[Rules \"auction\"]\n[Players \"{}\"]\nhand 1\ndealer P0\nbids P1 2, P2 pass\n1. P1:AS P2:KS\n",
            names.join(" ")
        );
        let (games, _) = parse_all(t.as_bytes(), "t");
        let res = crate::engine::audit_game(&games[0], &preset("auction"));
        let codes: Vec<&str> = res.findings.iter().map(|f| f.code().as_str()).collect();
        assert_eq!(codes, ["E107"]);
        assert!(!res.audited);
    }
}
