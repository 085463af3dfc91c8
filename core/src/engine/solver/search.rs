//! The search: fail-soft alpha-beta over single cards, with the table shared by every question
//! about one hand.

use super::layout::{Layout, Position, at};
use super::node::{Moves, NO_BIT, Node};
use super::table::{Counts, Table};
use super::{MAX_SEATS, Objective};
use crate::cards::{Card, cards_of};

const LOW: i32 = -1000;
const HIGH: i32 = 1000;

/// What the questions about one hand share: the transposition table, the positions searched,
/// and how many they may be.
///
/// Each question (a layout and an objective) gets a number of its own in the table's keys, so
/// the values found for par, for each card's cost, for the claim and for a revoke's damage
/// are all kept, and a later question finds what an earlier one searched.
#[derive(Debug)]
pub struct Context {
    table: Table,
    /// The questions asked so far: the trump and the objective of each.
    questions: Vec<(i32, Objective)>,
    /// Positions searched since the context was made or last cleared.
    pub nodes: u64,
    /// Positions that may be searched before the answers are no longer to be trusted (None: no limit).
    pub budget: Option<u64>,
}

impl Default for Context {
    fn default() -> Self {
        Context::new()
    }
}

impl Context {
    /// An empty context with no budget.
    pub fn new() -> Context {
        Context {
            table: Table::new(),
            questions: Vec::new(),
            nodes: 0,
            budget: None,
        }
    }

    /// Forget everything, for another hand (the table's memory is kept).
    pub fn clear(&mut self) {
        self.table.clear();
        self.questions.clear();
        self.nodes = 0;
    }

    /// Whether the budget ran out: values found since are not to be trusted.
    pub fn out_of_budget(&self) -> bool {
        self.budget.is_some_and(|b| self.nodes > b)
    }

    /// Positions kept in the table.
    pub fn kept(&self) -> usize {
        self.table.len()
    }

    /// The number of the question (trump, objective), given on first asking.
    fn question(&mut self, trump: i32, obj: Objective) -> u64 {
        let k = match self.questions.iter().position(|&q| q == (trump, obj)) {
            Some(k) => k,
            None => {
                if self.questions.len() >= MAX_QUESTIONS {
                    // more questions than the key has room for: start the table afresh (every
                    // solver looks its number up again before each search)
                    self.table.clear();
                    self.questions.clear();
                }
                self.questions.push((trump, obj));
                self.questions.len() - 1
            }
        };
        k as u64
    }
}

/// Questions one table keeps apart (nine bits of the key).
const MAX_QUESTIONS: usize = 512;

/// A solver for one layout and one objective, over a [`Context`] that may serve other
/// questions about the same hand.
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
    ctx: &'a mut Context,
    /// This question's number in the table's keys.
    question: u64,
    /// Per trick and leader: the lead that last cut the search off at the start of that trick,
    /// tried first at the start of a trick the table knows no card for (the killer heuristic;
    /// one per trick alone, or trying it second after the table's card, did a little worse,
    /// and so much worse for the followers, whose own order is better).
    killers: [[u8; MAX_SEATS]; 16],
}

impl<'a> Solver<'a> {
    /// A solver for `objective` on `layout`, keeping its positions in `ctx`.
    pub fn new(ctx: &'a mut Context, layout: &'a Layout, objective: Objective) -> Solver<'a> {
        let question = ctx.question(layout.trump(), objective);
        Solver {
            layout,
            objective,
            ctx,
            question,
            killers: [[NO_BIT; MAX_SEATS]; 16],
        }
    }

    /// Positions searched by every question of the context.
    pub fn nodes(&self) -> u64 {
        self.ctx.nodes
    }

    /// Whether the context's budget ran out: values found since are not to be trusted.
    pub fn out_of_budget(&self) -> bool {
        self.ctx.out_of_budget()
    }

    /// The value of the rest of the hand from `p` under perfect play, as the objective counts it.
    pub fn value(&mut self, p: &Position) -> i32 {
        let (l, obj) = (self.layout, self.objective);
        let future = match obj.contract {
            Some(c) if c.sweep => {
                if !l.sweep_open(p, &obj) {
                    return l.value_of(p, &obj, -1);
                }
                self.root(p, -1, 0)
            }
            Some(c) if c.bid > 0 => {
                // first only whether the bid is reached; then, if it is, by how much
                let need = c.bid - l.base(p, &obj);
                if self.root(p, need - 1, need) < need {
                    return l.value_of(p, &obj, need - 1);
                }
                self.exact_gain(p, need)
            }
            _ => self.exact_gain(p, LOW),
        };
        l.value_of(p, &obj, future)
    }

    /// The gain from `p`, known to be at least `least`: a null window at a time, from the
    /// bounds the cards still out give (the gain is a small number, so a few windows settle it).
    fn exact_gain(&mut self, p: &Position, least: i32) -> i32 {
        let (mut lo, mut hi) = self.gain_range(p);
        lo = lo.max(least);
        while lo < hi {
            // is the gain above lo? a null window: then lo rises to what the search found
            let g = self.root(p, lo, lo + 1);
            if g > lo {
                lo = g;
            } else {
                hi = lo;
            }
        }
        lo
    }

    /// Bounds on the gain from `p` without a search.
    fn gain_range(&self, p: &Position) -> (i32, i32) {
        let (l, obj) = (self.layout, &self.objective);
        let n = l.node(p);
        if l.over(&n) {
            let g = l.end_gain_node(&n, obj);
            return (g, g);
        }
        let s = l.sure_node(&n, obj);
        (s.lower, s.upper)
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
            Some(g) => self.root(p, g - 1, g) >= g,
        }
    }

    /// Whether the value from `p` is below `v`.
    pub fn falls_short(&mut self, p: &Position, v: i32) -> bool {
        match self.gain_above(p, v - 1) {
            None => true,
            Some(g) => self.root(p, g - 1, g) < g,
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

    /// Whether the value of `q`, reached by a card of `seat`, is still `v`, when `v` is the
    /// value before that card and the card was legal: for the side raising the value a legal
    /// card cannot raise it, for the others it cannot lower it, so one null window tells.
    pub fn keeps(&mut self, q: &Position, seat: usize, v: i32) -> bool {
        if self.objective.raisers & (1 << seat) != 0 {
            !self.falls_short(q, v)
        } else {
            !self.exceeds(q, v)
        }
    }

    /// The table's key of a position at the start of a trick: the cards still out as the
    /// rest of the hand sees them (cards that play as one another replaced by one of them),
    /// the leader and the question; and beside it the counts toward Game, when Game goes by
    /// count (entries of the same key hold for better or worse counts: see [`Counts`]).
    fn key(&self, n: &Node) -> ((u64, u64), Counts) {
        key(self.layout, n, self.question, &self.objective)
    }
}

/// The table's key of a position at the start of a trick, and its counts (see [`Solver::key`]).
fn key(l: &Layout, n: &Node, question: u64, obj: &Objective) -> ((u64, u64), Counts) {
    let cards = l.equivalent_node(n.live);
    let mut bytes = 0u64;
    if l.by_count && !obj.sweep() {
        for s in 0..l.sides.min(8) {
            // a count is 80 at most (the count of a whole deck)
            let c = u64::from(at(&n.counts, s).min(127));
            let c = if obj.sides >> s & 1 != 0 { c } else { 127 - c };
            bytes |= c << (8 * s);
        }
    }
    let counts = Counts {
        bytes,
        ordered: obj.sides.count_ones() == 1,
    };
    let packed = u64::from(n.leader) << 51 | question << 55;
    ((cards, packed), counts)
}

impl Solver<'_> {
    /// The last trick, every seat with one card: played out.
    fn play_out(&self, n: &Node) -> i32 {
        let (l, obj) = (self.layout, &self.objective);
        let gain = l.last_trick_gain(n, obj);
        debug_assert_eq!(gain, self.play_out_card_by_card(n));
        gain
    }

    /// The last trick played out card by card, as the rules play it (a debug build checks
    /// every last trick against it).
    fn play_out_card_by_card(&self, n: &Node) -> i32 {
        let (l, obj) = (self.layout, &self.objective);
        let mut q = *n;
        let mut gain = 0;
        while !l.over(&q) {
            let seat = usize::from(q.next);
            let legal = l.legal_node(&q, seat);
            if legal == 0 {
                break;
            }
            if let Some((w, pts)) = l.play_node(&mut q, seat, legal.trailing_zeros()) {
                gain += l.gain(w, pts, obj);
            }
        }
        gain + l.end_gain_node(&q, obj)
    }

    /// A search from a position asked about (the question's number looked up again: a
    /// context that ran out of numbers starts afresh).
    fn root(&mut self, p: &Position, alpha: i32, beta: i32) -> i32 {
        self.question = self.ctx.question(self.layout.trump(), self.objective);
        let n = self.layout.node(p);
        self.gain_from(&n, alpha, beta)
    }

    /// What the counted sides gain from `n` under perfect play (fail-soft alpha-beta in `alpha..beta`).
    fn gain_from(&mut self, n: &Node, mut alpha: i32, mut beta: i32) -> i32 {
        self.ctx.nodes += 1;
        let l = self.layout;
        let obj = self.objective;
        if self.ctx.out_of_budget() {
            return alpha;
        }
        if l.over(n) {
            return l.end_gain_node(n, &obj);
        }
        let at_start = n.len == 0;
        if at_start && l.last_trick_node(n) {
            return self.play_out(n);
        }
        // the table first: most starts of a trick are met again, and a hit costs less than the bounds
        let mut first: Option<u8> = None;
        let key = if at_start {
            let k = self.key(n);
            if let Some(b) = self.ctx.table.get(k.0, k.1) {
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
        // the bounds at the start of a trick, and mid-trick only before its last two cards
        // (not before the last: the start of the next trick has them). Earlier in a trick they
        // seldom cut (with three seats yet to play, one time in seventeen in four-handed
        // partnership, one in ten in six-handed) and cost more than they save: asked with two
        // or three seats yet to play they took 6% more instructions (callgrind) than with two
        let rest = n.pending & n.pending.wrapping_sub(1);
        if at_start || (rest != 0 && rest & rest.wrapping_sub(1) == 0) {
            let sure = l.sure_node(n, &obj);
            let (lower, upper) = (sure.lower, sure.upper);
            if lower >= upper || lower >= beta {
                return lower;
            }
            if upper <= alpha {
                return upper;
            }
            alpha = alpha.max(lower);
            beta = beta.min(upper);
        }
        let (a0, b0) = (alpha, beta);
        let seat = usize::from(n.next);
        let raise = obj.raisers & (1 << seat) != 0;
        let mut moves = Moves::default();
        l.moves_node(n, seat, obj.raisers, &mut moves);
        let trick = usize::from(n.tricks_done);
        if let Some(f) = first {
            moves.first(f);
        } else if at_start {
            if let Some(&k) = self.killers.get(trick).and_then(|r| r.get(seat)) {
                moves.first(k);
            }
        }
        let mut best = if raise { LOW } else { HIGH };
        let mut best_move = None;
        for &b in moves.as_slice() {
            let mut q = *n;
            let gain = l
                .play_node(&mut q, seat, u32::from(b))
                .map_or(0, |(w, pts)| l.gain(w, pts, &obj));
            let v = gain + self.gain_from(&q, alpha - gain, beta - gain);
            if (raise && v > best) || (!raise && v < best) {
                best = v;
                best_move = Some(b);
            }
            if raise {
                alpha = alpha.max(v);
            } else {
                beta = beta.min(v);
            }
            if alpha >= beta {
                if at_start {
                    if let Some(k) = self.killers.get_mut(trick).and_then(|r| r.get_mut(seat)) {
                        *k = b;
                    }
                }
                break;
            }
        }
        if let Some(k) = key {
            let v = best.clamp(-127, 126) as i8;
            let (lower, upper) = if best <= a0 {
                (i8::MIN, v)
            } else if best >= b0 {
                (v, i8::MAX)
            } else {
                (v, v)
            };
            self.ctx
                .table
                .store(k.0, k.1.bytes, lower, upper, best_move);
        }
        best
    }

    /// A line of perfect play from `p` to the end of the hand: (seat, card) in play order; of
    /// the cards that keep the value, the first in the order of [`Layout::line_order`].
    pub fn line(&mut self, p: &Position) -> Vec<(usize, Card)> {
        let target = self.value(p);
        self.line_keeping(p, target)
    }

    /// [`Solver::line`] from `p` when its value is known to be `target`.
    pub fn line_keeping(&mut self, p: &Position, target: i32) -> Vec<(usize, Card)> {
        let l = self.layout;
        let mut out = Vec::new();
        let mut p = *p;
        // along a perfect line every card keeps the value
        while !l.finished(&p) {
            let seat = l.to_play(&p);
            let mut moves = smallvec::SmallVec::new();
            l.line_order(&p, seat, self.objective.raisers, &mut moves);
            // some legal card keeps the value: when every card before the last did not, the
            // last does, and needs no search (nor does a card with no other to choose from)
            let last = moves.len().saturating_sub(1);
            let Some(c) = moves
                .iter()
                .copied()
                .enumerate()
                .find(|&(k, c)| {
                    let mut q = p;
                    l.play(&mut q, seat, c);
                    k == last || self.keeps(&q, seat, target)
                })
                .map(|(_, c)| c)
            else {
                break;
            };
            out.push((seat, c));
            l.play(&mut p, seat, c);
        }
        out
    }
}

/// Whether a position is decided: every legal line from it gives each of two groups of sides
/// the same points (the claim's question).
///
/// Any one line gives each group some points; the position is decided when, for each group,
/// no line gives it more (everyone playing to raise them: a null window that stops at the
/// first line that does) and none gives it less. Each of the four questions keeps its
/// positions in the context's table, for the earlier tricks asked about next.
pub struct Claim<'a> {
    layout: &'a Layout,
    ctx: &'a mut Context,
    groups: [u16; 2],
}

impl<'a> Claim<'a> {
    /// The claim's question for the sides `mine` and `others` (bit per side) on `layout`.
    pub fn new(ctx: &'a mut Context, layout: &'a Layout, mine: u16, others: u16) -> Claim<'a> {
        Claim {
            layout,
            ctx,
            groups: [mine, others],
        }
    }

    /// Whether every legal line from `p` gives each group the same points.
    pub fn decided(&mut self, p: &Position) -> bool {
        let l = self.layout;
        let every: u16 = (0..l.n).map(|s| 1u16 << s).sum();
        let end = any_line_end(l, p);
        self.groups.iter().all(|&sides| {
            let o = |raisers| Objective {
                sides,
                raisers,
                contract: None,
            };
            let v = l.terminal(&end, &o(0));
            !Solver::new(self.ctx, l, o(every)).exceeds(p, v)
                && !Solver::new(self.ctx, l, o(0)).falls_short(p, v)
        })
    }
}

/// Where one legal line from `p` ends (the first legal card each time).
fn any_line_end(l: &Layout, p: &Position) -> Position {
    let mut q = *p;
    while !l.finished(&q) {
        let seat = l.to_play(&q);
        let Some(c) = cards_of(l.legal(&q)).next() else {
            break;
        };
        l.play(&mut q, seat, c);
    }
    q
}
