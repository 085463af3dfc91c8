"""The ``auditor`` command line: a thin typer layer over the library.

Each command group lives in its own module and registers itself on :data:`app`.
Exit status: 0 clean, 1 findings reported, 2 could not run.
"""

from __future__ import annotations

import sys
from pathlib import Path

import typer
from typer.core import TyperArgument, TyperCommand


class _Argument(TyperArgument):
    """A positional argument shown by its metavar alone (``PATH...``, ``[SQL]``), never by its Python type."""

    def display_type_rich(self, ctx) -> None:
        return None

    def _label(self) -> str:
        return (self.metavar or self.name or "").upper()

    def _rich_display_name(self) -> str:
        return self._label() + ("..." if self.nargs != 1 else "")

    def _usage_display_name(self) -> str:
        name = self._rich_display_name()
        return name if self.required else f"[{name}]"


def _summary(help_text: str | None) -> str:
    """A command's first paragraph, whole: ``--help`` wraps it rather than cut it with "…"."""
    return " ".join((help_text or "").strip().split("\n\n")[0].split())


class _Command(TyperCommand):
    """Every command's positional arguments shown as :class:`_Argument`; its summary never cut."""

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        for p in self.params:
            if type(p) is TyperArgument:
                p.__class__ = _Argument

    def get_short_help_str(self, limit: int = 45) -> str:
        return self.short_help or _summary(self.help)


class _Typer(typer.Typer):
    def command(self, *args, cls=None, **kwargs):
        return super().command(*args, cls=cls or _Command, **kwargs)


app = _Typer(
    name="auditor",
    help="Replay and audit recorded hands of Pitch: legality, revokes, scores; a Parquet dataset to query.",
    no_args_is_help=True,
    add_completion=False,
    context_settings={"help_option_names": ["-h", "--help"]},  # every command's too
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
)

EXIT_CLEAN, EXIT_FINDINGS, EXIT_FAILED = 0, 1, 2


def _version(value: bool) -> None:
    if value:
        from .. import __version__

        typer.echo(f"auditor {__version__}")
        raise typer.Exit()


_settings = None  # the configuration in force for this run (auditor.config.Config), read by the callback


@app.callback()
def _options(
    version: bool = typer.Option(False, "--version", callback=_version, is_eager=True, help="print the version"),
    config_file: str | None = typer.Option(None, "--config", metavar="FILE",
                                           help="read the defaults from FILE (auditor.toml, or a pyproject.toml "
                                           "with [tool.auditor]) rather than the nearest one"),
    isolated: bool = typer.Option(False, "--isolated", help="read no configuration file"),
) -> None:
    """Replay and audit recorded hands of Pitch: legality, revokes, scores; a Parquet dataset to query."""
    global _settings
    from ..config import ConfigError, load

    if config_file is not None and isolated:
        raise fail("--config and --isolated go against each other: give one")
    try:
        _settings = load(None if config_file is None else Path(config_file), isolated)
    except ConfigError as e:
        raise fail(str(e))


def settings():
    """The configuration in force (:class:`auditor.config.Config`): read at the start of the run."""
    global _settings
    if _settings is None:
        from ..config import Config

        _settings = Config()
    return _settings


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
