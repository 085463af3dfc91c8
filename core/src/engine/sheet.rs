//! The score sheet: running totals, the sheet compared with itself and with the play,
//! revokes reported, and who went out.

use super::contract::score_hand;
use super::play::FollowRule;
use super::{Finding, GameResult, HandScore, Prepared, Seats, Status, settlement};
use crate::cards::{Card, TrumpTable, off_jack, suit_name};
use crate::findings::revoke::{R501, R502, Shown};
use crate::findings::score::{CountDown, S601, S602, S603};
use crate::findings::{Aside, Edit, InTrick, OrNothing, Signed, Spaced};
use crate::notation::{Game, Hand, ScoreLine};
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
fn written(line: &ScoreLine, seats: &Seats) -> super::Row<Option<i32>> {
    let mut out: super::Row<Option<i32>> = smallvec::smallvec![None; seats.side_names.len()];
    for e in &line.entries {
        if let Some(i) = seats.side_of_name(e.key) {
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

/// The edit that makes `side`'s entry of a score or total line read `value`: its number
/// rewritten, or, where the line has no entry for the side, one added in seat order.
fn entry_edit(line: &ScoreLine, game: &Game, seats: &Seats, side: usize, value: i32) -> Edit {
    let key = seats.side_names.get(side).map_or("", String::as_str);
    if let Some(e) = line.entries.iter().find(|e| game.name_of(e.key) == key) {
        return Edit::replace(
            line.meta.line,
            e.value_column,
            e.value_column + e.value_len,
            value.to_string(),
        );
    }
    let side_of = |e: &crate::notation::ScoreEntry| {
        let k = game.name_of(e.key);
        seats.side_names.iter().position(|s| s == k)
    };
    // after the entry of the nearest side before it in seat order, else before the first entry
    let before = line
        .entries
        .iter()
        .filter(|e| side_of(e).is_some_and(|s| s < side))
        .max_by_key(|e| side_of(e));
    match (before, line.entries.first()) {
        (Some(e), _) => Edit::insert(
            line.meta.line,
            e.value_column + e.value_len,
            format!(", {key} {value}"),
        ),
        (None, Some(first)) => {
            Edit::insert(line.meta.line, first.column, format!("{key} {value}, "))
        }
        (None, None) => Edit::insert(line.meta.line, line.end_column, format!(" {key} {value}")),
    }
}

/// The totals the keeper carried on from a slip in `side`'s total of hand `from`: each later
/// total shifted by `delta`, up to a total the audit flagged for the side (another slip, or
/// one written from the true total) or a hand with a total but no score line (its score may
/// not be known), so that one fix mends the whole chain.
fn carried(
    game: &Game,
    seats: &Seats,
    side: usize,
    from: usize,
    delta: i32,
    flagged: &[u32],
) -> Vec<Edit> {
    let key = seats.side_names.get(side).map_or("", String::as_str);
    let mut out = Vec::new();
    for h in game.hands.iter().skip(from + 1) {
        let Some(tl) = &h.total else { continue };
        if h.score.is_none() || flagged.contains(&tl.meta.line) {
            break;
        }
        let Some(e) = tl.entries.iter().find(|e| game.name_of(e.key) == key) else {
            break;
        };
        out.push(Edit::replace(
            tl.meta.line,
            e.value_column,
            e.value_column + e.value_len,
            (e.value + delta).to_string(),
        ));
    }
    out
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
            let key = match a.name {
                "Low" => format!(" (low={})", rules.low.word()),
                "Game" => format!(" (game_point={})", rules.game_point.word()),
                _ => String::new(),
            };
            parts.push(format!("{}{worth}: {}{key}", a.name, p.why(a, seats)));
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
                if rules.double_loss && hs.contract_made == Some(false) {
                    top.push_str(" (double_loss=on: set, the side loses double)");
                }
            }
            if !hs.contract_rule.is_empty() {
                verdict.push_str(": ");
                verdict.push_str(&hs.contract_rule);
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
        parts.push(format!(
            "revoke penalty (revoke={}): {}",
            rules.revoke.word(),
            each.join(", ")
        ));
    }
    parts.join("; ")
}

/// A small count in words (`six`), as the rules are read aloud; larger ones in digits.
fn count_word(n: usize) -> String {
    const WORDS: [&str; 11] = [
        "no", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten",
    ];
    WORDS
        .get(n)
        .map_or_else(|| n.to_string(), |w| (*w).to_string())
}

/// The rule that decided a top-bid contract, in words with its key: what a smudge needs under
/// `smudge=all-tricks`, and who took what the smudger lost (empty when no such rule applied).
/// What a made smudge or a failed moon does to the game is said where the game ends (`out_why`).
pub fn contract_rule(hs: &HandScore, prep: &Prepared, rules: &RuleSet, seats: &Seats) -> String {
    let (Some(pts), true) = (&hs.points, hs.smudge && prep.pitcher >= 0) else {
        return String::new();
    };
    let top = rules.top_word();
    match rules.smudge {
        Smudge::AllTricks => {
            let p = seats.side(prep.pitcher);
            let need = format!(
                "under smudge=all-tricks a {top} needs all {} points and all {} tricks",
                count_word(pts.awards.len()),
                count_word(rules.hand_size as usize)
            );
            if hs.contract_made == Some(true) {
                return format!("{need}, and made scores {}", prep.contract);
            }
            // what the smudger lost: each trick's taker, in trick order, then each point's
            let mut takers: Vec<(i32, Vec<usize>)> = Vec::new();
            for (t, &w) in hs.winners.iter().enumerate() {
                if w >= 0 && seats.side(w) != p {
                    match takers.iter_mut().find(|(s, _)| *s == w) {
                        Some((_, ts)) => ts.push(t + 1),
                        None => takers.push((w, vec![t + 1])),
                    }
                }
            }
            let mut lost: Vec<String> = takers
                .iter()
                .map(|(w, ts)| {
                    let list: Vec<String> = ts.iter().map(usize::to_string).collect();
                    let (last, rest) = list.split_last().map_or(("", &[][..]), |(l, r)| (l, r));
                    let numbers = if rest.is_empty() {
                        format!("trick {last}")
                    } else {
                        format!("tricks {} and {last}", rest.join(", "))
                    };
                    format!("{} took {numbers}", seats.name(*w))
                })
                .collect();
            for a in pts.awards.iter().filter(|a| a.side != p) {
                lost.push(match seats.side_name(a.side) {
                    Some(side) => format!("{side} won {}", a.name),
                    None => format!("nobody won {}", a.name),
                });
            }
            if lost.is_empty() {
                need
            } else {
                format!("{need}, but {}", lost.join(", "))
            }
        }
        // what a made smudge or a failed moon does to the game is said where the game ends
        _ => String::new(),
    }
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
            "with trumps_only=on only trumps may be played, and a player holding one must play it"
                .into(),
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
    let follow = rules.follow.word();
    let suit = suit_name(led);
    if void {
        return (
            format!(
                "under follow={follow} a player without {suit} must play a trump when able{note}"
            ),
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
            format!(
                "under follow={follow} a player holding {suit} must follow suit or trump{note}"
            ),
            format!("{could} or a trump"),
        );
    }
    (
        format!("under follow={follow} a player holding {suit} must follow suit{note}"),
        could.to_string(),
    )
}

/// What the record shows of a player accused of a revoke (R502): in the trick named, what was
/// led and how the player answered it; with no trick named, the tricks the player did not follow.
fn accused_play(
    prep: &Prepared,
    rules: &RuleSet,
    seats: &Seats,
    seat: i32,
    trick: Option<u32>,
) -> String {
    if prep.trump < 0 || seat < 0 {
        return String::new();
    }
    let table = TrumpTable::get(prep.trump, rules.deck);
    let who = seats.name(seat);
    // (trick number, led card, the accused's card, whether they held the suit led)
    let answer = |t: usize| {
        let (cs, ss) = (prep.cards.get(t)?, prep.seats.get(t)?);
        let pos = ss.iter().position(|&x| x == seat)?;
        let (led, card) = (*cs.first()?, *cs.get(pos)?);
        let held = prep.held_before(seat, t) & table.mask(table.suit(led)) != 0;
        Some((t + 1, pos, led, card, held))
    };
    let suit = |c: Card| suit_name(table.suit(c));
    match trick {
        Some(n) => {
            let Some((t, pos, led, card, held)) = answer((n as usize).saturating_sub(1)) else {
                return String::new();
            };
            if pos == 0 {
                format!(
                    ": {who} led trick {t} ({}), and a lead follows no one",
                    card.name()
                )
            } else if table.suit(card) == table.suit(led) {
                format!(
                    ": {who} followed {} with {} to trick {t} ({} led)",
                    suit(led),
                    card.name(),
                    led.name()
                )
            } else if !held {
                format!(
                    ": {who} had no {} when trick {t} was led ({}), so {} broke no rule (follow={})",
                    suit(led),
                    led.name(),
                    card.name(),
                    rules.follow.word()
                )
            } else {
                format!(
                    ": {who} held {} in trick {t} ({} led) and trumped with {}, which follow={} allows",
                    suit(led),
                    led.name(),
                    card.name(),
                    rules.follow.word()
                )
            }
        }
        None => {
            let off: Vec<String> = (0..prep.cards.len())
                .filter_map(answer)
                .filter(|&(_, pos, led, card, _)| pos > 0 && table.suit(card) != table.suit(led))
                .map(|(t, _, led, card, held)| {
                    if held {
                        format!(
                            "trick {t} (trumped with {}, which follow={} allows)",
                            card.name(),
                            rules.follow.word()
                        )
                    } else {
                        format!("trick {t} (no {})", suit(led))
                    }
                })
                .collect();
            if off.is_empty() {
                format!(": {who} followed the suit led in every trick")
            } else {
                format!(": {who} followed suit except in {}", off.join(", "))
            }
        }
    }
}

/// Who (if anyone) wins the game in this hand, by the rule set's counting order, and why in
/// words naming the rule. Nobody (-1) may come with a why too: a side reached the target but
/// `going_out=bidder-only` kept it from going out.
fn going_out(
    hs: &HandScore,
    prep: &Prepared,
    rules: &RuleSet,
    seats: &Seats,
    before: &[i32],
    after: &[i32],
) -> (i32, String) {
    let target = rules.game;
    let ps = if prep.pitcher >= 0 {
        seats.side(prep.pitcher)
    } else {
        -1
    };
    let name = |s: i32| seats.side_name(s).unwrap_or("nobody");
    let top = rules.top_word();
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
        return (
            ps,
            format!(
                "{} bid {top} and made it: under smudge=wins-game a made {top} wins the game at once",
                seats.name(prep.pitcher)
            ),
        );
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
        let winner = best(after, |s| s != ps);
        return (
            winner,
            format!(
                "{} shot the moon and failed: under smudge=moon a failed {top} loses the game, to the best placed other side",
                name(ps)
            ),
        );
    }
    let reached: Vec<i32> = (0..after.len() as i32)
        .filter(|&s| at(after, s) >= target)
        .collect();
    if reached.is_empty() {
        let in_hole = rules.smudge == Smudge::WinsGame
            && hs.smudge
            && hs.contract_made == Some(true)
            && ps >= 0
            && at(before, ps) < 0
            && !revoked;
        if in_hole {
            // a made smudge from the hole only counts its points: say so where the sheet names a winner
            return (
                -1,
                format!(
                    "{} bid {top} and made it from the hole ({} before the hand): under smudge=wins-game a {top} made in the hole does not win the game at once",
                    seats.name(prep.pitcher),
                    at(before, ps)
                ),
            );
        }
        return (-1, String::new());
    }
    let reached_names: Vec<&str> = reached.iter().map(|&s| name(s)).collect();
    if rules.going_out == GoingOut::BidderOnly {
        // only a side that made its bid this hand can win: a side set back for a revoke has not
        return if reached.contains(&ps) && hs.contract_made == Some(true) && !revoked {
            (
                ps,
                format!(
                    "{} made its bid and reached {target} (going_out=bidder-only: only the bidding side can go out that hand)",
                    name(ps)
                ),
            )
        } else {
            let bidder = if ps >= 0 {
                format!(" ({}'s)", seats.name(prep.pitcher))
            } else {
                String::new()
            };
            let how = if reached.contains(&ps) {
                " without making its bid"
            } else {
                ""
            };
            (
                -1,
                format!(
                    "{} reached {target}{how}, but under going_out=bidder-only only the bidding side{bidder} can go out that hand, and only by making its bid",
                    reached_names.join(" and ")
                ),
            )
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
    let why = |s: i32| {
        if reached.len() < 2 {
            return format!("{} reached {target} (game={target})", name(s));
        }
        let rule = match rules.going_out {
            GoingOut::PitcherFirst => {
                "the pitcher's points count first, then the others' in counting order"
            }
            _ => "the points count in their order (a sale first, then High, Low, Jack, ..., Game)",
        };
        format!(
            "{} {} reached {target}: under going_out={} {rule}, and {} got there first",
            reached_names.join(" and "),
            if reached.len() == 2 { "both" } else { "all" },
            rules.going_out.word(),
            name(s)
        )
    };
    for (s, pts) in order {
        if let Some(r) = usize::try_from(s).ok().and_then(|s| running.get_mut(s)) {
            *r += pts;
            if *r >= target {
                return (s, why(s));
            }
        }
    }
    let s = best(after, |s| reached.contains(&s));
    (s, why(s))
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
    // why nobody went out where a side reached the target (going_out=bidder-only), hand by hand
    let mut kept_in: Option<String> = None;
    // A hand that cannot be recomputed (its bidding or play unreadable) leaves the running totals
    // as the sheet wrote them, and who went out in it unknown. A tournament director takes the
    // sheet's figures as given and judges the later hands on them, but does not rule on a winner
    // the unreadable hand may have made: `undecided` is set when that hand left a side at the
    // target (or the totals unknown), and no winner ruling (S603) is made from then on. The
    // finding that made the hand unreadable is the only one; it says the hand is not recomputed.
    let mut undecided = false;
    // the running totals are unknown: a hand could not be recomputed and had no score line
    let mut totals_unknown = false;
    let preps = std::mem::take(&mut res.preps);
    // S602s found: (index in res.findings, hand index, side, how far off the written total was)
    let mut slips: Vec<(usize, usize, usize, Option<i32>)> = Vec::new();
    for (i, (h, prep)) in game.hands.iter().zip(&preps).enumerate() {
        res.findings
            .extend(prep.findings.iter().cloned().map(|mut f| {
                f.hand = Some(h.number);
                f
            }));
        let mut hs = score_hand(prep, rules, seats);
        hs.contract_rule = contract_rule(&hs, prep, rules, seats);
        res.cards_played += prep.cards.iter().map(|c| c.len() as u64).sum::<u64>();
        let hand = Some(h.number);
        for rp in &hs.revoke_plays {
            let t = rp.trick;
            let (line, col) = prep.play_at(t, rp.pos);
            let Some(led) = prep.cards.get(t - 1).and_then(|c| c.first()).copied() else {
                continue;
            };
            let held = Spaced(rp.could.clone());
            let (rule, expected) = broken_rule(rules, prep, t - 1, rp.seat, &held.to_string());
            let player = seats.name(rp.seat);
            let mut f = Finding::new(
                R501::RevokePlay {
                    player: player.into(),
                    card: rp.card,
                    trick: t as u32,
                    led,
                    held,
                    rule,
                    expected,
                },
                line,
                col,
            )
            .in_trick(t as u32)
            .about(player);
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
            if prep
                .gap_at
                .is_some_and(|g| call.trick.is_none_or(|c| c as usize > g))
            {
                continue; // a trick is missing (P406): the record cannot show this revoke either way
            }
            if !shown
                .iter()
                .any(|&(p, t)| p == who && call.trick.is_none_or(|c| c == t))
            {
                let mut listed = shown.clone();
                listed.sort();
                let each: Vec<String> = listed
                    .iter()
                    .map(|(p, t)| format!("{p} trick {t}"))
                    .collect();
                let held = accused_play(prep, rules, seats, seats.seat(call.player), call.trick);
                let mut f = Finding::new(
                    R502::NotShown {
                        player: who.into(),
                        trick: InTrick(call.trick),
                        play: held,
                        shown: Shown(each),
                    },
                    call.meta.line,
                    call.column,
                )
                .about(who);
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
        let recorded = h.score.as_ref().map(|s| written(s, seats));
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
        } else {
            totals_unknown = true;
        }
        if totals_unknown {
            // a written total line puts the sheet's figures back in hand
            if let Some(tl) = &h.total {
                let rec_total = written(tl, seats);
                if !tl.unreadable && rec_total.iter().all(Option::is_some) {
                    total = rec_total
                        .iter()
                        .map(|r| {
                            let r = r.unwrap_or(0);
                            if rules.count_down { rules.game - r } else { r }
                        })
                        .collect();
                    totals_unknown = false;
                }
            }
        }
        if !hs.scored && ended_at.is_none() {
            // the last hand may have been won outright (a smudge, the moon) whatever the totals
            let last = i + 1 == game.hands.len();
            let reached = total.iter().any(|&t| t >= rules.game);
            if reached || totals_unknown || last {
                undecided = true;
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
                        let side = side_name(s);
                        let why = why.get_or_insert_with(|| explain(&hs, prep, rules, seats));
                        let mut f = Finding::new(
                            S601::WrongScore {
                                side: side.into(),
                                recorded: OrNothing(r),
                                expected: exp,
                                why: why.clone(),
                            },
                            line.meta.line,
                            column_of(line, game, side),
                        )
                        .about(side)
                        .with_edits(vec![entry_edit(line, game, seats, s, exp)]);
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
            let rec_total = written(tl, seats);
            if let (Some(d), Some(sh), Some(w)) = (&due, &sheet, &written_score) {
                for s in 0..k {
                    let r = rec_total.get(s).copied().flatten();
                    if r.is_none() && tl.unreadable {
                        continue;
                    }
                    let want = d.get(s).copied().unwrap_or(0);
                    if r != Some(want) {
                        let side = side_name(s);
                        let mut f = Finding::new(
                            S602::WrongTotal {
                                side: side.into(),
                                recorded: OrNothing(r),
                                previous: sh.get(s).copied().unwrap_or(0),
                                op: if rules.count_down { "-" } else { "+" },
                                written: Signed(w.get(s).copied().unwrap_or(0)),
                                expected: want,
                                count_down: CountDown(rules.count_down),
                            },
                            tl.meta.line,
                            column_of(tl, game, side),
                        )
                        .about(side)
                        .with_edits(vec![entry_edit(tl, game, seats, s, want)]);
                        slips.push((res.findings.len(), i, s, r.map(|r| want - r)));
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
        if undecided {
            // who went out is unknown: no ruling on the winner or the hands after
        } else if let Some(e) = ended_at {
            if i == e + 1 {
                let winner = seats.side_name(res.winner).unwrap_or("").to_string();
                let won = game.hands.get(e).map_or(0, |x| x.number);
                let how = res
                    .hands
                    .get(e)
                    .map_or(String::new(), |x| x.out_why.clone());
                let mut f = Finding::new(
                    S603::HandAfterWin {
                        hand: h.number,
                        winner: winner.clone(),
                        won_in: won,
                        how: Aside(how),
                    },
                    h.meta.line,
                    1,
                )
                .about(winner);
                f.hand = hand;
                res.findings.push(f);
            }
        } else if hs.scored && hs.status == super::Status::Played {
            let (out, why) = going_out(&hs, prep, rules, seats, &before, &total);
            if out < 0 && !why.is_empty() {
                kept_in = Some(format!("in hand {} {why}", h.number));
            }
            if out >= 0 {
                hs.out_why = why;
                hs.went_out = out;
                ended_at = Some(i);
                res.winner = out;
                res.won_in_hand = Some(h.number);
            }
        }
        res.hands.push(hs);
    }
    res.preps = preps;
    for &(at, from, side, delta) in &slips {
        let Some(delta) = delta else { continue };
        let flagged: Vec<u32> = slips
            .iter()
            .filter(|x| x.2 == side)
            .filter_map(|x| res.findings.get(x.0))
            .map(|f| f.line)
            .collect();
        let more = carried(game, seats, side, from, delta, &flagged);
        if let Some(fix) = res.findings.get_mut(at).and_then(|f| f.fix.as_mut()) {
            fix.edits.extend(more);
        }
    }
    // the winner line
    let last_line = if game.end_line != 0 {
        game.end_line
    } else {
        game.hands.last().map_or(game.line, hand_end_line)
    };
    let winner = seats.side_name(res.winner).map(str::to_string);
    let now = standing(&total, rules, seats);
    let out_why = ended_at
        .and_then(|e| res.hands.get(e))
        .map_or(String::new(), |x| x.out_why.clone());
    match (&game.winner, &winner) {
        _ if undecided => {}
        (Some(w), None) => {
            let named = game.name_of(w.name);
            let why = match &kept_in {
                Some(kept) => format!("gone out: {kept}"),
                None if rules.going_out == GoingOut::BidderOnly => format!(
                    "reached {} (game={}; going_out=bidder-only: only the bidding side can go out in a hand, by making its bid)",
                    rules.game, rules.game
                ),
                None => format!("reached {} (game={})", rules.game, rules.game),
            };
            res.findings.push(
                Finding::new(
                    S603::NoWinnerYet {
                        named: named.into(),
                        why,
                        standing: now,
                    },
                    w.meta.line,
                    w.column,
                )
                .with_edits(vec![Edit::delete_line(w.meta.line)]),
            );
        }
        (Some(w), Some(win)) if game.name_of(w.name) != win => {
            let named = game.name_of(w.name);
            let end = w.column + named.chars().count() as u32;
            res.findings.push(
                Finding::new(
                    S603::WrongWinner {
                        named: named.into(),
                        winner: win.clone(),
                        hand: res.won_in_hand.unwrap_or(0),
                        how: Aside(out_why),
                        standing: now,
                    },
                    w.meta.line,
                    w.column,
                )
                .about(win.clone())
                .with_edits(vec![Edit::replace(
                    w.meta.line,
                    w.column,
                    end,
                    win.clone(),
                )]),
            );
        }
        // a misspelt winner line (`winer Bob`) is its E102 alone
        (None, Some(win))
            if !game
                .hands
                .last()
                .is_some_and(|h| h.misread.contains(&"winner")) =>
        {
            res.findings.push(
                Finding::new(
                    S603::NoWinnerLine {
                        winner: win.clone(),
                        hand: res.won_in_hand.unwrap_or(0),
                        how: Aside(out_why),
                        standing: now,
                    },
                    last_line,
                    1,
                )
                .about(win.clone())
                // as the canonical form writes it: a blank line, then the winner, after the game's last line
                .with_edits(vec![Edit::insert(
                    last_line + 1,
                    1,
                    format!("\nwinner {win}\n"),
                )]),
            );
        }
        _ => {}
    }
    settlement::settle(game, rules, res);
}
