"""Arrow tables: the schemas, and the rows each audited game contributes.

The schemas are defined once, in ``auditor/schemas/tables.json`` (the package
``auditor.schemas``), with a version and a meaning for every column.  Where the tables
are stored, and how, is :mod:`auditor.dataset`.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import json
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from importlib import resources

from ._lazy import lazy

pa = lazy("pyarrow")

from . import _core
from .cards import CARD_NAMES, RANKS, SUITS, suit_of, trump_order
from .engine import PITCH_VALUE, GameResult
from .findings import kind_of, severity_of
from .notation import Finding, Game, write_game

def load_schema_doc() -> dict:
    """The parsed ``schemas/tables.json``."""
    return json.loads(resources.files("auditor.schemas").joinpath("tables.json").read_text("utf-8"))


_DOC = load_schema_doc()
SCHEMA_VERSION: int = _DOC["schema_version"]


class _Schemas(Mapping):
    """Table name to its Arrow schema, built from ``schemas/tables.json`` on first use (pyarrow loads then)."""

    def __init__(self) -> None:
        self._built: dict | None = None

    def _all(self) -> dict:
        if self._built is None:
            types = {
                "string": pa.string(), "bool": pa.bool_(), "int8": pa.int8(), "int16": pa.int16(),
                "int32": pa.int32(), "int64": pa.int64(), "date32": pa.date32(),
                "timestamp": pa.timestamp("us", tz="UTC"), "list<string>": pa.list_(pa.string()),
            }
            self._built = {
                name: pa.schema([pa.field(c, types[t], metadata={"doc": d}) for c, t, d in spec["columns"]],
                                metadata={"doc": spec["doc"], "schema_version": str(SCHEMA_VERSION)})
                for name, spec in _DOC["tables"].items()
            }
        return self._built

    def __getitem__(self, name: str):
        return self._all()[name]

    def __iter__(self):
        return iter(_DOC["tables"])

    def __len__(self) -> int:
        return len(_DOC["tables"])


SCHEMAS: Mapping = _Schemas()
TABLES = tuple(SCHEMAS)


def game_key(game: Game) -> str:
    """The content hash that names a game: the BLAKE2b-128 hash of its canonical text, and nothing else.

    The parser sets it (``Game.key``); a game built in Python has it computed by the core.
    """
    return game.key or _core.game_key(game)


# A suggestion the core appends to a message ("(did you mean 'note'? expected ..." or "; did you mean 'Dan'?"):
# messages written before suggestions existed lacked it.
_HINT = re.compile(r"(?:did you mean '[^']*'\? |; did you mean '[^']*'\?$)")


def legacy_game_key(game: Game, parse_findings: Iterable[Finding]) -> str:
    """The key schema versions 1 and 2 gave a game: its canonical text plus the code and message of
    each finding of reading it.  Only games with such findings have a legacy key other than
    :func:`game_key`; an import matches it too, so datasets written before still know their games.
    """
    found = list(parse_findings)
    if not found:
        return game_key(game)
    h = hashlib.blake2b(digest_size=16)
    h.update(write_game(game).encode("utf-8"))
    for f in found:
        h.update(f"{f.code}|{_HINT.sub('', f.message)}\n".encode("utf-8"))
    return h.hexdigest()


def _date(value: str | None) -> dt.date | None:
    if not value:
        return None
    try:
        y, m, d = (int(x) for x in value.split("."))
        return dt.date(y, m, d)
    except ValueError:
        return None


@dataclass
class Rows:
    """Column lists for every table, filled game by game."""

    cols: dict[str, dict[str, list]] = field(default_factory=lambda: {
        t: {f.name: [] for f in s} for t, s in SCHEMAS.items()})

    def add(self, table: str, **values) -> None:
        cols = self.cols[table]
        for name, col in cols.items():
            col.append(values.get(name))

    def __len__(self) -> int:
        return len(self.cols["hands"]["hand"])

    def to_arrow(self) -> dict[str, pa.Table]:
        return {t: pa.table({k: pa.array(v, type=SCHEMAS[t].field(k).type) for k, v in cols.items()},
                            schema=SCHEMAS[t]) for t, cols in self.cols.items()}


def add_finding(rows: Rows, f: Finding, game_id: str | None) -> None:
    """One row of the findings table."""
    rows.add("findings", game_id=game_id, game=f.game or None, code=f.code, kind=kind_of(f.code),
             severity=severity_of(f.code), file=f.source, line=f.line, column=f.column, hand=f.hand,
             trick=f.trick, player=f.subject, message=f.message, expected=f.expected, recorded=f.recorded)


# the points beyond High, Low, Jack and Game (Rules.point_names): the hands column that names the
# side that took each, and the hand_scores flag
_EXTRA_POINTS = {"Off-jack": "off_jack", "High joker": "high_joker", "Low joker": "low_joker", "Trey": "trey"}


def _bid_value(r, word: str) -> int | None:
    """The number a bid word stands for: a pitch is worth four where the rule set has pitching."""
    if r is None:
        return None
    if r.pitching and word.split()[0] == "pitch":
        return PITCH_VALUE
    return r.bid_value(word)


def add_game(rows: Rows, res: GameResult, game_id: str, parse_findings: list[Finding], now: dt.datetime) -> None:
    """Every row one audited game contributes to every table."""
    g = res.game
    r = res.rules
    in_rules = set(r.point_names) if r else set()  # the points this rule set has
    rows.add("games", game_id=game_id, game=g.name, source_file=g.source, game_index=g.index, line=g.line,
             event=g.tag("Event"), site=g.tag("Site"), date=_date(g.tag("Date")), round=g.tag("Round"),
             rules_tag=g.tag("Rules"), preset=r.preset if r else None, rules=r.to_text() if r else None,
             players=list(g.players), teams=g.tag("Teams"), tags=json.dumps({t.name: t.value for t in g.tags}),
             hands=len(g.hands), recorded_winner=g.winner.name if g.winner else None, winner=res.winner,
             won_in_hand=res.won_in_hand, imported_at=now)
    scores = {hs.hand: hs for hs in res.hands}
    for h in g.hands:
        hs = scores.get(h.number)
        # who took each point: only a played hand has awards; a point outside the rule set stays null
        taker = {_EXTRA_POINTS[name]: side for name, side, _, _ in (hs.awards if hs else ()) if name in _EXTRA_POINTS}
        first = h.tricks[0].plays[0].card if h.tricks and h.tricks[0].plays else None
        rows.add("hands", game_id=game_id, hand=h.number, line=h.line, dealer=h.dealer.name if h.dealer else None,
                 status=hs.status if hs else ("misdeal" if h.misdeal else "unplayable"),
                 pitcher=hs.pitcher if hs else None, contract=hs.contract if hs else None,
                 high_bid=hs.high_bid if hs else None, sold=bool(hs and hs.sale), sale=hs.sale if hs else None,
                 # with no recomputed hand, the first card led names trump (a joker names none)
                 trump=hs.trump if hs else (SUITS[suit_of(first)] if first is not None and first < 52 else None),
                 trump_line=SUITS[h.trump.suit] if h.trump else None, dealt=h.deal is not None,
                 widow=[CARD_NAMES[c] for c in h.widow.cards] if h.widow else None,
                 points_in_play=r.points_in_play if r else None,
                 tricks=len(h.tricks), high=hs and hs.high, high_card=hs and hs.high_card,
                 high_holder=hs and hs.high_holder, low=hs and hs.low, low_card=hs and hs.low_card,
                 low_holder=hs and hs.low_holder, jack=hs and hs.jack, jack_trick=hs and hs.jack_trick,
                 **taker, game_point=hs and hs.game_point, contract_made=hs and hs.contract_made,
                 smudge=bool(hs and hs.smudge), moon=bool(hs and hs.smudge and r and r.smudge == "moon"),
                 # the auction decides a takeover, so it stands in a hand that could not be played out too
                 takeover=bool(hs and (hs.takeover or (hs.prep is not None and hs.prep.takeover))),
                 revokers=list(hs.revokers) if hs else [],
                 went_out=hs and hs.went_out, notes=[n.text for n in h.notes])
        if h.deal:
            for hold in h.deal.holdings:
                rows.add("deals", game_id=game_id, hand=h.number, player=hold.player,
                         cards=[CARD_NAMES[c] for c in hold.cards])
        if h.bids:
            for i, b in enumerate(h.bids.bids):
                rows.add("bids", game_id=game_id, hand=h.number, position=i + 1, player=b.player, word=b.word,
                         value=_bid_value(r, b.word), line=h.bids.line, column=b.column)
        for i, x in enumerate(h.exchanges):
            rows.add("exchanges", game_id=game_id, hand=h.number, position=i + 1, kind=x.kind,
                     player=x.holding.player, cards=[CARD_NAMES[c] for c in x.holding.cards], line=x.line)
        revoked = {(t, p) for t, _, p, _, _ in hs.revoke_plays} if hs else set()
        trump = SUITS.index(hs.trump) if hs and hs.trump else -1
        # the cards trump_strength ranks (>= 0): with the ten-point deck the off-jack and both jokers too
        trumps = frozenset(trump_order(trump, bool(r and r.ten_point))) if trump >= 0 else frozenset()
        players = hs.trick_players if hs else []
        cols = rows.cols["plays"]  # the biggest table: columns filled directly, not row by row
        for t in h.tricks:
            ti = t.number - 1  # the engine replays tricks in number order, whatever order they were written in
            winner = hs.winners[ti] if hs and 0 <= ti < len(hs.winners) else None
            row_players = players[ti] if 0 <= ti < len(players) else []
            for pos, p in enumerate(t.plays):
                player = p.player
                if player is None and pos < len(row_players):
                    player = row_players[pos]
                c = p.card
                s = c // 13 if c < 52 else 4
                cols["game_id"].append(game_id)
                cols["hand"].append(h.number)
                cols["trick"].append(t.number)
                cols["position"].append(pos + 1)
                cols["player"].append(player)
                cols["card"].append(CARD_NAMES[c])
                cols["rank"].append(RANKS[c % 13] if c < 52 else "JK")
                cols["suit"].append(SUITS[s] if s < 4 else None)
                cols["trump"].append(c in trumps)
                cols["trick_winner"].append(winner)
                cols["revoke"].append((t.number, player) in revoked)
                cols["line"].append(t.line)
                cols["column"].append(p.column)
        for sl in (h.score, h.total):
            if sl:
                for e in sl.entries:
                    rows.add("recorded_scores", game_id=game_id, hand=h.number, kind=sl.kind, key=e.key,
                             value=e.value, line=sl.line, column=e.column)
        if hs and hs.scored and hs.status == "played":
            for side in res.sides:
                # null where the rule set has no such point, else whether this side took it
                extra = {col: (taker.get(col) == side if name in in_rules else None)
                         for name, col in _EXTRA_POINTS.items()}
                rows.add("hand_scores", game_id=game_id, hand=h.number, side=side,
                         pitcher_side=side == hs.pitcher_side, points=hs.made.get(side, 0),
                         high=hs.high == side, low=hs.low == side, jack=hs.jack == side, **extra,
                         game_point=hs.game_point == side, count=hs.counts.get(side, 0),
                         tricks=hs.tricks_won.get(side, 0),
                         score=hs.score.get(side), recorded_score=(hs.recorded or {}).get(side),
                         total=hs.total.get(side), recorded_total=(hs.recorded_total or {}).get(side),
                         set_back=hs.set_back.get(side, 0),
                         revoked=side in hs.revokers)
    for side, amount in res.settlement.items():
        rows.add("settlements", game_id=game_id, side=side, amount=amount)
    for f in parse_findings:
        add_finding(rows, f, game_id)
    for f in res.findings:
        add_finding(rows, f, game_id)


def schema_markdown() -> str:
    """Every table and column with its type and meaning, as Markdown (docs/schema.md)."""
    out = [f"# Dataset schema (version {SCHEMA_VERSION})", "", _DOC["doc"], ""]
    for name, spec in _DOC["tables"].items():
        out += [f"## `{name}`", "", spec["doc"], "", "| column | type | meaning |", "|---|---|---|"]
        out += [f"| `{c}` | {t} | {d} |" for c, t, d in spec["columns"]]
        out.append("")
    return "\n".join(out)
