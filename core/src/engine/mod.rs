//! The engine: every hand of a game re-executed under one rule set, phase by phase.
//!
//! A hand goes through [`auction`], then the deal, widow and [`exchange`], then the
//! [`play`] (who sits where in each trick, legal cards, trick winners, revokes); the
//! [`points`] of the hand are counted from the play, the [`contract`] and penalties turn
//! them into the hand's score, the [`sheet`] keeps the running totals, compares them with
//! what was written and decides who went out, and [`settlement`] pays the club stakes.
//! One hand in the terminal and a million on a server go through the same functions.
//!
//! Every verdict is a [`Finding`]: a stable code, where it is, who it is about, what the
//! record shows and what was expected.

pub mod analysis;
pub mod auction;
pub mod contract;
pub mod exchange;
pub mod play;
pub mod points;
pub mod settlement;
pub mod sheet;
pub mod solver;

use crate::cards::{Card, CardMask};
use crate::findings::input::{E105, E107};
use crate::findings::{Listed, Spaced};
use crate::notation::parser::parse_teams;
use crate::notation::{Game, Name};
use crate::rules::RuleSet;

/// One verdict of the engine, with the trick and the player it is about.
pub use crate::findings::Finding;

/// Seat numbers and sides (players, or teams in a partnership game) of one game.
#[derive(Clone, Debug)]
pub struct Seats {
    /// Player names in seat order, clockwise.
    pub names: Vec<String>,
    /// Seat of each interned name of the game (-1: not seated).
    seat_of_name: Vec<i32>,
    /// Side of each interned name of the game, as a score key (-1: no side's name).
    side_of_name: Vec<i32>,
    pub n: usize,
    pub side_names: Vec<String>,
    /// Side of each seat (-1: in no team).
    pub side_of: Vec<i32>,
}

impl Seats {
    /// The seats of `game` under `rules`.
    pub fn new(game: &Game, rules: &RuleSet) -> Seats {
        let names = players(game);
        let mut seat_of_name = vec![-1; game.names.len()];
        let interned: rustc_hash::FxHashMap<&str, usize> = game
            .names
            .iter()
            .enumerate()
            .rev() // the first of equal names wins, as a scan would find it
            .map(|(k, g)| (g.as_str(), k))
            .collect();
        for (i, p) in names.iter().enumerate() {
            if let Some(slot) = interned
                .get(p.as_str())
                .and_then(|&k| seat_of_name.get_mut(k))
            {
                *slot = i as i32;
            }
        }
        let teams = if rules.partnership {
            parse_teams(game.tag("Teams").unwrap_or("")).0
        } else {
            Vec::new()
        };
        let (side_names, side_of) = if teams.is_empty() {
            (names.clone(), (0..names.len() as i32).collect())
        } else {
            let side_of = names
                .iter()
                .map(|p| {
                    teams
                        .iter()
                        .rposition(|(_, ps)| ps.contains(p))
                        .map_or(-1, |i| i as i32)
                })
                .collect();
            (teams.into_iter().map(|(t, _)| t).collect(), side_of)
        };
        // a score line's keys are looked up once per game, not compared name by name per line
        let side_of_name = game
            .names
            .iter()
            .map(|g| {
                side_names
                    .iter()
                    .position(|s| s == g)
                    .map_or(-1, |i| i as i32)
            })
            .collect();
        Seats {
            n: names.len(),
            names,
            seat_of_name,
            side_of_name,
            side_names,
            side_of,
        }
    }

    /// The side an interned name names as a score key (None: no side's).
    pub fn side_of_name(&self, name: Name) -> Option<usize> {
        self.side_of_name
            .get(name.0 as usize)
            .and_then(|&i| usize::try_from(i).ok())
    }

    /// The seat of an interned name (-1: not seated).
    pub fn seat(&self, name: Name) -> i32 {
        self.seat_of_name
            .get(name.0 as usize)
            .copied()
            .unwrap_or(-1)
    }

    /// A seat's player ("nobody" for no seat).
    pub fn name(&self, seat: i32) -> &str {
        usize::try_from(seat)
            .ok()
            .and_then(|s| self.names.get(s))
            .map_or("nobody", String::as_str)
    }

    /// A seat's side (-1: none).
    pub fn side(&self, seat: i32) -> i32 {
        usize::try_from(seat)
            .ok()
            .and_then(|s| self.side_of.get(s))
            .copied()
            .unwrap_or(-1)
    }

    /// A side's name.
    pub fn side_name(&self, side: i32) -> Option<&str> {
        usize::try_from(side)
            .ok()
            .and_then(|s| self.side_names.get(s))
            .map(String::as_str)
    }

    /// The next seat clockwise from `seat`, `k` places on.
    pub fn after(&self, seat: i32, k: i32) -> i32 {
        if self.n == 0 {
            0
        } else {
            (seat + k).rem_euclid(self.n as i32)
        }
    }

    /// How far clockwise `seat` sits from `from`.
    pub fn distance(&self, from: i32, seat: i32) -> i32 {
        if self.n == 0 {
            0
        } else {
            (seat - from).rem_euclid(self.n as i32)
        }
    }
}

/// The seats in clockwise order, from the `Players` tag.
pub fn players(game: &Game) -> Vec<String> {
    game.tag("Players")
        .unwrap_or("")
        .split(crate::notation::lexer::is_space)
        .filter(|s| !s.is_empty())
        .map(str::to_string)
        .collect()
}

/// One trick's worth of something per play, kept inline (a trick rarely has more than ten plays).
pub type Row<T> = smallvec::SmallVec<[T; 10]>;

/// One hand's record reduced to seats and cards, with what the auction, deal and play found.
#[derive(Clone, Debug, Default)]
pub struct Prepared {
    pub number: u32,
    pub line: u32,
    pub dealer: i32,
    /// The seat that won the auction (or must pitch); -1 none.
    pub pitcher: i32,
    /// The bid the pitcher must make; 0 = no contract.
    pub contract: i32,
    pub high_bid: i32,
    /// The contract is the top bid, and a top bid means something (`smudge` is not `none`).
    pub top_bid: bool,
    /// Seat and value of each bid the table may have let stand (a value of 0: no contract).
    pub bid_of: Vec<(i32, i32)>,
    pub written_dealer: i32,
    pub seller: i32,
    pub sale: i32,
    pub thrown_in: bool,
    pub misdeal: bool,
    pub trump: i32,
    /// Per trick, in play order (a trick with no card is not kept).
    pub cards: Vec<Row<Card>>,
    pub seats: Vec<Row<i32>>,
    pub trick_lines: Vec<u32>,
    pub play_cols: Vec<Row<u32>>,
    /// Per seat, the cards held when the play began (0 = not recorded).
    pub dealt: Vec<CardMask>,
    /// `dealt` holds the hands after a discard and draw.
    pub exchanged: bool,
    pub takeover: bool,
    /// Seat and suit written with each pitch.
    pub pitch_suits: Vec<(i32, i32)>,
    pub pitched_by: i32,
    /// Seats that pitched in place of a bid.
    pub pitchers: Vec<i32>,
    pub playable: bool,
    /// The index in `cards` of the first trick recorded after a missing one, or of the first
    /// trick with an unreadable card: from there on who led and what each player held are
    /// unknown, so no lead, revoke or holding is judged.
    pub gap_at: Option<usize>,
    pub findings: Vec<Finding>,
    /// Whether the auction found anything (A3xx): the first lead may then stand for it.
    pub auction_faulted: bool,
}

impl Prepared {
    /// The value of `seat`'s standing bid, if it made one.
    pub fn bid_of(&self, seat: i32) -> Option<i32> {
        self.bid_of
            .iter()
            .find(|(s, _)| *s == seat)
            .map(|(_, v)| *v)
    }

    /// The line and column of the card played at `pos` in trick `trick` (1-based), for a finding
    /// about it (the hand's line when the record does not say).
    pub fn play_at(&self, trick: usize, pos: usize) -> (u32, u32) {
        let at = trick.saturating_sub(1);
        let line = self.trick_lines.get(at).copied().unwrap_or(self.line);
        let col = self
            .play_cols
            .get(at)
            .and_then(|c| c.get(pos))
            .copied()
            .unwrap_or(1);
        (line, col)
    }

    /// The suit written with `seat`'s pitch (-1: none).
    pub fn pitch_suit(&self, seat: i32) -> i32 {
        self.pitch_suits
            .iter()
            .rev()
            .find(|(s, _)| *s == seat)
            .map_or(-1, |(_, v)| *v)
    }

    /// What every seat held as each trick began, computed once for the hand.
    pub fn holdings(&self, seats: usize) -> Holdings {
        let t = self.cards.len();
        let mut played = vec![0 as CardMask; t * seats];
        for (ti, (cs, ss)) in self.cards.iter().zip(&self.seats).enumerate() {
            for (c, s) in cs.iter().zip(ss) {
                if let Some(m) = usize::try_from(*s)
                    .ok()
                    .filter(|&s| s < seats)
                    .and_then(|s| played.get_mut(ti * seats + s))
                {
                    *m |= c.bit();
                }
            }
        }
        // before[t]: played in tricks before t; after[t]: played in t and later
        let mut before = vec![0 as CardMask; (t + 1) * seats];
        let mut after = vec![0 as CardMask; (t + 1) * seats];
        for ti in 0..t {
            for s in 0..seats {
                let p = played.get(ti * seats + s).copied().unwrap_or(0);
                let b = before.get(ti * seats + s).copied().unwrap_or(0);
                if let Some(x) = before.get_mut((ti + 1) * seats + s) {
                    *x = b | p;
                }
            }
        }
        for ti in (0..t).rev() {
            for s in 0..seats {
                let p = played.get(ti * seats + s).copied().unwrap_or(0);
                let a = after.get((ti + 1) * seats + s).copied().unwrap_or(0);
                if let Some(x) = after.get_mut(ti * seats + s) {
                    *x = a | p;
                }
            }
        }
        Holdings {
            seats,
            before,
            after,
            dealt: self.dealt.clone(),
        }
    }

    /// What each seat holds as each trick begins, for a walk through the tricks in order (see
    /// [`HeldWalk`]).
    pub fn walk_holdings(&self, seats: usize) -> HeldWalk {
        let mut all: Row<CardMask> = smallvec::smallvec![0; seats];
        let (mut plays, mut seen) = (0u32, 0 as CardMask);
        for (cs, ss) in self.cards.iter().zip(&self.seats) {
            for (c, &s) in cs.iter().zip(ss) {
                plays += 1;
                seen |= c.bit();
                if let Some(m) = usize::try_from(s).ok().and_then(|s| all.get_mut(s)) {
                    *m |= c.bit();
                }
            }
        }
        if seen.count_ones() != plays {
            return HeldWalk::Table(self.holdings(seats));
        }
        for (m, d) in all.iter_mut().zip(&self.dealt) {
            *m |= d;
        }
        HeldWalk::Running(all)
    }

    /// The cards `seat` held as trick `trick` (0-based) began: still to play, or dealt and not yet
    /// played (for one question; [`Prepared::holdings`] answers every seat and trick at once).
    pub fn held_before(&self, seat: i32, trick: usize) -> CardMask {
        self.holdings(self.dealt.len()).held(seat, trick)
    }

    fn push(&mut self, f: Finding) {
        if f.code().as_str().starts_with('A') {
            self.auction_faulted = true;
        }
        crate::findings::push_folded(&mut self.findings, f);
    }
}

/// What every seat held as each trick of a hand began (see [`Prepared::holdings`]).
#[derive(Clone, Debug)]
pub struct Holdings {
    seats: usize,
    before: Vec<CardMask>,
    after: Vec<CardMask>,
    dealt: Vec<CardMask>,
}

impl Holdings {
    /// The cards `seat` held as trick `trick` (0-based) began.
    #[inline]
    pub fn held(&self, seat: i32, trick: usize) -> CardMask {
        let Some(s) = usize::try_from(seat).ok().filter(|&s| s < self.seats) else {
            return 0;
        };
        let i = trick.min(self.before.len() / self.seats.max(1) - 1) * self.seats + s;
        let before = self.before.get(i).copied().unwrap_or(0);
        let after = self.after.get(i).copied().unwrap_or(0);
        after | (self.dealt.get(s).copied().unwrap_or(0) & !before)
    }
}

/// What each seat holds as each trick begins, asked trick by trick in order (as a replay does).
///
/// Where no card is played twice (every sound record) that is what the seat was dealt or plays,
/// less what it has played so far: one mask per seat, kept up as each trick is played, and no
/// table. A record with a card played twice asks the whole table ([`Holdings`]), which also
/// answers for the card played again.
#[derive(Clone, Debug)]
pub enum HeldWalk {
    /// Per seat, what it holds now.
    Running(Row<CardMask>),
    /// Every seat and trick at once.
    Table(Holdings),
}

impl HeldWalk {
    /// The cards `seat` held as trick `trick` (0-based) began; `trick` is the trick the walk is at.
    #[inline]
    pub fn held(&self, seat: i32, trick: usize) -> CardMask {
        match self {
            HeldWalk::Table(h) => h.held(seat, trick),
            HeldWalk::Running(now) => usize::try_from(seat)
                .ok()
                .and_then(|s| now.get(s))
                .copied()
                .unwrap_or(0),
        }
    }

    /// The trick of `cards` played by `seats` is over: the walk moves to the next.
    #[inline]
    pub fn played(&mut self, cards: &[Card], seats: &[i32]) {
        if let HeldWalk::Running(now) = self {
            for (c, &s) in cards.iter().zip(seats) {
                if let Some(m) = usize::try_from(s).ok().and_then(|s| now.get_mut(s)) {
                    *m &= !c.bit();
                }
            }
        }
    }
}

/// The recomputed outcome of one hand, beside what the sheet says.
#[derive(Clone, Debug, Default)]
pub struct HandScore {
    pub status: Status,
    /// Recomputed (or thrown in / misdealt, scoring nothing).
    pub scored: bool,
    pub points: Option<points::Points>,
    pub contract_made: Option<bool>,
    pub smudge: bool,
    pub saved_by_revoke: bool,
    pub takeover: bool,
    /// Per side: points taken, hand score, running total (as the sheet keeps it).
    pub made: Vec<i32>,
    pub score: Vec<i32>,
    pub total: Vec<i32>,
    pub set_back: Vec<i32>,
    /// Revoking sides and their penalty.
    pub revokers: Vec<i32>,
    pub penalty: i32,
    /// Each revoke: trick (1-based index into the kept tricks), position, seat, card, and the cards it should have been.
    pub revoke_plays: Vec<RevokePlay>,
    /// Taker of each kept trick (-1: not known).
    pub winners: Vec<i32>,
    pub went_out: i32,
    pub moon_from: Option<i32>,
    /// The rule that decided a top-bid contract, in words naming its key (empty: none did).
    pub contract_rule: String,
    /// Why `went_out` won the game in this hand, naming the rule (empty: nobody went out).
    pub out_why: String,
}

/// One play that broke the follow rule.
#[derive(Clone, Debug)]
pub struct RevokePlay {
    pub trick: usize,
    pub pos: usize,
    pub seat: i32,
    pub card: Card,
    pub could: Vec<Card>,
}

/// How far a hand could be recomputed.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Status {
    Played,
    ThrownIn,
    Misdeal,
    #[default]
    Unplayable,
}

impl Status {
    /// The status as the tables write it.
    pub fn as_str(self) -> &'static str {
        match self {
            Status::Played => "played",
            Status::ThrownIn => "thrown-in",
            Status::Misdeal => "misdeal",
            Status::Unplayable => "unplayable",
        }
    }
}

/// Everything the audit learned about one game.
#[derive(Clone, Debug, Default)]
pub struct GameResult {
    pub findings: Vec<Finding>,
    pub preps: Vec<Prepared>,
    pub hands: Vec<HandScore>,
    /// Side that won, and the number of the hand it went out in.
    pub winner: i32,
    pub won_in_hand: Option<u32>,
    /// Per side, what the settlement pays (empty: no settlement).
    pub settlement: Vec<i32>,
    pub seats: Option<Seats>,
    pub cards_played: u64,
    /// The game was not audited: its shape or rules are wrong (already reported).
    pub audited: bool,
}

/// Players and Teams against the rule set (E107), and options this version cannot audit (E105).
pub fn check_game_shape(game: &Game, rules: &RuleSet) -> Vec<Finding> {
    let mut out = Vec::new();
    let line_of = |tag: &str| {
        game.tags
            .iter()
            .find(|t| t.name == tag)
            .map_or(game.line, |t| t.meta.line)
    };
    let players = players(game);
    let n = players.len();
    let crate::rules::keys::PlayerRange(lo, hi) = rules.players;
    let most = rules.max_seats();
    if n > 0 && !(lo as usize <= n && n <= hi as usize) {
        let (range, key) = if lo != hi {
            (format!("{lo}-{hi} players"), format!("{lo}-{hi}"))
        } else {
            (format!("{lo}"), format!("{lo}"))
        };
        out.push(Finding::new(
            E107::PlayerCount {
                seated: n,
                preset: rules.preset.clone(),
                range,
                key,
            },
            line_of("Players"),
            1,
        ));
    } else if n > most {
        out.push(Finding::new(
            E107::DeckTooSmall {
                seated: n,
                deck: rules.deck_size(),
                deal_size: rules.deal_size_for(n),
                most,
            },
            line_of("Players"),
            1,
        ));
    }
    if rules.partnership {
        let teams = parse_teams(game.tag("Teams").unwrap_or("")).0;
        let mut members: Vec<&String> = teams.iter().flat_map(|(_, ps)| ps).collect();
        members.sort();
        let mut seated: Vec<&String> = players.iter().collect();
        seated.sort();
        if teams.is_empty() {
            out.push(Finding::new(E107::NoTeamsTag {}, line_of("Rules"), 1));
        } else if members != seated {
            out.push(Finding::new(E107::TeamsMembers {}, line_of("Teams"), 1));
        } else if teams.iter().any(|(_, ps)| ps.len() != 2) || teams.len() < 2 {
            let sizes: Vec<String> = teams
                .iter()
                .map(|(t, ps)| format!("{t} has {}", ps.len()))
                .collect();
            out.push(Finding::new(
                E107::TeamSizes {
                    sizes: Listed(sizes),
                },
                line_of("Teams"),
                1,
            ));
        } else {
            let seat = |p: &String| players.iter().rposition(|q| q == p).unwrap_or(0) as i64;
            let k = teams.len() as i64;
            let bad: Vec<String> = teams
                .iter()
                .filter(|(_, ps)| {
                    ps.windows(2)
                        .any(|w| matches!(w, [a, b] if (seat(b) - seat(a)).rem_euclid(k) != 0))
                })
                .map(|(t, ps)| format!("{t}: {}", ps.join(" ")))
                .collect();
            if !bad.is_empty() {
                out.push(Finding::new(
                    E107::PartnersApart {
                        teams: Listed(bad),
                        seats: Spaced(players.clone()),
                    },
                    line_of("Teams"),
                    1,
                ));
            }
        }
    }
    for u in &rules.unsupported {
        out.push(Finding::new(
            E105::Unsupported { setting: u.clone() },
            line_of("Rules"),
            1,
        ));
    }
    out
}

/// Replay and score one game: the one entry point for one hand or a million.
pub fn audit_game(game: &Game, rules: &RuleSet) -> GameResult {
    let mut res = GameResult {
        winner: -1,
        ..GameResult::default()
    };
    res.findings = check_game_shape(game, rules);
    if !res.findings.is_empty() {
        return res; // seats the rules do not allow (E107): their number is bounded by the rules
    }
    let seats = Seats::new(game, rules);
    if seats.n == 0 {
        return res;
    }
    res.audited = true;
    let mut expected: Vec<i32> = Vec::new();
    res.preps.reserve(game.hands.len());
    res.hands.reserve(game.hands.len());
    for h in &game.hands {
        let prep = play::prepare_hand(h, game, &seats, rules, &expected);
        let step = if prep.thrown_in && rules.all_pass == crate::rules::AllPass::Redeal {
            0
        } else {
            1
        };
        // next: from the dealer the hand was judged with, or from the one written (after a slip)
        expected.clear();
        for d in [prep.dealer, prep.written_dealer] {
            if d >= 0 {
                let next = seats.after(d, step);
                if !expected.contains(&next) {
                    expected.push(next);
                }
            }
        }
        res.preps.push(prep);
    }
    sheet::score_game(game, rules, &seats, &mut res);
    res.seats = Some(seats);
    res
}

#[cfg(test)]
#[allow(clippy::indexing_slicing)]
mod tests {
    use super::*;
    use crate::simulate::tests::{PRESETS, preset, run};

    /// The record of `prep` changed as careless records are: a card moved to another seat, a
    /// card played twice, a seat no player has.
    fn damaged(prep: &Prepared) -> Vec<Prepared> {
        let mut out = vec![prep.clone()];
        if prep.cards.len() >= 2 && prep.cards[0].len() >= 2 && !prep.cards[1].is_empty() {
            let mut moved = prep.clone();
            moved.seats[1][0] = moved.seats[0][1];
            out.push(moved);
            let mut twice = prep.clone();
            twice.cards[1][0] = twice.cards[0][0];
            out.push(twice);
            let mut nobody = prep.clone();
            nobody.seats[0][0] = -1;
            nobody.seats[1][0] = 99;
            out.push(nobody);
        }
        out
    }

    #[test]
    fn a_walk_through_the_tricks_holds_what_the_table_of_holdings_holds() {
        let mut asked = 0;
        for name in PRESETS {
            let rules = preset(name);
            let (text, _) = run(&rules, 6, 5, 1, &[crate::simulate::Fault::Revoke]);
            let (games, _) = crate::notation::parser::parse_all(text.as_bytes(), "t");
            for g in &games {
                for prep in &audit_game(g, &rules).preps {
                    for v in damaged(prep) {
                        let n = v.dealt.len();
                        let table = v.holdings(n);
                        let mut walk = v.walk_holdings(n);
                        for t in 0..v.cards.len() {
                            for s in -1..=n as i32 {
                                assert_eq!(
                                    walk.held(s, t),
                                    table.held(s, t),
                                    "{name}: seat {s}, trick {t}"
                                );
                                asked += 1;
                            }
                            walk.played(&v.cards[t], &v.seats[t]);
                        }
                    }
                }
            }
        }
        assert!(asked > 10_000, "{asked} questions");
    }
}
