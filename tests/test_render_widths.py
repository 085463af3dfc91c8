"""Every command's output read at 80 and 120 columns: no line wider than the terminal, no word broken.

Rendered through typer's runner (a pipe) with ``COLUMNS`` set, as a user who sets it would see it;
what each line holds is compared with the same command at 1,000 columns, where nothing wraps. The
commands whose output is data (``fmt``, ``fix``, ``simulate``, csv and json) are left as they are.
"""

from __future__ import annotations

import re

import pytest
from typer.testing import CliRunner

from auditor.cli import app

from .conftest import SAMPLE_LOGS

runner = CliRunner()
BOX = re.compile(r"[\u2500-\u257f]")  # the table's box drawing


@pytest.fixture(scope="module")
def club(tmp_path_factory):
    ds = tmp_path_factory.mktemp("widths") / "club"
    assert runner.invoke(app, ["import", str(SAMPLE_LOGS / "auction.pitch"), "-o", str(ds)]).exit_code == 0
    return str(ds)


COMMANDS = {
    "no command": [],
    "help": ["--help"],
    "audit help": ["audit", "--help"],
    "stats help": ["stats", "--help"],
    "query help": ["query", "--help"],
    "audit": ["audit", str(SAMPLE_LOGS / "setback.pitch")],
    "audit statistics": ["audit", str(SAMPLE_LOGS), "--statistics"],
    "explain": ["explain", "S601"],
    "rules": ["rules"],
    "rules NAME": ["rules", "tenpoint52"],
    "stats": ["stats", "{club}"],
    "query": ["query", "--data", "{club}", "SELECT * FROM hands ORDER BY game_id, hand LIMIT 4"],
    "check": ["check", "{club}"],
    "replay": ["replay", str(SAMPLE_LOGS / "auction.pitch"), "--game", "thu-0108-1", "--hand", "5"],
    "config": ["--isolated", "config"],
}


def words(text: str) -> set[str]:
    return {w.strip("()[],;:.'\"`") for w in BOX.sub(" ", text).split()} - {""}


def render(args: list[str], columns: int) -> str:
    r = runner.invoke(app, args, env={"COLUMNS": str(columns)})
    assert r.exit_code in (0, 1, 2) and r.exception is None or isinstance(r.exception, SystemExit), r.output
    return r.stdout + r.stderr


@pytest.mark.parametrize("name", list(COMMANDS))
def test_output_fits_80_and_120_columns_without_breaking_a_word(name, club):
    args = [a.format(club=club) for a in COMMANDS[name]]
    whole = words(render(args, 1000))
    for width in (80, 120):
        text = render(args, width)
        wide = [line for line in text.splitlines() if len(line.rstrip()) > width]
        assert not wide, f"{name} at {width}: {wide[:3]}"
        broken = words(text) - whole - {"#", "="}  # a row number, the key = value layout
        broken = {w for w in broken if not w.isdigit()}
        assert not broken, f"{name} at {width}: words not in the unwrapped output: {sorted(broken)[:10]}"
