//! Whole hands played by a simple bot on every table, examined as `analyze` examines them.

#![allow(clippy::indexing_slicing, clippy::unwrap_used)]

use super::*;
use crate::cards::TrumpTable;
use crate::engine::solver::tests::{Rng, Table, deal, tables};
use crate::rules::Smudge;

/// A hand of table `t` played out by a bot (the pitcher leads its best trump; a follower takes
/// the trick cheaply when it can, or throws its lowest card), with its contract.
fn bot_hand(rng: &mut Rng, t: &Table) -> (Record, Contract, i32, i32) {
    let n = t.sides.len();
    let (_, hands) = deal(rng, t, t.rules.hand_size as usize);
    let pitcher = rng.below(n);
    // trump: the pitcher's longest suit
    let trump = (0..4u8)
        .max_by_key(|&s| {
            (hands[pitcher] & TrumpTable::get(i32::from(s), t.rules.deck).trumps()).count_ones()
        })
        .unwrap();
    let layout = Layout::new(t.rules.clone(), trump, &t.sides, &hands).unwrap();
    let table = TrumpTable::get(i32::from(trump), t.rules.deck);
    let mut p = layout.start(pitcher);
    let (mut positions, mut plays) = (Vec::new(), Vec::new());
    while !layout.finished(&p) {
        let seat = layout.to_play(&p);
        let mut legal: Vec<Card> = cards_of(layout.legal(&p)).collect();
        if p.tricks_done == 0 && p.trick_len == 0 {
            legal.retain(|c| c.suit() == i32::from(trump));
        }
        legal.sort_by_key(|&c| table.strength(c) * 20 + c.rank());
        let c = if p.trick_len == 0 {
            if rng.below(10) < 6 {
                *legal.last().unwrap()
            } else {
                legal[rng.below(legal.len())]
            }
        } else {
            let led = table.suit(p.trick[0].1);
            let best = p
                .trick
                .iter()
                .take(usize::from(p.trick_len))
                .map(|&(_, c)| table.in_trick(c, led))
                .max()
                .unwrap();
            let winner = legal
                .iter()
                .copied()
                .filter(|&c| table.in_trick(c, led) > best)
                .min_by_key(|&c| table.in_trick(c, led));
            match winner {
                Some(w) if rng.below(10) < 8 => w,
                _ => legal
                    .iter()
                    .copied()
                    .min_by_key(|&c| (table.in_trick(c, led), c.rank()))
                    .unwrap(),
            }
        };
        positions.push(p);
        plays.push((
            u32::from(p.tricks_done) + 1,
            u32::from(p.trick_len),
            seat,
            c,
        ));
        layout.play(&mut p, seat, c);
    }
    positions.push(p);
    let top = t.rules.top_bid;
    let bid = t.rules.min_bid + rng.below((top - t.rules.min_bid + 1) as usize) as i32;
    let sweep = t.rules.smudge == Smudge::AllTricks && bid == top;
    let contract = Contract {
        bid,
        smudge: sweep,
        sweep,
        loss: 1,
    };
    let sides = t.sides.clone();
    (
        Record {
            layout,
            positions,
            plays,
            sides,
        },
        contract,
        bid,
        pitcher as i32,
    )
}

/// `cargo test --release -- --ignored --nocapture hands_per_table`: positions searched and time per hand.
#[test]
#[ignore]
fn hands_per_table() {
    let hands: usize = std::env::var("HANDS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(30);
    let only = std::env::var("TABLES").unwrap_or_default();
    for t in tables() {
        if !only.is_empty() && !only.split(',').any(|o| o == t.name) {
            continue;
        }
        // the same hands for a table whichever tables are asked for
        let mut rng = Rng(t.name.bytes().fold(0x5eed_1234_abcd_ef01, |h, b| {
            (h ^ u64::from(b)).wrapping_mul(0x100_0000_01b3)
        }));
        let (mut nodes, mut worst_nodes, mut micros, mut worst) = (0u64, 0u64, 0u128, 0u128);
        let mut claims = 0;
        let mut phases = [0u64; 5];
        for _ in 0..hands {
            let (rec, contract, bid, pitcher) = bot_hand(&mut rng, &t);
            let hand = Hand {
                pitcher,
                contract,
                bid,
                trump: rec.layout.trump(),
                revokes: Vec::new(),
                made: &[],
            };
            let started = std::time::Instant::now();
            let a = with_context(|ctx| analyse_record(ctx, &hand, &t.rules, &rec, Depth::Full))
                .unwrap();
            let us = started.elapsed().as_micros();
            claims += u32::from(a.claim.is_some_and(|c| c < 6));
            if a.phases[4] - a.phases[3] > 20_000 {
                eprintln!(
                    "   claim from {:?}: {} positions",
                    a.claim,
                    a.phases[4] - a.phases[3]
                );
            }
            let mut prev = 0;
            for (x, &v) in phases.iter_mut().zip(&a.phases) {
                *x += v - prev;
                prev = v;
            }
            nodes += a.nodes;
            worst_nodes = worst_nodes.max(a.nodes);
            micros += us;
            worst = worst.max(us);
        }
        eprintln!(
            "{:18} {hands} hands: positions mean {:>9} worst {:>10}; time mean {:>8.2} ms worst {:>8.1} ms; {claims} claims before the last trick",
            t.name,
            nodes / hands as u64,
            worst_nodes,
            micros as f64 / hands as f64 / 1e3,
            worst as f64 / 1e3
        );
        eprintln!(
            "   per phase (par, values, costs, by trump, claim): {:?}",
            phases.map(|v| v / hands as u64)
        );
    }
}
