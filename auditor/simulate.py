"""Legal games played by simple bots, with optional injected faults and an answer key.

The bots live in the compiled core (``core/src/simulate.rs``): they bid on the strength of
their best suit and play plausibly (win cheaply when they can, throw the lowest card when
they cannot), choosing only among the bids the auction lets stand and the cards the engine
calls legal. Scores, totals and the winner are written by auditing each game so far with
the engine, so a clean simulated game audits clean; each injected fault must produce exactly
the findings in the answer key. A seed gives the same games whatever the number of threads.

>>> text, key = simulate("auction", games=1, seed=7, players=4)
>>> from auditor.notation import parse_text
>>> games, problems = parse_text(text)
>>> len(games), problems, key
(1, [], [])
"""

from __future__ import annotations

import os
from collections.abc import Callable

from . import _core
from .rules import resolve_rules
from .notation import Finding

FAULTS = ("revoke", "score", "total", "winner")


def simulate_to(write: Callable[[str], object], preset: str, games: int = 10, seed: int = 0,
                players: int | None = None, faults: tuple[str, ...] = (), rules_text: str = "",
                jobs: int | None = None) -> list[dict]:
    """Simulate, handing the games' text to ``write`` a piece at a time (memory stays flat), on
    ``jobs`` threads (default: every core); returns the answer key, the findings the faults must cause.

    One fault of each named kind is injected into each game where a place for it fits; the order
    of ``faults`` does not matter. Raises ValueError for a bad fault or a number of players the
    rules cannot seat.
    """
    rules = resolve_rules(None, f"{preset} {rules_text}".strip())
    lo, hi = rules.players
    n = players or (4 if lo <= 4 <= hi else lo)
    return _core.simulate(rules, games, seed % 2**64, n, list(faults), f"sim-{preset}-{seed}",
                          jobs or os.cpu_count() or 1, write)


def simulate(preset: str, games: int = 10, seed: int = 0, players: int | None = None,
             faults: tuple[str, ...] = (), rules_text: str = "", jobs: int | None = None) -> tuple[str, list[dict]]:
    """Games as notation text, and the answer key (see :func:`simulate_to`)."""
    pieces: list[str] = []
    key = simulate_to(pieces.append, preset, games, seed, players, faults, rules_text, jobs)
    return "".join(pieces), key


def answer_key_findings(key: list[dict]) -> set[tuple]:
    """The answer key as (game, code, line, player) tuples, for comparison with an audit.

    Each revoke (R501) comes with its R503, what it cost the innocent side, on the same line.
    """
    out = {(k["game"], k["code"], k["line"], k["player"]) for k in key}
    return out | {(k["game"], "R503", k["line"], k["player"]) for k in key if k["code"] == "R501"}


def finding_tuple(f: Finding) -> tuple:
    """A finding as the tuple :func:`answer_key_findings` compares with."""
    return (f.game, f.code, f.line, f.subject)
