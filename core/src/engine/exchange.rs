//! The deal, the widow, and the exchange after trump is named (discards and draws).

use super::{Finding, Prepared, Seats};
use crate::cards::{Card, CardMask, cards_of};
use crate::findings::deal::{D201, D202, D203, D206};
use crate::findings::{Listed, Spaced, WithPlayers};
use crate::notation::{ExchangeKind, Game, Hand};
use crate::rules::{Discard, RuleSet};

/// Who each card went to on the deal, widow and draw lines.
#[derive(Clone, Debug)]
pub struct Dealt {
    /// Per card: the seat it went to, [`WIDOW`], or [`NOBODY`].
    to: [i32; 54],
    /// The widow's cards (the stock a draw takes from).
    widow: CardMask,
}

/// Marks a card of the widow in [`Dealt`].
pub const WIDOW: i32 = -2;
const NOBODY: i32 = -1;

impl Dealt {
    /// Whether `card` was given to anyone (a card outside the deck is reported where it is first seen).
    pub fn reported_outside_deck(&self, card: Card) -> bool {
        self.get(card) != NOBODY
    }

    fn get(&self, card: Card) -> i32 {
        self.to
            .get(usize::from(card.index()))
            .copied()
            .unwrap_or(NOBODY)
    }

    fn set(&mut self, card: Card, who: i32) {
        if let Some(x) = self.to.get_mut(usize::from(card.index())) {
            *x = who;
        }
    }
}

/// D203: a card outside the deck (a joker, where the deck has 52 cards).
pub fn not_in_deck(c: Card, rules: &RuleSet, line: u32, column: u32) -> Finding {
    Finding::new(
        D203::NotInDeck {
            card: c,
            deck_size: rules.deck_size(),
            preset: rules.preset.clone(),
        },
        line,
        column,
    )
}

fn who_name(seats: &Seats, who: i32) -> String {
    if who == WIDOW {
        "the widow".into()
    } else {
        seats.name(who).to_string()
    }
}

/// Deal integrity: every card dealt once, each player the right number, the widow's size.
pub fn check_deal(
    h: &Hand,
    game: &Game,
    seats: &Seats,
    rules: &RuleSet,
    prep: &mut Prepared,
) -> Dealt {
    let n = seats.n;
    let mut seen = Dealt {
        to: [NOBODY; 54],
        widow: 0,
    };
    prep.dealt = vec![0; n];
    let deal_size = rules.deal_size_for(n);
    let take = |prep: &mut Prepared, seen: &mut Dealt, c: Card, who: i32, line: u32, col: u32| {
        let name = || who_name(seats, who);
        if !c.in_deck(rules.deck) {
            prep.push(not_in_deck(c, rules, line, col).about(name()));
            seen.set(c, who); // reported once, here
        } else if seen.get(c) != NOBODY {
            prep.push(
                Finding::new(
                    D201::DealtTwice {
                        card: c,
                        first: who_name(seats, seen.get(c)),
                        second: name(),
                    },
                    line,
                    col,
                )
                .about(name()),
            );
        } else {
            seen.set(c, who);
            if who == WIDOW {
                seen.widow |= c.bit();
            }
        }
    };
    if let Some(deal) = &h.deal {
        let line = deal.meta.line;
        for hold in &deal.holdings {
            let seat = seats.seat(hold.player);
            let Ok(s) = usize::try_from(seat) else {
                continue;
            };
            let who = game.name_of(hold.player);
            if prep.dealt.get(s).is_some_and(|&m| m != 0) {
                prep.push(
                    Finding::new(D201::HoldingTwice { player: who.into() }, line, hold.column)
                        .about(who),
                );
            }
            for (i, &c) in hold.cards.iter().enumerate() {
                let col = hold.columns.get(i).copied().unwrap_or(hold.column);
                take(prep, &mut seen, c, seat, line, col);
                if let Some(m) = prep.dealt.get_mut(s) {
                    *m |= c.bit();
                }
            }
            if deal.unreadable.contains(&hold.player) {
                if let Some(m) = prep.dealt.get_mut(s) {
                    *m = 0; // part of this holding could not be read: judge the plays alone
                }
                continue;
            }
            if hold.cards.len() != deal_size as usize {
                let players = (!rules.deal_size.1.is_empty()).then_some(n as u32);
                prep.push(
                    Finding::new(
                        D202::DealSize {
                            player: who.into(),
                            dealt: hold.cards.len(),
                            preset: rules.preset.clone(),
                            deal_size,
                            players: WithPlayers(players),
                            key: rules.deal_size_text(),
                        },
                        line,
                        hold.column,
                    )
                    .about(who),
                );
            }
        }
        let missing: Vec<String> = (0..n)
            .filter(|&s| {
                prep.dealt.get(s).is_some_and(|&m| m == 0)
                    && !deal
                        .holdings
                        .iter()
                        .any(|x| seats.seat(x.player) == s as i32)
            })
            .map(|s| seats.name(s as i32).to_string())
            .collect();
        if !missing.is_empty() && !deal.incomplete {
            let first = missing.first().cloned().unwrap_or_default();
            prep.push(
                Finding::new(
                    D202::NoCards {
                        players: Listed(missing),
                    },
                    line,
                    1,
                )
                .about(first),
            );
        }
    }
    if let Some(w) = &h.widow {
        for (i, &c) in w.cards.iter().enumerate() {
            take(
                prep,
                &mut seen,
                c,
                WIDOW,
                w.meta.line,
                w.columns.get(i).copied().unwrap_or(1),
            );
        }
        let stock = i64::from(rules.deck_size()) - n as i64 * i64::from(deal_size);
        if stock >= 0 && w.cards.len() as i64 != stock && rules.has_exchange(n) {
            prep.push(Finding::new(
                D202::WidowSize {
                    held: w.cards.len(),
                    deal_size,
                    players: n,
                    deck_size: rules.deck_size(),
                    stock,
                },
                w.meta.line,
                1,
            ));
        }
    }
    seen
}

/// The discard and draw after trump is named (D206, D201): what is thrown, what is drawn, what is kept.
///
/// A trump may be thrown only as an excess: after the discard its owner keeps exactly
/// `hand_size` cards, all trumps. `draw` refills each hand from the stock;
/// `leftover=bidder` gives what the stock still holds to the pitcher, who discards back
/// to `hand_size`. Holdings known from the deal line become the hands after the exchange,
/// so the play is judged on those.
pub fn exchange(
    h: &Hand,
    game: &Game,
    seats: &Seats,
    rules: &RuleSet,
    prep: &mut Prepared,
    dealt_to: &mut Dealt,
    trump_mask: CardMask,
) {
    prep.exchanged = true;
    let n = seats.n;
    let size = rules.hand_size;
    let known: Vec<bool> = prep.dealt.iter().map(|&m| m != 0).collect();
    let as_dealt = prep.dealt.clone();
    let excess_possible = rules.deal_size_for(n) > size || rules.leftover_to_bidder();
    let mut stock: Option<CardMask> = if dealt_to.widow != 0 {
        Some(dealt_to.widow)
    } else if n > 0 && known.iter().all(|&k| k) {
        let deck: CardMask = (1u64 << rules.deck_size()) - 1;
        Some(deck & !prep.dealt.iter().fold(0, |m, &d| m | d))
    } else {
        None
    };
    let mut drawn = vec![0u32; n];
    let mut before_draw = vec![-1i64; n];
    let mut own_line: Vec<Option<u32>> = vec![None; n];
    for x in &h.exchanges {
        let who = game.name_of(x.holding.player);
        let seat = seats.seat(x.holding.player);
        let Ok(s) = usize::try_from(seat) else {
            continue;
        };
        let is_known = known.get(s).copied().unwrap_or(false);
        if let Some(l) = own_line.get_mut(s) {
            *l = Some(x.meta.line);
        }
        let mut thrown_trumps: Vec<(Card, u32)> = Vec::new();
        if x.kind == ExchangeKind::Draw {
            if let (Some(b), Some(d)) = (before_draw.get_mut(s), prep.dealt.get(s)) {
                if *b < 0 {
                    *b = i64::from(d.count_ones());
                }
            }
            if let Some(d) = drawn.get_mut(s) {
                *d += x.holding.cards.len() as u32;
            }
        }
        for (i, &c) in x.holding.cards.iter().enumerate() {
            let col = x
                .holding
                .columns
                .get(i)
                .copied()
                .unwrap_or(x.holding.column);
            let held = prep.dealt.get(s).copied().unwrap_or(0);
            match x.kind {
                ExchangeKind::Discard => {
                    if is_known && held & c.bit() == 0 {
                        prep.push(
                            Finding::new(
                                D206::NotHeld {
                                    player: who.into(),
                                    card: c,
                                },
                                x.meta.line,
                                col,
                            )
                            .about(who),
                        );
                    } else if trump_mask & c.bit() != 0 {
                        thrown_trumps.push((c, col));
                    }
                    if let Some(m) = prep.dealt.get_mut(s) {
                        *m &= !c.bit();
                    }
                }
                ExchangeKind::Draw => {
                    if !c.in_deck(rules.deck) {
                        prep.push(not_in_deck(c, rules, x.meta.line, col).about(who));
                    } else if dealt_to.get(c) != NOBODY && dealt_to.get(c) != WIDOW {
                        prep.push(
                            Finding::new(
                                D201::DrawnTwice {
                                    card: c,
                                    player: who.into(),
                                    holder: who_name(seats, dealt_to.get(c)),
                                },
                                x.meta.line,
                                col,
                            )
                            .about(who),
                        );
                    }
                    dealt_to.set(c, seat);
                    if let Some(st) = stock.as_mut() {
                        *st &= !c.bit();
                    }
                    if is_known {
                        if let Some(m) = prep.dealt.get_mut(s) {
                            *m |= c.bit();
                        }
                    }
                }
            }
        }
        let left = prep.dealt.get(s).copied().unwrap_or(0);
        let all_trumps_kept = is_known && left & !trump_mask == 0 && left.count_ones() == size;
        if !thrown_trumps.is_empty() && (is_known || !excess_possible) && !all_trumps_kept {
            for (c, col) in thrown_trumps {
                let rule = if excess_possible {
                    format!(
                        "with discard=non-trumps a trump may be thrown only as an excess over {size} trumps (hand_size={size}; {who} keeps {} cards, {} of them not trumps)",
                        left.count_ones(),
                        (left & !trump_mask).count_ones()
                    )
                } else {
                    "with discard=non-trumps only non-trumps may be thrown".to_string()
                };
                prep.push(
                    Finding::new(
                        D206::TrumpDiscarded {
                            player: who.into(),
                            card: c,
                            rule,
                        },
                        x.meta.line,
                        col,
                    )
                    .about(who),
                );
            }
        }
    }
    let last = h.exchanges.last().map_or(h.meta.line, |x| x.meta.line);
    let p = prep.pitcher;
    // the stock counts as run out only if the refill emptied it, not the pitcher taking the leftover
    let took_leftover = rules.leftover_to_bidder()
        && usize::try_from(p).ok().is_some_and(|ps| {
            known.get(ps).copied().unwrap_or(false)
                && before_draw.get(ps).is_some_and(|&b| {
                    b >= 0 && i64::from(drawn.get(ps).copied().unwrap_or(0)) > i64::from(size) - b
                })
        });
    let ran_out = rules.draw && stock == Some(0) && !took_leftover;
    for (s, &k) in known.iter().enumerate() {
        if !k {
            continue;
        }
        let who = seats.name(s as i32);
        let at = own_line
            .get(s)
            .copied()
            .flatten()
            .unwrap_or_else(|| h.deal.as_ref().map_or(last, |d| d.meta.line));
        let now = prep.dealt.get(s).copied().unwrap_or(0);
        let kept = as_dealt.get(s).copied().unwrap_or(0) & !trump_mask & now;
        if rules.discard == Discard::AllNonTrumps && kept != 0 && trump_mask != 0 {
            prep.push(
                Finding::new(
                    D206::NonTrumpKept {
                        player: who.into(),
                        kept: Spaced(cards_of(kept).collect()),
                    },
                    at,
                    1,
                )
                .about(who),
            );
        }
        let held = now.count_ones();
        if held > size || (held < size && !ran_out) {
            let refill = if rules.draw {
                "with draw=on the dealer refills every hand to"
            } else {
                "everyone discards down to"
            };
            prep.push(
                Finding::new(
                    D206::WrongCount {
                        player: who.into(),
                        held,
                        and_draw: if rules.draw { " and draw" } else { "" },
                        refill,
                        size,
                    },
                    at,
                    1,
                )
                .about(who),
            );
        }
    }
    if let Some(st) = stock.filter(|&m| m != 0) {
        if rules.leftover_to_bidder() && prep.pitcher >= 0 && !h.exchanges.is_empty() {
            let bidder = seats.name(prep.pitcher);
            let rest = Spaced(cards_of(st).collect());
            let when = if rules.draw {
                "after the refill"
            } else {
                "after the discard"
            };
            prep.push(
                Finding::new(
                    D206::LeftoverNotDrawn {
                        rest,
                        when,
                        bidder: bidder.into(),
                    },
                    last,
                    1,
                )
                .about(bidder),
            );
        }
    }
}
