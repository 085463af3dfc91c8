"""Output: the one ``--format`` option every command shares, and rich rendering of results.

Data goes to stdout (or ``--output FILE``, written atomically); chatter and progress
go to stderr.  Colour follows rich's rules: none when the stream is not a terminal,
none when ``NO_COLOR`` is set.
"""

from __future__ import annotations

import csv
import io
import json
import os
import sys
from collections.abc import Iterable, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from ._lazy import lazy

pa = lazy("pyarrow")
pq = lazy("pyarrow.parquet")
from rich.console import Console

from .findings import by_code, format_text, sort_key
from .notation import Finding

#: The narrowest layout `auditor replay` draws (narrower terminals wrap).
MIN_WIDTH = 60

FORMATS = ("table", "text", "csv", "json", "jsonl", "parquet")


def stdout_console(width: int | None = None) -> Console:
    """The console data is printed on."""
    return Console(width=width, soft_wrap=False, highlight=False)


def stderr_console() -> Console:
    """The console chatter and progress go to: off a terminal with no ``COLUMNS``, its lines are
    not wrapped (a summary stays one line a fact for whatever reads it), as findings are not."""
    fits = sys.stderr.isatty() or bool(os.environ.get("COLUMNS"))
    return Console(stderr=True, highlight=False, soft_wrap=not fits)


def write_atomic(path: str | Path, data: bytes) -> None:
    """Write ``data`` to ``path`` atomically (see :func:`write_atomic_with`)."""
    write_atomic_with(path, lambda f: f.write(data))


def write_atomic_with(path: str | Path, fill) -> None:
    """Write to ``path`` through a temporary file that ``fill(binary file)`` writes, flushed to disk, and a rename.

    A file that exists keeps its mode, and a symlink the file it names: the rename replaces
    the target, never the link. A path that is not a regular file (``-o /dev/null``, a named
    pipe, a terminal) is written to as it is: renaming over it would put a file in place of the
    device (as root, a file in place of /dev/null).
    """
    p = Path(path).resolve() if Path(path).is_symlink() else Path(path)
    if p.exists() and not p.is_file() and not p.is_dir():
        with open(p, "wb") as f:
            fill(f)
        return
    mode = p.stat().st_mode & 0o7777 if p.exists() else None
    tmp = p.with_name(f".{p.name}.{os.getpid()}.tmp")
    try:
        with open(tmp, "wb") as f:
            fill(f)
            f.flush()
            os.fsync(f.fileno())
        if mode is not None:
            st = p.stat()
            os.chmod(tmp, mode)
            try:  # the owner and group too, where this user may give them (root may)
                os.chown(tmp, st.st_uid, st.st_gid)
            except PermissionError:
                pass
        os.replace(tmp, p)
    finally:
        tmp.unlink(missing_ok=True)


def rows_to_bytes(rows: Sequence[dict[str, Any]], fmt: str, columns: Sequence[str] | None = None,
                  schema: pa.Schema | None = None) -> bytes:
    """Rows (dicts) serialised as csv, json, jsonl or parquet."""
    cols = list(columns or (rows[0].keys() if rows else []))
    if fmt == "csv":
        buf = io.StringIO()
        w = csv.DictWriter(buf, fieldnames=cols, lineterminator="\n", extrasaction="ignore")
        w.writeheader()
        for r in rows:
            w.writerow({k: _plain(r.get(k)) for k in cols})
        return buf.getvalue().encode("utf-8")
    if fmt == "json":
        return (json.dumps([{k: r.get(k) for k in cols} for r in rows], indent=2, ensure_ascii=False,
                           default=str) + "\n").encode("utf-8")
    if fmt == "jsonl":
        return "".join(json.dumps({k: r.get(k) for k in cols}, ensure_ascii=False, default=str) + "\n"
                       for r in rows).encode("utf-8")
    if fmt == "parquet":
        table = pa.Table.from_pylist([{k: r.get(k) for k in cols} for r in rows], schema=schema) if rows or schema \
            else pa.table({c: pa.array([], pa.string()) for c in cols})
        return table_to_parquet(table)
    raise ValueError(f"unknown format {fmt!r}")


def table_to_parquet(table: pa.Table) -> bytes:
    """An Arrow table as Parquet bytes."""
    sink = pa.BufferOutputStream()
    pq.write_table(table, sink)
    return sink.getvalue().to_pybytes()


def _plain(v: Any) -> Any:
    if isinstance(v, list | dict):
        return json.dumps(v, default=str)
    return v


def rich_table(rows: Sequence[dict[str, Any]], columns: Sequence[str] | None = None, title: str | None = None,
               widths: Sequence[int] | None = None) -> Table:
    """Rows as a rich table; numbers right-aligned, floats to two places; ``widths`` fixes each column's."""
    cols = list(columns or (rows[0].keys() if rows else []))
    from rich.table import Table

    t = Table(title=title, show_lines=False, header_style="bold")
    for i, c in enumerate(cols):
        numeric = any(isinstance(r.get(c), int | float) and not isinstance(r.get(c), bool) for r in rows)
        t.add_column(c, justify="right" if numeric else "left", overflow="fold", no_wrap=i == 0 and widths is None,
                     width=None if widths is None else widths[i])
    for r in rows:
        t.add_row(*(_cell(r.get(c)) for c in cols))
    return t


def _natural_width(table: Table) -> int:
    """The width a table needs to print without folding any cell."""
    probe = Console(width=100_000)
    from rich.measure import Measurement

    return max(40, Measurement.get(probe, probe.options, table).maximum)


def _cell(v: Any) -> str:
    if v is None:
        return ""
    if isinstance(v, float):
        return f"{v:.2f}"
    if isinstance(v, list):
        return " ".join(map(str, v))
    return str(v)


#: A column wrapped narrower than this (and than its text) is hard to read: the table folds instead.
READABLE = 20


def _column_widths(rows: Sequence[dict[str, Any]], cols: Sequence[str]) -> tuple[list[int], list[int]]:
    """Per column: the width its longest cell (or header) needs, and its longest word."""
    natural, longest_word = [], []
    for c in cols:
        texts = [c, *(_cell(r.get(c)) for r in rows)]
        natural.append(max(len(t) for t in texts))
        longest_word.append(max((len(w) for t in texts for w in t.split()), default=1))
    return natural, longest_word


def _fit(natural: list[int], words: list[int], width: int) -> list[int] | None:
    """Column widths for a table of ``width`` columns that breaks no word and wraps no column
    unreadably narrow; ``None`` when there are none."""
    room = width - (3 * len(natural) + 1)  # each column's padding and border, and the last border
    if sum(natural) <= room:
        return list(natural)
    if sum(words) > room:
        return None
    # every column gets its longest word, the rest goes where the text is longest
    out, spare = list(words), room - sum(words)
    want = [n - w for n, w in zip(natural, words)]
    total = sum(want) or 1
    for i, x in enumerate(want):
        out[i] += min(x, spare * x // total)
    if any(o < min(n, max(w, READABLE)) for o, n, w in zip(out, natural, words)):
        return None
    return out


def fit_rows(rows: Sequence[dict[str, Any]], columns: Sequence[str] | None, width: int,
             title: str | None = None, keyed: bool = False, lead: int = 1) -> list[Any]:
    """Renderables that show ``rows`` within ``width`` columns without breaking a word.

    The table whole when it fits (its long cells wrapped at spaces if need be); else the table
    cut into several, each led by the first column (a preset matrix, the stats); else, where even
    one column beside the first does not fit, each row as a block of ``column: value`` lines.
    ``keyed`` rows (a key, its value, then prose) fold straight to ``key = value`` lines with the
    prose indented below, rather than to a table of narrow prose. The first ``lead`` columns say
    which row is which, and lead every table cut from the whole; where they do not tell the rows
    apart, a row number ``#`` leads as well.
    """
    from rich.text import Text
    import textwrap

    cols = list(columns or (rows[0].keys() if rows else []))
    if not cols:
        return []
    natural, words = _column_widths(rows, cols)
    fitted = _fit(natural, words, width)
    if fitted is not None and (not keyed or fitted == natural or min(fitted[2:], default=READABLE * 2) >= 2 * READABLE):
        return [rich_table(rows, cols, title, None if fitted == natural else fitted)]

    def wrap(text: str, first: str, rest: str) -> str:
        return textwrap.fill(text, width, initial_indent=first, subsequent_indent=rest, break_long_words=False,
                             break_on_hyphens=False)

    out: list[Any] = [Text(wrap(title, "", ""), style="bold")] if title else []
    if keyed:
        for r in rows:
            head = Text(_cell(r.get(cols[0])), style="bold")
            head.append(" = " + " ".join(_cell(r.get(c)) for c in cols[1:2]))
            out.append(head)
            # the last column is the prose; any between are labelled
            out.extend(Text(wrap(_cell(r.get(c)), "    " if c == cols[-1] else f"    {c}: ", "    "))
                       for c in cols[2:] if _cell(r.get(c)))
        return out
    keys = [tuple(_cell(r.get(c)) for c in cols[:lead]) for r in rows]
    if len(set(keys)) < len(keys):
        rows = [{"#": i, **r} for i, r in enumerate(rows, 1)]
        cols, lead = ["#", *cols], lead + 1
        natural, words = [len(str(len(rows))), *natural], [len(str(len(rows))), *words]
    head = list(range(lead))
    groups: list[list[int]] = []
    for j in range(lead, len(cols)):
        if groups and _fit([natural[i] for i in groups[-1] + [j]], [words[i] for i in groups[-1] + [j]], width):
            groups[-1].append(j)
        elif _fit([natural[i] for i in head + [j]], [words[i] for i in head + [j]], width):
            groups.append(head + [j])
        else:
            groups = []
            break
    if groups:
        out: list[Any] = []
        for k, g in enumerate(groups):
            widths = _fit([natural[i] for i in g], [words[i] for i in g], width)
            out.append(rich_table(rows, [cols[i] for i in g], title if k == 0 else None,
                                  None if widths == [natural[i] for i in g] else widths))
        return out
    for r in rows:
        out.append(Text(" ".join(_cell(r.get(c)) for c in cols[:lead]) or "-", style="bold"))
        out.extend(Text(wrap(_cell(r.get(c)) or "-", f"  {c}: ", "      ")) for c in cols[lead:])
    return out


def print_glossary(console: Console, entries: Iterable[tuple[str, str]]) -> None:
    """``term: meaning`` lines, each wrapped at the console's width under a hanging indent."""
    import textwrap

    from rich.text import Text

    for term, meaning in entries:
        text = textwrap.fill(f"{term}: {meaning}", console.width, subsequent_indent="    ", break_long_words=False,
                             break_on_hyphens=False)
        line = Text(text)
        line.stylize("bold", 0, len(term))
        console.print(line, soft_wrap=True)


def print_fitted(console: Console, renderables: Sequence[Any]) -> None:
    """Print what :func:`fit_rows` made."""
    for r in renderables:
        console.print(r)


def emit_rows(rows: Sequence[dict[str, Any]], fmt: str, output: str | None = None,
              columns: Sequence[str] | None = None, title: str | None = None, schema: pa.Schema | None = None,
              keyed: bool = False, lead: int = 1) -> None:
    """Print (or write to ``output``) rows in the chosen format (``keyed``, ``lead``: see :func:`fit_rows`)."""
    if fmt in ("table", "text"):
        table = rich_table(rows, columns, title)
        if output:
            buf = io.StringIO()
            Console(file=buf, width=_natural_width(table), no_color=True).print(table)
            write_atomic(output, buf.getvalue().encode("utf-8"))
        else:
            # the terminal's width, or COLUMNS (honoured when piped too), else rich's 80
            con = stdout_console()
            print_fitted(con, fit_rows(rows, columns, con.width, title, keyed, lead))
        return
    data = rows_to_bytes(rows, fmt, columns, schema)
    if output:
        write_atomic(output, data)
    elif fmt == "parquet":
        if sys.stdout.isatty():
            raise ValueError("parquet is binary: give --output FILE (or redirect stdout)")
        sys.stdout.buffer.write(data)
        sys.stdout.flush()
    else:
        sys.stdout.write(data.decode("utf-8"))
        sys.stdout.flush()


@contextmanager
def progress_bar(total_bytes: int, label: str = "importing", console: Console | None = None):
    """A progress bar on stderr: the bytes read of ``total_bytes`` and the hands audited, redrawn
    ten times a second; silent when stderr is not a terminal.

    Yields a callback taking the bytes and the hands done.
    """
    console = console or stderr_console()
    if not console.is_terminal or total_bytes <= 0:
        yield lambda nbytes, hands: None
        return
    from rich.progress import BarColumn, DownloadColumn, Progress, TextColumn, TimeRemainingColumn

    with Progress(TextColumn(label), BarColumn(), DownloadColumn(), TextColumn("{task.fields[hands]:,} hands"),
                  TimeRemainingColumn(), console=console, transient=True, refresh_per_second=10) as prog:
        task = prog.add_task(label, total=total_bytes, hands=0)
        yield lambda nbytes, hands: prog.update(task, completed=nbytes, hands=hands)


def known_width(console: Console) -> int | None:
    """The width to wrap prose at: a terminal's, or ``COLUMNS`` (honoured when piped); ``None`` for a
    pipe or a file with no ``COLUMNS``, where a finding stays on one line for the tools that read it."""
    if os.environ.get("COLUMNS", "").isdigit() or console.is_terminal:
        return console.width
    return None


def wrap_prose(text: str, width: int | None, indent: str = "", hanging: str = "    ") -> str:
    """``text`` wrapped at ``width`` (``None``: left whole) at spaces only, continuation lines under ``hanging``."""
    if width is None:
        return indent + text
    import textwrap

    return textwrap.fill(text, width, initial_indent=indent, subsequent_indent=hanging, break_long_words=False,
                         break_on_hyphens=False)


def say(console: Console, text: str) -> None:
    """A line of chatter, wrapped at spaces where the width is known (:func:`known_width`)."""
    console.print(wrap_prose(text, known_width(console), "", "  "), markup=False, highlight=False, soft_wrap=True)


def print_findings(findings: Iterable[Finding], console: Console, width: int | None = None) -> None:
    """Findings grouped by game and hand, each as ``file:line:col: CODE message``, wrapped at ``width``."""
    current = None
    for f in sorted(findings, key=sort_key):
        group = (f.source, f.game, f.hand)
        if group != current:
            current = group
            where = f.game or f.source
            console.print(f"[bold]{where}[/bold]" + (f" hand {f.hand}" if f.hand is not None else ""),
                          markup=True, highlight=False)
        console.print(wrap_prose(format_text(f), width, "  ", "      "), markup=False, highlight=False,
                      soft_wrap=True)


def summary_lines(games: int, hands: int, cards: int, findings: Sequence[Finding], unscored: int = 0) -> list[str]:
    """The closing summary of an audit; ``unscored`` hands could not be recomputed, so their scores went unchecked."""
    counts = by_code(findings)
    lines = [f"audited {plural(games, 'game')}, {plural(hands, 'hand')}, {plural(cards, 'card')} played: "
             f"{plural(len(findings), 'finding')}"]
    if unscored:
        lines.append(f"  {plural(unscored, 'hand')} could not be recomputed: scores not checked "
                     "(see the findings)")
    if counts:
        lines.append("  " + ", ".join(f"{c} {n}" for c, n in sorted(counts.items())))
    return lines


#: Plurals that are not the word with an s.
_PLURALS = {"batch": "batches", "match": "matches", "mismatch": "mismatches"}


def plural(n: int, word: str, many: str | None = None) -> str:
    """``1 game``, ``2 games``, ``1 batch``, ``3 batches``, ``0 new games``: the last word agrees with ``n``.

    >>> plural(1, "hand"), plural(2, "batch"), plural(0, "new game"), plural(-1, "point")
    ('1 hand', '2 batches', '0 new games', '-1 point')
    """
    if abs(n) == 1:
        return f"{n} {word}"
    if many is None:
        head, _, last = word.rpartition(" ")
        many = (head + " " if head else "") + _PLURALS.get(last, last + "s")
    return f"{n} {many}"


def points_text(v: int) -> str:
    """``1 point``, ``-4 points``."""
    return plural(v, "point")


def mistake_text(m) -> str:
    """One mistake of a hand under perfect play (an ``auditor.engine.PlayCost``), in words."""
    kept = f"; {' or '.join(m.best)} would have kept {m.before}" if m.best else ""
    what = "a revoke that cost" if m.illegal else "cost"
    return (f"trick {m.trick}: {m.player} {m.card} {what} {points_text(m.cost)} "
            f"(the pitcher's value {m.before} -> {m.after}{kept})")
