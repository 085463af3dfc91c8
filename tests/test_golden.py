"""Golden hands: every preset and every finding code, each checked by hand against RULES.md.

Each ``tests/golden/<preset>/<case>.pitch`` has a ``.json`` beside it listing the findings
it must give (code, line, player) — and nothing else: a clean case lists none.  The
score lines in these files were worked out by hand, so a clean case also proves the
recomputed scores.
"""

from __future__ import annotations

import json

import pytest

from auditor.engine import audit_games
from auditor.notation import parse_file

from .conftest import GOLDEN

CASES = sorted(GOLDEN.glob("*/*.pitch"))


def audit_file(path):
    games, problems = parse_file(path)
    results = audit_games(games)
    return problems + [f for r in results for f in r.findings], results


@pytest.mark.parametrize("case", CASES, ids=[f"{c.parent.name}/{c.stem}" for c in CASES])
def test_golden_case(case):
    expected = json.loads(case.with_suffix(".json").read_text())
    findings, _ = audit_file(case)
    got = sorted(((f.code, f.line, f.subject) for f in findings), key=str)
    want = sorted(((e["code"], e["line"], e.get("player")) for e in expected), key=str)
    assert got == want, "\n".join(f"{f.code} {f.line}:{f.column} {f.subject}: {f.message}" for f in findings)


def test_every_preset_and_every_code_has_a_golden_case():
    presets = {c.parent.name for c in CASES}
    assert presets >= {"auction", "sell", "setback", "partnership", "cutthroat"}
    codes = {e["code"] for c in CASES for e in json.loads(c.with_suffix(".json").read_text())}
    from auditor.findings import CATALOG

    # E100 is about paths on the command line, not a log's content: tested in test_cli_core
    missing = set(CATALOG) - codes - {"E100"}
    assert not missing, f"codes without a golden case: {sorted(missing)}"
