//! The search's own position: the cards renumbered so that each suit's cards lie in
//! consecutive bits in the order they play (trumps in the top sixteen bits), so that groups
//! of equivalent cards, the bounds and the table's key are a few operations on bits. Which
//! cards are legal and who takes a trick are still asked of the engine
//! ([`legal`](crate::engine::play::legal), [`TrumpTable::winner_pos`]), on the cards
//! themselves.

use super::layout::{Layout, Position, at};
use super::{MAX_SEATS, Objective};
use crate::cards::{Card, CardMask, GAME_COUNT, TrumpTable};
use crate::engine::play::{FollowRule, following, legal};

fn add_at(a: &mut [i32; MAX_SEATS], i: usize, v: i32) {
    if let Some(x) = a.get_mut(i) {
        *x += v;
    }
}

fn set_at(a: &mut [i32; MAX_SEATS], i: usize, v: i32) {
    if let Some(x) = a.get_mut(i) {
        *x = v;
    }
}

/// The cards of `pool` above every card of `pool` that is not `own`'s (all of `pool` when
/// every one is).
fn top_run(pool: u64, own: u64) -> u64 {
    let others = pool & !own;
    if others == 0 {
        pool
    } else {
        pool & above(63 - others.leading_zeros())
    }
}

/// A bit that stands for no card.
pub(super) const NO_BIT: u8 = u8::MAX;

/// The bits of a block of sixteen (a suit).
fn block_of(bit: u32) -> u64 {
    0xffff << (bit & !15)
}

/// The bits above `bit`.
fn above(bit: u32) -> u64 {
    (!0u64 << bit) << 1
}

/// How the cards of one layout are numbered for the search, and what each is worth.
#[derive(Clone, Debug)]
pub(super) struct Numbering {
    /// Per search bit: the card's own bit (0: no card).
    card_bit: [CardMask; 64],
    /// Per card: its search bit ([`NO_BIT`]: not dealt).
    search_bit: [u8; 54],
    /// Per search bit: points when taken, count toward Game, the seat that held it, its side.
    capture: [u8; 64],
    count: [u8; 64],
    holder: [u8; 64],
    side: [u8; 64],
    /// The cards worth something, those with a count toward Game, and the trumps (search bits).
    pub worth: u64,
    pub counting: u64,
    pub trumps: u64,
    /// Per seat, and per side: the cards dealt to it (search bits).
    pub dealt: [u64; MAX_SEATS],
    pub side_dealt: [u64; MAX_SEATS],
}

impl Numbering {
    /// The numbering of `table`'s suits for the cards dealt (`all`) held as `holder` says.
    pub fn new(
        table: &TrumpTable,
        order: &[[Option<Card>; 16]; 4],
        all: CardMask,
        capture: &[u8; 54],
        holder: impl Fn(Card) -> Option<usize>,
        side_of: impl Fn(usize) -> usize,
    ) -> Numbering {
        let mut n = Numbering {
            card_bit: [0; 64],
            search_bit: [NO_BIT; 54],
            capture: [0; 64],
            count: [0; 64],
            holder: [0; 64],
            side: [0; 64],
            worth: 0,
            counting: 0,
            trumps: 0,
            dealt: [0; MAX_SEATS],
            side_dealt: [0; MAX_SEATS],
        };
        // trumps in the top block, then the other suits in suit order, each weakest card lowest
        let trump = table.trump.clamp(0, 3) as usize;
        let blocks = std::iter::once(trump).chain((0..4).filter(|&s| s != trump));
        for (b, s) in (0..4u32).rev().zip(blocks) {
            let Some(row) = order.get(s) else { continue };
            let cards: Vec<Card> = row.iter().flatten().copied().collect();
            for (k, &c) in cards.iter().enumerate() {
                if all & c.bit() == 0 {
                    continue;
                }
                let bit = b * 16 + (cards.len() - 1 - k) as u32;
                let i = bit as usize;
                let ci = usize::from(c.index());
                if let Some(x) = n.card_bit.get_mut(i) {
                    *x = c.bit();
                }
                if let Some(x) = n.search_bit.get_mut(ci) {
                    *x = bit as u8;
                }
                let (cap, cnt) = (at(capture, ci), at(&GAME_COUNT, ci));
                let seat = holder(c).unwrap_or(0);
                if let (Some(a), Some(b), Some(h), Some(sd)) = (
                    n.capture.get_mut(i),
                    n.count.get_mut(i),
                    n.holder.get_mut(i),
                    n.side.get_mut(i),
                ) {
                    (*a, *b, *h, *sd) = (cap, cnt, seat as u8, side_of(seat) as u8);
                }
                if cap > 0 || cnt > 0 {
                    n.worth |= 1 << bit;
                }
                if cnt > 0 {
                    n.counting |= 1 << bit;
                }
                if let Some(d) = n.dealt.get_mut(seat) {
                    *d |= 1 << bit;
                }
                if let Some(d) = n.side_dealt.get_mut(side_of(seat)) {
                    *d |= 1 << bit;
                }
                if table.is_trump(c) {
                    n.trumps |= 1 << bit;
                }
            }
        }
        n
    }

    /// The cards of a mask of search bits.
    pub fn cards(&self, m: u64) -> CardMask {
        let (mut m, mut out) = (m, 0);
        while m != 0 {
            out |= at(&self.card_bit, m.trailing_zeros() as usize);
            m &= m - 1;
        }
        out
    }

    /// The search bits of a mask of cards.
    pub fn bits(&self, m: CardMask) -> u64 {
        let (mut m, mut out) = (m, 0u64);
        while m != 0 {
            let b = at(&self.search_bit, m.trailing_zeros() as usize);
            if b != NO_BIT {
                out |= 1 << b;
            }
            m &= m - 1;
        }
        out
    }

    /// The card of a search bit.
    pub fn card(&self, bit: u32) -> Option<Card> {
        let m = at(&self.card_bit, bit as usize);
        (m != 0)
            .then(|| Card::new(m.trailing_zeros() as u8))
            .flatten()
    }

    /// The search bit of a card.
    pub fn bit(&self, c: Card) -> u8 {
        at(&self.search_bit, usize::from(c.index()))
    }

    fn capture(&self, bit: u32) -> i32 {
        i32::from(at(&self.capture, bit as usize))
    }

    fn count(&self, bit: u32) -> i32 {
        i32::from(at(&self.count, bit as usize))
    }

    /// What a card is worth: its points and its count.
    fn worth_of(&self, bit: u32) -> (u8, u8) {
        (
            at(&self.capture, bit as usize),
            at(&self.count, bit as usize),
        )
    }

    fn sum(&self, m: u64, of: impl Fn(&Self, u32) -> i32) -> i32 {
        let (mut m, mut s) = (m, 0);
        while m != 0 {
            s += of(self, m.trailing_zeros());
            m &= m - 1;
        }
        s
    }
}

/// A position as the search plays it (cards as search bits).
#[derive(Clone, Copy, Debug)]
pub(super) struct Node {
    pub hands: [u64; MAX_SEATS],
    /// The cards in the hands and on the table.
    pub live: u64,
    /// The cards on the table, in play order, and who played them.
    pub trick: [u8; MAX_SEATS],
    pub seat_of: [u8; MAX_SEATS],
    pub len: u8,
    /// Seats that play to this trick.
    pub in_trick: u8,
    pub leader: u8,
    /// The seat to play.
    pub next: u8,
    pub tricks_done: u8,
    /// The hand's first card led (it decides the first trick's follow rule).
    pub first_lead: Option<Card>,
    /// The follow rule of this trick.
    pub rule: FollowRule,
    /// The place in the trick of the card taking it so far.
    pub taking: u8,
    /// The seats yet to play to this trick (bit per seat).
    pub pending: u16,
    /// The cards on the table.
    pub table: u64,
    /// The points and the count of the cards still out (in the hands and on the table).
    pub open_points: u8,
    pub open_count: u8,
    /// Per side: count toward Game.
    pub counts: [u8; MAX_SEATS],
}

/// What the cards still out make sure of, whatever the play.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Sure {
    /// Bounds on what the counted sides still gain.
    pub lower: i32,
    pub upper: i32,
    /// Game by count is settled whatever the play (Some(1): to the counted sides).
    pub game: Option<i32>,
}

impl Layout {
    /// The search's position for `p`.
    pub(super) fn node(&self, p: &Position) -> Node {
        let nb = &self.numbering;
        let mut n = Node {
            hands: [0; MAX_SEATS],
            live: nb.bits(p.in_hands | p.on_table),
            trick: [NO_BIT; MAX_SEATS],
            seat_of: [0; MAX_SEATS],
            len: p.trick_len,
            in_trick: p.in_trick,
            leader: p.leader,
            next: self.to_play(p) as u8,
            tricks_done: p.tricks_done,
            first_lead: p.first_lead,
            rule: self.follow_rule(p),
            taking: 0,
            pending: 0,
            table: nb.bits(p.on_table),
            open_points: 0,
            open_count: 0,
            counts: p.counts,
        };
        for (h, &m) in n.hands.iter_mut().zip(&p.hands) {
            *h = nb.bits(m);
        }
        for (k, &(s, c)) in p.trick.iter().take(usize::from(p.trick_len)).enumerate() {
            if let (Some(t), Some(x)) = (n.trick.get_mut(k), n.seat_of.get_mut(k)) {
                (*t, *x) = (nb.bit(c), s);
            }
        }
        n.taking = self.taking(&n) as u8;
        let worth = n.live & nb.worth;
        n.open_points = nb.sum(worth, Numbering::capture).clamp(0, 255) as u8;
        n.open_count = nb.sum(worth, Numbering::count).clamp(0, 255) as u8;
        let played: u16 = n
            .seat_of
            .iter()
            .take(usize::from(n.len))
            .fold(0, |a, &s| a | 1 << s);
        n.pending = (0..self.n)
            .filter(|&s| played & (1 << s) == 0 && self.still_in_node(&n, s))
            .fold(0, |a, s| a | 1 << s);
        n
    }

    /// Whether `seat` plays to tricks from here (`trumps_only`: while holding a trump).
    fn still_in_node(&self, n: &Node, seat: usize) -> bool {
        let h = at(&n.hands, seat);
        if self.trumps_only {
            h & self.numbering.trumps != 0
        } else {
            h != 0
        }
    }

    /// The seats that play to tricks from here (bit per seat, as `still_in_node`
    /// says), in one pass over the hands.
    fn still_in_mask(&self, n: &Node) -> u16 {
        let plays = if self.trumps_only {
            self.numbering.trumps
        } else {
            !0
        };
        n.hands
            .iter()
            .take(self.n)
            .enumerate()
            .fold(0, |a, (s, &h)| a | u16::from(h & plays != 0) << s)
    }

    fn next_after(&self, n: &Node, seat: usize) -> usize {
        let mut s = seat;
        for _ in 1..self.n {
            s = if s + 1 == self.n { 0 } else { s + 1 };
            if self.still_in_node(n, s) {
                return s;
            }
        }
        seat
    }

    fn begin_trick_node(&self, n: &mut Node) {
        n.len = 0;
        n.table = 0;
        n.pending = self.still_in_mask(n);
        n.in_trick = n.pending.count_ones() as u8;
        let leader = usize::from(n.leader);
        if n.in_trick > 0 && !self.still_in_node(n, leader) {
            // the winner has no trump left: the lead passes to the next player on the left still in
            n.leader = self.next_after(n, leader) as u8;
        }
        n.next = n.leader;
        n.rule = if n.tricks_done > 0 {
            self.later_rule
        } else {
            FollowRule::of(self.rules(), self.table, 0, n.first_lead)
        };
    }

    /// Whether the hand is over.
    pub(super) fn over(&self, n: &Node) -> bool {
        n.len == 0 && n.in_trick == 0
    }

    /// Whether every seat holds one card at most: the last trick.
    pub(super) fn last_trick_node(&self, n: &Node) -> bool {
        n.len == 0 && n.hands.iter().all(|h| h & h.wrapping_sub(1) == 0)
    }

    /// The first card on the table.
    fn led(&self, n: &Node) -> Option<Card> {
        (n.len > 0)
            .then(|| self.numbering.card(u32::from(n.trick[0])))
            .flatten()
    }

    /// The cards `seat` may play (search bits): the engine's follow rule
    /// ([`following`]) on the search bits, where a suit in play is a block and the trumps are
    /// the top block (a debug build checks every answer against [`legal`] on the cards).
    pub(super) fn legal_node(&self, n: &Node, seat: usize) -> u64 {
        let hand = at(&n.hands, seat);
        let trumps = hand & self.numbering.trumps;
        let out = if n.len == 0 {
            if n.rule == FollowRule::TrumpsOnly && trumps != 0 {
                trumps
            } else {
                hand
            }
        } else {
            // every card numbered has a suit in play: no lead of no suit to follow
            let suit = hand & block_of(u32::from(n.trick[0]));
            following(n.rule, hand, trumps, suit, 0)
        };
        debug_assert_eq!(out, self.legal_engine(n, seat), "{:?}", n.rule);
        out
    }

    /// The cards `seat` may play, as the engine says.
    fn legal_engine(&self, n: &Node, seat: usize) -> u64 {
        let nb = &self.numbering;
        let held = nb.cards(at(&n.hands, seat));
        nb.bits(legal(n.rule, self.table, held, self.led(n)))
    }

    /// Where the trick stands: the place in it of the card taking it so far.
    fn taking(&self, n: &Node) -> usize {
        let nb = &self.numbering;
        let cards = n
            .trick
            .iter()
            .take(usize::from(n.len))
            .filter_map(|&b| nb.card(u32::from(b)));
        self.table.winner_pos(cards)
    }

    /// `seat` plays the card of search bit `bit`; when it completes the trick: the seat that
    /// takes it and the points in it.
    pub(super) fn play_node(&self, n: &mut Node, seat: usize, bit: u32) -> Option<(usize, u8)> {
        if let Some(h) = n.hands.get_mut(seat) {
            *h &= !(1u64 << bit);
        }
        n.pending &= !(1 << seat);
        n.table |= 1 << bit;
        if n.tricks_done == 0 && n.len == 0 {
            // the first card led decides the first trick's rule (`first_trick_trump=free`)
            n.first_lead = self.numbering.card(bit);
            n.rule = FollowRule::of(self.rules(), self.table, 0, n.first_lead);
        }
        let k = usize::from(n.len);
        if let (Some(t), Some(s)) = (n.trick.get_mut(k), n.seat_of.get_mut(k)) {
            (*t, *s) = (bit as u8, seat as u8);
        }
        // the card taking the trick so far against this one, as the engine ranks a trick (the
        // card taking it is of the suit led or a trump, so the two rank as in the whole trick)
        // on the search bits: a trump beats any other card, and a card beats one of its block
        // (its suit in play) below it; the card taking the trick so far is a trump or of the
        // suit led, so a card of another suit takes nothing (a debug build asks the engine)
        if n.len == 0 {
            n.taking = 0;
        } else {
            let top = u32::from(at(&n.trick, usize::from(n.taking)));
            let trumps = self.numbering.trumps;
            let beats = (trumps >> bit & 1 != 0 && trumps >> top & 1 == 0)
                || (block_of(bit) == block_of(top) && bit > top);
            if beats {
                n.taking = n.len;
            }
        }
        debug_assert!({
            let nb = &self.numbering;
            let cards = n.trick.iter().take(usize::from(n.len) + 1);
            self.table
                .winner_pos(cards.filter_map(|&b| nb.card(u32::from(b))))
                == usize::from(n.taking)
        });
        n.len += 1;
        if n.len < n.in_trick {
            n.next = self.next_after(n, seat) as u8;
            return None;
        }
        let winner = usize::from(at(&n.seat_of, usize::from(n.taking)));
        let (mut pts, mut count) = (0u8, 0u8);
        // the cards of the trick worth something (most are worth nothing)
        let mut m = n.table & self.numbering.worth;
        while m != 0 {
            let (p, c) = self.numbering.worth_of(m.trailing_zeros());
            pts = pts.saturating_add(p);
            count = count.saturating_add(c);
            m &= m - 1;
        }
        n.live &= !n.table;
        n.open_points = n.open_points.saturating_sub(pts);
        n.open_count = n.open_count.saturating_sub(count);
        if let Some(x) = n.counts.get_mut(self.side(winner)) {
            *x = x.saturating_add(count);
        }
        n.leader = winner as u8;
        n.tricks_done += 1;
        self.begin_trick_node(n);
        Some((winner, pts))
    }

    /// Game by count at the end, for the counted sides (0 for a sweep: all tricks give it).
    pub(super) fn end_gain_node(&self, n: &Node, obj: &Objective) -> i32 {
        self.end_gain(&n.counts, obj)
    }

    /// Game by count for the counted sides when the sides end with `counts`.
    fn end_gain(&self, counts: &[u8; MAX_SEATS], obj: &Objective) -> i32 {
        if obj.sweep() || !self.by_count {
            return 0;
        }
        let counts = counts.get(..self.sides).unwrap_or(&[]);
        let Some(best) = counts.iter().copied().max() else {
            return 0;
        };
        let mut top = counts.iter().enumerate().filter(|&(_, &c)| c == best);
        match (top.next(), top.next()) {
            (Some((s, _)), None) => i32::from(Self::counted(obj, s)),
            _ => 0,
        }
    }

    /// What the counted sides gain from the last trick, every seat still in holding one card,
    /// Game at the end included: the trick goes to the best trump in it, else to the best card
    /// of the suit led (under `trumps_only` only trumps are played).
    pub(super) fn last_trick_gain(&self, n: &Node, obj: &Objective) -> i32 {
        let nb = &self.numbering;
        let hands = n.live & !n.table;
        let cards = if self.trumps_only {
            hands & nb.trumps
        } else {
            hands
        };
        let trumps = cards & nb.trumps;
        let led = at(&n.hands, usize::from(n.leader)) & cards;
        let takers = if trumps != 0 {
            trumps
        } else if led != 0 {
            cards & block_of(led.trailing_zeros())
        } else {
            return self.end_gain_node(n, obj);
        };
        let top = 63 - takers.leading_zeros();
        let side = usize::from(at(&nb.side, top as usize));
        let worth = cards & nb.worth;
        let mut counts = n.counts;
        if let Some(c) = counts.get_mut(side) {
            *c = c.saturating_add(nb.sum(worth, Numbering::count).clamp(0, 255) as u8);
        }
        let ours = Self::counted(obj, side);
        let gain = match (obj.sweep(), ours) {
            (true, ours) => -i32::from(!ours),
            (false, true) => nb.sum(worth, Numbering::capture),
            (false, false) => 0,
        };
        gain + self.end_gain(&counts, obj)
    }

    /// What the cards still out make sure of, whatever the play: bounds on what the counted
    /// sides still gain, and whether Game by count is settled.
    ///
    /// A trump goes to the side of its holder when every trump above it still out is held by
    /// that side: whatever trick it falls in, one of them takes it (every trump held is played,
    /// `trumps_only` included). Mid-trick, the trumps on the table count as held by the side
    /// that played them for a seat yet to play, and the cards on the table go to the side
    /// taking the trick so far when no seat yet to play outside it holds a card that beats
    /// it. The points of such cards are sure; so is their count, side by side, and Game is
    /// settled once a side's sure count beats what any other side could reach.
    pub(super) fn sure_node(&self, n: &Node, obj: &Objective) -> Sure {
        if obj.sweep() {
            let left = self.rules().hand_size as i32 - i32::from(n.tricks_done);
            return Sure {
                lower: -left.max(0) - 1,
                upper: 0,
                game: Some(0),
            };
        }
        let nb = &self.numbering;
        let counted = obj.sides;
        let is_counted = |side: usize| counted >> side & 1 != 0;
        let side_cards = |side: usize| at(&nb.side_dealt, side);
        // the cards dealt to the counted sides
        let mut counted_cards = 0;
        let mut m = counted;
        while m != 0 {
            counted_cards |= side_cards(m.trailing_zeros() as usize);
            m &= m - 1;
        }
        // the cards in hand, and those of the seats yet to play to this trick (every card is
        // held, or was played, by a seat of the side it was dealt to)
        let hands = n.live & !n.table;
        let mut to_play_all = 0;
        let mut m = n.pending;
        while m != 0 {
            to_play_all |= at(&n.hands, m.trailing_zeros() as usize);
            m &= m - 1;
        }
        let to_play_c = to_play_all & counted_cards;
        let (mut lower, mut lost) = (0i32, 0i32);
        let mut sure_count = [0i32; MAX_SEATS];
        // the cards on the table: to the side taking the trick, unless a seat yet to play beats it
        if n.len > 0 {
            let top = u32::from(at(&n.trick, usize::from(n.taking)));
            let beaten_by = if nb.trumps >> top & 1 != 0 {
                above(top) & nb.trumps
            } else {
                nb.trumps | (above(top) & block_of(top))
            };
            let side = usize::from(at(&nb.side, top as usize));
            let worth = n.table & nb.worth;
            let (points, count) = (
                nb.sum(worth, Numbering::capture),
                nb.sum(worth, Numbering::count),
            );
            if is_counted(side) {
                if beaten_by & to_play_all & !to_play_c == 0 {
                    lower += points;
                }
            } else if beaten_by & to_play_c == 0 {
                lost += points;
            }
            if beaten_by & to_play_all & !side_cards(side) == 0 {
                add_at(&mut sure_count, side, count);
            }
        }
        // A trump goes to a side when every trump above it still to be played is that side's:
        // the top run of one side among those trumps. For a seat yet to play to this trick the
        // trumps on the table are still to beat (each the side's that played it); for a seat
        // that has played, only the trumps in hand. The same by the counted sides together, and
        // by the others, for the points taken with a trump.
        let worth_trumps = hands & nb.worth & nb.trumps;
        let views = [
            (worth_trumps & to_play_all, n.live & nb.trumps),
            (worth_trumps & !to_play_all, hands & nb.trumps),
        ];
        for (mine, pool) in views {
            if mine == 0 {
                continue;
            }
            let top = 63 - pool.leading_zeros();
            let side = usize::from(at(&nb.side, top as usize));
            add_at(
                &mut sure_count,
                side,
                nb.sum(mine & top_run(pool, side_cards(side)), Numbering::count),
            );
            let group = if is_counted(side) {
                counted_cards
            } else {
                !counted_cards
            };
            let points = nb.sum(mine & top_run(pool, group), Numbering::capture);
            if is_counted(side) {
                lower += points;
            } else {
                lost += points;
            }
        }
        // at the start of a trick, a side whose seat X holds r trumps of the top run takes r
        // of the tricks X plays to, and every other seat plays a card into each of those it
        // plays to as well: at least the least count of that many of its cards. A seat plays
        // to the next tricks while it holds a card (under trumps_only: a trump), so a seat
        // with d cards fewer than X may miss d of X's tricks.
        if n.len == 0 && self.by_count {
            let pool = hands & nb.trumps;
            if pool != 0 {
                let side = usize::from(at(&nb.side, 63 - pool.leading_zeros() as usize));
                let run = top_run(pool, side_cards(side));
                let plays = |h: u64| if self.trumps_only { h & nb.trumps } else { h };
                // X: the most trumps of the run, and how many tricks it plays to
                let (mut tricks, mut span) = (0, 0);
                for (s, &h) in n.hands.iter().enumerate().take(self.n) {
                    if self.side(s) != side {
                        continue;
                    }
                    let r = (h & run).count_ones();
                    if r > tricks {
                        (tricks, span) = (r, plays(h).count_ones());
                    }
                }
                let given: i32 = n
                    .hands
                    .iter()
                    .enumerate()
                    .take(self.n)
                    .filter(|&(s, _)| self.side(s) != side)
                    .map(|(_, &h)| {
                        let h = plays(h);
                        let missed = span.saturating_sub(h.count_ones());
                        self.least_count(h, tricks.saturating_sub(missed))
                    })
                    .sum();
                add_at(&mut sure_count, side, given);
            }
        }
        // a side that must take every trick left takes everything still out
        if n.len == 0 {
            if let Some(side) = self.sweeper(n, hands) {
                // under trumps_only the other cards are never played
                let (points, count) = if self.trumps_only {
                    let t = hands & nb.trumps & nb.worth;
                    (nb.sum(t, Numbering::capture), nb.sum(t, Numbering::count))
                } else {
                    (i32::from(n.open_points), i32::from(n.open_count))
                };
                if is_counted(side) {
                    lower = points;
                } else {
                    lost = points;
                }
                sure_count = [0; MAX_SEATS];
                add_at(&mut sure_count, side, count);
            }
        }
        let mut upper = i32::from(n.open_points) - lost;
        let mut game = Some(0);
        if self.by_count {
            let sides = self.sides.min(MAX_SEATS);
            let left = i32::from(n.open_count);
            let all_sure: i32 = sure_count.iter().sum();
            // per side: the count it is sure to end with, and the most it could
            let mut least = [0i32; MAX_SEATS];
            let mut most = [0i32; MAX_SEATS];
            for s in 0..sides {
                let (had, sure) = (i32::from(at(&n.counts, s)), at(&sure_count, s));
                set_at(&mut least, s, had + sure);
                set_at(&mut most, s, had + left - (all_sure - sure));
            }
            // Game to the counted sides for sure: one of them beats what any other could reach;
            // possibly: one of them could beat what every other is sure of
            let beats = |mine: &[i32; MAX_SEATS], theirs: &[i32; MAX_SEATS]| {
                (0..sides).filter(|&s| is_counted(s)).any(|s| {
                    let m = at(mine, s);
                    (0..sides).all(|t| t == s || m > at(theirs, t))
                })
            };
            let sure_to = beats(&least, &most);
            let could = beats(&most, &least);
            lower += i32::from(sure_to);
            upper += i32::from(could);
            game = (sure_to || !could).then_some(i32::from(sure_to));
        }
        Sure { lower, upper, game }
    }

    /// The least count `k` cards of `hand` hold (all of it when it holds fewer).
    fn least_count(&self, hand: u64, k: u32) -> i32 {
        let nb = &self.numbering;
        let none = (hand & !nb.counting).count_ones();
        if none >= k {
            return 0;
        }
        // the k - none lowest counts of the cards that have one
        let mut counts = [0u8; 16];
        let mut len = 0;
        let mut m = hand & nb.counting;
        while m != 0 {
            if let Some(c) = counts.get_mut(len) {
                *c = at(&nb.count, m.trailing_zeros() as usize);
                len += 1;
            }
            m &= m - 1;
        }
        let counts = counts.get_mut(..len).unwrap_or(&mut []);
        counts.sort_unstable();
        counts
            .iter()
            .take((k - none) as usize)
            .map(|&c| i32::from(c))
            .sum()
    }

    /// The side that takes every trick left from the start of a trick, if one must: one of its
    /// seats plays a trump to every trick left, each above every trump of the other sides.
    /// That seat holds nothing but trumps and as many cards as any seat (under `trumps_only`,
    /// where only trumps are played: as many trumps as any), so whatever is led it may play a
    /// trump, and no other side can beat it.
    fn sweeper(&self, n: &Node, hands: u64) -> Option<usize> {
        let trumps = hands & self.numbering.trumps;
        if trumps == 0 {
            return None;
        }
        let most = n
            .hands
            .iter()
            .map(|&h| if self.trumps_only { h & trumps } else { h }.count_ones())
            .max()
            .unwrap_or(0);
        n.hands.iter().enumerate().take(self.n).find_map(|(s, &h)| {
            let side = self.side(s);
            let theirs = trumps & !at(&self.numbering.side_dealt, side);
            let mine = h & trumps;
            // its lowest trump above the highest of the others
            let above_all = theirs == 0 || mine.trailing_zeros() > 63 - theirs.leading_zeros();
            let only_trumps = self.trumps_only || h & !trumps == 0;
            (mine != 0 && only_trumps && mine.count_ones() == most && above_all).then_some(side)
        })
    }

    /// The cards in hand at the start of a trick with every card that plays as another put in
    /// its place: of the worthless cards of a suit between two cards worth something, only
    /// who holds them in what order matters to the rest of the hand, so each is replaced by
    /// the highest dealt card that keeps that order. Positions with the same cards in this
    /// sense (and the same leader and counts) have the same future.
    pub(super) fn equivalent_node(&self, live: u64) -> u64 {
        let nb = &self.numbering;
        let dealt = self.dealt_bits;
        let mut out = live & nb.worth;
        for b in 0..4u32 {
            let block = 0xffffu64 << (b * 16);
            // the worthless cards, each placed below every card worth something above it
            let mut cards = live & block & !nb.worth;
            let worth = live & block & nb.worth;
            // dealt cards still to be matched, from the top of the block down
            let mut free = dealt & block;
            while cards != 0 {
                let top = 63 - cards.leading_zeros();
                cards &= !(1u64 << top);
                let barrier = worth & above(top);
                if barrier != 0 {
                    free &= (1u64 << barrier.trailing_zeros()) - 1;
                }
                // the highest worthless card of the same holder not above the last one placed
                let holder = usize::from(at(&nb.holder, top as usize));
                let m = free & !nb.worth & at(&nb.dealt, holder);
                if m != 0 {
                    let c = 63 - m.leading_zeros();
                    out |= 1 << c;
                    free &= !(!0u64 << c);
                }
            }
        }
        out
    }

    /// The cards the search tries for `seat` at `n` (search bits, one of each group of
    /// equivalent cards: of the cards of a suit in one hand with no card still out between
    /// them and the same worth, the highest), likeliest best first: the leader's trumps first,
    /// best first; a follower whose side is taking the trick, when no seat of the other side
    /// yet to play can beat the card taking it, gives it its count, lowest cards first
    /// otherwise; any other follower tries the cheapest card that takes the trick and that no
    /// seat of the other side yet to play can beat, then the cheapest that takes it for now,
    /// then its least worth.
    pub(super) fn moves_node(&self, n: &Node, seat: usize, raisers: u16, out: &mut Moves) {
        out.len = 0;
        let nb = &self.numbering;
        let legal = self.legal_node(n, seat);
        let mut m = legal;
        while m != 0 {
            let bit = 63 - m.leading_zeros();
            m &= !(1u64 << bit);
            // the next card still out above it in its suit, when it is ours and worth as much
            let next = n.live & above(bit) & block_of(bit);
            if next != 0 {
                let up = next.trailing_zeros();
                if legal >> up & 1 != 0 && nb.worth_of(up) == nb.worth_of(bit) {
                    continue;
                }
            }
            out.push(bit as u8);
        }
        if n.len > 0 && out.len > 1 {
            let led = u32::from(n.trick[0]);
            let top = u32::from(at(&n.trick, usize::from(n.taking)));
            let winner = at(&n.seat_of, usize::from(n.taking));
            // a side taking the trick is given count only when no seat of the other side yet
            // to play can beat the card taking it: otherwise the count may well go to them, and
            // the follower first tries to take the trick itself, then gives the least worth
            let mine = raisers >> seat & 1;
            let beaten_by = |top: u32| {
                if nb.trumps >> top & 1 != 0 {
                    above(top) & nb.trumps
                } else {
                    nb.trumps | (above(top) & block_of(top))
                }
            };
            // the cards of the other side's seats yet to play after this one
            let mut later = n.pending & !(1 << seat);
            let mut threat = 0;
            while later != 0 {
                let s = later.trailing_zeros() as usize;
                if raisers >> s & 1 != mine {
                    threat |= at(&n.hands, s);
                }
                later &= later - 1;
            }
            let friendly = mine == (raisers >> winner & 1) && threat & beaten_by(top) == 0;
            // the card's place in the trick: trumps above the suit led, the rest nowhere
            let place = |b: u32| -> i32 {
                if nb.trumps >> b & 1 != 0 {
                    100 + (b & 15) as i32
                } else if block_of(b) == block_of(led) {
                    (b & 15) as i32
                } else {
                    -1
                }
            };
            let best = place(top);
            // each card's key, above the card (a card met earlier, so higher, first among equals)
            let mut keyed = [0u32; 16];
            for (k, &b) in keyed.iter_mut().zip(out.as_slice()) {
                let b = u32::from(b);
                let v = place(b);
                let (pts, count) = nb.worth_of(b);
                let w = i32::from(pts) * 20 + i32::from(count);
                let key = match (friendly, v > best) {
                    (true, false) => -w * 256 + v,
                    (true, true) => 1 << 20 | v,
                    // a card that takes the trick for good before one the other side may overtake
                    (false, true) if threat & beaten_by(b) == 0 => v,
                    (false, true) => 1 << 19 | v,
                    (false, false) => 1 << 20 | (w * 256 + v.max(0)),
                };
                // keys lie in -2^20..2^21: shifted to be positive, they leave six bits for the card
                *k = ((key + (1 << 21)) as u32) << 6 | (63 - b);
            }
            let keyed = keyed.get_mut(..usize::from(out.len)).unwrap_or(&mut []);
            keyed.sort_unstable();
            for (slot, &k) in out.bits.iter_mut().zip(keyed.iter()) {
                *slot = 63 - (k & 63) as u8;
            }
        }
    }
}

impl Layout {
    /// The groups of cards of `set` that play alike from `p` (cards of a suit in one hand with
    /// no card still out between them and the same worth lead to the same positions): the
    /// best card of each and the whole group, the best groups first.
    pub fn distinct(&self, p: &Position, set: CardMask) -> Vec<(Card, CardMask)> {
        let nb = &self.numbering;
        let n = self.node(p);
        let set = nb.bits(set);
        let mut out: Vec<(Card, CardMask)> = Vec::new();
        let mut m = set;
        while m != 0 {
            let bit = 63 - m.leading_zeros();
            m &= !(1u64 << bit);
            let Some(card) = nb.card(bit) else { continue };
            let next = n.live & above(bit) & block_of(bit);
            if next != 0 {
                let up = next.trailing_zeros();
                // the card above is the last one met: this one joins its group
                if set >> up & 1 != 0 && nb.worth_of(up) == nb.worth_of(bit) {
                    if let Some((_, group)) = out.last_mut() {
                        *group |= card.bit();
                    }
                    continue;
                }
            }
            out.push((card, card.bit()));
        }
        out
    }
}

/// The cards to try at a node (search bits), in the order tried. A hand holds sixteen cards at
/// most (the layout refuses more), so sixteen moves at most.
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct Moves {
    bits: [u8; 16],
    len: u8,
}

impl Moves {
    fn push(&mut self, bit: u8) {
        if let Some(slot) = self.bits.get_mut(usize::from(self.len)) {
            *slot = bit;
            self.len += 1;
        }
    }

    /// The moves in order.
    pub fn as_slice(&self) -> &[u8] {
        self.bits.get(..usize::from(self.len)).unwrap_or(&[])
    }

    /// Try `bit` first, when it is one of the moves.
    pub fn first(&mut self, bit: u8) {
        let len = usize::from(self.len);
        if let Some(k) = self.bits.iter().take(len).position(|&b| b == bit) {
            self.bits.swap(0, k);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_block_and_the_bits_above() {
        assert_eq!(block_of(17), 0xffff << 16);
        assert_eq!(above(63), 0);
        assert_eq!(above(0), !1);
    }
}
