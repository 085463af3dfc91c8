//! A hand as the solver sees it: who holds what, the play of a card, the points, and what the
//! cards still out make sure of.

use std::sync::Arc;

use super::node::Numbering;
use super::{MAX_SEATS, NotAnalysable, Objective};
use crate::cards::{Card, CardMask, GAME_COUNT, TrumpTable, cards_of};
use crate::engine::play::{FollowRule, legal};
use crate::engine::points::captured_points;
use crate::rules::{GamePoint, Low, RuleSet};

pub(super) fn at<T: Copy + Default>(a: &[T], i: usize) -> T {
    a.get(i).copied().unwrap_or_default()
}

fn bump(a: &mut [u8], i: usize, by: u8) {
    if let Some(x) = a.get_mut(i) {
        *x = x.saturating_add(by);
    }
}

/// A hand as the solver sees it: the rules, the seats and the cards each held for the play.
#[derive(Clone, Debug)]
pub struct Layout {
    pub(super) table: &'static TrumpTable,
    rules: Arc<RuleSet>,
    pub(super) n: usize,
    side_of: [u8; MAX_SEATS],
    pub(super) sides: usize,
    /// Cards each seat held as the play began.
    pub hands: [CardMask; MAX_SEATS],
    /// Points won by taking each card (Jack, Jick, jokers, Trey, Low under `low=taker`...).
    pub(super) capture: [u8; 54],
    /// Points each side won by holding a card (High; Low under `low=holder`).
    held: [i8; MAX_SEATS],
    /// Some point can go to nobody whatever the play (not in play, or High with no trump).
    unowned: bool,
    /// Each effective suit's cards, best first.
    pub(super) order: [[Option<Card>; 16]; 4],
    /// The cards worth something: points when taken, or count toward Game.
    pub(super) worth_mask: CardMask,
    /// Game goes by count (not by the ten of trumps).
    pub(super) by_count: bool,
    /// The cards as the search numbers them, and the cards dealt in that numbering.
    pub(super) numbering: Numbering,
    pub(super) dealt_bits: u64,
    /// Only trumps are played (`trumps_only`), read at every trick of the search.
    pub(super) trumps_only: bool,
    /// The follow rule of every trick after the first.
    pub(super) later_rule: FollowRule,
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
    /// The cards in the hands (the union of `hands`).
    pub(super) in_hands: CardMask,
    /// The cards on the table in this trick.
    pub(super) on_table: CardMask,
}

impl Layout {
    /// The layout of a hand with trump `trump` and the cards each seat held for the play.
    pub fn new(
        rules: Arc<RuleSet>,
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
        if hands.iter().any(|m| m.count_ones() > 16) {
            // no rule set deals that many (`hand_size` is 13 at most): the search's moves have room for sixteen
            return Err(NotAnalysable("a seat holds more than sixteen cards".into()));
        }
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
        let worth_mask = (0..54u8)
            .filter_map(Card::new)
            .filter(|c| {
                at(&capture, usize::from(c.index())) > 0
                    || at(&GAME_COUNT, usize::from(c.index())) > 0
            })
            .fold(0, |m, c| m | c.bit());
        let mut order = [[None; 16]; 4];
        for s in 0..4 {
            let mut cs: Vec<Card> = (0..54u8)
                .filter_map(Card::new)
                .filter(|&c| table.suit(c) == s as i32)
                .collect();
            cs.sort_by_key(|&c| -table.in_trick(c, s as i32));
            if let Some(row) = order.get_mut(s) {
                for (slot, &c) in row.iter_mut().zip(&cs) {
                    *slot = Some(c);
                }
            }
        }
        let numbering = Numbering::new(table, &order, all, &capture, holder, |s| {
            usize::from(at(&side, s))
        });
        let dealt_bits = numbering.bits(all);
        if cards_of(all).any(|c| numbering.bit(c) == super::node::NO_BIT) {
            // the search numbers the cards of the four suits in play (a joker is a trump once trump is known)
            return Err(NotAnalysable("a card of no suit in play".into()));
        }
        Ok(Layout {
            trumps_only: rules.trumps_only,
            later_rule: FollowRule::of(&rules, table, 1, None),
            numbering,
            dealt_bits,
            table,
            by_count: rules.game_point == GamePoint::Count,
            rules,
            n,
            side_of: side,
            sides,
            hands: h,
            capture,
            held,
            unowned,
            order,
            worth_mask,
        })
    }

    pub(super) fn rules(&self) -> &RuleSet {
        &self.rules
    }

    /// The trump suit (0-3).
    pub fn trump(&self) -> i32 {
        self.table.trump
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
            in_hands: self.hands.iter().fold(0, |a, &h| a | h),
            on_table: 0,
        };
        self.begin_trick(&mut p);
        p
    }

    fn trumps_only(&self) -> bool {
        self.trumps_only
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
        p.on_table = 0;
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
        let mut s = last;
        for _ in 1..self.n {
            s = if s + 1 == self.n { 0 } else { s + 1 };
            if self.still_in(p, s) {
                return s;
            }
        }
        last
    }

    /// The follow rule for the trick now being played.
    pub(super) fn follow_rule(&self, p: &Position) -> FollowRule {
        FollowRule::of(
            self.rules(),
            self.table,
            usize::from(p.tricks_done),
            p.first_lead,
        )
    }

    /// The cards `seat`, to play at `p`, may play.
    pub(super) fn legal_for(&self, p: &Position, seat: usize) -> CardMask {
        let led = (p.trick_len > 0).then_some(p.trick[0].1);
        legal(self.follow_rule(p), self.table, at(&p.hands, seat), led)
    }

    /// The cards the player to play may play.
    pub fn legal(&self, p: &Position) -> CardMask {
        self.legal_for(p, self.to_play(p))
    }

    /// `seat` plays `card` (legal or not: a recorded revoke is replayed as it stands). When
    /// the card completes the trick: the seat that takes it and the points in it.
    pub fn play(&self, p: &mut Position, seat: usize, card: Card) -> Option<(usize, u8)> {
        if let Some(h) = p.hands.get_mut(seat) {
            *h &= !card.bit();
        }
        p.in_hands &= !card.bit();
        p.on_table |= card.bit();
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
        if !self.by_count {
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
                    && (!self.by_count
                        || self
                            .game_by_count(p)
                            .is_some_and(|s| obj.sides & (1 << s) != 0));
                c.value(mine, all_points && my_tricks == total_tricks).1
            }
        }
    }

    /// Whether `side` is counted by `obj`.
    pub(super) fn counted(obj: &Objective, side: usize) -> bool {
        obj.sides & (1 << side) != 0
    }

    /// What the counted sides gain when `winner` takes a trick holding `points`: those points
    /// (for a sweep: minus the trick, when it is lost).
    pub(super) fn gain(&self, winner: usize, points: u8, obj: &Objective) -> i32 {
        let ours = Self::counted(obj, self.side(winner));
        match (obj.sweep(), ours) {
            (true, ours) => -i32::from(!ours),
            (false, true) => i32::from(points),
            (false, false) => 0,
        }
    }

    /// What the counted sides have at `p` for sure: points held, and taken in past tricks.
    pub(super) fn base(&self, p: &Position, obj: &Objective) -> i32 {
        (0..self.sides)
            .filter(|&s| Self::counted(obj, s))
            .map(|s| i32::from(at(&p.taken, s)) + i32::from(at(&self.held, s)))
            .sum()
    }

    /// For a sweep: whether it can still be made, as far as the past and the deal tell.
    pub(super) fn sweep_open(&self, p: &Position, obj: &Objective) -> bool {
        let no_trick_lost = (0..self.sides).all(|s| Self::counted(obj, s) || at(&p.tricks, s) == 0);
        let held_ours = (0..self.sides).all(|s| Self::counted(obj, s) || at(&self.held, s) == 0);
        let count_in_play = self.hands.iter().fold(0, |a, &h| a | h) & self.worth_mask != 0;
        !self.unowned && no_trick_lost && held_ours && count_in_play
    }

    /// The value under `obj` of a position whose counted sides gain `future` from here.
    pub(super) fn value_of(&self, p: &Position, obj: &Objective, future: i32) -> i32 {
        match obj.contract {
            Some(c) if c.sweep => c.value(0, future == 0 && self.sweep_open(p, obj)).1,
            Some(c) => c.value(self.base(p, obj) + future, false).1,
            None => self.base(p, obj) + future,
        }
    }

    /// The legal cards of the player to play, one of each group of equivalent cards (the
    /// best of each), in the order a line of perfect play prefers them: the leader's trumps
    /// first, best first; a follower whose side is taking the trick gives it its count,
    /// lowest cards first otherwise; a follower whose side is not tries the cheapest card that
    /// takes the trick, then its least worth.
    pub(super) fn line_order(
        &self,
        p: &Position,
        seat: usize,
        raisers: u16,
        out: &mut smallvec::SmallVec<[Card; 16]>,
    ) {
        out.clear();
        let mine = self.legal_for(p, seat);
        let still_out = p.in_hands | p.on_table;
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
