"""Finding codes: what each means, why it matters, an example; and how findings are printed.

Codes are stable: a code once published keeps its meaning.  ``auditor explain CODE``
prints an entry of :data:`CATALOG`.

>>> CATALOG["R501"].kind, CATALOG["R501"].severity
('revoke', 'error')
>>> kind_of("S602")
'score'
"""

from __future__ import annotations

import csv
import io
import json
from collections import Counter
from collections.abc import Iterable
from dataclasses import asdict, dataclass

from . import _core
from .notation import Finding

@dataclass(frozen=True)
class Code:
    """One entry of the catalog."""

    code: str
    title: str
    why: str
    example: str
    severity: str = "error"
    kind: str = "input"  # input, deal, auction, play, revoke or score
    fix: str = "none"  # what `auditor fix` does: none, safe (by default) or unsafe (--unsafe-fixes)
    section: str = ""  # the docs section stating the rule applied: "rules.md#revokes-r501-r502"

    @property
    def link(self) -> str:
        """The section as a path from the project's root: ``docs/rules.md#revokes-r501-r502``."""
        return f"docs/{self.section}"


#: Every code, declared once in the core (``core/src/findings.rs``): title, why it matters, example, severity, fix.
CATALOG: dict[str, Code] = {code: Code(code, title, why, example, severity, kind, fix, section)
                            for code, kind, severity, title, why, example, fix, section in _core.catalog()}


def kind_of(code: str) -> str:
    """The kind of a code: input, deal, auction, play, revoke or score."""
    c = CATALOG.get(code)
    return c.kind if c else "input"


def severity_of(code: str) -> str:
    """``error`` or ``warning``."""
    c = CATALOG.get(code)
    return c.severity if c else "error"


def finding_dict(f: Finding) -> dict:
    """A finding as a flat dict with the stable field names of the JSON output."""
    d = asdict(f)
    return {
        "code": f.code, "kind": kind_of(f.code), "severity": severity_of(f.code), "file": f.source,
        "line": f.line, "column": f.column, "game": f.game or None, "hand": f.hand, "trick": f.trick,
        "player": d["subject"], "message": f.message, "expected": f.expected, "recorded": f.recorded,
    }


FIELDS = ("code", "kind", "severity", "file", "line", "column", "game", "hand", "trick", "player", "message",
          "expected", "recorded")


def select(findings: Iterable[Finding], select: Iterable[str] = (), ignore: Iterable[str] = ()) -> list[Finding]:
    """Keep findings whose code starts with a ``select`` prefix (all if none) and no ``ignore`` prefix.

    >>> fs = [Finding("S601", ""), Finding("R501", ""), Finding("S602", "")]
    >>> [f.code for f in select(fs, ["S"], ["S602"])]
    ['S601']
    """
    sel = tuple(s.upper() for s in select)
    ign = tuple(s.upper() for s in ignore)
    return [f for f in findings if (not sel or f.code.startswith(sel)) and not (ign and f.code.startswith(ign))]


def sort_key(f: Finding) -> tuple:
    """File, line, column, code: the order findings are printed in."""
    return (f.source, f.line, f.column, f.code)


def format_text(f: Finding) -> str:
    """``file:line:col: CODE message`` as compilers and ruff print it."""
    return f"{f.source}:{f.line}:{f.column}: {f.code} {f.message}"


def to_json(findings: Iterable[Finding]) -> str:
    """One JSON array of finding objects."""
    return json.dumps([finding_dict(f) for f in findings], indent=2, ensure_ascii=False)


def to_jsonl(findings: Iterable[Finding]) -> str:
    """One JSON object per line."""
    return "".join(json.dumps(finding_dict(f), ensure_ascii=False) + "\n" for f in findings)


def to_csv(findings: Iterable[Finding]) -> str:
    """CSV with a header row."""
    buf = io.StringIO()
    w = csv.DictWriter(buf, fieldnames=FIELDS, lineterminator="\n")
    w.writeheader()
    for f in findings:
        w.writerow(finding_dict(f))
    return buf.getvalue()


def by_code(findings: Iterable[Finding]) -> Counter:
    """How many findings of each code."""
    return Counter(f.code for f in findings)


def explain(code: str) -> str | None:
    """The text ``auditor explain CODE`` prints, or ``None`` for an unknown code."""
    c = CATALOG.get(code.upper())
    if c is None:
        return None
    return (f"{c.code} ({c.kind}, {c.severity}): {c.title}\n\n"
            f"Why it matters: {c.why}\n\nExample:\n    {c.example}\n\nFix: {_FIX_WORDS[c.fix]}\n\nRule: {c.link}\n")


_FIX_WORDS = {"none": "none: a verdict, never changed in the record",
              "safe": "safe: `auditor fix` corrects the line (arithmetic of the sheet itself)",
              "unsafe": "unsafe: `auditor fix --unsafe-fixes` writes the audit's ruling into the line"}


def catalog_markdown() -> str:
    """The catalog as a Markdown document (docs/findings.md is made from it)."""
    out = ["# Finding codes", "", "Generated from `auditor/findings.py` by `auditor explain --all`.", ""]
    for c in CATALOG.values():
        out += [f"## {c.code}: {c.title}", "", f"Kind: `{c.kind}`; severity: `{c.severity}`; fix: `{c.fix}`; "
                f"rule: [{c.section}]({c.section}).", "",
                c.why, "",
                "```", c.example, "```", ""]
    return "\n".join(out)
