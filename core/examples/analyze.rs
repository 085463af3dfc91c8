//! `cargo run --release --example analyze -- [--full] [--top K] [--only G:H] [--dump OUT] FILE...`:
//! examine every hand of each log under perfect play on one thread, in Rust alone (no Python),
//! and print hands per second, the positions searched, the hands not analysed and the slowest
//! hands. Made for a profiler (perf, callgrind): the whole run is the solver.
//!
//! `--dump OUT` writes every value found to OUT, one line per hand (par, result, par by trump,
//! claim, the perfect line, revokes' damage) and one per card (before, after, cost, the cards
//! that kept the value), and nothing about the search itself (no positions), so two builds of
//! the solver that compute the same values write the same file: diff them to check that a
//! change to the search changed no value.

use std::io::Write;
use std::sync::Arc;
use std::time::Instant;

use pitch_core::cards::Card;
use pitch_core::engine::analysis::{Depth, HandAnalysis, analyse_hand};
use pitch_core::engine::{Status, audit_game};
use pitch_core::notation::parser::Parser;
use pitch_core::rules::parse_rules;

fn main() {
    let mut args: Vec<String> = std::env::args().skip(1).collect();
    let full = take_flag(&mut args, "--full");
    let top = take_value(&mut args, "--top").map_or(0, |v| v.parse().unwrap_or(0));
    // --only GAME:HAND examines that hand alone (game counted from 0 in the file)
    let only: Option<(usize, u32)> = take_value(&mut args, "--only").and_then(|v| {
        let (g, h) = v.split_once(':')?;
        Some((g.parse().ok()?, h.parse().ok()?))
    });
    let mut dump = take_value(&mut args, "--dump").and_then(|p| match std::fs::File::create(&p) {
        Ok(f) => Some(std::io::BufWriter::new(f)),
        Err(e) => {
            eprintln!("{p}: {e}");
            None
        }
    });
    let depth = if full { Depth::Full } else { Depth::Costs };
    for path in &args {
        let Ok(data) = std::fs::read(path) else {
            eprintln!("{path}: cannot read");
            continue;
        };
        let mut p = Parser::new(path, 1, 0);
        p.feed(&data);
        p.finish();
        let games = p.take_games();
        let (mut hands, mut nodes, mut failed) = (0u64, 0u64, 0u64);
        let mut phases = [0u64; 5];
        let mut slow: Vec<(f64, u64, usize, u32)> = Vec::new();
        let t = Instant::now();
        for (gi, g) in games.iter().enumerate() {
            let Some(rules) = g.tag("Rules").and_then(|r| parse_rules(r).ok()) else {
                continue;
            };
            let rules = Arc::new(rules);
            let res = audit_game(g, &rules);
            let Some(seats) = res.seats.as_ref() else {
                continue;
            };
            for (prep, hs) in res.preps.iter().zip(&res.hands) {
                if only.is_some_and(|o| o != (gi, prep.number)) {
                    continue;
                }
                if hs.status == Status::ThrownIn || hs.status == Status::Misdeal {
                    continue;
                }
                let h = Instant::now();
                match analyse_hand(prep, hs, &rules, seats, depth) {
                    Ok(a) => {
                        if let Some(out) = dump.as_mut() {
                            write_hand(out, path, gi, prep.number, &a);
                        }
                        hands += 1;
                        nodes += a.nodes;
                        let mut prev = 0;
                        for (x, &v) in phases.iter_mut().zip(&a.phases) {
                            *x += v.saturating_sub(prev);
                            prev = prev.max(v);
                        }
                        slow.push((h.elapsed().as_secs_f64(), a.nodes, gi, prep.number));
                    }
                    Err(e) => {
                        if let Some(out) = dump.as_mut() {
                            let _ =
                                writeln!(out, "{path} {gi}:{} not analysed: {}", prep.number, e.0);
                        }
                        if e.0.contains("positions") {
                            failed += 1;
                            eprintln!("game {gi} hand {}: {}", prep.number, e.0);
                        }
                    }
                }
            }
        }
        let s = t.elapsed().as_secs_f64();
        println!(
            "{path}: {hands} hands in {s:.3}s, {:.0} hands/s on one thread; {nodes} positions; {failed} not analysed",
            hands as f64 / s
        );
        println!(
            "  positions per phase (par and line, values, costs, par by trump, claim): {phases:?}"
        );
        slow.sort_by(|a, b| b.0.total_cmp(&a.0));
        for (secs, n, gi, number) in slow.iter().take(top) {
            println!(
                "  game {gi} hand {number}: {:.1} ms, {n} positions",
                secs * 1e3
            );
        }
    }
}

fn take_flag(args: &mut Vec<String>, flag: &str) -> bool {
    let before = args.len();
    args.retain(|a| a != flag);
    args.len() != before
}

fn take_value(args: &mut Vec<String>, flag: &str) -> Option<String> {
    let i = args.iter().position(|a| a == flag)?;
    if i + 1 >= args.len() {
        return None;
    }
    let v = args.remove(i + 1);
    args.remove(i);
    Some(v)
}

/// One hand's values, as `--dump` writes them.
fn write_hand(out: &mut impl Write, path: &str, gi: usize, number: u32, a: &HandAnalysis) {
    let names = |cs: &[Card]| cs.iter().map(|c| c.name()).collect::<Vec<_>>().join(",");
    let line_of = |plays: &[(i32, Card)]| {
        let cards: Vec<String> = plays
            .iter()
            .map(|(s, c)| format!("{s}{}", c.name()))
            .collect();
        cards.join(" ")
    };
    let _ = writeln!(
        out,
        "{path} {gi}:{number} pitcher {} contract {} trump {} par {} result {} by_trump {:?} {:?} claim {:?} perfect {}",
        a.pitcher,
        a.contract,
        a.trump,
        a.par,
        a.result,
        a.par_by_trump,
        a.par_by_trump_unknown,
        a.claim,
        line_of(&a.perfect)
    );
    for p in &a.plays {
        let _ = writeln!(
            out,
            "  {}.{} seat {} {} before {} after {} cost {} illegal {} best {}",
            p.trick,
            p.pos,
            p.seat,
            p.card.name(),
            p.before,
            p.after,
            p.cost,
            p.illegal,
            names(&p.best)
        );
    }
    for r in &a.revokes {
        let _ = writeln!(
            out,
            "  revoke {}.{} seat {} innocent {} sure {} took {} line {}",
            r.trick,
            r.pos,
            r.seat,
            r.innocent,
            r.sure,
            r.took,
            line_of(&r.line)
        );
    }
}
