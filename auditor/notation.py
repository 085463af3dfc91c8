"""The Pitch log notation (version 1): frozen records, a forgiving parser, a canonical writer.

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

import re
import sys
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import BinaryIO

from .cards import CARD_NAMES, SUIT_SYMBOLS, SUITS, parse_card
from .rules import RulesError, parse_rules

NOTATION_VERSION = 1
NAME_RE = re.compile(r"[A-Za-z][A-Za-z0-9_.-]*\Z")
_TAG_RE = re.compile(r'\[\s*([A-Za-z][A-Za-z0-9_]*)\s+"((?:[^"\\]|\\.)*)"\s*\]\s*\Z')
_TRICK_NO_RE = re.compile(r"(\d+)\.\Z")
_INT_RE = re.compile(r"[+-]?\d+\Z")
_WORD_RE = re.compile(r"[A-Za-z0-9]+\Z")
_SUIT_WORDS = {"spades": 0, "hearts": 1, "diamonds": 2, "clubs": 3}


def _suit_word(t: str) -> int | None:
    """A suit written as a letter, a symbol or a word: ``S``, ``♠``, ``spades``."""
    if len(t) == 1 and t.upper() in SUITS:
        return SUITS.index(t.upper())
    if t in SUIT_SYMBOLS:
        return SUIT_SYMBOLS.index(t)
    return _SUIT_WORDS.get(t.lower())
_MAX_SHOWN = 40  # characters of an offending token quoted in a message


def _show(text: str) -> str:
    """A token quoted for a message, cut short when it is huge (a 10 MB line)."""
    return repr(text if len(text) <= _MAX_SHOWN else text[:_MAX_SHOWN] + "...")


# --------------------------------------------------------------------------- records


@dataclass(frozen=True, slots=True)
class Finding:
    """One problem found in a record: where it is, which rule, what was expected.

    ``code`` is stable (see ``auditor explain``); ``subject`` is the player or team the
    finding is about; ``expected``/``recorded`` carry the two sides of a comparison.
    """

    code: str
    message: str
    source: str = ""
    line: int = 0
    column: int = 0
    game: str = ""
    hand: int | None = None
    trick: int | None = None
    subject: str | None = None
    expected: str | None = None
    recorded: str | None = None


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
        return gid if gid else f"{Path(self.source).name or self.source}#{self.index}"

    @property
    def players(self) -> tuple[str, ...]:
        """The seats in clockwise order, from the ``Players`` tag."""
        return tuple((self.tag("Players") or "").split())

    @property
    def teams(self) -> dict[str, tuple[str, ...]]:
        """Team name to members, from the ``Teams`` tag (empty when there is none)."""
        return parse_teams(self.tag("Teams") or "")[0]


def parse_teams(text: str) -> tuple[dict[str, tuple[str, ...]], str | None]:
    """Read a ``Teams`` tag ``"NS: Ann Cal; EW: Bob Dee"``; returns (teams, error).

    >>> parse_teams("NS: Ann Cal; EW: Bob Dee")
    ({'NS': ('Ann', 'Cal'), 'EW': ('Bob', 'Dee')}, None)
    >>> parse_teams("NS Ann Cal")[1]
    "team 'NS Ann Cal' needs the form NAME: PLAYER PLAYER"
    """
    teams: dict[str, tuple[str, ...]] = {}
    for part in text.split(";"):
        part = part.strip()
        if not part:
            continue
        name, colon, members = part.partition(":")
        name = name.strip()
        if not colon or not NAME_RE.match(name) or not members.split():
            return teams, f"team {part!r} needs the form NAME: PLAYER PLAYER"
        teams[name] = tuple(members.split())
    return teams, None


# --------------------------------------------------------------------------- lexing


def split_comment(text: str) -> tuple[str, str | None]:
    """Split a line into its statement and its ``%`` comment (``%`` inside quotes is text).

    >>> split_comment('note "50% luck" % Dee')
    ('note "50% luck" ', ' Dee')
    """
    if "%" not in text:
        return text, None
    in_quote = False
    escaped = False
    for i, ch in enumerate(text):
        if escaped:
            escaped = False
        elif ch == "\\" and in_quote:
            escaped = True
        elif ch == '"':
            in_quote = not in_quote
        elif ch == "%" and not in_quote:
            return text[:i], text[i + 1:]
    return text, None


def _tokens(text: str, start: int = 0) -> list[tuple[str, int]]:
    """White-space separated tokens of ``text`` with 1-based columns.

    >>> _tokens(" 1. AS  3S", 4)
    [('1.', 6), ('AS', 9), ('3S', 13)]
    """
    out = []
    pos = 0
    find = text.find
    for tok in text.split():  # str.split and a moving find: several times faster than re.finditer
        pos = find(tok, pos)
        out.append((tok, pos + 1 + start))
        pos += len(tok)
    return out


_CARD_CACHE: dict[str, int | None] = {}


def _card(token: str) -> int | None:
    """:func:`parse_card` with a small cache: logs spell the same 52 tokens over and over."""
    try:
        return _CARD_CACHE[token]
    except KeyError:
        c = parse_card(token)
        if len(_CARD_CACHE) < 4096:  # garbage input must not grow it without bound
            _CARD_CACHE[token] = c
        return c


def _unquote(s: str) -> str:
    return re.sub(r"\\(.)", r"\1", s)


def _quote(s: str) -> str:
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"') + '"'


# --------------------------------------------------------------------------- parser


class _GameBuilder:
    """Collects one game's statements; hands are built as mutable dicts then frozen."""

    def __init__(self, source: str, index: int, line: int):
        self.source = source
        self.index = index
        self.line = line
        self.end_line = line
        self.tags: list[Tag] = []
        self.hands: list[Hand] = []
        self.hand: dict | None = None
        self.winner: Named | None = None
        self.trailing: list[str] = []
        self.players: set[str] = set()
        self.keys: set[str] = set()  # players and team names, for score lines

    @property
    def name(self) -> str:
        for t in self.tags:
            if t.name == "GameId" and t.value:
                return t.value
        return f"{Path(self.source).name or self.source}#{self.index}"

    def close_hand(self) -> None:
        if self.hand is not None:
            h = self.hand
            self.hands.append(Hand(**{k: (tuple(v) if isinstance(v, list) else v) for k, v in h.items()}))
            self.hand = None

    def build(self) -> Game:
        self.close_hand()
        return Game(tuple(self.tags), tuple(self.hands), self.winner, tuple(self.trailing),
                    self.source, self.index, self.line, self.end_line)


_HAND_ORDER = ("dealer", "deal", "widow", "bids", "trump", "exchanges", "revokes", "tricks", "score", "total")


class Parser:
    """A streaming parser: feed it lines, get games and findings back.

    Use :func:`parse_text`, :func:`parse_file` or :func:`iter_games` rather than this
    class directly.
    """

    def __init__(self, source: str):
        self.source = source
        self.findings: list[Finding] = []  # ready: their game is complete (or they have none)
        self._game_findings: list[Finding] = []  # the game being read
        self.game: _GameBuilder | None = None
        self.games_started = 0
        self.pending_comments: list[str] = []
        self.done: list[Game] = []
        self.lineno = 0
        self._last_hand_number = 0

    # ---- helpers
    def problem(self, code: str, message: str, column: int = 1, subject: str | None = None, line: int | None = None,
                expected: str | None = None, recorded: str | None = None) -> None:
        g = self.game
        hand = g.hand["number"] if g is not None and g.hand is not None else None
        (self._game_findings if g is not None else self.findings).append(Finding(
            code, message, self.source, line or self.lineno, column, g.name if g else "", hand, None, subject,
            expected, recorded))

    def _take_comments(self) -> tuple[str, ...]:
        c = tuple(self.pending_comments)
        self.pending_comments.clear()
        return c

    def _new_game(self) -> _GameBuilder:
        if self.game is not None:
            self._finish_game(keep_comments=True)
        self.games_started += 1
        self.game = _GameBuilder(self.source, self.games_started, self.lineno)
        self._last_hand_number = 0
        return self.game

    def _finish_game(self, keep_comments: bool = False) -> None:
        g = self.game
        if g is None:
            return
        if not keep_comments:  # comments just before a tag block belong to the next game
            g.trailing.extend(self._take_comments())
        g.close_hand()
        self._check_game_tags(g)
        self.done.append(g.build())
        self.game = None
        name = self.done[-1].name  # a GameId tag may come after a finding: name them all alike
        self.findings.extend(f if f.game == name else replace(f, game=name) for f in self._game_findings)
        self._game_findings = []

    def _check_game_tags(self, g: _GameBuilder) -> None:
        names = [t.name for t in g.tags]
        present = f" (its tags: {', '.join(names)})" if names else ""
        if "Rules" not in names:
            self.problem("E107", f"the game has no Rules tag: which preset it follows is unknown{present}", 1,
                         line=g.line)
        if "Players" not in names:
            self.problem("E107", f"the game has no Players tag: the seats are unknown{present}", 1, line=g.line)

    def _name_ok(self, name: str, column: int, what: str = "player", keys: bool = False) -> bool:
        g = self.game
        known = g.keys if keys else g.players
        if name in known:
            return True
        if not NAME_RE.match(name):
            self.problem("E101", f"{_show(name)} is not a valid {what} name", column)
            return False
        if g.players and name not in known:
            seats = " ".join(sorted(known)) if known else "none"
            self.problem("E104", f"unknown {what} {_show(name)} (this game has: {seats})", column)
            return False
        return True

    def _cards(self, toks: list[tuple[str, int]]) -> tuple[list[int], list[int]]:
        cards, cols = [], []
        for tok, col in toks:
            c = _card(tok)
            if c is None:
                self.problem("E103", f"bad card token {_show(tok)}: expected a rank A K Q J T 9-2 then a suit S H D C",
                             col)
                continue
            cards.append(c)
            cols.append(col)
        return cards, cols

    # ---- driving
    def feed(self, raw: bytes, lineno: int) -> None:
        """Parse one physical line (bytes, without or with its line end)."""
        self.lineno = lineno
        if raw.endswith(b"\n"):
            raw = raw[:-1]
        if raw.endswith(b"\r"):
            raw = raw[:-1]
        if b"\x00" in raw:
            self.problem("E109", "NUL byte in the text (removed before reading the line)", raw.index(b"\x00") + 1)
            raw = raw.replace(b"\x00", b"")
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError as e:
            col = len(raw[: e.start].decode("utf-8", "replace")) + 1
            self.problem("E109", f"bytes that are not UTF-8 at column {col} (read as U+FFFD)", col)
            text = raw.decode("utf-8", "replace")
        if lineno == 1 and text.startswith("\ufeff"):
            text = text[1:]
        self.feed_text(text)

    def feed_text(self, text: str) -> None:
        stmt, comment = split_comment(text)
        body = stmt.strip()
        if not body:
            if comment is not None:
                self.pending_comments.append(comment.rstrip())
            return
        remark = comment.rstrip() if comment is not None else None
        lead = len(stmt) - len(stmt.lstrip())
        try:
            self._statement(body, lead, remark)
        except Exception as e:  # pragma: no cover - a parser bug must not lose the file
            self.problem("E101", f"could not read this line ({type(e).__name__}: {e})", lead + 1)

    def close(self) -> list[Game]:
        """Finish the last game; returns every game completed since the last call."""
        if self.game is not None:
            self._finish_game()
        elif self.pending_comments:
            self.pending_comments.clear()
        out, self.done = self.done, []
        return out

    def drain(self) -> list[Game]:
        """Games completed so far (a game is complete once the next one starts)."""
        out, self.done = self.done, []
        return out

    # ---- statements
    def _statement(self, body: str, lead: int, remark: str | None) -> None:
        if body.startswith("["):
            self._tag(body, lead, remark)
            return
        word = body.split(None, 1)[0]
        if word[0].isdigit():
            self._tricks(body, lead, remark)
            return
        kw = word.lower().rstrip(":")
        handler = _KEYWORDS.get(kw)
        if handler is None:
            self.problem("E102", f"unknown statement {_show(word)} (expected one of: {', '.join(_KEYWORDS)}, "
                         "a trick, or a [Tag \"value\"] pair)", lead + 1)
            return
        if word.rstrip(":") != kw:  # reported, then read all the same: a capital must not lose a hand
            self.problem("E102", f"keywords are lower case: write {kw!r}, not {_show(word)}", lead + 1)
        if self.game is None:
            self.problem("E108", f"{kw!r} before any tag block: a game starts with [Rules ...] and [Players ...] tags",
                         lead + 1)
            return
        self.game.end_line = self.lineno
        rest_at = body.index(word) + len(word)
        handler(self, body[rest_at:], lead + rest_at, remark, lead + 1)

    def _tag(self, body: str, lead: int, remark: str | None) -> None:
        m = _TAG_RE.match(body)
        if not m:
            self.problem("E101", 'a tag pair is written [Name "value"]', lead + 1)
            return
        g = self.game
        if g is None or g.hands or g.hand is not None or g.winner is not None or \
                any(t.name == m.group(1) for t in g.tags):  # a repeated tag opens the next game
            self._new_game()
        g = self.game
        g.end_line = self.lineno
        name, value = m.group(1), _unquote(m.group(2))
        value_col = lead + m.start(2) + 1
        tag = Tag(name, value, self.lineno, self._take_comments(), remark)
        if name == "Players":
            seats = value.split()
            bad = [s for s in seats if not NAME_RE.match(s)]
            if not seats or bad:
                self.problem("E107", f"Players needs names in seat order; bad: {_show(' '.join(bad) or value)}",
                             value_col)
            elif len(set(seats)) != len(seats):
                self.problem("E107", "a player is seated twice in the Players tag", value_col)
            g.players = set(seats)
            g.keys |= g.players
        elif name == "Teams":
            teams, err = parse_teams(value)
            if err:
                self.problem("E107", f"bad Teams tag: {err}", value_col)
            g.keys |= set(teams)
        elif name == "Rules":
            try:
                parse_rules(value)
            except RulesError as e:
                self.problem("E105", f"bad Rules tag: {e}", value_col + e.offset)
        elif name == "Date" and value and not re.fullmatch(r"\d{4}\.(\d\d|\?\?)\.(\d\d|\?\?)", value):
            self.problem("E101", f"Date is written YYYY.MM.DD, not {_show(value)}", value_col)
        g.tags.append(tag)

    def _hand(self, rest: str, at: int, remark: str | None, col: int) -> None:
        g = self.game
        toks = _tokens(rest, at)
        if len(toks) != 1 or not toks[0][0].isdigit():
            self.problem("E101", "a hand starts `hand N` with N a whole number", col)
            number = self._last_hand_number + 1
        else:
            number = int(toks[0][0])
            if number != self._last_hand_number + 1:
                self.problem("E106", f"hand {number} follows hand {self._last_hand_number}: expected hand "
                             f"{self._last_hand_number + 1}", toks[0][1],
                             expected=str(self._last_hand_number + 1), recorded=str(number))
        if g.winner is not None:
            self.problem("E108", "a hand after the winner line", col)
        g.close_hand()
        self._last_hand_number = number
        g.hand = dict(number=number, line=self.lineno, comments=self._take_comments(), remark=remark,
                      exchanges=[], revokes=[], tricks=[], notes=[])

    def _in_hand(self, kw: str, col: int) -> dict | None:
        h = self.game.hand
        if h is None:
            self.problem("E108", f"{kw!r} outside a hand: open one with `hand N`", col)
            return None
        return h

    def _order(self, h: dict, slot: str, kw: str, col: int) -> bool:
        """Whether a statement may go in ``slot``; report repeats and out-of-order ones."""
        if slot in ("dealer", "deal", "widow", "bids", "trump", "score", "total", "misdeal") and h.get(slot) is not None:
            self.problem("E108", f"a second {kw!r} line in hand {h['number']} (the first one is kept)", col)
            return False
        if slot in _HAND_ORDER and slot != "revokes":  # a revoke is often called after the trick
            for later in _HAND_ORDER[_HAND_ORDER.index(slot) + 1:]:
                if h.get(later) and later != "revokes":
                    self.problem("E108", f"{kw!r} is out of order: it comes after a {later!r} statement (the order "
                                 f"is {', '.join(_HAND_ORDER)})", col)
                    break
        return True

    def _dealer(self, rest: str, at: int, remark: str | None, col: int) -> None:
        h = self._in_hand("dealer", col)
        if h is None or not self._order(h, "dealer", "dealer", col):
            return
        toks = _tokens(rest, at)
        if len(toks) != 1:
            self.problem("E101", "write `dealer NAME`", col)
            return
        name, ncol = toks[0]
        if self._name_ok(name, ncol):
            h["dealer"] = Named(name, self.lineno, ncol, self._take_comments(), remark)

    def _holdings(self, rest: str, at: int, kw: str) -> list[Holding] | None:
        out = []
        pos = 0
        for part in rest.split(";"):
            part_at = at + pos
            pos += len(part) + 1
            if not part.strip():
                continue
            name_part, colon, cards_part = part.partition(":")
            if not colon:
                self.problem("E101", f"{kw} lists NAME: CARDS, separated by ';'", part_at + len(part) - len(part.lstrip()) + 1)
                continue
            ntoks = _tokens(name_part, part_at)
            if len(ntoks) != 1:
                self.problem("E101", f"{kw}: one player name before each ':'", part_at + 1)
                continue
            name, ncol = ntoks[0]
            if not self._name_ok(name, ncol):
                continue
            toks = _tokens(cards_part, part_at + len(name_part) + 1)
            cards, cols = self._cards(toks)
            out.append(Holding(name, tuple(cards), tuple(cols), ncol))
            if len(cards) != len(toks):
                self._unreadable.add(name)
        return out

    def _deal(self, rest: str, at: int, remark: str | None, col: int) -> None:
        h = self._in_hand("deal", col)
        if h is None or not self._order(h, "deal", "deal", col):
            return
        self._unreadable: set[str] = set()
        before = len(self._game_findings)
        hs = self._holdings(rest, at, "deal")
        dropped = any(f.code in ("E101", "E104") for f in self._game_findings[before:])
        h["deal"] = Deal(tuple(hs), self.lineno, self._take_comments(), remark, frozenset(self._unreadable),
                         dropped)

    def _widow(self, rest: str, at: int, remark: str | None, col: int) -> None:
        h = self._in_hand("widow", col)
        if h is None or not self._order(h, "widow", "widow", col):
            return
        body = rest.lstrip()
        if body.startswith(":"):
            at += len(rest) - len(body) + 1
            rest = body[1:]
        cards, cols = self._cards(_tokens(rest, at))
        h["widow"] = Widow(tuple(cards), tuple(cols), self.lineno, self._take_comments(), remark)

    def _bids(self, rest: str, at: int, remark: str | None, col: int) -> None:
        h = self._in_hand("bids", col)
        if h is None or not self._order(h, "bids", "bids", col):
            return
        bids = []
        pos = 0
        before = len(self._game_findings)
        for part in rest.split(","):
            part_at = at + pos
            pos += len(part) + 1
            toks = _tokens(part, part_at)
            if not toks:
                if part_at != at or rest.strip():
                    self.problem("E101", "an empty bid between commas", part_at + 1)
                continue
            if len(toks) == 3 and toks[1][0].lower() == "pitch":
                # pitching: the suit pitched may follow the word (`Cal pitch H`)
                suit = _suit_word(toks[2][0])
                if suit is None:
                    self.problem("E101", f"{_show(toks[2][0])} is not a suit (S H D C)", toks[2][1])
                    continue
                toks = [toks[0], (f"pitch {SUITS[suit]}", toks[1][1])]
            if len(toks) != 2:
                self.problem("E101", "each bid is NAME WORD (pass, a number, smudge, pitch, sells, keeps)", toks[0][1])
                continue
            (name, ncol), (word, wcol) = toks
            if word.startswith("pitch "):
                if self._name_ok(name, ncol):
                    bids.append(Bid(name, word, ncol))
                continue
            if not _WORD_RE.match(word):
                self.problem("E101", f"{_show(word)} is not a bid word", wcol)
                continue
            if self._name_ok(name, ncol):
                bids.append(Bid(name, word.lower(), ncol))
        h["bids"] = Bids(tuple(bids), self.lineno, self._take_comments(), remark,
                         len(self._game_findings) > before)

    def _trump(self, rest: str, at: int, remark: str | None, col: int) -> None:
        h = self._in_hand("trump", col)
        if h is None or not self._order(h, "trump", "trump", col):
            return
        toks = _tokens(rest, at)
        suit = _suit_word(toks[0][0]) if len(toks) == 1 else None
        if suit is None:
            self.problem("E101", "write `trump SUIT` with SUIT one of S H D C", toks[0][1] if toks else col)
            return
        h["trump"] = TrumpLine(suit, self.lineno, toks[0][1], self._take_comments(), remark)

    @staticmethod
    def _exchange(kind: str):
        def handler(self: Parser, rest: str, at: int, remark: str | None, col: int) -> None:
            h = self._in_hand(kind, col)
            if h is None or not self._order(h, "exchanges", kind, col):
                return
            self._unreadable = set()
            hs = self._holdings(rest, at, kind)
            if len(hs) != 1:
                if hs:
                    self.problem("E101", f"one player per {kind} line", col)
                return
            h["exchanges"].append(Exchange(kind, hs[0], self.lineno, self._take_comments(), remark))
        return handler

    def _revoke(self, rest: str, at: int, remark: str | None, col: int) -> None:
        h = self._in_hand("revoke", col)
        if h is None or not self._order(h, "revokes", "revoke", col):
            return
        toks = _tokens(rest, at)
        trick = None
        if len(toks) == 3 and toks[1][0] == "trick" and toks[2][0].isdigit():
            trick = int(toks[2][0])
        elif len(toks) != 1:
            self.problem("E101", "write `revoke NAME` or `revoke NAME trick N`", col)
            return
        name, ncol = toks[0]
        if self._name_ok(name, ncol):
            h["revokes"].append(RevokeCall(name, trick, self.lineno, ncol, self._take_comments(), remark))

    def _tricks(self, body: str, lead: int, remark: str | None) -> None:
        col = lead + 1
        if self.game is None:
            self.problem("E108", "a trick before any tag block", col)
            return
        self.game.end_line = self.lineno
        h = self._in_hand("trick", col)
        if h is None:
            return
        toks = _tokens(body, lead)
        groups: list[tuple[int, int, list[tuple[str, int]]]] = []
        for tok, tcol in toks:
            m = _TRICK_NO_RE.match(tok)
            if m:
                groups.append((int(m.group(1)), tcol, []))
            elif not groups:
                self.problem("E101", "a trick starts with its number and a dot: `1. Ann:AS Bob:3S ...`", tcol)
                return
            else:
                groups[-1][2].append((tok, tcol))
        self._order(h, "tricks", "trick", col)
        comments = self._take_comments()
        for i, (number, ncol, cards) in enumerate(groups):
            plays = []
            long_form = [":" in t for t, _ in cards]
            short = not any(long_form)
            if any(long_form) and not all(long_form):
                self.problem("E101", f"trick {number} mixes NAME:CARD and bare cards; use one form", ncol)
            for tok, tcol in cards:
                if ":" in tok:
                    name, _, ctok = tok.partition(":")
                    if not self._name_ok(name, tcol):
                        continue
                    c = _card(ctok)
                    if c is None:
                        self.problem("E103", f"bad card token {_show(ctok)}: expected a rank A K Q J T 9-2 then a "
                                     "suit S H D C", tcol + len(name) + 1)
                        continue
                    plays.append(Play(name, c, tcol))
                else:
                    c = _card(tok)
                    if c is None:
                        self.problem("E103", f"bad card token {_show(tok)}: expected a rank A K Q J T 9-2 then a "
                                     "suit S H D C", tcol)
                        continue
                    plays.append(Play(None, c, tcol))
            if not cards:
                self.problem("E101", f"trick {number} has no cards", ncol)
            h["tricks"].append(Trick(number, tuple(plays), short, self.lineno, ncol,
                                     comments if i == 0 else (), remark if i == len(groups) - 1 else None,
                                     len(plays) != len(cards)))

    @staticmethod
    def _score(kind: str):
        def handler(self: Parser, rest: str, at: int, remark: str | None, col: int) -> None:
            h = self._in_hand(kind, col)
            if h is None or not self._order(h, kind, kind, col):
                return
            entries = []
            pos = 0
            before = len(self._game_findings)
            for part in rest.split(","):
                part_at = at + pos
                pos += len(part) + 1
                toks = _tokens(part, part_at)
                if len(toks) != 2 or not _INT_RE.match(toks[1][0]):
                    self.problem("E101", f"each {kind} entry is KEY N (a player or team, then a whole number)",
                                 toks[0][1] if toks else part_at + 1)
                    continue
                (key, kcol), (num, _) = toks
                if self._name_ok(key, kcol, "player or team", keys=True):
                    entries.append(ScoreEntry(key, int(num), kcol))
            h[kind] = ScoreLine(kind, tuple(entries), self.lineno, self._take_comments(), remark,
                                len(self._game_findings) > before)
        return handler

    def _note(self, rest: str, at: int, remark: str | None, col: int) -> None:
        h = self._in_hand("note", col)
        if h is None:
            return
        m = re.fullmatch(r'\s*"((?:[^"\\]|\\.)*)"\s*', rest)
        if not m:
            self.problem("E101", 'write `note "TEXT"` with the text in double quotes', col)
            return
        h["notes"].append(Note(_unquote(m.group(1)), self.lineno, self._take_comments(), remark))

    def _misdeal(self, rest: str, at: int, remark: str | None, col: int) -> None:
        h = self._in_hand("misdeal", col)
        if h is None or not self._order(h, "misdeal", "misdeal", col):
            return
        if rest.strip():
            self.problem("E101", "`misdeal` takes nothing after it", at + 1)
        h["misdeal"] = Marker("misdeal", self.lineno, self._take_comments(), remark)

    def _winner(self, rest: str, at: int, remark: str | None, col: int) -> None:
        g = self.game
        toks = _tokens(rest, at)
        if len(toks) != 1:
            self.problem("E101", "write `winner NAME` (a player, or a team in partnership presets)", col)
            return
        if g.winner is not None:
            self.problem("E108", "a second winner line (the first one is kept)", col)
            return
        name, ncol = toks[0]
        if self._name_ok(name, ncol, "player or team", keys=True):
            g.close_hand()
            g.winner = Named(name, self.lineno, ncol, self._take_comments(), remark)


_KEYWORDS = {
    "hand": Parser._hand,
    "dealer": Parser._dealer,
    "deal": Parser._deal,
    "widow": Parser._widow,
    "bids": Parser._bids,
    "trump": Parser._trump,
    "discard": Parser._exchange("discard"),
    "draw": Parser._exchange("draw"),
    "revoke": Parser._revoke,
    "score": Parser._score("score"),
    "total": Parser._score("total"),
    "note": Parser._note,
    "misdeal": Parser._misdeal,
    "winner": Parser._winner,
}


# --------------------------------------------------------------------------- entry points

_BINARY_SNIFF = 8192


def _looks_binary(head: bytes) -> bool:
    """A file whose first block has NUL bytes or is mostly not text is not a log."""
    if not head:
        return False
    if head.count(b"\x00") > 4:
        return True
    text = head.decode("utf-8", "replace")
    bad = text.count("\ufffd") + sum(1 for ch in text if ord(ch) < 32 and ch not in "\t\r\n\f")
    return bad > len(text) * 0.1


def iter_games(stream: BinaryIO, source: str, first_line: int = 1, sniff: bool = True,
               first_game: int = 0) -> Iterator[tuple[list[Game], list[Finding]]]:
    """Parse a binary stream lazily: yields (games completed, findings) in batches.

    Memory stays flat: a game is handed over as soon as the next one starts.
    ``first_line`` numbers the stream's first line and ``first_game`` counts the games
    before it (a chunk of a larger file); ``sniff`` checks that the stream is text at all.
    """
    head = stream.read(_BINARY_SNIFF)
    if sniff and _looks_binary(head):
        yield [], [Finding("E109", "this is not a text file (NUL bytes or mostly non-UTF-8 in its first "
                           f"{len(head)} bytes): skipped", source, 1, 1)]
        return
    p = Parser(source)
    p.games_started = first_game
    lineno = first_line - 1
    buf = head
    while True:
        chunk = stream.read(1 << 20)
        buf += chunk
        lines = buf.split(b"\n")
        if chunk:
            buf = lines.pop()  # a partial line waits for the next chunk
        else:
            buf = b""
            if lines[-1] == b"":
                lines.pop()
        for raw in lines:
            lineno += 1
            p.feed(raw, lineno)
        if p.done or len(p.findings) > 1000:
            yield p.drain(), p.findings
            p.findings = []
        if not chunk:
            break
    yield p.close(), p.findings


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

    ``-`` stands for standard input.  A path that does not exist is a finding, not an error.
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
            found = [str(f) for f in sorted(path.rglob("*.pitch")) if f.is_file()]
            if not found:
                problems.append(Finding("E100", f"no *.pitch files in the folder {s}", s, 0, 0))
            out.extend(found)
        elif path.is_file():
            out.append(s)
        else:
            problems.append(Finding("E100", f"no such file or folder: {s}", s, 0, 0))
    seen: set[str] = set()
    unique = []
    for f in out:  # a file named twice (or inside a folder also named) is read once
        key = f if f == "-" else str(Path(f).resolve())
        if key not in seen:
            seen.add(key)
            unique.append(f)
    return unique, problems


# --------------------------------------------------------------------------- canonical writer


def _cards_text(cards: Iterable[int]) -> str:
    return " ".join(CARD_NAMES[c] for c in cards)


def _line(text: str, stmt) -> list[str]:
    out = [f"%{c}" for c in getattr(stmt, "comments", ())]
    remark = getattr(stmt, "remark", None)
    out.append(text if remark is None else f"{text}  %{remark}")
    return out


def write_hand(h: Hand) -> list[str]:
    """The canonical lines of one hand."""
    out = _line(f"hand {h.number}", h)
    if h.dealer:
        out += _line(f"dealer {h.dealer.name}", h.dealer)
    if h.deal:
        out += _line("deal " + "; ".join(f"{x.player}: {_cards_text(x.cards)}" for x in h.deal.holdings), h.deal)
    if h.widow:
        out += _line(f"widow: {_cards_text(h.widow.cards)}", h.widow)
    if h.bids:
        out += _line("bids " + ", ".join(f"{b.player} {b.word}" for b in h.bids.bids), h.bids)
    if h.trump:
        out += _line(f"trump {SUITS[h.trump.suit]}", h.trump)
    for x in h.exchanges:
        out += _line(f"{x.kind} {x.holding.player}: {_cards_text(x.holding.cards)}", x)
    for r in h.revokes:
        out += _line(f"revoke {r.player}" + (f" trick {r.trick}" if r.trick is not None else ""), r)
    for t in h.tricks:
        cards = " ".join(CARD_NAMES[p.card] if p.player is None else f"{p.player}:{CARD_NAMES[p.card]}"
                         for p in t.plays)
        out += _line(f"{t.number}. {cards}".rstrip(), t)
    for s in (h.score, h.total):
        if s:
            out += _line(f"{s.kind} " + ", ".join(f"{e.key} {e.value}" for e in s.entries), s)
    for n in h.notes:
        out += _line(f"note {_quote(n.text)}", n)
    if h.misdeal:
        out += _line("misdeal", h.misdeal)
    return out


def write_game(g: Game) -> str:
    """The canonical text of one game: tags, a blank line, hands separated by blank lines."""
    out: list[str] = []
    for t in g.tags:
        out += _line(f"[{t.name} {_quote(t.value)}]", t)
    for h in g.hands:
        out.append("")
        out += write_hand(h)
    if g.winner:
        out.append("")
        out += _line(f"winner {g.winner.name}", g.winner)
    out += [f"%{c}" for c in g.trailing_comments]
    return "\n".join(out) + "\n"


def write_games(games: Iterable[Game]) -> str:
    """The canonical text of several games, separated by blank lines."""
    return "\n".join(write_game(g) for g in games)


def strip_positions(g: Game) -> Game:
    """A game with its source and index cleared: two parses of the same text compare equal."""
    return replace(g, source="", index=1)
