"""DuckDB over the Parquet dataset: read-only views, player statistics, and user SQL.

:func:`connect` opens an in-memory DuckDB connection with one view per dataset table
(reading ``DATASET/current/batch=*/<table>.parquet``, so batches published while the
connection is open appear in its next query) and the derived views and macros
defined in ``auditor/sql/*.sql`` (``game_players``, ``player_hands``, ``side_hands``,
``game_player_counters_live``, ``unit_stats``, ``player_stats``, ``team_stats``).  The SQL
files are the reference for every derived column; :func:`schema_rows` reads their
``-- column:`` lines.

Every raw view reads its batches by column name, under an empty relation with every column
of the current schema: batches written by an older schema version (before a column was added)
read as null in that column, so ``stats`` and ``query`` work on old datasets too.

Statistics come from per-game counters (one row per player per game): the dataset table
``game_player_counters``, which :func:`summarize_batch` writes into each batch as it is
imported, or, when some batch of the dataset lacks it or has it without the columns of
the current schema (a dataset imported by an older version, or through
:mod:`auditor.dataset` without ``summarize``), the view
``game_player_counters_live`` that computes the same rows from the raw tables.

Nothing a query does can change the data, by two locks:

* :func:`check_read_only` lets through only statements that read: SELECT (WITH, FROM,
  VALUES, DESCRIBE, SHOW, SUMMARIZE), EXPLAIN of such a statement, and a short list
  of PRAGMAs that report.  COPY, EXPORT, ATTACH, INSTALL/LOAD, SET, CREATE, INSERT, UPDATE,
  DELETE and the rest are refused before DuckDB sees them.
* the connection itself is sandboxed once the views exist: external access is off except
  for reading the part files, and the configuration is locked.  The part files must stay
  readable, and DuckDB's ``allowed_paths`` lets a COPY overwrite them too, so the statement
  check is the lock that matters; the sandbox keeps queries away from every other file.
"""

from __future__ import annotations

import datetime as dt
import io
import re
import shutil
import tempfile
import threading
import weakref
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from functools import lru_cache
from importlib import resources
from pathlib import Path

from ._lazy import lazy

duckdb = lazy("duckdb")
pa = lazy("pyarrow")
pq = lazy("pyarrow.parquet")

from .rules import RulesError, parse_rules
from .dataset import ImportStats, batch_schema_versions, current, has_current_columns, import_paths, table_files, \
    table_glob, write_file_atomic
from .tables import SCHEMA_VERSION, SCHEMAS, TABLES

# DuckDB types of the Arrow types in schemas/tables.json: an empty table's view must have
# the same columns and types as a view over its Parquet files.
@lru_cache(maxsize=None)
def _duck_types() -> dict:
    return {
        pa.string(): "VARCHAR", pa.bool_(): "BOOLEAN", pa.int8(): "TINYINT", pa.int16(): "SMALLINT",
        pa.int32(): "INTEGER", pa.int64(): "BIGINT", pa.date32(): "DATE",
        pa.timestamp("us", tz="UTC"): "TIMESTAMP WITH TIME ZONE", pa.list_(pa.string()): "VARCHAR[]",
    }


# PRAGMAs that only report; every other PRAGMA (import_database, enable_profiling with its
# output file, ...) is refused.
_READ_PRAGMAS = frozenset({
    "table_info", "show", "show_tables", "show_tables_expanded", "database_list", "database_size",
    "version", "platform", "functions", "collations", "metadata_info", "storage_info", "user_agent",
})
_LEADING_NOISE = re.compile(r"^(?:\s+|--[^\n]*(?:\n|$)|/\*.*?\*/)*", re.S)
_EXPLAIN = re.compile(r"^explain\b(?:\s+analyze\b)?\s*(?:\([^)]*\))?", re.I)
_PRAGMA = re.compile(r"^pragma\s+([A-Za-z_][A-Za-z0-9_]*)", re.I)

STAT_UNITS = ("player", "team")

# The derived table of per-game counters (see schemas/tables.json), the view that computes it
# from the raw tables, and the connection variable that tells unit_stats which one to read.
SUMMARY_TABLE = "game_player_counters"
SUMMARY_VIEW = "game_player_counters_live"
_SUMMARY_SQL = "35_game_player_counters.sql"  # the file that defines it
_SUMMARY_VARIABLE = "auditor_summaries"


class WarehouseError(Exception):
    """The warehouse could not do what was asked (bad SQL, a refused statement, no data)."""


class QueryRefused(WarehouseError):
    """A statement that could change something: refused before it runs."""


@dataclass
class Warehouse:
    """An open, read-only connection and where its data came from."""

    con: duckdb.DuckDBPyConnection
    dataset: Path | None
    imported: ImportStats | None = None  # set when logs were imported on the fly
    files: dict[str, list[str]] = field(default_factory=dict)  # table -> part files read
    summaries: bool = True  # read the stored counters when every batch has them (False: always the raw tables)


# --------------------------------------------------------------------------- the SQL files


@dataclass
class SqlObject:
    """One view, table or macro defined in ``auditor/sql``, with its documentation."""

    name: str
    kind: str  # view, table or macro
    doc: str
    columns: dict[str, str]
    file: str


def sql_files() -> list[tuple[str, str]]:
    """The derived-view SQL files in load order, as (name, text)."""
    root = resources.files("auditor").joinpath("sql")
    return sorted((p.name, p.read_text("utf-8")) for p in root.iterdir() if p.name.endswith(".sql"))


def sql_objects() -> dict[str, SqlObject]:
    """Every object the SQL files define, with the docs of its header comment.

    A header is ``-- view: NAME`` (or ``table:``, ``macro:``), prose lines, then one
    ``-- column: NAME meaning`` line per column; ``-- columns: as OTHER`` takes the column
    docs of OTHER, defined earlier (the stats views are the unit_stats macro renamed).
    """
    out: dict[str, SqlObject] = {}
    for fname, text in sql_files():
        current: SqlObject | None = None  # the object whose header is being read
        for line in text.splitlines():
            if not line.startswith("--"):
                if line.strip():
                    current = None  # the header ends where the SQL starts
                continue
            body = line[2:].strip()
            m = re.match(r"^(view|table|macro):\s*(\w+)$", body)
            if m:
                current = SqlObject(m.group(2), m.group(1), "", {}, fname)
                out[current.name] = current
            elif current is None:
                continue
            elif m := re.match(r"^column:\s*(\w+)\s+(.*)$", body):
                current.columns[m.group(1)] = m.group(2).strip()
            elif m := re.match(r"^columns:\s*as\s+(\w+)$", body):
                current.columns.update(out[m.group(1)].columns)
            elif body and not current.columns:
                current.doc = f"{current.doc} {body}".strip()
    return out


# --------------------------------------------------------------------------- the connection


def _quote(text: str) -> str:
    return "'" + text.replace("'", "''") + "'"


def _literal(value: str | int | dt.date | None) -> str:
    """A SQL literal for a value from the command line (quoted, never pasted raw)."""
    if value is None:
        return "NULL"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, dt.date):
        return f"DATE '{value.isoformat()}'"
    return _quote(str(value))


def _ident(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def _raw_view_sql(table: str, source: str | None, by_name: bool = False) -> str:
    """The view of one dataset table: over ``source`` (a file or a glob), or empty with its schema.

    The view has the columns of the current schema, whatever else the files hold. With
    ``by_name`` (some batch was written by an older schema version, without the columns added
    since), the files are read by column name (``union_by_name``) under an empty relation with
    every column of the current schema, so a column a batch lacks reads as null there. That
    costs a read of every file's footer each time a query binds the view, so it is used only
    where needed: otherwise the first file gives the columns, and every batch has them.
    """
    names = ", ".join(_ident(f.name) for f in SCHEMAS[table])
    empty = "SELECT " + ", ".join(f"CAST(NULL AS {_duck_types()[f.type]}) AS {_ident(f.name)}"
                                  for f in SCHEMAS[table]) + " LIMIT 0"
    if source is None:
        return f"CREATE VIEW {table} AS {empty}"
    # hive_partitioning off: the batch=<id> folders are storage, not a column
    if not by_name:
        return f"CREATE VIEW {table} AS SELECT {names} FROM read_parquet({_quote(source)}, hive_partitioning = false)"
    # the view is bound again at each query, so batches published later count with their columns
    return (f"CREATE VIEW {table} AS SELECT {names} FROM (({empty}) UNION ALL BY NAME "
            f"(SELECT * FROM read_parquet({_quote(source)}, hive_partitioning = false, union_by_name = true)))")


def _derived_views(con: duckdb.DuckDBPyConnection, through: str | None = None) -> None:
    """Run the SQL files over the raw views already defined in ``con``: all, or those up to the
    file named ``through`` (each file reads only the files before it)."""
    for i, (name, text) in enumerate(sql_files()):
        if i == 0:
            _load_rule_sets(con, text)
        else:
            con.execute(text)
        if name == through:
            break


def _load_rule_sets(con: duckdb.DuckDBPyConnection, sql: str | None = None) -> None:
    """The table ``rule_sets`` (00_rule_sets.sql), from the rule sets the ``games`` view names now:
    made, or made again over another batch."""
    sql = sql if sql is not None else sql_files()[0][1]
    con.register("_rule_sets_source", _rule_sets(con))  # the file copies this into the table
    con.execute(sql.replace("CREATE TABLE", "CREATE OR REPLACE TABLE", 1))
    con.unregister("_rule_sets_source")


def _rule_sets(con: duckdb.DuckDBPyConnection) -> pa.Table:
    """One row per distinct rule set in ``games``, read with :mod:`auditor.rules`."""
    rows = []
    for (text,) in con.execute("SELECT DISTINCT rules FROM games WHERE rules IS NOT NULL").fetchall():
        try:
            r = parse_rules(text)
        except RulesError:
            continue  # the game was not audited under it either: its rows carry no scores
        rows.append({"rules": text, "preset": r.preset, "partnership": r.partnership,
                     # the top bid counts apart when it has a name or a rule of its own (a smudge, a moon)
                     "top_bid": r.top_bid if r.top_bid_words or r.smudge != "none" else None,
                     "top_bid_words": ",".join(r.top_bid_words) or None,
                     "moon": r.smudge == "moon", "points_in_play": r.points_in_play, "ten_point": r.ten_point,
                     "trey": r.trey, "game_to": r.game, "count_down": r.count_down,
                     # the engine settles only games played alone (see engine.score_game)
                     "settles": r.settlement == "club" and not r.partnership})
    schema = pa.schema([("rules", pa.string()), ("preset", pa.string()), ("partnership", pa.bool_()),
                        ("top_bid", pa.int32()), ("top_bid_words", pa.string()), ("moon", pa.bool_()),
                        ("points_in_play", pa.int32()), ("ten_point", pa.bool_()), ("trey", pa.bool_()),
                        ("game_to", pa.int32()), ("count_down", pa.bool_()), ("settles", pa.bool_())])
    return pa.Table.from_pylist(rows, schema=schema)


def connect(dataset: str | Path | None, *, summaries: bool = True) -> Warehouse:
    """A read-only DuckDB connection with the raw and derived views over ``dataset``.

    ``None`` gives the same views over no data (for ``--schema``).  With ``summaries``
    false, statistics are always computed from the raw tables, even where the stored
    counters exist (the benchmark's baseline; the numbers are the same).  Raises
    :class:`WarehouseError` when ``dataset`` has no ``current/manifest.json``.
    """
    root = Path(dataset).resolve() if dataset is not None else None
    if root is not None and not (root / "current" / "manifest.json").is_file():
        raise WarehouseError(f"{dataset} is not a dataset (no current/manifest.json): give a dataset made "
                             "by `auditor import`, or log files")
    con, scratch = _private_connection()
    files: dict[str, list[str]] = {}
    # a batch written by an older schema version lacks columns: read every batch by column name
    old = root is not None and any(v != SCHEMA_VERSION for v in batch_schema_versions(root).values())
    try:
        for t in TABLES:
            files[t] = [str(p) for p in table_files(root, t)] if root is not None else []
            # the glob goes through the `current` link, so a batch published later shows up in the
            # next query without reopening
            con.execute(_raw_view_sql(t, table_glob(root, t) if files[t] else None, by_name=old))
        _derived_views(con)
        # The sandbox: from here on only the part files can be opened, and no setting can change.
        if root is not None:  # the generations the `current` link may point at, and their store
            con.execute("SET allowed_directories = $dirs",
                        {"dirs": [f"{root / d}/" for d in ("current", "gens", "store")]})
        con.execute("SET enable_external_access = false")
        con.execute("SET lock_configuration = true")
        wh = Warehouse(con, root, files=files, summaries=summaries)
        weakref.finalize(wh, shutil.rmtree, scratch, True)  # the scratch folder goes with the connection
        _pick_counters(wh)
    except duckdb.Error as e:
        con.close()
        shutil.rmtree(scratch, True)
        raise WarehouseError(f"cannot open the dataset {dataset}: {e}") from None
    return wh


def _private_connection() -> tuple[duckdb.DuckDBPyConnection, str]:
    """An in-memory connection whose temporary files go to a fresh folder of its own (mode 0700).

    DuckDB lets queries read its temporary folder whatever ``allowed_directories`` says; left
    at its default (``.tmp`` under the current folder) that opened the user's own files to
    `auditor query`.  A folder made for this connection alone holds nothing but what DuckDB
    spills there, so large sorts and joins can still spill to disk.
    """
    scratch = tempfile.mkdtemp(prefix="auditor-duckdb-")
    return duckdb.connect(":memory:", config={"temp_directory": scratch}), scratch


def summaries_complete(dataset: str | Path) -> bool:
    """Whether every published batch of ``dataset`` that holds games has its stored counters, all of them.

    Counters written under an older schema lack the columns added since (the ten-point and
    moon counters): such a batch counts as having none, so statistics come from the raw tables.
    """
    gen = current(dataset)
    if gen is None:
        return False
    versions = batch_schema_versions(dataset)
    for b in gen.glob("batch=*"):
        f = b / f"{SUMMARY_TABLE}.parquet"
        if f.exists():
            # a batch of the current version has current counters or none; an older one, maybe either
            if versions.get(b.name.removeprefix("batch="), 1) != SCHEMA_VERSION \
                    and not has_current_columns(f, SUMMARY_TABLE):
                return False
        elif (b / "games.parquet").exists():
            return False
    return True


def _pick_counters(wh: Warehouse) -> bool:
    """Point unit_stats at the stored counters if they cover the published generation, else at the raw tables.

    Called when the connection opens and before each query, since an import may publish
    batches (with or without counters) while it is open.  Returns the choice.
    """
    use = (wh.summaries and wh.dataset is not None
           # a view made while no batch had the table is the empty view: it would stay empty
           and bool(wh.files.get(SUMMARY_TABLE)) and summaries_complete(wh.dataset))
    # a variable, not a setting: the configuration is locked, and unit_stats reads it as a
    # constant at plan time, so the branch it does not pick is never scanned
    wh.con.execute(f"SET VARIABLE {_SUMMARY_VARIABLE} = {_literal(use)}")
    return use


def summarize_batch(batch_dir: str | Path) -> None:
    """Write ``<batch_dir>/game_player_counters.parquet``: the per-game counters of one batch.

    The :mod:`auditor.dataset` pipeline calls this (as its ``summarize`` argument) on each
    staged batch just before publishing it, so the file always matches the batch's other
    files.  The rows are the view ``game_player_counters_live`` over that batch alone: every
    counter is per game, and a game lies in one batch.  The file is written even when it has
    no rows, so that it marks the batch as summarized.
    """
    batch_dir = Path(batch_dir)
    with _SUMMARY_LOCK:
        con = _summary_connection()
        for t in TABLES:
            f = batch_dir / f"{t}.parquet"
            # by name: the batch may have been written by an older schema version (compacted or rewritten)
            sql = _raw_view_sql(t, str(f) if t != SUMMARY_TABLE and f.exists() else None, by_name=True)
            con.execute(sql.replace("CREATE VIEW", "CREATE OR REPLACE VIEW", 1))
        _load_rule_sets(con)  # the one table of the SQL files: this batch's rule sets
        # ordered, so that the same batch always gives the same file
        table = con.sql(f"SELECT * FROM {SUMMARY_VIEW} ORDER BY game_id, player").to_arrow_table()
    table = table.cast(SCHEMAS[SUMMARY_TABLE])
    buf = io.BytesIO()
    pq.write_table(table, buf, compression="zstd")
    write_file_atomic(batch_dir / f"{SUMMARY_TABLE}.parquet", buf.getvalue())


_SUMMARY_LOCK = threading.Lock()


@lru_cache(maxsize=1)
def _summary_connection() -> duckdb.DuckDBPyConnection:
    """The connection :func:`summarize_batch` reuses (the caller holds its lock): the SQL files up to the
    counters' are bound once; each batch then only re-points the raw views (views bind at query time)."""
    con, scratch = _private_connection()
    for t in TABLES:
        con.execute(_raw_view_sql(t, None))
    _derived_views(con, through=_SUMMARY_SQL)  # the statistics after it are not needed here
    weakref.finalize(con, shutil.rmtree, scratch, True)
    return con


def is_dataset(path: str | Path) -> bool:
    """Whether ``path`` is a dataset folder (it has a published ``current/manifest.json``)."""
    return (Path(path) / "current" / "manifest.json").is_file()


@contextmanager
def open_data(paths: Sequence[str], override: str = "", analyze: bool = False) -> Iterator[Warehouse]:
    """A warehouse over a dataset, or over logs imported into a temporary dataset.

    One path that is a dataset folder is opened as it is; anything else (log files,
    folders of ``*.pitch``, ``-``) is parsed and audited into a dataset that lives as long
    as the ``with`` block (``analyze``: with the analysis table, as ``import --analyze``).  No paths at
    all gives empty views.
    """
    if not paths or (len(paths) == 1 and is_dataset(paths[0])):
        wh = connect(paths[0] if paths else None)
        try:
            yield wh
        finally:
            wh.con.close()
        return
    with tempfile.TemporaryDirectory(prefix="auditor-") as tmp:
        imported = import_paths(paths, tmp, override=override, summarize=summarize_batch, analyze=analyze)
        missing = [f for f in imported.findings if f.code == "E100"]
        if missing and not imported.files:  # nothing to read at all; else the command says what was not there
            raise WarehouseError("; ".join(f.message for f in missing))
        wh = connect(tmp if is_dataset(tmp) else None)  # no game read: empty views, not the folder's name
        wh.imported = imported
        try:
            yield wh
        finally:
            wh.con.close()  # before the folder goes


# --------------------------------------------------------------------------- user SQL


def _strip_noise(sql: str) -> str:
    return _LEADING_NOISE.sub("", sql, count=1)


def check_read_only(con: duckdb.DuckDBPyConnection, sql: str) -> list[str]:
    """The statements of ``sql``, if every one only reads; else :class:`QueryRefused`.

    Raises :class:`WarehouseError` with DuckDB's message when ``sql`` does not parse.
    """
    try:
        statements = con.extract_statements(sql)
    except duckdb.Error as e:
        raise WarehouseError(str(e)) from None
    if not statements:
        raise WarehouseError("no SQL statement given")
    out = []
    for st in statements:
        _check_statement(con, st)
        out.append(st.query)
    return out


def _check_statement(con: duckdb.DuckDBPyConnection, st) -> None:
    kind = st.type
    text = _strip_noise(st.query)
    if kind == duckdb.StatementType.SELECT:
        return
    if kind == duckdb.StatementType.PRAGMA:
        m = _PRAGMA.match(text)
        if m and m.group(1).lower() in _READ_PRAGMAS:
            return
        word = m.group(1) if m else text[:40]
        raise QueryRefused(f"refused: PRAGMA {word} is not one of the PRAGMAs that only report "
                           f"({', '.join(sorted(_READ_PRAGMAS))})")
    if kind == duckdb.StatementType.EXPLAIN:
        # EXPLAIN ANALYZE runs the statement it explains: check that one too
        m = _EXPLAIN.match(text)
        inner = text[m.end():] if m else ""
        try:
            inner_sts = con.extract_statements(inner) if inner.strip() else []
        except duckdb.Error:
            inner_sts = []
        if len(inner_sts) != 1:
            raise QueryRefused("refused: cannot tell what this EXPLAIN explains (EXPLAIN ANALYZE runs it)")
        _check_statement(con, inner_sts[0])
        return
    name = str(kind).rsplit(".", 1)[-1].replace("_", " ")
    raise QueryRefused(f"refused: {name} statements could change the data or reach outside the dataset; queries "
                       "are read-only (SELECT, WITH, EXPLAIN, DESCRIBE, SHOW, SUMMARIZE and reporting PRAGMAs)")


def run_query(wh: Warehouse, sql: str) -> pa.Table:
    """Run ``sql`` (one or more read-only statements) and return the last statement's result.

    Earlier statements are checked and bound, so their errors are reported, but since
    nothing may write, their results cannot matter to the last one and are not computed.
    Raises :class:`QueryRefused` for a statement that could write and
    :class:`WarehouseError` with DuckDB's message for SQL that fails.
    """
    statements = check_read_only(wh.con, sql)
    try:
        _pick_counters(wh)  # player_stats and team_stats read unit_stats
        for text in statements[:-1]:
            wh.con.sql(text)
        rel = wh.con.sql(statements[-1])
        return _dedupe_names(rel.to_arrow_table()) if rel is not None else pa.table({})
    except duckdb.Error as e:
        raise WarehouseError(str(e)) from None


def _dedupe_names(table: pa.Table) -> pa.Table:
    # SELECT 1 AS a, 2 AS a is legal SQL, but rows as dicts would lose a column
    seen: dict[str, int] = {}
    names = []
    for n in table.column_names:
        seen[n] = seen.get(n, 0) + 1
        names.append(n if seen[n] == 1 else f"{n}_{seen[n]}")
    return table if names == table.column_names else table.rename_columns(names)


# --------------------------------------------------------------------------- stats


def stat_columns(wh: Warehouse, by: str = "player") -> list[str]:
    """The columns of ``auditor stats`` in order, the first named after ``by``."""
    cols = [d[0] for d in wh.con.execute("DESCRIBE SELECT * EXCLUDE (event) FROM unit_stats()").fetchall()]
    return [by if c == "unit" else c for c in cols]


def stats(wh: Warehouse, by: str = "player", *, game: str | None = None, event: str | None = None,
          preset: str | None = None, since: dt.date | None = None, until: dt.date | None = None,
          min_hands: int = 0, sort: str | None = None, per_event: bool = False) -> pa.Table:
    """The league table: the ``unit_stats`` macro per player or team, filtered and sorted.

    ``sort`` names a column: numbers sort largest first, the name column A to Z; without it
    the order is the placing (games won, win %, points per hand). ``per_event`` gives one
    table per event, with the column ``event`` first (null: the games without an Event tag),
    each placed on its own, in one query.
    """
    if by not in STAT_UNITS:
        raise WarehouseError(f"--by must be player or team, not {by!r}")
    cols = stat_columns(wh, by)
    order = ""
    if sort is not None:
        if sort not in cols:
            raise WarehouseError(f"unknown sort column {sort!r} (columns: {', '.join(cols)})")
        direction = "ASC" if sort == by else "DESC NULLS LAST"
        order = f" ORDER BY {'event NULLS LAST, ' if per_event else ''}{_ident(sort)} {direction}, {_ident(by)}"
    # Literals, not $parameters: DuckDB folds `NULL IS NULL OR ...` away at plan time only
    # when it can see the value, and the unfiltered table is the common case.
    args = {"per": by, "only_game": game, "only_event": event, "only_preset": preset, "since": since,
            "until": until, "min_hands": int(min_hands), "per_event": bool(per_event)}
    try:
        args["summaries"] = _pick_counters(wh)
        sql = (f"SELECT *{'' if per_event else ' EXCLUDE (event)'} RENAME (unit AS {_ident(by)}) FROM unit_stats("
               + ", ".join(f"{k} := {_literal(v)}" for k, v in args.items()) + f"){order}")
        return wh.con.sql(sql).to_arrow_table()
    except duckdb.Error as e:
        raise WarehouseError(str(e)) from None


# --------------------------------------------------------------------------- schema


def schema_rows(wh: Warehouse) -> list[dict]:
    """Every view, table and macro a query can use, column by column, with its meaning."""
    objects = sql_objects()
    rows: list[dict] = []
    types = {}
    for name, col, typ in wh.con.execute(
            "SELECT table_name, column_name, data_type FROM duckdb_columns() "
            "WHERE NOT internal ORDER BY table_name, column_index").fetchall():
        types.setdefault(name, []).append((col, typ))
    for t in TABLES:
        table_doc = SCHEMAS[t].metadata[b"doc"].decode()
        for f in SCHEMAS[t]:
            rows.append({"view": t, "kind": "raw", "column": f.name,
                         "type": dict(types.get(t, [])).get(f.name, _duck_types()[f.type]),
                         "meaning": f.metadata[b"doc"].decode(), "about": table_doc})
    for name, obj in objects.items():
        if obj.kind == "macro":
            cols = [(d[0], d[1]) for d in wh.con.execute(f"DESCRIBE SELECT * FROM {name}()").fetchall()]
        else:
            cols = types.get(name, [])
        for col, typ in cols:
            rows.append({"view": name if obj.kind != "macro" else f"{name}(...)", "kind": obj.kind, "column": col,
                         "type": typ, "meaning": obj.columns.get(col, ""), "about": obj.doc})
    return rows
