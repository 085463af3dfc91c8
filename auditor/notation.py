"""The Pitch log notation (version 1): frozen records, a forgiving parser, a canonical writer.

The parser and the writer are the compiled core's (``core/src/notation``, Rust); this
module declares the records they exchange with Python and the entry points over files.
The parser never raises on its input.  Every problem becomes an E1xx :class:`Finding`
with file, line and column, and parsing resumes at the next statement: a broken hand
does not lose the rest of its game, a broken game does not lose the rest of its file.

>>> text = '''[Rules "auction"]
... [Players "Ann Bob Cal"]
... hand 1
... dealer Ann
... bids Bob 2, Cal pass, Ann pass
... 1. Bob:AS Cal:3S Ann:9X
... '''
>>> games, problems = parse_text(text, "club.pitch")
>>> [(p.code, p.line, p.column) for p in problems]
[('E103', 6, 22)]
>>> g = games[0]
>>> g.name, g.players, len(g.hands), g.hands[0].bids.bids[0].word
('club.pitch#1', ('Ann', 'Bob', 'Cal'), 1, '2')
>>> print(write_game(g), end="")
[Rules "auction"]
[Players "Ann Bob Cal"]
<BLANKLINE>
hand 1
dealer Ann
bids Bob 2, Cal pass, Ann pass
1. Bob:AS Cal:3S
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterable, Iterator
from functools import lru_cache
from pathlib import Path
from typing import BinaryIO

from . import _core

NOTATION_VERSION = _core.NOTATION_VERSION
#: The ranges of the numbers the notation reads (a number outside is one E101 at its column).
MAX_HAND, MAX_TRICK, MAX_SCORE = _core.MAX_HAND, _core.MAX_TRICK, _core.MAX_SCORE


# --------------------------------------------------------------------------- records


#: One finding: the core's own record (``auditor._core.Finding``), made from the typed facts
#: of its code's one declaration; ``code``, ``case``, ``message``, ``fields``, ``expected``,
#: ``recorded``, ``fix`` and the place (``source``, ``line``, ``column``, ``game``, ``hand``,
#: ``trick``, ``subject``) are read through getters.
Finding = _core.Finding


#: The records of a parsed log, defined by the core (``auditor._core``): a :class:`Game` is a handle
#: on the core's own record (the engine, the writer and the solver take it as it is, with no
#: copy), and its statements are small frozen classes made the first time Python reads its hands.
#: Records compare by what the text says, not by where it stands: lines, columns and the parser's
#: traces (``unreadable``, ``incomplete``, ``misread``) are left out of ``==``, as are a game's
#: ``source`` and ``index``. A game pickles as its canonical text.
Tag, Named, Holding, Deal, Widow = _core.Tag, _core.Named, _core.Holding, _core.Deal, _core.Widow
Bid, Bids, TrumpLine, Exchange = _core.Bid, _core.Bids, _core.TrumpLine, _core.Exchange
RevokeCall, Play, Trick, ScoreEntry = _core.RevokeCall, _core.Play, _core.Trick, _core.ScoreEntry
ScoreLine, Note, Marker, Hand, Game = _core.ScoreLine, _core.Note, _core.Marker, _core.Hand, _core.Game


@lru_cache(maxsize=256)
def file_label(source: str) -> str:
    """What a game without a ``GameId`` is called after: its file's base name (as the core names it).

    >>> file_label("logs/club.pitch"), file_label("<stdin>")
    ('club.pitch', '<stdin>')
    """
    return _core.file_label(source)


def parse_teams(text: str) -> tuple[dict[str, tuple[str, ...]], str | None]:
    """Read a ``Teams`` tag ``"NS: Ann Cal; EW: Bob Dee"``; returns (teams, error).

    >>> parse_teams("NS: Ann Cal; EW: Bob Dee")
    ({'NS': ('Ann', 'Cal'), 'EW': ('Bob', 'Dee')}, None)
    >>> parse_teams("NS Ann Cal")[1]
    "team 'NS Ann Cal' needs the form NAME: PLAYER PLAYER"
    """
    return _core.parse_teams(text)


# --------------------------------------------------------------------------- entry points

def _not_text(head: bytes, source: str) -> Finding | None:
    """The E109 for a stream whose first block is not text, or ``None`` when it is text."""
    return _core.not_text_finding(head, source)


def iter_games(stream: BinaryIO, source: str, first_line: int = 1, sniff: bool = True,
               first_game: int = 0) -> Iterator[tuple[list[Game], list[Finding]]]:
    """Parse a binary stream lazily: yields (games completed, findings) in batches.

    Memory stays flat: a game is handed over as soon as the next one starts.
    ``first_line`` numbers the stream's first line and ``first_game`` counts the games
    before it (a chunk of a larger file); ``sniff`` checks that the stream is text at all.
    """
    head = stream.read(_core.SNIFF_BYTES)
    binary = _not_text(head, source) if sniff else None
    if binary is not None:
        yield [], [binary]
        return
    p = _core.Parser(source, first_line, first_game)
    chunk = head
    while chunk:
        games, found = p.feed(chunk)
        if games or found:
            yield games, found
        chunk = stream.read(1 << 20)
    yield p.finish()


def parse_text(text: str, source: str = "<text>") -> tuple[list[Game], list[Finding]]:
    """Parse a whole text; returns every game and every finding."""
    import io

    return parse_stream(io.BytesIO(text.encode("utf-8", "surrogateescape")), source)


def parse_stream(stream: BinaryIO, source: str) -> tuple[list[Game], list[Finding]]:
    """Parse a binary stream into games and findings."""
    games: list[Game] = []
    found: list[Finding] = []
    for gs, fs in iter_games(stream, source):
        games.extend(gs)
        found.extend(fs)
    return games, found


def parse_file(path: str | Path) -> tuple[list[Game], list[Finding]]:
    """Parse one file (``-`` for standard input)."""
    if str(path) == "-":
        return parse_stream(sys.stdin.buffer, "<stdin>")
    with open(path, "rb") as f:
        return parse_stream(f, str(path))


def expand_paths(paths: Iterable[str | Path]) -> tuple[list[str], list[Finding]]:
    """Files named, and ``*.pitch`` files found recursively in folders named, in a stable order.

    ``-`` stands for standard input.  A path that does not exist, and a link to nothing (named,
    or found inside a folder), is an E100 finding, not an error: the rest is still read.
    """
    out: list[str] = []
    problems: list[Finding] = []
    for p in paths:
        s = str(p)
        if s == "-":
            out.append(s)
            continue
        path = Path(s)
        if path.is_dir():
            found, dangling = [], []
            for f in sorted(path.rglob("*.pitch")):
                if f.is_file():
                    found.append(str(f))
                elif f.is_symlink() and not f.exists():
                    dangling.append(_dangling(str(f)))
            problems.extend(dangling)
            if not found and not dangling:
                problems.append(_core.path_finding("NoLogs", s))
            out.extend(found)
        elif path.is_file():
            out.append(s)
        elif path.is_symlink():
            problems.append(_dangling(s))
        else:
            problems.append(_core.path_finding("NoSuchPath", s))
    seen: set[str] = set()
    unique = []
    for f in out:  # a file named twice (or inside a folder also named) is read once
        key = f if f == "-" else str(Path(f).resolve())
        if key not in seen:
            seen.add(key)
            unique.append(f)
    return unique, problems


def _dangling(path: str) -> Finding:
    """The E100 of a link to nothing."""
    try:
        target = os.readlink(path)
    except OSError:
        target = "?"
    return _core.path_finding("Unreadable", path, f"it is a link to {target}, which is not there: skipped")


#: What the first bytes of a file say it is: see :func:`sniff_file`.
EMPTY, NOT_TEXT, TEXT = "empty", "not text", "text"


def sniff_file(path: str) -> tuple[str, Finding | None]:
    """What a log file holds: ``EMPTY`` (no bytes, or blank lines and comments only), ``NOT_TEXT``
    (with the E109 finding, from its first bytes: a file of any size is never read whole) or
    ``TEXT``. Past the first bytes it reads on only while every line is blank or a comment (a log's
    first statement ends that within a few lines). Standard input is ``TEXT``; a file that cannot
    be opened raises :class:`OSError`."""
    if path == "-":
        return TEXT, None
    with open(path, "rb") as f:
        head = f.read(_core.SNIFF_BYTES)
        binary = _not_text(head, path)
        if binary is not None:
            return NOT_TEXT, binary
        head = head.removeprefix(b"\xef\xbb\xbf")  # a byte-order mark before the first line, as the core skips it
        tail = b""  # the line the bytes read so far end inside
        while head:
            lines = (tail + head).split(b"\n")  # lines as the core reads them: a lone CR ends none
            tail = lines.pop()
            if not all(_blank_or_comment(line) for line in (*lines, tail)):
                return TEXT, None
            tail = b"%" if tail.strip() else b""  # a line is settled by its first byte that is not blank
            head = f.read(1 << 16)
    return (EMPTY if _blank_or_comment(tail) else TEXT), None


def _blank_or_comment(line: bytes) -> bool:
    return not line.strip() or line.lstrip().startswith(b"%")


# --------------------------------------------------------------------------- canonical writer


def write_game(g: Game) -> str:
    """The canonical text of one game: tags, a blank line, hands separated by blank lines."""
    return _core.write_games((g,))


def write_games(games: Iterable[Game]) -> str:
    """The canonical text of several games, separated by blank lines."""
    return _core.write_games(games)


def format_bytes(data: bytes, source: str) -> tuple[str, list[Finding]]:
    """Parse ``data`` and write it back in canonical form, in the core alone: (text, findings)."""
    binary = _not_text(data[:_core.SNIFF_BYTES], source)
    if binary is not None:
        return "", [binary]
    return _core.format_bytes(data, source)


def strip_positions(g: Game) -> Game:
    """A game with its source and index cleared: two parses of the same text compare equal."""
    return g.placed("", 1)
