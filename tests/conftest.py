"""Shared fixtures: the notation's own example, and paths into the repo."""

from __future__ import annotations

from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SAMPLE_LOGS = ROOT / "sample_logs"
GOLDEN = ROOT / "tests" / "golden"

NOTATION_EXAMPLE = """\
[Event "Thursday club"]
[Date "2026.11.19"]
[Rules "auction"]
[Players "Ann Bob Cal Dee"]

hand 1
dealer Ann
bids Bob 2, Cal pass, Dee 3, Ann 3        % the dealer takes it at 3
1. Ann:AS Bob:3S Cal:9S Dee:KS
2. Ann:JS Bob:4S Cal:TD Dee:2S
3. Ann:7H Bob:KH Cal:2H Dee:5H
4. Bob:QC Cal:AC Dee:3C Ann:6C
5. Cal:TH Dee:8H Ann:9H Bob:4H
6. Cal:5D Dee:6D Ann:9D Bob:KD
score Ann 3, Bob 0, Cal 1, Dee 0
total Ann 3, Bob 0, Cal 1, Dee 0
"""


@pytest.fixture
def example_file(tmp_path: Path) -> Path:
    p = tmp_path / "thursday.pitch"
    p.write_text(NOTATION_EXAMPLE, encoding="utf-8")
    return p


@pytest.fixture(autouse=True)
def _no_inherited_width(monkeypatch: pytest.MonkeyPatch) -> None:
    """Each test starts with no ``COLUMNS``, as a pipe has: pytest-xdist's workers set it to the
    controlling terminal's width, which would wrap the commands' output where a test reads it whole.
    A test that needs a width sets its own."""
    monkeypatch.delenv("COLUMNS", raising=False)
