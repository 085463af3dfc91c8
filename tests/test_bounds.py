"""Every number read has a range; a number outside it is one finding at its column, never a traceback.

Each case goes through `import`, `stats`, `query --data` and `audit --out`, the commands that
used to end in a pyarrow OverflowError or ArrowInvalid on these inputs.
"""

from __future__ import annotations

import pytest
from typer.testing import CliRunner

from auditor.cli import app
from auditor.notation import MAX_HAND, MAX_SCORE, MAX_TRICK, parse_text

runner = CliRunner()
HEAD = '[Rules "auction"]\n[Players "Amy Ben Cal"]\n'
HAND = "hand 1\ndealer Amy\nbids Ben 2, Cal pass, Amy pass\n1. Ben:AS Cal:2S Amy:3S\n"
HUGE = "99999999999999999999999"

# (the log, the findings it must give: (code, line, column), the words the first one's message has)
CASES = {
    "bid": (HEAD + HAND.replace("Ben 2", "Ben 32768"), [("A304", 5, 6)], "32768"),
    "hand number": (HEAD + HAND.replace("hand 1", f"hand {HUGE}"), [("E101", 3, 6)], "out of range"),
    "score": (HEAD + HAND + f"score Amy {HUGE}, Ben 2, Cal 0\n", [("E101", 7, 11)], "out of range"),
    "total": (HEAD + HAND + f"total Amy -{HUGE}\n", [("E101", 7, 11)], "out of range"),
    "rules value": (HEAD.replace("auction", f"auction game={HUGE}") + HAND, [("E105", 1, 22)], "out of range"),
    "trick number": (HEAD + HAND.replace("1. Ben", f"{HUGE}. Ben"), [("E101", 6, 1)], "out of range"),
    "revoke trick": (HEAD + HAND + f"revoke Cal trick {HUGE}\n", [("E101", 7, 18)], "out of range"),
}


def run(*args: str):
    r = runner.invoke(app, list(args))
    assert r.exception is None or isinstance(r.exception, SystemExit), r.exception
    return r


@pytest.mark.parametrize("case", list(CASES))
def test_a_number_out_of_range_is_one_finding_at_its_column(case, tmp_path):
    text, expected, words = CASES[case]
    _, found = parse_text(text, "t.pitch")
    log = tmp_path / "t.pitch"
    log.write_text(text, encoding="utf-8")
    r = run("audit", str(log), "--format", "jsonl", "--select", expected[0][0][:1])
    lines = [ln for ln in r.stdout.splitlines() if ln.strip()]
    got = [(f["code"], f["line"], f["column"]) for f in map(__import__("json").loads, lines)
           if f["code"] == expected[0][0]]
    assert got == expected and words in lines[0]
    ds = tmp_path / "ds"
    assert run("import", str(log), "--out", str(ds)).exit_code == 0
    assert run("stats", str(ds)).exit_code == 0
    q = run("query", "--data", str(ds), "SELECT count(*) AS n FROM findings", "--format", "csv")
    assert q.exit_code == 0 and q.stdout.split()[-1] != "0"
    assert run("audit", str(log), "--out", str(tmp_path / "ds2")).exit_code == 1


def test_the_documented_ranges():
    assert (MAX_HAND, MAX_TRICK, MAX_SCORE) == (9_999, 99, 99_999)
    ok = HEAD + f"hand 1\n{MAX_TRICK}. Ben:AS\nscore Amy {MAX_SCORE}, Ben -{MAX_SCORE}\n"
    assert parse_text(ok)[1] == []
    over = HEAD + f"hand 1\n{MAX_TRICK + 1}. Ben:AS\nscore Amy {MAX_SCORE + 1}\n"
    assert [f.code for f in parse_text(over)[1]] == ["E101", "E101"]


def test_a_trick_of_70000_cards_imports(tmp_path):
    # past what 16 bits hold, signed or not: every position column is int32
    log = tmp_path / "long.pitch"
    log.write_text(HEAD + "hand 1\ndealer Amy\nbids Ben 2, Cal pass, Amy pass\n1. " + "Ben:AS " * 70_000 + "\n",
                   encoding="utf-8")
    ds = tmp_path / "ds"
    r = run("import", str(log), "--out", str(ds))
    assert r.exit_code == 0, r.output
    q = run("query", "--data", str(ds), "SELECT max(position) AS n FROM plays", "--format", "csv")
    assert q.stdout.split()[-1] == "70000"


@pytest.mark.parametrize("text, code", [("hand \u0661\n", "E101"), ("hand \u00b2\n", "E101"),
                                         ("hand 1\n\u0661. Ben:AS\n", "E102")])
def test_digits_are_ascii_only(text, code):
    games, found = parse_text(HEAD + text)
    assert [f.code for f in found] == [code] and "Error" not in found[0].message
    assert games[0].hands[0].number == 1


def test_a_space_after_the_colon_is_one_finding_and_the_play_is_kept():
    games, found = parse_text(HEAD + "hand 1\n1. Ben:AS Cal: QH\n")
    assert [(f.code, f.column) for f in found] == [("E101", 16)]
    assert [p.player for p in games[0].hands[0].tricks[0].plays] == ["Ben", "Cal"]
    _, found = parse_text(HEAD + "hand 1\n1. Ben:AS Cla: QH\n")
    assert [f.code for f in found] == ["E104"] and "did you mean 'Cal'" in found[0].message
