"""``auditor report``: an event's results as one HTML page (or Markdown); the work is :mod:`auditor.report`."""

from __future__ import annotations

import sys
from typing import Annotated

import typer

from .._lazy import lazy
from ..render import plural, stderr_console, write_atomic
from . import app, fail
from .warehouse import EventOpt, SinceOpt, UntilOpt, _date, _note_import, _warn_damaged

rp = lazy("auditor.report")  # loaded by this command only
views = lazy("auditor.warehouse")
FORMATS = ("html", "md", "markdown")  # md and markdown alike, as `explain` takes them


@app.command()
def report(
    paths: Annotated[list[str], typer.Argument(help="a dataset folder, or log files / folders to audit on the fly")],
    output: Annotated[str, typer.Option("--output", "-o", metavar="FILE",
                                        help="the file to write (- for stdout)")],
    event: EventOpt = None,
    since: SinceOpt = None,
    until: UntilOpt = None,
    title: Annotated[str | None, typer.Option("--title", metavar="TEXT",
                                              help="the page's title (default: the event's name)")] = None,
    fmt: Annotated[str, typer.Option("--format", metavar="FORMAT", help="html, or md (also markdown)")] = "html",
    charts: Annotated[str, typer.Option("--charts", metavar="WHICH",
                                        help="games with a chart: auto (every game up to 300 games; else the "
                                        "first 100 with findings), all, findings or none")] = "auto",
    detail: Annotated[str, typer.Option("--detail", metavar="WHICH",
                                        help="games shown in full: auto (every game up to 300 games; else those "
                                        "the audit has something to say about), all or disputed")] = "auto",
    analyze: Annotated[bool, typer.Option("--analyze", help="logs only: examine every hand under perfect play "
                                          "first (as import --analyze), for the section on perfect play: par, "
                                          "accuracy, the costliest mistakes, claims")] = False,
) -> None:
    """A report of an event to post, print or mail: standings, every game's score sheet as written and
    as recomputed, a chart of the totals, and each finding's ruling with the rule it applies.

    One self-contained HTML file (it opens offline and prints a page per game), or Markdown.
    See docs/report.md.
    """
    if fmt not in FORMATS:
        raise fail(f"--format must be html or md (markdown), not {fmt!r}")
    if charts not in rp.CHART_CHOICES:
        raise fail(f"--charts must be one of {', '.join(rp.CHART_CHOICES)}, not {charts!r}")
    if detail not in rp.DETAIL_CHOICES:
        raise fail(f"--detail must be one of {', '.join(rp.DETAIL_CHOICES)}, not {detail!r}")
    since_d, until_d = _date(since, "--since"), _date(until, "--until")
    source = ", ".join(paths)
    if analyze and len(paths) == 1 and views.is_dataset(paths[0]):
        raise fail(f"{paths[0]} is a dataset: --analyze reads logs (a dataset has its analysis from "
                   "`auditor import LOGS --out DATASET --analyze`)")
    try:
        _warn_damaged(paths)
        with views.open_data(paths, analyze=analyze) as wh:
            status = _note_import(wh)
            data = rp.collect(wh, event=event, since=since_d, until=until_d, title=title, source=source)
    except views.WarehouseError as e:
        raise fail(str(e))
    except OSError as e:
        raise fail(f"cannot read the data: {e.strerror or e}")
    if not data.games:
        raise fail("no games match: nothing to report" if data.filters else
                   f"no games found in {source}: nothing to report")
    text = rp.to_html(data, charts, detail) if fmt == "html" else rp.to_markdown(data, detail)
    body = text.encode("utf-8")
    if output == "-":
        sys.stdout.buffer.write(body)
        sys.stdout.flush()
    else:
        try:
            write_atomic(output, body)
        except OSError as e:
            raise fail(f"cannot write {output}: {e.strerror or e}")
    where = "stdout" if output == "-" else output
    stderr_console().print(f"wrote {where}: {plural(len(data.games), 'game')} in {plural(len(data.events), 'event')}, "
                           f"{plural(len(data.findings), 'finding')}, {_size(len(body))}", markup=False,
                           soft_wrap=True)
    raise typer.Exit(status)


def _size(n: int) -> str:
    return f"{n / 1e6:.1f} MB" if n >= 1e6 else f"{n / 1e3:.0f} kB"
