r"""Correct the score sheet in the log itself, as ``ruff --fix`` corrects code: safe and unsafe fixes.

A fix changes one line of the file and nothing else; every other byte stays as it was
(line ends, encoding, comments, the final newline or its absence).  What a fix writes is
what the audit expects, never a second computation: the file is audited, the fixable
findings are applied, and the file is audited again until nothing fixable is left.

* **Safe** (applied by default): what is arithmetic of the sheet itself.

  - S602: a ``total`` entry that is not the previous total plus this hand's written score.
    Only the first slip of each side in a game is fixed per pass: a later total that the
    keeper carried on from the slip is flagged, and fixed, once the slip is; one written
    from the true running total needs nothing.
  - S603: the ``winner`` line, once the game's written scores agree with the audit (no
    S601 in the game): a wrong name is replaced, a missing line added after the game's
    last line, a winner named before anyone went out removed.

* **Unsafe** (only with ``unsafe=True``): the audit's rulings.  S601: a hand's written
  score replaced by the recomputed one (revoke penalties and contracts included); the
  totals and the winner then follow by the safe fixes.

Plays, auctions and deals are verdicts, never fixed, and neither are hands played after
the game was won (S603 on a ``hand`` line).

>>> log = "\n".join(['[Rules "auction"]', '[Players "Ann Bob Cal Dee"]', '', 'hand 1', 'dealer Ann',
...     'bids Bob 2, Cal pass, Dee pass, Ann pass', '1. Bob:AS Cal:2S Dee:3S Ann:4S',
...     '2. Bob:KS Cal:5S Dee:6S Ann:7S', '3. Bob:QS Cal:8S Dee:9S Ann:TS', '4. Bob:JS Cal:2H Dee:3H Ann:4H',
...     '5. Bob:AH Cal:5H Dee:6H Ann:7H', '6. Bob:KH Cal:8H Dee:9H Ann:TH', 'score Ann 0, Bob 3, Cal 1, Dee 0',
...     'total Ann 0, Bob 4, Cal 1, Dee 0', '']).encode()
>>> fixed = fix_bytes(log, "club.pitch")
>>> [(f.code, f.line, f.before, f.after) for f in fixed.fixes]
[('S602', 14, 'total Ann 0, Bob 4, Cal 1, Dee 0', 'total Ann 0, Bob 3, Cal 1, Dee 0')]
>>> fixed.remaining, fixed.after.count(b"\n") == log.count(b"\n")
([], True)
"""

from __future__ import annotations

import difflib
import io
import re
from collections import Counter
from dataclasses import dataclass, field

from . import _core
from .engine import rules_resolver
from .findings import CATALOG, select as select_codes
from .notation import Finding, _rules_check, iter_games

#: The codes a fix can address, and whether their fix is safe: the catalogue's declaration.
FIXABLE = {c.code: c.fix == "safe" for c in CATALOG.values() if c.fix != "none"}
#: Passes before a file is given up as not settling (a slip carried through every hand of a
#: long game takes one pass per hand).
MAX_PASSES = 400
#: Rounds over the file: one more after each round that removed or added a winner line.
MAX_ROUNDS = 4

# a score or total entry: the key, spaces, the number (a `+` sign allowed)
_ENTRY = re.compile(r"[^\s,]+\s+([+-]?\d+)")
_WINNER = re.compile(r"\S+")


class FixError(Exception):
    """A file the fixer could not settle: it is left unchanged."""


@dataclass(frozen=True)
class Fix:
    """One line changed: the first code that changed it, and its text before and after.

    ``after`` is ``None`` for a line removed (a winner named before anyone went out);
    ``before`` is ``None`` for a line added (a missing winner line).
    """

    path: str
    line: int
    code: str
    safe: bool
    before: str | None
    after: str | None

    def as_dict(self) -> dict:
        return {"file": self.path, "line": self.line, "code": self.code, "safe": self.safe,
                "before": self.before, "after": self.after}


@dataclass
class FileFixes:
    """What fixing one file did: the fixes, the findings left, and the bytes before and after."""

    path: str
    before: bytes
    after: bytes
    fixes: list[Fix] = field(default_factory=list)
    remaining: list[Finding] = field(default_factory=list)
    #: findings left that an unsafe fix would address (S601, and S603 waiting on it)
    unsafe_left: int = 0

    @property
    def changed(self) -> bool:
        return self.before != self.after

    def counts(self) -> Counter:
        return Counter(f.code for f in self.fixes)

    def diff(self) -> str:
        """A unified diff of the file's lines, as ``ruff --diff`` prints it."""
        a = self.before.decode("utf-8", "replace").splitlines(keepends=True)
        b = self.after.decode("utf-8", "replace").splitlines(keepends=True)
        return "".join(_terminated(difflib.unified_diff(a, b, fromfile=self.path, tofile=self.path)))


def _terminated(lines):
    for line in lines:
        yield line if line.endswith("\n") else line + "\n\\ No newline at end of file\n"


class _Lines:
    """A file as lines split on ``\\n`` only (as the parser counts them), each kept as bytes."""

    def __init__(self, data: bytes):
        self.lines = data.split(b"\n")
        self.original: dict[int, bytes | None] = {}  # 1-based line -> its text before any fix (None: added)
        self.code: dict[int, str] = {}
        self.removed: set[int] = set()
        self.inserted: dict[int, list[bytes]] = {}  # lines added after a 1-based line

    def text(self, n: int) -> tuple[str, bool]:
        raw = self.lines[n - 1]
        cr = raw.endswith(b"\r")
        return (raw[:-1] if cr else raw).decode("utf-8", "surrogateescape"), cr

    def set(self, n: int, text: str, cr: bool, code: str) -> None:
        if n not in self.original:
            self.original[n] = self.lines[n - 1]
            self.code[n] = code
        self.lines[n - 1] = text.encode("utf-8", "surrogateescape") + (b"\r" if cr else b"")

    def data(self, lo: int = 1, hi: int | None = None) -> bytes:
        """Lines ``lo`` to ``hi`` (1-based, inclusive; all by default), joined as they are in the file."""
        return b"\n".join(self.lines[lo - 1:hi])


def _line_ending(data: bytes) -> bytes:
    return b"\r\n" if b"\r\n" in data else b"\n"


def _set_entry(text: str, column: int, key: str, value: int) -> str | None:
    """``text`` (a score or total line) with ``key``'s number at ``column`` set to ``value``;
    the entry appended when the line has none for ``key``."""
    m = _ENTRY.match(text, max(column - 1, 0))
    if m is None or not text[m.start():].startswith(key):  # not at its column: find the key's entry
        m = re.compile(r"(?<![^\s,])" + re.escape(key) + r"\s+([+-]?\d+)").search(text.partition("%")[0])
    if m is not None:
        return text[:m.start(1)] + str(value) + text[m.end(1):]
    # no entry for this key: add one after the last entry (before any comment)
    body, pct, comment = text.partition("%")
    stripped = body.rstrip()
    if not stripped or stripped.split()[0] not in ("score", "total"):
        return None
    sep = ", " if len(stripped.split()) > 1 else " "
    return f"{stripped}{sep}{key} {value}" + (body[len(stripped):] + pct + comment if pct else body[len(stripped):])


def _plan(findings: list[Finding], unsafe: bool, allowed) -> list[Finding]:
    """The findings to fix in this pass: every S601 (unsafe), else the first S602 of each side
    in each game, else the safe S603s."""
    fixable = [f for f in findings if f.code in FIXABLE and allowed(f)]
    s601 = [f for f in fixable if f.code == "S601" and f.expected is not None]
    if unsafe and s601:
        return s601
    first: dict[tuple, Finding] = {}
    for f in fixable:
        if f.code == "S602" and f.expected is not None and (f.game, f.subject) not in first:
            first[f.game, f.subject] = f
    if first:
        return list(first.values())
    # the winner follows the written scores only where they agree with the audit
    disputed = {f.game for f in findings if f.code == "S601"}
    return [f for f in fixable if f.code == "S603" and f.game not in disputed and _winner_fix(f) is not None]


def _winner_fix(f: Finding) -> str | None:
    """What an S603 asks of the winner line, from its two sides: ``replace`` a wrong name, ``remove``
    a winner named before anyone went out, ``insert`` a missing one; ``None`` for hands played after
    the win, which no fix may delete."""
    if f.expected == "no more hands":
        return None
    if f.expected == "no winner yet":
        return "remove"
    if f.recorded == "nothing":
        return "insert" if f.expected else None
    return "replace" if f.expected else None


def _apply(lines: _Lines, f: Finding, eol: bytes) -> bool:
    """Apply one finding's fix to ``lines``; False if the line is not what the finding says."""
    if f.code in ("S601", "S602"):
        if f.subject is None or f.expected is None or not f.line:
            return False
        text, cr = lines.text(f.line)
        new = _set_entry(text, f.column, f.subject, int(f.expected))
        if new is None or new == text:
            return False
        lines.set(f.line, new, cr, f.code)
        return True
    how = _winner_fix(f)
    if how == "remove":
        lines.original.setdefault(f.line, lines.lines[f.line - 1])
        lines.code.setdefault(f.line, f.code)
        lines.removed.add(f.line)
        return True
    if how == "insert":
        cr = b"\r" if eol == b"\r\n" else b""
        lines.inserted.setdefault(f.line, []).append(f"winner {f.expected}".encode() + cr)
        return True
    if how == "replace":
        text, cr = lines.text(f.line)
        m = _WINNER.match(text, max(f.column - 1, 0))
        if m is None or not f.expected:
            return False
        lines.set(f.line, text[:m.start()] + f.expected + text[m.end():], cr, f.code)
        return True
    return False


def _materialise(lines: _Lines) -> bytes:
    """The lines with removals and insertions made (they shift numbering, so they wait for the end)."""
    out: list[bytes] = []
    for i, raw in enumerate(lines.lines, 1):
        if i not in lines.removed:
            out.append(raw)
        for added in lines.inserted.get(i, []):
            if i == len(lines.lines) and raw == b"":
                out.insert(len(out) - 1, added)  # after the final newline's empty tail: before it
            else:
                out.append(added)
    return b"\n".join(out)


def _settle(lines: _Lines, lo: int, hi: int, index: int, path: str, override: str, unsafe: bool, allowed,
            eol: bytes) -> None:
    """Fix one game (lines ``lo`` to ``hi``) pass by pass until nothing fixable is left in it."""
    pending: list[Finding] = []  # winner lines added or removed wait for the end: one settles per game
    for _ in range(MAX_PASSES):
        findings = _audit(lines.data(lo, hi), path, override, lo, index)
        todo = [f for f in _plan(findings, unsafe, allowed)
                if not any(p.game == f.game and p.code == "S603" for p in pending)]
        # right to left along each line, so a number made longer leaves the columns before it in place
        applied = [f for f in sorted(todo, key=lambda f: (f.line, -f.column)) if _apply(lines, f, eol)]
        pending += [f for f in applied if f.code == "S603" and (f.line in lines.removed or f.line in lines.inserted)]
        if not applied:
            return
    raise FixError(f"{path}: the fixes did not settle after {MAX_PASSES} passes; the file is left as it was")


def _audit(data: bytes, path: str, override: str, first_line: int = 1, first_game: int = 0) -> list[Finding]:
    """Every finding of ``data`` (lines numbered from ``first_line``, after ``first_game`` games): the core's audit."""
    return _core.audit_bytes(data, path, first_line, first_game, _rules_check, rules_resolver(override))


def _spans(data: bytes, path: str) -> list[tuple[str, int, int]]:
    """Each game's name and first and last line."""
    games = [g for gs, _ in iter_games(io.BytesIO(data), path) for g in gs]
    last = data.count(b"\n") + 1
    return [(g.name, g.line, (games[i + 1].line - 1) if i + 1 < len(games) else last) for i, g in enumerate(games)]


def fix_bytes(data: bytes, path: str, *, unsafe: bool = False, select: tuple[str, ...] = (),
              ignore: tuple[str, ...] = (), annotate: bool = False, override: str = "") -> FileFixes:
    """Fix the score sheet of ``data`` (one file's bytes); raises :class:`FixError` if it does not settle.

    Each game is settled on its own lines (a sheet never reaches into the next game), so the
    passes a long carried slip needs cost that game's size, not the file's.  A winner line
    removed or added settles at the end of a round; another round follows (a second winner
    line the parser had ignored counts once the first is gone).
    """
    allowed_codes = set(c.code for c in select_codes(
        [Finding(code, "") for code in FIXABLE], select, ignore))
    allowed = lambda f: f.code in allowed_codes  # noqa: E731
    current, fixes = data, []
    findings = _audit(data, path, override)
    for _ in range(MAX_ROUNDS):
        after, done, moved = _round(current, findings, path, unsafe, allowed, annotate, override)
        fixes += done
        if after != current:
            findings = _audit(after, path, override)
        current = after
        if not moved:
            break
    else:
        raise FixError(f"{path}: the winner lines did not settle after {MAX_ROUNDS} rounds; the file is left as it was")
    remaining = select_codes(findings, select, ignore)
    unsafe_left = sum(1 for f in remaining if f.code == "S601" and allowed(f))
    return FileFixes(path, data, current, fixes, remaining, unsafe_left)


def _round(data: bytes, findings: list[Finding], path: str, unsafe: bool, allowed, annotate: bool,
           override: str) -> tuple[bytes, list[Fix], bool]:
    """One round over the file: every game settled; the bytes after, the lines fixed, and whether a
    line was removed or added."""
    lines = _Lines(data)
    wanted = {f.game for f in findings if f.code in FIXABLE and allowed(f)}
    if not wanted:
        return data, [], False
    eol = _line_ending(data)
    for i, (name, lo, hi) in enumerate(_spans(data, path)):
        if name in wanted:
            _settle(lines, lo, hi, i, path, override, unsafe, allowed, eol)
    moved = bool(lines.removed or lines.inserted)
    fixes: list[Fix] = []
    for n in sorted(lines.original):
        before, code = lines.original[n] or b"", lines.code[n]
        if n in lines.removed:
            now = None
            if annotate:  # the line stays, as a comment saying what it was
                lines.removed.discard(n)
                lines.lines[n - 1] = now = _comment(before, f'% fixed: was "{_quoted(before)}"')
        else:
            now = lines.lines[n - 1]
            if annotate:
                lines.lines[n - 1] = now = _comment(now, f'  % fixed: was "{_quoted(before)}"', keep=True)
        fixes.append(Fix(path, n, code, FIXABLE[code], _shown(before), None if now is None else _shown(now)))
    for n in sorted(lines.inserted):
        fixes += [Fix(path, n + 1, "S603", True, None, _shown(a)) for a in lines.inserted[n]]
    return _materialise(lines), fixes, moved


def _quoted(raw: bytes) -> str:
    return raw.rstrip(b"\r").decode("utf-8", "surrogateescape").replace('"', "'")


def _comment(raw: bytes, comment: str, keep: bool = False) -> bytes:
    """``comment`` after the line's text (``keep``) or in its place, the line end kept."""
    cr = raw.endswith(b"\r")
    body = (raw[:-1] if cr else raw) if keep else b""
    return body + comment.encode("utf-8", "surrogateescape") + (b"\r" if cr else b"")


def _shown(raw: bytes) -> str:
    return raw.rstrip(b"\r").decode("utf-8", "replace")
