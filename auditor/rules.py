"""Rule presets as data: one frozen rule set, named presets, overrides by key.

Every rule the engine consults is a field of :class:`Rules`; a preset is one row of
values, and a game's ``[Rules "partnership game=11"]`` tag (or ``--rules`` on the
command line) overrides fields by key.  The engine never asks which preset it is
running, only what a key says.

>>> r = parse_rules("auction game=11")
>>> r.preset, r.game, r.low, r.dealer_steal
('auction', 11, 'holder', True)
>>> parse_rules("setback").max_bid, parse_rules("partnership").max_bid
(4, 5)
>>> parse_rules("bridge")
Traceback (most recent call last):
...
auditor.rules.RulesError: unknown preset 'bridge' (known: auction, sell, setback, partnership, cutthroat, tenpoint, tenpoint52, smear)
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, fields, replace
from difflib import get_close_matches
from typing import Any


class RulesError(ValueError):
    """A ``Rules`` text that names an unknown preset, key or value.

    ``offset`` is the 0-based position in the text of the offending word.
    """

    def __init__(self, message: str, offset: int = 0):
        super().__init__(message)
        self.offset = offset


@dataclass(frozen=True)
class Key:
    """One rule key: its name, meaning, and the values it accepts."""

    name: str
    meaning: str
    kind: str  # "int", "bool", or "choice"
    choices: tuple[str, ...] = ()
    supported: tuple[Any, ...] | None = None  # values this version can audit; None = all
    bounds: tuple[int, int] | None = None  # the range of every number in the value


#: The range of the number a bid word may be: a bigger one is no bid (A304), never a contract.
BID_NUMBER_MAX = 99


KEYS: tuple[Key, ...] = (
    Key("players", "allowed number of players, as N or MIN-MAX", "range", bounds=(2, 10)),
    Key("teams", "`none`: everyone alone; `partners`: teams of two, partners seated alternately (Teams tag)",
        "choice", ("none", "partners")),
    Key("hand_size", "cards each player holds for the play (after any discard): the number of tricks", "int", bounds=(1, 13)),
    Key("deal_size", "cards dealt to each player: a number, then `N:number` for N players (`9,6:8`: nine, eight "
        "with six players); more than `hand_size` means a discard down to `hand_size` after trump is named",
        "by-players", bounds=(1, 18)),
    Key("deck", "`52`: ace high, no jokers; `54`: two jokers, and the off-jack (jack of trump's colour) and both "
        "jokers are trumps, ranked A K Q J off-J JKH JKL T ... 2", "choice", ("52", "54")),
    Key("jick", "the jick (the jack of trump's colour) is a trump ranked just below the jack, A K Q J jick T ... 2, "
        "belongs to the trump suit for following and for every point, and is a point to whoever takes it; "
        "`deck=54` always has it (as the off-jack), and a `deck=` override without `jick=` sets it to match",
        "bool"),
    Key("min_bid", "lowest bid allowed", "int", bounds=(0, BID_NUMBER_MAX)),
    Key("max_bid", "highest bid allowed (`all`: the points in play); the top-bid words below mean this number",
        "bid", bounds=(1, BID_NUMBER_MAX)),
    Key("top_bid_words", "words that name the top bid, comma-separated (`smudge`, `moon`, `slam`)", "words"),
    Key("auction", "`once-round`: each player bids once, clockwise from the dealer's left, dealer last; "
        "`sell`: bidding from the eldest hand's left, the eldest hand then `sells` or `keeps`", "choice", ("once-round", "sell")),
    Key("dealer_steal", "the dealer may take the contract by equalling the high bid", "bool"),
    Key("steal_smudge", "the dealer's steal may equal a top bid (smudge) too", "bool"),
    Key("all_pass", "when nobody bids: `eldest-pitches` (no contract), `redeal` (thrown in, same dealer deals again), "
        "`dealer-bids` (the dealer must bid at least the minimum), `dealer-set-back` (the hand is not played and the "
        "dealer's side is set back `min_bid`)", "choice", ("eldest-pitches", "redeal", "dealer-bids", "dealer-set-back")),
    Key("sold_contract", "selling auction: the buyer must make the bid or be set back (Commercial Pitch)", "bool"),
    Key("low", "Low goes to the `holder` of the lowest trump or to the `taker` of its trick", "choice", ("holder", "taker")),
    Key("follow", "`follow-or-trump`: holding the suit led, follow it or trump, and void, anything; `strict`: "
        "holding the suit led, follow it, and void, trump if able; `free-when-void`: holding the suit led, follow "
        "it, and void, anything", "choice", ("follow-or-trump", "strict", "free-when-void")),
    Key("trumps_only", "only trumps may be played; a player without trumps drops out of the hand's play", "bool"),
    Key("game", "points needed to win the game", "int", bounds=(1, 999)),
    Key("count_down", "scores are kept as points still needed, counting down from `game` to 0", "bool"),
    Key("going_out", "who wins when several could reach the target in one hand: `pitcher-first` (the pitcher's "
        "points count first, then the others' in counting order, High, Low, Jack, ..., Game), `points-order` (sale "
        "points, then every point in counting order), "
        "`bidder-only` (only a side that made its bid this hand can win)", "choice",
        ("pitcher-first", "points-order", "bidder-only")),
    Key("smudge", "what a top bid means: `none` (an ordinary bid), `wins-game` (all four points win the game at once "
        "unless the smudger was in the hole), `all-tricks` (needs all four points and every trick; made +top bid, "
        "failed -top bid), `moon` (shooting the moon: made, the score jumps to `game`, or to 0 from below zero; "
        "failed, the side loses the game)", "choice", ("none", "wins-game", "all-tricks", "moon")),
    Key("trey", "the trey (3) of trumps is a point worth three, to whoever takes it", "bool"),
    Key("game_point", "`count`: Game to the side whose tricks count most; `ten`: to the taker of the ten of trumps",
        "choice", ("count", "ten")),
    Key("revoke", "revoke penalty: the revoker scores nothing and is set back `bid` (the hand's contract) or "
        "`highest-bid` (the highest bid made in the hand)", "choice", ("bid", "highest-bid")),
    Key("settlement", "`none`, or `club`: the winner collects 1 from each player on 1 or more and 2 from each "
        "player on 0 or less", "choice", ("none", "club")),
    Key("draw", "after trump is named and the discards made, the dealer refills every hand to `hand_size` from "
        "the stock", "bool"),
    Key("discard", "what the discard after trump throws: `non-trumps` (any non-trumps; a trump only as an excess "
        "over `hand_size`), `all-non-trumps` (every non-trump dealt must go)", "choice",
        ("non-trumps", "all-non-trumps")),
    Key("leftover", "`none`, or `bidder`: the stock left after the refill goes to the pitcher, who discards back "
        "to `hand_size`", "choice", ("none", "bidder")),
    Key("pitching", "a player may pitch in place of a bid (`NAME pitch` or `NAME pitch SUIT`), worth four; then "
        "only the dealer may take over, by pitching a new suit or by a top bid", "bool"),
    Key("double_loss", "with pitching: a dealer who takes over a pitch and is set loses double", "bool"),
    Key("first_trick_trump", "`led`: the first card led names trump; `free`: a `trump` line names it and nobody "
        "may trump the first trick", "choice", ("led", "free")),
)
KEY_BY_NAME = {k.name: k for k in KEYS}


@dataclass(frozen=True)
class Rules:
    """One complete rule set.  Build one with :func:`parse_rules` or :func:`preset`."""

    preset: str
    source: str
    players: tuple[int, int]
    teams: str
    hand_size: int
    deal_size: tuple[int, tuple[tuple[int, int], ...]]
    deck: str
    jick: bool
    min_bid: int
    max_bid: int
    top_bid_words: tuple[str, ...]
    auction: str
    dealer_steal: bool
    steal_smudge: bool
    all_pass: str
    sold_contract: bool
    low: str
    follow: str
    trumps_only: bool
    game: int
    count_down: bool
    going_out: str
    smudge: str
    trey: bool
    game_point: str
    revoke: str
    settlement: str
    draw: bool
    discard: str
    leftover: str
    pitching: bool
    double_loss: bool
    first_trick_trump: str

    @property
    def partnership(self) -> bool:
        """Whether points and scores belong to teams rather than players."""
        return self.teams == "partners"

    @property
    def ten_point(self) -> bool:
        """Whether the 54-card deck is used, with the off-jack and jokers as trumps."""
        return self.deck == "54"

    @property
    def deck_kind(self) -> str:
        """Which cards beyond the plain suits are trumps: ``plain``, ``jick`` (the jick, 52
        cards) or ``jokers`` (54 cards: the off-jack and both jokers).  The core's trump tables
        are keyed by it.

        >>> preset("partnership").deck_kind, preset("smear").deck_kind, preset("tenpoint").deck_kind
        ('plain', 'jick', 'jokers')
        """
        return "jokers" if self.deck == "54" else "jick" if self.jick else "plain"

    @property
    def point_names(self) -> tuple[str, ...]:
        """The points in play each hand, in counting order (High, Low, Jack, ..., Game).

        >>> preset("tenpoint").point_names
        ('High', 'Low', 'Jack', 'Off-jack', 'High joker', 'Low joker', 'Trey', 'Game')
        >>> preset("smear").point_names
        ('High', 'Low', 'Jack', 'Jick', 'Game')
        """
        extra = {"jokers": ("Off-jack", "High joker", "Low joker"), "jick": ("Jick",)}.get(self.deck_kind, ())
        return ("High", "Low", "Jack") + extra + (("Trey",) if self.trey else ()) + ("Game",)

    @property
    def points_in_play(self) -> int:
        """What all the points of a hand are worth together: 4, 7 or 10.

        >>> preset("tenpoint").points_in_play, parse_rules("tenpoint trey=off").points_in_play
        (10, 7)
        """
        return sum(3 if p == "Trey" else 1 for p in self.point_names)

    @property
    def top_bid(self) -> int:
        """The highest bid: ``max_bid``, or every point in play when ``max_bid=all``."""
        return self.max_bid or self.points_in_play

    def deal_size_for(self, players: int) -> int:
        """Cards dealt to each of ``players``.

        >>> preset("tenpoint").deal_size_for(4), preset("tenpoint").deal_size_for(6)
        (9, 8)
        """
        default, by_count = self.deal_size
        return dict(by_count).get(players, default)

    def has_exchange(self, players: int) -> bool:
        """Whether hands change after trump is named: a draw, or a deal larger than the hand played.

        >>> [preset(p).has_exchange(n) for p, n in (("tenpoint", 4), ("partnership", 4), ("partnership", 6))]
        [True, False, True]
        """
        return self.draw or self.deal_size_for(players) > self.hand_size

    def bid_value(self, word: str) -> int | None:
        """The number a bid word stands for; ``None`` for a word that is no bid.

        A number is read in ASCII digits up to :data:`BID_NUMBER_MAX`; a bigger one is no bid.

        >>> preset("setback").bid_value("moon"), preset("partnership").bid_value("smudge")
        (4, 5)
        >>> preset("auction").bid_value("32768") is None
        True
        """
        w = word.lower()
        if w in self.top_bid_words:
            return self.top_bid
        return bid_number(w)

    def to_text(self) -> str:
        """The shortest ``Rules`` tag text naming this rule set: preset then changed keys.

        >>> parse_rules("cutthroat game=11 low=holder").to_text()
        'cutthroat low=holder game=11'
        """
        base = PRESETS[self.preset]
        parts = [self.preset]
        for k in KEYS:
            v = getattr(self, k.name)
            if v != getattr(base, k.name):
                parts.append(f"{k.name}={format_value(k, v)}")
        return " ".join(parts)

    def as_dict(self) -> dict[str, str]:
        """Every key with its value as it would be written in a ``Rules`` tag."""
        return {k.name: format_value(k, getattr(self, k.name)) for k in KEYS}

    def unsupported(self) -> list[str]:
        """``key=value`` settings this version of the auditor cannot audit yet."""
        out = []
        for k in KEYS:
            v = getattr(self, k.name)
            if k.supported is not None and v not in k.supported:
                out.append(f"{k.name}={format_value(k, v)}")
        return out


def bid_number(word: str) -> int | None:
    """The number a bid word is, when it is one within range (ASCII digits, 0 to 99).

    >>> bid_number("3"), bid_number("100"), bid_number("²"), bid_number("pass")
    (3, None, None, None)
    """
    if not (word.isascii() and word.isdigit()) or len(word) > 3:
        return None
    n = int(word)
    return n if n <= BID_NUMBER_MAX else None


def format_value(key: Key, value: Any) -> str:
    """A key's value as written in a ``Rules`` tag."""
    if key.kind == "bool":
        return "on" if value else "off"
    if key.kind == "range":
        lo, hi = value
        return str(lo) if lo == hi else f"{lo}-{hi}"
    if key.kind == "words":
        return ",".join(value)
    if key.kind == "bid":
        return str(value) if value else "all"
    if key.kind == "by-players":
        default, by_count = value
        return ",".join([str(default)] + [f"{n}:{v}" for n, v in by_count])
    return str(value)


def _number(key: Key, text: str, what: str, lo: int | None = None, hi: int | None = None) -> int:
    """A number of a key's value, in ASCII digits and within the key's range."""
    lo_, hi_ = key.bounds or (0, 10**6)
    lo, hi = lo_ if lo is None else lo, hi_ if hi is None else hi
    shown = text if len(text) <= 40 else text[:40] + "..."
    if not (text.isascii() and text.isdigit()):
        raise ValueError(f"{key.name} takes {what}, not {shown!r}")
    value = int(text) if len(text) <= 12 else hi + 1
    if not lo <= value <= hi:
        raise ValueError(f"{key.name}: {shown} is out of range ({lo} to {hi})")
    return value


def parse_value(key: Key, text: str) -> Any:
    """Read a key's value; raises ``ValueError`` with a message when it is not one.

    >>> parse_value(KEY_BY_NAME["game"], "99999999999999999999999")
    Traceback (most recent call last):
    ValueError: game: 99999999999999999999999 is out of range (1 to 999)
    """
    if key.kind == "int":
        return _number(key, text, "a whole number")
    if key.kind == "bool":
        if text.lower() in ("on", "yes", "true", "1"):
            return True
        if text.lower() in ("off", "no", "false", "0"):
            return False
        raise ValueError(f"{key.name} takes on or off, not {text!r}")
    if key.kind == "range":
        lo, _, hi = text.partition("-")
        low = _number(key, lo, "N or MIN-MAX")
        return (low, _number(key, hi, "N or MIN-MAX", lo=low) if hi else low)
    if key.kind == "bid":
        if text == "all":
            return 0
        return _number(key, text, "a whole number or `all`")
    if key.kind == "by-players":
        head, *rest = text.split(",")
        what = "a number then N:number pairs (`9,6:8`)"
        pairs = [r.partition(":") for r in rest]
        if any(not c for _, c, _ in pairs):
            raise ValueError(f"{key.name} takes {what}, not {text!r}")
        players = KEY_BY_NAME["players"]
        return (_number(key, head, what),
                tuple((_number(players, n, what), _number(key, v, what)) for n, _, v in pairs))
    if key.kind == "words":
        words = tuple(w for w in text.lower().split(",") if w)
        if not all(w.isalpha() for w in words):
            raise ValueError(f"{key.name} takes comma-separated words, not {text!r}")
        return words
    if text not in key.choices:
        raise ValueError(f"{key.name} takes one of {', '.join(key.choices)}, not {text!r}")
    return text


_COMMON = dict(
    teams="none", hand_size=6, deal_size=(6, ()), deck="52", jick=False, auction="once-round", sold_contract=True,
    follow="follow-or-trump", trumps_only=False, count_down=False, trey=False, game_point="count", revoke="bid",
    settlement="none", draw=False, discard="non-trumps", leftover="none", pitching=False, double_loss=False,
    first_trick_trump="led",
)
_TEN_POINT = dict(
    _COMMON, teams="partners", deal_size=(9, ((6, 8),)), deck="54", jick=True, players=(4, 6), max_bid=0, dealer_steal=False,
    steal_smudge=False, all_pass="dealer-bids", low="holder", going_out="bidder-only", trey=True, leftover="bidder",
)

PRESETS: dict[str, Rules] = {
    "auction": Rules(
        preset="auction", source="seeds 003, 004", players=(3, 7), min_bid=2, max_bid=4,
        top_bid_words=("smudge",), dealer_steal=True, steal_smudge=False, all_pass="eldest-pitches",
        low="holder", game=7, going_out="pitcher-first", smudge="wins-game", settlement="club",
        **{k: v for k, v in _COMMON.items() if k != "settlement"},
    ),
    "sell": Rules(
        preset="sell", source="seed 000", players=(4, 8), min_bid=1, max_bid=4, top_bid_words=(),
        dealer_steal=False, steal_smudge=False, all_pass="eldest-pitches", low="holder", game=10,
        going_out="points-order", smudge="none", revoke="highest-bid", count_down=True,
        **{k: v for k, v in _COMMON.items() if k not in ("auction", "revoke", "count_down")},
        auction="sell",
    ),
    "setback": Rules(
        preset="setback", source="seed 002", players=(3, 7), min_bid=1, max_bid=4,
        top_bid_words=("moon", "slam", "smudge"), dealer_steal=False, steal_smudge=False, all_pass="redeal",
        low="holder", game=7, going_out="pitcher-first", smudge="none", **_COMMON,
    ),
    "partnership": Rules(
        preset="partnership", source="seed 001", players=(4, 4), min_bid=2, max_bid=5,
        top_bid_words=("smudge",), dealer_steal=True, steal_smudge=True, all_pass="dealer-bids",
        low="taker", game=21, going_out="bidder-only", smudge="all-tricks",
        **{k: v for k, v in _COMMON.items() if k not in ("teams", "deal_size")}, teams="partners",
        deal_size=(6, ((6, 8),)),
    ),
    "cutthroat": Rules(
        preset="cutthroat", source="seed 001 (Cutthroat Pitch)", players=(2, 7), min_bid=2, max_bid=5,
        top_bid_words=("smudge",), dealer_steal=True, steal_smudge=True, all_pass="dealer-bids",
        low="taker", game=21, going_out="bidder-only", smudge="all-tricks", **_COMMON,
    ),
    "tenpoint": Rules(
        preset="tenpoint", source="seed 001 (Ten-point Pitch, Oklahoma)", min_bid=2, top_bid_words=(), game=21,
        smudge="none", **_TEN_POINT,
    ),
    "tenpoint52": Rules(
        preset="tenpoint52", source="seed 001 (Ten-point Pitch, Oklahoma)", min_bid=4, top_bid_words=("moon",),
        game=52, smudge="moon", **{**_TEN_POINT, "trumps_only": True, "discard": "all-non-trumps", "draw": True},
    ),
    "smear": Rules(
        preset="smear", source="the Smear players' common rules (docs/rules.md, Smear)", players=(4, 4), min_bid=2,
        max_bid=5, top_bid_words=("smudge",), dealer_steal=False, steal_smudge=False, all_pass="dealer-set-back",
        low="holder", game=11, going_out="pitcher-first", smudge="none",
        **{**_COMMON, "teams": "partners", "jick": True},
    ),
}


def _did_you_mean(word: str, known: Iterable[str]) -> str:
    """`` (did you mean 'pass'?)`` when a known word is close to ``word``, else nothing.

    >>> _did_you_mean("partnersip", PRESETS), _did_you_mean("zzz", PRESETS)
    (" (did you mean 'partnership'?)", '')
    """
    close = get_close_matches(word, list(known), n=1, cutoff=0.75)
    return f" (did you mean {close[0]!r}?)" if close else ""


def preset(name: str) -> Rules:
    """The named preset, unchanged."""
    try:
        return PRESETS[name]
    except KeyError:
        raise RulesError(f"unknown preset {name!r}{_did_you_mean(name, PRESETS)} "
                         f"(known: {', '.join(PRESETS)})") from None


def with_overrides(rules: Rules, text: str, base_offset: int = 0) -> Rules:
    """``rules`` with the ``key=value`` words of ``text`` applied, in order."""
    changes: dict[str, Any] = {}
    pos = 0
    players_at = base_offset
    for word in text.split():
        at = text.index(word, pos)
        pos = at + len(word)
        name, eq, value = word.partition("=")
        if not eq:
            raise RulesError(f"expected key=value, found {word!r}", base_offset + at)
        key = KEY_BY_NAME.get(name)
        if key is None:
            raise RulesError(f"unknown rule key {name!r}{_did_you_mean(name, KEY_BY_NAME)} (see `auditor rules`)",
                             base_offset + at)
        try:
            changes[name] = parse_value(key, value)
        except ValueError as e:
            raise RulesError(str(e), base_offset + at + len(name) + 1) from None
        if name == "players":
            players_at = base_offset + at
    if not changes:
        return rules
    if "deck" in changes and "jick" not in changes:
        changes["jick"] = changes["deck"] == "54"  # the deck named alone keeps its old meaning
    out = replace(rules, **changes)
    if out.deck == "54" and not out.jick:
        raise RulesError("jick=off: the 54-card deck always has the off-jack (the jick) as a trump",
                         base_offset + text.index("jick="))
    most = max_seats(out)
    lo, hi = out.players
    if hi > most:
        if "players" in changes or lo > most:
            raise RulesError(f"players={format_value(KEY_BY_NAME['players'], out.players)}: the {out.deck}-card deck "
                             f"deals {out.deal_size_for(most + 1)} cards each to at most {most} players", players_at)
        # a bigger deal, the preset's range not named: as many seats as the deck deals to
        out = replace(out, players=(lo, most))
    return out


def max_seats(rules: Rules) -> int:
    """The most players a rule set can deal to: each needs ``deal_size`` cards from the deck.

    >>> max_seats(preset("cutthroat")), max_seats(preset("tenpoint"))
    (8, 6)
    """
    from . import _core  # the core's one definition

    return _core.Rules(rules).max_seats


def parse_rules(text: str) -> Rules:
    """Read a ``Rules`` tag value: a preset name, then ``key=value`` overrides."""
    stripped = text.strip()
    if not stripped:
        raise RulesError("the Rules tag is empty: it needs a preset name")
    name = stripped.split()[0]
    start = text.index(name)
    return with_overrides(preset(name), text[start + len(name):], start + len(name))


RULE_FIELDS = tuple(f.name for f in fields(Rules))


def presets_markdown() -> str:
    """The value of every key in every preset, as a Markdown table (docs/rules.md quotes it)."""
    names = list(PRESETS)
    out = ["| key | " + " | ".join(f"`{n}`" for n in names) + " |", "|---|" + "---|" * len(names)]
    for k in KEYS:
        out.append(f"| `{k.name}` | " + " | ".join(format_value(k, getattr(PRESETS[n], k.name)) for n in names) + " |")
    return "\n".join(out) + "\n"
