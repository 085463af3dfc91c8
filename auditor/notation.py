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
from dataclasses import dataclass, field, replace
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


def _pos():
    return field(default=0, compare=False)


@dataclass(frozen=True, slots=True)
class Tag:
    name: str
    value: str
    line: int = _pos()
    comments: tuple[str, ...] = ()
    remark: str | None = None


@dataclass(frozen=True, slots=True)
class Named:
    """A statement naming one player or team: ``dealer NAME``, ``winner KEY``."""

    name: str
    line: int = _pos()
    column: int = _pos()
    comments: tuple[str, ...] = ()
    remark: str | None = None


@dataclass(frozen=True, slots=True)
class Holding:
    """A player's cards in a ``deal``, ``discard`` or ``draw`` statement."""

    player: str
    cards: tuple[int, ...]
    columns: tuple[int, ...] = field(default=(), compare=False)
    column: int = _pos()


@dataclass(frozen=True, slots=True)
class Deal:
    holdings: tuple[Holding, ...]
    line: int = _pos()
    comments: tuple[str, ...] = ()
    remark: str | None = None
    unreadable: frozenset[str] = field(default=frozenset(), compare=False)  # players with a bad card token
    incomplete: bool = field(default=False, compare=False)  # a holding was dropped (unknown player, bad shape)


@dataclass(frozen=True, slots=True)
class Widow:
    cards: tuple[int, ...]
    columns: tuple[int, ...] = field(default=(), compare=False)
    line: int = _pos()
    comments: tuple[str, ...] = ()
    remark: str | None = None


@dataclass(frozen=True, slots=True)
class Bid:
    """One word of the auction: ``pass``, a number, a top-bid name, ``sells`` or ``keeps``."""

    player: str
    word: str
    column: int = _pos()


@dataclass(frozen=True, slots=True)
class Bids:
    bids: tuple[Bid, ...]
    line: int = _pos()
    comments: tuple[str, ...] = ()
    remark: str | None = None
    unreadable: bool = field(default=False, compare=False)  # a bid could not be read (E101/E104)


@dataclass(frozen=True, slots=True)
class TrumpLine:
    suit: int
    line: int = _pos()
    column: int = _pos()
    comments: tuple[str, ...] = ()
    remark: str | None = None


@dataclass(frozen=True, slots=True)
class Exchange:
    """A ``discard`` or ``draw`` statement (draw and discard variants)."""

    kind: str
    holding: Holding
    line: int = _pos()
    comments: tuple[str, ...] = ()
    remark: str | None = None


@dataclass(frozen=True, slots=True)
class RevokeCall:
    """``revoke NAME [trick N]``: a revoke called at the table."""

    player: str
    trick: int | None
    line: int = _pos()
    column: int = _pos()
    comments: tuple[str, ...] = ()
    remark: str | None = None


@dataclass(frozen=True, slots=True)
class Play:
    """One card played; ``player`` is ``None`` in the short trick form."""

    player: str | None
    card: int
    column: int = _pos()


@dataclass(frozen=True, slots=True)
class Trick:
    number: int
    plays: tuple[Play, ...]
    short: bool = False
    line: int = _pos()
    column: int = _pos()
    comments: tuple[str, ...] = ()
    remark: str | None = None
    unreadable: bool = field(default=False, compare=False)  # a card token could not be read (E103)


@dataclass(frozen=True, slots=True)
class ScoreEntry:
    key: str
    value: int
    column: int = _pos()


@dataclass(frozen=True, slots=True)
class ScoreLine:
    """A ``score`` (this hand) or ``total`` (running) line as the score keeper wrote it."""

    kind: str
    entries: tuple[ScoreEntry, ...]
    line: int = _pos()
    comments: tuple[str, ...] = ()
    remark: str | None = None
    unreadable: bool = field(default=False, compare=False)  # an entry could not be read

    def as_dict(self) -> dict[str, int]:
        """Key to value, the first entry winning if a key is written twice."""
        out: dict[str, int] = {}
        for e in self.entries:
            out.setdefault(e.key, e.value)
        return out


@dataclass(frozen=True, slots=True)
class Note:
    text: str
    line: int = _pos()
    comments: tuple[str, ...] = ()
    remark: str | None = None


@dataclass(frozen=True, slots=True)
class Marker:
    """A statement with no arguments: ``misdeal``."""

    word: str
    line: int = _pos()
    comments: tuple[str, ...] = ()
    remark: str | None = None


@dataclass(frozen=True, slots=True)
class Hand:
    """One deal of the cards, from ``hand N`` to the next ``hand`` or game."""

    number: int
    line: int = _pos()
    comments: tuple[str, ...] = ()
    remark: str | None = None
    dealer: Named | None = None
    deal: Deal | None = None
    widow: Widow | None = None
    bids: Bids | None = None
    trump: TrumpLine | None = None
    exchanges: tuple[Exchange, ...] = ()
    revokes: tuple[RevokeCall, ...] = ()
    tricks: tuple[Trick, ...] = ()
    score: ScoreLine | None = None
    total: ScoreLine | None = None
    notes: tuple[Note, ...] = ()
    misdeal: Marker | None = None
    #: statements that unknown lines of the hand were a misspelling of (``bisd``: ``bids``); like the
    #: positions, a trace of the text (the lines are not written back), not of the hand
    misread: tuple[str, ...] = field(default=(), compare=False)

    @property
    def end_line(self) -> int:
        """The last line number of any statement of this hand."""
        lines = [self.line]
        for s in (self.dealer, self.deal, self.widow, self.bids, self.trump, self.score, self.total, self.misdeal):
            if s is not None:
                lines.append(s.line)
        lines += [s.line for s in (*self.exchanges, *self.revokes, *self.tricks, *self.notes)]
        return max(lines)


@dataclass(frozen=True, slots=True)
class Game:
    """A tag block and the hands that follow it."""

    tags: tuple[Tag, ...]
    hands: tuple[Hand, ...]
    winner: Named | None = None
    trailing_comments: tuple[str, ...] = ()
    source: str = field(default="", compare=False)
    index: int = field(default=1, compare=False)  # 1-based position in its file
    line: int = _pos()
    end_line: int = _pos()
    #: The hash of the canonical text, set by the parser (see :func:`auditor.tables.game_key`).
    key: str = field(default="", compare=False, repr=False)

    def tag(self, name: str) -> str | None:
        """The value of the first tag called ``name``, if any."""
        for t in self.tags:
            if t.name == name:
                return t.value
        return None

    @property
    def name(self) -> str:
        """``GameId`` where the game has one, else ``file#N``."""
        gid = self.tag("GameId")
        return gid if gid else f"{file_label(self.source)}#{self.index}"

    @property
    def players(self) -> tuple[str, ...]:
        """The seats in clockwise order, from the ``Players`` tag."""
        return tuple((self.tag("Players") or "").split())

    @property
    def teams(self) -> dict[str, tuple[str, ...]]:
        """Team name to members, from the ``Teams`` tag (empty when there is none)."""
        return parse_teams(self.tag("Teams") or "")[0]


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
    """What a log file holds, from its first bytes only (a file of any size is never read whole):
    ``EMPTY`` (no bytes, or a short file of blank lines and comments only), ``NOT_TEXT`` (with
    the E109 finding) or ``TEXT``. Standard input is ``TEXT``; a file that cannot be opened raises
    :class:`OSError`."""
    if path == "-":
        return TEXT, None
    with open(path, "rb") as f:
        head = f.read(_core.SNIFF_BYTES)
        more = bool(f.read(1))
    binary = _not_text(head, path)
    if binary is not None:
        return NOT_TEXT, binary
    if not more and all(not line.strip() or line.lstrip().startswith(b"%") for line in head.splitlines()):
        return EMPTY, None
    return TEXT, None


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
    return replace(g, source="", index=1)
