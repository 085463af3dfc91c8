//! The points of a hand: High, Low, Jack (Off-jack, jokers, Trey with the ten-point keys; the
//! Jick with `jick=on`), Game.

use super::Seats;
use super::play::Played;
use crate::cards::{Card, JOKER_HIGH, JOKER_LOW, off_jack};
use crate::rules::{Deck, GamePoint, Low, RuleSet};

/// One point of the hand: its name, the side that took it (-1: nobody), its worth, and why.
#[derive(Clone, Debug)]
pub struct Award {
    pub name: &'static str,
    pub side: i32,
    pub worth: i32,
    pub why: Why,
}

/// Why a point went where it did, put in words only when a message needs it.
#[derive(Clone, Copy, Debug)]
pub enum Why {
    /// High: the player who held the card.
    Held { holder: i32, card: Option<Card> },
    /// Low: who held it, and who took it when that is someone else.
    Low {
        holder: i32,
        card: Option<Card>,
        owner: i32,
    },
    /// A card taken in a trick (-1: not in play).
    Took { seat: i32, card: Card, trick: u32 },
    /// Game by count: the counts of every side.
    Counts { tie: bool },
}

/// Who took what in one played hand.
#[derive(Clone, Debug, Default)]
pub struct Points {
    pub awards: Vec<Award>,
    pub high_holder: i32,
    pub high_card: Option<Card>,
    pub low_holder: i32,
    pub low_card: Option<Card>,
    pub jack_taker: i32,
    pub jack_trick: Option<u32>,
    /// Per side: Game count and tricks taken.
    pub counts: Vec<i32>,
    pub tricks: Vec<i32>,
}

impl Points {
    /// Why award `a` went where it did, in words (`Ann took JS in trick 2`).
    pub fn why(&self, a: &Award, seats: &Seats) -> String {
        match a.why {
            Why::Held { holder, card } => {
                format!("{} held {}", seats.name(holder), card_name(card))
            }
            Why::Low {
                holder,
                card,
                owner,
            } => {
                let mut out = format!("{} held {}", seats.name(holder), card_name(card));
                if owner != holder {
                    out.push_str(&format!(", {} took it", seats.name(owner)));
                }
                out
            }
            Why::Took { seat, card, trick } if seat >= 0 => {
                format!("{} took {} in trick {trick}", seats.name(seat), card.name())
            }
            Why::Took { card, .. } => format!("{} not in play", card.name()),
            Why::Counts { tie } => {
                let mut order: Vec<(usize, i32)> =
                    self.counts.iter().copied().enumerate().collect();
                order.sort_by_key(|&(_, c)| -c);
                let cs: Vec<String> = order
                    .iter()
                    .map(|&(i, c)| {
                        format!("{} {c}", seats.side_names.get(i).map_or("", String::as_str))
                    })
                    .collect();
                let mut why = cs.join(", ");
                if tie {
                    why.push_str(", a tie: nobody");
                }
                why
            }
        }
    }

    /// The side that took the point called `name` (-1: nobody, or not in play).
    pub fn owner(&self, name: &str) -> i32 {
        self.awards
            .iter()
            .find(|a| a.name == name)
            .map_or(-1, |a| a.side)
    }

    /// Per side, the points taken.
    pub fn made(&self, sides: usize) -> Vec<i32> {
        let mut made = vec![0; sides];
        for a in &self.awards {
            if let Some(m) = usize::try_from(a.side).ok().and_then(|s| made.get_mut(s)) {
                *m += a.worth;
            }
        }
        made
    }
}

fn card_name(c: Option<Card>) -> &'static str {
    c.map_or("none", Card::name)
}

/// The points won by taking a card in a trick, in counting order: (name, card, worth). Jack, then
/// the off-jack and jokers (`deck=54`) or the Jick (`jick=on`), the Trey (`trey=on`), and Game
/// when it is the ten of trumps (`game_point=ten`). High, Low and Game by count are not here:
/// they go by who held a card, or by the count, not by one card taken.
pub fn captured_points(
    rules: &RuleSet,
    trump: u8,
) -> smallvec::SmallVec<[(&'static str, Card, i32); 8]> {
    let mut out = smallvec::SmallVec::new();
    out.push(("Jack", Card::of(9, trump), 1));
    match rules.deck {
        Deck::Jokers => {
            out.push(("Off-jack", off_jack(trump), 1));
            out.push(("High joker", JOKER_HIGH, 1));
            out.push(("Low joker", JOKER_LOW, 1));
        }
        Deck::Jick => out.push(("Jick", off_jack(trump), 1)),
        Deck::Plain => {}
    }
    if rules.trey {
        out.push(("Trey", Card::of(1, trump), 3));
    }
    if rules.game_point == GamePoint::Ten {
        out.push(("Game", Card::of(8, trump), 1));
    }
    out
}

/// The points of a hand whose tricks `played` shows, with trump `trump` (0-3).
pub fn count_points(played: &Played, rules: &RuleSet, seats: &Seats, trump: u8) -> Points {
    let sides = seats.side_names.len();
    let mut pts = Points {
        counts: vec![0; sides],
        tricks: vec![0; sides],
        // High, Low, Jack, Game, and the ten-point presets' Off-jack, jokers and Three
        awards: Vec::with_capacity(8),
        ..Points::default()
    };
    for s in 0..seats.n {
        if let Some(side) = usize::try_from(seats.side(s as i32))
            .ok()
            .filter(|&x| x < sides)
        {
            if let (Some(c), Some(t)) = (pts.counts.get_mut(side), pts.tricks.get_mut(side)) {
                *c += played.counts.get(s).copied().unwrap_or(0);
                *t += played.tricks_won.get(s).copied().unwrap_or(0);
            }
        }
    }
    let (hi, hi_card, _) = played.high.unwrap_or((-1, JOKER_LOW, -1));
    let (lo, lo_card, lo_taker) = played.low.unwrap_or((-1, JOKER_LOW, -1));
    pts.high_holder = hi;
    pts.high_card = played.high.map(|_| hi_card);
    pts.low_holder = lo;
    pts.low_card = played.low.map(|_| lo_card);
    let low_owner = if rules.low == Low::Holder {
        lo
    } else {
        lo_taker
    };
    let taken = |card: Card, name: &'static str, worth: i32| {
        let slot = usize::from(card.index());
        let seat = played.card_taker.get(slot).copied().unwrap_or(-1);
        let why = Why::Took {
            seat,
            card,
            trick: played.card_trick.get(slot).copied().unwrap_or(0),
        };
        Award {
            name,
            side: seats.side(seat).max(-1),
            worth,
            why,
        }
    };
    let low_why = Why::Low {
        holder: lo,
        card: pts.low_card,
        owner: low_owner,
    };
    let side_of = |seat: i32| if seat >= 0 { seats.side(seat) } else { -1 };
    pts.awards.push(Award {
        name: "High",
        side: side_of(hi),
        worth: 1,
        why: Why::Held {
            holder: hi,
            card: pts.high_card,
        },
    });
    pts.awards.push(Award {
        name: "Low",
        side: side_of(low_owner),
        worth: 1,
        why: low_why,
    });
    let jack = Card::of(9, trump);
    let captures = captured_points(rules, trump);
    for &(name, card, worth) in captures.iter().filter(|c| c.0 != "Game") {
        pts.awards.push(taken(card, name, worth));
    }
    let game_award = if let Some(&(name, card, worth)) = captures.iter().find(|c| c.0 == "Game") {
        taken(card, name, worth)
    } else {
        let best = pts.counts.iter().copied().max().unwrap_or(0);
        let unique = pts.counts.iter().filter(|&&c| c == best).count() == 1;
        let side = if unique {
            pts.counts
                .iter()
                .position(|&c| c == best)
                .map_or(-1, |i| i as i32)
        } else {
            -1
        };
        let why = Why::Counts { tie: side < 0 };
        Award {
            name: "Game",
            side,
            worth: 1,
            why,
        }
    };
    pts.awards.push(game_award);
    let js = usize::from(jack.index());
    pts.jack_taker = played.card_taker.get(js).copied().unwrap_or(-1);
    pts.jack_trick = played.card_trick.get(js).copied().filter(|&t| t > 0);
    pts
}
