//! The contract and the penalties: the points of a hand become its score.

use super::play::{FollowRule, replay};
use super::points::count_points;
use super::{HandScore, Prepared, RevokePlay, Seats, Status};
use crate::cards::{Card, TrumpTable};
use crate::rules::{AllPass, Revoke, RuleSet, Smudge};

/// What the pitcher's side must make, and what making it or not is worth: the one definition
/// of a contract's value, for the score and for the solver.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Contract {
    /// The bid to make (0: no contract).
    pub bid: i32,
    /// A top bid that means something (`smudge` is not `none`).
    pub smudge: bool,
    /// `smudge=all-tricks` and this is the top bid: every point and every trick are needed.
    pub sweep: bool,
    /// What a failure costs, in bids (2: a takeover under `double_loss=on`).
    pub loss: i32,
}

impl Contract {
    /// The contract of a prepared hand under `rules`.
    pub fn of(prep: &Prepared, rules: &RuleSet) -> Contract {
        let sweep = rules.smudge == Smudge::AllTricks && prep.top_bid;
        Contract {
            bid: prep.contract.max(0),
            smudge: sweep
                || (prep.top_bid && matches!(rules.smudge, Smudge::WinsGame | Smudge::Moon)),
            sweep,
            loss: if prep.takeover && rules.double_loss {
                2
            } else {
                1
            },
        }
    }

    /// Whether the contract is made, and the pitcher's side's score before any revoke penalty,
    /// from the points it won (`mine`) and whether it took every point and every trick (`swept`).
    pub fn value(&self, mine: i32, swept: bool) -> (bool, i32) {
        if self.bid <= 0 {
            return (true, mine);
        }
        let ok = if self.sweep { swept } else { mine >= self.bid };
        let value = if !ok {
            -self.bid * self.loss
        } else if self.sweep {
            self.bid
        } else {
            mine
        };
        (ok, value)
    }
}

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
    hs.takeover = prep.takeover;
    if let (Some(pi), true) = (ps, prep.contract > 0) {
        let mine = made.get(pi).copied().unwrap_or(0);
        let swept = pts.awards.iter().all(|a| a.side == p)
            && pts.tricks.get(pi).copied().unwrap_or(0) == pts.tricks.iter().sum::<i32>();
        let c = Contract::of(prep, rules);
        hs.smudge = c.smudge;
        let (ok, value) = c.value(mine, swept);
        hs.contract_made = Some(ok);
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
