"""Replay and scoring: every hand of a game re-executed in the compiled core.

The engine lives in Rust (``core/src/engine``), one module per phase: the auction; the
deal, widow and exchange; the play (legal cards, trick winners, revokes); the points;
the contract and penalties; the score sheet (totals, going out, winner); the settlement.
This module hands it the games and their resolved rule sets and builds the results
Python reads (:class:`GameResult`, :class:`HandScore`) from what it returns.

Every verdict is a :class:`~auditor.notation.Finding` whose message says which rule,
what the record shows and what was expected.

>>> from auditor.cards import parse_card, SUITS
>>> trick_winner_pos([parse_card(c) for c in "KH JD AH 2C".split()], SUITS.index("H"), deck_kind="jokers")
2
>>> trick_winner_pos([parse_card(c) for c in "KD JKL AD 2C".split()], SUITS.index("H"), deck_kind="jokers")
1
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from . import _core
from .cards import CARD_NAMES, SUITS, cards_of
from .notation import Finding, Game
from .rules import Rules, RulesError, resolve_rules

PITCH_VALUE: int = _core.PITCH_VALUE  # pitching=on: a pitch in place of a bid is worth four (the core's)


def rules_resolver(override: str = "") -> _core.Resolver:
    """The core's resolver of a run's rule sets: each game's ``Rules`` tag, then ``override``
    (the run's ``--rules``); once per distinct text, on the core's own threads."""
    return _core.Resolver(override)


def trick_winner_pos(cards: Sequence[int], trump: int, deck_kind: str = "plain") -> int:
    """Position in play order of the card that takes a trick (the core's one definition)."""
    return _core.trick_winner(list(cards), trump, deck_kind)


def legal_cards(rules: Rules, trump: int, held: int, trick: int, lead: int | None = None,
                led: int | None = None) -> int:
    """The mask of the cards of ``held`` that may be played to trick ``trick`` (0-based): ``lead`` is the
    hand's first card led, ``led`` this trick's first card (None: leading). The core's one definition."""
    return _core.legal_cards(rules, trump, held, trick, lead, led)


def speaking_order(rules: Rules, players: int, dealer: int) -> list[int]:
    """The seats in the order they bid (the core's one definition of the auction order)."""
    return _core.speaking_order(rules, players, dealer)


@dataclass
class PreparedHand:
    """Who played what in one hand, as the engine replayed it (cards as small integers)."""

    seat_names: list[str]
    cards: list[list[int]] = field(default_factory=list)  # per trick kept, play order
    seats: list[list[int]] = field(default_factory=list)
    dealt: list[int] = field(default_factory=list)  # bit mask per seat, 0 = not recorded
    trick_lines: list[int] = field(default_factory=list)
    play_cols: list[list[int]] = field(default_factory=list)
    trump: int = -1
    takeover: bool = False


def held_before(prep: PreparedHand, seat: int, trick: int) -> int:
    """The cards ``seat`` held as trick ``trick`` (0-based) began: still to play, or dealt and not yet played."""
    before = after = 0
    for t, (cs, ss) in enumerate(zip(prep.cards, prep.seats)):
        for c, s in zip(cs, ss):
            if s == seat:
                if t < trick:
                    before |= 1 << c
                else:
                    after |= 1 << c
    dealt = prep.dealt[seat] if 0 <= seat < len(prep.dealt) else 0
    return after | (dealt & ~before)


@dataclass
class HandScore:
    """The recomputed outcome of one hand, side by side with what the sheet says."""

    game: str
    hand: int
    line: int
    dealer: str
    pitcher: str | None
    pitcher_side: str | None
    contract: int
    high_bid: int
    trump: str | None
    scored: bool  # False: could not be recomputed (misdeal, thrown in, broken record)
    status: str  # played, thrown-in, misdeal, unplayable
    high: str | None = None  # side that took each point
    low: str | None = None
    jack: str | None = None
    game_point: str | None = None
    high_holder: str | None = None  # players, for the explanation
    high_card: str | None = None
    low_holder: str | None = None
    low_card: str | None = None
    jack_taker: str | None = None
    jack_trick: int | None = None
    counts: dict[str, int] = field(default_factory=dict)  # Game count per side
    tricks_won: dict[str, int] = field(default_factory=dict)  # tricks taken per side
    made: dict[str, int] = field(default_factory=dict)  # points taken per side
    score: dict[str, int] = field(default_factory=dict)  # recomputed hand score per side
    recorded: dict[str, int] | None = None
    total: dict[str, int] = field(default_factory=dict)  # recomputed running total (points still needed, counted down)
    recorded_total: dict[str, int] | None = None
    contract_made: bool | None = None
    smudge: bool = False
    revokers: list[str] = field(default_factory=list)
    penalties: dict[str, int] = field(default_factory=dict)
    sale: int = 0
    seller: str | None = None
    went_out: str | None = None
    revoke_plays: list[tuple[int, int, str, str, str]] = field(default_factory=list)  # trick, pos, player, card,
    # and the cards the player should have played from (space-separated)
    saved_by_revoke: bool = False  # the pitcher fell short but cannot be set: someone else revoked
    prep: PreparedHand | None = field(default=None, repr=False, compare=False)
    winners: list[str] = field(default_factory=list)  # taker of each trick
    trick_players: list[list[str]] = field(default_factory=list)  # who played each card, in play order
    set_back: dict[str, int] = field(default_factory=dict)  # points lost to a failed contract or a revoke
    awards: list[tuple[str, str | None, int, str]] = field(default_factory=list)  # point, side, worth, why
    top_word: str = "smudge"  # what the table calls the top bid
    takeover: bool = False  # pitching: the dealer took over a pitch
    moon_from: int | None = None  # a made moon: the sheet's total it jumped from
    contract_rule: str = ""  # the rule that decided a top-bid contract, naming its key (the core's words)
    out_why: str = ""  # why went_out won the game in this hand, naming the rule (the core's words)

    def held(self, player: str, trick: int) -> list[int]:
        """The cards ``player`` held as trick ``trick`` (1-based) began; trick 1 gives the hand as dealt
        (from the deal line, or inferred from the plays)."""
        p = self.prep
        if p is None or player not in p.seat_names:
            return []
        return cards_of(held_before(p, p.seat_names.index(player), trick - 1))


@dataclass
class GameResult:
    """Everything the audit learned about one game."""

    game: Game
    rules: Rules | None
    hands: list[HandScore] = field(default_factory=list)
    findings: list[Finding] = field(default_factory=list)
    winner: str | None = None
    won_in_hand: int | None = None
    settlement: dict[str, int] = field(default_factory=dict)
    sides: list[str] = field(default_factory=list)
    cards_played: int = 0


def _hand_score(game: Game, h, d: dict, names: list[str], sides: list[str], side_of: list[int],
                rules: Rules) -> HandScore:
    """A :class:`HandScore` from the core's account of one hand."""
    def name(seat: int) -> str:
        return names[seat] if 0 <= seat < len(names) else "nobody"

    def side(i: int) -> str | None:
        return sides[i] if 0 <= i < len(sides) else None

    def per_side(values: list[int]) -> dict[str, int]:
        return dict(zip(sides, values))

    pitcher = d["pitcher"]
    pitcher_side = side(side_of[pitcher]) if 0 <= pitcher < len(side_of) else None
    hs = HandScore(game.name, h.number, h.line, name(d["dealer"]), name(pitcher) if pitcher >= 0 else None,
                   pitcher_side, d["contract"], d["high_bid"], SUITS[d["trump"]] if d["trump"] >= 0 else None,
                   d["scored"], d["status"])
    hs.top_word = rules.top_bid_words[0] if rules.top_bid_words else "top bid"
    hs.prep = PreparedHand(names, d["cards"], d["seats"], d["dealt"], d["trick_lines"], d["play_cols"], d["trump"],
                           d["prep_takeover"])
    hs.score = per_side(d["score"])
    hs.total = per_side(d["total"])
    hs.recorded = h.score.as_dict() if h.score is not None else None
    hs.recorded_total = h.total.as_dict() if h.total is not None else None
    hs.winners = [name(s) for s in d["winners"] if s >= 0]
    hs.trick_players = [[name(s) for s in row] for row in d["seats"]]
    hs.revoke_plays = [(t, pos, name(seat), CARD_NAMES[card], " ".join(CARD_NAMES[c] for c in could))
                       for t, pos, seat, card, could in d["revoke_plays"]]
    hs.revokers = [sides[r] for r in d["revokers"] if 0 <= r < len(sides)]
    hs.penalties = {s: d["penalty"] for s in hs.revokers}
    if "awards" in d:
        hs.awards = [(n, side(s), worth, why) for n, s, worth, why in d["awards"]]
        by_name = {n: owner for n, owner, _, _ in hs.awards}
        hs.high, hs.low, hs.jack, hs.game_point = by_name["High"], by_name["Low"], by_name["Jack"], by_name["Game"]
        hs.high_holder, hs.low_holder = name(d["high_holder"]), name(d["low_holder"])
        hs.high_card = CARD_NAMES[d["high_card"]] if d["high_card"] is not None else None
        hs.low_card = CARD_NAMES[d["low_card"]] if d["low_card"] is not None else None
        hs.jack_taker = name(d["jack_taker"]) if d["jack_taker"] >= 0 else None
        hs.jack_trick = d["jack_trick"]
        hs.counts, hs.tricks_won, hs.made = per_side(d["counts"]), per_side(d["tricks_won"]), per_side(d["made"])
        hs.contract_made, hs.smudge, hs.saved_by_revoke = d["contract_made"], d["smudge"], d["saved_by_revoke"]
        hs.takeover, hs.moon_from = d["takeover"], d["moon_from"]
        hs.contract_rule = d["contract_rule"]
        hs.set_back = {s: v for s, v in zip(sides, d["set_back"]) if v > 0}
        if d["seller"] >= 0:
            hs.sale, hs.seller = d["sale"], side(side_of[d["seller"]])
    hs.went_out, hs.out_why = side(d["went_out"]), d["out_why"]
    return hs


def _result(game: Game, rules: Rules, d: dict) -> GameResult:
    src, gname = game.source, game.name
    res = GameResult(game, rules, findings=[f.placed(src, gname) for f in d["findings"]])
    if not d["audited"]:
        return res
    names, sides, side_of = d["names"], d["sides"], d["side_of"]
    res.sides = list(sides)
    res.hands = [_hand_score(game, h, hd, names, sides, side_of, rules) for h, hd in zip(game.hands, d["hands"])]
    res.winner = sides[d["winner"]] if 0 <= d["winner"] < len(sides) else None
    res.won_in_hand = d["won_in_hand"]
    res.settlement = dict(zip(sides, d["settlement"]))
    res.cards_played = d["cards_played"]
    return res


def _rule_sets(games: list[Game], override: str) -> list[Rules | None]:
    """Each game's rule set (``None``: its rules cannot be resolved, already reported by the parser)."""
    out: list[Rules | None] = []
    for game in games:
        try:
            out.append(resolve_rules(game.tag("Rules"), override))
        except RulesError:
            out.append(None)
    return out


def audit_games(games: Iterable[Game], override: str = "") -> list[GameResult]:
    """Replay and score a batch of games: the one entry point for one hand or a million.

    Games whose rules cannot be resolved come back with ``rules=None`` and no hands
    (the parser has already reported why).
    """
    games = list(games)
    rule_sets = _rule_sets(games, override)
    out = _core.audit_records(games, list(rule_sets))
    return [GameResult(g, None) if r is None else _result(g, r, d) for g, r, d in zip(games, rule_sets, out)]


# ---------------------------------------------------------------- perfect play

@dataclass(frozen=True)
class PlayCost:
    """One card of the record under perfect play: the pitcher's score before and after it, and
    what it cost the player's side (a mistake when above 0)."""

    trick: int
    position: int  # 0: the lead
    player: str
    card: str
    before: int
    after: int
    cost: int
    illegal: bool  # the card broke the follow rule (a revoke)
    best: tuple[str, ...] = ()  # for a mistake: the legal cards that kept the value


@dataclass(frozen=True)
class RevokeDamage:
    """What a revoke cost the innocent side: the points it was sure to take had the revoker played
    a legal card, against those it took."""

    trick: int
    position: int
    revoker: str
    innocent: tuple[str, ...]
    sure: int
    took: int
    line: tuple[tuple[str, str], ...]  # (player, card) of perfect play from the revoke on

    @property
    def damage(self) -> int:
        return max(0, self.sure - self.took)


@dataclass(frozen=True)
class HandAnalysis:
    """A hand examined under perfect play (every card known): par, result, each card's cost,
    the claim and the revokes' damage; or ``not_analysable`` saying why it cannot be."""

    game: str
    hand: int
    pitcher: str | None = None
    pitcher_side: str | None = None
    contract: int = 0  # the bid the pitcher had to make (0: none)
    trump: str | None = None
    par: int | None = None  # the pitcher's score under perfect play from the first lead
    par_by_trump: tuple[tuple[str, int], ...] = ()  # (suit letter, par) for each trump it could pitch
    par_by_trump_unknown: str | None = None
    result: int | None = None  # the pitcher's score as the cards fell, before revoke penalties
    plays: tuple[PlayCost, ...] = ()
    claim: int | None = None  # the first trick from which every legal line gives the same points
    revokes: tuple[RevokeDamage, ...] = ()
    perfect: tuple[tuple[str, str], ...] = ()  # a line of perfect play from the first lead: (player, card)
    not_analysable: str | None = None
    micros: int = field(default=0, compare=False)  # time the core took over it

    @property
    def mistakes(self) -> tuple[PlayCost, ...]:
        return tuple(p for p in self.plays if p.cost > 0)

    @property
    def best_trump(self) -> tuple[str, int] | None:
        """The trump with the highest par (the one pitched on a tie), if the hands allow the question."""
        if not self.par_by_trump:
            return None
        return max(self.par_by_trump, key=lambda t: (t[1], t[0] == self.trump))


def analyze_games(games: Iterable[Game], override: str = "", jobs: int = 1,
                  full: bool = True) -> list[list[HandAnalysis]]:
    """Examine every hand of a batch of games under perfect play, in the core (GIL released).

    One list per game, one :class:`HandAnalysis` per hand that was played (thrown-in hands and
    misdeals have none); a game whose rules cannot be resolved gives an empty list.
    ``full=False``: par with the trump pitched and each card's cost only (no par by trump, no claim).
    """
    games = list(games)
    rule_sets = _rule_sets(games, override)
    cores = list(rule_sets)
    out: list[list[HandAnalysis]] = []
    for game, r, d in zip(games, rule_sets, _core.analyze_records(games, cores, jobs, full)):
        if r is None or d is None:
            out.append([])
            continue
        names, sides, side_of = d["names"], d["sides"], d["side_of"]
        name = lambda s: names[s] if 0 <= s < len(names) else "?"  # noqa: E731
        rows = []
        for h, timed in zip(game.hands, d["hands"]):
            if timed is None:
                continue
            a, micros = timed
            if isinstance(a, str):
                rows.append(HandAnalysis(game.name, h.number, not_analysable=a, micros=micros))
                continue
            p = a["pitcher"]
            rows.append(HandAnalysis(
                game.name, h.number, pitcher=name(p),
                pitcher_side=sides[side_of[p]] if 0 <= p < len(side_of) and 0 <= side_of[p] < len(sides) else None,
                contract=a["contract"], trump=SUITS[a["trump"]], par=a["par"],
                par_by_trump=tuple((SUITS[t], v) for t, v in a["par_by_trump"]),
                par_by_trump_unknown=a["par_by_trump_unknown"], result=a["result"],
                plays=tuple(PlayCost(t, pos, name(s), CARD_NAMES[c], b, af, cost, ill, tuple(CARD_NAMES[x] for x in best))
                            for t, pos, s, c, b, af, cost, ill, best in a["plays"]),
                claim=a["claim"],
                revokes=tuple(RevokeDamage(t, pos, name(s), tuple(sides[i] for i in range(len(sides)) if inn >> i & 1),
                                           sure, took, tuple((name(ps), CARD_NAMES[c]) for ps, c in line))
                              for t, pos, s, inn, sure, took, line in a["revokes"]),
                perfect=tuple((name(ps), CARD_NAMES[c]) for ps, c in a["perfect"]),
                micros=micros,
            ))
        out.append(rows)
    return out
