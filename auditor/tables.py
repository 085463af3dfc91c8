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
import io
import json
import multiprocessing as mp
import os
import re
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import ProcessPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from importlib import resources
from pathlib import Path

import pyarrow as pa
import pyarrow.compute as pc
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
        cols = rows.cols["plays"]  # the biggest table: columns filled directly, not row by row
        for ti, t in enumerate(h.tricks):
            winner = hs.winners[ti] if hs and ti < len(hs.winners) else None
            row_players = players[ti] if ti < len(players) else []
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
                cols["trump"].append(s == trump)
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
CHUNK_BYTES = 8 << 20


@dataclass(frozen=True)
class Chunk:
    """A piece of one input: a whole file, a byte range of a large file cut at a game boundary, or stdin."""

    path: str
    start: int = 0
    end: int = -1  # -1: to the end
    first_line: int = 1


def split_file(path: str, chunk_bytes: int) -> list[Chunk]:
    """Cut a file into chunks of about ``chunk_bytes`` at game boundaries (a tag line after other statements)."""
    size = os.path.getsize(path)
    if size <= chunk_bytes * 1.5:
        return [Chunk(path)]
    cuts = [0]
    with open(path, "rb") as f:
        target = chunk_bytes
        while target < size:
            f.seek(target)
            f.readline()  # finish the line we landed in
            seen_statement = False
            cut = None
            while True:
                pos = f.tell()
                line = f.readline()
                if not line:
                    break
                body = line.strip()
                if not body or body.startswith(b"%"):
                    continue
                if body.startswith(b"["):
                    if seen_statement:
                        cut = pos
                        break
                else:
                    seen_statement = True
            if cut is None:
                break
            cuts.append(cut)
            target = cut + chunk_bytes
        lines = [1]
        f.seek(0)
        for a, b in zip(cuts, cuts[1:]):
            lines.append(lines[-1] + f.read(b - a).count(b"\n"))
    cuts.append(-1)
    return [Chunk(path, a, b, ln) for a, b, ln in zip(cuts, cuts[1:], lines)]


@dataclass
class ChunkResult:
    """What one chunk gave: Arrow tables, the game keys in order, findings, counts."""

    tables: dict[str, pa.Table]
    game_ids: list[str]
    findings: list[tuple[str | None, Finding]]  # (game key, finding)
    games: int
    hands: int
    cards: int
    results: list[GameResult]
    end_byte: int


def process_chunk(chunk: Chunk, override: str = "", keep_results: bool = False) -> ChunkResult:
    """Parse and audit one chunk (in this process or a worker); games are numbered within the chunk."""
    now = dt.datetime.now(dt.timezone.utc)
    tables: dict[str, list[pa.Table]] = {t: [] for t in TABLES}
    rows = Rows()
    pending: list[tuple[Game, list[Finding]]] = []
    pending_hands = 0
    out = ChunkResult({}, [], [], 0, 0, 0, [], 0)

    def flush() -> None:
        nonlocal rows, pending, pending_hands
        if pending:
            for (game, pf), res in zip(pending, audit_games([g for g, _ in pending], override)):
                key = game_key(game, pf)
                add_game(rows, res, key, pf, now)
                out.game_ids.append(key)
                out.findings.extend((key, f) for f in (*pf, *res.findings))
                out.cards += res.cards_played
                if keep_results:
                    out.results.append(res)
        for t, table in rows.to_arrow().items():
            if table.num_rows:
                tables[t].append(table)
        rows = Rows()
        pending, pending_hands = [], 0

    source = chunk.path if chunk.path != "-" else "<stdin>"
    try:
        stream = open(chunk.path, "rb") if chunk.path != "-" else os.fdopen(os.dup(0), "rb")
    except OSError as e:
        out.findings.append((None, Finding("E100", f"cannot read {chunk.path}: {e.strerror}", chunk.path, 0, 0)))
        out.tables = {t: SCHEMAS[t].empty_table() for t in TABLES}
        return out
    with stream:
        if chunk.start:
            stream.seek(chunk.start)
        reader = io.BytesIO(stream.read(chunk.end - chunk.start)) if chunk.end >= 0 else stream
        for games, found in iter_games(reader, source, chunk.first_line, sniff=chunk.start == 0):
            by_game: dict[str, list[Finding]] = {}
            for f in found:
                by_game.setdefault(f.game, []).append(f)
            for g in games:
                pending.append((g, by_game.pop(g.name, [])))
                pending_hands += len(g.hands)
                out.games += 1
                out.hands += len(g.hands)
                if pending_hands >= BATCH_HANDS:
                    flush()
            for rest in by_game.values():  # findings outside any game
                for f in rest:
                    add_finding(rows, f, None)
                    out.findings.append((None, f))
        out.end_byte = chunk.end if chunk.end >= 0 else (stream.tell() if chunk.path != "-" else 0)
    flush()
    out.tables = {t: pa.concat_tables(ts) if ts else SCHEMAS[t].empty_table() for t, ts in tables.items()}
    return out


def _renumber(res: ChunkResult, source: str, offset: int) -> None:
    """Give the games of a later chunk their place in the whole file: FILE#N becomes FILE#(N+offset)."""
    if not offset:
        return
    base = Path(source).name or source
    pattern = re.compile(rf"^{re.escape(base)}#(\d+)$")

    def fix(name: str | None) -> str | None:
        m = pattern.match(name) if name else None
        return f"{base}#{int(m.group(1)) + offset}" if m else name

    for t in ("games", "findings"):
        table = res.tables[t]
        i = table.schema.get_field_index("game")
        table = table.set_column(i, "game", pa.array([fix(v) for v in table.column("game").to_pylist()],
                                                     pa.string()))
        res.tables[t] = table
    res.findings = [(k, replace(f, game=fix(f.game))) for k, f in res.findings]
    for r in res.results:
        r.game = replace(r.game, index=r.game.index + offset)


def process(paths: Iterable[str], *, override: str = "", sink: Callable[[dict[str, pa.Table]], None] | None = None,
            known: set[str] | None = None, keep_results: bool = False, jobs: int = 1,
            progress: Callable[[int], None] | None = None) -> ImportStats:
    """Parse and audit ``paths``; hand each chunk's tables to ``sink``, in input order.

    The one pipeline behind ``import``, ``audit`` and the on-the-fly datasets of
    ``stats``/``query``.  Inputs are cut into chunks (large files at game
    boundaries); with ``jobs`` > 1 the chunks run in worker processes, and the output
    is the same as with one.  ``known`` holds game keys to skip (already in the
    dataset); ``progress`` is called with the number of bytes done.
    """
    files, missing = expand_paths(paths)
    stats = ImportStats(files=len(files))
    stats.findings.extend(missing)
    known = set() if known is None else known
    chunks = [c for f in files for c in (split_file(f, CHUNK_BYTES) if f != "-" and os.path.isfile(f) else [Chunk(f)])]
    done_bytes = 0
    games_in_file: dict[str, int] = {}

    def merge(chunk: Chunk, res: ChunkResult) -> None:
        nonlocal done_bytes
        offset = games_in_file.get(chunk.path, 0)
        games_in_file[chunk.path] = offset + res.games
        _renumber(res, chunk.path if chunk.path != "-" else "<stdin>", offset)
        stats.games += res.games
        stats.hands += res.hands
        stats.cards += res.cards
        fresh = []
        for key in res.game_ids:
            if key in known:
                stats.games_skipped += 1
            else:
                known.add(key)
                fresh.append(key)
        stats.games_new += len(fresh)
        keep = set(fresh)
        stats.findings.extend(f for k, f in res.findings if k is None or k in keep)
        if keep_results:
            stats.results.extend(r for r, k in zip(res.results, res.game_ids) if k in keep)
        if sink is not None:
            if len(keep) != len(res.game_ids):  # drop games already present (or repeated in this run)
                wanted = pa.array(sorted(keep), pa.string())
                res.tables = {t: tb.filter(pc.or_kleene(pc.is_in(tb.column("game_id"), wanted),
                                                        pc.is_null(tb.column("game_id"))))
                              for t, tb in res.tables.items()}
            sink(res.tables)
        if progress is not None:
            done_bytes += (res.end_byte - chunk.start) if chunk.path != "-" else 0
            progress(done_bytes)

    if jobs <= 1 or len(chunks) <= 1:
        for c in chunks:
            merge(c, process_chunk(c, override, keep_results))
        return stats
    with ProcessPoolExecutor(max_workers=jobs, mp_context=mp.get_context("spawn")) as pool:
        window: deque = deque()
        it = iter(chunks)
        for c in it:  # keep a bounded number of chunks in flight so memory stays flat
            window.append((c, pool.submit(process_chunk, c, override, keep_results)))
            if len(window) >= 2 * jobs:
                done, fut = window.popleft()
                merge(done, fut.result())
        while window:
            done, fut = window.popleft()
            merge(done, fut.result())
    return stats


def import_paths(paths: Iterable[str], out: str | Path, *, override: str = "", keep_results: bool = False,
                 jobs: int = 1, progress: Callable[[int], None] | None = None) -> ImportStats:
    """Parse, audit and add ``paths`` to the dataset at ``out``; atomic and idempotent."""
    root = Path(out)
    with _locked(root):
        manifest = read_manifest(root)
        _remove_orphans(root, manifest)
        known = known_game_ids(root)
        writers = {t: _PartWriter(root, t) for t in TABLES}

        def sink(tables: dict[str, pa.Table]) -> None:
            for t, table in tables.items():
                writers[t].write(table)

        try:
            stats = process(paths, override=override, sink=sink, known=known, keep_results=keep_results,
                            jobs=jobs, progress=progress)
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
