//! Games played by simple bots, for demos, tests and benchmarks, with optional injected faults
//! and the answer key of the findings they must cause.
//!
//! The bots bid on the strength of their best suit and play plausibly (win cheaply when they
//! can, throw the lowest card when they cannot), choosing only among what the engine allows:
//! bids the auction's [`Standing`] lets stand, cards [`play::legal`] lets play. Scores, totals
//! and the winner are written by auditing the game so far with the engine, so a clean
//! simulated game audits clean, and each injected fault causes exactly the findings of its key.
//!
//! Every game draws from its own random stream, made from the seed and the game's number: the
//! same seed gives the same games, byte for byte, whatever the number of threads.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Condvar, Mutex, mpsc};

use rand::seq::{IndexedRandom, SliceRandom};
use rand::{Rng, SeedableRng};
use rand_pcg::Pcg64Mcg;

use crate::cards::{Card, CardMask, Deck, Suit, TrumpTable, cards_of, off_jack, trump_order};
use crate::engine::auction::{Standing, speaking_order};
use crate::engine::play::{FollowRule, legal};
use crate::engine::{self, Seats};
use crate::notation::parser::Parser;
use crate::notation::writer::write_game;
use crate::notation::{
    Bid, Bids, Code, Deal, Exchange, ExchangeKind, Game, Hand, Holding, Meta, Name, Named, Play,
    Plays, ScoreEntry, ScoreKind, ScoreLine, Tag, Trick, TrumpLine, Widow,
};
use crate::rules::{AllPass, Auction, PITCH_VALUE, RuleSet, Smudge};

/// The players' names, in seat order (as many as the rules seat).
pub const NAMES: [&str; 10] = [
    "Ann", "Bob", "Cal", "Dee", "Eve", "Fay", "Gus", "Hal", "Ivy", "Jon",
];

/// A game ends after this many hands even if nobody has gone out.
const MAX_HANDS: usize = 80;

/// Hands played between two audits of the game so far (which write its sheet and find who went out).
const HANDS_PER_AUDIT: usize = 8;

/// Games handed to a worker at once.
const BATCH_GAMES: usize = 32;

/// A kind of mistake injected into a clean game.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Fault {
    /// A card swapped between two tricks so that a player fails to follow suit (R501, with its R503).
    Revoke,
    /// One entry of a hand's score line one too high, carried into the totals (S601).
    Score,
    /// One entry of a total line one too high, carried forward (S602).
    Total,
    /// The winner line naming someone who did not go out (S603).
    Winner,
}

impl Fault {
    /// Every fault, in the order they are injected: a revoke rewrites the sheet from the engine,
    /// which would undo a slip made on the sheet before it.
    pub const ALL: [Fault; 4] = [Fault::Revoke, Fault::Score, Fault::Total, Fault::Winner];

    /// The fault's name on the command line.
    pub fn word(self) -> &'static str {
        match self {
            Fault::Revoke => "revoke",
            Fault::Score => "score",
            Fault::Total => "total",
            Fault::Winner => "winner",
        }
    }

    /// The fault named `word`.
    pub fn from_word(word: &str) -> Option<Fault> {
        Fault::ALL.into_iter().find(|f| f.word() == word)
    }
}

/// One finding an injected fault must cause: the answer key's entry.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Expected {
    /// The game's name (its `GameId`).
    pub game: String,
    /// The line of the statement the finding is reported at.
    pub line: u32,
    pub code: Code,
    /// The hand (None: the winner line).
    pub hand: Option<u32>,
    /// The player or side the finding is about.
    pub player: String,
    /// The trick of a revoke.
    pub trick: Option<u32>,
}

/// What to simulate.
#[derive(Clone, Debug)]
pub struct Options {
    pub games: usize,
    pub seed: u64,
    pub players: usize,
    /// Each game gets one fault of each kind where a place for it fits.
    pub faults: Vec<Fault>,
    /// Games are named `{id_prefix}-{N}`, N from 1.
    pub id_prefix: String,
    /// Threads.
    pub jobs: usize,
}

/// Why a simulation could not run.
#[derive(Debug)]
pub enum SimError {
    /// The rules cannot be played by this many players.
    Seats(String),
    /// Writing the games failed.
    Write(std::io::Error),
}

impl std::fmt::Display for SimError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            SimError::Seats(m) => f.write_str(m),
            SimError::Write(e) => write!(f, "{e}"),
        }
    }
}

fn splitmix(mut x: u64) -> u64 {
    x = x.wrapping_add(0x9e37_79b9_7f4a_7c15);
    x = (x ^ (x >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    x = (x ^ (x >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    x ^ (x >> 31)
}

/// The random stream of game `index` (0-based) under `seed`.
fn game_rng(seed: u64, index: usize) -> Pcg64Mcg {
    Pcg64Mcg::seed_from_u64(splitmix(seed) ^ splitmix(index as u64 ^ 0x5eed_0000_0000_0000))
}

fn chance(rng: &mut Pcg64Mcg, p: f64) -> bool {
    rng.random::<f64>() < p
}

fn count(mask: CardMask) -> i32 {
    mask.count_ones() as i32
}

/// The card of `mask` that `key` ranks highest (the lowest-numbered among equals).
fn best_by<K: Ord>(mask: CardMask, key: impl Fn(Card) -> K) -> Option<Card> {
    let mut best: Option<(K, Card)> = None;
    for c in cards_of(mask) {
        let k = key(c);
        if best.as_ref().is_none_or(|(b, _)| k > *b) {
            best = Some((k, c));
        }
    }
    best.map(|(_, c)| c)
}

/// The card of `mask` that `key` ranks lowest (the lowest-numbered among equals).
fn worst_by<K: Ord>(mask: CardMask, key: impl Fn(Card) -> K) -> Option<Card> {
    let mut best: Option<(K, Card)> = None;
    for c in cards_of(mask) {
        let k = key(c);
        if best.as_ref().is_none_or(|(b, _)| k < *b) {
            best = Some((k, c));
        }
    }
    best.map(|(_, c)| c)
}

// ---------------------------------------------------------------------- bidding

/// A rough number of points a hand expects with `suit` as trump.
fn strength(held: CardMask, suit: u8, rules: &RuleSet) -> i32 {
    let table = TrumpTable::get(i32::from(suit), rules.deck);
    let trumps = held & table.trumps();
    let Some(top_card) = best_by(trumps, |c| table.strength(c)) else {
        return 0;
    };
    let top = table.strength(top_card);
    let n = count(trumps);
    if rules.deck == Deck::Jokers {
        // many trumps take many of the ten points; the draw helps the bidder
        return n + i32::from(top >= 14) + 1;
    }
    let ace = trump_order(suit, rules.deck).len() as i32 - 1;
    let bottom = worst_by(trumps, |c| table.strength(c)).map_or(99, |c| table.strength(c));
    let has = |c: Card| held & c.bit() != 0;
    // High, Low, Jack (and the jick, where it is a point), and length
    let mut est = i32::from(top >= ace - 1)
        + i32::from(bottom <= 2)
        + i32::from(has(Card::of(9, suit)))
        + i32::from(n >= 3);
    if rules.deck == Deck::Jick {
        est += i32::from(has(off_jack(suit)));
    }
    est + i32::from(n >= 4)
}

/// The suit a hand would pitch, and what it expects to make there.
fn best_suit(held: CardMask, rules: &RuleSet) -> (i32, u8) {
    best_suit_but(held, rules, None)
}

/// The best suit but `not` (a suit already pitched, which a takeover may not name again).
fn best_suit_but(held: CardMask, rules: &RuleSet, not: Option<u8>) -> (i32, u8) {
    let mut best = (i32::MIN, 0i32, 0u8);
    for suit in (0..4u8).filter(|&s| Some(s) != not) {
        let trumps = count(held & TrumpTable::get(i32::from(suit), rules.deck).trumps());
        let s = strength(held, suit, rules);
        if (s, trumps) > (best.0, best.1) {
            best = (s, trumps, suit);
        }
    }
    (best.0, best.2)
}

/// A word the bots may say in the auction.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Word {
    Pass,
    Number(i32),
    Pitch(u8),
}

impl Word {
    fn value(self) -> Option<i32> {
        match self {
            Word::Pass => None,
            Word::Number(v) => Some(v),
            Word::Pitch(_) => Some(PITCH_VALUE),
        }
    }

    fn pitch(self) -> Option<i32> {
        match self {
            Word::Pitch(s) => Some(i32::from(s)),
            _ => None,
        }
    }

    fn text(self) -> String {
        match self {
            Word::Pass => "pass".into(),
            Word::Number(v) => v.to_string(),
            Word::Pitch(s) => format!("pitch {}", Suit::new(s).map_or('?', Suit::letter)),
        }
    }
}

/// What the bots said in one auction.
struct Spoken {
    /// The words in speaking order.
    bids: Vec<(i32, String)>,
    /// Who pitches (None: thrown in).
    pitcher: Option<i32>,
    /// The suit the pitcher named with a pitch, which is then trump.
    pitched: Option<u8>,
}

/// The bots' auction.
fn auction(rules: &RuleSet, hands: &[CardMask], dealer: i32) -> Spoken {
    let n = hands.len();
    let sell = rules.auction == Auction::Sell;
    let eldest = (dealer + 1).rem_euclid(n as i32);
    let held = |s: i32| hands.get(s as usize).copied().unwrap_or(0);
    let cap = if matches!(rules.smudge, Smudge::AllTricks | Smudge::Moon) {
        rules.top_bid - 1 // a top bid that needs every trick is for the brave
    } else {
        rules.top_bid
    };
    let mut standing = Standing::new(dealer, sell);
    let mut bids = Vec::with_capacity(n + 1);
    let mut pitches: Vec<(i32, u8)> = Vec::new();
    for seat in speaking_order(rules, n, dealer) {
        let (est, suit) = best_suit(held(seat), rules);
        let est = est.min(cap);
        let is_dealer = seat == dealer && !sell;
        let wish = if standing.pitched >= 0 {
            // only the dealer may speak, by pitching another suit (its best one but the suit
            // pitched); speaking last, the dealer takes over on a point less than a pitch needs
            let taken = u8::try_from(standing.pitched_suit).ok();
            let (other, suit) = best_suit_but(held(seat), rules, taken);
            (is_dealer && other.min(cap) >= PITCH_VALUE - 1).then_some(Word::Pitch(suit))
        } else if rules.pitching && est >= PITCH_VALUE && PITCH_VALUE > standing.high {
            Some(Word::Pitch(suit))
        } else {
            (est >= rules.min_bid).then_some(Word::Number(est))
        };
        let stands = |w: Word| standing.would(rules, seat, w.value(), w.pitch()).stands();
        let word = match wish {
            Some(w) if stands(w) => w,
            _ if standing.may_pass(rules, seat) => Word::Pass,
            // the dealer must bid: the lowest bid the auction lets stand
            _ => (rules.min_bid..=rules.top_bid)
                .map(Word::Number)
                .find(|&w| stands(w))
                .unwrap_or(Word::Pass),
        };
        if word != Word::Pass {
            standing.bid(rules, seat, word.value(), word.pitch());
        }
        if let Word::Pitch(suit) = word {
            pitches.push((seat, suit));
        }
        bids.push((seat, word.text()));
    }
    let high_seat = standing.high_seat;
    let pitcher = if sell {
        let sells = high_seat >= 0
            && (standing.high >= 2 || best_suit(held(eldest), rules).0 < standing.high);
        bids.push((eldest, if sells { "sells" } else { "keeps" }.into()));
        Some(if sells { high_seat } else { eldest })
    } else if high_seat >= 0 {
        Some(high_seat)
    } else {
        (rules.all_pass == AllPass::EldestPitches).then_some(eldest)
    };
    let pitched = pitches
        .iter()
        .find(|(s, _)| Some(*s) == pitcher)
        .map(|(_, suit)| *suit);
    Spoken {
        bids,
        pitcher,
        pitched,
    }
}

// ---------------------------------------------------------------------- exchange and play

/// The order a bot throws cards in: non-trumps first, lowest first, then the lowest trumps.
fn throw_order(held: CardMask, table: &TrumpTable) -> Vec<Card> {
    let mut v: Vec<Card> = cards_of(held).collect();
    v.sort_by_key(|&c| (table.is_trump(c), table.strength(c), c.rank()));
    v
}

/// The bots' discards and draws after trump is named: (kind, seat, cards) in the order they happen.
fn exchange(
    rules: &RuleSet,
    hands: &mut [CardMask],
    stock: &mut Vec<Card>,
    table: &TrumpTable,
    dealer: i32,
    pitcher: i32,
) -> Vec<(ExchangeKind, i32, Vec<Card>)> {
    let n = hands.len();
    let size = rules.hand_size as usize;
    let order: Vec<usize> = (0..n)
        .map(|i| (dealer.rem_euclid(n as i32) as usize + 1 + i) % n)
        .collect();
    let mut lines = Vec::new();
    for &s in &order {
        let Some(hand) = hands.get_mut(s) else {
            continue;
        };
        let keep = throw_order(*hand, table);
        let out: Vec<Card> = if rules.draw {
            let trumps: Vec<Card> = keep
                .iter()
                .copied()
                .filter(|&c| table.is_trump(c))
                .collect();
            let excess = trumps.len().saturating_sub(size);
            keep.iter()
                .copied()
                .filter(|&c| !table.is_trump(c))
                .chain(trumps.into_iter().take(excess))
                .collect()
        } else {
            keep.iter()
                .copied()
                .take(keep.len().saturating_sub(size))
                .collect()
        };
        if !out.is_empty() {
            for c in &out {
                *hand &= !c.bit();
            }
            lines.push((ExchangeKind::Discard, s as i32, out));
        }
    }
    if rules.draw {
        for &s in &order {
            let Some(hand) = hands.get_mut(s) else {
                continue;
            };
            let want = size
                .saturating_sub(hand.count_ones() as usize)
                .min(stock.len());
            let got: Vec<Card> = stock.drain(..want).collect();
            if !got.is_empty() {
                for c in &got {
                    *hand |= c.bit();
                }
                lines.push((ExchangeKind::Draw, s as i32, got));
            }
        }
    }
    if rules.leftover_to_bidder() && !stock.is_empty() {
        if let Some(hand) = hands.get_mut(pitcher as usize) {
            let got = std::mem::take(stock);
            for c in &got {
                *hand |= c.bit();
            }
            lines.push((ExchangeKind::Draw, pitcher, got));
            let keep = throw_order(*hand, table);
            let out: Vec<Card> = keep
                .iter()
                .copied()
                .take(keep.len().saturating_sub(size))
                .collect();
            for c in &out {
                *hand &= !c.bit();
            }
            lines.push((ExchangeKind::Discard, pitcher, out));
        }
    }
    lines
}

/// A bot's card: from the cards the engine lets it play, a trump or a high card to lead, the
/// cheapest card that takes the trick, or else the lowest.
fn choose(
    rng: &mut Pcg64Mcg,
    rules: &RuleSet,
    table: &TrumpTable,
    held: CardMask,
    trick: &[Card],
    t: usize,
    lead: Option<Card>,
) -> Option<Card> {
    let allowed = legal(
        FollowRule::of(rules, table, t, lead),
        table,
        held,
        trick.first().copied(),
    );
    let Some(&first) = trick.first() else {
        let trumps = allowed & table.trumps();
        if trumps != 0 && chance(rng, 0.6) {
            return best_by(trumps, |c| table.strength(c));
        }
        return if chance(rng, 0.5) {
            best_by(allowed, Card::rank)
        } else {
            worst_by(allowed, Card::rank)
        };
    };
    let led = table.suit(first);
    let best = trick
        .iter()
        .map(|&c| table.in_trick(c, led))
        .max()
        .unwrap_or(-1);
    let winners: CardMask = cards_of(allowed)
        .filter(|&c| table.in_trick(c, led) > best)
        .fold(0, |m, c| m | c.bit());
    if winners != 0 && chance(rng, 0.8) {
        return worst_by(winners, |c| table.in_trick(c, led));
    }
    worst_by(allowed, |c| (table.in_trick(c, led), c.rank()))
}

/// The game being simulated: its records, and the names of its seats and sides.
struct Table<'r> {
    rules: &'r RuleSet,
    game: Game,
    n: usize,
    exchanging: bool,
}

fn meta() -> Meta {
    Meta::default()
}

fn holding(seat: i32, cards: impl IntoIterator<Item = Card>) -> Holding {
    Holding {
        player: Name(seat as u32),
        cards: cards.into_iter().collect(),
        ..Holding::default()
    }
}

impl Table<'_> {
    fn word(&mut self, w: &str) -> Name {
        self.game.intern_word(w)
    }

    /// One hand played by the bots; `true` with it when everybody passed and it was thrown in.
    fn play_hand(
        &mut self,
        number: u32,
        dealer: i32,
        rng: &mut Pcg64Mcg,
        short: bool,
    ) -> (Hand, bool) {
        let rules = self.rules;
        let n = self.n;
        let ds = rules.deal_size_for(n) as usize;
        let mut deck: Vec<Card> = (0..rules.deck.size() as u8).filter_map(Card::new).collect();
        loop {
            deck.shuffle(rng);
            let mut hands: Vec<CardMask> = deck
                .chunks(ds)
                .take(n)
                .map(|cs| cs.iter().fold(0, |m, c| m | c.bit()))
                .collect();
            let mut stock: Vec<Card> = deck.get(n * ds..).unwrap_or(&[]).to_vec();
            let spoken = auction(rules, &hands, dealer);
            let bids: Vec<Bid> = spoken
                .bids
                .into_iter()
                .map(|(s, w)| Bid {
                    player: Name(s as u32),
                    word: self.word(&w),
                    column: 0,
                })
                .collect();
            let mut h = Hand {
                number,
                dealer: Some(Named {
                    name: Name(dealer as u32),
                    column: 0,
                    meta: meta(),
                }),
                deal: Some(Deal {
                    holdings: hands
                        .iter()
                        .enumerate()
                        .map(|(s, &m)| holding(s as i32, cards_of(m)))
                        .collect(),
                    ..Deal::default()
                }),
                widow: self.exchanging.then(|| Widow {
                    cards: stock.iter().copied().collect(),
                    ..Widow::default()
                }),
                bids: Some(Bids {
                    bids,
                    ..Bids::default()
                }),
                ..Hand::default()
            };
            let Some(pitcher) = spoken.pitcher else {
                return (h, true);
            };
            let mut trump = spoken.pitched.unwrap_or_else(|| {
                best_suit(hands.get(pitcher as usize).copied().unwrap_or(0), rules).1
            });
            let mut short = short;
            if self.exchanging {
                let table = TrumpTable::get(i32::from(trump), rules.deck);
                let lines = exchange(rules, &mut hands, &mut stock, table, dealer, pitcher);
                let size = rules.hand_size;
                if !rules.trumps_only && hands.iter().any(|m| m.count_ones() < size) {
                    continue; // the stock ran dry before every hand was refilled: deal anew
                }
                h.trump = Suit::new(trump).map(|suit| TrumpLine {
                    suit,
                    column: 0,
                    meta: meta(),
                });
                h.exchanges = lines
                    .into_iter()
                    .map(|(kind, s, cs)| Exchange {
                        kind,
                        holding: holding(s, cs),
                        meta: meta(),
                    })
                    .collect();
                short = short && !rules.trumps_only; // drop-outs are written in the long form
            }
            h.tricks = self.play_tricks(&mut hands, pitcher, &mut trump, rng, short);
            let joker_led = h
                .tricks
                .first()
                .and_then(|t| t.plays.first())
                .is_some_and(|p| p.card.suit() > 3);
            let free = rules.first_trick_trump == crate::rules::FirstTrickTrump::Free;
            if (free || joker_led) && h.trump.is_none() {
                // trump is named on its own line, whatever the first lead
                h.trump = Suit::new(trump).map(|suit| TrumpLine {
                    suit,
                    column: 0,
                    meta: meta(),
                });
            }
            return (h, false);
        }
    }

    fn play_tricks(
        &self,
        held: &mut [CardMask],
        pitcher: i32,
        trump: &mut u8,
        rng: &mut Pcg64Mcg,
        short: bool,
    ) -> Vec<Trick> {
        let rules = self.rules;
        let n = self.n as i32;
        let mut tricks: Vec<Trick> = Vec::with_capacity(rules.hand_size as usize);
        let mut leader = pitcher;
        let mut lead: Option<Card> = None;
        for t in 0..rules.hand_size as usize {
            let mut table = TrumpTable::get(i32::from(*trump), rules.deck);
            let hand = |s: i32, held: &[CardMask]| held.get(s as usize).copied().unwrap_or(0);
            let still_in: Vec<i32> = (0..n)
                .filter(|&s| !rules.trumps_only || hand(s, held) & table.trumps() != 0)
                .collect();
            if still_in.is_empty() {
                break;
            }
            if !still_in.contains(&leader) {
                // no trump left: the lead passes to the left
                leader = still_in
                    .iter()
                    .copied()
                    .min_by_key(|&s| (s - leader).rem_euclid(n))
                    .unwrap_or(leader);
            }
            let mut seats = still_in;
            seats.sort_by_key(|&s| (s - leader).rem_euclid(n));
            let mut cards: Vec<Card> = Vec::with_capacity(seats.len());
            for &s in &seats {
                let mine = hand(s, held);
                let card = if t == 0 && s == pitcher {
                    // the pitcher leads its highest trump, which names trump where nothing else has
                    let allowed = legal(FollowRule::of(rules, table, 0, None), table, mine, None);
                    let c = best_by(allowed & table.trumps(), |c| table.strength(c))
                        .or_else(|| best_by(allowed, Card::rank));
                    // (a joker names no suit: the trump line then names it)
                    if let (false, Some(suit)) = (
                        self.exchanging,
                        c.and_then(|c| u8::try_from(c.suit()).ok())
                            .filter(|&s| s < 4),
                    ) {
                        *trump = suit;
                        table = TrumpTable::get(i32::from(*trump), rules.deck);
                    }
                    c
                } else {
                    choose(
                        rng,
                        rules,
                        table,
                        mine,
                        &cards,
                        t,
                        lead.or(cards.first().copied()),
                    )
                };
                let Some(card) = card else {
                    continue;
                };
                if let Some(m) = held.get_mut(s as usize) {
                    *m &= !card.bit();
                }
                cards.push(card);
            }
            lead = lead.or(cards.first().copied());
            let plays: Plays = seats
                .iter()
                .zip(&cards)
                .map(|(&s, &card)| Play {
                    player: (!short).then_some(Name(s as u32)),
                    card,
                    column: 0,
                })
                .collect();
            tricks.push(Trick {
                number: t as u32 + 1,
                plays,
                short,
                ..Trick::default()
            });
            let pos = table.winner_pos(cards.iter().copied());
            leader = seats.get(pos).copied().unwrap_or(leader);
        }
        tricks
    }
}

// ---------------------------------------------------------------------- the sheet

/// A score or total line for every side, from the engine's figures.
fn sheet_line(kind: ScoreKind, values: &[i32], sides: &[Name]) -> ScoreLine {
    ScoreLine {
        kind,
        entries: sides
            .iter()
            .zip(values)
            .map(|(&key, &value)| ScoreEntry {
                key,
                value,
                column: 0,
                value_column: 0,
                value_len: 0,
            })
            .collect(),
        meta: meta(),
        unreadable: false,
        end_column: 0,
    }
}

/// The interned name of each side, in the engine's side order.
fn side_keys(game: &Game, seats: &Seats) -> Vec<Name> {
    seats
        .side_names
        .iter()
        .map(|s| {
            Name(
                game.names
                    .iter()
                    .position(|g| g == s)
                    .map_or(0, |i| i as u32),
            )
        })
        .collect()
}

/// Rewrite every score and total line (and the winner, and drop the hands after it) from the
/// engine's audit of the game; whether someone went out.
fn rescore(game: &mut Game, rules: &RuleSet) -> bool {
    let res = engine::audit_game(game, rules);
    let Some(seats) = &res.seats else {
        return false;
    };
    let sides = side_keys(game, seats);
    game.winner = None;
    for (i, hs) in res.hands.iter().enumerate() {
        if let Some(h) = game.hands.get_mut(i) {
            h.score = Some(sheet_line(ScoreKind::Score, &hs.score, &sides));
            h.total = Some(sheet_line(ScoreKind::Total, &hs.total, &sides));
        }
        if hs.went_out >= 0 {
            game.hands.truncate(i + 1);
            game.winner = sides.get(hs.went_out as usize).map(|&name| Named {
                name,
                column: 0,
                meta: meta(),
            });
            return true;
        }
    }
    false
}

fn game_tags(rules: &RuleSet, n: usize, gid: &str, rng: &mut Pcg64Mcg) -> Game {
    let mut game = Game::default();
    let names: Vec<&str> = NAMES.iter().copied().take(n).collect();
    for p in &names {
        game.intern(p);
    }
    let month = rng.random_range(1..=12u32);
    let day = rng.random_range(1..=28u32);
    let mut tags = vec![
        ("Event", "Simulated".to_string()),
        ("Site", "auditor simulate".to_string()),
        ("Date", format!("2026.{month:02}.{day:02}")),
        ("GameId", gid.to_string()),
        ("Rules", rules.text.clone()),
        ("Players", names.join(" ")),
    ];
    if rules.partnership {
        // six players: three teams of two; else two teams, seated alternately
        let k = if n == 6 { 3 } else { 2 };
        let teams: &[&str] = if k == 2 {
            &["NS", "EW"]
        } else {
            &["A", "B", "C"]
        };
        let value: Vec<String> = teams
            .iter()
            .enumerate()
            .map(|(i, t)| {
                let members: Vec<&str> = names.iter().copied().skip(i).step_by(k).collect();
                format!("{t}: {}", members.join(" "))
            })
            .collect();
        for t in teams {
            game.intern(t);
        }
        tags.push(("Teams", value.join("; ")));
    }
    game.tags = tags
        .into_iter()
        .map(|(name, value)| Tag {
            name: name.to_string(),
            value,
            meta: meta(),
        })
        .collect();
    game
}

/// One complete game (until someone goes out, or [`MAX_HANDS`]) with its score sheet.
fn simulate_game(rules: &RuleSet, n: usize, gid: &str, rng: &mut Pcg64Mcg) -> Game {
    let mut table = Table {
        rules,
        game: game_tags(rules, n, gid, rng),
        n,
        exchanging: rules.has_exchange(n),
    };
    let mut dealer = rng.random_range(0..n) as i32;
    let mut hands: Vec<Hand> = Vec::new();
    while hands.len() < MAX_HANDS {
        // a few hands at a time, then one audit writes the sheet and cuts the game where someone went out
        for _ in 0..HANDS_PER_AUDIT.min(MAX_HANDS - hands.len()) {
            let short = chance(rng, 0.2);
            let (hand, thrown) = table.play_hand(hands.len() as u32 + 1, dealer, rng, short);
            hands.push(hand);
            if !(thrown && rules.all_pass == AllPass::Redeal) {
                dealer = (dealer + 1) % n as i32;
            }
        }
        table.game.hands = hands;
        if rescore(&mut table.game, rules) {
            return table.game;
        }
        hands = std::mem::take(&mut table.game.hands);
    }
    table.game.hands = hands;
    table.game
}

// ---------------------------------------------------------------------- faults

/// What a fault must cause, before its line is known.
struct Injected {
    code: Code,
    hand: Option<u32>,
    player: String,
    trick: Option<u32>,
}

fn add_to(line: &mut Option<ScoreLine>, key: Name, by: i32) {
    if let Some(l) = line {
        for e in &mut l.entries {
            if e.key == key {
                e.value += by;
            }
        }
    }
}

/// `game` with one fault of kind `fault`, and what it must cause; None when no place fits.
fn inject(game: &mut Game, fault: Fault, rules: &RuleSet, rng: &mut Pcg64Mcg) -> Option<Injected> {
    let played: Vec<usize> = game
        .hands
        .iter()
        .enumerate()
        .filter(|(_, h)| !h.tricks.is_empty() && h.score.is_some())
        .map(|(i, _)| i)
        .collect();
    let &i = played.choose(rng)?;
    let number = game.hands.get(i)?.number;
    match fault {
        Fault::Score => {
            let h = game.hands.get_mut(i)?;
            let line = h.score.as_mut()?;
            let e = rng.random_range(0..line.entries.len().max(1));
            let entry = line.entries.get_mut(e)?;
            entry.value += 1;
            let key = entry.key;
            // the keeper carries the wrong score into every later total, so only S601 arises
            let sign = if rules.count_down { -1 } else { 1 };
            for h in game.hands.iter_mut().skip(i) {
                add_to(&mut h.total, key, sign);
            }
            Some(Injected {
                code: Code::S601,
                hand: Some(number),
                player: game.name_of(key).to_string(),
                trick: None,
            })
        }
        Fault::Total => {
            let line = game.hands.get(i)?.total.as_ref()?;
            let e = rng.random_range(0..line.entries.len().max(1));
            let key = line.entries.get(e)?.key;
            for h in game.hands.iter_mut().skip(i) {
                add_to(&mut h.total, key, 1); // the slip is carried forward, as on a real sheet
            }
            Some(Injected {
                code: Code::S602,
                hand: Some(number),
                player: game.name_of(key).to_string(),
                trick: None,
            })
        }
        Fault::Winner => {
            let winner = game.winner.as_ref()?.name;
            let others: Vec<Name> = game
                .hands
                .last()?
                .score
                .as_ref()?
                .entries
                .iter()
                .map(|e| e.key)
                .filter(|&k| k != winner)
                .collect();
            let &other = others.choose(rng)?;
            if let Some(w) = game.winner.as_mut() {
                w.name = other;
            }
            Some(Injected {
                code: Code::S603,
                hand: None,
                player: game.name_of(winner).to_string(),
                trick: None,
            })
        }
        Fault::Revoke => inject_revoke(game, &played, rules, rng),
    }
}

/// A revoke made by swapping a card a player followed suit with for a later card of another
/// suit (neither led nor trump), where the audit then finds exactly that revoke.
fn inject_revoke(
    game: &mut Game,
    played: &[usize],
    rules: &RuleSet,
    rng: &mut Pcg64Mcg,
) -> Option<Injected> {
    let mut candidates: Vec<(usize, usize, usize, usize, usize)> = Vec::new();
    for &i in played {
        let Some(h) = game.hands.get(i) else { continue };
        let Some(trump) = h
            .tricks
            .first()
            .and_then(|t| t.plays.first())
            .map(|p| p.card.suit())
        else {
            continue;
        };
        for (t, tr) in h.tricks.iter().enumerate() {
            let Some(led) = tr.plays.first().map(|p| p.card.suit()) else {
                continue;
            };
            for (pos, a) in tr.plays.iter().enumerate().skip(1) {
                if a.card.suit() != led || a.player.is_none() {
                    continue;
                }
                for (u, other) in h.tricks.iter().enumerate().skip(t + 1) {
                    for (q, b) in other.plays.iter().enumerate() {
                        if b.player == a.player && b.card.suit() != led && b.card.suit() != trump {
                            candidates.push((i, t, pos, u, q));
                        }
                    }
                }
            }
        }
    }
    candidates.shuffle(rng);
    for &(i, t, pos, u, q) in candidates.iter().take(50) {
        let mut trial = game.clone();
        trial.winner = None;
        trial.hands.truncate(i + 1);
        let h = trial.hands.get_mut(i)?;
        let a = *h.tricks.get(t)?.plays.get(pos)?;
        let b = *h.tricks.get(u)?.plays.get(q)?;
        h.tricks.get_mut(t)?.plays.get_mut(pos)?.card = b.card;
        h.tricks.get_mut(u)?.plays.get_mut(q)?.card = a.card;
        let number = h.number;
        let player = a
            .player
            .map(|p| trial.name_of(p).to_string())
            .unwrap_or_default();
        let res = engine::audit_game(&trial, rules);
        let mine: Vec<&engine::Finding> = res
            .findings
            .iter()
            .filter(|f| f.hand == Some(number))
            .collect();
        let revokes = mine.iter().filter(|f| f.code() == Code::R501).count();
        let others = mine
            .iter()
            .any(|f| !matches!(f.code(), Code::R501 | Code::R503 | Code::S601 | Code::S602));
        if revokes != 1 || others {
            continue;
        }
        // the revoke must be the swapped card's: a swap that changes a trick's taker can move the
        // seats of a short-form record, and with them who appears to revoke
        let theirs = mine.iter().any(|f| {
            f.code() == Code::R501
                && f.subject.as_deref() == Some(player.as_str())
                && f.trick == Some(t as u32 + 1)
        });
        if !theirs {
            continue;
        }
        // this hand's sheet with the penalty applied, then the rest replayed
        let (Some(hs), Some(seats)) = (res.hands.last(), &res.seats) else {
            continue;
        };
        let sides = side_keys(&trial, seats);
        let mut changed = trial.hands.pop()?;
        changed.score = Some(sheet_line(ScoreKind::Score, &hs.score, &sides));
        changed.total = Some(sheet_line(ScoreKind::Total, &hs.total, &sides));
        let mut rest = game.clone();
        rest.winner = None;
        if let Some(slot) = rest.hands.get_mut(i) {
            *slot = changed;
        }
        rescore(&mut rest, rules);
        let after = engine::audit_game(&rest, rules);
        let codes: Vec<Code> = after.findings.iter().map(|f| f.code()).collect();
        if codes != [Code::R501, Code::R503] {
            continue;
        }
        *game = rest;
        return Some(Injected {
            code: Code::R501,
            hand: Some(number),
            player,
            trick: Some(t as u32 + 1),
        });
    }
    None
}

// ---------------------------------------------------------------------- games in batches

/// One batch of games as text, with the answer key's entries (lines counted within the text)
/// and the number of lines the text holds.
struct Batch {
    text: String,
    key: Vec<Expected>,
    lines: u32,
}

fn run_batch(rules: &RuleSet, opts: &Options, first: usize, end: usize) -> Batch {
    let mut text = String::new();
    let mut injected: Vec<(usize, Injected)> = Vec::new();
    let mut faults = opts.faults.clone();
    faults.sort();
    faults.dedup();
    for gi in first..end {
        let mut rng = game_rng(opts.seed, gi);
        let gid = format!("{}-{}", opts.id_prefix, gi + 1);
        let mut game = simulate_game(rules, opts.players, &gid, &mut rng);
        for &fault in &faults {
            if let Some(what) = inject(&mut game, fault, rules, &mut rng) {
                injected.push((gi - first, what));
            }
        }
        if gi > 0 {
            text.push('\n');
        }
        write_game(&mut text, &game);
    }
    let lines = memchr::memchr_iter(b'\n', text.as_bytes()).count() as u32;
    let mut key = Vec::with_capacity(injected.len());
    if !injected.is_empty() {
        // the lines of the statements the findings will point at, as the parser reads the text
        let mut p = Parser::new("simulated", 1, 0);
        p.feed(text.as_bytes());
        p.finish();
        let parsed = p.take_games();
        for (g, what) in injected {
            let Some(game) = parsed.get(g) else { continue };
            let hand = what
                .hand
                .and_then(|n| game.hands.iter().find(|h| h.number == n));
            let line = match what.code {
                Code::S603 => game.winner.as_ref().map_or(0, |w| w.meta.line),
                Code::S601 => hand
                    .and_then(|h| h.score.as_ref())
                    .map_or(0, |s| s.meta.line),
                Code::S602 => hand
                    .and_then(|h| h.total.as_ref())
                    .map_or(0, |s| s.meta.line),
                _ => hand
                    .and_then(|h| h.tricks.get(what.trick.unwrap_or(1) as usize - 1))
                    .map_or(0, |t| t.meta.line),
            };
            key.push(Expected {
                game: game.tag("GameId").unwrap_or("").to_string(),
                line,
                code: what.code,
                hand: what.hand,
                player: what.player,
                trick: what.trick,
            });
        }
    }
    Batch { text, key, lines }
}

/// Check that `players` can play under `rules`.
pub fn check_players(rules: &RuleSet, players: usize) -> Result<(), SimError> {
    let crate::rules::keys::PlayerRange(lo, hi) = rules.players;
    if !(lo as usize <= players && players <= hi as usize) {
        let range = if lo == hi {
            lo.to_string()
        } else {
            format!("{lo}-{hi}")
        };
        return Err(SimError::Seats(format!(
            "{} is for {range} players, not {players}",
            rules.preset
        )));
    }
    if rules.partnership && players != 4 && players != 6 {
        return Err(SimError::Seats(format!(
            "{} is played in teams of two: 4 or 6 players, not {players}",
            rules.preset
        )));
    }
    if players > NAMES.len() || players > rules.max_seats() {
        return Err(SimError::Seats(format!(
            "{} cannot deal to {players} players",
            rules.preset
        )));
    }
    Ok(())
}

/// Simulate `opts.games` games on `opts.jobs` threads, handing their text to `write` in order
/// (a piece at a time: memory stays flat however many games), and return the answer key.
pub fn simulate(
    rules: &RuleSet,
    opts: &Options,
    write: &mut dyn FnMut(&str) -> std::io::Result<()>,
) -> Result<Vec<Expected>, SimError> {
    check_players(rules, opts.players)?;
    let batches = opts.games.div_ceil(BATCH_GAMES);
    let bounds = |b: usize| (b * BATCH_GAMES, ((b + 1) * BATCH_GAMES).min(opts.games));
    let mut key = Vec::new();
    let mut lines_before = 0u32;
    let mut emit = |batch: Batch, key: &mut Vec<Expected>| -> Result<(), SimError> {
        write(&batch.text).map_err(SimError::Write)?;
        key.extend(batch.key.into_iter().map(|mut e| {
            e.line += lines_before;
            e
        }));
        lines_before += batch.lines;
        Ok(())
    };
    let jobs = opts.jobs.clamp(1, batches.max(1));
    if jobs == 1 {
        for b in 0..batches {
            let (first, end) = bounds(b);
            emit(run_batch(rules, opts, first, end), &mut key)?;
        }
        return Ok(key);
    }
    // workers take batches in order, at most `window` ahead of the one written last
    let window = jobs * 2;
    let next = AtomicUsize::new(0);
    let written = (Mutex::new(0usize), Condvar::new());
    let (tx, rx) = mpsc::channel::<(usize, Batch)>();
    std::thread::scope(|scope| -> Result<(), SimError> {
        for _ in 0..jobs {
            let tx = tx.clone();
            let (next, written) = (&next, &written);
            scope.spawn(move || {
                loop {
                    let b = next.fetch_add(1, Ordering::Relaxed);
                    if b >= batches {
                        break;
                    }
                    {
                        let (lock, cv) = written;
                        let Ok(mut done) = lock.lock() else { break };
                        while b >= *done + window {
                            match cv.wait(done) {
                                Ok(d) => done = d,
                                Err(_) => return,
                            }
                        }
                    }
                    let (first, end) = bounds(b);
                    if tx.send((b, run_batch(rules, opts, first, end))).is_err() {
                        break;
                    }
                }
            });
        }
        drop(tx);
        let mut pending = std::collections::BTreeMap::new();
        let mut out = 0usize;
        let mut failed = None;
        for (b, batch) in rx {
            pending.insert(b, batch);
            while let Some(batch) = pending.remove(&out) {
                if failed.is_none() {
                    failed = emit(batch, &mut key).err();
                }
                out += 1;
                let (lock, cv) = &written;
                if let Ok(mut done) = lock.lock() {
                    // a failed write lets the workers run out rather than wait for it
                    *done = if failed.is_some() {
                        usize::MAX / 2
                    } else {
                        out
                    };
                }
                cv.notify_all();
            }
        }
        failed.map_or(Ok(()), Err)
    })?;
    Ok(key)
}

#[cfg(test)]
#[allow(clippy::indexing_slicing, clippy::panic)]
pub(crate) mod tests {
    use super::*;

    /// The presets the core's tests play.
    pub(crate) const PRESETS: [&str; 6] = [
        "auction",
        "partnership",
        "cutthroat",
        "smear",
        "tenpoint",
        "tenpoint52",
    ];

    /// The preset itself, from the presets file.
    pub(crate) fn preset(name: &str) -> RuleSet {
        match crate::rules::preset(name) {
            Ok(r) => r,
            Err(e) => panic!("{name}: {}", e.message),
        }
    }

    pub(crate) fn run(
        rules: &RuleSet,
        games: usize,
        seed: u64,
        jobs: usize,
        faults: &[Fault],
    ) -> (String, Vec<Expected>) {
        let opts = Options {
            games,
            seed,
            players: 4,
            faults: faults.to_vec(),
            id_prefix: format!("sim-{}-{seed}", rules.preset),
            jobs,
        };
        let mut text = String::new();
        let key = simulate(rules, &opts, &mut |s| {
            text.push_str(s);
            Ok(())
        });
        (text, key.unwrap_or_default())
    }

    fn findings(text: &str, rules: &RuleSet) -> Vec<(String, Code, u32, String)> {
        let (games, parse) = crate::notation::parser::parse_all(text.as_bytes(), "t");
        assert!(parse.is_empty(), "{parse:?}");
        games
            .iter()
            .flat_map(|g| {
                let id = g.tag("GameId").unwrap_or("").to_string();
                engine::audit_game(g, rules)
                    .findings
                    .into_iter()
                    .map(move |f| (id.clone(), f.code(), f.line, f.subject.unwrap_or_default()))
            })
            .collect()
    }

    #[test]
    fn clean_games_audit_clean_and_a_seed_gives_the_same_games_on_any_threads() {
        for name in PRESETS {
            let rules = preset(name);
            let (one, key) = run(&rules, 40, 5, 1, &[]);
            assert!(key.is_empty());
            assert_eq!(findings(&one, &rules), vec![], "{name}");
            let (two, _) = run(&rules, 40, 5, 2, &[]);
            assert_eq!(one, two, "{name}: two threads gave other games");
            assert_ne!(one, run(&rules, 40, 6, 1, &[]).0);
        }
    }

    #[test]
    fn each_fault_causes_exactly_its_findings() {
        let rules = preset("auction");
        let (text, key) = run(&rules, 40, 3, 2, &Fault::ALL);
        let codes: std::collections::BTreeSet<Code> = key.iter().map(|k| k.code).collect();
        assert_eq!(codes.len(), 4, "{key:?}");
        let mut want: Vec<(String, Code, u32, String)> = key
            .iter()
            .map(|k| (k.game.clone(), k.code, k.line, k.player.clone()))
            .collect();
        // each revoke comes with its R503, what it cost the innocent side, on the same line
        want.extend(
            key.iter()
                .filter(|k| k.code == Code::R501)
                .map(|k| (k.game.clone(), Code::R503, k.line, k.player.clone())),
        );
        want.sort();
        let mut got = findings(&text, &rules);
        got.sort();
        assert_eq!(got, want);
    }

    #[test]
    fn the_bots_bid_only_what_the_auction_lets_stand() {
        // a pitching auction: every word the bots say stands, and a pitch is taken over only in a new suit
        let rules = match crate::rules::parse_rules("partnership pitching=on") {
            Ok(r) => r,
            Err(e) => panic!("{}", e.message),
        };
        let (text, _) = run(&rules, 20, 9, 1, &[]);
        assert!(text.contains(" pitch "), "no pitch in 20 games");
        assert_eq!(findings(&text, &rules), vec![]);
        let (games, _) = crate::notation::parser::parse_all(text.as_bytes(), "t");
        let hands: usize = games.iter().map(|g| g.hands.len()).sum();
        let takeovers: usize = games
            .iter()
            .map(|g| {
                engine::audit_game(g, &rules)
                    .hands
                    .iter()
                    .filter(|h| h.takeover)
                    .count()
            })
            .sum();
        assert!(
            takeovers * 100 >= hands,
            "{takeovers} takeovers in {hands} hands"
        );
    }
}
