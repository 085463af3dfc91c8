r"""Correct the score sheet in the log itself, as ``ruff --fix`` corrects code: safe and unsafe fixes.

A fix changes the lines it names and nothing else; every other byte stays as it was
(line ends, encoding, comments, the final newline or its absence).  What a fix writes is
the edit the core attached to the finding where it found the case (the span of the wrong
number and the right value, a winner line to write, add or remove), never a second
computation: the file is audited, the edits of the fixable findings are applied, and the
file is audited again until nothing fixable is left; edits that overlap wait for the next
pass, as ruff settles them.

* **Safe** (applied by default): what is arithmetic of the sheet itself.

  - S602: a ``total`` entry that is not the previous total plus this hand's written score.
    Only the first slip of each side in a game is fixed per pass; its edits shift with it the
    later totals the keeper carried on from the slip (up to one the audit flags for the side);
    one written from the true running total needs nothing.
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
from collections import Counter
from dataclasses import dataclass, field

from . import _core
from .engine import rules_resolver
from .findings import CATALOG, select as select_codes
from .notation import Finding, iter_games

#: The codes a fix can address, and whether their fix is safe: the catalogue's declaration.
FIXABLE = {c.code: c.fix == "safe" for c in CATALOG.values() if c.fix != "none"}
#: Passes before a file is given up as not settling (a slip carried through every hand of a
#: long game takes one pass per hand).
MAX_PASSES = 400
#: Rounds over the file: one more after each round that removed or added a winner line.
MAX_ROUNDS = 4



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
    #: how many fixable findings the first audit reported, by (code, line)
    reported: Counter = field(default_factory=Counter)

    @property
    def changed(self) -> bool:
        return self.before != self.after

    def counts(self) -> Counter:
        return Counter(f.code for f in self.fixes)

    def reported_counts(self) -> Counter:
        """The findings the audit reported that a fix addressed, by code."""
        out: Counter = Counter()
        for f in self.fixes:
            out[f.code] += self.reported.get((f.code, f.line), 0)
        return +out

    def followed_counts(self) -> Counter:
        """The lines fixed that followed from those (a total carried on from a score or total
        fixed, a winner line once the sheet agrees), by the code of the fix that changed them."""
        return Counter(f.code for f in self.fixes if (f.code, f.line) not in self.reported)

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
        self.crlf = b"\r\n" in data  # lines added take the file's line end
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


def _plan(findings: list[Finding], unsafe: bool, allowed) -> list[Finding]:
    """The findings to fix in this pass: every S601 (unsafe), else the first S602 of each side
    in each game, else the safe S603s."""
    fixable = [f for f in findings if f.fix is not None and f.code in FIXABLE and allowed(f)]
    s601 = [f for f in fixable if f.code == "S601"]
    if unsafe and s601:
        return s601
    # a total that disagrees with a disputed score may be the right one: the ruling decides (unsafe)
    disputed_scores = {(f.game, f.hand, f.subject) for f in findings if f.code == "S601"}
    first: dict[tuple, Finding] = {}
    for f in fixable:
        if f.code == "S602" and (f.game, f.subject) not in first and (f.game, f.hand, f.subject) not in disputed_scores:
            first[f.game, f.subject] = f
    if first:
        return list(first.values())
    # the winner follows the written scores only where they agree with the audit
    disputed = {f.game for f in findings if f.code == "S601"}
    return [f for f in fixable if f.code == "S603" and f.game not in disputed]


def _moves_lines(edit: dict) -> bool:
    """Whether an edit adds or removes whole lines (those wait for the end of a round)."""
    return edit["line"] != edit["end_line"] or "\n" in edit["content"]


def _edit_spans(f: Finding) -> list[tuple[int, int, int]]:
    """The (line, first column, last column) each edit of ``f`` replaces on one line."""
    return [(e["line"], e["column"], e["end_column"]) for e in f.fix["edits"] if not _moves_lines(e)]


def _overlaps(a: tuple[int, int, int], b: tuple[int, int, int]) -> bool:
    return a[0] == b[0] and a[1] < b[2] and b[1] < a[2] or (a == b)


def _apply_edit(lines: _Lines, e: dict, code: str) -> bool:
    """One edit of the core's: a replacement within a line, a whole line removed, or lines
    inserted before a line; False for any other shape (nothing is changed)."""
    line, col, end_line, end_col, content = e["line"], e["column"], e["end_line"], e["end_column"], e["content"]
    if not _moves_lines(e):
        if not 1 <= line <= len(lines.lines):
            return False
        text, cr = lines.text(line)
        if not 1 <= col <= end_col <= len(text) + 1:
            return False
        lines.set(line, text[:col - 1] + content + text[end_col - 1:], cr, code)
        return True
    if content == "" and col == 1 and end_col == 1 and end_line == line + 1 and 1 <= line <= len(lines.lines):
        lines.original.setdefault(line, lines.lines[line - 1])
        lines.code.setdefault(line, code)
        lines.removed.add(line)
        return True
    if col == 1 and end_line == line and content.endswith("\n") and 1 <= line <= len(lines.lines) + 1:
        cr = b"\r" if lines.crlf else b""
        added = [x.encode("utf-8", "surrogateescape") + cr for x in content.split("\n")[:-1]]
        lines.inserted.setdefault(line - 1, []).extend(added)
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


def _settle(lines: _Lines, lo: int, hi: int, index: int, path: str, override: str, unsafe: bool, allowed) -> None:
    """Fix one game (lines ``lo`` to ``hi``) pass by pass until nothing fixable is left in it.

    Each pass applies the edits the core attached to the findings planned; a finding whose edits
    overlap one already taken this pass waits for the next pass, which audits the game again
    (as ruff settles overlapping fixes)."""
    pending: list[Finding] = []  # winner lines added or removed wait for the end: one settles per game
    for _ in range(MAX_PASSES):
        findings = _audit(lines.data(lo, hi), path, override, lo, index)
        todo = [f for f in _plan(findings, unsafe, allowed)
                if not any(p.game == f.game and p.code == "S603" for p in pending)]
        taken: list[Finding] = []
        spans: list[tuple[int, int, int]] = []
        for f in todo:
            mine = _edit_spans(f)
            if any(_overlaps(a, b) for a in mine for b in spans):
                continue
            taken.append(f)
            spans += mine
        # right to left along each line, so an edit leaves the columns before it in place
        edits = sorted(((e, f.code) for f in taken for e in f.fix["edits"]),
                       key=lambda x: (x[0]["line"], -x[0]["column"]))
        applied = [code for e, code in edits if _apply_edit(lines, e, code)]
        pending += [f for f in taken if f.code == "S603" and any(_moves_lines(e) for e in f.fix["edits"])]
        if not applied:
            return
    raise FixError(f"{path}: the fixes did not settle after {MAX_PASSES} passes; the file is left as it was")


def _audit(data: bytes, path: str, override: str, first_line: int = 1, first_game: int = 0) -> list[Finding]:
    """Every finding of ``data`` (lines numbered from ``first_line``, after ``first_game`` games): the core's audit."""
    return _core.audit_bytes(data, path, first_line, first_game, rules_resolver(override))


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
    findings = first = _audit(data, path, override)
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
                                                                      and f.fix is not None)))
    reported = Counter((f.code, f.line) for f in first if f.fix is not None and allowed(f))
    return FileFixes(path, data, current, fixes, remaining, unsafe_left, reported)


def _round(data: bytes, findings: list[Finding], path: str, unsafe: bool, allowed, annotate: bool,
           override: str) -> tuple[bytes, list[Fix], bool]:
    """One round over the file: every game settled; the bytes after, the lines fixed, and whether a
    line was removed or added."""
    lines = _Lines(data)
    wanted = {f.game for f in findings if f.code in FIXABLE and allowed(f)}
    if not wanted:
        return data, [], False
    for i, (name, lo, hi) in enumerate(_spans(data, path)):
        if name in wanted:
            _settle(lines, lo, hi, i, path, override, unsafe, allowed)
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
