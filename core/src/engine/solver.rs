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
//! **Method.** Fail-soft alpha-beta over single cards, with a transposition table at trick
//! boundaries that keeps a lower and an upper bound per position. A position's key is exact:
//! the cards still out (which say who holds what, since the hands at the start are fixed),
//! the leader, and what the past tricks decided that can still change the value (the points
//! each counted side has taken, each side's count toward Game, whether anybody else has
//! taken a trick). Cards of one suit in one hand with no card still out between them, and
//! the same count and points, are played as one (they lead to the same positions). Moves
//! are tried winning cards first. The follow rules, the trick winner and the trump order are
//! the engine's own ([`legal`], [`TrumpTable::winner_pos`]); the points taken by a card are
//! [`captured_points`].

use rustc_hash::FxHashMap;

use super::contract::Contract;
use super::play::{FollowRule, legal};
use super::points::captured_points;
use crate::cards::{Card, CardMask, GAME_COUNT, TrumpTable, cards_of};
use crate::rules::{GamePoint, Low, RuleSet};

/// The most seats the solver plays (the 52-card deck deals six cards to at most eight).
pub const MAX_SEATS: usize = 10;

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

/// A hand as the solver sees it: the rules, the seats and the cards each held for the play.
#[derive(Clone, Debug)]
pub struct Layout {
    table: &'static TrumpTable,
    rules: std::sync::Arc<RuleSet>,
    n: usize,
    side_of: [u8; MAX_SEATS],
    sides: usize,
    /// Cards each seat held as the play began.
    pub hands: [CardMask; MAX_SEATS],
    /// Points won by taking each card (Jack, Jick, jokers, Trey, Low under `low=taker`...).
    capture: [u8; 54],
    /// Points each side won by holding a card (High; Low under `low=holder`).
    held: [i8; MAX_SEATS],
    /// Some point can go to nobody whatever the play (not in play, or High with no trump).
    unowned: bool,
    /// Each effective suit's cards, best first.
    order: [[Option<Card>; 16]; 4],
    /// The cards worth something: points when taken, or count toward Game.
    worth_mask: CardMask,
}

/// One position of the play.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Position {
    /// Cards each seat still holds.
    pub hands: [CardMask; MAX_SEATS],
    /// The trick so far, in play order.
    pub trick: [(u8, Card); MAX_SEATS],
    pub trick_len: u8,
    /// Seats that play to this trick (`trumps_only`: those holding a trump as it began).
    pub in_trick: u8,
    pub leader: u8,
    /// Tricks completed.
    pub tricks_done: u8,
    /// The hand's first card led (it decides the first trick's follow rule).
    pub first_lead: Option<Card>,
    /// Per side: points taken in tricks, count toward Game, tricks taken.
    pub taken: [u8; MAX_SEATS],
    pub counts: [u8; MAX_SEATS],
    pub tricks: [u8; MAX_SEATS],
}

/// Why a hand cannot be solved.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NotAnalysable(pub String);

fn at<T: Copy + Default>(a: &[T], i: usize) -> T {
    a.get(i).copied().unwrap_or_default()
}

fn bump(a: &mut [u8], i: usize, by: u8) {
    if let Some(x) = a.get_mut(i) {
        *x = x.saturating_add(by);
    }
}

impl Layout {
    /// The layout of a hand with trump `trump` and the cards each seat held for the play.
    pub fn new(
        rules: std::sync::Arc<RuleSet>,
        trump: u8,
        side_of: &[i32],
        hands: &[CardMask],
    ) -> Result<Layout, NotAnalysable> {
        let n = hands.len();
        if n == 0 || n > MAX_SEATS || side_of.len() != n {
            return Err(NotAnalysable(format!(
                "{n} seats: the solver plays 1 to {MAX_SEATS}"
            )));
        }
        let table = TrumpTable::get(i32::from(trump), rules.deck);
        let mut side = [0u8; MAX_SEATS];
        let mut sides = 0;
        for (i, &s) in side_of.iter().enumerate() {
            let s = u8::try_from(s)
                .ok()
                .filter(|&s| usize::from(s) < MAX_SEATS)
                .ok_or_else(|| NotAnalysable(format!("seat {i} is in no side")))?;
            if let Some(x) = side.get_mut(i) {
                *x = s;
            }
            sides = sides.max(usize::from(s) + 1);
        }
        let mut h = [0; MAX_SEATS];
        let mut all: CardMask = 0;
        for (i, &m) in hands.iter().enumerate() {
            if all & m != 0 {
                return Err(NotAnalysable("a card held twice".into()));
            }
            all |= m;
            if let Some(x) = h.get_mut(i) {
                *x = m;
            }
        }
        let mut capture = [0u8; 54];
        let mut unowned = false;
        for (_, card, worth) in captured_points(&rules, trump) {
            if all & card.bit() == 0 {
                unowned = true;
            } else if let Some(x) = capture.get_mut(usize::from(card.index())) {
                *x = x.saturating_add(u8::try_from(worth).unwrap_or(u8::MAX));
            }
        }
        // in play: every card held is played, except under trumps_only, where only trumps are
        let trumps_in_play = all & table.trumps();
        let holder = |c: Card| hands.iter().position(|&m| m & c.bit() != 0);
        let mut held = [0i8; MAX_SEATS];
        let best = cards_of(trumps_in_play).max_by_key(|&c| table.strength(c));
        let worst = cards_of(trumps_in_play).min_by_key(|&c| table.strength(c));
        match best.and_then(holder) {
            Some(s) => {
                if let Some(x) = held.get_mut(usize::from(at(&side, s))) {
                    *x += 1;
                }
            }
            None => unowned = true,
        }
        match (worst, rules.low) {
            (Some(c), Low::Holder) => {
                if let Some(x) = holder(c).and_then(|s| held.get_mut(usize::from(at(&side, s)))) {
                    *x += 1;
                }
            }
            (Some(c), Low::Taker) => bump(&mut capture, usize::from(c.index()), 1),
            (None, _) => unowned = true,
        }
        let mut order = [[None; 16]; 4];
        for (s, row) in order.iter_mut().enumerate() {
            let mut cs: Vec<Card> = (0..54u8)
                .filter_map(Card::new)
                .filter(|&c| table.suit(c) == s as i32)
                .collect();
            cs.sort_by_key(|&c| -table.in_trick(c, s as i32));
            for (slot, c) in row.iter_mut().zip(cs) {
                *slot = Some(c);
            }
        }
        Ok(Layout {
            table,
            rules,
            n,
            side_of: side,
            sides,
            hands: h,
            capture,
            held,
            unowned,
            order,
            worth_mask: (0..54u8)
                .filter_map(Card::new)
                .filter(|c| {
                    capture.get(usize::from(c.index())).is_some_and(|&w| w > 0)
                        || GAME_COUNT
                            .get(usize::from(c.index()))
                            .is_some_and(|&w| w > 0)
                })
                .fold(0, |m, c| m | c.bit()),
        })
    }

    fn rules(&self) -> &RuleSet {
        &self.rules
    }

    /// The side of a seat.
    pub fn side(&self, seat: usize) -> usize {
        usize::from(at(&self.side_of, seat))
    }

    /// The position before the first lead, `leader` to lead.
    pub fn start(&self, leader: usize) -> Position {
        let mut p = Position {
            hands: self.hands,
            trick: [(0, Card::of(0, 0)); MAX_SEATS],
            trick_len: 0,
            in_trick: 0,
            leader: leader as u8,
            tricks_done: 0,
            first_lead: None,
            taken: [0; MAX_SEATS],
            counts: [0; MAX_SEATS],
            tricks: [0; MAX_SEATS],
        };
        self.begin_trick(&mut p);
        p
    }

    fn trumps_only(&self) -> bool {
        self.rules().trumps_only
    }

    /// Whether `seat` plays to tricks from here (`trumps_only`: while holding a trump).
    fn still_in(&self, p: &Position, seat: usize) -> bool {
        let h = at(&p.hands, seat);
        if self.trumps_only() {
            h & self.table.trumps() != 0
        } else {
            h != 0
        }
    }

    fn begin_trick(&self, p: &mut Position) {
        p.trick_len = 0;
        p.in_trick = (0..self.n).filter(|&s| self.still_in(p, s)).count() as u8;
        let leader = usize::from(p.leader);
        if p.in_trick > 0 && !self.still_in(p, leader) {
            // the winner has no trump left: the lead passes to the next player on the left still in
            if let Some(s) = (1..self.n)
                .map(|k| (leader + k) % self.n)
                .find(|&s| self.still_in(p, s))
            {
                p.leader = s as u8;
            }
        }
    }

    /// Whether the hand is over.
    pub fn finished(&self, p: &Position) -> bool {
        p.trick_len == 0 && p.in_trick == 0
    }

    /// The seat to play next.
    pub fn to_play(&self, p: &Position) -> usize {
        let Some(k) = usize::from(p.trick_len).checked_sub(1) else {
            return usize::from(p.leader);
        };
        // the seats after the last to play have not played yet: their hands are as the trick began
        let last = usize::from(p.trick.get(k).map_or(p.leader, |&(s, _)| s));
        (1..self.n)
            .map(|d| (last + d) % self.n)
            .find(|&s| self.still_in(p, s))
            .unwrap_or(last)
    }

    /// The follow rule for the trick now being played.
    fn follow_rule(&self, p: &Position) -> FollowRule {
        FollowRule::of(
            self.rules(),
            self.table,
            usize::from(p.tricks_done),
            p.first_lead,
        )
    }

    /// The cards the player to play may play.
    pub fn legal(&self, p: &Position) -> CardMask {
        let seat = self.to_play(p);
        let led = (p.trick_len > 0).then_some(p.trick[0].1);
        legal(self.follow_rule(p), self.table, at(&p.hands, seat), led)
    }

    /// `seat` plays `card` (legal or not: a recorded revoke is replayed as it stands). When
    /// the card completes the trick: the seat that takes it and the points in it.
    pub fn play(&self, p: &mut Position, seat: usize, card: Card) -> Option<(usize, u8)> {
        if let Some(h) = p.hands.get_mut(seat) {
            *h &= !card.bit();
        }
        if p.tricks_done == 0 && p.trick_len == 0 {
            p.first_lead = Some(card);
        }
        if let Some(slot) = p.trick.get_mut(usize::from(p.trick_len)) {
            *slot = (seat as u8, card);
        }
        p.trick_len += 1;
        if p.trick_len < p.in_trick {
            return None;
        }
        let cards = p.trick.iter().take(usize::from(p.trick_len));
        let pos = self.table.winner_pos(cards.clone().map(|&(_, c)| c));
        let winner = usize::from(p.trick.get(pos).map_or(p.leader, |&(s, _)| s));
        let side = self.side(winner);
        let (mut pts, mut count) = (0u8, 0u8);
        for &(_, c) in cards {
            pts = pts.saturating_add(at(&self.capture, usize::from(c.index())));
            count = count.saturating_add(at(&GAME_COUNT, usize::from(c.index())));
        }
        bump(&mut p.taken, side, pts);
        bump(&mut p.counts, side, count);
        bump(&mut p.tricks, side, 1);
        p.leader = winner as u8;
        p.tricks_done += 1;
        self.begin_trick(p);
        Some((winner, pts))
    }

    /// The side that takes Game by count (None: a tie, or Game is the ten of trumps).
    fn game_by_count(&self, p: &Position) -> Option<usize> {
        if self.rules().game_point != GamePoint::Count {
            return None;
        }
        let counts = p.counts.get(..self.sides).unwrap_or(&[]);
        let best = counts.iter().copied().max()?;
        let mut top = counts.iter().enumerate().filter(|&(_, &c)| c == best);
        let first = top.next().map(|(i, _)| i);
        if top.next().is_some() { None } else { first }
    }

    /// Per side, the points won at the end of the hand.
    pub fn points_won(&self, p: &Position) -> [i32; MAX_SEATS] {
        let mut out = [0; MAX_SEATS];
        for (s, x) in out.iter_mut().enumerate().take(self.sides) {
            *x = i32::from(at(&p.taken, s)) + i32::from(at(&self.held, s));
        }
        if let Some(x) = self.game_by_count(p).and_then(|s| out.get_mut(s)) {
            *x += 1;
        }
        out
    }

    /// The value of a finished hand under `obj`.
    pub fn terminal(&self, p: &Position, obj: &Objective) -> i32 {
        let won = self.points_won(p);
        let mine: i32 = won
            .iter()
            .enumerate()
            .filter(|&(s, _)| obj.sides & (1 << s) != 0)
            .map(|(_, &v)| v)
            .sum();
        match obj.contract {
            None => mine,
            Some(c) => {
                let total_tricks: u8 = p.tricks.iter().sum();
                let my_tricks: u8 = p
                    .tricks
                    .iter()
                    .enumerate()
                    .filter(|&(s, _)| obj.sides & (1 << s) != 0)
                    .map(|(_, &t)| t)
                    .sum();
                let all_points = !self.unowned
                    && won
                        .iter()
                        .enumerate()
                        .all(|(s, &v)| v == 0 || obj.sides & (1 << s) != 0)
                    && (self.rules().game_point != GamePoint::Count
                        || self
                            .game_by_count(p)
                            .is_some_and(|s| obj.sides & (1 << s) != 0));
                c.value(mine, all_points && my_tricks == total_tricks).1
            }
        }
    }

    /// Whether `side` is counted by `obj`.
    fn counted(obj: &Objective, side: usize) -> bool {
        obj.sides & (1 << side) != 0
    }

    /// What the counted sides gain when `winner` takes a trick holding `points`: those points
    /// (for a sweep: minus the trick, when it is lost).
    fn gain(&self, winner: usize, points: u8, obj: &Objective) -> i32 {
        let ours = Self::counted(obj, self.side(winner));
        match (obj.contract.is_some_and(|c| c.sweep), ours) {
            (true, ours) => -i32::from(!ours),
            (false, true) => i32::from(points),
            (false, false) => 0,
        }
    }

    /// Game by count at the end, for the counted sides (0 for a sweep: all tricks give it).
    fn end_gain(&self, p: &Position, obj: &Objective) -> i32 {
        if obj.contract.is_some_and(|c| c.sweep) {
            return 0;
        }
        i32::from(self.game_by_count(p).is_some_and(|s| Self::counted(obj, s)))
    }

    /// Bounds on what the counted sides still gain from `p`, whatever the play; `game` is
    /// [`Layout::game_open`] of the same position.
    fn future_bounds(&self, p: &Position, obj: &Objective, game: (i32, i32)) -> (i32, i32) {
        if obj.contract.is_some_and(|c| c.sweep) {
            let left = self.rules().hand_size as i32 - i32::from(p.tricks_done);
            return (-left.max(0) - 1, 0);
        }
        let open_points: i32 = cards_of(self.still_out(p) & self.worth_mask)
            .map(|c| i32::from(at(&self.capture, usize::from(c.index()))))
            .sum();
        (game.0, open_points + game.1)
    }

    /// The cards still to be taken: in the hands and in the trick on the table.
    fn still_out(&self, p: &Position) -> CardMask {
        let mut out: CardMask = p.hands.iter().fold(0, |a, &h| a | h);
        for &(_, c) in p.trick.iter().take(usize::from(p.trick_len)) {
            out |= c.bit();
        }
        out
    }

    /// Whether the counted sides are sure of Game by count (low 1) and could still take it (high 1).
    fn game_open(&self, p: &Position, obj: &Objective) -> (i32, i32) {
        if self.rules().game_point != GamePoint::Count {
            return (0, 0);
        }
        let open_count: i32 = cards_of(self.still_out(p) & self.worth_mask)
            .map(|c| i32::from(at(&GAME_COUNT, usize::from(c.index()))))
            .sum();
        let (mut mine, mut best_other) = (-1i32, -1i32);
        for s in 0..self.sides {
            let c = i32::from(at(&p.counts, s));
            if Self::counted(obj, s) {
                mine = mine.max(c);
            } else {
                best_other = best_other.max(c);
            }
        }
        let sure = mine > best_other + open_count;
        let could = mine + open_count > best_other.max(0) || (mine > best_other && mine >= 0);
        (i32::from(sure), i32::from(could || sure))
    }

    /// What the counted sides have at `p` for sure: points held, and taken in past tricks.
    fn base(&self, p: &Position, obj: &Objective) -> i32 {
        (0..self.sides)
            .filter(|&s| Self::counted(obj, s))
            .map(|s| i32::from(at(&p.taken, s)) + i32::from(at(&self.held, s)))
            .sum()
    }

    /// For a sweep: whether it can still be made, as far as the past and the deal tell.
    fn sweep_open(&self, p: &Position, obj: &Objective) -> bool {
        let no_trick_lost = (0..self.sides).all(|s| Self::counted(obj, s) || at(&p.tricks, s) == 0);
        let held_ours = (0..self.sides).all(|s| Self::counted(obj, s) || at(&self.held, s) == 0);
        let count_in_play = self.hands.iter().fold(0, |a, &h| a | h) & self.worth_mask != 0;
        !self.unowned && no_trick_lost && held_ours && count_in_play
    }

    /// The value under `obj` of a position whose counted sides gain `future` from here.
    fn value_of(&self, p: &Position, obj: &Objective, future: i32) -> i32 {
        match obj.contract {
            Some(c) if c.sweep => c.value(0, future == 0 && self.sweep_open(p, obj)).1,
            Some(c) => c.value(self.base(p, obj) + future, false).1,
            None => self.base(p, obj) + future,
        }
    }

    /// The legal cards of the player to play, one of each group of equivalent cards, in the
    /// order they are tried: the leader's trumps first, best first; a follower whose side is
    /// taking the trick gives it its count, lowest cards first otherwise; a follower whose side
    /// is not tries the cheapest card that takes the trick, then its least worth.
    fn moves(&self, p: &Position, raisers: u16, out: &mut smallvec::SmallVec<[Card; 16]>) {
        out.clear();
        let mine = self.legal(p);
        let still_out = self.still_out(p);
        let worth = |x: Card| {
            (
                at(&self.capture, usize::from(x.index())),
                at(&GAME_COUNT, usize::from(x.index())),
            )
        };
        let mut found: smallvec::SmallVec<[(Card, i32); 16]> = smallvec::SmallVec::new();
        let trump = self.table.trump;
        let rows = std::iter::once(trump.clamp(0, 3) as usize)
            .chain((0..4).filter(|&s| s as i32 != trump));
        for s in rows {
            let Some(row) = self.order.get(s) else {
                continue;
            };
            if self.table.mask(s as i32) & mine == 0 {
                continue;
            }
            let mut prev: Option<Card> = None; // the last card of a run of equivalent cards kept
            for c in row.iter().flatten().copied() {
                if still_out & c.bit() == 0 {
                    continue;
                }
                if mine & c.bit() == 0 {
                    prev = None;
                    continue;
                }
                if prev.is_some_and(|q| worth(q) == worth(c)) {
                    continue;
                }
                prev = Some(c);
                found.push((c, 0));
            }
        }
        if p.trick_len > 0 {
            let led = self.table.suit(p.trick[0].1);
            let (wpos, best) = p
                .trick
                .iter()
                .take(usize::from(p.trick_len))
                .enumerate()
                .map(|(i, &(_, c))| (i, self.table.in_trick(c, led)))
                .fold((0, -1), |a, b| if b.1 > a.1 { b } else { a });
            let winner = usize::from(p.trick.get(wpos).map_or(0, |t| t.0));
            let seat = self.to_play(p);
            let friendly = (raisers >> seat & 1) == (raisers >> winner & 1);
            for (c, key) in found.iter_mut() {
                let v = self.table.in_trick(*c, led);
                let (pts, count) = worth(*c);
                let w = i32::from(pts) * 20 + i32::from(count);
                *key = match (friendly, v > best) {
                    (true, false) => -w * 256 + v,
                    (true, true) => 1 << 20 | v,
                    (false, true) => v,
                    (false, false) => 1 << 20 | (w * 256 + v.max(0)),
                };
            }
            found.sort_by_key(|&(_, k)| k);
        }
        out.extend(found.into_iter().map(|(c, _)| c));
    }
}

/// A transposition-table entry: bounds on what the counted sides still gain from a position.
#[derive(Clone, Copy, Debug)]
struct Bounds {
    lower: i16,
    upper: i16,
    /// The card that gave the value last searched, tried first next time.
    best: Option<Card>,
}

/// A solver for one layout and one objective; its table is kept across calls, so the
/// positions along one recorded hand are solved for little more than the first.
///
/// The search is over what the counted sides still gain from a position (the points in the
/// tricks they take, Game at the end; for a sweep, minus the tricks they lose), which depends
/// only on the cards still out, the leader and the counts toward Game, not on what the past
/// tricks gave. The value of a position is what it already has plus that gain, through the
/// contract: the contract's value does not fall as the points rise, so perfect play for the
/// points is perfect play for the score, and the search first asks only whether the bid is
/// reached (a null window), then, when it is, by how much.
pub struct Solver<'a> {
    pub layout: &'a Layout,
    pub objective: Objective,
    table: FxHashMap<(u64, u64), Bounds>,
    /// Positions searched (for the benchmark).
    pub nodes: u64,
    /// Positions the solver may search before it gives up (None: no limit).
    pub budget: Option<u64>,
}

const LOW: i32 = -1000;
const HIGH: i32 = 1000;

impl<'a> Solver<'a> {
    /// A solver with an empty table.
    pub fn new(layout: &'a Layout, objective: Objective) -> Solver<'a> {
        Solver {
            layout,
            objective,
            table: FxHashMap::default(),
            nodes: 0,
            budget: None,
        }
    }

    /// Whether the budget ran out: values found since are not to be trusted.
    pub fn out_of_budget(&self) -> bool {
        self.budget.is_some_and(|b| self.nodes > b)
    }

    /// The value of the rest of the hand from `p` under perfect play, as the objective counts it.
    pub fn value(&mut self, p: &Position) -> i32 {
        let (l, obj) = (self.layout, self.objective);
        let future = match obj.contract {
            Some(c) if c.sweep => {
                if !l.sweep_open(p, &obj) {
                    return l.value_of(p, &obj, -1);
                }
                self.gain_from(p, -1, 0)
            }
            Some(c) if c.bid > 0 => {
                // first only whether the bid is reached; then, if it is, by how much
                let need = c.bid - l.base(p, &obj);
                if self.gain_from(p, need - 1, need) < need {
                    return l.value_of(p, &obj, need - 1);
                }
                self.gain_from(p, need - 1, HIGH)
            }
            _ => self.gain_from(p, LOW, HIGH),
        };
        l.value_of(p, &obj, future)
    }

    /// The least gain from `p` whose value is above `v` (None: no gain is; the gain lies in
    /// -20..=40 in every rule set, as the value does not fall as the gain rises).
    fn gain_above(&self, p: &Position, v: i32) -> Option<i32> {
        (-20..=40).find(|&g| self.layout.value_of(p, &self.objective, g) > v)
    }

    /// Whether the value from `p` is above `v` (a null window: it stops at the first line that is).
    pub fn exceeds(&mut self, p: &Position, v: i32) -> bool {
        match self.gain_above(p, v) {
            None => false,
            Some(g) => self.gain_from(p, g - 1, g) >= g,
        }
    }

    /// Whether the value from `p` is below `v`.
    pub fn falls_short(&mut self, p: &Position, v: i32) -> bool {
        match self.gain_above(p, v - 1) {
            None => true,
            Some(g) => self.gain_from(p, g - 1, g) < g,
        }
    }

    /// Whether the value after `seat` plays `card` at `p` is above `v`.
    pub fn exceeds_after(&mut self, p: &Position, seat: usize, card: Card, v: i32) -> bool {
        let mut q = *p;
        self.layout.play(&mut q, seat, card);
        self.exceeds(&q, v)
    }

    /// The value after `seat` plays `card` at `p`.
    pub fn value_after(&mut self, p: &Position, seat: usize, card: Card) -> i32 {
        let mut q = *p;
        self.layout.play(&mut q, seat, card);
        self.value(&q)
    }

    fn key(&self, p: &Position, game: (i32, i32)) -> (u64, u64) {
        let l = self.layout;
        let remaining = p.hands.iter().fold(0u64, |a, &h| a | h);
        let mut packed = u64::from(p.leader);
        if l.rules().game_point == GamePoint::Count
            && !self.objective.contract.is_some_and(|c| c.sweep)
        {
            let (lo, hi) = game;
            if lo == hi {
                // Game is settled whatever the play: the counts no longer matter
                packed |= u64::from(lo == 1) << 4 | 1 << 5;
            } else {
                // the last side's count follows from the cards still out
                for s in 0..l.sides.saturating_sub(1).min(8) {
                    packed |= u64::from(at(&p.counts, s) & 0x7f) << (6 + 7 * s);
                }
            }
        }
        (remaining, packed)
    }

    /// What the counted sides gain from `p` under perfect play (fail-soft alpha-beta in `alpha..beta`).
    fn gain_from(&mut self, p: &Position, mut alpha: i32, mut beta: i32) -> i32 {
        self.nodes += 1;
        let l = self.layout;
        let obj = self.objective;
        if self.out_of_budget() {
            return alpha;
        }
        if l.finished(p) {
            return l.end_gain(p, &obj);
        }
        let at_start = p.trick_len == 0;
        let mut first: Option<Card> = None;
        let key = if at_start {
            let game = l.game_open(p, &obj);
            let (lo, hi) = l.future_bounds(p, &obj, game);
            if lo >= hi || lo >= beta {
                return lo;
            }
            if hi <= alpha {
                return hi;
            }
            alpha = alpha.max(lo);
            beta = beta.min(hi);
            let k = self.key(p, game);
            if let Some(b) = self.table.get(&k).copied() {
                let (lo, hi) = (i32::from(b.lower), i32::from(b.upper));
                if lo == hi || lo >= beta {
                    return lo;
                }
                if hi <= alpha {
                    return hi;
                }
                alpha = alpha.max(lo);
                beta = beta.min(hi);
                first = b.best;
            }
            Some(k)
        } else {
            None
        };
        let (a0, b0) = (alpha, beta);
        let seat = l.to_play(p);
        let raise = obj.raisers & (1 << seat) != 0;
        let mut moves = smallvec::SmallVec::new();
        l.moves(p, obj.raisers, &mut moves);
        if let Some(k) = first.and_then(|f| moves.iter().position(|&c| c == f)) {
            moves.swap(0, k);
        }
        let mut best = if raise { LOW } else { HIGH };
        let mut best_move = None;
        for c in moves {
            let mut q = *p;
            let gain = l
                .play(&mut q, seat, c)
                .map_or(0, |(w, pts)| l.gain(w, pts, &obj));
            let v = gain + self.gain_from(&q, alpha - gain, beta - gain);
            if (raise && v > best) || (!raise && v < best) {
                best = v;
                best_move = Some(c);
            }
            if raise {
                alpha = alpha.max(v);
            } else {
                beta = beta.min(v);
            }
            if alpha >= beta {
                break;
            }
        }
        if let Some(k) = key {
            let e = self.table.entry(k).or_insert(Bounds {
                lower: LOW as i16,
                upper: HIGH as i16,
                best: None,
            });
            e.best = best_move.or(e.best);
            let v = best as i16;
            if best <= a0 {
                e.upper = e.upper.min(v);
            } else if best >= b0 {
                e.lower = e.lower.max(v);
            } else {
                e.lower = v;
                e.upper = v;
            }
        }
        best
    }

    /// A line of perfect play from `p` to the end of the hand: (seat, card) in play order.
    pub fn line(&mut self, p: &Position) -> Vec<(usize, Card)> {
        let l = self.layout;
        let mut out = Vec::new();
        let mut p = *p;
        while !l.finished(&p) {
            let target = self.value(&p);
            let seat = l.to_play(&p);
            let mut moves = smallvec::SmallVec::new();
            l.moves(&p, self.objective.raisers, &mut moves);
            let Some(c) = moves
                .iter()
                .copied()
                .find(|&c| self.value_after(&p, seat, c) == target)
                .or_else(|| moves.first().copied())
            else {
                break;
            };
            out.push((seat, c));
            l.play(&mut p, seat, c);
        }
        out
    }
}

#[cfg(test)]
#[allow(clippy::indexing_slicing, clippy::unwrap_used, clippy::panic)]
mod tests {
    use super::*;

    /// An exhaustive minimax over the engine's legal cards: no pruning, no table, no grouping.
    fn minimax(l: &Layout, p: &Position, obj: &Objective) -> i32 {
        if l.finished(p) {
            return l.terminal(p, obj);
        }
        let seat = l.to_play(p);
        let raise = obj.raisers & (1 << seat) != 0;
        let vals = cards_of(l.legal(p)).map(|c| {
            let mut q = *p;
            l.play(&mut q, seat, c);
            minimax(l, &q, obj)
        });
        if raise {
            vals.max().unwrap_or(LOW)
        } else {
            vals.min().unwrap_or(HIGH)
        }
    }

    struct Rng(u64);
    impl Rng {
        fn next(&mut self) -> u64 {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            self.0
        }
    }

    /// The real preset, from the presets file (the one the engine audits with).
    fn rules_for(preset: &str) -> RuleSet {
        match crate::rules::preset(preset) {
            Ok(r) => r,
            Err(e) => panic!("{preset}: {}", e.message),
        }
    }

    #[test]
    fn the_solver_equals_exhaustive_minimax_on_random_endings() {
        let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
        let mut checked = 0;
        for preset in [
            "auction",
            "partnership",
            "cutthroat",
            "tenpoint",
            "smear",
            "tenpoint52",
        ] {
            let rules = std::sync::Arc::new(rules_for(preset));
            let n = if preset == "cutthroat" { 3 } else { 4 };
            let sides: Vec<i32> = (0..n)
                .map(|s| if rules.partnership { s % 2 } else { s })
                .collect();
            for _ in 0..150 {
                let tricks = 1 + (rng.next() % 3) as usize;
                let mut deck: Vec<u8> = (0..rules.deck_size() as u8).collect();
                for i in (1..deck.len()).rev() {
                    deck.swap(i, (rng.next() % (i as u64 + 1)) as usize);
                }
                let mut hands = vec![0u64; n as usize];
                for (k, c) in deck.iter().take(tricks * n as usize).enumerate() {
                    hands[k % n as usize] |= 1 << c;
                }
                let trump = (rng.next() % 4) as u8;
                let Ok(l) = Layout::new(rules.clone(), trump, &sides, &hands) else {
                    continue;
                };
                let leader = (rng.next() % n as u64) as usize;
                let mut p = l.start(leader);
                // a mid-hand position: the first tricks done, part of the trick played
                p.tricks_done = 6 - tricks as u8;
                let played = (rng.next() % 3) as usize;
                for _ in 0..played {
                    if l.finished(&p) {
                        break;
                    }
                    let seat = l.to_play(&p);
                    let Some(c) = cards_of(l.legal(&p)).last() else {
                        break;
                    };
                    l.play(&mut p, seat, c);
                }
                let pitcher = (rng.next() % n as u64) as usize;
                let ps = sides[pitcher] as usize;
                let raisers: u16 = (0..n as usize)
                    .filter(|&s| sides[s] as usize == ps)
                    .map(|s| 1 << s)
                    .sum();
                let bid = 1 + (rng.next() % 4) as i32;
                let objs = [
                    Objective {
                        sides: 1 << ps,
                        raisers,
                        contract: None,
                    },
                    Objective {
                        sides: 1 << ps,
                        raisers,
                        contract: Some(Contract {
                            bid,
                            smudge: false,
                            sweep: false,
                            loss: 1,
                        }),
                    },
                    Objective {
                        sides: 1 << ps,
                        raisers,
                        contract: Some(Contract {
                            bid: 5,
                            smudge: true,
                            sweep: true,
                            loss: 1,
                        }),
                    },
                ];
                let every: u16 = (0..n as usize).map(|s| 1 << s).sum();
                let others: u16 = (0..n as usize)
                    .filter(|&s| sides[s] as usize != ps)
                    .map(|s| 1 << sides[s])
                    .fold(0, |a, b| a | b);
                let more = [
                    // the claim's questions: everyone raising, everyone lowering
                    Objective {
                        sides: 1 << ps,
                        raisers: every,
                        contract: None,
                    },
                    Objective {
                        sides: 1 << ps,
                        raisers: 0,
                        contract: None,
                    },
                    // a revoke's innocent sides together (several, with players alone)
                    Objective {
                        sides: others,
                        raisers: every & !raisers,
                        contract: None,
                    },
                ];
                for obj in objs.into_iter().chain(more) {
                    let mut s = Solver::new(&l, obj);
                    let want = minimax(&l, &p, &obj);
                    assert_eq!(s.value(&p), want, "{preset} {p:?}");
                    assert!(!s.exceeds(&p, want) && s.exceeds(&p, want - 1), "{preset}");
                    assert!(
                        !s.falls_short(&p, want) && s.falls_short(&p, want + 1),
                        "{preset}"
                    );
                    checked += 1;
                }
            }
        }
        assert!(checked > 4000, "{checked}");
    }
}
