"""Bad input judged precisely: one mistake, one finding, and every seat a rule set allows audited."""

from __future__ import annotations

from typer.testing import CliRunner

from auditor.cli import app
from auditor.engine import audit_games
from auditor.notation import parse_text
from auditor.rules import RulesError, parse_rules

CLEAN = """[Rules "auction"]
[Players "Amy Ben Dan Eve"]

hand 1
dealer Eve
deal Amy: AS KS 2S 3H 4H 5H; Ben: QS 3S 6H 7H 8H 9H; Dan: JS 4S TH JH QH KH; Eve: TS 5S AH 2D 3D 4D
bids Amy 2, Ben pass, Dan pass, Eve pass
1. Amy:AS Ben:3S Dan:4S Eve:5S
2. Amy:KS Ben:QS Dan:JS Eve:TS
3. Amy:2S Ben:6H Dan:TH Eve:AH
4. Amy:3H Ben:7H Dan:JH Eve:2D
5. Dan:QH Eve:3D Amy:4H Ben:8H
6. Dan:KH Eve:4D Amy:5H Ben:9H
score Amy 4, Ben 0, Dan 0, Eve 0
total Amy 4, Ben 0, Dan 0, Eve 0
"""


def findings(text: str) -> list[tuple[str, int]]:
    games, problems = parse_text(text, "t.pitch")
    return sorted((f.code, f.line) for f in problems + [x for r in audit_games(games) for x in r.findings])


def test_the_hand_used_below_is_clean():
    assert findings(CLEAN) == []


def test_a_misspelt_dealer_is_one_e104_and_the_bidding_order_says_who_dealt():
    text = CLEAN.replace("dealer Eve", "dealer Evee")
    games, problems = parse_text(text, "t.pitch")
    assert [(p.code, p.line) for p in problems] == [("E104", 5)]
    assert "did you mean 'Eve'?" in problems[0].message
    res = audit_games(games)[0]
    assert res.findings == [] and res.hands[0].dealer == "Eve"


def test_a_trick_line_missing_its_dot_is_one_e101_and_the_trick_is_still_read():
    text = CLEAN.replace("1. Amy:AS", "1 Amy:AS")
    assert findings(text) == [("E101", 8)]
    games, _ = parse_text(text, "t.pitch")
    assert audit_games(games)[0].hands[0].score == {"Amy": 4, "Ben": 0, "Dan": 0, "Eve": 0}


def test_a_space_after_a_players_colon_is_one_e101():
    assert findings(CLEAN.replace("Ben:3S", "Ben: 3S")) == [("E101", 8)]


def test_an_out_of_range_bid_is_one_a304_and_never_a_contract():
    text = CLEAN.replace("bids Amy 2", "bids Amy 9").replace("score Amy 4", "score Amy 4")
    assert findings(text) == [("A304", 7)]
    games, _ = parse_text(text, "t.pitch")
    hand = audit_games(games)[0].hands[0]
    assert (hand.pitcher, hand.contract, hand.score["Amy"]) == ("Amy", 0, 4)


def test_seats_beyond_what_the_deck_deals_are_refused_at_the_rules_tag():
    try:
        parse_rules("cutthroat players=2-10")
    except RulesError as e:
        assert "at most 8 players" in str(e)
    else:
        raise AssertionError("players=2-10 with six cards each must be refused")
    text = '[Rules "cutthroat players=2-10"]\n[Players "A1 A2 A3 A4 A5 A6 A7 A8 A9"]\n'
    assert [c for c, _ in findings(text)] == ["E105"]


def test_a_ninth_and_tenth_seat_are_audited_like_any_other():
    from auditor.simulate import simulate

    text, key = simulate("cutthroat", games=4, seed=3, players=10, faults=("revoke",),
                         rules_text="players=2-10 hand_size=5 deal_size=5")
    games, problems = parse_text(text)
    assert problems == [] and all(len(g.players) == 10 for g in games)
    found = [f for res in audit_games(games) for f in res.findings]
    # exactly the answer key: each injected revoke, wherever it sits
    assert sorted((f.code, f.hand, f.subject) for f in found if f.code == "R501") == \
        sorted((k["code"], k["hand"], k["player"]) for k in key if k["code"] == "R501")
    assert {f.code for f in found} <= {"R501", "R503"}  # each revoke with what it cost
    seats = {p.player for g in games for h in g.hands for t in h.tricks for p in t.plays}
    assert {"Ivy", "Jon"} <= seats


def test_simulate_refuses_more_players_than_the_rules_allow():
    r = CliRunner().invoke(app, ["simulate", "--rules", "cutthroat", "--players", "9"])
    assert r.exit_code == 2 and "2-7 players, not 9" in r.output


def test_the_simulate_help_names_every_fault():
    from auditor.simulate import FAULTS

    r = CliRunner().invoke(app, ["simulate", "--help"])
    assert all(f in r.output for f in FAULTS)


def _messages(text: str) -> list[tuple[str, int, str]]:
    games, problems = parse_text(text, "t.pitch")
    return sorted((f.code, f.line, f.message) for f in problems + [x for r in audit_games(games) for x in r.findings])


def test_a_misspelt_statement_is_one_e102_with_a_suggestion_not_also_the_missing_line():
    # `bisd` for `bids`: the hand then has no bids line, but that is the same mistake
    got = _messages(CLEAN.replace("bids Amy 2", "bisd Amy 2"))
    assert [(c, n) for c, n, _ in got] == [("E102", 7)]
    assert "did you mean 'bids'?" in got[0][2]
    got = _messages(CLEAN.replace("dealer Eve", "delaer Eve"))
    assert [(c, n) for c, n, _ in got] == [("E102", 5)] and "did you mean 'dealer'?" in got[0][2]
    # an unknown line that is no near miss of a statement leaves the missing line its own finding
    assert [(c, n) for c, n, _ in _messages(CLEAN.replace("bids Amy 2", "zzzz Amy 2"))] == [("E102", 7), ("E108", 4)]


def test_a_misspelt_player_card_or_bid_word_gets_a_suggestion():
    got = _messages(CLEAN.replace("bids Amy 2, Ben pass, Dan pass", "bids Amy 2, Ben pass, Dna pass"))
    assert got[0][:2] == ("E104", 7) and "did you mean 'Dan'?" in got[0][2]
    got = _messages(CLEAN.replace("Ben pass", "Ben pas"))
    assert [(c, n) for c, n, _ in got] == [("A304", 7)] and "'pas' (did you mean 'pass'?)" in got[0][2]
    got = _messages(CLEAN.replace("Dan:4S", "Dan:4SS"))
    assert got[0][:2] == ("E103", 8) and "did you mean '4S'?" in got[0][2]
    # one edit from four cards at once: no guess between them
    got = _messages(CLEAN.replace("Dan:4S", "Dan:4X"))
    assert got[0][:2] == ("E103", 8) and "did you mean" not in got[0][2]


def test_a_hand_number_out_of_order_reads_sensibly_and_belongs_to_its_hand():
    text = CLEAN.replace("hand 1", "hand 0") + "\nhand 99\ndealer Amy\nbids Ben pass, Dan pass, Eve pass, Amy 2\n"
    games, problems = parse_text(text, "t.pitch")
    e106 = [(p.hand, p.message) for p in problems if p.code == "E106"]
    assert e106 == [(0, "the game opens with hand 0: hands are numbered from 1, expected hand 1"),
                    (99, "hand 99 follows hand 0: expected hand 1")]
