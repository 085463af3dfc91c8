//! Every rule key declared once: its name, its type, its range, its meaning, and its field of
//! [`Settings`]. A key's type says how its value is read from a `Rules` tag (or the presets
//! file, or a house preset), how it is written back, and what `auditor rules` shows of it.
//!
//! Adding a key: one line in [`rule_keys!`] below, its value in every preset of
//! `auditor/presets.toml`, the phase of the engine that applies it, docs/rules.md, and a golden
//! case (docs/rules.md says so under "Adding a rule key").

use super::{
    AllPass, Auction, DeckSize, Discard, FirstTrickTrump, Follow, GamePoint, GoingOut, Leftover,
    Low, Revoke, Settlement, Smudge, Teams,
};
use crate::findings::Value;
use crate::text::py_repr;

/// A type a rule key's value may have.
pub trait KeyType: Sized + Clone {
    /// What `auditor rules` calls the type: `int`, `bool`, `choice`, `range` ...
    const KIND: &'static str;

    /// The value written `text`, for the key `key` ranged `bounds`; the message says why not.
    fn read(key: &str, text: &str, bounds: (i64, i64)) -> Result<Self, String>;

    /// The value as a `Rules` tag writes it.
    fn format(&self) -> String;

    /// The value as Python and JSON see it.
    fn value(&self) -> Value;

    /// The words a choice takes (none for other types).
    fn choices() -> Vec<&'static str> {
        Vec::new()
    }
}

/// User text quoted for a message, cut short when long.
fn shown(text: &str) -> String {
    match text.char_indices().nth(40) {
        Some((cut, _)) => format!("{}...", text.get(..cut).unwrap_or("")),
        None => text.to_string(),
    }
}

/// A whole number of a key's value, in ASCII digits and within `lo..=hi`.
fn number(key: &str, text: &str, what: &str, lo: i64, hi: i64) -> Result<i64, String> {
    let show = shown(text);
    if text.is_empty() || !text.bytes().all(|b| b.is_ascii_digit()) {
        return Err(format!("{key} takes {what}, not {}", py_repr(&show)));
    }
    let value = if text.len() <= 12 {
        text.parse::<i64>().unwrap_or(hi.saturating_add(1))
    } else {
        hi.saturating_add(1)
    };
    if !(lo <= value && value <= hi) {
        return Err(format!("{key}: {show} is out of range ({lo} to {hi})"));
    }
    Ok(value)
}

impl KeyType for i32 {
    const KIND: &'static str = "int";

    fn read(key: &str, text: &str, (lo, hi): (i64, i64)) -> Result<i32, String> {
        number(key, text, "a whole number", lo, hi).map(|n| i32::try_from(n).unwrap_or(i32::MAX))
    }

    fn format(&self) -> String {
        self.to_string()
    }

    fn value(&self) -> Value {
        Value::Int(i64::from(*self))
    }
}

impl KeyType for u32 {
    const KIND: &'static str = "int";

    fn read(key: &str, text: &str, (lo, hi): (i64, i64)) -> Result<u32, String> {
        number(key, text, "a whole number", lo, hi).map(|n| u32::try_from(n).unwrap_or(u32::MAX))
    }

    fn format(&self) -> String {
        self.to_string()
    }

    fn value(&self) -> Value {
        Value::Int(i64::from(*self))
    }
}

impl KeyType for bool {
    const KIND: &'static str = "bool";

    fn read(key: &str, text: &str, _: (i64, i64)) -> Result<bool, String> {
        match text.to_lowercase().as_str() {
            "on" | "yes" | "true" | "1" => Ok(true),
            "off" | "no" | "false" | "0" => Ok(false),
            _ => Err(format!("{key} takes on or off, not {}", py_repr(text))),
        }
    }

    fn format(&self) -> String {
        if *self { "on" } else { "off" }.to_string()
    }

    fn value(&self) -> Value {
        Value::Bool(*self)
    }
}

/// How many players a rule set seats: `N`, or `MIN-MAX`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PlayerRange(pub u32, pub u32);

impl KeyType for PlayerRange {
    const KIND: &'static str = "range";

    fn read(key: &str, text: &str, (lo, hi): (i64, i64)) -> Result<PlayerRange, String> {
        let what = "N or MIN-MAX";
        let (a, b) = text.split_once('-').unwrap_or((text, ""));
        let low = number(key, a, what, lo, hi)?;
        let high = if b.is_empty() {
            low
        } else {
            number(key, b, what, low, hi)?
        };
        Ok(PlayerRange(
            u32::try_from(low).unwrap_or(0),
            u32::try_from(high).unwrap_or(0),
        ))
    }

    fn format(&self) -> String {
        if self.0 == self.1 {
            self.0.to_string()
        } else {
            format!("{}-{}", self.0, self.1)
        }
    }

    fn value(&self) -> Value {
        Value::List(vec![
            Value::Int(i64::from(self.0)),
            Value::Int(i64::from(self.1)),
        ])
    }
}

/// The highest bid: a number, or `all` (0 here), the points in play.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BidLimit(pub i32);

impl KeyType for BidLimit {
    const KIND: &'static str = "bid";

    fn read(key: &str, text: &str, (lo, hi): (i64, i64)) -> Result<BidLimit, String> {
        if text == "all" {
            return Ok(BidLimit(0));
        }
        number(key, text, "a whole number or `all`", lo, hi)
            .map(|n| BidLimit(i32::try_from(n).unwrap_or(0)))
    }

    fn format(&self) -> String {
        if self.0 == 0 {
            "all".to_string()
        } else {
            self.0.to_string()
        }
    }

    fn value(&self) -> Value {
        Value::Int(i64::from(self.0))
    }
}

/// Words, comma-separated (`smudge,moon`).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Words(pub Vec<String>);

impl KeyType for Words {
    const KIND: &'static str = "words";

    fn read(key: &str, text: &str, _: (i64, i64)) -> Result<Words, String> {
        let words: Vec<String> = text
            .to_lowercase()
            .split(',')
            .filter(|w| !w.is_empty())
            .map(str::to_string)
            .collect();
        if !words.iter().all(|w| w.chars().all(char::is_alphabetic)) {
            return Err(format!(
                "{key} takes comma-separated words, not {}",
                py_repr(text)
            ));
        }
        Ok(Words(words))
    }

    fn format(&self) -> String {
        self.0.join(",")
    }

    fn value(&self) -> Value {
        Value::List(self.0.iter().map(|w| Value::Text(w.clone())).collect())
    }
}

/// Cards dealt to each player: a number, then `N:number` for N players (`9,6:8`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DealSize(pub u32, pub Vec<(u32, u32)>);

impl DealSize {
    /// Cards dealt to each of `players`.
    pub fn for_players(&self, players: usize) -> u32 {
        self.1
            .iter()
            .find(|(n, _)| *n as usize == players)
            .map_or(self.0, |(_, v)| *v)
    }
}

impl KeyType for DealSize {
    const KIND: &'static str = "by-players";

    fn read(key: &str, text: &str, (lo, hi): (i64, i64)) -> Result<DealSize, String> {
        let what = "a number then N:number pairs (`9,6:8`)";
        let mut parts = text.split(',');
        let head = number(key, parts.next().unwrap_or(""), what, lo, hi)?;
        let (plo, phi) = PLAYERS_BOUNDS;
        let mut pairs = Vec::new();
        for part in parts {
            let Some((n, v)) = part.split_once(':') else {
                return Err(format!("{key} takes {what}, not {}", py_repr(text)));
            };
            let n = number("players", n, what, plo, phi)?;
            let v = number(key, v, what, lo, hi)?;
            pairs.push((u32::try_from(n).unwrap_or(0), u32::try_from(v).unwrap_or(0)));
        }
        Ok(DealSize(u32::try_from(head).unwrap_or(0), pairs))
    }

    fn format(&self) -> String {
        let mut out = self.0.to_string();
        for (n, v) in &self.1 {
            out.push_str(&format!(",{n}:{v}"));
        }
        out
    }

    fn value(&self) -> Value {
        Value::Text(self.format())
    }
}

macro_rules! choice_keys {
    ($($ty:ident),*) => {
        $(impl KeyType for $ty {
            const KIND: &'static str = "choice";

            fn read(key: &str, text: &str, _: (i64, i64)) -> Result<$ty, String> {
                $ty::ALL.iter().find(|(w, _)| *w == text).map(|(_, v)| *v).ok_or_else(|| {
                    let words: Vec<&str> = $ty::ALL.iter().map(|(w, _)| *w).collect();
                    format!("{key} takes one of {}, not {}", words.join(", "), py_repr(text))
                })
            }

            fn format(&self) -> String {
                self.word().to_string()
            }

            fn value(&self) -> Value {
                Value::Text(self.word().to_string())
            }

            fn choices() -> Vec<&'static str> {
                $ty::ALL.iter().map(|(w, _)| *w).collect()
            }
        })*
    };
}

choice_keys!(
    Teams,
    DeckSize,
    Auction,
    AllPass,
    Low,
    Follow,
    GoingOut,
    Smudge,
    GamePoint,
    Revoke,
    Settlement,
    Discard,
    Leftover,
    FirstTrickTrump
);

/// One key of the catalogue.
#[derive(Clone, Debug)]
pub struct KeyInfo {
    pub name: &'static str,
    pub meaning: &'static str,
    /// `int`, `bool`, `choice`, `range`, `bid`, `words` or `by-players`.
    pub kind: &'static str,
    /// The words a choice takes.
    pub choices: Vec<&'static str>,
    /// The range of every number in the value.
    pub bounds: Option<(i64, i64)>,
}

/// The range of a number of players.
const PLAYERS_BOUNDS: (i64, i64) = (2, 10);
/// Numbers without a range of their own.
const ANY: (i64, i64) = (0, 1_000_000);

/// The rule keys: name, type, range, meaning. From these come [`Settings`], its reading and
/// writing by key, and the catalogue [`KEYS`] that `auditor rules` and the docs show.
macro_rules! rule_keys {
    ($($name:ident : $ty:ty $([$lo:expr, $hi:expr])? => $meaning:expr,)*) => {
        /// Every rule key's value: one preset, or one game's rule set.
        #[derive(Clone, Debug, PartialEq, Eq)]
        pub struct Settings {
            $(#[doc = $meaning] pub $name: $ty,)*
        }

        impl Settings {
            /// Set the key `key` from `text`: `Ok(false)` for an unknown key, `Err` for a value
            /// it does not take.
            pub fn set(&mut self, key: &str, text: &str) -> Result<bool, String> {
                match key {
                    $(stringify!($name) => {
                        let bounds = rule_keys!(@bounds $($lo, $hi)?);
                        self.$name = <$ty as KeyType>::read(key, text, bounds)?;
                        Ok(true)
                    })*
                    _ => Ok(false),
                }
            }

            /// The key's value as a `Rules` tag writes it (None for an unknown key).
            pub fn format(&self, key: &str) -> Option<String> {
                match key {
                    $(stringify!($name) => Some(KeyType::format(&self.$name)),)*
                    _ => None,
                }
            }

            /// The key's value as Python sees it (None for an unknown key).
            pub fn value(&self, key: &str) -> Option<Value> {
                match key {
                    $(stringify!($name) => Some(KeyType::value(&self.$name)),)*
                    _ => None,
                }
            }
        }

        /// Every key, in the order the docs and `auditor rules` list them.
        pub static KEYS: std::sync::LazyLock<Vec<KeyInfo>> = std::sync::LazyLock::new(|| vec![
            $(KeyInfo {
                name: stringify!($name),
                meaning: $meaning,
                kind: <$ty as KeyType>::KIND,
                choices: <$ty as KeyType>::choices(),
                bounds: rule_keys!(@opt $($lo, $hi)?),
            },)*
        ]);

        impl Settings {
            /// Settings read key by key from `text_of` (a preset's table): every key must be there.
            pub(super) fn from_texts(
                text_of: impl Fn(&str) -> Option<String>,
            ) -> Result<Settings, String> {
                Ok(Settings {
                    $($name: {
                        let key = stringify!($name);
                        let text = text_of(key).ok_or_else(|| format!("no value for the key {key}"))?;
                        <$ty as KeyType>::read(key, &text, rule_keys!(@bounds $($lo, $hi)?))?
                    },)*
                })
            }
        }
    };
    (@bounds $lo:expr, $hi:expr) => { ($lo, $hi) };
    (@bounds) => { ANY };
    (@opt $lo:expr, $hi:expr) => { Some(($lo, $hi)) };
    (@opt) => { None };
}

rule_keys! {
    players: PlayerRange [PLAYERS_BOUNDS.0, PLAYERS_BOUNDS.1]
        => "allowed number of players, as N or MIN-MAX",
    teams: Teams
        => "`none`: everyone alone; `partners`: teams of two, partners seated alternately (Teams tag)",
    hand_size: u32 [1, 13]
        => "cards each player holds for the play (after any discard): the number of tricks",
    deal_size: DealSize [1, 18]
        => "cards dealt to each player: a number, then `N:number` for N players (`9,6:8`: nine, eight with six players); more than `hand_size` means a discard down to `hand_size` after trump is named",
    deck: DeckSize
        => "`52`: ace high, no jokers; `54`: two jokers, and the off-jack (jack of trump's colour) and both jokers are trumps, ranked A K Q J off-J JKH JKL T ... 2",
    jick: bool
        => "the jick (the jack of trump's colour) is a trump ranked just below the jack, A K Q J jick T ... 2, belongs to the trump suit for following and for every point, and is a point to whoever takes it; `deck=54` always has it (as the off-jack), and a `deck=` override without `jick=` sets it to match",
    min_bid: i32 [0, 99]
        => "lowest bid allowed",
    max_bid: BidLimit [1, 99]
        => "highest bid allowed (`all`: the points in play); the top-bid words below mean this number",
    top_bid_words: Words
        => "words that name the top bid, comma-separated (`smudge`, `moon`, `slam`)",
    auction: Auction
        => "`once-round`: each player bids once, clockwise from the dealer's left, dealer last; `sell`: bidding from the eldest hand's left, the eldest hand then `sells` or `keeps`",
    dealer_steal: bool
        => "the dealer may take the contract by equalling the high bid",
    steal_smudge: bool
        => "the dealer's steal may equal a top bid (smudge) too",
    all_pass: AllPass
        => "when nobody bids: `eldest-pitches` (no contract), `redeal` (thrown in, same dealer deals again), `dealer-bids` (the dealer must bid at least the minimum), `dealer-set-back` (the hand is not played and the dealer's side is set back `min_bid`)",
    sold_contract: bool
        => "selling auction: the buyer must make the bid or be set back (Commercial Pitch)",
    low: Low
        => "Low goes to the `holder` of the lowest trump or to the `taker` of its trick",
    follow: Follow
        => "`follow-or-trump`: holding the suit led, follow it or trump, and void, anything; `strict`: holding the suit led, follow it, and void, trump if able; `free-when-void`: holding the suit led, follow it, and void, anything",
    trumps_only: bool
        => "only trumps may be played; a player without trumps drops out of the hand's play",
    game: i32 [1, 999]
        => "points needed to win the game",
    count_down: bool
        => "scores are kept as points still needed, counting down from `game` to 0",
    going_out: GoingOut
        => "who wins when several could reach the target in one hand: `pitcher-first` (the pitcher's points count first, then the others' in counting order, High, Low, Jack, ..., Game), `points-order` (sale points, then every point in counting order), `bidder-only` (only a side that made its bid this hand can win)",
    smudge: Smudge
        => "what a top bid means: `none` (an ordinary bid), `wins-game` (all four points win the game at once unless the smudger was in the hole), `all-tricks` (needs all four points and every trick; made +top bid, failed -top bid), `moon` (shooting the moon: made, the score jumps to `game`, or to 0 from below zero; failed, the side loses the game)",
    trey: bool
        => "the trey (3) of trumps is a point worth three, to whoever takes it",
    game_point: GamePoint
        => "`count`: Game to the side whose tricks count most; `ten`: to the taker of the ten of trumps",
    revoke: Revoke
        => "revoke penalty: the revoker scores nothing and is set back `bid` (the hand's contract) or `highest-bid` (the highest bid made in the hand)",
    settlement: Settlement
        => "`none`, or `club`: the winner collects 1 from each player on 1 or more and 2 from each player on 0 or less",
    draw: bool
        => "after trump is named and the discards made, the dealer refills every hand to `hand_size` from the stock",
    discard: Discard
        => "what the discard after trump throws: `non-trumps` (any non-trumps; a trump only as an excess over `hand_size`), `all-non-trumps` (every non-trump dealt must go)",
    leftover: Leftover
        => "`none`, or `bidder`: the stock left after the refill goes to the pitcher, who discards back to `hand_size`",
    pitching: bool
        => "a player may pitch in place of a bid (`NAME pitch` or `NAME pitch SUIT`), worth four; then only the dealer may take over, by pitching a new suit or by a top bid",
    double_loss: bool
        => "with pitching: a dealer who takes over a pitch and is set loses double",
    first_trick_trump: FirstTrickTrump
        => "`led`: the first card led names trump; `free`: a `trump` line names it and nobody may trump the first trick",
}

/// The key named `name`, if there is one.
pub fn key(name: &str) -> Option<&'static KeyInfo> {
    KEYS.iter().find(|k| k.name == name)
}

/// `key=value` settings this version of the auditor cannot audit yet: none today; a key
/// added before the engine applies every value of it lists the values it cannot here.
pub fn unsupported(_settings: &Settings) -> Vec<String> {
    Vec::new()
}

#[cfg(test)]
#[allow(clippy::panic, clippy::indexing_slicing)]
mod tests {
    use super::*;

    #[test]
    fn every_key_reads_back_what_it_writes() {
        let Ok(s) = crate::rules::preset("tenpoint").map(|r| r.settings) else {
            panic!("tenpoint is a preset")
        };
        for k in KEYS.iter() {
            let text = s.format(k.name).unwrap_or_default();
            let mut t = s.clone();
            assert_eq!(t.set(k.name, &text), Ok(true), "{}", k.name);
            assert_eq!(t, s, "{}={text}", k.name);
        }
    }

    #[test]
    fn a_value_out_of_range_or_of_the_wrong_type_says_why() {
        let Ok(mut s) = crate::rules::preset("auction").map(|r| r.settings) else {
            panic!("auction is a preset")
        };
        assert_eq!(
            s.set("game", "99999999999999999999999"),
            Err("game: 99999999999999999999999 is out of range (1 to 999)".to_string())
        );
        assert_eq!(
            s.set("low", "x"),
            Err("low takes one of holder, taker, not 'x'".to_string())
        );
        assert_eq!(
            s.set("pitching", "maybe"),
            Err("pitching takes on or off, not 'maybe'".to_string())
        );
        assert_eq!(
            s.set("players", "5-3")
                .map_err(|e| e.contains("out of range")),
            Err(true)
        );
        assert_eq!(s.set("nope", "1"), Ok(false));
    }
}
