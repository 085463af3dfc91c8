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
from .cards import CARD_NAMES, SUITS
from .notation import Game
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


#: Who played what in one hand, as the engine replayed it (cards as small integers): the core's own
#: record, read through getters (``cards``, ``seats``, ``dealt``, ``trick_lines``, ``play_cols``,
#: ``trump``, ``takeover``, ``seat_names``, ``held_before(seat, trick)``).
PreparedHand = _core.PreparedHand

#: The recomputed outcome of one hand, side by side with what the sheet says: the core's result,
#: read through getters (``score``, ``total``, ``recorded``, ``awards``, ``revoke_plays`` ...,
#: ``held(player, trick)``).
HandScore = _core.HandScore

#: Everything the audit learned about one game: ``game``, ``rules``, ``hands``, ``findings``,
#: ``winner``, ``won_in_hand``, ``settlement``, ``sides``, ``cards_played``.
GameResult = _core.GameResult


def held_before(prep: PreparedHand, seat: int, trick: int) -> int:
    """The cards ``seat`` held as trick ``trick`` (0-based) began: still to play, or dealt and not yet played."""
    return prep.held_before(seat, trick)


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
    return _core.audit_records(games, _rule_sets(games, override))


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
