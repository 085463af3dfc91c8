"""The ``auditor`` command line: a thin typer layer over the library.

Each command group lives in its own module and registers itself on :data:`app`.
Exit status: 0 clean, 1 findings reported, 2 could not run.
"""

from __future__ import annotations

import sys

import typer

app = typer.Typer(
    name="auditor",
    help="Replay and audit recorded hands of Pitch: legality, revokes, scores; a Parquet dataset to query.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
)

EXIT_CLEAN, EXIT_FINDINGS, EXIT_FAILED = 0, 1, 2


def _version(value: bool) -> None:
    if value:
        from .. import __version__

        typer.echo(f"auditor {__version__}")
        raise typer.Exit()


@app.callback()
def _options(
    version: bool = typer.Option(False, "--version", callback=_version, is_eager=True, help="print the version"),
) -> None:
    """Replay and audit recorded hands of Pitch: legality, revokes, scores; a Parquet dataset to query."""


def fail(message: str) -> typer.Exit:
    """Print ``message`` on stderr and return the exit for 'could not run'."""
    typer.echo(f"auditor: {message}", err=True)
    return typer.Exit(EXIT_FAILED)


from . import core  # noqa: E402,F401  (registers the commands)
from . import warehouse  # noqa: E402,F401
from . import replay  # noqa: E402,F401
from . import analyze  # noqa: E402,F401
from . import report  # noqa: E402,F401


def main() -> None:
    """Console-script entry point."""
    try:
        app()
    except KeyboardInterrupt:
        typer.echo("auditor: interrupted", err=True)
        sys.exit(130)
