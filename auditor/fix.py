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
        return "".join(_terminated(_unified(a, b, self.path)))


class _Sparse(difflib.SequenceMatcher):
    """The opcodes of two files that differ in a few lines, found in one linear walk.

    A fix replaces lines one for one, and adds or removes a winner line and its blank line,
    so a walk that resynchronises on two equal lines in a row finds the same differences as
    difflib's matcher, whose search grows with the square of a large file's repeated lines.
    """

    def __init__(self, a: list[str], b: list[str]):
        super().__init__(None, a, b, autojunk=False)

    def get_opcodes(self):  # noqa: D102 - difflib's
        a, b, i, j, ops = self.a, self.b, 0, 0, []
        while i < len(a) or j < len(b):
            k, m = i, j
            while i < len(a) and j < len(b) and a[i] == b[j]:
                i, j = i + 1, j + 1
            if i > k:
                ops.append(("equal", k, i, m, j))
                continue
            di, dj = _resync(a, b, i, j)
            tag = "replace" if di and dj else "delete" if di else "insert"
            ops.append((tag, i, i + di, j, j + dj))
            i, j = i + di, j + dj
        return ops


def _resync(a: list[str], b: list[str], i: int, j: int) -> tuple[int, int]:
    """The fewest lines to skip in each (``a`` from ``i``, ``b`` from ``j``) before two equal lines, or the ends."""
    for d in range(1, len(a) - i + len(b) - j + 1):
        for di in range(d + 1):
            x, y = i + di, j + d - di
            if x > len(a) or y > len(b):
                continue
            if (x == len(a) and y == len(b)) or (x + 1 < len(a) and y + 1 < len(b) and a[x] == b[y]
                                                 and a[x + 1] == b[y + 1]) or (
                    x + 1 == len(a) and y + 1 == len(b) and a[x] == b[y]):
                return di, d - di
    return len(a) - i, len(b) - j


def _unified(a: list[str], b: list[str], path: str):
    """``difflib.unified_diff`` over :class:`_Sparse`'s opcodes: three lines of context."""
    started = False
    for group in _Sparse(a, b).get_grouped_opcodes(3):
        if not started:
            started = True
            yield f"--- {path}\n"
            yield f"+++ {path}\n"
        first, last = group[0], group[-1]
        yield (f"@@ -{difflib._format_range_unified(first[1], last[2])} "
               f"+{difflib._format_range_unified(first[3], last[4])} @@\n")
        for tag, i1, i2, j1, j2 in group:
            if tag == "equal":
                yield from (" " + line for line in a[i1:i2])
                continue
            yield from ("-" + line for line in a[i1:i2])
            yield from ("+" + line for line in b[j1:j2])


def _terminated(lines):
    for line in lines:
        yield line if line.endswith("\n") else line + "\n\\ No newline at end of file\n"


class _Lines:
    """A file as lines split on ``\\n`` only (as the parser counts them), each kept as bytes."""

    def __init__(self, data: bytes):
        self.lines = data.split(b"\n")
        self.original: dict[int, bytes] = {}  # 1-based line -> its text before any fix
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
    # a total that disagrees with a disputed score may be the right one: the ruling decides (unsafe)
    disputed_scores = {(f.game, f.hand, f.subject) for f in findings if f.code == "S601"}
    first: dict[tuple, Finding] = {}
    for f in fixable:
        if f.code == "S602" and f.expected is not None and (f.game, f.subject) not in first \
                and (f.game, f.hand, f.subject) not in disputed_scores:
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
    if how == "insert":  # as the canonical form has it: a blank line, then the winner
        cr = b"\r" if eol == b"\r\n" else b""
        lines.inserted.setdefault(f.line, []).extend([cr, f"winner {f.expected}".encode() + cr])
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
    """The lines with removals and insertions made (they shift numbering, so they wait for the end).

    A winner line removed takes the blank line before it along, as the canonical form puts one there.
    """
    gone = set(lines.removed) | {n - 1 for n in lines.removed
                                 if n > 1 and not lines.lines[n - 2].strip() and n - 1 not in lines.original}
    out: list[bytes] = []
    for i, raw in enumerate(lines.lines, 1):
        if i not in gone:
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
        for f in applied:
            if f.code == "S602":
                _carry(lines, f, hi, findings)
    raise FixError(f"{path}: the fixes did not settle after {MAX_PASSES} passes; the file is left as it was")


def _carry(lines: _Lines, f: Finding, hi: int, findings: list[Finding]) -> None:
    """The later totals the keeper carried on from the slip ``f`` fixed, shifted by the same amount.

    The audit did not flag them (each agrees with the wrong total before it), so without this
    each would take a pass of its own.  The shift stops where the audit would stop judging the
    chain: at a total it flagged for this side (another slip, or one written from the true
    total), and at a hand with no ``score`` line (its score may not be known).  Every line
    shifted is judged again by the next pass's audit.
    """
    if f.subject is None or f.recorded is None or not f.recorded.lstrip("+-").isdigit() or f.expected is None:
        return
    delta = int(f.expected) - int(f.recorded)
    flagged = {x.line for x in findings if x.code == "S602" and x.subject == f.subject}
    entry = re.compile(r"(?<![^\s,])" + re.escape(f.subject) + r"\s+([+-]?\d+)")
    scored = True
    for n in range(f.line + 1, hi + 1):
        text, cr = lines.text(n)
        word = text.split(maxsplit=1)[0] if text.strip() else ""
        if word == "hand":
            scored = False
        elif word == "score":
            scored = True
        elif word == "total":
            if not scored or n in flagged:
                return
            m = entry.search(text.partition("%")[0])
            if m is None:
                return
            lines.set(n, text[:m.start(1)] + str(int(m.group(1)) + delta) + text[m.end(1):], cr, "S602")
        elif word in ("winner", "[") or word.startswith("["):
            return


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
    if unsafe and "S601" in allowed_codes:
        # the totals and the winner that follow from a ruling written in come with it, unless ignored
        allowed_codes |= {c.code for c in select_codes([Finding("S602", ""), Finding("S603", "")], (), ignore)}
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
    # what --unsafe-fixes would address: the rulings, and the winners waiting on them
    disputed = {f.game for f in findings if f.code == "S601"}
    unsafe_left = sum(1 for f in remaining if (f.code == "S601" or (f.code == "S603" and f.game in disputed
                                                                      and _winner_fix(f) is not None)))
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
        before, code = lines.original[n], lines.code[n]
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
        added = [a for a in lines.inserted[n] if a.strip()]
        if annotate:
            lines.inserted[n] = [a if not a.strip() else _comment(a, "  % fixed: added", keep=True)
                                 for a in lines.inserted[n]]
        fixes += [Fix(path, n + 1, "S603", True, None, _shown(a)) for a in added]
    return _materialise(lines), fixes, moved


def _quoted(raw: bytes) -> str:
    """The statement a line held, without its comment, for ``% fixed: was "..."``."""
    return raw.rstrip(b"\r").decode("utf-8", "surrogateescape").partition("%")[0].rstrip().replace('"', "'")


def _comment(raw: bytes, comment: str, keep: bool = False) -> bytes:
    """``comment`` after the line's text (``keep``) or in its place, the line end kept."""
    cr = raw.endswith(b"\r")
    body = (raw[:-1] if cr else raw) if keep else b""
    return body + comment.encode("utf-8", "surrogateescape") + (b"\r" if cr else b"")


def _shown(raw: bytes) -> str:
    return raw.rstrip(b"\r").decode("utf-8", "replace")
