//! A recorded hand examined under perfect play: par, each card's cost, the claim, and what
//! each revoke cost the innocent side.
//!
//! Everything here asks the [`solver`](super::solver) about positions of the record: the
//! hands at the start of the play are the cards each player played (every card held is
//! played, and under `trumps_only` the cards never played could not have been), and the
//! record is walked card by card through the solver's own model of the play, so a record
//! whose order of play the rules do not give is refused, never guessed at.

use std::sync::Arc;

use super::contract::Contract;
use super::solver::{
    Claim, Context, Layout, MAX_SEATS, NotAnalysable, Objective, Position, Solver,
};
use super::{Finding, HandScore, Prepared, Seats, Status};
use crate::cards::{Card, CardMask, cards_of};
use crate::findings::Points;
use crate::findings::revoke::R503;
use crate::rules::{FirstTrickTrump, RuleSet};

/// One card of the record with its value before and after, for the player's side.
#[derive(Clone, Debug)]
pub struct PlayCost {
    /// Trick (1-based) and place in it (0: the lead).
    pub trick: u32,
    pub pos: u32,
    pub seat: i32,
    pub card: Card,
    /// The pitcher's score under perfect play before and after this card.
    pub before: i32,
    pub after: i32,
    /// What the card cost the player's side (negative: a revoke that gained).
    pub cost: i32,
    /// The card broke the follow rule.
    pub illegal: bool,
    /// For a mistake: the legal cards that kept the value.
    pub best: Vec<Card>,
}

/// What a revoke cost the innocent side, "clearly demonstrated by subsequent examination of the tricks".
#[derive(Clone, Debug)]
pub struct RevokeDamage {
    pub trick: u32,
    pub pos: u32,
    pub seat: i32,
    /// The innocent sides (every side but the revoker's), bit per side.
    pub innocent: u16,
    /// The points the innocent side was sure to take had the revoker played a legal card.
    pub sure: i32,
    /// The points it took.
    pub took: i32,
    /// The line of play that demonstrates `sure`: (seat, card) from the revoke on.
    pub line: Vec<(i32, Card)>,
}

impl RevokeDamage {
    /// The points to be made good (0: the revoke gained nothing).
    pub fn damage(&self) -> i32 {
        (self.sure - self.took).max(0)
    }
}

/// A hand examined: par with the trump pitched and with each trump the pitcher could have
/// pitched, the result, each card's cost, the claim, and the revokes' damage.
#[derive(Clone, Debug, Default)]
pub struct HandAnalysis {
    pub pitcher: i32,
    /// The contract the pitcher had to make (0: none).
    pub contract: i32,
    pub trump: i32,
    /// The pitcher's score under perfect play from the first lead, with the trump pitched.
    pub par: i32,
    /// Par for each trump the pitcher could have pitched (suit, par); empty when the hands
    /// would have been different (a discard or draw after trump, or only trumps played).
    pub par_by_trump: Vec<(i32, i32)>,
    /// Why `par_by_trump` is empty.
    pub par_by_trump_unknown: Option<String>,
    /// The pitcher's score as the record's cards give it, before revoke penalties.
    pub result: i32,
    pub plays: Vec<PlayCost>,
    /// The first trick (1-based) from which every legal line gives every side the same points.
    pub claim: Option<u32>,
    pub revokes: Vec<RevokeDamage>,
    /// A line of perfect play from the first lead: (seat, card) in play order.
    pub perfect: Vec<(i32, Card)>,
    /// Positions the solver searched for this hand.
    pub nodes: u64,
    /// DEV: positions after par, the values, the costs, par by trump, the claim.
    pub phases: [u64; 5],
}

/// How much of a hand to examine.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Depth {
    /// Par with the trump pitched, each card's cost, and the revokes' damage.
    Costs,
    /// Also par with every other trump, and the claim.
    Full,
}

/// The hands at the start of the play, from the record, and the positions along it.
struct Record {
    layout: Layout,
    /// The position before each play, and after the last.
    positions: Vec<Position>,
    /// (trick, pos, seat, card) of each play.
    plays: Vec<(u32, u32, usize, Card)>,
    sides: Vec<i32>,
}

fn record(prep: &Prepared, rules: &Arc<RuleSet>, seats: &Seats) -> Result<Record, NotAnalysable> {
    let n = seats.n;
    if !prep.playable {
        return Err(NotAnalysable(
            "the hand cannot be replayed in full (see its other findings)".into(),
        ));
    }
    let trump = u8::try_from(prep.trump)
        .ok()
        .filter(|&t| t < 4)
        .ok_or_else(|| NotAnalysable("trump is not known".into()))?;
    if n > MAX_SEATS {
        return Err(NotAnalysable(format!("{n} seats")));
    }
    let mut hands = vec![0 as CardMask; n];
    let mut count = vec![0u32; n];
    for (cs, ss) in prep.cards.iter().zip(&prep.seats) {
        for (c, &s) in cs.iter().zip(ss) {
            let slot = usize::try_from(s).ok().filter(|&s| s < n);
            match slot.and_then(|s| hands.get_mut(s)) {
                Some(h) if *h & c.bit() == 0 => *h |= c.bit(),
                _ => return Err(NotAnalysable(format!("{} is played twice", c.name()))),
            }
            if let Some(k) = slot.and_then(|s| count.get_mut(s)) {
                *k += 1;
            }
        }
    }
    if !rules.trumps_only && count.iter().any(|&k| k != rules.hand_size) {
        return Err(NotAnalysable(format!(
            "not every player played {} cards, so the hands are not all known",
            rules.hand_size
        )));
    }
    let sides: Vec<i32> = (0..n as i32).map(|s| seats.side(s)).collect();
    let layout = Layout::new(rules.clone(), trump, &sides, &hands)?;
    let leader = prep
        .seats
        .first()
        .and_then(|s| s.first())
        .and_then(|&s| usize::try_from(s).ok())
        .ok_or_else(|| NotAnalysable("no trick is recorded".into()))?;
    let mut p = layout.start(leader);
    let mut positions = Vec::new();
    let mut plays = Vec::new();
    for (t, (cs, ss)) in prep.cards.iter().zip(&prep.seats).enumerate() {
        for (i, (&c, &s)) in cs.iter().zip(ss).enumerate() {
            let seat = usize::try_from(s).unwrap_or(usize::MAX);
            if layout.finished(&p) || layout.to_play(&p) != seat {
                return Err(NotAnalysable(format!(
                    "trick {}: the record's order of play is not the one the rules give",
                    t + 1
                )));
            }
            positions.push(p);
            plays.push((t as u32 + 1, i as u32, seat, c));
            layout.play(&mut p, seat, c);
        }
    }
    if !layout.finished(&p) {
        return Err(NotAnalysable("the hand is not played out".into()));
    }
    positions.push(p);
    Ok(Record {
        layout,
        positions,
        plays,
        sides,
    })
}

fn seats_of(sides: &[i32], mask: u16) -> u16 {
    sides
        .iter()
        .enumerate()
        .filter(|&(_, &s)| s >= 0 && mask & (1 << s) != 0)
        .map(|(i, _)| 1u16 << i)
        .sum()
}

/// What the search of the first leads found: par and a lead that reaches it (of its group of
/// leads that play alike, the first in the order of the cards), and per group what is known
/// of the value after it.
#[derive(Default)]
struct Leads {
    best: Option<(i32, Card)>,
    groups: Vec<(CardMask, Known)>,
}

/// What is known of the value after a lead.
#[derive(Clone, Copy)]
enum Known {
    Exact(i32),
    AtMost(i32),
}

impl Leads {
    /// What is known of the value after leading `card` (None: it was not searched).
    fn after(&self, card: Card) -> Option<Known> {
        self.groups
            .iter()
            .find(|(g, _)| g & card.bit() != 0)
            .map(|&(_, k)| k)
    }
}

/// The best value the pitcher can reach by leading one of `first` at the start: each lead
/// after the first is only asked whether it does better (a null window), and solved if so.
fn par_from(solver: &mut Solver<'_>, start: &Position, first: CardMask) -> Leads {
    let seat = solver.layout.to_play(start);
    let mut leads = Leads::default();
    let mut best: Option<(i32, CardMask)> = None;
    // leads that play alike have one value: one of each, the likeliest best first
    for (c, group) in solver
        .layout
        .distinct(start, solver.layout.legal(start) & first)
    {
        let known = match best {
            Some((b, _)) if !solver.exceeds_after(start, seat, c, b) => Known::AtMost(b),
            _ => {
                let v = solver.value_after(start, seat, c);
                best = Some((v, group));
                Known::Exact(v)
            }
        };
        leads.groups.push((group, known));
    }
    leads.best = best.and_then(|(v, group)| Some((v, cards_of(group).next()?)));
    leads
}

/// The cards that may name trump `trump` when led first (`first_trick_trump=led`: a card of
/// that suit as printed; `free`: any card, a `trump` line naming the suit).
fn naming(rules: &RuleSet, trump: u8, hand: CardMask) -> CardMask {
    if rules.first_trick_trump == FirstTrickTrump::Free {
        return hand;
    }
    cards_of(hand)
        .filter(|c| c.suit() == i32::from(trump))
        .fold(0, |m, c| m | c.bit())
}

/// Why a hand that was not scored from its play cannot be examined, naming the findings that stop it.
fn unplayed(prep: &Prepared, hs: &HandScore) -> NotAnalysable {
    let mut codes: Vec<&str> = prep.findings.iter().map(|f| f.code().as_str()).collect();
    codes.sort_unstable();
    codes.dedup();
    if hs.status == Status::Unplayable && !codes.is_empty() {
        NotAnalysable(format!(
            "the hand cannot be replayed in full, so its cards are not all known ({})",
            codes.join(", ")
        ))
    } else {
        NotAnalysable(format!("the hand was {}", hs.status.as_str()))
    }
}

/// Examine one scored hand. `Err` says why it cannot be examined.
pub fn analyse_hand(
    prep: &Prepared,
    hs: &HandScore,
    rules: &Arc<RuleSet>,
    seats: &Seats,
    depth: Depth,
) -> Result<HandAnalysis, NotAnalysable> {
    if hs.status != Status::Played {
        return Err(unplayed(prep, hs));
    }
    let rec = record(prep, rules, seats)?;
    let hand = Hand {
        pitcher: prep.pitcher,
        contract: Contract::of(prep, rules),
        bid: prep.contract.max(0),
        trump: prep.trump,
        revokes: revokes_of(hs),
        made: &hs.made,
    };
    with_context(|ctx| analyse_record(ctx, &hand, rules, &rec, depth))
}

/// What the analysis needs of a scored hand besides its record.
struct Hand<'a> {
    pitcher: i32,
    contract: Contract,
    /// The bid to make (0: none).
    bid: i32,
    trump: i32,
    /// (trick, place in it) of each revoke.
    revokes: Vec<(u32, u32)>,
    /// Per side, the points taken.
    made: &'a [i32],
}

fn revokes_of(hs: &HandScore) -> Vec<(u32, u32)> {
    hs.revoke_plays
        .iter()
        .map(|rp| (rp.trick as u32, rp.pos as u32))
        .collect()
}

/// The context of the hand being examined on this thread: its table's memory is kept from one
/// hand to the next (emptied, never freed), so a thread examining thousands of hands allocates it once.
fn with_context<T>(f: impl FnOnce(&mut Context) -> T) -> T {
    thread_local! {
        static CONTEXT: std::cell::RefCell<Context> = std::cell::RefCell::new(Context::new());
    }
    CONTEXT.with(|c| match c.try_borrow_mut() {
        Ok(mut ctx) => {
            ctx.clear();
            ctx.budget = Some(HAND_BUDGET);
            f(&mut ctx)
        }
        // a question asked from inside another (never, today): a context of its own
        Err(_) => {
            let mut ctx = Context::new();
            ctx.budget = Some(HAND_BUDGET);
            f(&mut ctx)
        }
    })
}

fn analyse_record(
    ctx: &mut Context,
    hand: &Hand<'_>,
    rules: &Arc<RuleSet>,
    rec: &Record,
    depth: Depth,
) -> Result<HandAnalysis, NotAnalysable> {
    let l = &rec.layout;
    let n = rec.sides.len();
    let pitcher = usize::try_from(hand.pitcher)
        .ok()
        .filter(|&s| s < n)
        .ok_or_else(|| NotAnalysable("nobody pitched".into()))?;
    let ps = l.side(pitcher);
    let obj = Objective {
        sides: 1 << ps,
        raisers: seats_of(&rec.sides, 1 << ps),
        contract: Some(hand.contract),
    };
    let mut a = HandAnalysis {
        pitcher: hand.pitcher,
        contract: hand.bid,
        trump: hand.trump,
        ..HandAnalysis::default()
    };
    let start = rec
        .positions
        .first()
        .copied()
        .unwrap_or_else(|| l.start(pitcher));
    let first_card = rec.plays.first().map_or(0, |p| p.3.bit());
    let trump = hand.trump as u8;
    let lead_hand = l.hands.get(l.to_play(&start)).copied().unwrap_or(0);
    let leads = naming(rules, trump, lead_hand) | first_card;
    let mut solver = Solver::new(ctx, l, obj);
    let first_leads = par_from(&mut solver, &start, leads);
    let best_lead = first_leads.best;
    a.par = match best_lead {
        Some((v, _)) => v,
        None => solver.value(&start),
    };
    let leader = l.to_play(&start);
    if let Some((_, c)) = best_lead {
        let mut q = start;
        l.play(&mut q, leader, c);
        // the lead that gave par keeps it
        a.perfect = std::iter::once((leader as i32, c))
            .chain(
                solver
                    .line_keeping(&q, a.par)
                    .into_iter()
                    .map(|(s, c)| (s as i32, c)),
            )
            .collect();
    }
    // each card's value after it: a legal card keeps the value or lowers it for its side, so
    // one null window asks whether it kept it, and only a card that did not is solved in full
    a.phases[0] = solver.nodes();
    let mut values = vec![a.par];
    for (k, &(_, _, seat, card)) in rec.plays.iter().enumerate() {
        let (Some(at), Some(q)) = (rec.positions.get(k), rec.positions.get(k + 1)) else {
            break;
        };
        let before = values.last().copied().unwrap_or(a.par);
        // par is the best first lead for the pitcher: below it only the pitcher's side knows where it stands
        let raiser = obj.raisers & (1 << seat) != 0;
        let shortcut = l.legal(at) & card.bit() != 0 && (k > 0 || raiser);
        // the first lead: the search of the leads for par may know its value already
        let known = if k == 0 {
            first_leads.after(card)
        } else {
            None
        };
        // the only legal card keeps the value (but the first lead: par is the best over the
        // leads that name trump)
        let forced = k > 0 && l.legal(at) == card.bit();
        let after = match known {
            Some(Known::Exact(v)) => v,
            Some(Known::AtMost(b)) if b < before => solver.value(q),
            _ if forced => before,
            _ if shortcut && solver.keeps(q, seat, before) => before,
            _ => solver.value(q),
        };
        values.push(after);
    }
    a.result = values.last().copied().unwrap_or(a.par);
    a.phases[1] = solver.nodes();
    if solver.out_of_budget() {
        return Err(over_budget());
    }
    for (k, &(trick, pos, seat, card)) in rec.plays.iter().enumerate() {
        let before = values.get(k).copied().unwrap_or(0);
        let after = values.get(k + 1).copied().unwrap_or(0);
        let raiser = obj.raisers & (1 << seat) != 0;
        let cost = if raiser {
            before - after
        } else {
            after - before
        };
        let at = rec.positions.get(k).copied().unwrap_or(start);
        let legal = if k == 0 {
            l.legal(&at) & leads
        } else {
            l.legal(&at)
        };
        // a card keeps the value when it neither falls short of it nor, a revoke aside, exceeds it
        let best = if cost > 0 {
            cards_of(legal)
                .filter(|&c| {
                    let mut q = at;
                    l.play(&mut q, seat, c);
                    solver.keeps(&q, seat, before)
                })
                .collect()
        } else {
            Vec::new()
        };
        a.plays.push(PlayCost {
            trick,
            pos,
            seat: seat as i32,
            card,
            before,
            after,
            cost,
            illegal: legal & card.bit() == 0,
            best,
        });
    }
    if solver.out_of_budget() {
        return Err(over_budget());
    }
    a.phases[2] = ctx.nodes;
    // par with the other trumps: only where the hands played do not depend on trump
    if depth == Depth::Costs {
        a.par_by_trump_unknown = Some("not asked".into());
    } else if rules.has_exchange(n) || rules.trumps_only {
        a.par_by_trump_unknown = Some(
            "the hands played depend on trump (a discard or draw after trump, or only trumps played)"
                .into(),
        );
    } else {
        for t in 0..4u8 {
            let first = naming(rules, t, lead_hand);
            if first == 0 {
                continue;
            }
            let v = if t == trump {
                Some(a.par)
            } else {
                let held = l.hands.get(..n).unwrap_or(&[]);
                let other = Layout::new(rules.clone(), t, &rec.sides, held)?;
                let mut s = Solver::new(ctx, &other, obj);
                let st = other.start(l.to_play(&start));
                let v = par_from(&mut s, &st, first).best.map(|(v, _)| v);
                if s.out_of_budget() {
                    return Err(over_budget());
                }
                v
            };
            if let Some(v) = v {
                a.par_by_trump.push((i32::from(t), v));
            }
        }
    }
    a.phases[3] = ctx.nodes;
    if depth == Depth::Full {
        a.claim = claim(ctx, l, rec, ps);
        a.phases[4] = ctx.nodes;
        if ctx.out_of_budget() {
            return Err(over_budget());
        }
    }
    a.revokes = hand
        .revokes
        .iter()
        .map(|&(trick, pos)| revoke_damage(ctx, l, rec, hand.made, trick, pos))
        .collect::<Result<Vec<_>, _>>()?
        .into_iter()
        .flatten()
        .collect();
    a.nodes = ctx.nodes;
    Ok(a)
}

/// Only what each revoke of a scored hand cost (what `audit` shows beside each R501).
pub fn examine_revokes(
    prep: &Prepared,
    hs: &HandScore,
    rules: &Arc<RuleSet>,
    seats: &Seats,
) -> Result<HandAnalysis, NotAnalysable> {
    if hs.status != Status::Played {
        return Err(unplayed(prep, hs));
    }
    let rec = record(prep, rules, seats)?;
    let revokes = with_context(|ctx| {
        revokes_of(hs)
            .into_iter()
            .map(|(trick, pos)| revoke_damage(ctx, &rec.layout, &rec, &hs.made, trick, pos))
            .collect::<Result<Vec<_>, _>>()
    })?;
    Ok(HandAnalysis {
        revokes: revokes.into_iter().flatten().collect(),
        ..HandAnalysis::default()
    })
}

/// Positions the solver may search for all the questions about one hand (par, par with each
/// trump, each card's value, the claim, the revokes' damage) before the hand is reported as not
/// analysed: a bound on the time one hand can take, whatever its cards. No generated hand of
/// any preset comes near it (see docs/analysis.md).
pub const HAND_BUDGET: u64 = 400_000_000;

fn over_budget() -> NotAnalysable {
    NotAnalysable(format!(
        "the search needed more than {HAND_BUDGET} positions, so the hand is not analysed"
    ))
}

/// The first trick from which every legal line gives each side the same points.
fn claim(ctx: &mut Context, l: &Layout, rec: &Record, pitcher_side: usize) -> Option<u32> {
    let mine = 1u16 << pitcher_side;
    let others = sides_mask(&rec.sides) & !mine;
    let mut claim = None;
    // from the last trick back: decided from trick t means decided from every later one
    let starts: Vec<(u32, &Position)> = rec
        .plays
        .iter()
        .zip(&rec.positions)
        .filter(|((_, pos, ..), _)| *pos == 0)
        .map(|((t, ..), p)| (*t, p))
        .collect();
    for (t, p) in starts.into_iter().rev() {
        if !Claim::new(ctx, l, mine, others).decided(p) || ctx.out_of_budget() {
            break;
        }
        claim = Some(t);
    }
    claim
}

/// Every side some seat is in, bit per side.
fn sides_mask(sides: &[i32]) -> u16 {
    sides
        .iter()
        .filter(|&&s| (0..16).contains(&s))
        .fold(0, |a, &s| a | (1u16 << s))
}

fn revoke_damage(
    ctx: &mut Context,
    l: &Layout,
    rec: &Record,
    made: &[i32],
    trick: u32,
    pos: u32,
) -> Result<Option<RevokeDamage>, NotAnalysable> {
    let Some(k) = rec
        .plays
        .iter()
        .position(|&(t, p, ..)| t == trick && p == pos)
    else {
        return Ok(None);
    };
    let (Some(&(_, _, seat, _)), Some(at)) = (rec.plays.get(k), rec.positions.get(k)) else {
        return Ok(None);
    };
    let revoker_side = l.side(seat);
    let innocent = sides_mask(&rec.sides) & !(1 << revoker_side);
    let obj = Objective {
        sides: innocent,
        raisers: seats_of(&rec.sides, innocent),
        contract: None,
    };
    let mut s = Solver::new(ctx, l, obj);
    let sure = s.value(at);
    let line: Vec<(i32, Card)> = s
        .line(at)
        .into_iter()
        .map(|(st, c)| (st as i32, c))
        .collect();
    let took = made
        .iter()
        .enumerate()
        .filter(|&(i, _)| innocent & (1 << i) != 0)
        .map(|(_, &v)| v)
        .sum();
    if s.out_of_budget() {
        return Err(over_budget());
    }
    Ok(Some(RevokeDamage {
        trick,
        pos,
        seat: seat as i32,
        innocent,
        sure,
        took,
        line,
    }))
}

/// The innocent sides' names: "NS", or "Ann, Bob and Cal".
fn sides_named(seats: &Seats, mask: u16) -> String {
    let names: Vec<&str> = (0..seats.side_names.len())
        .filter(|&s| mask & (1 << s) != 0)
        .filter_map(|s| seats.side_name(s as i32))
        .collect();
    match names.as_slice() {
        [] => "nobody".into(),
        [one] => (*one).into(),
        [rest @ .., last] => format!("{} and {last}", rest.join(", ")),
    }
}

/// A line of play written as the notation writes tricks: `3. Dee:7S Ann:AS; 4. Ann:2H ...`,
/// the tricks numbered from `first_trick`, of the sizes given.
pub fn line_text(
    line: &[(i32, Card)],
    first_trick: u32,
    seats: &Seats,
    trick_sizes: &[usize],
) -> String {
    let mut out = Vec::new();
    let mut rest = line;
    for (t, &size) in (first_trick..).zip(trick_sizes) {
        if rest.is_empty() {
            break;
        }
        let (trick, more) = rest.split_at(size.min(rest.len()));
        let plays: Vec<String> = trick
            .iter()
            .map(|&(s, c)| format!("{}:{}", seats.name(s), c.name()))
            .collect();
        out.push(format!("{t}. {}", plays.join(" ")));
        rest = more;
    }
    out.join("; ")
}

/// The R503 findings of a scored hand: one beside each R501, with the damage and the line that shows it.
pub fn revoke_damage_findings(
    prep: &Prepared,
    hs: &HandScore,
    rules: &Arc<RuleSet>,
    seats: &Seats,
    hand: Option<u32>,
) -> Vec<Finding> {
    if hs.revoke_plays.is_empty() {
        return Vec::new();
    }
    let analysed = examine_revokes(prep, hs, rules, seats);
    let mut out = Vec::new();
    for rp in &hs.revoke_plays {
        let t = rp.trick;
        let (line, col) = prep.play_at(t, rp.pos);
        let revoker = seats.name(rp.seat);
        let revoker_side = seats.side(rp.seat);
        let innocent_all: u16 = (0..seats.side_names.len() as i32)
            .filter(|&s| s != revoker_side)
            .map(|s| 1u16 << s)
            .sum();
        let innocent = sides_named(seats, innocent_all);
        let facts = match &analysed {
            Err(NotAnalysable(why)) => R503::NotDemonstrable {
                revoker: revoker.into(),
                trick: t as u32,
                innocent: innocent.clone(),
                why: why.clone(),
            },
            Ok(a) => {
                let Some(d) = a
                    .revokes
                    .iter()
                    .find(|d| d.trick == t as u32 && d.pos == rp.pos as u32)
                else {
                    continue;
                };
                // the line from the revoke's trick on, with the cards played to it before the revoke
                let sizes: Vec<usize> = prep.cards.iter().skip(t - 1).map(|c| c.len()).collect();
                let before = prep
                    .cards
                    .get(t - 1)
                    .zip(prep.seats.get(t - 1))
                    .map(|(cs, ss)| {
                        ss.iter()
                            .copied()
                            .zip(cs.iter().copied())
                            .take(rp.pos)
                            .collect::<Vec<_>>()
                    });
                let whole: Vec<(i32, Card)> = before
                    .unwrap_or_default()
                    .into_iter()
                    .chain(d.line.iter().copied())
                    .collect();
                let line_shown = line_text(&whole, t as u32, seats, &sizes);
                let Some(legal) = d.line.first().map(|&(_, c)| c) else {
                    continue;
                };
                let damage = d.damage();
                if damage > 0 {
                    R503::Cost {
                        revoker: revoker.into(),
                        trick: t as u32,
                        innocent: innocent.clone(),
                        damage: Points(damage),
                        legal,
                        sure: Points(d.sure),
                        took: Points(d.took),
                        line: line_shown,
                    }
                } else {
                    R503::NoCost {
                        revoker: revoker.into(),
                        trick: t as u32,
                        innocent: innocent.clone(),
                        legal,
                        sure: Points(d.sure),
                        took: Points(d.took),
                        line: line_shown,
                    }
                }
            }
        };
        let mut f = Finding::new(facts, line, col)
            .in_trick(t as u32)
            .about(revoker);
        f.hand = hand;
        out.push(f);
    }
    out
}

/// `f` of each item on `jobs` threads (at most as many as the machine lets this process run
/// at once), in the items' order: each thread takes the next item not yet taken, so one long
/// item never holds up the others. An item whose `f` panicked is None.
pub fn in_parallel<T: Sync, R: Send>(
    items: &[T],
    jobs: usize,
    f: impl Fn(&T) -> R + Sync,
) -> Vec<Option<R>> {
    let cores = std::thread::available_parallelism().map_or(1, usize::from);
    let jobs = jobs.clamp(1, cores).min(items.len().max(1));
    let next = std::sync::atomic::AtomicUsize::new(0);
    let work = || {
        let mut done = Vec::new();
        loop {
            let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            let Some(item) = items.get(i) else { break };
            let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| f(item)));
            done.push((i, r.ok()));
        }
        done
    };
    let mut out: Vec<Option<R>> = std::iter::repeat_with(|| None).take(items.len()).collect();
    let mut put = |done: Vec<(usize, Option<R>)>| {
        for (i, r) in done {
            if let Some(slot) = out.get_mut(i) {
                *slot = r;
            }
        }
    };
    if jobs == 1 {
        put(work());
        return out;
    }
    std::thread::scope(|scope| {
        let handles: Vec<_> = (1..jobs).map(|_| scope.spawn(work)).collect();
        put(work());
        for h in handles {
            put(h.join().unwrap_or_default());
        }
    });
    out
}

#[cfg(test)]
#[path = "analysis_tests.rs"]
mod tests;
