"""Findings as the core declares them: typed fields, messages from templates, edits, one mistake one finding."""

from __future__ import annotations

import json
import re

from typer.testing import CliRunner

from auditor.cli import app
from auditor.engine import audit_games
from auditor.findings import CATALOG, finding_dict
from auditor.fix import fix_bytes
from auditor.notation import parse_text

from .conftest import GOLDEN, NOTATION_EXAMPLE, SAMPLE_LOGS

# a clean partnership hand (trump named on its line, first_trick_trump=free)
PARTNERSHIP = (GOLDEN / "partnership" / "clean_first_trick_free.pitch").read_text()


def findings_of(text: str) -> list:
    games, problems = parse_text(text, "t.pitch")
    return problems + [f for r in audit_games(games) for f in r.findings]


def test_every_case_declares_its_fields_and_a_template_made_of_them():
    assert len(CATALOG) == 38
    for code in CATALOG.values():
        assert code.cases, code.code
        for case in code.cases:
            named = {m.split(":")[0] for m in re.findall(r"\{([^}]*)\}", case.template)}
            assert named <= set(case.fields), (code.code, case.name, named - set(case.fields))


def test_a_finding_carries_its_case_and_typed_fields_beside_its_message():
    # Dee discards 6D on a heart lead in trick 3, holding 8H and 5H (5H played to trick 6 instead)
    text = NOTATION_EXAMPLE.replace("3. Ann:7H Bob:KH Cal:2H Dee:5H", "3. Ann:7H Bob:KH Cal:2H Dee:6D") \
        .replace("6. Cal:5D Dee:6D", "6. Cal:5D Dee:5H")
    (r501,) = [f for f in findings_of(text) if f.code == "R501"]
    assert r501.case == "RevokePlay"
    assert r501.fields == {"player": "Dee", "card": "6D", "trick": 3, "led": "7H", "held": ["8H", "5H"],
                           "rule": r501.fields["rule"], "expected": "8H 5H or a trump"}
    # the message is the template with the fields in it
    assert r501.message.startswith("Dee plays 6D to trick 3 (7H led) while holding 8H 5H: under follow=")
    d = finding_dict(r501)
    assert (d["case"], d["fields"]["card"], d["expected"], d["recorded"], d["fix"]) == \
        ("RevokePlay", "6D", "8H 5H or a trump", "6D", None)


def test_json_output_gains_the_fields_and_the_fix(tmp_path):
    log = tmp_path / "club.pitch"
    log.write_text(PARTNERSHIP.replace("total NS 3, EW 1", "total NS 4, EW 1"))
    r = CliRunner().invoke(app, ["audit", "--format", "json", str(log)])
    (f,) = json.loads(r.stdout)
    assert (f["code"], f["case"], f["player"], f["expected"], f["recorded"]) == ("S602", "WrongTotal", "NS", "3", "4")
    assert f["fields"]["previous"] == 0 and f["fields"]["written"] == 3 and f["fields"]["expected"] == 3
    # the edit is made where the finding is: the span of the wrong number, and the right one
    assert f["fix"]["applicability"] == "safe"
    (edit,) = f["fix"]["edits"]
    line = log.read_text().splitlines()[edit["line"] - 1]
    assert line[edit["column"] - 1:edit["end_column"] - 1] == "4" and edit["content"] == "3"


def test_a_missing_score_entry_is_added_in_seat_order():
    text = NOTATION_EXAMPLE.replace("score Ann 3, Bob 0, Cal 1, Dee 0", "score Ann 3, Cal 1")
    fixed = fix_bytes(text.encode(), "t.pitch", unsafe=True)
    # the example's sheet gives Cal the point Dee won: the ruling writes both, Bob's 0 in its seat
    assert b"score Ann 3, Bob 0, Cal 0, Dee 1" in fixed.after and fixed.remaining == []
    text = PARTNERSHIP.replace("score NS 3, EW 1", "score EW 1")
    fixed = fix_bytes(text.encode(), "t.pitch", unsafe=True)
    assert b"score NS 3, EW 1" in fixed.after and fixed.remaining == []


def test_a_misspelt_bids_line_is_its_e102_alone():
    # with the bidding unknown the contract is unknown: the hand's score is not checked
    text = NOTATION_EXAMPLE.replace("bids Bob 2, Cal pass, Dee 3, Ann 3", "bisd Bob 2, Cal pass, Dee 3, Ann 3") \
        .replace("score Ann 3, Bob 0, Cal 1, Dee 0", "score Ann 3, Bob -2, Cal 1, Dee 0") \
        .replace("total Ann 3, Bob 0, Cal 1, Dee 0", "total Ann 3, Bob -2, Cal 1, Dee 0")
    assert [(f.code, f.line) for f in findings_of(text)] == [("E102", 8)]


def test_one_missing_trick_line_is_one_p406():
    text = PARTNERSHIP.replace("3. Cal:AS Dee:TS Ann:6C Bob:6S\n", "")
    assert "3. Cal" not in text
    found = findings_of(text)
    assert [f.code for f in found] == ["P406"], [f.message for f in found]
    assert "trick 3 is missing (5 of 6 tricks recorded)" in found[0].message


def test_tricks_written_anticlockwise_are_one_p402_with_a_hint():
    def reverse(line: str) -> str:
        number, *plays = line.split()
        return " ".join([number, plays[0], *reversed(plays[1:])])

    lines = PARTNERSHIP.splitlines()
    text = "\n".join(reverse(x) if x[:1].isdigit() else x for x in lines) + "\n"
    found = findings_of(text)
    assert [f.code for f in found] == ["P402"], [f.message for f in found]
    assert "the tricks look written anticlockwise" in found[0].message and found[0].trick == 1


def test_one_finding_repeated_along_a_line_is_one_finding_with_its_count():
    text = NOTATION_EXAMPLE.replace("bids Bob 2", "deal Ann: " + " ".join(["AX"] * 300) + "\nbids Bob 2")
    e103 = [f for f in findings_of(text) if f.code == "E103"]
    assert len(e103) == 1
    assert e103[0].repeats["count"] == 299 and e103[0].repeats["columns"] == [14, 17, 20, 23, 26]
    assert "(and 299 more like it on this line, at columns 14, 17, 20, 23, 26, ...)" in e103[0].message


def test_a_smudge_made_in_the_hole_says_why_it_did_not_win():
    text = (GOLDEN / "auction" / "clean_smudge_hole.pitch").read_text()
    text = text[:text.index("\nhand 3\n")] + "\nwinner Bob\n"
    (s603,) = [f for f in findings_of(text) if f.code == "S603"]
    assert s603.case == "NoWinnerYet"
    assert "Bob bid smudge and made it from the hole (-2 before the hand): under smudge=wins-game" in s603.message


def _added(before: str, after: str, removed: int = 0) -> list[tuple[str, int]]:
    """The findings of ``after`` that ``before`` does not have, as (code, line); ``removed``: the
    line of ``before`` that ``after`` lacks (the lines after it move up one)."""
    old = {(f.code, f.line - (0 < removed < f.line)) for f in findings_of(before)}
    return sorted((f.code, f.line) for f in findings_of(after) if (f.code, f.line) not in old)


def _without_line(text: str, n: int) -> str:
    lines = text.splitlines(keepends=True)
    return "".join(lines[:n - 1] + lines[n:])


def test_a_misspelt_bids_line_is_its_e102_alone_not_a_ruling_on_the_winner():
    """The last hand's bidding unread: who went out in it is unknown, so the winner is not judged."""
    text = (SAMPLE_LOGS / "partnership.pitch").read_text()
    lines = text.splitlines(keepends=True)
    assert lines[150].startswith("bids Owen 2")
    lines[150] = "bisd" + lines[150][4:]
    flawed = "".join(lines)
    assert _added(text, flawed) == [("E102", 151)]
    assert not [f for f in findings_of(flawed) if f.code in ("S601", "S603") and f.line > 140]


def test_a_bids_line_misspelt_before_the_end_leaves_the_later_hands_judged_on_the_sheet():
    """A hand that cannot be recomputed, and that nobody went out in, is taken as the sheet gives it:
    a later total slip is still found, and the winner still judged."""
    text = (SAMPLE_LOGS / "partnership.pitch").read_text()
    lines = text.splitlines(keepends=True)
    assert lines[140].startswith("bids Nora pass")
    lines[140] = "bisd" + lines[140][4:]
    assert _added(text, "".join(lines)) == [("E102", 141)]
    slipped = "".join(lines).replace("total NS 21, EW 22", "total NS 21, EW 23")
    assert _added(text, slipped) == [("E102", 141), ("S602", 159)]


def test_a_missing_trick_is_its_p406_alone():
    """Who leads after a missing trick, and what each player still held, are unknown: no P401, R501,
    R503 or A307 follows from it."""
    text = (SAMPLE_LOGS / "partnership.pitch").read_text()
    assert text.splitlines()[21].startswith("2. Pia:2S") and text.splitlines()[20].startswith("1. Pia:AD")
    for n in (21, 22):  # trick 1, trick 2 of hand 1
        assert [c for c, _ in _added(text, _without_line(text, n), n)] == ["P406"], n
    lines = NOTATION_EXAMPLE.splitlines(keepends=True)
    for n in (9, 10, 11):  # trick 1, 2, 3 of an auction hand
        found = findings_of(_without_line(NOTATION_EXAMPLE, n))
        assert [f.code for f in found] == ["P406"], (lines[n - 1], [f.message for f in found])


def test_findings_repeated_along_a_line_fold_whatever_their_order():
    """Two cards dealt over and over, alternating: one finding a card, each with its count."""
    text = NOTATION_EXAMPLE.replace("bids Bob 2", "deal Ann: " + " ".join(["4S", "5S"] * 1500) + "\nbids Bob 2")
    d201 = [f for f in findings_of(text) if f.code == "D201"]
    assert sorted(f.fields["card"] for f in d201) == ["4S", "5S"], [f.message for f in d201]
    assert sum(1 + (f.repeats or {}).get("count", 0) for f in d201) == 2998
    # one trick written over and over on its line: a few findings, each code once or a few times
    trick = "1. Ann:AS Bob:3S Cal:9S Dee:KS"
    text = NOTATION_EXAMPLE.replace(trick, trick + " " + " ".join(["Ann:AS Bob:3S Cal:9S Dee:KS"] * 1000))
    on_line = [f for f in findings_of(text) if f.line == 9]
    assert len(on_line) <= 20, [(f.code, f.message) for f in on_line]


def test_any_first_or_second_trick_left_out_of_a_sample_log_is_its_p406_alone():
    """Every preset, long and short form, with a deal line or without: nothing but the P406 follows."""
    for path in sorted(SAMPLE_LOGS.glob("*.pitch")):
        text = path.read_text()
        for n, line in enumerate(text.splitlines(), 1):
            if re.match(r"[12]\. ", line) and not re.search(r" \d+\. ", line):
                added = [c for c, _ in _added(text, _without_line(text, n), n)]
                assert added == ["P406"], (path.name, n, line, added)


def test_an_unreadable_card_in_any_trick_of_a_sample_log_is_its_e103_alone():
    """Which card was played is unknown, so what that player held after it is too: no revoke (R501,
    R503) is judged on the guess that the player still holds the card the record does not show."""
    for path in sorted(SAMPLE_LOGS.glob("*.pitch")):
        text = path.read_text()
        lines = text.splitlines(keepends=True)
        for n, line in enumerate(lines, 1):
            if not re.match(r"\d+\. ", line) or re.search(r" \d+\. ", line):
                continue
            body, pct, remark = line.rstrip("\n").partition("%")
            tokens = body.rstrip(" ").split(" ")
            at = 1 + n % (len(tokens) - 1)  # the lead, a follower or the last card, line by line
            name, colon, _ = tokens[at].rpartition(":")
            tokens[at] = name + colon + "ZZ"
            flawed = "".join(lines[:n - 1] + [" ".join(tokens) + body[len(body.rstrip(" ")):] + pct + remark + "\n"]
                             + lines[n:])
            added = _added(text, flawed)
            assert added == [("E103", n)], (path.name, n, line, added)
