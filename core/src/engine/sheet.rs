//! The score sheet: running totals, the sheet compared with itself and with the play,
//! revokes reported, and who went out.

use super::contract::score_hand;
use super::play::FollowRule;
use super::{Finding, GameResult, HandScore, Prepared, Seats, Status, settlement};
use crate::cards::{TrumpTable, off_jack, suit_name};
use crate::notation::{Code, Game, Hand, ScoreLine};
use crate::rules::{AllPass, Follow, GoingOut, RuleSet, Smudge};

/// The last line number of any statement of a hand.
pub fn hand_end_line(h: &Hand) -> u32 {
    let mut m = h.meta.line;
    for l in [
        h.dealer.as_ref().map(|x| x.meta.line),
        h.deal.as_ref().map(|x| x.meta.line),
        h.widow.as_ref().map(|x| x.meta.line),
        h.bids.as_ref().map(|x| x.meta.line),
        h.trump.as_ref().map(|x| x.meta.line),
        h.score.as_ref().map(|x| x.meta.line),
        h.total.as_ref().map(|x| x.meta.line),
        h.misdeal.as_ref().map(|x| x.line),
    ]
    .into_iter()
    .flatten()
    {
        m = m.max(l);
    }
    for l in h
        .exchanges
        .iter()
        .map(|x| x.meta.line)
        .chain(h.revokes.iter().map(|x| x.meta.line))
        .chain(h.tricks.iter().map(|x| x.meta.line))
        .chain(h.notes.iter().map(|x| x.meta.line))
    {
        m = m.max(l);
    }
    m
}

/// A score line as side -> value, the first entry winning when a side is written twice.
fn written(line: &ScoreLine, game: &Game, seats: &Seats) -> Vec<Option<i32>> {
    let mut out = vec![None; seats.side_names.len()];
    for e in &line.entries {
        let key = game.name_of(e.key);
        if let Some(i) = seats.side_names.iter().position(|s| s == key) {
            if let Some(slot) = out.get_mut(i) {
                if slot.is_none() {
                    *slot = Some(e.value);
                }
            }
        }
    }
    out
}

fn column_of(line: &ScoreLine, game: &Game, side: &str) -> u32 {
    line.entries
        .iter()
        .find(|e| game.name_of(e.key) == side)
        .map_or(1, |e| e.column)
}

fn signed(n: i32) -> String {
    if n < 0 {
        format!("({n})")
    } else {
        n.to_string()
    }
}

fn standing(total: &[i32], rules: &RuleSet, seats: &Seats) -> String {
    let parts: Vec<String> = seats
        .side_names
        .iter()
        .zip(total)
        .map(|(k, v)| format!("{k} {}", if rules.count_down { rules.game - v } else { *v }))
        .collect();
    let head = if rules.count_down {
        "still needed: "
    } else {
        "totals: "
    };
    format!("{head}{}", parts.join(", "))
}

/// Why the points fell as they did: the breakdown quoted in S601 messages.
pub fn explain(hs: &HandScore, prep: &Prepared, rules: &RuleSet, seats: &Seats) -> String {
    let mut parts: Vec<String> = Vec::new();
    if let Some(p) = &hs.points {
        for a in &p.awards {
            let worth = if a.worth != 1 {
                format!(" ({})", a.worth)
            } else {
                String::new()
            };
            parts.push(format!("{}{worth}: {}", a.name, p.why(a, seats)));
        }
    }
    if hs.status == Status::ThrownIn && rules.all_pass == AllPass::DealerSetBack && prep.dealer >= 0
    {
        parts.push(format!(
            "everybody passed: the hand is not played and the dealer {}'s side {} is set back {} (all_pass=dealer-set-back)",
            seats.name(prep.dealer),
            seats.side_name(seats.side(prep.dealer)).unwrap_or("nobody"),
            rules.min_bid
        ));
    }
    if prep.pitcher >= 0 {
        let pitcher = seats.name(prep.pitcher);
        if prep.contract != 0 {
            let mut verdict = match hs.contract_made {
                Some(true) => "made it".to_string(),
                Some(false) => "was set".to_string(),
                None => "not judged".to_string(),
            };
            if hs.saved_by_revoke {
                verdict = "fell short, but cannot be set: another player revoked".into();
            }
            let mut top = if hs.smudge {
                format!(" ({})", rules.top_word())
            } else {
                String::new()
            };
            if hs.takeover {
                top.push_str(", taking over a pitch");
            }
            if let Some(from) = hs.moon_from {
                let side = seats.side(prep.pitcher);
                let gain = usize::try_from(side)
                    .ok()
                    .and_then(|s| hs.score.get(s))
                    .copied()
                    .unwrap_or(0);
                verdict.push_str(&format!(
                    ": the score jumps from the sheet's total {from} to {}",
                    from + gain
                ));
            }
            parts.push(format!(
                "{pitcher} bid {}{top} and {verdict}",
                prep.contract
            ));
        } else {
            parts.push(format!("{pitcher} pitched with no contract"));
        }
    }
    if prep.sale != 0 && prep.seller >= 0 {
        parts.push(format!(
            "{} sold for {}",
            seats.side_name(seats.side(prep.seller)).unwrap_or("nobody"),
            prep.sale
        ));
    }
    if !hs.revokers.is_empty() {
        let each: Vec<String> = hs
            .revokers
            .iter()
            .map(|&r| {
                format!(
                    "{} set back {}",
                    seats.side_name(r).unwrap_or("nobody"),
                    hs.penalty
                )
            })
            .collect();
        parts.push(format!("revoke penalty: {}", each.join(", ")));
    }
    parts.join("; ")
}

/// The rule a revoke broke, in words, and what the player should have played.
fn broken_rule(
    rules: &RuleSet,
    prep: &Prepared,
    t: usize,
    seat: i32,
    could: &str,
) -> (String, String) {
    let table = TrumpTable::get(prep.trump, rules.deck);
    let lead = prep.cards.first().and_then(|c| c.first()).copied();
    let led_card = prep.cards.get(t).and_then(|c| c.first()).copied();
    let led = led_card.map_or(-1, |c| table.suit(c));
    let rule = FollowRule::of(rules, table, t, lead);
    if rule == FollowRule::TrumpsOnly {
        return (
            "only trumps may be played, and a player holding one must play it".into(),
            format!("a trump ({could})"),
        );
    }
    if rule == FollowRule::FreeFirst {
        return (
            format!(
                "with first_trick_trump=free a player holding {} must follow suit (nobody may trump the first trick)",
                suit_name(led)
            ),
            could.to_string(),
        );
    }
    let void = prep.held_before(seat, t) & table.mask(led) == 0;
    // the deck's extra trumps (jick, off-jack, jokers), named where they are what the player should have played
    let extra: Vec<&str> = if rules.deck.off_jack_trump() && prep.trump >= 0 {
        let oj = off_jack(prep.trump as u8).name();
        could
            .split(' ')
            .filter(|c| *c == oj || *c == "JKH" || *c == "JKL")
            .collect()
    } else {
        Vec::new()
    };
    let note = if extra.is_empty() {
        String::new()
    } else {
        format!(
            " ({} {} here)",
            extra.join(", "),
            if extra.len() == 1 {
                "is a trump"
            } else {
                "are trumps"
            }
        )
    };
    let follow = &rules.follow_name;
    let suit = suit_name(led);
    if void {
        return (
            format!("under {follow} a player without {suit} must play a trump when able{note}"),
            format!("a trump ({could})"),
        );
    }
    if led == prep.trump {
        return (
            format!("on a trump lead a player holding a trump must play one{note}"),
            could.to_string(),
        );
    }
    if rules.follow == Follow::FollowOrTrump {
        return (
            format!("under {follow} a player holding {suit} must follow suit or trump{note}"),
            format!("{could} or a trump"),
        );
    }
    (
        format!("under {follow} a player holding {suit} must follow suit{note}"),
        could.to_string(),
    )
}

/// Who (if anyone) wins the game in this hand, by the rule set's counting order.
fn going_out(
    hs: &HandScore,
    prep: &Prepared,
    rules: &RuleSet,
    seats: &Seats,
    before: &[i32],
    after: &[i32],
) -> i32 {
    let target = rules.game;
    let ps = if prep.pitcher >= 0 {
        seats.side(prep.pitcher)
    } else {
        -1
    };
    let revoked = hs.revokers.contains(&ps);
    let at = |v: &[i32], s: i32| {
        usize::try_from(s)
            .ok()
            .and_then(|s| v.get(s))
            .copied()
            .unwrap_or(0)
    };
    if rules.smudge == Smudge::WinsGame
        && hs.smudge
        && hs.contract_made == Some(true)
        && ps >= 0
        && at(before, ps) >= 0
        && !revoked
    {
        return ps;
    }
    if rules.smudge == Smudge::Moon
        && hs.smudge
        && hs.contract_made == Some(false)
        && !hs.saved_by_revoke
        && ps >= 0
        && !revoked
        && after.len() > 1
    {
        // a failed moon loses the game: it goes to the best placed other side
        return best(after, |s| s != ps);
    }
    let reached: Vec<i32> = (0..after.len() as i32)
        .filter(|&s| at(after, s) >= target)
        .collect();
    if reached.is_empty() {
        return -1;
    }
    if rules.going_out == GoingOut::BidderOnly {
        // only a side that made its bid this hand can win: a side set back for a revoke has not
        return if reached.contains(&ps) && hs.contract_made == Some(true) && !revoked {
            ps
        } else {
            -1
        };
    }
    let mut running = before.to_vec();
    let mut order: Vec<(i32, i32)> = Vec::new();
    let mut scoring: Vec<i32> = (0..hs.score.len() as i32)
        .filter(|&s| at(&hs.score, s) > 0)
        .collect();
    let seller = if prep.seller >= 0 {
        seats.side(prep.seller)
    } else {
        -1
    };
    if prep.sale != 0 && seller >= 0 {
        order.push((seller, prep.sale));
    }
    if rules.going_out == GoingOut::PitcherFirst && ps >= 0 && at(&hs.score, ps) > 0 {
        order.push((ps, at(&hs.score, ps)));
        scoring.retain(|&s| s != ps);
    }
    if let Some(p) = &hs.points {
        // the points in counting order, each for what it is worth
        for a in &p.awards {
            if a.side >= 0 && scoring.contains(&a.side) {
                order.push((a.side, a.worth));
            }
        }
    }
    for (s, pts) in order {
        if let Some(r) = usize::try_from(s).ok().and_then(|s| running.get_mut(s)) {
            *r += pts;
            if *r >= target {
                return s;
            }
        }
    }
    best(after, |s| reached.contains(&s))
}

/// The first side with the highest value among those `keep` allows.
fn best(values: &[i32], keep: impl Fn(i32) -> bool) -> i32 {
    let mut out = -1;
    let mut top = i32::MIN;
    for (i, &v) in values.iter().enumerate() {
        if keep(i as i32) && v > top {
            top = v;
            out = i as i32;
        }
    }
    out
}

/// Pass 3 for one game: hand scores, running totals, going out, and the sheet compared.
pub fn score_game(game: &Game, rules: &RuleSet, seats: &Seats, res: &mut GameResult) {
    let k = seats.side_names.len();
    let side_name = |s: usize| seats.side_names.get(s).map_or("", String::as_str);
    let mut total = vec![0i32; k];
    let mut sheet: Option<Vec<i32>> = Some(vec![if rules.count_down { rules.game } else { 0 }; k]);
    let sign = if rules.count_down { -1 } else { 1 };
    let mut ended_at: Option<usize> = None;
    let preps = std::mem::take(&mut res.preps);
    for (i, (h, prep)) in game.hands.iter().zip(&preps).enumerate() {
        res.findings
            .extend(prep.findings.iter().cloned().map(|mut f| {
                f.hand = Some(h.number);
                f
            }));
        let mut hs = score_hand(prep, rules, seats);
        res.cards_played += prep.cards.iter().map(|c| c.len() as u64).sum::<u64>();
        let hand = Some(h.number);
        for rp in &hs.revoke_plays {
            let t = rp.trick;
            let (line, col) = prep.play_at(t, rp.pos);
            let led = prep
                .cards
                .get(t - 1)
                .and_then(|c| c.first())
                .map_or("??", |c| c.name());
            let could: Vec<&str> = rp.could.iter().map(|c| c.name()).collect();
            let could = could.join(" ");
            let (rule, expected) = broken_rule(rules, prep, t - 1, rp.seat, &could);
            let player = seats.name(rp.seat);
            let mut f = Finding::new(
                Code::R501,
                format!(
                    "{player} plays {} to trick {t} ({led} led) while holding {could}: {rule}",
                    rp.card.name()
                ),
                line,
                col,
            )
            .in_trick(t as u32)
            .about(player)
            .compare(expected, rp.card.name());
            f.hand = hand;
            res.findings.push(f);
        }
        if !hs.revoke_plays.is_empty() {
            let shared = std::sync::Arc::new(rules.clone());
            res.findings.extend(super::analysis::revoke_damage_findings(
                prep, &hs, &shared, seats, hand,
            ));
        }
        let shown: Vec<(&str, u32)> = hs
            .revoke_plays
            .iter()
            .map(|r| (seats.name(r.seat), r.trick as u32))
            .collect();
        for call in &h.revokes {
            let who = game.name_of(call.player);
            if !shown
                .iter()
                .any(|&(p, t)| p == who && call.trick.is_none_or(|c| c == t))
            {
                let where_ = call
                    .trick
                    .map_or(String::new(), |t| format!(" in trick {t}"));
                let mut listed = shown.clone();
                listed.sort();
                let also = if listed.is_empty() {
                    String::new()
                } else {
                    let each: Vec<String> = listed
                        .iter()
                        .map(|(p, t)| format!("{p} trick {t}"))
                        .collect();
                    format!(" (revokes shown: {})", each.join(", "))
                };
                let mut f = Finding::new(
                    Code::R502,
                    format!(
                        "a revoke by {who}{where_} was called at the table, but the record shows {who} following the rule{also}"
                    ),
                    call.meta.line,
                    call.column,
                )
                .about(who)
                .compare("a revoke in the record", "no revoke");
                f.trick = call.trick;
                f.hand = hand;
                res.findings.push(f);
            }
        }
        let before = total.clone();
        let ps = if prep.pitcher >= 0 {
            seats.side(prep.pitcher)
        } else {
            -1
        };
        let moon = rules.smudge == Smudge::Moon
            && hs.smudge
            && hs.contract_made == Some(true)
            && ps >= 0
            && !hs.revokers.contains(&ps); // a revoker scores nothing, moon or not
        let psu = usize::try_from(ps).unwrap_or(usize::MAX);
        if moon {
            // shooting the moon made: the score jumps to the target, or to 0 from below zero. The keeper
            // writes what takes the sheet's total there, so a slip in an earlier total stays its own finding
            let from = sheet
                .as_ref()
                .map_or(before.get(psu).copied(), |s| s.get(psu).copied())
                .unwrap_or(0);
            hs.moon_from = Some(from);
            if let Some(x) = hs.score.get_mut(psu) {
                *x = (if from >= 0 { rules.game } else { 0 }) - from;
            }
        }
        let recorded = h.score.as_ref().map(|s| written(s, game, seats));
        if hs.scored {
            for (t, s) in total.iter_mut().zip(&hs.score) {
                *t += s;
            }
            if moon {
                if let Some(x) = total.get_mut(psu) {
                    *x = if before.get(psu).copied().unwrap_or(0) >= 0 {
                        rules.game
                    } else {
                        0
                    };
                }
            }
        } else if let Some(rec) = &recorded {
            // cannot recompute: carry the sheet's figure so later hands stand alone
            for (t, r) in total.iter_mut().zip(rec) {
                *t += r.unwrap_or(0);
            }
        }
        hs.total = total
            .iter()
            .map(|&v| if rules.count_down { rules.game - v } else { v })
            .collect();
        // S601: the hand's score line against the recomputed score
        if let (Some(line), Some(rec)) = (&h.score, &recorded) {
            if hs.scored {
                let mut why: Option<String> = None; // put in words only for a score that differs
                for s in 0..k {
                    let r = rec.get(s).copied().flatten();
                    let exp = hs.score.get(s).copied().unwrap_or(0);
                    if r.is_none() && line.unreadable {
                        continue; // an entry that could not be read is already an E101
                    }
                    if r != Some(exp) {
                        let rec_text = r.map_or("nothing".to_string(), |v| v.to_string());
                        let side = side_name(s);
                        let why = why.get_or_insert_with(|| explain(&hs, prep, rules, seats));
                        let mut f = Finding::new(
                            Code::S601,
                            format!("{side}: recorded {rec_text}, expected {exp} ({why})"),
                            line.meta.line,
                            column_of(line, game, side),
                        )
                        .about(side)
                        .compare(exp.to_string(), rec_text);
                        f.hand = hand;
                        res.findings.push(f);
                    }
                }
            }
        }
        // S602: the sheet against itself. `sheet` is what the sheet should read after the previous
        // hand: the last total written plus every score written since (None: unknown).
        let written_score: Option<Vec<i32>> = match &recorded {
            Some(rec) => Some(rec.iter().map(|r| r.unwrap_or(0)).collect()),
            None if hs.scored => Some(hs.score.clone()),
            None => None,
        };
        let due: Option<Vec<i32>> = match (&sheet, &written_score) {
            (Some(sh), Some(w)) => Some(sh.iter().zip(w).map(|(a, b)| a + sign * b).collect()),
            _ => None,
        };
        if let Some(tl) = &h.total {
            let rec_total = written(tl, game, seats);
            if let (Some(d), Some(sh), Some(w)) = (&due, &sheet, &written_score) {
                for s in 0..k {
                    let r = rec_total.get(s).copied().flatten();
                    if r.is_none() && tl.unreadable {
                        continue;
                    }
                    let want = d.get(s).copied().unwrap_or(0);
                    if r != Some(want) {
                        let side = side_name(s);
                        let rec_text = r.map_or("nothing".to_string(), |v| v.to_string());
                        let op = if rules.count_down { "-" } else { "+" };
                        let mut f = Finding::new(
                            Code::S602,
                            format!(
                                "{side}: total written {rec_text}, but the previous total {} {op} this hand's written score {} is {want}",
                                sh.get(s).copied().unwrap_or(0),
                                signed(w.get(s).copied().unwrap_or(0))
                            ),
                            tl.meta.line,
                            column_of(tl, game, side),
                        )
                        .about(side)
                        .compare(want.to_string(), rec_text);
                        f.hand = hand;
                        res.findings.push(f);
                    }
                }
            }
            sheet = Some(
                (0..k)
                    .map(|s| {
                        rec_total.get(s).copied().flatten().unwrap_or_else(|| {
                            due.as_ref().and_then(|d| d.get(s).copied()).unwrap_or(0)
                        })
                    })
                    .collect(),
            );
        } else {
            sheet = due;
        }
        // S603: hands after the game was won
        if let Some(e) = ended_at {
            if i == e + 1 {
                let winner = seats.side_name(res.winner).unwrap_or("").to_string();
                let won = game.hands.get(e).map_or(0, |x| x.number);
                let mut f = Finding::new(
                    Code::S603,
                    format!(
                        "hand {} is played after {winner} won the game in hand {won}",
                        h.number
                    ),
                    h.meta.line,
                    1,
                )
                .about(winner)
                .compare("no more hands", format!("hand {}", h.number));
                f.hand = hand;
                res.findings.push(f);
            }
        } else if hs.scored && hs.status == super::Status::Played {
            let out = going_out(&hs, prep, rules, seats, &before, &total);
            if out >= 0 {
                hs.went_out = out;
                ended_at = Some(i);
                res.winner = out;
                res.won_in_hand = Some(h.number);
            }
        }
        res.hands.push(hs);
    }
    res.preps = preps;
    // the winner line
    let last_line = if game.end_line != 0 {
        game.end_line
    } else {
        game.hands.last().map_or(game.line, hand_end_line)
    };
    let winner = seats.side_name(res.winner).map(str::to_string);
    let now = standing(&total, rules, seats);
    match (&game.winner, &winner) {
        (Some(w), None) => {
            let named = game.name_of(w.name);
            let why = if rules.going_out == GoingOut::BidderOnly {
                format!(
                    "gone out: only a side that makes its bid in the hand can win at {}",
                    rules.game
                )
            } else {
                format!("reached {}", rules.game)
            };
            res.findings.push(
                Finding::new(
                    Code::S603,
                    format!("the record names {named} the winner, but on the recomputed scores nobody has {why} ({now})"),
                    w.meta.line,
                    w.column,
                )
                .compare("no winner yet", named),
            );
        }
        (Some(w), Some(win)) if game.name_of(w.name) != win => {
            let named = game.name_of(w.name);
            res.findings.push(
                Finding::new(
                    Code::S603,
                    format!(
                        "the record names {named} the winner, but {win} went out first in hand {} ({now})",
                        res.won_in_hand.unwrap_or(0)
                    ),
                    w.meta.line,
                    w.column,
                )
                .about(win.clone())
                .compare(win.clone(), named),
            );
        }
        (None, Some(win)) => {
            res.findings.push(
                Finding::new(
                    Code::S603,
                    format!(
                        "the record names no winner, but {win} went out in hand {} ({now})",
                        res.won_in_hand.unwrap_or(0)
                    ),
                    last_line,
                    1,
                )
                .about(win.clone())
                .compare(win.clone(), "nothing"),
            );
        }
        _ => {}
    }
    settlement::settle(game, rules, res);
}
