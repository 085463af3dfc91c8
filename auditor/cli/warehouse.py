"""Commands over the dataset with DuckDB: stats and query."""

from __future__ import annotations

import datetime as dt
import io
import sys
from pathlib import Path
from typing import Annotated

from .._lazy import lazy

pa = lazy("pyarrow")
import typer
from rich.console import Console

from ..render import emit_rows, fit_rows, plural, print_fitted, rich_table, say, stderr_console, stdout_console, \
    table_to_parquet, wrap_prose, write_atomic
from ..rules import PRESETS
views = lazy("auditor.warehouse")  # DuckDB's views: loaded by the commands that query, not by `audit`
from . import EXIT_CLEAN, app, fail, settings
from .inputs import note_inputs, warn_if_damaged

OUT_FORMATS = ("table", "csv", "json", "jsonl", "parquet")
FormatOpt = Annotated[str, typer.Option("--format", metavar="FORMAT", help="table, csv, json, jsonl or parquet")]
OutputOpt = Annotated[str | None, typer.Option("--output", "-o", metavar="FILE",
                                               help="write to this file (default stdout)")]
# the filters `stats` and `report` share, with unit_stats' meaning
EventOpt = Annotated[str | None, typer.Option("--event", metavar="EVENT", help="only games with this Event tag")]
SinceOpt = Annotated[str | None, typer.Option("--since", metavar="DATE",
                                              help="only games dated on or after DATE: YYYY-MM-DD, or YYYY.MM.DD as "
                                              "the Date tag writes it")]
UntilOpt = Annotated[str | None, typer.Option("--until", metavar="DATE",
                                              help="only games dated on or before DATE: YYYY-MM-DD, or YYYY.MM.DD as "
                                              "the Date tag writes it")]


def _date(value: str | None, option: str) -> dt.date | None:
    if value is None:
        return None
    try:
        return dt.date.fromisoformat(value.replace(".", "-"))
    except ValueError:
        raise fail(f"{option} takes a date YYYY-MM-DD, or YYYY.MM.DD as the Date tag writes it, not {value!r}")


def _check_format(fmt: str, output: str | None) -> None:
    if fmt not in OUT_FORMATS:
        raise fail(f"--format must be one of {', '.join(OUT_FORMATS)}, not {fmt!r}")
    if fmt == "parquet" and not output and sys.stdout.isatty():
        raise fail("parquet is binary: give --output FILE (or redirect stdout)")


def _plain_numbers(table: pa.Table) -> pa.Table:
    """Decimal columns as int64 or float64 for text output.

    DuckDB's sum() of integers is a HUGEINT, which reaches Arrow as decimal128(38, 0); as
    Python Decimals it would print as strings in JSON and left-aligned in tables.
    """
    cols = []
    for f, col in zip(table.schema, table.columns):
        if pa.types.is_decimal(f.type):
            try:
                col = col.cast(pa.int64()) if f.type.scale == 0 else col.cast(pa.float64())
            except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
                pass  # too big for int64: leave it exact
        cols.append(col)
    return pa.table(cols, names=table.column_names)


def _emit(table: pa.Table, fmt: str, output: str | None, title: str | None = None, lead: int = 1) -> None:
    """A result in the chosen format; Parquet straight from Arrow, keeping DuckDB's types."""
    try:
        if fmt == "parquet":
            data = table_to_parquet(table)
            if output:
                write_atomic(output, data)
            else:
                sys.stdout.buffer.write(data)
                sys.stdout.flush()
            return
        emit_rows(_plain_numbers(table).to_pylist(), fmt, output, columns=table.column_names, title=title, lead=lead)
    except OSError as e:
        raise fail(f"cannot write {output}: {e.strerror or e}")


# `stats --format table`: the columns in tables that fit a terminal, each led by the name
STAT_GROUPS = (
    ("games", ("place", "games", "games_finished", "games_won", "win_pct", "hands")),
    ("auction", ("bid_turns", "bids", "bid_rate", "auctions_won", "avg_winning_bid")),
    ("contracts", ("contracts_made", "contracts_made_pct", "times_set", "points_set_back", "smudge_attempts",
                   "smudges_made")),
    ("points (per 100 played hands, and per hand)", ("high_per_100", "low_per_100", "jack_per_100", "game_per_100",
                                                     "points", "points_per_hand", "points_pct", "score",
                                                     "score_per_hand")),
    ("moons, the ten-point points and the jick (per 100 hands in play)",
     ("moon_attempts", "moons_made", "off_jack_per_100", "jokers_per_100", "trey_per_100")),
    ("accuracy under perfect play (import --analyze)", ("cards_analysed", "points_lost_per_100_cards",
                                                        "mistakes_per_hand", "unmakeable_bids", "underbids")),
    ("revokes, score sheet, settlement", ("revokes", "revokes_per_100", "scoring_errors", "settlement")),
)
# columns shown only where some row has something in them: the settlement (auction's club
# settlement), the ten-point points and the jick (rule sets that have them), moons (smudge=moon) and
# the accuracy under perfect play (datasets imported with --analyze)
_WHERE_USED = ("settlement", "off_jack_per_100", "jokers_per_100", "trey_per_100", "moon_attempts", "moons_made",
               "cards_analysed", "points_lost_per_100_cards", "mistakes_per_hand", "unmakeable_bids", "underbids")


def _stats_tables(table: pa.Table, by: str, output: str | None) -> None:
    # headers with spaces, so that rich can wrap them; the names stay recognisable for --sort
    label = {c: c.replace("_", " ") for c in table.column_names}
    rows = [{label[k]: v for k, v in r.items()} for r in table.to_pylist()]
    grouped = {c for _, cols in STAT_GROUPS for c in cols}
    # a column added to the SQL but not to a group still shows, in the last table
    extra = tuple(c for c in table.column_names if c != by and c not in grouped)
    groups = list(STAT_GROUPS[:-1]) + [(STAT_GROUPS[-1][0], STAT_GROUPS[-1][1] + extra)]
    unused = {c for c in _WHERE_USED if c in table.column_names
              and not any(v not in (None, 0) for v in table.column(c).to_pylist())}
    tables = []
    for title, cols in groups:
        cols = [c for c in cols if c in table.column_names and c not in unused]
        if cols:
            tables.append(([label[by], *(label[c] for c in cols)], f"{title}, by {by}"))
    if output:
        buf = io.StringIO()
        con = Console(file=buf, width=200, no_color=True)
        for cols, title in tables:
            con.print(rich_table(rows, cols, title))
        try:
            write_atomic(output, buf.getvalue().encode("utf-8"))
        except OSError as e:
            raise fail(f"cannot write {output}: {e.strerror or e}")
        return
    con = stdout_console()  # the terminal's width, or COLUMNS (honoured when piped too), else 80
    for cols, title in tables:
        print_fitted(con, fit_rows(rows, cols, con.width, title))


def _warn_damaged(paths: list[str]) -> None:
    """Before a dataset is opened (a damaged file may stop that): what the last `auditor check` found."""
    if len(paths) == 1 and views.is_dataset(paths[0]):
        warn_if_damaged(Path(paths[0]))


def _note_import(wh: "views.Warehouse") -> int:
    """Logs read on the fly: what was read, and what was not there, not a log or empty (the rule of
    every command); the exit status that calls for (0 for a dataset)."""
    st = wh.imported
    if st is None:
        return EXIT_CLEAN
    status = note_inputs(st.games_by_file, st.games_by_file, st.findings)
    say(stderr_console(), f"read {plural(st.games, 'game')}, {plural(st.hands, 'hand')} from "
                          f"{plural(st.files, 'file')} into a temporary dataset "
                          f"({plural(len(st.findings), 'finding')})")
    return status


@app.command()
def stats(
    paths: Annotated[list[str] | None, typer.Argument(metavar="DATA", help="a dataset folder, or log files / folders to "
                                                      "read on the fly (default: the configuration's data)")] = None,
    by: Annotated[str, typer.Option("--by", metavar="UNIT", help="player, or team (partnership sides)")] = "player",
    game: Annotated[str | None, typer.Option("--game", metavar="GAME",
                                             help="only this game (its name or game_id)")] = None,
    event: EventOpt = None,
    rules: Annotated[str | None, typer.Option("--rules", metavar="RULES",
                                              help="only games audited under this preset")] = None,
    since: SinceOpt = None,
    until: UntilOpt = None,
    min_hands: Annotated[int, typer.Option("--min-hands", metavar="N", min=0,
                                           help="leave out who played fewer hands")] = 0,
    sort: Annotated[str | None, typer.Option("--sort", metavar="COLUMN",
                                             help="order by this column (numbers: largest first)")] = None,
    fmt: FormatOpt = "table",
    output: OutputOpt = None,
) -> None:
    """Player (or team) statistics: games won, bidding, contracts, points, revokes, settlement.

    Every column is defined in docs/stats.md (and auditor/sql/40_stats.sql).
    """
    if not paths:
        if not settings()["data"]:
            raise fail("give DATA: a dataset folder or logs (or set data = \"DATASET\" in auditor.toml: see "
                       "`auditor config`)")
        paths = [settings()["data"]]
    if by not in views.STAT_UNITS:
        raise fail(f"--by must be player or team, not {by!r}")
    if rules is not None and rules not in PRESETS:
        raise fail(f"--rules takes a preset name ({', '.join(PRESETS)}), not {rules!r}")
    _check_format(fmt, output)
    since_d, until_d = _date(since, "--since"), _date(until, "--until")
    try:
        _warn_damaged(paths)
        with views.open_data(paths) as wh:
            status = _note_import(wh)
            table = views.stats(wh, by, game=game, event=event, preset=rules, since=since_d, until=until_d,
                                 min_hands=min_hands, sort=sort)
    except views.WarehouseError as e:
        raise fail(str(e))
    except OSError as e:
        raise fail(f"cannot read the data: {e.strerror or e}")
    if table.num_rows == 0:
        say(stderr_console(), "no games match")
        if fmt == "table":  # empty tables say nothing a terminal user needs; csv/json keep their header
            raise typer.Exit(status)
    if fmt == "table":
        _stats_tables(table, by, output)
    else:
        _emit(table, fmt, output)
    raise typer.Exit(status)


def _schema_text(rows: list[dict], output: str | None) -> None:
    """``query --schema`` as text: each view under its heading, then a column a line (name, type,
    meaning), the meaning wrapped under itself where the width is known."""
    con = stdout_console()
    width = con.width if output is None else None
    out: list[str] = []
    views: dict[str, list[dict]] = {}
    for r in rows:
        views.setdefault(r["view"], []).append(r)
    for view, cols in views.items():
        out.append(wrap_prose(f"{view} ({cols[0]['kind']})" + (f": {cols[0]['about']}" if cols[0].get("about") else ""),
                              width, "", ""))
        # the columns line up; a rare long name or type (a STRUCT) only pushes its own meaning on
        name_w = min(26, max(len(c["column"]) for c in cols))
        type_w = min(9, max(len(c["type"]) for c in cols))
        for c in cols:
            lead = f"  {c['column']:<{name_w}}  {c['type']:<{type_w}}  "
            hang = " " * (name_w + type_w + 6) if width is None or name_w + type_w + 6 <= width // 2 else "      "
            out.append(wrap_prose(lead + (c["meaning"] or ""), width, "", hang))
        out.append("")
    text = "\n".join(out)
    if output:
        try:
            write_atomic(output, text.encode("utf-8"))
        except OSError as e:
            raise fail(f"cannot write {output}: {e.strerror or e}")
    else:
        sys.stdout.write(text)


def _read_sql(sql: str | None) -> str:
    if sql is None or sql == "-":
        if sql is None and sys.stdin.isatty():
            raise fail('give the SQL: auditor query "SELECT ..." (or @FILE, or - for stdin)')
        return sys.stdin.read()
    if sql.startswith("@"):
        path = Path(sql[1:])
        try:
            return path.read_text("utf-8")
        except OSError as e:
            raise fail(f"cannot read {path}: {e.strerror or e}")
        except UnicodeDecodeError:
            raise fail(f"{path} is not UTF-8 text")
    return sql


@app.command()
def query(
    sql: Annotated[str | None, typer.Argument(
        help="SQL, @FILE to read it from a file, or - (or nothing) for stdin")] = None,
    data: Annotated[list[str], typer.Option(
        "--data", metavar="DATASET", help="a dataset folder, or log files / folders (repeatable)")] = [],
    fmt: FormatOpt = "table",
    output: OutputOpt = None,
    schema: Annotated[bool, typer.Option("--schema",
                                         help="list the views and their columns instead")] = False,
) -> None:
    """Run read-only SQL over the dataset's views (player_hands, player_stats, the raw tables, ...).

    Statements that could change anything (COPY, UPDATE, CREATE, ATTACH, SET, ...) are
    refused with exit status 2; so is SQL DuckDB rejects, with its message.
    """
    _check_format(fmt, output)
    text = None if schema else _read_sql(sql)
    if not data and settings()["data"]:
        data = [settings()["data"]]
    if not data and not schema:
        say(stderr_console(), "no --data given: the views are empty")
    try:
        _warn_damaged(data)
        with views.open_data(data) as wh:
            status = _note_import(wh)
            if schema:
                rows = views.schema_rows(wh)
                if fmt == "table":
                    _schema_text(rows, output)
                else:
                    table = pa.Table.from_pylist(rows)
                    _emit(table.select(["view", "column", "kind", "type", "meaning"]), fmt, output)
                raise typer.Exit(status)
            statements = views.check_read_only(wh.con, text)
            if len(statements) > 1:
                # one result is shown, so one statement is run: the others would be silently lost
                raise views.WarehouseError(f"the SQL holds {len(statements)} statements; `auditor query` runs one and "
                                     "shows its result: run them one at a time")
            table = views.run_query(wh, text)
    except views.QueryRefused as e:
        raise fail(f"{e}; nothing was run")
    except views.WarehouseError as e:
        raise fail(str(e))
    except OSError as e:
        raise fail(f"cannot read the data: {e.strerror or e}")
    _emit(table, fmt, output)
    raise typer.Exit(status)
