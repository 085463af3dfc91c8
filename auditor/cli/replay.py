"""``auditor replay``: a hand trick by trick in the terminal, or a whole game's score sheet.

Rendering lives in :mod:`auditor.replay`; this module picks the game and hand, sizes the
layout to the terminal, and runs the ``--step`` key loop on a terminal in cbreak mode.
"""

from __future__ import annotations

import os
import shlex
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console, Group, RenderableType
from rich.text import Text

from ..engine import GameResult, analyze_games, audit_games, resolve_rules
from ..findings import sort_key
from ..notation import Finding, Game, parse_file
from ..render import MIN_WIDTH
from .._lazy import lazy

rv = lazy("auditor.replay")  # rich layouts, loaded by the replay command only
from ..rules import RulesError
from . import EXIT_CLEAN, app, fail, settings
from .inputs import note_inputs

_SYMBOLS = "♠♥♦♣✗→·—▁█"


def _can_print_symbols(stream) -> bool:
    """Whether the output's encoding has the suit symbols (a C-locale pipe may not)."""
    try:
        _SYMBOLS.encode(getattr(stream, "encoding", None) or "utf-8")
    except (UnicodeEncodeError, LookupError):
        return False
    return True


def _names(games: list[Game]) -> str:
    shown = [g.name for g in games[:8]]
    return ", ".join(shown) + (f", ... ({len(games)} games)" if len(games) > 8 else "")


def find_game(games: list[Game], wanted: str) -> Game | None:
    """The game named ``wanted`` (its GameId or FILE#N), else the ``wanted``-th game, else None."""
    for g in games:
        if g.name == wanted:
            return g
    if wanted.isdigit() and 1 <= int(wanted) <= len(games):
        return games[int(wanted) - 1]
    return None


def no_game(games: list[Game], wanted: str, source: str) -> str:
    """Why ``wanted`` names no game of ``source``, and what does."""
    return f"no game {wanted!r} in {source}: give a name ({_names(games)}) or a number 1-{len(games)}"


def _pick_game(games: list[Game], wanted: str, source: str) -> Game:
    """The game ``wanted`` names (see :func:`find_game`); refused (exit 2) when there is none."""
    chosen = find_game(games, wanted)
    if chosen is None:
        raise fail(no_game(games, wanted, source))
    return chosen


def _hand_numbers(game: Game) -> str:
    numbers = [h.number for h in game.hands]
    if numbers and numbers == list(range(numbers[0], numbers[0] + len(numbers))):
        return f"{numbers[0]}-{numbers[-1]}" if len(numbers) > 1 else str(numbers[0])
    return ", ".join(map(str, numbers)) or "none"


def _check_result(game: Game, result: GameResult, problems: list[Finding]) -> None:
    """Refuse (exit 2) a game the engine could not replay at all: unknown rules, bad seating."""
    blocking = [f for f in result.findings if f.code in ("E105", "E107")]
    if result.rules is None:
        why = next((f.message for f in problems if f.game == game.name and f.code == "E105"),
                   "it has no Rules tag")
        raise fail(f"cannot replay {game.name}: {why}")
    if blocking:
        raise fail(f"cannot replay {game.name}: {blocking[0].message}")


@contextmanager
def _cbreak(fd: int) -> Iterator[None]:
    """Single key presses without Enter; Ctrl-C still interrupts. The terminal is restored after."""
    import termios
    import tty

    saved = termios.tcgetattr(fd)
    try:
        tty.setcbreak(fd)
        yield
    finally:
        termios.tcsetattr(fd, termios.TCSADRAIN, saved)


def _keys(fd: int) -> Iterator[str]:
    """Keys as they are pressed; one read may hold several (typed ahead) or an arrow's escape sequence."""
    while True:
        data = os.read(fd, 64)
        if not data:
            return
        yield from rv.split_keys(data.decode("utf-8", "replace"))


def _interactive(console: Console) -> bool:
    """``--step`` needs keys from a terminal and a terminal to redraw."""
    if not (console.is_terminal and sys.stdin.isatty() and sys.stdout.isatty()):
        return False
    try:
        import termios  # noqa: F401  (absent on Windows: fall back to the full print)
    except ImportError:
        return False
    return True


def _step(console: Console, frames: list[rv.Frame], fixed_width: int | None, symbols: bool) -> None:
    """Show ``frames`` one at a time, redrawing the screen, until q."""
    def draw(i: int) -> None:
        # measured on every redraw, so that resizing the terminal re-lays the next frame
        size = console.size
        layout = rv.Layout(fixed_width or size.width, symbols, size.height)
        console.clear()
        console.print(rv.with_footer(frames[i], i, len(frames), layout), width=layout.width)

    fd = sys.stdin.fileno()
    console.show_cursor(False)
    try:
        with _cbreak(fd):
            rv.run_steps(len(frames), draw, _keys(fd))
    finally:
        console.show_cursor(True)


def _print(console: Console, renderable: RenderableType, width: int) -> None:
    """Print once; off a terminal, as plain text with no trailing blanks from the table padding."""
    if console.is_terminal:
        console.print(renderable, width=width)
        return
    with console.capture() as cap:
        console.print(renderable, width=width)
    sys.stdout.write("".join(line.rstrip() + "\n" for line in cap.get().splitlines()))
    sys.stdout.flush()


@app.command()
def replay(
    file: Annotated[str, typer.Argument(help="a .pitch file, or - for stdin")],
    game: Annotated[str | None, typer.Option("--game", metavar="GAME",
                                             help="a game: its name (GameId, or FILE#N) or its "
                                             "number in the file, from 1")] = None,
    hand: Annotated[int | None, typer.Option("--hand", metavar="N", help="a hand number; without it, --game walks the "
                                             "whole game's score sheet")] = None,
    step: Annotated[bool, typer.Option("--step", help="one trick at a time: Space/Enter next, b back, "
                                       "q quit")] = False,
    by_card: Annotated[bool, typer.Option("--by-card",
                                          help="with --step (implied), one card at a time")] = False,
    rules: Annotated[str | None, typer.Option("--rules", metavar="RULES", show_default=False,
                                              help="override the game's rules: a preset and/or key=value "
                                              "words (not given: the configuration's rules)")] = None,
    analyze: Annotated[bool, typer.Option("--analyze", help="with a hand: perfect play beside the record (par, "
                                          "each card's cost, the claim, what a revoke cost)")] = False,
    width: Annotated[int | None, typer.Option("--width", metavar="COLUMNS",
                                              help=f"lay out for this many columns (at least "
                                              f"{MIN_WIDTH}); default: the terminal's width")] = None,
) -> None:
    """Replay a hand trick by trick: the deal, the auction, every trick, findings at the card, the points.

    --game alone walks the game: the score sheet, recorded beside recomputed, and a chart
    of the totals.  With neither, a file holding one hand replays it, one game is walked,
    and several games are listed with the hands that have findings.
    """
    if file != "-":
        path = Path(file)
        if not path.exists():
            raise fail(f"no such file: {file}")
        if path.is_dir():
            raise fail(f"{file} is a folder: replay reads one .pitch file")
    if rules is None:
        rules = settings()["rules"]  # checked when the file was read
    elif rules:
        try:
            resolve_rules("auction", rules)
        except RulesError as e:
            raise fail(f"bad --rules: {e}")
    try:
        games, problems = parse_file(file)
    except OSError as e:
        raise fail(f"cannot read {file}: {e.strerror or e}")
    source = "<stdin>" if file == "-" else file
    if not games:  # said as every command says it (not a log, or empty), then nothing to replay
        note_inputs([file], {}, problems)
        raise fail(f"no game to replay in {source}")

    console = Console(highlight=False, soft_wrap=False, emoji=False, markup=False)
    symbols = _can_print_symbols(sys.stdout)
    if width is not None and width < MIN_WIDTH:
        typer.echo(f"auditor: --width {width} is below the {MIN_WIDTH} columns the layout needs; using "
                   f"{MIN_WIDTH}", err=True)
    layout = rv.Layout(width or console.size.width, symbols)
    stepping = step or by_card

    if game is None and hand is None:
        # one hand: replay it; one game: walk it; several games: say what is there
        if len(games) == 1 and len(games[0].hands) == 1:
            hand = games[0].hands[0].number
        elif len(games) > 1:
            results = audit_games(games, rules)
            _print(console, rv.render_index(source, games, results, problems, layout), layout.width)
            # suggest the first hand with a finding: that is usually the one in dispute
            found = [(r.game, f.hand) for r in results for f in sorted(r.findings, key=sort_key)
                     if f.hand is not None]
            g, n = found[0] if found else (games[0], games[0].hands[0].number if games[0].hands else None)
            typer.echo(f"\nreplay a hand: auditor replay {shlex.quote(file)} --game {shlex.quote(g.name)}"
                       + (f" --hand {n}" if n is not None else ""), err=True)
            raise typer.Exit(EXIT_CLEAN)
    if game is None:
        if len(games) > 1:
            raise fail(f"{source} holds {len(games)} games: choose one with --game ({_names(games)})")
        chosen = games[0]
    else:
        chosen = _pick_game(games, game, source)
    result = audit_games([chosen], rules)[0]
    _check_result(chosen, result, problems)
    own = [f for f in problems if f.game == chosen.name]

    if hand is None:
        frames = rv.game_frames(chosen, result, own)
        full: RenderableType = rv.render_game(chosen, result, layout, own)
    else:
        if rv.find_hand(chosen, hand) is None:
            raise fail(f"{chosen.name} has no hand {hand} (hands: {_hand_numbers(chosen)})")
        view = rv.build_hand_view(chosen, result, hand, own)
        # one hand under perfect play takes milliseconds: the claim is shown at its trick in any case
        examined = next((a for a in analyze_games([chosen], rules)[0] if a.hand == hand), None)
        if examined is not None and not examined.not_analysable:
            view.claim = examined.claim
        frames = rv.hand_frames(view, by_card)
        full = rv.render_hand(view, layout)
        if analyze and examined is not None:
            full = Group(full, Text(), rv.render_analysis(view, examined, layout))

    if stepping and _interactive(console):
        _step(console, frames, width, symbols)
        raise typer.Exit(EXIT_CLEAN)
    if stepping:
        typer.echo("auditor: --step needs a terminal (stdin and stdout): printing the whole "
                   + ("game" if hand is None else "hand"), err=True)
    _print(console, full, layout.width)
    raise typer.Exit(EXIT_CLEAN)
