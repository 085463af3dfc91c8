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
from dataclasses import dataclass

from . import _core
from .notation import Finding

@dataclass(frozen=True)
class Case:
    """One case a code reports: its name, its typed fields and the template of its message."""

    name: str
    fields: tuple[str, ...]
    template: str


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
    fix_title: str = ""  # what the fix does, where there is one
    cases: tuple[Case, ...] = ()

    @property
    def link(self) -> str:
        """The section as a path from the project's root: ``docs/rules.md#revokes-r501-r502``."""
        return f"docs/{self.section}"


#: Every code, declared once in the core (``core/src/findings/``): title, why it matters, example,
#: severity, fix, and each case with its typed fields and message template.
CATALOG: dict[str, Code] = {
    d["code"]: Code(d["code"], d["title"], d["why"], d["example"], d["severity"], d["kind"], d["fix"], d["section"],
                    d["fix_title"], tuple(Case(c["name"], tuple(c["fields"]), c["template"]) for c in d["cases"]))
    for d in _core.catalog()}


def kind_of(code: str) -> str:
    """The kind of a code: input, deal, auction, play, revoke or score."""
    c = CATALOG.get(code)
    return c.kind if c else "input"


def severity_of(code: str) -> str:
    """``error`` or ``warning``."""
    c = CATALOG.get(code)
    return c.severity if c else "error"


def finding_dict(f: Finding) -> dict:
    """A finding as a dict with the stable field names of the JSON output: where it is, what it
    says, the case of its code with its typed ``fields``, and its ``fix`` (the edits that correct
    it, marked safe or unsafe) or null."""
    fix = f.fix
    return {
        "code": f.code, "kind": f.kind, "severity": f.severity, "file": f.source,
        "line": f.line, "column": f.column, "game": f.game or None, "hand": f.hand, "trick": f.trick,
        "player": f.subject, "message": f.message, "expected": f.expected, "recorded": f.recorded,
        "case": f.case or None, "fields": f.fields,
        "fix": None if fix is None else {"applicability": "safe" if fix["safe"] else "unsafe",
                                         "message": CATALOG[f.code].fix_title, "edits": fix["edits"]},
    }


FIELDS = ("code", "kind", "severity", "file", "line", "column", "game", "hand", "trick", "player", "message",
          "expected", "recorded", "case", "fields")


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
        row = finding_dict(f)
        row["fields"] = json.dumps(row["fields"], ensure_ascii=False)
        w.writerow({k: row[k] for k in FIELDS})
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
    out = ["# Finding codes", "",
           "Generated from the core's declarations (`core/src/findings/`) by "
           "`auditor explain --all --format markdown`.", "",
           "Each code reports one or more cases. A case has typed fields (players, cards, numbers, "
           "the rule's value), which `--format json` gives as `fields` beside `case`, and its message "
           "is made from them by the case's template (`{field}` is the field's value). A code that "
           "`auditor fix` corrects carries its edits with each finding (`fix` in the JSON output).", ""]
    for c in CATALOG.values():
        fix = f"`{c.fix}` ({c.fix_title})" if c.fix_title else f"`{c.fix}`"
        out += [f"## {c.code}: {c.title}", "", f"Kind: `{c.kind}`; severity: `{c.severity}`; fix: {fix}; "
                f"rule: [{c.section}]({c.section}).", "",
                c.why, "",
                "```", c.example, "```", ""]
        if c.cases:
            out += ["| case | fields | message |", "|---|---|---|"]
            out += [f"| `{k.name}` | {', '.join(f'`{x}`' for x in k.fields) or '—'} | "
                    f"{k.template.replace('|', chr(92) + '|')} |" for k in c.cases]
            out.append("")
    out += _ADDING
    return "\n".join(out)


_ADDING = """## Adding a code, or a case of one

1. Declare it in the file of its kind under `core/src/findings/` (`input.rs` for E1xx, `deal.rs`,
   `auction.rs`, `play.rs`, `revoke.rs`, `score.rs`) with `violation!`: severity, fix, the docs
   section of its rule, title, why, example, then each case with its typed fields and message
   template (`compare(EXPECTED, RECORDED)` where the case compares two). A new case of an existing
   code is one line there.
2. A new code also takes one line in the `registry!` of `core/src/findings/mod.rs`.
3. Emit it where the parser or the engine finds the case: `Finding::new(P402::CardCount { .. }, line,
   column)`, with `.with_edits(...)` where the record can be corrected there.
4. Give it a golden case under `tests/golden/<preset>/` (a `.pitch` and the `.json` of what it must
   give), checked by hand against the rules, and regenerate this page:
   `auditor explain --all --format markdown > docs/findings.md`.
""".split("\n")
