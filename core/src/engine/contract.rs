//! The contract and the penalties: the points of a hand become its score.

use super::play::{FollowRule, replay};
use super::points::count_points;
use super::{HandScore, Prepared, RevokePlay, Seats, Status};
use crate::cards::{Card, TrumpTable};
use crate::rules::{AllPass, Revoke, RuleSet, Smudge};

/// Points, contract and penalties of one hand.
pub fn score_hand(prep: &Prepared, rules: &RuleSet, seats: &Seats) -> HandScore {
    let sides = seats.side_names.len();
    let mut hs = HandScore {
        went_out: -1,
        ..HandScore::default()
    };
    if prep.misdeal || prep.thrown_in {
        hs.status = if prep.misdeal {
            Status::Misdeal
        } else {
            Status::ThrownIn
        };
        hs.scored = true;
        hs.score = vec![0; sides];
        hs.set_back = vec![0; sides];
        if !prep.misdeal && rules.all_pass == AllPass::DealerSetBack && prep.dealer >= 0 {
            // all passed: the dealer's side is set back the minimum bid, without play
            let side = usize::try_from(seats.side(prep.dealer)).ok();
            if let Some(s) = side.and_then(|s| hs.score.get_mut(s)) {
                *s = -rules.min_bid;
            }
            if let Some(s) = side.and_then(|s| hs.set_back.get_mut(s)) {
                *s = rules.min_bid;
            }
        }
        return hs;
    }
    if prep.cards.is_empty() {
        return hs;
    }
    let played = replay(prep, rules, seats.n);
    hs.winners = played.winners.clone();
    let mut revoke_sides: Vec<i32> = Vec::new();
    if prep.trump >= 0 {
        let table = TrumpTable::get(prep.trump, rules.deck);
        let lead = prep.cards.first().and_then(|c| c.first()).copied();
        for &(t, pos) in &played.revokes {
            let (Some(cs), Some(ss)) = (prep.cards.get(t), prep.seats.get(t)) else {
                continue;
            };
            let (Some(&led_card), Some(&card), Some(&seat)) =
                (cs.first(), cs.get(pos), ss.get(pos))
            else {
                continue;
            };
            let led = table.suit(led_card);
            if led > 3 {
                continue; // a card outside the deck led (D203): there is no suit to follow
            }
            let held = prep.held_before(seat, t);
            let mut could = held & table.mask(led);
            if (could == 0 || rules.trumps_only)
                && FollowRule::of(rules, table, t, lead) != FollowRule::FreeFirst
            {
                could = held & table.trumps(); // void in the suit led, yet a trump was due
            }
            let mut could: Vec<Card> = crate::cards::cards_of(could).collect();
            could.reverse();
            hs.revoke_plays.push(RevokePlay {
                trick: t + 1,
                pos,
                seat,
                card,
                could,
            });
            let side = seats.side(seat);
            if !revoke_sides.contains(&side) {
                revoke_sides.push(side);
            }
        }
    }
    if !prep.playable || prep.trump < 0 {
        return hs;
    }
    hs.scored = true;
    hs.status = Status::Played;
    let pts = count_points(&played, rules, seats, prep.trump as u8);
    let made = pts.made(sides);
    let mut score = made.clone();
    let p = if prep.pitcher >= 0 {
        seats.side(prep.pitcher)
    } else {
        -1
    };
    let ps = usize::try_from(p).ok().filter(|&x| x < sides);
    let loss = if prep.takeover && rules.double_loss {
        2
    } else {
        1
    };
    hs.takeover = prep.takeover;
    if let (Some(pi), true) = (ps, prep.contract > 0) {
        let mine = made.get(pi).copied().unwrap_or(0);
        let ok = if rules.smudge == Smudge::AllTricks && prep.top_bid {
            hs.smudge = true;
            pts.awards.iter().all(|a| a.side == p)
                && pts.tricks.get(pi).copied().unwrap_or(0) == pts.tricks.iter().sum::<i32>()
        } else {
            hs.smudge = prep.top_bid && matches!(rules.smudge, Smudge::WinsGame | Smudge::Moon);
            mine >= prep.contract
        };
        hs.contract_made = Some(ok);
        let value = if !ok {
            -prep.contract * loss
        } else if hs.smudge && rules.smudge == Smudge::AllTricks {
            prep.contract
        } else {
            mine
        };
        if let Some(x) = score.get_mut(pi) {
            *x = value;
        }
    }
    if !revoke_sides.is_empty() {
        let penalty = if rules.revoke == Revoke::Bid {
            prep.contract
        } else {
            prep.high_bid
        };
        for &r in &revoke_sides {
            if let Some(x) = usize::try_from(r).ok().and_then(|r| score.get_mut(r)) {
                *x = -penalty;
            }
            hs.revokers.push(r);
        }
        hs.penalty = penalty;
        if let Some(pi) = ps {
            if !revoke_sides.contains(&p) && hs.contract_made == Some(false) {
                // a pitcher cannot be set in a hand where someone else revoked
                if let Some(x) = score.get_mut(pi) {
                    *x = made.get(pi).copied().unwrap_or(0);
                }
                hs.saved_by_revoke = true;
            }
        }
    }
    let seller_side = if prep.seller >= 0 {
        seats.side(prep.seller)
    } else {
        -1
    };
    if let Some(x) = usize::try_from(seller_side)
        .ok()
        .and_then(|s| score.get_mut(s))
    {
        *x += prep.sale;
    }
    hs.set_back = score
        .iter()
        .enumerate()
        .map(|(i, &v)| {
            let sale = if i as i32 == seller_side {
                prep.sale
            } else {
                0
            };
            if v - sale < 0 { -(v - sale) } else { 0 }
        })
        .collect();
    hs.made = made;
    hs.score = score;
    hs.points = Some(pts);
    hs
}
