"""Arrow tables and the Parquet dataset.

The schemas are defined once, in ``schemas/tables.json`` (installed as the package
``auditor.schemas``), with a version and a meaning for every column.

A dataset is a folder::

    DATASET/manifest.json          the commit record: schema version and, per table, its part files
    DATASET/<table>/<hash>.parquet immutable part files, named by the hash of their content

An import writes its part files first, then replaces ``manifest.json`` in one
``os.replace``: a reader (or an import killed at any point) sees the old manifest or
the new one, never half.  Part files that no manifest names are left-overs of an
interrupted import and are removed by the next one.  Games are keyed by the hash of
their canonical text, so importing a file twice adds nothing.
"""

from __future__ import annotations

import datetime as dt
import fcntl
import hashlib
import json
import os
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

from .cards import CARD_NAMES, RANKS, SUITS, suit_of
from .engine import GameResult, audit_games
from .findings import kind_of, severity_of
from .notation import Finding, Game, expand_paths, iter_games, write_game

_TYPES = {
    "string": pa.string(), "bool": pa.bool_(), "int8": pa.int8(), "int16": pa.int16(), "int32": pa.int32(),
    "int64": pa.int64(), "date32": pa.date32(), "timestamp": pa.timestamp("us", tz="UTC"),
    "list<string>": pa.list_(pa.string()),
}


def load_schema_doc() -> dict:
    """The parsed ``schemas/tables.json``."""
    return json.loads(resources.files("auditor.schemas").joinpath("tables.json").read_text("utf-8"))


_DOC = load_schema_doc()
SCHEMA_VERSION: int = _DOC["schema_version"]
SCHEMAS: dict[str, pa.Schema] = {
    name: pa.schema([pa.field(c, _TYPES[t], metadata={"doc": d}) for c, t, d in spec["columns"]],
                    metadata={"doc": spec["doc"], "schema_version": str(SCHEMA_VERSION)})
    for name, spec in _DOC["tables"].items()
}
TABLES = tuple(SCHEMAS)


def game_key(game: Game, parse_findings: Iterable[Finding] = ()) -> str:
    """The content hash that names a game: its canonical text plus what could not be read of it."""
    h = hashlib.blake2b(digest_size=16)
    h.update(write_game(game).encode("utf-8"))
    for f in parse_findings:
        h.update(f"{f.code}|{f.message}\n".encode("utf-8"))
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


def add_game(rows: Rows, res: GameResult, game_id: str, parse_findings: list[Finding], now: dt.datetime) -> None:
    """Every row one audited game contributes to every table."""
    g = res.game
    r = res.rules
    rows.add("games", game_id=game_id, game=g.name, source_file=g.source, game_index=g.index, line=g.line,
             event=g.tag("Event"), site=g.tag("Site"), date=_date(g.tag("Date")), round=g.tag("Round"),
             rules_tag=g.tag("Rules"), preset=r.preset if r else None, rules=r.to_text() if r else None,
             players=list(g.players), teams=g.tag("Teams"), tags=json.dumps({t.name: t.value for t in g.tags}),
             hands=len(g.hands), recorded_winner=g.winner.name if g.winner else None, winner=res.winner,
             won_in_hand=res.won_in_hand, imported_at=now)
    scores = {hs.hand: hs for hs in res.hands}
    for h in g.hands:
        hs = scores.get(h.number)
        rows.add("hands", game_id=game_id, hand=h.number, line=h.line, dealer=h.dealer.name if h.dealer else None,
                 status=hs.status if hs else ("misdeal" if h.misdeal else "unplayable"),
                 pitcher=hs.pitcher if hs else None, contract=hs.contract if hs else None,
                 high_bid=hs.high_bid if hs else None, sold=bool(hs and hs.sale), sale=hs.sale if hs else None,
                 trump=hs.trump if hs else (SUITS[suit_of(h.tricks[0].plays[0].card)] if h.tricks and h.tricks[0].plays else None),
                 trump_line=SUITS[h.trump.suit] if h.trump else None, dealt=h.deal is not None,
                 tricks=len(h.tricks), high=hs and hs.high, high_card=hs and hs.high_card,
                 high_holder=hs and hs.high_holder, low=hs and hs.low, low_card=hs and hs.low_card,
                 low_holder=hs and hs.low_holder, jack=hs and hs.jack, jack_trick=hs and hs.jack_trick,
                 game_point=hs and hs.game_point, contract_made=hs and hs.contract_made,
                 smudge=bool(hs and hs.smudge), revokers=list(hs.revokers) if hs else [],
                 went_out=hs and hs.went_out, notes=[n.text for n in h.notes])
        if h.deal:
            for hold in h.deal.holdings:
                rows.add("deals", game_id=game_id, hand=h.number, player=hold.player,
                         cards=[CARD_NAMES[c] for c in hold.cards])
        if h.bids:
            for i, b in enumerate(h.bids.bids):
                v = r.bid_value(b.word) if r else None
                rows.add("bids", game_id=game_id, hand=h.number, position=i + 1, player=b.player, word=b.word,
                         value=v, line=h.bids.line, column=b.column)
        revoked = {(t, p) for t, _, p, _, _ in hs.revoke_plays} if hs else set()
        trump = SUITS.index(hs.trump) if hs and hs.trump else -1
        players = hs.trick_players if hs else []
        pc = rows.cols["plays"]  # the biggest table: columns filled directly, not row by row
        for ti, t in enumerate(h.tricks):
            winner = hs.winners[ti] if hs and ti < len(hs.winners) else None
            row_players = players[ti] if ti < len(players) else []
            for pos, p in enumerate(t.plays):
                player = p.player
                if player is None and pos < len(row_players):
                    player = row_players[pos]
                c = p.card
                s = c // 13 if c < 52 else 4
                pc["game_id"].append(game_id)
                pc["hand"].append(h.number)
                pc["trick"].append(t.number)
                pc["position"].append(pos + 1)
                pc["player"].append(player)
                pc["card"].append(CARD_NAMES[c])
                pc["rank"].append(RANKS[c % 13] if c < 52 else "JK")
                pc["suit"].append(SUITS[s] if s < 4 else None)
                pc["trump"].append(s == trump)
                pc["trick_winner"].append(winner)
                pc["revoke"].append((t.number, player) in revoked)
                pc["line"].append(t.line)
                pc["column"].append(p.column)
        for sl in (h.score, h.total):
            if sl:
                for e in sl.entries:
                    rows.add("recorded_scores", game_id=game_id, hand=h.number, kind=sl.kind, key=e.key,
                             value=e.value, line=sl.line, column=e.column)
        if hs and hs.scored and hs.status == "played":
            for side in res.sides:
                rows.add("hand_scores", game_id=game_id, hand=h.number, side=side,
                         pitcher_side=side == hs.pitcher_side, points=hs.made.get(side, 0),
                         high=hs.high == side, low=hs.low == side, jack=hs.jack == side,
                         game_point=hs.game_point == side, count=hs.counts.get(side, 0),
                         tricks=sum(1 for w in hs.winners if _side_of(res, w) == side),
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


def _side_of(res: GameResult, player: str) -> str:
    if res.rules is not None and res.rules.partnership:
        for team, members in res.game.teams.items():
            if player in members:
                return team
    return player


# --------------------------------------------------------------------------- dataset


def read_manifest(path: Path) -> dict:
    """The dataset's manifest (an empty one for a new dataset)."""
    m = path / "manifest.json"
    if not m.exists():
        return {"schema_version": SCHEMA_VERSION, "tables": {t: [] for t in TABLES}}
    data = json.loads(m.read_text("utf-8"))
    for t in TABLES:
        data["tables"].setdefault(t, [])
    return data


def table_files(path: str | Path, table: str) -> list[Path]:
    """The part files of one table that the manifest names."""
    p = Path(path)
    return [p / f for f in read_manifest(p)["tables"].get(table, [])]


def read_table(path: str | Path, table: str, columns: list[str] | None = None) -> pa.Table:
    """One table of a dataset as a single Arrow table (empty, with its schema, when it has no rows)."""
    files = table_files(path, table)
    schema = SCHEMAS[table]
    if columns:
        schema = pa.schema([schema.field(c) for c in columns], metadata=schema.metadata)
    if not files:
        return schema.empty_table()
    return pa.concat_tables([pq.read_table(f, columns=columns, schema=schema) for f in files])


def known_game_ids(path: Path) -> set[str]:
    """Keys of the games already in the dataset."""
    return set(read_table(path, "games", ["game_id"]).column("game_id").to_pylist())


def _atomic_write(path: Path, data: bytes) -> None:
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    with open(tmp, "wb") as f:
        f.write(data)
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, path)


@contextmanager
def _locked(path: Path) -> Iterator[None]:
    path.mkdir(parents=True, exist_ok=True)
    with open(path / ".lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)


class _PartWriter:
    """Streams one table's rows of one import into a part file, row group by row group."""

    def __init__(self, root: Path, table: str):
        self.dir = root / table
        self.dir.mkdir(parents=True, exist_ok=True)
        self.tmp = self.dir / f".part-{os.getpid()}-{id(self)}.tmp"
        self.writer: pq.ParquetWriter | None = None
        self.table = table
        self.rows = 0

    def write(self, t: pa.Table) -> None:
        if t.num_rows == 0:
            return
        if self.writer is None:
            self.writer = pq.ParquetWriter(self.tmp, SCHEMAS[self.table], compression="zstd")
        self.writer.write_table(t)
        self.rows += t.num_rows

    def close(self) -> str | None:
        """Close and rename to the content hash; returns the path relative to the dataset."""
        if self.writer is None:
            return None
        self.writer.close()
        h = hashlib.blake2b(digest_size=16)
        with open(self.tmp, "rb") as f:
            for chunk in iter(lambda: f.read(1 << 20), b""):
                h.update(chunk)
        with open(self.tmp, "rb+") as f:
            os.fsync(f.fileno())
        final = self.dir / f"{h.hexdigest()}.parquet"
        os.replace(self.tmp, final)
        return f"{self.table}/{final.name}"

    def abort(self) -> None:
        if self.writer is not None:
            self.writer.close()
        self.tmp.unlink(missing_ok=True)


@dataclass
class ImportStats:
    """What an import (or an audit run) read and wrote."""

    files: int = 0
    games: int = 0
    games_new: int = 0
    games_skipped: int = 0
    hands: int = 0
    cards: int = 0
    findings: list[Finding] = field(default_factory=list)
    results: list[GameResult] = field(default_factory=list)


BATCH_HANDS = 5_000


def process(paths: Iterable[str], *, override: str = "", sink: Callable[[Rows], None] | None = None,
            known: set[str] | None = None, keep_results: bool = False,
            progress: Callable[[int], None] | None = None) -> ImportStats:
    """Parse and audit ``paths`` in batches; hand each batch of rows to ``sink``.

    The one pipeline behind ``import``, ``audit`` and the on-the-fly datasets of
    ``stats``/``query``.  ``known`` holds game keys to skip (already in the dataset);
    ``progress`` is called with the number of bytes read so far.
    """
    files, missing = expand_paths(paths)
    stats = ImportStats(files=len(files))
    stats.findings.extend(missing)
    known = set() if known is None else known
    now = dt.datetime.now(dt.timezone.utc)
    rows = Rows()
    pending: list[tuple[Game, list[Finding]]] = []
    pending_hands = 0
    done_bytes = 0

    def flush() -> None:
        nonlocal rows, pending, pending_hands
        if pending:
            results = audit_games([g for g, _ in pending], override)
            for (game, pf), res in zip(pending, results):
                add_game(rows, res, game_key(game, pf), pf, now)
                stats.findings.extend(pf)
                stats.findings.extend(res.findings)
                stats.cards += res.cards_played
                if keep_results:
                    stats.results.append(res)
        if sink is not None and (len(rows) or rows.cols["findings"]["code"]):
            sink(rows)
        rows = Rows()
        pending, pending_hands = [], 0

    for path in files:
        try:
            stream = open(path, "rb") if path != "-" else os.fdopen(os.dup(0), "rb")
        except OSError as e:
            stats.findings.append(Finding("E100", f"cannot read {path}: {e.strerror}", path, 0, 0))
            continue
        with stream:
            for games, found in iter_games(stream, path if path != "-" else "<stdin>"):
                by_game: dict[str, list[Finding]] = {}
                for f in found:
                    by_game.setdefault(f.game, []).append(f)
                for g in games:
                    pf = by_game.pop(g.name, [])
                    key = game_key(g, pf)
                    stats.games += 1
                    stats.hands += len(g.hands)
                    if key in known:
                        stats.games_skipped += 1
                        continue
                    known.add(key)
                    stats.games_new += 1
                    pending.append((g, pf))
                    pending_hands += len(g.hands)
                    if pending_hands >= BATCH_HANDS:
                        flush()
                for rest in by_game.values():  # findings outside any game
                    for f in rest:
                        add_finding(rows, f, None)
                        stats.findings.append(f)
                if progress is not None and path != "-":
                    progress(done_bytes + stream.tell())
        if path != "-":
            try:
                done_bytes += os.path.getsize(path)
            except OSError:
                pass
    flush()
    return stats


def import_paths(paths: Iterable[str], out: str | Path, *, override: str = "", keep_results: bool = False,
                 progress: Callable[[int], None] | None = None) -> ImportStats:
    """Parse, audit and add ``paths`` to the dataset at ``out``; atomic and idempotent."""
    root = Path(out)
    with _locked(root):
        manifest = read_manifest(root)
        _remove_orphans(root, manifest)
        known = known_game_ids(root)
        writers = {t: _PartWriter(root, t) for t in TABLES}

        def sink(rows: Rows) -> None:
            for t, table in rows.to_arrow().items():
                writers[t].write(table)

        try:
            stats = process(paths, override=override, sink=sink, known=known, keep_results=keep_results,
                            progress=progress)
            added = {t: w.close() for t, w in writers.items()}
        except BaseException:
            for w in writers.values():
                w.abort()
            raise
        if any(added.values()):
            for t, part in added.items():
                if part and part not in manifest["tables"][t]:
                    manifest["tables"][t].append(part)
            manifest["schema_version"] = SCHEMA_VERSION
            _atomic_write(root / "manifest.json", json.dumps(manifest, indent=1).encode("utf-8"))
    return stats


def _remove_orphans(root: Path, manifest: dict) -> None:
    named = {p for parts in manifest["tables"].values() for p in parts}
    for t in TABLES:
        d = root / t
        if d.is_dir():
            for f in d.iterdir():
                rel = f"{t}/{f.name}"
                if rel not in named and (f.suffix in (".parquet", ".tmp")):
                    f.unlink(missing_ok=True)


def schema_markdown() -> str:
    """Every table and column with its type and meaning, as Markdown (docs/schema.md)."""
    out = [f"# Dataset schema (version {SCHEMA_VERSION})", "", _DOC["doc"], ""]
    for name, spec in _DOC["tables"].items():
        out += [f"## `{name}`", "", spec["doc"], "", "| column | type | meaning |", "|---|---|---|"]
        out += [f"| `{c}` | {t} | {d} |" for c, t, d in spec["columns"]]
        out.append("")
    return "\n".join(out)
