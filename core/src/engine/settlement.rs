//! The club settlement: the winner collects from every other player.

use super::GameResult;
use crate::notation::Game;
use crate::rules::RuleSet;

/// `settlement=club`, games played alone: the winner collects 1 from each player on 1 or more
/// and 2 from each player on 0 or less (the totals after the winning hand).
pub fn settle(game: &Game, rules: &RuleSet, res: &mut GameResult) {
    if res.winner < 0 || !rules.club_settlement() || rules.partnership {
        return;
    }
    let Some(won) = res.won_in_hand else { return };
    let Some(at) = game.hands.iter().position(|h| h.number == won) else {
        return;
    };
    let Some(hs) = res.hands.get(at) else { return };
    let mut pay = vec![0i32; hs.total.len()];
    let w = res.winner as usize;
    for (s, &t) in hs.total.iter().enumerate() {
        if s != w {
            let owed = if t >= 1 { 1 } else { 2 };
            if let Some(x) = pay.get_mut(s) {
                *x -= owed;
            }
            if let Some(x) = pay.get_mut(w) {
                *x += owed;
            }
        }
    }
    res.settlement = pay;
}
