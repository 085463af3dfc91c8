//! The solver checked two ways: against an exhaustive minimax (no pruning, no table, no
//! grouping) on endings small enough for it, and against the solver as it was before
//! ([`super::reference`]) on whole hands, question by question, with one context shared by
//! every question of a hand as the analysis shares it.

#![allow(clippy::indexing_slicing, clippy::unwrap_used, clippy::panic)]

use std::sync::Arc;

use super::reference;
use super::*;
use crate::cards::{CardMask, cards_of};
use crate::engine::contract::Contract;
use crate::rules::RuleSet;

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
        vals.max().unwrap_or(-1000)
    } else {
        vals.min().unwrap_or(1000)
    }
}

pub(crate) struct Rng(pub u64);
impl Rng {
    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    pub fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}

/// A table to test: a preset, its seats and sides, and a variation.
pub(crate) struct Table {
    pub name: &'static str,
    pub rules: Arc<RuleSet>,
    pub sides: Vec<i32>,
}

/// The real preset, from the presets file (the one the engine audits with).
fn rules_for(preset: &str) -> RuleSet {
    match crate::rules::preset(preset) {
        Ok(r) => r,
        Err(e) => panic!("{preset}: {}", e.message),
    }
}

/// A table of `n` seats under the rules of a `Rules` tag (a preset and its overrides).
fn table(name: &'static str, tag: &str, n: usize) -> Table {
    let rules = match crate::rules::parse_rules(tag) {
        Ok(r) => r,
        Err(e) => panic!("{tag}: {}", e.message),
    };
    let teams = if n == 6 { 3 } else { 2 };
    let sides = (0..n as i32)
        .map(|s| if rules.partnership { s % teams } else { s })
        .collect();
    Table {
        name,
        rules: Arc::new(rules),
        sides,
    }
}

/// Every preset and variation whose play the solver models differently, at the sizes the
/// presets allow (the selling auction and setback play as the auction does).
pub(crate) fn tables() -> Vec<Table> {
    vec![
        table("auction-3", "auction", 3),
        table("auction-4", "auction", 4),
        table("auction-5", "auction", 5),
        table("auction-7", "auction", 7),
        table("sell-8", "auction smudge=none", 8),
        table("partnership", "partnership", 4),
        table("partnership-free", "partnership first_trick_trump=free", 4),
        table("partnership-6", "partnership", 6),
        table("cutthroat-2", "cutthroat", 2),
        table("cutthroat-3", "cutthroat", 3),
        table("cutthroat-5", "cutthroat", 5),
        table("cutthroat-6", "cutthroat", 6),
        table("tenpoint", "tenpoint", 4),
        table("tenpoint-6", "tenpoint", 6),
        table("tenpoint-strict", "tenpoint follow=strict", 4),
        table("tenpoint-free", "tenpoint follow=free-when-void", 4),
        table("tenpoint-ten", "tenpoint game_point=ten trey=off", 4),
        table("tenpoint52", "tenpoint52", 4),
        table("smear", "smear", 4),
    ]
}

/// A random deal of `tricks` cards to each seat, and its trump.
pub(crate) fn deal(rng: &mut Rng, t: &Table, tricks: usize) -> (u8, Vec<CardMask>) {
    let n = t.sides.len();
    let mut deck: Vec<u8> = (0..t.rules.deck_size() as u8).collect();
    for i in (1..deck.len()).rev() {
        deck.swap(i, rng.below(i + 1));
    }
    let mut hands = vec![0u64; n];
    for (k, c) in deck.iter().take(tricks * n).enumerate() {
        hands[k % n] |= 1 << c;
    }
    (rng.below(4) as u8, hands)
}

/// The questions the analysis asks of a hand whose pitcher is `pitcher`: the pitcher's score
/// under a contract (a bid, or an all-tricks smudge), the points as won, the claim's (everyone
/// raising, everyone lowering), and a revoke's (every side but one, together).
fn objectives(t: &Table, pitcher: usize, bid: i32) -> Vec<Objective> {
    let n = t.sides.len();
    let ps = t.sides[pitcher] as usize;
    let raisers: u16 = (0..n)
        .filter(|&s| t.sides[s] as usize == ps)
        .map(|s| 1 << s)
        .sum();
    let every: u16 = (0..n).map(|s| 1 << s).sum();
    let others: u16 = (0..n)
        .filter(|&s| t.sides[s] as usize != ps)
        .fold(0, |a, s| a | 1 << t.sides[s]);
    let contract = |bid, sweep| {
        Some(Contract {
            bid,
            smudge: sweep,
            sweep,
            loss: 1,
        })
    };
    let o = |sides, raisers, contract| Objective {
        sides,
        raisers,
        contract,
    };
    vec![
        o(1 << ps, raisers, None),
        o(1 << ps, raisers, contract(bid, false)),
        o(1 << ps, raisers, contract(5, true)),
        o(1 << ps, every, None),
        o(1 << ps, 0, None),
        o(others, every & !raisers, None),
    ]
}

/// Play `k` cards from `p`: the last legal card each time.
fn advance(l: &Layout, p: &mut Position, k: usize) {
    for _ in 0..k {
        if l.finished(p) {
            break;
        }
        let seat = l.to_play(p);
        let Some(c) = cards_of(l.legal(p)).last() else {
            break;
        };
        l.play(p, seat, c);
    }
}

/// The value and both null windows around it agree with `want`.
fn agrees(s: &mut Solver<'_>, p: &Position, want: i32) -> bool {
    s.value(p) == want
        && !s.exceeds(p, want)
        && s.exceeds(p, want - 1)
        && !s.falls_short(p, want)
        && s.falls_short(p, want + 1)
}

#[test]
fn the_solver_equals_exhaustive_minimax_on_random_endings() {
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let mut checked = 0;
    for t in tables() {
        let n = t.sides.len();
        // as many tricks as the exhaustive search finishes in a moment; an optimised build
        // (`cargo test --release`) goes a trick further where it still finishes in seconds
        let longer = usize::from(!cfg!(debug_assertions));
        let most = match n {
            2 => 5 + longer,
            3 => 4 + longer,
            4 | 5 => 3 + longer,
            _ => 2 + longer,
        };
        for _ in 0..50 {
            let tricks = 1 + rng.below(most);
            let (trump, hands) = deal(&mut rng, &t, tricks);
            let Ok(l) = Layout::new(t.rules.clone(), trump, &t.sides, &hands) else {
                continue;
            };
            let mut p = l.start(rng.below(n));
            // a mid-hand position: the first tricks done, part of the trick played
            p.tricks_done = 6 - tricks as u8;
            advance(&l, &mut p, rng.below(3));
            let pitcher = rng.below(n);
            let mut ctx = Context::new();
            for obj in objectives(&t, pitcher, 1 + rng.below(4) as i32) {
                let want = minimax(&l, &p, &obj);
                let mut s = Solver::new(&mut ctx, &l, obj);
                assert!(agrees(&mut s, &p, want), "{} {p:?} {obj:?}", t.name);
                checked += 1;
            }
        }
    }
    assert!(checked > 5000, "{checked}");
}

/// The reference's objective for one of ours.
fn old_objective(o: &Objective) -> reference::Objective {
    reference::Objective {
        sides: o.sides,
        raisers: o.raisers,
        contract: o.contract,
    }
}

/// Whole hands (or hands of `tricks` cards), every position along a random line, every
/// question: the new solver's value is the reference's, and so is each null window's answer.
fn equals_reference(seed: u64, hands_per_table: usize, tricks: impl Fn(usize) -> usize) -> usize {
    let mut rng = Rng(seed);
    let mut checked = 0;
    for t in tables() {
        let n = t.sides.len();
        for _ in 0..hands_per_table {
            let (trump, hands) = deal(&mut rng, &t, tricks(n));
            let (Ok(l), Ok(old)) = (
                Layout::new(t.rules.clone(), trump, &t.sides, &hands),
                reference::Layout::new(t.rules.clone(), trump, &t.sides, &hands),
            ) else {
                continue;
            };
            let pitcher = rng.below(n);
            let objs = objectives(&t, pitcher, 2 + rng.below(3) as i32);
            let mut ctx = Context::new();
            let mut olds: Vec<reference::Solver<'_>> = objs
                .iter()
                .map(|o| reference::Solver::new(&old, old_objective(o)))
                .collect();
            // the claim's questions: each group's points with everyone raising them, and lowering them
            let ps = t.sides[pitcher] as usize;
            let every: u16 = (0..n).map(|s| 1 << s).sum();
            let all_sides: u16 = t.sides.iter().fold(0, |a, &s| a | 1 << s);
            let groups = [1u16 << ps, all_sides & !(1 << ps)];
            let mut extremes: Vec<reference::Solver<'_>> = groups
                .iter()
                .flat_map(|&g| {
                    [every, 0].map(|raisers| {
                        reference::Solver::new(
                            &old,
                            reference::Objective {
                                sides: g,
                                raisers,
                                contract: None,
                            },
                        )
                    })
                })
                .collect();
            let (mut p, mut q) = (l.start(pitcher), old.start(pitcher));
            loop {
                let values: Vec<i32> = extremes.iter_mut().map(|s| s.value(&q)).collect();
                let want = values[0] == values[1] && values[2] == values[3];
                let got = Claim::new(&mut ctx, &l, groups[0], groups[1]).decided(&p);
                assert_eq!(got, want, "{} claim {p:?} {values:?}", t.name);
                checked += 1;
                for (obj, os) in objs.iter().zip(olds.iter_mut()) {
                    let want = os.value(&q);
                    let mut s = Solver::new(&mut ctx, &l, *obj);
                    if !agrees(&mut s, &p, want) {
                        let mut fresh = Context::new();
                        let mut f = Solver::new(&mut fresh, &l, *obj);
                        panic!(
                            "{} {p:?} {obj:?}: want {want}, value {} (fresh {}), exceeds {} {}, falls short {} {}, minimax {}",
                            t.name,
                            s.value(&p),
                            f.value(&p),
                            s.exceeds(&p, want - 1),
                            s.exceeds(&p, want),
                            s.falls_short(&p, want),
                            s.falls_short(&p, want + 1),
                            if p.tricks_done >= 3 {
                                minimax(&l, &p, obj)
                            } else {
                                -99
                            }
                        );
                    }
                    checked += 1;
                }
                if l.finished(&p) {
                    break;
                }
                // a random legal card: the line wanders far from perfect play
                let seat = l.to_play(&p);
                let legal: Vec<_> = cards_of(l.legal(&p)).collect();
                assert_eq!(l.legal(&p), old.legal(&q), "{}", t.name);
                let c = legal[rng.below(legal.len())];
                l.play(&mut p, seat, c);
                old.play(&mut q, seat, c);
            }
        }
    }
    checked
}

#[test]
fn the_solver_gives_the_values_the_reference_gave() {
    // whole hands up to four seats; shorter hands beyond, where the reference is slow. An
    // unoptimised build (`cargo test`, as CI runs it) checks hands two tricks shorter, where
    // the reference takes seconds, not many minutes; `cargo test --release` the whole set.
    let (shorter, least) = if cfg!(debug_assertions) {
        (2, 300)
    } else {
        (0, 3000)
    };
    let checked = equals_reference(0x2545_f491_4f6c_dd1d, 2, |n| {
        let tricks: usize = match n {
            ..=4 => 6,
            5 => 4,
            _ => 3,
        };
        tricks.saturating_sub(shorter).max(1)
    });
    assert!(checked > least, "{checked}");
}

/// `cargo test --release -- --ignored`: many more whole hands, every table.
#[test]
#[ignore]
fn the_solver_gives_the_values_the_reference_gave_on_many_whole_hands() {
    let hands: usize = std::env::var("SOLVER_HANDS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(40);
    let started = std::time::Instant::now();
    let checked = equals_reference(0x1234_5678_9abc_def1, hands, |_| 6);
    eprintln!("{checked} values compared in {:?}", started.elapsed());
}

#[test]
fn equivalent_cards_keep_who_holds_what_in_order() {
    // spades not trump: Ann 2S 4S, Bob 3S 5S, Cal AS; after 2S and 3S go the rest is as it
    // was after 4S and 5S would have been, save which card each still holds
    let rules = Arc::new(rules_for("auction"));
    let c = |t: &str| crate::cards::Card::parse(t).unwrap().bit();
    let hands = [c("2S") | c("4S"), c("3S") | c("5S"), c("AS") | c("2H")];
    let l = Layout::new(rules, 1, &[0, 1, 2], &hands).unwrap();
    let eq = |m| l.numbering.cards(l.equivalent_node(l.numbering.bits(m)));
    let a = eq(c("4S") | c("5S") | c("AS") | c("2H"));
    let b = eq(c("2S") | c("5S") | c("AS") | c("2H"));
    assert_eq!(a, b, "Ann's lower spade then Bob's, in either pair");
    let d = eq(c("4S") | c("3S") | c("AS") | c("2H"));
    assert_ne!(a, d, "Bob's spade below Ann's is another order");
    // a card worth something keeps its place: the ace is the ace
    assert_eq!(a & c("AS"), c("AS"));
}

#[test]
fn under_trumps_only_a_seat_out_of_trumps_plays_to_no_more_tricks() {
    // tenpoint52, diamonds trump, from the third trick (found by the bench's corpus): Bob's
    // QD and JD take two tricks to come, but Cal, with two trumps, may have played both
    // before them (trick 3: Cal TD, Dee 9D, Bob 7D: Cal takes the ten, and NS Game)
    let rules = Arc::new(rules_for("tenpoint52"));
    let c = |t: &str| crate::cards::Card::parse(t).unwrap().bit();
    let hands = [
        c("KH") | c("8H") | c("4S"),
        c("JD") | c("7D") | c("QD"),
        c("TD") | c("5D") | c("AC"),
        c("JKL") | c("9D") | c("JH"),
    ];
    let t = table("tenpoint52", "tenpoint52", 4);
    let l = Layout::new(rules, 2, &t.sides, &hands).unwrap();
    let mut p = l.start(2);
    p.tricks_done = 2;
    p.counts[0] = 4;
    p.counts[1] = 3;
    let mut ctx = Context::new();
    for obj in objectives(&t, 1, 6) {
        let want = minimax(&l, &p, &obj);
        let mut s = Solver::new(&mut ctx, &l, obj);
        assert!(agrees(&mut s, &p, want), "{obj:?}: want {want}");
    }
    assert!(!Claim::new(&mut ctx, &l, 1, 2).decided(&p));
}
