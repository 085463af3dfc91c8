"""``auditor report``: an event's results as one page to post, print or mail.

The page a tournament director posts after a club night or a season: who won, the league
table of each event, every game's score sheet as written beside the recomputed one with each
difference marked and explained, a chart of the running totals, and each finding's ruling in
words (what happened, the rule that applies with its text, what the score should be), with a
diagram of the hand and trick for revokes and illegal plays.

Everything comes from the warehouse (:mod:`auditor.warehouse`), so a dataset and logs audited
on the fly give the same report:

* the league tables are :func:`auditor.warehouse.stats`, the very function ``auditor stats``
  prints, per event (one definition of every figure, in ``auditor/sql/40_stats.sql``);
* the score sheets and charts are the view ``score_sheet`` (``auditor/sql/45_score_sheet.sql``);
* the findings, hands, deals and plays are the dataset's own tables.

:func:`collect` gathers a :class:`Report`; :func:`to_html` writes it as one self-contained HTML
file (CSS, charts and the one small script inline; no font, image or request from outside) and
:func:`to_markdown` as Markdown for a newsletter or a forum post. The charts are drawn by
matplotlib (imported here only, on first use) as inline SVG.

The rules cited are quoted from ``docs/rules.md`` and ``docs/notation.md`` in an appendix the
rulings link to: the docs of the source tree the package runs from (an editable install or a
checkout). Where they are not there (a wheel carries only the package), each ruling still names
its section and says why the rule matters, from the finding catalogue.
"""

from __future__ import annotations

import datetime as dt
import html
import io
import re
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from importlib import resources
from pathlib import Path

from . import __version__
from .cards import CARD_NAMES, SUIT_NAMES, SUIT_SYMBOLS, SUITS, parse_card, sort_for_display, suit_of
from .findings import CATALOG
from .render import plural
from .rules import Rules, RulesError, parse_rules
from .warehouse import Warehouse, WarehouseError, stats as league_table

#: Reports with more games than this have every game's detail collapsed (a click opens one).
OPEN_GAMES = 40
#: ``charts="auto"``: a chart for every game of a report of up to this many games; in a longer
#: one, for the first :data:`CHARTS_IN_A_SEASON` games the audit has something to say about.
#: matplotlib takes 15-20 ms a chart, most of it the tick labels: a season of 5,000 games would
#: spend a minute and a half on charts alone (see bench/bench_report.py).
CHART_GAMES = 300
CHARTS_IN_A_SEASON = 100
#: A chart's width in SVG units and its text size in the same units: as wide as a phone's page, so that
#: the text shows at least at the body's size there (tested in the browser at 390 pixels).
CHART_WIDTH = 360
CHART_FONT = 14
CHART_CHOICES = ("auto", "all", "findings", "none")
#: ``detail="auto"``: every game in full in a report of up to CHART_GAMES games; in a longer one (a
#: season), the games the audit has something to say about, every other game by its line in its
#: event's results (its sheet agrees with the audit in every entry).
DETAIL_CHOICES = ("auto", "all", "disputed")
#: The kinds of finding shown with a diagram of the hand and the trick.
DIAGRAM_KINDS = ("revoke", "play")

# Okabe and Ito's palette: told apart with every common colour-vision deficiency; each series
# also has its own marker, so the chart reads in black and white too.
PALETTE = ("#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#000000", "#8C6D31")
MARKERS = ("o", "s", "^", "D", "v", "P", "X", "*")
MARKER_SYMBOLS = ("●", "■", "▲", "◆", "▼", "✚", "✖", "★")  # the markers as text, for the legend


# --------------------------------------------------------------------------- what the report holds


@dataclass(slots=True)
class Cell:
    """One side's entry for one hand: as written, and recomputed (a season has a few hundred thousand)."""

    recorded_score: int | None
    recorded_total: int | None
    score: int | None
    total: int | None
    derived: bool = False  # not played out: read off the hands around it (see the score_sheet view)

    @property
    def score_differs(self) -> bool:
        return self.recorded_score is not None and self.score is not None and self.recorded_score != self.score

    @property
    def total_differs(self) -> bool:
        return self.recorded_total is not None and self.total is not None and self.recorded_total != self.total


@dataclass(slots=True)
class SheetHand:
    """One hand of a game's score sheet."""

    hand: int
    status: str
    contract: str  # a few words: "Dee 4 made", "misdeal"
    cells: dict[str, Cell]


@dataclass
class FindingRow:
    """One finding of the audit, as the dataset's findings table has it."""

    number: int  # its place in the report, from 1: the anchor #f{number}
    code: str
    kind: str
    severity: str
    file: str | None
    line: int | None
    column: int | None
    game_id: str | None
    game: str | None
    hand: int | None
    trick: int | None
    player: str | None
    message: str
    expected: str | None
    recorded: str | None

    @property
    def anchor(self) -> str:
        return f"f{self.number}"

    @property
    def where(self) -> str:
        """``sample_logs/setback.pitch:251:21``."""
        return ":".join(str(x) for x in (self.file, self.line, self.column) if x is not None)

    @property
    def title(self) -> str:
        c = CATALOG.get(self.code)
        return c.title if c else self.code


@dataclass
class Diagram:
    """The hand and the trick a revoke or an illegal play happened in."""

    hand: int
    trick: int
    trump: int | None  # 0-3, None when unknown
    deck_kind: str
    held: list[tuple[str, list[int]]]  # each player (in the trick's order, then the rest) and the cards held before it
    plays: dict[str, int]  # who played which card to the trick
    leader: str | None
    winner: str | None
    player: str | None  # whom the finding names
    card: int | None  # the card in question
    could: frozenset[int] = frozenset()  # cards the audit says were legal instead (R501's expected), or kept the value
    or_trump: bool = False  # ... or any trump
    kind: str = "finding"  # or "mistake": a card that lowered its side's value under perfect play


@dataclass(slots=True)
class HandPlay:
    """One hand under perfect play (the analysis table, ``import --analyze``)."""

    hand: int
    pitcher: str | None
    pitcher_side: str | None
    contract: int  # 0: none
    par: int | None  # the pitcher's score under perfect play from the first lead
    best_trump_par: int | None  # with the best trump the pitcher could have pitched
    result: int | None  # the pitcher's score as the cards fell (before revoke penalties)
    claim: int | None  # the trick from which every legal line gives each side the same points
    mistakes: int
    lost: int  # the points the mistakes cost, added up

    @property
    def bid_vs_par(self) -> str:
        """``under`` (a higher bid could have been made), ``over`` (par says the bid could not be made),
        ``at``, or ``""`` (no contract, or no par)."""
        if not self.contract or self.par is None:
            return ""
        return "over" if self.par < 0 else "under" if self.par > self.contract else "at"


@dataclass(slots=True)
class Mistake:
    """A card that lowered its side's value under perfect play, and what would have kept it."""

    number: int  # its place in the report, from 1: the anchor #m{number}
    hand: int
    trick: int
    player: str
    card: str
    cost: int
    before: int  # the pitcher's value before the card, under perfect play
    after: int
    better: tuple[str, ...]  # the legal cards that kept the value
    illegal: bool  # a revoke

    @property
    def anchor(self) -> str:
        return f"m{self.number}"


@dataclass
class GameReport:
    """One game: who played, its score sheet, the result, its findings."""

    index: int  # its place in the report, from 1
    game_id: str
    name: str
    event: str | None
    date: dt.date | None
    rules_text: str | None
    rules: Rules | None
    players: list[str]
    teams: str | None
    source: str | None
    recorded_winner: str | None
    winner: str | None
    won_in_hand: int | None
    sides: list[str]
    hands: list[SheetHand] = field(default_factory=list)
    findings: list[FindingRow] = field(default_factory=list)
    played: dict[int, HandPlay] = field(default_factory=dict)  # by hand number: the hands under perfect play
    mistakes: list[Mistake] = field(default_factory=list)  # the costliest, most costly first

    @property
    def anchor(self) -> str:
        return f"game-{self.index}"

    @property
    def count_down(self) -> bool:
        return bool(self.rules and self.rules.count_down)

    @property
    def final(self) -> dict[str, Cell]:
        """Each side's entry after the last hand."""
        return self.hands[-1].cells if self.hands else {}

    def winner_differs(self) -> bool:
        return (self.recorded_winner or None) != (self.winner or None)


@dataclass
class EventReport:
    """One event (an Event tag; ``None``: the games without one) and its league tables."""

    name: str | None
    games: list[GameReport]
    players: list[dict]  # rows of auditor.warehouse.stats, by player
    teams: list[dict] | None  # by team: the sides of the event's partnership games
    mixed: bool = False  # the event has games played alone and games played in teams

    @property
    def anchor(self) -> str:
        i = self.games[0].index if self.games else 0
        return f"event-{i}"

    @property
    def label(self) -> str:
        return self.name if self.name is not None else "Games without an Event tag"

    @property
    def dates(self) -> str:
        ds = sorted(g.date for g in self.games if g.date is not None)
        if not ds:
            return ""
        return ds[0].isoformat() if ds[0] == ds[-1] else f"{ds[0].isoformat()} to {ds[-1].isoformat()}"


@dataclass
class RuleText:
    """A section of docs/rules.md or docs/notation.md that a ruling cites."""

    section: str  # "rules.md#revokes-r501-r502", as the catalogue names it
    title: str | None  # the heading (Markdown), None when the docs are not at hand
    body: str | None  # the section's Markdown, sub-sections included

    @property
    def anchor(self) -> str:
        return "rule-" + re.sub(r"[^a-z0-9-]+", "-", self.section.lower()).strip("-")

    @property
    def label(self) -> str:
        doc = self.section.partition("#")[0]
        return f"docs/{doc} § {self.title}" if self.title else f"docs/{self.section}"


@dataclass
class Report:
    """Everything one report shows."""

    title: str
    source: str
    events: list[EventReport]
    games: list[GameReport]
    findings: list[FindingRow]  # every finding, game by game (as the page shows them), then the files'
    diagrams: dict[int, Diagram]  # by finding number
    rules: dict[str, RuleText]  # by section
    hands: int = 0  # hands recorded
    played: int = 0  # hands played out and scored
    filters: dict[str, str] = field(default_factory=dict)
    analysed: int = 0  # hands examined under perfect play (0: the dataset has no analysis rows for them)
    mistake_diagrams: dict[int, Diagram] = field(default_factory=dict)  # by mistake number

    @property
    def players(self) -> list[str]:
        return sorted({p for g in self.games for p in g.players})

    def severities(self) -> Counter:
        """How many findings of each severity: errors, warnings, information (R503's examinations)."""
        return Counter(f.severity or "error" for f in self.findings)

    def kinds(self) -> list[tuple[str, int, list[str]]]:
        """Findings by kind: the kind, how many, and their codes with counts (``R501 ×2``)."""
        out = []
        by_kind: dict[str, Counter] = {}
        for f in self.findings:
            by_kind.setdefault(f.kind, Counter())[f.code] += 1
        for kind in ("input", "deal", "auction", "play", "revoke", "score"):
            if kind in by_kind:
                c = by_kind.pop(kind)
                out.append((kind, sum(c.values()), [f"{k} ×{n}" if n > 1 else k for k, n in sorted(c.items())]))
        for kind, c in sorted(by_kind.items()):
            out.append((kind, sum(c.values()), [f"{k} ×{n}" if n > 1 else k for k, n in sorted(c.items())]))
        return out


# --------------------------------------------------------------------------- reading the warehouse


def _rows(wh: Warehouse, sql: str, params: dict | None = None) -> list[dict]:
    return [dict(zip(names, r)) for names, rows in [_tuples(wh, sql, params)] for r in rows]


def _tuples(wh: Warehouse, sql: str, params: dict | None = None) -> tuple[list[str], Iterable[tuple]]:
    """A query's column names and rows; through Arrow, column by column, which is the quickest way
    to many Python values (a season's score sheets are a few hundred thousand rows)."""
    try:
        table = wh.con.sql(sql, params=params or {}).to_arrow_table()
    except Exception as e:  # duckdb.Error, without importing duckdb here
        raise WarehouseError(str(e)) from None
    return table.column_names, zip(*(c.to_pylist() for c in table.columns))


# the games a report covers: the same filters, with the same meaning, as unit_stats' (a game
# without a Date tag is left out once --since or --until is given)
_PICK = ("($event IS NULL OR g.event = $event) AND ($since IS NULL OR g.date >= $since) "
         "AND ($until IS NULL OR g.date <= $until)")


@lru_cache(maxsize=64)
def _rules_of(text: str | None) -> Rules | None:
    if not text:
        return None
    try:
        return parse_rules(text)
    except RulesError:
        return None


def collect(wh: Warehouse, *, event: str | None = None, since: dt.date | None = None,
            until: dt.date | None = None, title: str | None = None, source: str = "") -> Report:
    """The report of the games the filters pick, read from ``wh``.

    Raises :class:`~auditor.warehouse.WarehouseError` when the data cannot be read.
    """
    params = {"event": event, "since": since, "until": until}
    games_rows = _rows(wh, f"""
        SELECT g.game_id, g.game, g.event, g.date, g.rules, g.players, g.teams, g.source_file, g.game_index,
               g.recorded_winner, g.winner, g.won_in_hand
        FROM games AS g WHERE {_PICK}
        ORDER BY g.date NULLS LAST, g.source_file, g.game_index, g.game_id""", params)
    # events in the order of their first game; the games without an Event tag last
    firsts: dict[str | None, int] = {}
    for i, g in enumerate(games_rows):
        firsts.setdefault(g["event"], i)
    order = sorted(firsts, key=lambda e: (e is None, firsts[e]))
    games_rows.sort(key=lambda g: order.index(g["event"]))

    # the score sheets, and each game's sides in the sheet's order
    sheet: dict[tuple[str, int], dict[str, Cell]] = {}
    sides: dict[str, dict[str, int]] = {}
    _, rows = _tuples(wh, f"""
        SELECT s.game_id, s.hand, s.side, s.side_order, s.recorded_score, s.recorded_total, s.score, s.total,
               s.derived
        FROM score_sheet AS s JOIN games AS g USING (game_id) WHERE {_PICK}
        ORDER BY s.game_id, s.hand, s.side_order""", params)
    for gid, hand, side, side_order, *figures in rows:
        sheet.setdefault((gid, hand), {})[side] = Cell(*figures)
        sides.setdefault(gid, {})[side] = side_order
    side_of = {(r["game_id"], r["player"]): r["side"] for r in _rows(wh, f"""
        SELECT gp.game_id, gp.player, gp.side FROM game_players AS gp JOIN games AS g USING (game_id)
        WHERE {_PICK}""", params)}

    games: list[GameReport] = []
    by_id: dict[str, GameReport] = {}
    for i, g in enumerate(games_rows, 1):
        rules = _rules_of(g["rules"])
        players = list(g["players"] or [])
        gr = GameReport(i, g["game_id"], g["game"], g["event"], g["date"], g["rules"], rules, players, g["teams"],
                        g["source_file"], g["recorded_winner"], g["winner"], g["won_in_hand"],
                        sorted(sides[g["game_id"]], key=sides[g["game_id"]].get) if g["game_id"] in sides
                        else players)
        games.append(gr)
        by_id[gr.game_id] = gr

    hands = 0
    played = 0
    for h in _rows(wh, f"""
            SELECT h.game_id, h.hand, h.status, h.pitcher, h.contract, h.contract_made, h.sold, h.sale, h.smudge,
                   h.revokers
            FROM hands AS h JOIN games AS g USING (game_id) WHERE {_PICK} ORDER BY h.game_id, h.hand, h.line""",
                   params):
        gr = by_id.get(h["game_id"])
        if gr is None:
            continue
        hands += 1
        played += h["status"] == "played"
        cells = sheet.get((gr.game_id, h["hand"]), {})
        gr.hands.append(SheetHand(h["hand"], h["status"], _contract_words(h, gr, side_of, cells), cells))

    findings = _findings(wh, params, by_id, filtered=any(v is not None for v in params.values()))
    analysed = _perfect_play(wh, params, by_id)
    diagrams, mistake_diagrams = _diagrams(wh, findings, by_id, _mistakes_drawn(games))
    rule_texts = rule_sections(f.code for f in findings)

    # the league tables of every event in one query each (per player, and per team where teams play)
    tables: dict[str, dict[str | None, list[dict]]] = {}
    teamed = {g.event for g in games if g.rules is not None and g.rules.partnership}
    for unit in ("player", "team") if teamed else ("player",):
        for row in league_table(wh, unit, event=event, since=since, until=until, per_event=True).to_pylist():
            tables.setdefault(unit, {}).setdefault(row["event"], []).append(row)
    events = []
    for name in order:
        evg = [g for g in games if g.event == name]
        teams = None
        if name in teamed:
            # the team table holds the sides of the partnership games only: in a game played alone the
            # stats' side is the player, who is in the player table
            sides = {s for g in evg if g.rules is not None and g.rules.partnership for s in g.sides}
            teams = _placed([r for r in tables["team"].get(name, []) if r["team"] in sides])
        mixed = name in teamed and any(g.rules is None or not g.rules.partnership for g in evg)
        events.append(EventReport(name, evg, tables["player"].get(name, []), teams, mixed))

    filters = {k: (v.isoformat() if isinstance(v, dt.date) else v) for k, v in params.items() if v is not None}
    if title is None:
        if len(events) == 1:
            title = f"{events[0].label}: results"
        else:
            title = "Pitch results" + (f": {len(events)} events" if events else "")
    return Report(title, source, events, games, findings, diagrams, rule_texts, hands, played, filters, analysed,
                  mistake_diagrams)


def _placed(rows: list[dict]) -> list[dict]:
    """Rows of a league table, some left out, placed again among themselves (ties stay ties)."""
    places = [r["place"] for r in rows]
    return [dict(r, place=1 + sum(1 for p in places if p < r["place"])) for r in rows]


#: What to run for the section on perfect play: from logs, and for a dataset.
NO_ANALYSIS = ("auditor report LOGS --analyze", "auditor import LOGS --out DATASET --analyze")

#: The mistakes each game's section names (the costliest first), and which of them get a diagram: every
#: one shown in a report of up to OPEN_GAMES games, the costliest up to CHART_GAMES, none in a season.
MISTAKES_SHOWN = 3
MISTAKES_IN_A_SEASON = 1


def _perfect_play(wh: Warehouse, params: dict, by_id: dict[str, GameReport]) -> int:
    """Each game's hands under perfect play and its costliest mistakes, from the analysis table; returns
    how many hands were examined."""
    shown = MISTAKES_SHOWN if len(by_id) <= CHART_GAMES else MISTAKES_IN_A_SEASON
    n = 0
    for r in _rows(wh, f"""
            SELECT a.game_id, a.hand, any_value(a.pitcher) AS pitcher, any_value(a.pitcher_side) AS pitcher_side,
                   any_value(a.contract) AS contract, any_value(a.par) AS par,
                   any_value(a.best_trump_par) AS best_trump_par,
                   arg_max(a.value_after, a.trick * 100 + a.position) AS result, any_value(a.claim) AS claim,
                   count(*) FILTER (WHERE a.mistake) AS mistakes,
                   coalesce(sum(a.cost) FILTER (WHERE a.mistake), 0) AS lost
            FROM analysis AS a JOIN games AS g USING (game_id) WHERE {_PICK}
            GROUP BY a.game_id, a.hand ORDER BY a.game_id, a.hand""", params):
        g = by_id.get(r.pop("game_id"))
        if g is not None:
            g.played[r["hand"]] = HandPlay(**r)
            n += 1
    if not n:
        return 0
    number = 0
    for r in _rows(wh, f"""
            SELECT * EXCLUDE (k) FROM (
                SELECT a.game_id, a.hand, a.trick, a.player, a.card, a.cost, a.value_before AS before,
                       a.value_after AS after, a.better, a.illegal,
                       row_number() OVER (PARTITION BY a.game_id ORDER BY a.cost DESC, a.hand, a.trick, a.position) AS k
                FROM analysis AS a JOIN games AS g USING (game_id) WHERE a.mistake AND {_PICK})
            WHERE k <= {shown}""", params):
        g = by_id.get(r.pop("game_id"))
        if g is not None:
            g.mistakes.append(Mistake(0, **dict(r, better=tuple((r["better"] or "").split()))))
    for g in sorted(by_id.values(), key=lambda g: g.index):  # numbered down the page
        g.mistakes.sort(key=lambda m: (-m.cost, m.hand, m.trick))
        for m in g.mistakes:
            number += 1
            m.number = number
    return n


def _mistakes_drawn(games: list[GameReport]) -> list[tuple[GameReport, Mistake]]:
    """The mistakes drawn with their hand and trick: every one shown in a short report, the costliest of
    each game up to :data:`CHART_GAMES` games, none in a season (they are listed)."""
    if len(games) > CHART_GAMES:
        return []
    return [(g, m) for g in games for m in (g.mistakes if len(games) <= OPEN_GAMES else g.mistakes[:1])]


def _contract_words(h: dict, game: GameReport, side_of: dict, cells: dict[str, Cell]) -> str:
    """A few words on a hand's contract for the score sheet: ``Dee 4 made``, ``Bob 2 set``, ``misdeal``."""
    status = h["status"]
    if status == "misdeal":
        return "misdeal"
    if status == "thrown-in":
        hit = [f"{s} {c.score:+d}" for s, c in cells.items() if c.score]
        return "all passed" + (": " + ", ".join(hit) if hit else "")
    if status == "unplayable":
        return "not recomputed"
    pitcher = h["pitcher"]
    if pitcher is None:
        return "?"
    sale = f", sold for {h['sale']}" if h["sold"] else ""
    if not h["contract"]:
        return f"{pitcher} pitched, no bid{sale}"
    top = ""
    if h["smudge"] and game.rules is not None and game.rules.top_bid_words:
        top = f" ({game.rules.top_bid_words[0]})"
    made = h["contract_made"]
    verdict = "made" if made else "set" if made is False else "?"
    revokers = list(h["revokers"] or [])
    if made is False and revokers and side_of.get((game.game_id, pitcher), pitcher) not in revokers:
        verdict = "short, not set"  # somebody else revoked
    return f"{pitcher} {h['contract']}{top} {verdict}{sale}"


def _findings(wh: Warehouse, params: dict, by_id: dict[str, GameReport], filtered: bool) -> list[FindingRow]:
    """Every finding about the picked games, and (with no filter) those about files no game came from.

    They are numbered in the order the page shows them: game by game, then in file order within a
    game; the findings about files come last.
    """
    rows = _rows(wh, f"""
        SELECT f.code, f.kind, f.severity, f.file, f.line, f."column", f.game_id, f.game, f.hand, f.trick, f.player,
               f.message, f.expected, f.recorded
        FROM findings AS f LEFT JOIN games AS g USING (game_id)
        WHERE (g.game_id IS NOT NULL AND {_PICK}) OR (f.game_id IS NULL AND NOT $filtered)
        ORDER BY f.file, f.line, f."column", f.code""", {**params, "filtered": filtered})
    last = len(by_id) + 1
    rows.sort(key=lambda r: by_id[r["game_id"]].index if r["game_id"] in by_id else last)
    out = []
    for i, r in enumerate(rows, 1):
        f = FindingRow(i, **r)
        out.append(f)
        g = by_id.get(f.game_id) if f.game_id else None
        if g is not None:
            g.findings.append(f)
    return out


def _diagrams(wh: Warehouse, findings: list[FindingRow], by_id: dict[str, GameReport],
              mistakes: Sequence[tuple[GameReport, Mistake]] = ()) -> tuple[dict[int, Diagram], dict[int, Diagram]]:
    """The hand and trick of every revoke and illegal play (by finding number), and of each mistake
    drawn (by mistake number): what each player held, and the trick."""
    # an examination (R503, severity info) is drawn with the revoke it examines, not twice
    wanted = [f for f in findings if f.kind in DIAGRAM_KINDS and f.trick is not None and f.hand is not None
              and f.game_id in by_id and f.severity != "info"]
    pairs = sorted({(f.game_id, f.hand) for f in wanted} | {(g.game_id, m.hand) for g, m in mistakes})
    if not pairs:
        return {}, {}
    pick = ("WITH wanted AS (SELECT DISTINCT * FROM (SELECT unnest($games) AS game_id, unnest($hands) AS hand))")
    params = {"games": [p[0] for p in pairs], "hands": [p[1] for p in pairs]}
    plays: dict[tuple, list[dict]] = {}
    for r in _rows(wh, f"""{pick} SELECT p.game_id, p.hand, p.trick, p.position, p.player, p.card, p.trick_winner
                           FROM plays AS p JOIN wanted USING (game_id, hand)
                           ORDER BY p.game_id, p.hand, p.trick, p.position""", params):
        plays.setdefault((r["game_id"], r["hand"]), []).append(r)
    deals: dict[tuple, dict[str, list[str]]] = {}
    for r in _rows(wh, f"{pick} SELECT d.game_id, d.hand, d.player, d.cards FROM deals AS d "
                       "JOIN wanted USING (game_id, hand)", params):
        deals.setdefault((r["game_id"], r["hand"]), {})[r["player"]] = list(r["cards"] or [])
    exchanges: dict[tuple, list[dict]] = {}
    for r in _rows(wh, f"{pick} SELECT x.game_id, x.hand, x.kind, x.player, x.cards FROM exchanges AS x "
                       "JOIN wanted USING (game_id, hand) ORDER BY x.game_id, x.hand, x.position", params):
        exchanges.setdefault((r["game_id"], r["hand"]), []).append(r)
    trumps = {(r["game_id"], r["hand"]): r["trump"] for r in _rows(
        wh, f"{pick} SELECT h.game_id, h.hand, h.trump FROM hands AS h JOIN wanted USING (game_id, hand)", params)}

    def draw(game: GameReport, hand: int, trick: int, player: str | None, card: int | None, could: frozenset[int],
             or_trump: bool, kind: str) -> Diagram:
        key = (game.game_id, hand)
        trump = trumps.get(key)
        return hand_diagram(game.players, deals.get(key, {}), exchanges.get(key, []), plays.get(key, []), hand,
                            trick, player, card, could, or_trump, SUITS.index(trump) if trump in tuple(SUITS) else None,
                            game.rules.deck_kind if game.rules is not None else "plain", kind)

    found = {}
    for f in wanted:
        could = frozenset(c for c in map(parse_card, re.findall(r"\b(?:[2-9TJQKA][SHDC]|JK[HL])\b",
                                                                  f.expected or "")) if c is not None)
        found[f.number] = draw(by_id[f.game_id], f.hand or 0, f.trick or 0, f.player, _card(f.recorded), could,
                               "or a trump" in (f.expected or ""), "finding")
    costly = {m.number: draw(g, m.hand, m.trick, m.player, _card(m.card),
                             frozenset(c for c in map(_card, m.better) if c is not None), False, "mistake")
              for g, m in mistakes}
    return found, costly


def _card(token: str | None) -> int | None:
    return parse_card(token) if token else None


def hand_diagram(players: Sequence[str], dealt: dict[str, list[str]], exchanges: Sequence[dict],
                 plays: Sequence[dict], hand: int, trick: int, player: str | None, card: int | None,
                 could: frozenset[int], or_trump: bool, trump: int | None, deck_kind: str,
                 kind: str = "finding") -> Diagram:
    """What each player held as ``trick`` began, and the trick, from the dataset's rows; ``player``'s
    ``card`` is the one in question, ``could`` the cards that were wanted instead.

    A player with no deal line is given the cards they went on to play, as ``auditor replay``
    does; the discards and draws of the exchange variants change the dealt hands before play.
    """
    held: dict[str, set[int]] = {p: {c for c in map(_card, dealt.get(p, ())) if c is not None} for p in players}
    inferred = {p for p in players if not held[p]}
    for p in plays:
        if p["player"] in inferred and (c := _card(p["card"])) is not None:
            held[p["player"]].add(c)
    for x in exchanges:
        who = x["player"]
        if who in held and who not in inferred:
            cards = {c for c in map(_card, x["cards"] or ()) if c is not None}
            held[who] = held[who] - cards if x["kind"] == "discard" else held[who] | cards
    for p in plays:
        if p["trick"] < trick and p["player"] in held and (c := _card(p["card"])) is not None:
            held[p["player"]].discard(c)
    this = [p for p in plays if p["trick"] == trick]
    order = [p["player"] for p in this] + [p for p in players if p not in {q["player"] for q in this}]
    return Diagram(
        hand, trick, trump, deck_kind,
        [(p, sort_for_display(held.get(p, ()), trump, deck_kind)) for p in dict.fromkeys(order)],
        {p["player"]: c for p in this if (c := _card(p["card"])) is not None},
        this[0]["player"] if this else None, this[0]["trick_winner"] if this else None,
        player, card, could, or_trump, kind)


# --------------------------------------------------------------------------- the rules cited


def _docs_dir() -> Path | None:
    """The project's docs/ folder beside the package (a checkout or an editable install), if there."""
    here = Path(str(resources.files("auditor"))).resolve()
    for d in (here / "docs", here.parent / "docs"):
        if (d / "rules.md").is_file():
            return d
    return None


def heading_anchor(title: str) -> str:
    """The anchor GitHub gives a Markdown heading (the catalogue's sections use them).

    >>> heading_anchor("Revokes (R501, R502)"), heading_anchor("S601: the hand's score")
    ('revokes-r501-r502', 's601-the-hands-score')
    """
    return re.sub(r"[^\w\- ]", "", title.strip().lower()).replace(" ", "-")


@lru_cache(maxsize=8)
def doc_sections(doc: str) -> dict[str, tuple[str, int, str]]:
    """Every section of a docs file by anchor: its title, its heading level, and its Markdown up to
    the next heading of the same or a higher level (sub-sections included). Empty without docs."""
    root = _docs_dir()
    if root is None or not (root / doc).is_file():
        return {}
    lines = (root / doc).read_text("utf-8").splitlines()
    heads = []
    fence = False
    for i, line in enumerate(lines):
        if line.startswith("```"):
            fence = not fence
        elif not fence and (m := re.match(r"^(#{1,6}) (.*)$", line)):
            heads.append((i, len(m.group(1)), m.group(2).strip()))
    out = {}
    for k, (i, level, title) in enumerate(heads):
        end = next((j for j, lv, _ in heads[k + 1:] if lv <= level), len(lines))
        out.setdefault(heading_anchor(title), (title, level, "\n".join(lines[i + 1:end]).strip()))
    return out


def rule_sections(codes: Iterable[str]) -> dict[str, RuleText]:
    """The docs sections the codes' rules are stated in, in the order of the docs."""
    wanted = {CATALOG[c].section for c in codes if c in CATALOG and CATALOG[c].section}
    out = {}
    for section in sorted(wanted, key=_section_order):
        doc, _, anchor = section.partition("#")
        found = doc_sections(doc).get(anchor)
        out[section] = RuleText(section, found[0] if found else None, _relevel(found) if found else None)
    return out


def _section_order(section: str) -> tuple:
    doc, _, anchor = section.partition("#")
    keys = list(doc_sections(doc))
    return (doc != "rules.md", keys.index(anchor) if anchor in keys else len(keys), section)


def _relevel(found: tuple[str, int, str]) -> str:
    """A section's sub-headings moved under the appendix's level-3 heading of the section."""
    _, level, body = found
    shift = 3 - level

    def move(m: re.Match) -> str:
        return "#" * max(4, min(6, len(m.group(1)) + shift)) + " "

    out, fence = [], False
    for line in body.splitlines():
        if line.startswith("```"):
            fence = not fence
        out.append(line if fence else re.sub(r"^(#{1,6}) ", move, line))
    return "\n".join(out)


# --------------------------------------------------------------------------- rulings in words


def _signed(v: int | None) -> str:
    return "—" if v is None else f"{v:+d}" if v else "0"


def sheet_differences(game: GameReport) -> list[tuple[SheetHand, str, str, int | None]]:
    """Where the sheet departs from the recomputed one: (hand, side, what, since) for each cell marked.

    ``what`` is ``score`` (the hand's score is wrong), ``total`` (a total that is not carried
    from the hand before) or ``carried`` (a total off by what an earlier hand left, ``since``).
    """
    out = []
    for side in game.sides:
        off: int | None = None  # how far the sheet's total was off after the last hand with a total
        since: int | None = None
        for h in game.hands:
            c = h.cells.get(side)
            if c is None:
                continue
            if c.score_differs:
                out.append((h, side, "score", None))
            if c.recorded_total is None or c.total is None:
                continue
            now = c.recorded_total - c.total
            if now and (now != off or c.score_differs):
                out.append((h, side, "total", None))
                since = h.hand
            elif now:
                out.append((h, side, "carried", since))
            off = now
    return out


def score_ruling(game: GameReport | None, f: FindingRow) -> str:
    """What the score should be, in words, for one finding (plain text)."""
    if game is None:
        return "No game was read from this file, so no score depends on it."
    if f.code == "S603":
        who = game.winner or "nobody"
        won = f" in hand {game.won_in_hand}" if game.winner and game.won_in_hand else ""
        return (f"On the recomputed scores {who} {'goes out' + won if game.winner else 'has gone out'}; "
                f"the sheet's winner line {'names ' + game.recorded_winner if game.recorded_winner else 'is missing'}.")
    if f.severity == "info":
        return ("No score changes for this examination: the revoke's penalty is the preset's (its R501). The "
                "points it shows the innocent side lost are to be made good if they claim them.")
    hand = next((h for h in game.hands if h.hand == f.hand), None) if f.hand is not None else None
    if hand is None:
        return "The finding is about the record, not a hand: no score changes."
    if hand.status == "unplayable":
        return (f"Hand {hand.hand} cannot be recomputed from the record, so its score is not checked: the sheet's "
                "figures are carried on as written.")
    marks: dict[str, set[str]] = {}
    since: dict[str, int | None] = {}
    for h, side, what, start in sheet_differences(game):
        if h is hand:
            marks.setdefault(side, set()).add(what)
            if what == "carried":
                since[side] = start
    cells = [(s, hand.cells[s]) for s in game.sides if s in hand.cells]
    wrong = [(s, c) for s, c in cells if marks.get(s, set()) & {"score", "total"}]
    if f.player in hand.cells:  # the side the finding names first
        wrong.sort(key=lambda sc: sc[0] != f.player)
    word = "still needed" if game.count_down else "total"
    carried = [f"{s}'s {word} is off by what hand {since[s]} left" for s, _ in cells
               if "carried" in marks.get(s, ()) and s not in dict(wrong)]
    if not wrong:
        scores = ", ".join(f"{s} {_signed(c.score)}" for s, c in cells)
        if carried:
            return f"The sheet's scores for hand {hand.hand} are right ({scores}); " + "; ".join(carried) + "."
        return f"The sheet's figures for hand {hand.hand} stand as written ({scores})."
    parts = []
    for s, c in wrong:
        calc, rec = [], []
        if c.score_differs:
            calc.append(f"score {_signed(c.score)}")
            rec.append(_signed(c.recorded_score))
        if c.total_differs:
            calc.append(f"{word} {c.total}")
            rec.append(str(c.recorded_total))
        parts.append(f"{s}: {' and '.join(calc)} (the sheet has {' and '.join(rec)})")
    text = f"Hand {hand.hand} should read " + "; ".join(parts) + "."
    if carried:
        rest = "; ".join(carried)
        text += f" {rest[0].upper()}{rest[1:]}."
    later = _carried_to_end(game, hand, [s for s, c in wrong if c.total_differs])
    if later:
        text += " " + later
    return text


def _carried_to_end(game: GameReport, hand: SheetHand, sides: list[str]) -> str:
    """How far the difference runs on the sheet after ``hand``."""
    later = [h for h in game.hands if h.hand > hand.hand]
    out = []
    for s in sides:
        run = [h for h in later if (c := h.cells.get(s)) is not None and c.total_differs]
        if run and run[-1] is later[-1]:
            c = run[-1].cells[s]
            out.append(f"{s}'s later totals carry the difference to the end of the sheet ({c.total}, "
                       f"not {c.recorded_total}, after hand {run[-1].hand})")
        elif run:
            out.append(f"{s}'s totals carry it through hand {run[-1].hand}")
    return ("; ".join(out) + ".") if out else ""


def points_words(n: int) -> str:
    return plural(n, "point")


def par_words(p: HandPlay) -> str:
    """Who bid under or over par, in words."""
    if p.bid_vs_par == "over":
        return "over par: not makeable"
    if p.bid_vs_par == "under":
        return f"under par by {p.par - p.contract}"
    if p.bid_vs_par == "at":
        return "at par"
    return "no bid" if not p.contract else "—"


def mistake_words(m: Mistake) -> str:
    """``Hand 4, trick 3: Ann played 4C, which cost 4 points (the pitcher's value 2 → −2); TH would have kept 2.``"""
    what = "revoked with" if m.illegal else "played"
    kept = f"; {' or '.join(m.better)} would have kept {_signed(m.before)}" if m.better else ""
    return (f"Hand {m.hand}, trick {m.trick}: {m.player} {what} {m.card}, which cost {points_words(m.cost)} "
            f"(the pitcher's value {_signed(m.before)} → {_signed(m.after)}){kept}.")


def mistake_html(m: Mistake) -> str:
    """:func:`mistake_words` with the cards drawn as cards."""
    def card(token: str) -> str:
        c = _card(token)
        return card_html(c) if c is not None else _e(token)

    what = "revoked with" if m.illegal else "played"
    kept = f"; {' or '.join(map(card, m.better))} would have kept {_e(_signed(m.before))}" if m.better else ""
    return (f"Hand {m.hand}, trick {m.trick}: {_e(m.player)} {what} {card(m.card)}, which cost "
            f"{_e(points_words(m.cost))} (the pitcher's value {_e(_signed(m.before))} → {_e(_signed(m.after))}){kept}.")


def result_words(game: GameReport) -> str:
    """The game's result in a sentence, on the recomputed scores."""
    final = game.final
    standing = ", ".join(f"{s} {final[s].total}" for s in game.sides if s in final and final[s].total is not None)
    word = " (points still needed)" if game.count_down else ""
    if game.winner:
        went = f", going out in hand {game.won_in_hand}" if game.won_in_hand else ""
        return f"{game.winner} won{went}. Final{word}: {standing}."
    return f"Not finished: nobody has gone out. Standing{word}: {standing}."


# --------------------------------------------------------------------------- charts


class Charts:
    """Each game's running totals as an SVG line chart, drawn by matplotlib.

    One figure is made once and reused: each chart only sets its lines' data and limits, so no
    figure, axes or line is made again. A chart still takes 15-20 ms, most of it laying out the
    tick labels, hence few ticks. matplotlib is imported here, on first use, and its settings
    are changed only while this object draws.
    """

    def __init__(self) -> None:
        from matplotlib import rc_context
        from matplotlib.figure import Figure
        from matplotlib.ticker import MaxNLocator

        # The figure is about as wide as a phone shows it (360 units), and its text as big as the page's:
        # scaled to the width of the page, a label is never smaller than the body text (the page caps
        # the chart's width on a wide screen, so it does not grow far beyond).
        self._style = {"svg.fonttype": "none", "svg.hashsalt": "auditor", "font.size": CHART_FONT,
                       "font.family": "sans-serif", "axes.linewidth": 0.8}
        with rc_context(self._style):
            self.fig = Figure(figsize=(CHART_WIDTH / 72, 2.7), dpi=72)
            self.ax = self.fig.add_axes((0.15, 0.22, 0.83, 0.74))
            # few ticks: each tick label is most of the time a chart takes
            self.ax.xaxis.set_major_locator(MaxNLocator(nbins=6, integer=True))
            self.ax.yaxis.set_major_locator(MaxNLocator(nbins=4, integer=True))
            self.ax.grid(True, axis="y", color="#d0d0d0", linewidth=0.6)
            self.ax.set_axisbelow(True)
            for spine in ("top", "right"):
                self.ax.spines[spine].set_visible(False)
            self.ax.set_xlabel("hand")
            self.target = self.ax.axhline(0, color="#555555", linewidth=0.9, linestyle=(0, (1, 2)))
            self.target.set_gid("target")
        self.ylabel = ""
        self.lines: list = []
        self.sheet_lines: list = []

    def _line(self, pool: list, i: int, sheet: bool):
        while len(pool) <= i:
            k = len(pool)
            line, = self.ax.plot([], [], color=PALETTE[k % len(PALETTE)],
                                 marker="x" if sheet else MARKERS[k % len(MARKERS)], markersize=4 if sheet else 4.5,
                                 linewidth=1.1 if sheet else 1.8, linestyle=(0, (4, 2)) if sheet else "-",
                                 alpha=0.85 if sheet else 1.0)
            line.set_gid(f"{'sheet' if sheet else 'series'}-{k}")
            pool.append(line)
        return pool[i]

    def draw(self, game: GameReport, key: str) -> str:
        """The chart of one game as an ``<svg>`` element whose ids all start with ``key``."""
        from matplotlib import rc_context

        xs = list(range(len(game.hands) + 1))
        start = game.rules.game if game.count_down and game.rules is not None else 0
        values = []
        for i, s in enumerate(game.sides):
            ys = [start] + [h.cells[s].total if s in h.cells else None for h in game.hands]
            line = self._line(self.lines, i, False)
            line.set_data(xs, [float("nan") if y is None else y for y in ys])
            line.set_visible(True)
            values += [y for y in ys if y is not None]
        for line in self.lines[len(game.sides):]:
            line.set_visible(False)
        shown = 0
        for i, s in enumerate(game.sides):
            if not any(s in h.cells and h.cells[s].total_differs for h in game.hands):
                continue
            ys = [start] + [h.cells[s].recorded_total if s in h.cells else None for h in game.hands]
            line = self._line(self.sheet_lines, shown, True)
            line.set_color(PALETTE[i % len(PALETTE)])
            line.set_data(xs, [float("nan") if y is None else y for y in ys])
            line.set_visible(True)
            line.set_gid(f"sheet-{i}")
            values += [y for y in ys if y is not None]
            shown += 1
        for line in self.sheet_lines[shown:]:
            line.set_visible(False)
        target = 0 if game.count_down else (game.rules.game if game.rules is not None else None)
        self.target.set_visible(target is not None)
        if target is not None:
            self.target.set_ydata([target, target])
            values.append(target)
        lo, hi = (min(values), max(values)) if values else (0, 1)
        pad = max(1, (hi - lo) * 0.06)
        self.ax.set_xlim(0, max(1, len(game.hands)))
        self.ax.set_ylim(lo - pad, hi + pad)
        ylabel = "points still needed" if game.count_down else "running total"
        if ylabel != self.ylabel:
            self.ax.set_ylabel(ylabel)
            self.ylabel = ylabel
        buf = io.StringIO()
        with rc_context(self._style):
            self.fig.savefig(buf, format="svg", metadata={"Date": None})
        return _inline_svg(buf.getvalue(), key)


    def bars(self, labels: list[str], values: list[float], key: str, xlabel: str) -> str:
        """A horizontal bar per label (the first on top), its value written at its end, as an ``<svg>``
        whose ids start with ``key``. A figure of its own, made each time (a few per report)."""
        from matplotlib import rc_context
        from matplotlib.figure import Figure

        with rc_context(self._style):
            height = 0.25 + 0.34 * len(labels)  # inches: a bar and its gap each, and a margin
            fig = Figure(figsize=(CHART_WIDTH / 72, height), dpi=72)
            longest = max(len(x) for x in labels)
            left = min(0.45, 0.06 + 0.028 * longest)
            ax = fig.add_axes((left, 0.1 / height, 0.97 - left, 1 - 0.2 / height))
            ys = list(range(len(labels)))[::-1]
            for i, bar in enumerate(ax.barh(ys, values, color=PALETTE[0], height=0.62)):
                bar.set_gid(f"bar-{i}")
            ax.set_yticks(ys, labels)
            top = max(values) if values and max(values) > 0 else 1
            ax.set_xlim(0, top * 1.25)
            for y, v in zip(ys, values):
                ax.text(v + top * 0.02, y, f"{v:.2f}", va="center")
            ax.set_xlabel(xlabel)
            for spine in ("top", "right"):
                ax.spines[spine].set_visible(False)
            ax.xaxis.set_visible(False)
            ax.set_xlabel("")
            buf = io.StringIO()
            fig.savefig(buf, format="svg", metadata={"Date": None})
        return _inline_svg(buf.getvalue(), key)


def _inline_svg(svg: str, key: str) -> str:
    """matplotlib's SVG file as an element of the page: no prolog, no metadata, ids made unique to
    the chart (several charts share a page), and sized by the page (the viewBox keeps the shape)."""
    svg = svg[svg.index("<svg"):]
    svg = re.sub(r"\s*<metadata>.*?</metadata>", "", svg, count=1, flags=re.S)
    svg = _smaller_svg(svg)
    ids = set(re.findall(r'\bid="([^"]+)"', svg))

    def rename(m: re.Match) -> str:
        name = m.group(2)
        return f"{m.group(1)}{key}-{name}" if name in ids else m.group(0)

    svg = re.sub(r'(\bid="|#)([A-Za-z_][\w.\-]*)', rename, svg)
    svg = re.sub(r'<svg [^>]*?(viewBox="[^"]*")[^>]*>',
                 lambda m: f'<svg class="chart" {m.group(1)} preserveAspectRatio="xMinYMid meet" role="img" '
                           f'aria-labelledby="{key}-title" xmlns="http://www.w3.org/2000/svg">',
                 svg, count=1)
    return svg.strip()


#: The ids matplotlib gives that the page keeps: the lines' (the tests and readers find them), the bars'
#: and the target's; every other id goes unless something refers to it.
_KEPT_IDS = re.compile(r"^(?:series|sheet|bar)-\d+$|^target$")


def _smaller_svg(svg: str) -> str:
    """matplotlib's SVG without what the page does not need: a season's report has hundreds of charts.

    The font list on every label goes (the page's sans-serif applies), numbers keep one decimal (a
    tenth of a point), ids nothing refers to go, the markers of a line share their style, and the
    indentation goes; what is drawn stays as it was.
    """
    used = set(re.findall(r'(?:href="#|url\(#)([^")]+)', svg))
    svg = re.sub(r"\s*<defs>\s*<style type=\"text/css\">.*?</style>\s*</defs>", "", svg, count=1, flags=re.S)
    svg = re.sub(r"font-family: [^;\"]*;? ?", "", svg)
    svg = re.sub(r' transform="rotate\(-?0 [^)]*\)"', "", svg)
    svg = re.sub(r' id="([^"]+)"', lambda m: m.group(0) if m.group(1) in used or _KEPT_IDS.match(m.group(1)) else "",
                 svg)
    # matplotlib names a marker or a clip path by a hash; a short number does as well, on every point
    short = {name: f"{name[0]}{i}" for i, name in enumerate(sorted(n for n in used if re.fullmatch(r"[mp][0-9a-f]{10}", n)))}
    if short:
        svg = re.sub(r'(?<=id=")([mp][0-9a-f]{10})(?=")|(?<=#)([mp][0-9a-f]{10})(?=[")])',
                     lambda m: short.get(m.group(0), m.group(0)), svg)

    def tenths(m: re.Match) -> str:  # in attributes only: a label's text stays as written
        value = re.sub(r"(\d+\.\d)\d+", r"\1", m.group(1))
        return '="' + re.sub(r"(\d)\.0(?![\d.])", r"\1", value) + '"'

    svg = re.sub(r'="([^"]*)"', tenths, svg)
    svg = re.sub(r">\s+<", "><", svg)
    svg = re.sub(r"\s*\n\s*", " ", svg)
    svg = re.sub(r" (?=\"|/>)", "", svg)

    def shared(m: re.Match) -> str:  # a line's markers: one style on their group, not one on each
        items = re.findall(r'<use ([^>]*?) style="([^"]*)"/>', m.group(2))
        styles = {st for _, st in items}
        if len(items) < 2 or len(styles) != 1 or "style=" in m.group(1):
            return m.group(0)
        return f'<g{m.group(1)} style="{styles.pop()}">' + "".join(f"<use {a}/>" for a, _ in items) + "</g>"

    svg = re.sub(r"<g([^>]*)>((?:<use [^>]*/>)+)</g>", shared, svg)
    return svg.replace("xlink:href=", "href=")


def disputed(game: GameReport) -> bool:
    """Whether the audit has something to say about a game: a finding, or a sheet that departs from it."""
    return bool(game.findings or sheet_differences(game) or game.winner_differs())


def detail_games(report: Report, detail: str) -> set[int]:
    """Which games are shown in full: ``all``; ``disputed`` (see :func:`disputed`); ``auto``: all up to
    :data:`CHART_GAMES` games, else the disputed ones."""
    if detail not in DETAIL_CHOICES:
        raise ValueError(f"detail must be one of {', '.join(DETAIL_CHOICES)}, not {detail!r}")
    if detail == "all" or (detail == "auto" and len(report.games) <= CHART_GAMES):
        return {g.index for g in report.games}
    return {g.index for g in report.games if disputed(g)}


def chart_games(report: Report, charts: str) -> set[int]:
    """Which games get a chart: ``all``; ``findings``: those with findings or a sheet that departs from
    the audit; ``none``; ``auto``: all up to :data:`CHART_GAMES` games, else the first
    :data:`CHARTS_IN_A_SEASON` of those with findings."""
    if charts not in CHART_CHOICES:
        raise ValueError(f"charts must be one of {', '.join(CHART_CHOICES)}, not {charts!r}")
    if charts == "none":
        return set()
    if charts == "all" or (charts == "auto" and len(report.games) <= CHART_GAMES):
        return {g.index for g in report.games}
    shown = [g.index for g in report.games if g.findings or sheet_differences(g)]
    return set(shown if charts == "findings" else shown[:CHARTS_IN_A_SEASON])


# --------------------------------------------------------------------------- HTML


def _e(text: object) -> str:
    return html.escape("" if text is None else str(text), quote=True)


def card_html(card: int, cls: str = "") -> str:
    """A card as its rank and suit symbol, coloured by suit (a class; the symbol carries the suit)."""
    name = CARD_NAMES[card]
    if card >= 52:
        text, suit = ("JK▲" if name == "JKH" else "JK▼"), "j"
        label = "high joker" if name == "JKH" else "low joker"
    else:
        s = suit_of(card)
        rank = "10" if name[0] == "T" else name[0]
        text, suit, label = rank + SUIT_SYMBOLS[s], SUITS[s].lower(), f"{rank} of {SUIT_NAMES[s]}"
    return f'<span class="card {suit}{" " + cls if cls else ""}" title="{label}">{text}</span>'


_CSS_FILE = "report.css"
_JS_FILE = "report.js"


def _asset(name: str) -> str:
    return resources.files("auditor").joinpath("report_assets", name).read_text("utf-8")


@lru_cache(maxsize=1)
def _markdown():
    from markdown_it import MarkdownIt

    return MarkdownIt("commonmark", {"html": False}).enable("table")


def _markdown_html(text: str, rules: dict[str, RuleText], doc: str = "") -> str:
    """A section of the docs file ``doc`` as HTML: links to a section of this appendix stay links,
    every other link becomes its text, and an image its description (the page requests nothing)."""
    from markdown_it import MarkdownIt

    # a parser of its own: its link rules know this report's sections
    md = MarkdownIt("commonmark", {"html": False}).enable("table")
    local = {r.section: r.anchor for r in rules.values() if r.body is not None}

    def link_open(self, tokens, idx, options, env):
        href = tokens[idx].attrGet("href") or ""
        name, _, anchor = href.rpartition("/")[2].partition("#")
        target = local.get(f"{name or doc}#{anchor}") if (name or doc).endswith(".md") else None
        env.setdefault("links", []).append(target is not None)
        return f'<a href="#{target}">' if target else '<span class="xref">'

    def link_close(self, tokens, idx, options, env):
        return "</a>" if env["links"].pop() else "</span>"

    def image(self, tokens, idx, options, env):
        return f'<span class="xref">{html.escape(tokens[idx].content)}</span>'

    md.add_render_rule("link_open", link_open)
    md.add_render_rule("link_close", link_close)
    md.add_render_rule("image", image)
    return md.render(text, {})


@lru_cache(maxsize=256)
def _inline_md(text: str) -> str:
    return _markdown().renderInline(text)


def _place(rows: list[dict], i: int) -> str:
    p = rows[i]["place"]
    tied = sum(1 for r in rows if r["place"] == p) > 1
    return f"{p}=" if tied else str(p)


def _num(v: object, digits: int = 1) -> str:
    if v is None:
        return "—"
    if isinstance(v, float):
        return f"{v:.{digits}f}"
    return str(v)


#: Severities as the page names them: (severity, heading, what it means).
SEVERITIES = (("error", "Errors", "verdicts: a rule broken, a score wrong"),
              ("warning", "Warnings", "worth a look: a call the record does not bear out, a doubtful record"),
              ("info", "Information", "examinations: what each revoke cost the innocent side"))
SEVERITY_WORD = {"error": "error", "warning": "warning", "info": "information"}
KIND_ORDER = ("input", "deal", "auction", "play", "revoke", "score")
KIND_WORDS = {"input": "The record (input)", "deal": "The deal", "auction": "The auction", "play": "The play",
              "revoke": "Revokes", "score": "The score sheet"}
#: A report with more findings than this folds every group of the findings table (a click opens one).
FINDINGS_OPEN = 60
ACCURACY = ("points_lost_per_100_cards", "mistakes_per_hand")


def _by_kind(findings: Iterable[FindingRow]) -> list[tuple[str, list[FindingRow]]]:
    """Findings by kind, in the order of the game (the record, the deal, the auction, the play, ...)."""
    out: dict[str, list[FindingRow]] = {}
    for f in findings:
        out.setdefault(f.kind or "input", []).append(f)
    return sorted(out.items(), key=lambda kv: (KIND_ORDER.index(kv[0]) if kv[0] in KIND_ORDER else 99, kv[0]))


def _by_code(findings: Iterable[FindingRow]) -> list[tuple[str, list[FindingRow]]]:
    out: dict[str, list[FindingRow]] = {}
    for f in findings:
        out.setdefault(f.code, []).append(f)
    return sorted(out.items())


def _severity_words(r: Report) -> str:
    """``34 findings: 26 errors, 8 information``."""
    sev = r.severities()
    parts = [plural(sev[k], SEVERITY_WORD[k], "information" if k == "info" else None)
             for k, _, _ in SEVERITIES if sev.get(k)]
    head = plural(len(r.findings), "finding")
    return head + (": " + ", ".join(parts) if len(parts) > 1 or (parts and sev.get("info")) else "")


def _where_words(f: FindingRow) -> str:
    return f"trick {f.trick}" if f.trick is not None else f"line {f.line}" if f.line else "the file"


def _date_html(d: dt.date) -> str:
    """A date that never breaks at its hyphens."""
    return f'<time class="date" datetime="{d.isoformat()}">{d.isoformat()}</time>'


def _date_range_html(first: dt.date, last: dt.date) -> str:
    return _date_html(first) if first == last else f"{_date_html(first)} to {_date_html(last)}"


def _event_dates_html(ev: EventReport) -> str:
    ds = sorted(g.date for g in ev.games if g.date is not None)
    return _date_range_html(ds[0], ds[-1]) if ds else ""


def standings_columns(rows: list[dict], unit: str) -> list[tuple[str, str, str]]:
    """The league table's columns: (key, heading, what it means), from the stats columns."""
    cols = [("place", "Place", "placing: games won, then win %, then points per hand; = marks a tie"),
            (unit, unit.capitalize(), "the player" if unit == "player" else "the team (a player, where one played "
             "alone)"),
            ("games", "Played", "games played"), ("games_won", "Won", "games won on the recomputed scores"),
            ("win_pct", "Win %", "games won per 100 finished"), ("hands", "Hands", "hands played out"),
            ("auctions_won", "Bids won", "auctions won (contracts to make)"),
            ("contracts_made", "Made", "contracts made"), ("times_set", "Set", "contracts set back"),
            ("score", "Points", "the recomputed hand scores added up: points made less set-backs"),
            ("revokes", "Revokes", "hands in which the player (or a member of the team) revoked")]
    if any(r.get("settlement") is not None for r in rows):
        cols.append(("settlement", "Settlement", "units won (+) or paid (−) in the club settlement"))
    if any(r.get("cards_analysed") for r in rows):
        cols += [("points_lost_per_100_cards", "Lost /100 cards",
                  "points the mistakes cost the side under perfect play, per 100 cards played (fewer is better)"),
                 ("mistakes_per_hand", "Mistakes /hand", "cards that lowered the side's value, per hand examined")]
    return cols


class _Html:
    """The HTML page, written piece by piece into a list of strings."""

    def __init__(self, report: Report, charts: str, detail: str = "auto"):
        self.r = report
        self.out: list[str] = []
        self.detailed = detail_games(report, detail)
        self.charted = chart_games(report, charts) & self.detailed
        # a long report gives each code's why once, in the findings table, not in every ruling
        self.why_once = len(report.findings) > FINDINGS_OPEN
        self.painter: Charts | None = None
        self.open = len(report.games) <= OPEN_GAMES

    def w(self, *parts: str) -> None:
        self.out.extend(parts)

    # -- the page

    def page(self) -> str:
        r = self.r
        self.w("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n",
               '<meta name="viewport" content="width=device-width, initial-scale=1">\n',
               f'<meta name="generator" content="auditor {_e(__version__)}">\n',
               f"<title>{_e(r.title)}</title>\n<style>\n{_asset(_CSS_FILE)}</style>\n</head>\n<body>\n")
        self.header()
        self.nav()
        self.w("<main>\n")
        self.summary()
        self.standings()
        self.findings_index()
        self.games()
        self.appendix()
        self.w("</main>\n")
        self.w(f'<footer><p>Made by auditor {_e(__version__)} from {_e(r.source)}. Recomputed scores, standings '
               "and rulings are the audit's; see the rules cited above.</p></footer>\n")
        self.w(f"<script>\n{_asset(_JS_FILE)}</script>\n</body>\n</html>\n")
        return "".join(self.out)

    def header(self) -> None:
        r = self.r
        ds = sorted(g.date for g in r.games if g.date is not None)
        picked = ", ".join(f"{k} {v}" for k, v in r.filters.items())
        parts = [_date_range_html(ds[0], ds[-1]) if ds else "",
                 _e(plural(len(r.games), "game")), _e(plural(len(r.events), "event")),
                 _e(f"picked by {picked}") if picked else ""]
        self.w("<header>\n", f"<h1>{_e(r.title)}</h1>\n", '<p class="meta">', " · ".join(x for x in parts if x),
               "</p>\n</header>\n")

    def nav(self) -> None:
        r = self.r
        self.w('<nav aria-label="Contents"><h2>Contents</h2>\n<ol>\n',
               '<li><a href="#summary">Summary</a></li>\n<li><a href="#standings">Standings</a><ol>\n')
        for ev in r.events:
            self.w(f'<li><a href="#standings-{ev.anchor}">{_e(ev.label)}</a></li>\n')
        self.w("</ol></li>\n", f'<li><a href="#findings">Findings and rulings ({_e(_severity_words(r))})</a></li>\n',
               '<li><a href="#games">Games</a><ol>\n')
        for ev in r.events:
            self.w(f'<li><a href="#{ev.anchor}">{_e(ev.label)}</a> ({len(ev.games)})</li>\n')
        self.w("</ol></li>\n")
        if r.rules:
            self.w('<li><a href="#rules">The rules cited</a></li>\n')
        self.w("</ol>\n</nav>\n")

    def summary(self) -> None:
        r = self.r
        finished = sum(1 for g in r.games if g.winner)
        sev = r.severities()
        self.w('<section id="summary" aria-labelledby="summary-h">\n<h2 id="summary-h">Summary</h2>\n',
               '<dl class="figures">\n',
               f"<div><dt>Games</dt><dd>{len(r.games)}</dd><dd class=\"note\">{finished} finished</dd></div>\n",
               f"<div><dt>Hands</dt><dd>{r.hands}</dd><dd class=\"note\">{r.played} played out</dd></div>\n",
               f"<div><dt>Players</dt><dd>{len(r.players)}</dd></div>\n")
        # errors and warnings are verdicts; information (R503: what a revoke cost) is an examination, not a fault
        for key, head, note in SEVERITIES:
            if sev.get(key) or key == "error":
                self.w(f'<div class="sev-{key}"><dt>{head}</dt><dd>{sev.get(key, 0)}</dd>'
                       f'<dd class="note">{_e(note)}</dd></div>\n')
        if r.analysed:
            self.w(f'<div><dt>Perfect play</dt><dd>{r.analysed}</dd><dd class="note">hands examined</dd></div>\n')
        self.w("</dl>\n")
        if r.findings:
            shown = [(k, h) for k, h, _ in SEVERITIES if sev.get(k)]
            self.w('<div class="table-wrap"><table class="kinds">\n<caption>Findings by kind</caption>\n',
                   '<thead><tr><th scope="col">Kind</th>',
                   "".join(f'<th scope="col" class="n">{h}</th>' for _, h in shown),
                   '<th scope="col">Codes</th></tr></thead>\n<tbody>\n')
            for kind, rows in _by_kind(r.findings):
                counts = Counter(f.severity or "error" for f in rows)
                codes = Counter(f.code for f in rows)
                self.w(f'<tr><th scope="row"><a href="#findings-{_e(kind)}">{_e(kind)}</a></th>',
                       "".join(f'<td class="n">{counts.get(k) or ""}</td>' for k, _ in shown),
                       f"<td>{_e(', '.join(f'{c} ×{n}' if n > 1 else c for c, n in sorted(codes.items())))}</td>"
                       "</tr>\n")
            self.w("</tbody>\n</table></div>\n")
        else:
            self.w('<p class="ok">The audit found nothing wrong: every card legal, every score right.</p>\n')
        if len(r.events) > 1:
            self.w('<div class="table-wrap"><table class="events">\n<caption>Events</caption>\n<thead><tr>'
                   '<th scope="col">Event</th><th scope="col">Dates</th><th scope="col" class="n">Games</th>'
                   '<th scope="col">Won most games</th><th scope="col" class="n">Errors</th></tr></thead>\n'
                   "<tbody>\n")
            for ev in r.events:
                rows, unit = (ev.teams, "team") if ev.teams else (ev.players, "player")
                top = ", ".join(row[unit] for row in rows if row["place"] == 1 and row["games_won"])
                n = sum(1 for g in ev.games for f in g.findings if f.severity != "info")
                self.w(f'<tr><th scope="row"><a href="#standings-{ev.anchor}">{_e(ev.label)}</a></th>'
                       f"<td>{_event_dates_html(ev)}</td><td class=\"n\">{len(ev.games)}</td><td>{_e(top or '—')}</td>"
                       f'<td class="n">{n}</td></tr>\n')
            self.w("</tbody>\n</table></div>\n")
        self.w("</section>\n")

    def standings(self) -> None:
        self.w('<section id="standings" aria-labelledby="standings-h">\n<h2 id="standings-h">Standings</h2>\n',
               '<p class="note">Placed by games won, then win %, then points per hand, on the recomputed scores: '
               "the figures of <code>auditor stats</code>.")
        if self.r.analysed:
            self.w(" Accuracy is under perfect play: the points each player's mistakes cost their side per 100 "
                   "cards played, and mistakes per hand examined.")
        self.w("</p>\n")
        if not self.r.analysed:
            self.no_analysis()
        for ev in self.r.events:
            self.w(f'<section class="event-standings" id="standings-{ev.anchor}">\n<h3>{_e(ev.label)}</h3>\n')
            if ev.dates:
                self.w(f'<p class="meta">{_event_dates_html(ev)} · {_e(plural(len(ev.games), "game"))}</p>\n')
            if ev.teams is not None:
                partnership = sum(1 for g in ev.games if g.rules is not None and g.rules.partnership)
                caption = f"Teams, {ev.label}"
                if ev.mixed:
                    caption += (f": the sides of the {plural(partnership, 'partnership game')} only (of "
                                f"{len(ev.games)})")
                self.league(ev.teams, "team", caption)
            caption = f"Players, {ev.label}"
            if ev.mixed:
                caption += (": every game, each partner credited with the team's points in partnership games, "
                            "a player alone with their own")
            self.league(ev.players, "player", caption)
            self.accuracy_chart(ev)
            self.w("</section>\n")
        self.w("</section>\n")

    def no_analysis(self) -> None:
        """Where the section on perfect play would be: how to get it."""
        self.w('<p class="note no-analysis">Perfect play (par beside each hand\'s result, each player\'s accuracy, '
               "the costliest mistakes, claims) is not in this report: its hands were not examined. "
               f"<code>{_e(NO_ANALYSIS[0])}</code> examines them; for a dataset, <code>{_e(NO_ANALYSIS[1])}</code> "
               "before the report.</p>\n")

    def league(self, rows: list[dict], unit: str, caption: str) -> None:
        cols = standings_columns(rows, unit)
        self.w(f'<div class="table-wrap"><table class="standings" data-unit="{unit}">\n<caption>{_e(caption)}'
               "</caption>\n<thead><tr>")
        for key, head, meaning in cols:
            num = "" if key == unit else ' class="n"'
            self.w(f'<th scope="col"{num} title="{_e(meaning)}">{_e(head)}</th>')
        self.w("</tr></thead>\n<tbody>\n")
        for i, row in enumerate(rows):
            self.w("<tr>")
            for key, _, _ in cols:
                if key == unit:
                    self.w(f'<th scope="row">{_e(row[key])}</th>')
                elif key == "place":
                    self.w(f'<td class="n">{_place(rows, i)}</td>')
                else:
                    self.w(f'<td class="n">{_e(_num(row.get(key), 2 if key in ACCURACY else 1))}</td>')
            self.w("</tr>\n")
        self.w("</tbody>\n</table></div>\n")

    def accuracy_chart(self, ev: EventReport) -> None:
        """Each player's points lost per 100 cards as bars, best first: where a table of figures is hard
        to compare at a glance."""
        rows = sorted((r for r in ev.players if r.get("cards_analysed")),
                      key=lambda r: (r["points_lost_per_100_cards"] or 0, r["player"]))
        if len(rows) < 2:
            return
        if self.painter is None:
            self.painter = Charts()
        key = f"accuracy-{ev.anchor}"
        title = f"Points lost to mistakes per 100 cards, {ev.label} (fewer is better)"
        svg = self.painter.bars([r["player"] for r in rows], [r["points_lost_per_100_cards"] or 0 for r in rows],
                                key, "points lost per 100 cards")
        svg = svg.replace(">", f'><title id="{key}-title">{_e(title)}</title>', 1)
        self.w(f'<figure class="chart accuracy" data-bars="{len(rows)}">\n{svg}\n<figcaption>{_e(title)}; '
               "mistakes per hand: " + ", ".join(f"{_e(r['player'])} {_num(r['mistakes_per_hand'], 2)}" for r in rows)
               + ".</figcaption>\n</figure>\n")

    def findings_index(self) -> None:
        r = self.r
        self.w('<section id="findings" aria-labelledby="findings-h">\n<h2 id="findings-h">Findings and rulings</h2>\n')
        if not r.findings:
            self.w("<p>None: the audit found nothing to rule on.</p>\n</section>\n")
            return
        games = {g.game_id: g for g in r.games}
        sev = r.severities()
        self.w(f'<p class="note">{_e(_severity_words(r))}, by kind and code; each links to its ruling, with its game '
               "(the rulings are numbered down the page, game by game).")
        if sev.get("info"):
            self.w(" Information is an examination, not a fault: R503 says what a revoke cost the innocent side; "
                   "the penalty is its R501's.")
        self.w("</p>\n")
        # the buttons need the page's script; without it every group is there, and folds by hand
        self.w('<p class="filter" hidden>Show: <button type="button" data-show="all" aria-pressed="true">all</button> '
               + " ".join(f'<button type="button" data-show="{k}" aria-pressed="false">{_e(h.lower())} ({sev[k]})'
                          "</button>" for k, h, _ in SEVERITIES if sev.get(k)) + "</p>\n")
        many = len(r.findings) > FINDINGS_OPEN
        for kind, rows in _by_kind(r.findings):
            self.w(f'<section class="kind" id="findings-{_e(kind)}">\n<h3>{_e(KIND_WORDS.get(kind, kind))}</h3>\n')
            for code, group in _by_code(rows):
                severity = group[0].severity or "error"
                title = group[0].title
                opened = "" if many or severity == "info" else " open"
                self.w(f'<details class="code-group" data-code="{_e(code)}" data-severity="{_e(severity)}"{opened}>'
                       f'<summary><span class="code">{_e(code)}</span> {_e(title)} · {len(group)} · '
                       f'<span class="sev {_e(severity)}">{_e(SEVERITY_WORD.get(severity, severity))}</span></summary>\n'
                       + (f'<p class="why">{_e(CATALOG[code].why)}</p>\n' if self.why_once and code in CATALOG else "")
                       + f'<div class="table-wrap"><table class="findings">\n<caption class="vh">{_e(code)}: {_e(title)}</caption>\n'
                       '<thead><tr><th scope="col" class="n">#</th><th scope="col">Game</th>'
                       '<th scope="col" class="n">Hand</th><th scope="col">Who</th><th scope="col">Where</th></tr></thead>\n'
                       "<tbody>\n")
                for f in group:
                    g = games.get(f.game_id) if f.game_id else None
                    self.w(f'<tr id="row-{f.anchor}"><td class="n"><a href="#{f.anchor}">{f.number}</a></td>'
                           f'<td class="game">{_e(g.name if g else f.file)}</td><td class="n">{_e(_num(f.hand))}</td>'
                           f'<td>{_e(f.player or "—")}</td><td>{_e(_where_words(f))}</td></tr>\n')
                self.w("</tbody>\n</table></div>\n</details>\n")
            self.w("</section>\n")
        loose = [f for f in r.findings if f.game_id is None]
        if loose:
            self.w('<h3 id="files-h">Files no game was read from</h3>\n')
            for f in loose:
                self.ruling(None, f)
        self.w("</section>\n")

    def games(self) -> None:
        r = self.r
        self.w('<section id="games" aria-labelledby="games-h">\n<h2 id="games-h">Games</h2>\n')
        if not self.open:
            self.w(f'<p class="note">{len(r.games)} games: each game\'s detail is folded; open one from its '
                   'line, or <button type="button" data-toggle="open">open all</button> '
                   '<button type="button" data-toggle="close">fold all</button>.</p>\n')
        if len(self.detailed) < len(r.games):
            self.w(f'<p class="note">{len(self.detailed)} of the {len(r.games)} games are shown in full: those the '
                   "audit has something to say about (a finding, or a sheet that departs from it). Every other "
                   "game has its line in its event's results, and its sheet agrees with the audit in every entry; "
                   "<code>auditor report --detail all</code> shows every game, <code>auditor replay FILE --game "
                   "GAME</code> walks one.</p>\n")
        if len(self.charted) < len(self.detailed):
            self.w(f'<p class="note">Charts of the running totals: {len(self.charted)} of the {len(r.games)} games'
                   + (" (the first games the audit found something in)" if self.charted else "")
                   + ". <code>auditor report --charts all</code> draws every game's, at about 20 ms a chart.</p>\n")
        for ev in r.events:
            self.w(f'<section class="event" id="{ev.anchor}" aria-labelledby="{ev.anchor}-h">\n'
                   f'<h3 id="{ev.anchor}-h">{_e(ev.label)}</h3>\n')
            self.game_index(ev)
            for g in ev.games:
                if g.index in self.detailed:
                    self.game(g)
            self.w("</section>\n")
        self.w("</section>\n")

    def game_index(self, ev: EventReport) -> None:
        self.w(f'<div class="table-wrap"><table class="results">\n<caption>Results, {_e(ev.label)}</caption>\n'
               '<thead><tr><th scope="col">Game</th><th scope="col">Date</th><th scope="col">Winner</th>'
               '<th scope="col">Final</th><th scope="col" class="n">Hands</th><th scope="col" class="n">Errors</th>'
               "</tr></thead>\n<tbody>\n")
        for g in ev.games:
            final = ", ".join(f"{s} {g.final[s].total}" for s in g.sides if s in g.final)
            errors = sum(1 for f in g.findings if f.severity != "info")
            name = f'<a href="#{g.anchor}">{_e(g.name)}</a>' if g.index in self.detailed else _e(g.name)
            self.w(f'<tr><th scope="row">{name}</th>'
                   f"<td>{_date_html(g.date) if g.date else '—'}</td><td>{_e(g.winner or 'not finished')}</td>"
                   f'<td>{_e(final)}</td><td class="n">{len(g.hands)}</td><td class="n">{errors or ""}</td>'
                   "</tr>\n")
        self.w("</tbody>\n</table></div>\n")

    # -- one game

    def game(self, g: GameReport) -> None:
        counts = Counter(f.severity or "error" for f in g.findings)
        flag = "".join(f' <span class="badge {k}">{_e(plural(counts[k], SEVERITY_WORD[k], "information" if k == "info" else None))}</span>'
                       for k, _, _ in SEVERITIES if counts.get(k))
        head = (f'<h4 class="game-title">Game {_e(g.name)}</h4>{flag} '
                f'<span class="result">{_e(g.winner + " won" if g.winner else "not finished")}</span>')
        # A short report shows every game as a section; a long one folds each game into a <details> (a
        # click opens it). Printed, games follow one another, each kept in one piece where it fits a page.
        if self.open:
            self.w(f'<section class="game" id="{g.anchor}" aria-labelledby="{g.anchor}-h">\n'
                   f'<header class="game-head" id="{g.anchor}-h">{head}</header>\n')
        else:
            self.w(f'<details class="game" id="{g.anchor}">\n<summary>{head}</summary>\n')
        meta = [_e(g.event or ""), _date_html(g.date) if g.date else "", _e(g.rules_text or "rules unknown"),
                _e("players " + ", ".join(g.players))]
        if g.rules is not None and g.rules.partnership and g.teams:
            meta.append(_e("teams " + g.teams))
        if g.source:
            meta.append(_e(g.source))
        self.w(f'<p class="meta">{" · ".join(m for m in meta if m)}</p>\n')
        self.w(f'<p class="result-line"><strong>Result.</strong> {_e(result_words(g))}')
        if g.winner_differs():
            rec = g.recorded_winner or "nobody"
            self.w(f' <span class="diff">✗ The sheet names {_e(rec)} as the winner.</span>')
        elif g.recorded_winner:
            self.w(" The sheet's winner line agrees.")
        self.w("</p>\n")
        if g.index in self.charted and g.hands:
            self.chart(g)
        self.sheet(g)
        if g.played:
            self.perfect_play(g)
        if g.findings:
            self.w(f'<h5>Rulings, game {_e(g.name)}</h5>\n')
            for f in g.findings:
                self.ruling(g, f)
        self.w("</section>\n" if self.open else "</details>\n")

    def perfect_play(self, g: GameReport) -> None:
        """Each hand's par beside its result, who bid under or over par, the claim, and the game's
        costliest mistakes with the hand and the trick."""
        name = _e(g.name)
        self.w(f'<section class="perfect" aria-label="Perfect play, game {name}">\n'
               f"<h5>Perfect play, game {name}</h5>\n"
               "<p class=\"note\">Par is the pitcher's score when everyone plays perfectly from the first lead; the "
               "result, the score as the cards fell (before revoke penalties).</p>\n"
               f'<div class="table-wrap"><table class="par">\n<caption>Par beside the result, game {name}</caption>\n'
               "<thead><tr><th scope=\"col\" class=\"n\">Hand</th>"
               '<th scope="col">Pitcher</th><th scope="col" class="n">Bid</th><th scope="col" class="n">Par</th>'
               '<th scope="col" class="n">Result</th><th scope="col">Bid against par</th>'
               '<th scope="col">Decided</th><th scope="col" class="n">Mistakes</th></tr></thead>\n<tbody>\n')
        for h in g.hands:
            p = g.played.get(h.hand)
            if p is None:
                continue
            who = p.pitcher or "—"
            if p.pitcher_side and p.pitcher_side != p.pitcher:
                who += f" ({p.pitcher_side})"
            self.w(f'<tr><th scope="row" class="n">{h.hand}</th><td>{_e(who)}</td>'
                   f'<td class="n">{p.contract or "—"}</td><td class="n">{_signed(p.par)}</td>'
                   f'<td class="n">{_signed(p.result)}</td><td>{_e(par_words(p))}</td>'
                   + (f'<td title="from trick {p.claim} the hand was decided: claim">from trick {p.claim}: claim</td>'
                      if p.claim else "<td>—</td>")
                   + f'<td class="n">{_e(f"{p.mistakes} ({points_words(p.lost)})" if p.mistakes else "none")}</td></tr>\n')
        self.w("</tbody>\n</table></div>\n")
        if g.mistakes:
            self.w(f'<p class="note">The costliest {"mistake" if len(g.mistakes) == 1 else "mistakes"} of the game '
                   "under perfect play: what the card cost its side, and the cards that would have kept the value.</p>\n"
                   '<ol class="mistakes">\n')
            for m in g.mistakes:
                self.w(f'<li id="{m.anchor}" value="{m.number}">{mistake_html(m)}')
                d = self.r.mistake_diagrams.get(m.number)
                if d is not None:
                    self.diagram(d)
                self.w("</li>\n")
            self.w("</ol>\n")
        self.w("</section>\n")

    def chart(self, g: GameReport) -> None:
        if self.painter is None:
            self.painter = Charts()
        key = f"chart-{g.index}"
        svg = self.painter.draw(g, key)
        word = "points still needed" if g.count_down else "running totals"
        title = f"{word.capitalize()} by hand, game {g.name}"
        svg = svg.replace(">", f'><title id="{key}-title">{_e(title)}</title>', 1)
        target = (0 if g.count_down else g.rules.game) if g.rules is not None else None
        self.w(f'<figure class="chart" data-series="{len(g.sides)}">\n{svg}\n<figcaption>{_e(title)}')
        if target is not None:
            self.w(f"; the dotted line is {'0, out' if g.count_down else f'{target}, the game'}")
        self.w('.<ul class="legend">')
        for i, s in enumerate(g.sides):
            self.w(f'<li><span class="swatch" style="color:{PALETTE[i % len(PALETTE)]}">'
                   f"{MARKER_SYMBOLS[i % len(MARKER_SYMBOLS)]}━</span> {_e(s)}</li>")
            if any(s in h.cells and h.cells[s].total_differs for h in g.hands):
                self.w(f'<li><span class="swatch" style="color:{PALETTE[i % len(PALETTE)]}">✕╌</span> '
                       f"{_e(s)}, as the sheet has it</li>")
        self.w("</ul></figcaption>\n</figure>\n")

    def sheet(self, g: GameReport) -> None:
        """The score sheet: as written beside the audit's, or (where they agree throughout) once."""
        if not g.hands:
            self.w('<p class="note">No hands recorded.</p>\n')
            return
        diffs = sheet_differences(g)
        paired = bool(diffs) or g.winner_differs()
        marks: dict[tuple[int, str], dict[str, int | None]] = {}
        notes: list[tuple[SheetHand, str, str]] = []
        for h, s, what, since in diffs:
            marks.setdefault((h.hand, s), {})[what] = since
            if what != "carried":
                notes.append((h, s, what))
        note_no = {(h.hand, s, what): i for i, (h, s, what) in enumerate(notes, 1)}
        word = "still needed" if g.count_down else "total"
        name = _e(g.name)
        sides = [(s, _e(s)) for s in g.sides]
        if paired:
            what = (f"The sheet as written (sheet) beside the audit's: each entry is the hand's score, then the "
                    f"{word}; ✗ marks a difference, ↳ one carried from an earlier hand")
        else:
            what = f"The sheet agrees with the audit in every entry: each entry is the hand's score, then the {word}"
        out = [f'<p class="note sheet-note">{what}.</p>\n'
               f'<div class="table-wrap"><table class="sheet">\n<caption>Score sheet, game {name}</caption>\n'
               '<colgroup><col><col>', "".join('<col class="s"><col>' if paired else '<col class="s">' for _ in sides),
               "<col></colgroup>\n<thead><tr>"]
        if paired:
            out.append('<th scope="col" rowspan="2">Hand</th><th scope="col" rowspan="2" class="bid">Bid</th>')
            out += [f'<th scope="colgroup" colspan="2" class="side">{e}</th>' for _, e in sides]
            out.append('<th scope="col" rowspan="2" class="bid">Findings</th></tr>\n<tr>')
            out += ['<th scope="col">sheet</th><th scope="col">audit</th>'] * len(sides)
        else:
            out.append('<th scope="col">Hand</th><th scope="col" class="bid">Bid</th>')
            out += [f'<th scope="col" class="side">{e}</th>' for _, e in sides]
            out.append('<th scope="col" class="bid">Findings</th>')
        out.append("</tr></thead>\n<tbody>\n")
        codes: dict[int, str] = {}
        for f in g.findings:
            if f.hand is not None:
                codes[f.hand] = codes.get(f.hand, "") + f' <a href="#{f.anchor}" class="code">{_e(f.code)}</a>'
        anchor = g.anchor
        # the rows leave out their </td> and </tr>, as HTML allows: a season has a million cells
        for h in g.hands:
            row = [f'<tr><th scope="row">{h.hand}</th><td>{_e(h.contract)}']
            for s, _ in sides:
                c = h.cells.get(s)
                if c is None:
                    row.append("<td>—<td>—" if paired else "<td>—")
                    continue
                calc = (f"<i>{_signed(c.score)}</i> {'—' if c.total is None else c.total}"
                        + ('<span class="derived" title="not played out: read off the audit">*</span>'
                           if c.derived else ""))
                if not paired:
                    row.append(f"<td>{calc}")
                    continue
                m = marks.get((h.hand, s))
                rec = f"<i>{_signed(c.recorded_score)}</i>"
                if m and "score" in m:
                    rec += '<b class="x" aria-label="differs">✗</b>'
                rec += f" {'—' if c.recorded_total is None else c.recorded_total}"
                cls = ""
                if m:
                    if "total" in m:
                        rec += '<b class="x" aria-label="differs">✗</b>'
                    elif "carried" in m:
                        rec += f'<span class="x" title="carried from hand {m["carried"]}">↳</span>'
                    refs = [note_no.get((h.hand, s, w)) for w in ("score", "total")]
                    refs = ",".join(f'<a href="#{anchor}-d{n}">{n}</a>' for n in refs if n)
                    if refs:
                        rec += f"<sup>{refs}</sup>"
                    cls = ' class="d"' if "score" in m or "total" in m else ' class="c"'
                row.append(f"<td{cls}>{rec}<td>{calc}")
            row.append(f'<td>{codes.get(h.hand, "")}\n')
            out.append("".join(row))
        out.append("</tbody>\n")
        if g.winner or g.recorded_winner:
            bad = g.winner_differs()
            won = f" (hand {g.won_in_hand})" if g.winner and g.won_in_hand else ""
            written = f'<span class="diff">{_e(g.recorded_winner or "none written")} ✗</span>' if bad \
                else _e(g.recorded_winner or "none written")
            out.append(f'<tfoot><tr><th scope="row" colspan="2">Winner</th>'
                       f'<td colspan="{(2 if paired else 1) * len(sides)}" class="bid">'
                       f"sheet: {written} · audit: {_e(g.winner or 'nobody yet')}{won}</td>"
                       '<td class="bid">' + " ".join(f'<a href="#{f.anchor}" class="code">{_e(f.code)}</a>'
                                                     for f in g.findings if f.hand is None) + "</td></tr></tfoot>\n")
        out.append("</table></div>\n")
        self.w(*out)
        if notes:
            self.w(f'<ol class="differences" aria-label="Differences, game {name}">\n')
            for i, (h, s, what) in enumerate(notes, 1):
                self.w(f'<li id="{anchor}-d{i}">{_e(self._explain(g, h, s, what))}')
                related = [f for f in g.findings if f.hand == h.hand and f.player in (s, None)] or \
                          [f for f in g.findings if f.hand == h.hand]
                if related:
                    self.w(" See " + ", ".join(f'<a href="#{f.anchor}">{_e(f.code)} (ruling {f.number})</a>'
                                               for f in related) + ".")
                self.w("</li>\n")
            self.w("</ol>\n")

    @staticmethod
    def _explain(g: GameReport, h: SheetHand, side: str, what: str) -> str:
        c = h.cells[side]
        word = "still needed" if g.count_down else "total"
        if what == "score":
            return (f"Hand {h.hand}, {side}: the sheet scores {_signed(c.recorded_score)}; the audit "
                    f"{_signed(c.score)}.")
        prev = next((p.cells[side] for p in reversed(g.hands[:g.hands.index(h)]) if side in p.cells
                     and p.cells[side].recorded_total is not None), None)
        if not c.score_differs and prev is not None and prev.recorded_total is not None \
                and c.recorded_score is not None:
            sign = -1 if g.count_down else 1
            want = prev.recorded_total + sign * c.recorded_score
            if want != c.recorded_total:
                step = sign * c.recorded_score  # what the hand's written score does to the total
                op = "+" if step >= 0 else "−"
                return (f"Hand {h.hand}, {side}: the sheet's {word} {c.recorded_total} is not its own previous "
                        f"{prev.recorded_total} {op} {abs(step)} = {want}; the audit's {word} is {c.total}.")
        return f"Hand {h.hand}, {side}: the sheet's {word} is {c.recorded_total}; the audit's is {c.total}."

    # -- a ruling

    def ruling(self, g: GameReport | None, f: FindingRow) -> None:
        code = CATALOG.get(f.code)
        sev = f' <span class="sev {_e(f.severity)}">{_e(f.severity)}</span>' if f.severity else ""
        where = []
        if f.hand is not None:
            where.append(f"hand {f.hand}")
        if f.trick is not None:
            where.append(f"trick {f.trick}")
        if f.player:
            where.append(f.player)
        self.w(f'<article class="ruling" id="{f.anchor}" data-code="{_e(f.code)}" '
               f'data-severity="{_e(f.severity or "error")}">\n'
               f'<h6><span class="code">{_e(f.code)}</span> {_e(f.title)}{sev}</h6>\n'
               f'<p class="meta">Ruling {f.number} · {_e(", ".join(where) or "the whole game" if g else "file")} · '
               f"<code>{_e(f.where)}</code></p>\n"
               f"<p><strong>What happened.</strong> {_e(f.message)}</p>\n")
        rule = self.r.rules.get(code.section) if code is not None else None
        self.w("<p><strong>The rule.</strong> ")
        if rule is not None and rule.body is not None:
            self.w(f'<a href="#{rule.anchor}">{_inline_md(rule.label)}</a>. ')
        elif rule is not None:
            self.w(f"{_e(rule.label)}. ")
        if code is not None and not self.why_once:
            self.w(_e(code.why))
        self.w("</p>\n")
        self.w(f"<p><strong>The score.</strong> {_e(score_ruling(g, f))}</p>\n")
        d = self.r.diagrams.get(f.number)
        if d is not None:
            self.diagram(d)
        self.w("</article>\n")

    def diagram(self, d: Diagram) -> None:
        trump = f"trump {SUIT_SYMBOLS[d.trump]} {SUIT_NAMES[d.trump]}" if d.trump is not None else "trump unknown"
        self.w(f'<figure class="diagram">\n<figcaption>Hand {d.hand}, trick {d.trick}: what each player held as the '
               f"trick began, and the card each played to it ({_e(trump)}). ✗ the card in question")
        if d.could and d.kind == "mistake":
            self.w("; underlined, the cards that kept the value")
        elif d.could:
            self.w("; underlined, the cards the rule asked for" + (" (or a trump)" if d.or_trump else ""))
        self.w(".</figcaption>\n<div class=\"table-wrap\"><table class=\"hand\">\n<thead><tr>"
               '<th scope="col">Player</th><th scope="col">Held before the trick</th>'
               '<th scope="col">Played</th></tr></thead>\n<tbody>\n')
        for p, cards in d.held:
            mine = p == d.player
            played = d.plays.get(p)
            roles = [x for x, who in (("led", d.leader), ("won", d.winner)) if who == p]
            name = _e(p) + (f' <span class="role">({", ".join(roles)})</span>' if roles else "")
            held = " ".join(card_html(c, "could" if mine and c in d.could else
                                      "played" if c == played else "") for c in cards) or "—"
            if played is None:
                pl = '<span class="none">—</span>'
            else:
                bad = mine and played == d.card
                pl = card_html(played, "bad" if bad else "") + ('<b class="x" aria-label="in question">✗</b>'
                                                                if bad else "")
            row = ' class="named"' if mine else ""
            self.w(f'<tr{row}><th scope="row">{name}</th><td class="cards">{held}</td><td class="cards">{pl}</td>'
                   "</tr>\n")
        self.w("</tbody>\n</table></div>\n</figure>\n")

    # -- the rules cited

    def appendix(self) -> None:
        rules = self.r.rules
        if not rules:
            return
        self.w('<section id="rules" aria-labelledby="rules-h">\n<h2 id="rules-h">The rules cited</h2>\n')
        if any(r.body is None for r in rules.values()):
            self.w('<p class="note">The text of these rules is in docs/rules.md and docs/notation.md of auditor\'s '
                   "source, which this installation does not have; each ruling names its section.</p>\n")
        for r in rules.values():
            if r.body is None:
                continue
            self.w(f'<article class="rule" id="{r.anchor}">\n<h3>{_inline_md(r.label)}</h3>\n'
                   f"{_markdown_html(r.body, rules, r.section.partition('#')[0])}</article>\n")
        self.w("</section>\n")


def to_html(report: Report, charts: str = "auto", detail: str = "auto") -> str:
    """The report as one self-contained HTML page (``charts``: :func:`chart_games`; ``detail``: :func:`detail_games`)."""
    return _Html(report, charts, detail).page()


# --------------------------------------------------------------------------- Markdown


def _md(text: object) -> str:
    """Text for a Markdown table cell or line: pipes and markup characters escaped."""
    return re.sub(r"([\\|*_`\[\]<>#])", r"\\\1", "" if text is None else str(text))


def to_markdown(report: Report, detail: str = "auto") -> str:
    """The report as Markdown: the summary, the league tables, each game's sheet (the games
    :func:`detail_games` picks) and every ruling."""
    r = report
    shown = detail_games(r, detail)
    out = [f"# {_md(r.title)}", ""]
    ds = sorted(g.date for g in r.games if g.date is not None)
    if ds:
        out += [f"{ds[0].isoformat()}" + (f" to {ds[-1].isoformat()}" if ds[-1] != ds[0] else "") + f" · "
                f"{len(r.games)} games · {len(r.events)} events", ""]
    out += ["## Summary", "", f"- Games: {len(r.games)} ({sum(1 for g in r.games if g.winner)} finished)",
            f"- Hands: {r.hands} ({r.played} played out)", f"- Players: {len(r.players)}",
            f"- Findings: {_severity_words(r)}"]
    for kind, n, codes in r.kinds():
        out.append(f"  - {kind}: {n} ({', '.join(codes)})")
    if r.analysed:
        out.append(f"- Perfect play: {plural(r.analysed, 'hand')} examined")
    out += ["", "## Standings", "",
            "Placed by games won, then win %, then points per hand, on the recomputed scores (the figures of "
            "`auditor stats`).", ""]
    if not r.analysed:
        out += ["Perfect play (par beside each hand's result, each player's accuracy, the costliest mistakes, "
                f"claims) is not in this report: its hands were not examined. `{NO_ANALYSIS[0]}` examines them; "
                f"for a dataset, `{NO_ANALYSIS[1]}` before the report.", ""]
    for ev in r.events:
        out += [f"### {_md(ev.label)}", ""]
        if ev.dates:
            out += [f"{ev.dates} · {len(ev.games)} games", ""]
        for rows, unit in ((ev.teams, "team"), (ev.players, "player")):
            if rows is None:
                continue
            cols = standings_columns(rows, unit)
            out.append("| " + " | ".join(h for _, h, _ in cols) + " |")
            out.append("|" + "|".join("---" if k == unit else "---:" for k, _, _ in cols) + "|")
            for i, row in enumerate(rows):
                out.append("| " + " | ".join(_place(rows, i) if k == "place" else _md(_num(row.get(k)))
                                             for k, _, _ in cols) + " |")
            out.append("")
    out += ["## Findings and rulings", ""]
    if not r.findings:
        out += ["None: the audit found nothing to rule on.", ""]
    games = {g.game_id: g for g in r.games}
    for f in r.findings:
        g = games.get(f.game_id) if f.game_id else None
        out += _md_ruling(r, g, f)
    out += ["## Games", ""]
    if len(shown) < len(r.games):
        out += [f"{len(shown)} of the {len(r.games)} games are shown: those the audit has something to say about; "
                "every other game's sheet agrees with the audit in every entry (`--detail all` shows them).", ""]
    for ev in r.events:
        out += [f"### {_md(ev.label)}", ""]
        for g in ev.games:
            if g.index in shown:
                out += _md_game(g)
    cited = [x for x in r.rules.values() if x.body is not None]
    if cited:
        out += ["## The rules cited", ""]
        for x in cited:
            out += [f"### {x.label}", "", x.body, ""]
    return "\n".join(out).rstrip() + "\n"


def _md_ruling(r: Report, g: GameReport | None, f: FindingRow) -> list[str]:
    code = CATALOG.get(f.code)
    where = ", ".join(x for x in (g.name if g else f.file, f"hand {f.hand}" if f.hand is not None else "",
                                  f"trick {f.trick}" if f.trick is not None else "", f.player or "") if x)
    rule = r.rules.get(code.section) if code is not None else None
    rule_text = ""
    if rule is not None:
        rule_text = f"[{rule.label}](#{heading_anchor(rule.label)})" if rule.body is not None else rule.label
    lines = [f"**{f.number}. {f.code} {_md(f.title)}** — {_md(where)} (`{f.where}`)", "",
             f"- What happened: {_md(f.message)}",
             f"- The rule: {rule_text}{'. ' if rule_text else ''}{_md(code.why) if code else ''}",
             f"- The score: {_md(score_ruling(g, f))}"]
    d = r.diagrams.get(f.number)
    if d is not None:
        lines.append(f"- Hand {d.hand}, trick {d.trick}, held before it "
                     f"(trump {SUIT_SYMBOLS[d.trump] if d.trump is not None else '?'}):")
        for p, cards in d.held:
            played = d.plays.get(p)
            mark = " ✗" if p == d.player and played == d.card else ""
            shown = " ".join(_card_text(c) for c in cards) or "—"
            lines.append(f"  - {_md(p)}: {shown}; played {_card_text(played) if played is not None else '—'}{mark}")
    return lines + [""]


def _card_text(card: int) -> str:
    name = CARD_NAMES[card]
    if card >= 52:
        return name
    return ("10" if name[0] == "T" else name[0]) + SUIT_SYMBOLS[suit_of(card)]


def _md_game(g: GameReport) -> list[str]:
    out = [f"#### Game {_md(g.name)}", "",
           " · ".join(_md(x) for x in (g.date.isoformat() if g.date else "", g.rules_text or "",
                                       ", ".join(g.players)) if x), "", _md(result_words(g))]
    if g.winner_differs():
        out[-1] += f" ✗ The sheet names {_md(g.recorded_winner or 'nobody')} as the winner."
    out.append("")
    if not g.hands:
        return out + ["No hands recorded.", ""]
    marks = {(h.hand, s): what for h, s, what, _ in sheet_differences(g)}
    out.append("| Hand | Bid | " + " | ".join(f"{_md(s)} sheet | {_md(s)} audit" for s in g.sides) + " |")
    out.append("|---:|---|" + "---:|---:|" * len(g.sides))
    for h in g.hands:
        cells = []
        for s in g.sides:
            c = h.cells.get(s)
            if c is None:
                cells += ["—", "—"]
                continue
            what = marks.get((h.hand, s))
            mark = " ✗" if what in ("score", "total") else " ↳" if what == "carried" else ""
            cells += [f"{_signed(c.recorded_score)} {c.recorded_total if c.recorded_total is not None else '—'}{mark}",
                      f"{_signed(c.score)} {c.total if c.total is not None else '—'}"]
        out.append(f"| {h.hand} | {_md(h.contract)} | " + " | ".join(cells) + " |")
    out.append("")
    notes = [(h, s, what) for h, s, what, _ in sheet_differences(g) if what != "carried"]
    for i, (h, s, what) in enumerate(notes, 1):
        out.append(f"{i}. {_md(_Html._explain(g, h, s, what))}")
    if notes:
        out.append("")
    if g.played:
        out += [f"Perfect play, game {_md(g.name)}: par (the pitcher's score when everyone plays perfectly) beside "
                "the result.", "", "| Hand | Pitcher | Bid | Par | Result | Bid against par | Decided | Mistakes |",
                "|---:|---|---:|---:|---:|---|---|---:|"]
        for h in g.hands:
            p = g.played.get(h.hand)
            if p is not None:
                out.append(f"| {h.hand} | {_md(p.pitcher or '—')} | {p.contract or '—'} | {_signed(p.par)} | "
                           f"{_signed(p.result)} | {_md(par_words(p))} | "
                           f"{f'from trick {p.claim}: claim' if p.claim else '—'} | "
                           f"{p.mistakes} |")
        out.append("")
        out += [f"- {_md(mistake_words(m))}" for m in g.mistakes]
        if g.mistakes:
            out.append("")
    return out
