"""Replay and scoring: the notation's example, simulated games, injected faults, rule keys."""

from __future__ import annotations

import pytest

from auditor.engine import audit_games
from auditor.notation import parse_text
from auditor.simulate import answer_key_findings, finding_tuple, simulate

from .conftest import NOTATION_EXAMPLE

PRESETS = ["auction", "sell", "setback", "partnership", "cutthroat"]


def audit_text(text: str, override: str = ""):
    games, problems = parse_text(text, "t.pitch")
    results = audit_games(games, override)
    return results, problems + [f for r in results for f in r.findings]


def test_notation_example_gives_exactly_its_two_s601():
    results, findings = audit_text(NOTATION_EXAMPLE)
    assert [(f.code, f.line, f.subject, f.expected, f.recorded) for f in findings] == [
        ("S601", 15, "Cal", "0", "1"), ("S601", 15, "Dee", "1", "0")]
    msg = findings[0].message
    # each point says how it fell, and the points whose owner a rule key decides name the key
    assert msg.startswith("Cal: recorded 1, expected 0 (High: Ann held AS; Low: Dee held 2S (low=holder); "
                          "Jack: Ann took JS in trick 2; Game: Ann 18, Cal 16, Bob 6, Dee 0 (game_point=count)")
    hs = results[0].hands[0]
    assert (hs.high, hs.low, hs.jack, hs.game_point, hs.contract_made) == ("Ann", "Dee", "Ann", "Ann", True)
    assert hs.score == {"Ann": 3, "Bob": 0, "Cal": 0, "Dee": 1}


def test_low_to_the_taker_when_the_rules_say_so():
    results, findings = audit_text(NOTATION_EXAMPLE, "low=taker")
    hs = results[0].hands[0]
    # Dee's 2S fell in trick 2, which Ann took with the jack
    assert hs.low == "Ann" and hs.score["Ann"] == 4 and hs.score["Dee"] == 0


@pytest.mark.parametrize("preset", PRESETS + ["partnership draw=on", "setback follow=strict"])
def test_clean_simulated_games_give_no_findings(preset):
    name, _, keys = preset.partition(" ")
    text, key = simulate(name, games=6, seed=11, rules_text=keys)
    results, findings = audit_text(text)
    assert key == [] and findings == []
    assert sum(len(r.hands) for r in results) > 20
    if "draw=on" in preset:  # the draw was really exercised, and judged on the hands after it
        games, _ = parse_text(text)
        assert sum(len(h.exchanges) for g in games for h in g.hands) > 50


@pytest.mark.parametrize("preset", PRESETS)
def test_injected_faults_are_found_once_each_and_nothing_else(preset):
    text, key = simulate(preset, games=5, seed=3, faults=("revoke", "score", "total", "winner"))
    games, _ = parse_text(text, "simulated")
    findings = [f for r in audit_games(games) for f in r.findings]
    assert {k["code"] for k in key} >= {"R501", "S601", "S602"}
    assert sorted(finding_tuple(f) for f in findings) == sorted(answer_key_findings(key))


def test_an_injected_revoke_is_found_at_its_trick_and_player():
    text, key = simulate("auction", games=3, seed=5, faults=("revoke",))
    games, _ = parse_text(text, "simulated")
    revokes = [k for k in key if k["code"] == "R501"]
    found = [f for r in audit_games(games) for f in r.findings if f.code == "R501"]
    assert revokes and [(f.game, f.hand, f.trick, f.subject) for f in found] == \
        [(k["game"], k["hand"], k["trick"], k["player"]) for k in revokes]


@pytest.mark.parametrize("faults", [("score", "revoke"), ("winner", "total", "score", "revoke")])
def test_the_order_of_the_faults_does_not_matter(faults):
    # a revoke rewrites the sheet from the engine: injected after a score slip it used to undo the
    # slip (a wrong answer key) or cut the game before the slip's hand (StopIteration)
    text, key = simulate("auction", games=5, seed=2, faults=faults)
    assert (text, key) == simulate("auction", games=5, seed=2, faults=tuple(reversed(faults)))
    assert {k["code"] for k in key} >= {"R501", "S601"}
    games, _ = parse_text(text, "simulated")
    findings = [f for r in audit_games(games) for f in r.findings]
    assert sorted(finding_tuple(f) for f in findings) == sorted(answer_key_findings(key))


HEAD = '[Rules "{rules}"]\n[Players "Ann Bob Cal Dee"]\n'


def hand(bids: str, tricks: str, dealer: str = "Ann", extra: str = "", number: int = 1) -> str:
    return f"hand {number}\ndealer {dealer}\nbids {bids}\n{extra}{tricks}"


# A fixed play: Bob pitches spades.  Bob AS 2S (High and Low), Cal JS taken by Bob.
TRICKS = """\
1. Bob:AS Cal:JS Dee:3S Ann:4S
2. Bob:2S Cal:KH Dee:QH Ann:5S
3. Ann:AH Bob:3H Cal:4H Dee:5H
4. Ann:AD Bob:2D Cal:3D Dee:4D
5. Ann:AC Bob:2C Cal:3C Dee:4C
6. Ann:KC Bob:5C Cal:6C Dee:7C
"""


def test_trick_by_trick_points_and_leaders():
    text = HEAD.format(rules="auction") + hand("Bob 2, Cal pass, Dee pass, Ann pass", TRICKS) + \
        "score Ann 1, Bob 3, Cal 0, Dee 0\n"
    results, findings = audit_text(text)
    hs = results[0].hands[0]
    # Ann: trick 2 (KH 3 + QH 2) + AH 4 + AD 4 + AC 4 + KC 3 = 20; Bob: AS 4 + JS 1 = 5
    assert hs.counts == {"Ann": 20, "Bob": 5, "Cal": 0, "Dee": 0}
    assert hs.winners == ["Bob", "Ann", "Ann", "Ann", "Ann", "Ann"]
    assert (hs.high, hs.low, hs.jack, hs.game_point) == ("Bob", "Bob", "Bob", "Ann")
    assert findings == []


def test_pitcher_set_back_and_s601_explains_it():
    text = HEAD.format(rules="auction") + hand("Bob 4, Cal pass, Dee pass, Ann pass", TRICKS) + \
        "score Ann 1, Bob 3, Cal 0, Dee 0\n"
    _, findings = audit_text(text)
    assert [(f.code, f.subject, f.expected) for f in findings] == [("S601", "Bob", "-4")]
    assert "Bob bid 4 (smudge) and was set" in findings[0].message


def test_dealer_steal_allowed_in_auction_but_not_setback():
    bids = "Bob 2, Cal pass, Dee pass, Ann 2"
    for rules, codes in (("auction", ["A307"]), ("setback", ["A305"])):
        text = HEAD.format(rules=rules) + hand(bids, TRICKS)
        _, findings = audit_text(text)
        # in auction Ann stole the bid, so Bob's lead is A307; in setback the steal itself is the finding
        assert [f.code for f in findings] == codes, rules


def test_setback_all_pass_is_thrown_in_and_the_same_dealer_deals_again():
    text = HEAD.format(rules="setback") + "hand 1\ndealer Ann\nbids Bob pass, Cal pass, Dee pass, Ann pass\n" \
        "score Ann 0, Bob 0, Cal 0, Dee 0\n" + hand("Bob 2, Cal pass, Dee pass, Ann pass", TRICKS, number=2)
    results, findings = audit_text(text)
    assert findings == [] and results[0].hands[0].status == "thrown-in"
    moved = text.replace("hand 2\ndealer Ann\nbids Bob 2, Cal pass, Dee pass, Ann pass",
                         "hand 2\ndealer Bob\nbids Cal pass, Dee pass, Ann pass, Bob 2")
    _, findings = audit_text(moved)
    assert [f.code for f in findings] == ["D205"]


def test_all_pass_in_auction_means_the_eldest_pitches_without_contract():
    text = HEAD.format(rules="auction") + hand("Bob pass, Cal pass, Dee pass, Ann pass", TRICKS) + \
        "score Ann 1, Bob 3, Cal 0, Dee 0\n"
    results, findings = audit_text(text)
    assert findings == [] and results[0].hands[0].contract == 0
    thrown = HEAD.format(rules="auction") + "hand 1\ndealer Ann\nbids Bob pass, Cal pass, Dee pass, Ann pass\n"
    assert [f.code for f in audit_text(thrown)[1]] == ["A306"]


def test_partnership_dealer_must_bid_when_all_pass():
    text = HEAD.format(rules="partnership") + '[Teams "NS: Ann Cal; EW: Bob Dee"]\n' + \
        hand("Bob pass, Cal pass, Dee pass, Ann pass", TRICKS.replace("Bob:AS", "Bob:AS"))
    _, findings = audit_text(text)
    assert "A306" in [f.code for f in findings]


def test_revoke_penalty_and_pitcher_protection():
    # Cal holds JS but plays KH to trick 2... no: Cal plays KH while holding spades? Cal's only spade is JS,
    # played in trick 1.  Make Dee revoke instead: Dee keeps 3S and plays QH to the trump lead in trick 1.
    tricks = TRICKS.replace("1. Bob:AS Cal:JS Dee:3S Ann:4S", "1. Bob:AS Cal:JS Dee:QH Ann:4S") \
                   .replace("2. Bob:2S Cal:KH Dee:QH Ann:5S", "2. Bob:2S Cal:KH Dee:3S Ann:5S")
    text = HEAD.format(rules="auction") + hand("Bob 4, Cal pass, Dee 3, Ann pass", tricks) + \
        "score Ann 1, Bob 3, Cal 0, Dee 0\n"
    # Bob needed 4 but took 3 (High, Low, Jack); Dee revoked, so Bob cannot be set and scores 3; Dee -4
    results, findings = audit_text(text.replace("Dee 3, Ann pass", "Dee pass, Ann pass"))
    hs = results[0].hands[0]
    assert [(f.code, f.trick, f.subject) for f in findings if f.code == "R501"] == [("R501", 1, "Dee")]
    assert hs.score == {"Ann": 1, "Bob": 3, "Cal": 0, "Dee": -4}
    assert hs.revokers == ["Dee"]


def test_called_revoke_that_did_not_happen_is_r502():
    text = HEAD.format(rules="auction") + hand("Bob 2, Cal pass, Dee pass, Ann pass", TRICKS,
                                               extra="revoke Cal trick 2\n")
    _, findings = audit_text(text)
    assert [(f.code, f.line, f.subject) for f in findings] == [("R502", 6, "Cal")]


def test_count_down_totals_in_sell():
    text = '[Rules "sell"]\n[Players "Ann Bob Cal Dee"]\n' + \
        "hand 1\ndealer Ann\nbids Cal 2, Dee pass, Ann pass, Bob keeps\n" + TRICKS + \
        "score Ann 1, Bob 3, Cal 0, Dee 0\ntotal Ann 9, Bob 7, Cal 10, Dee 10\n"
    results, findings = audit_text(text)
    assert findings == []
    assert results[0].hands[0].total == {"Ann": 9, "Bob": 7, "Cal": 10, "Dee": 10}
    bad = text.replace("total Ann 9, Bob 7", "total Ann 9, Bob 6")
    assert [(f.code, f.subject, f.expected) for f in audit_text(bad)[1]] == [("S602", "Bob", "7")]


def test_wrong_leader_and_wrong_count_of_cards():
    tricks = TRICKS.replace("3. Ann:AH Bob:3H Cal:4H Dee:5H", "3. Bob:3H Cal:4H Dee:5H Ann:AH")
    text = HEAD.format(rules="auction") + hand("Bob 2, Cal pass, Dee pass, Ann pass", tricks)
    assert [(f.code, f.trick) for f in audit_text(text)[1]] == [("P401", 3)]
    short = TRICKS.replace(" Ann:KC", "")
    text = HEAD.format(rules="auction") + hand("Bob 2, Cal pass, Dee pass, Ann pass", short)
    assert ("P402", 6) in [(f.code, f.trick) for f in audit_text(text)[1]]


def test_card_played_twice_and_not_dealt():
    tricks = TRICKS.replace("Ann:KC", "Ann:AC")
    text = HEAD.format(rules="auction") + hand("Bob 2, Cal pass, Dee pass, Ann pass", tricks)
    assert ("D201", 6) in [(f.code, f.trick) for f in audit_text(text)[1]]


REVOKES = [("auction.pitch", 63), ("auction.pitch", 184), ("cutthroat.pitch", 182), ("partnership.pitch", 230),
           ("sell.pitch", 37), ("setback.pitch", 261), ("tenpoint.pitch", 358), ("smear.pitch", 122)]


def test_sample_logs_give_exactly_their_documented_flaws():
    from .conftest import SAMPLE_LOGS
    from auditor.notation import parse_file

    found = []
    for f in sorted(SAMPLE_LOGS.glob("*.pitch")):
        games, problems = parse_file(f)
        found += [(f.name, p.line, p.code) for p in problems]
        found += [(f.name, x.line, x.code) for r in audit_games(games) for x in r.findings]
    assert sorted(set(found)) == sorted([
        ("auction.pitch", 63, "R501"), ("auction.pitch", 184, "R501"), ("auction.pitch", 240, "S601"),
        ("cutthroat.pitch", 182, "R501"), ("cutthroat.pitch", 192, "E103"), ("cutthroat.pitch", 266, "S601"),
        ("partnership.pitch", 230, "R501"), ("partnership.pitch", 276, "S602"), ("sell.pitch", 37, "R501"),
        ("sell.pitch", 174, "S602"), ("setback.pitch", 131, "E102"), ("setback.pitch", 251, "S601"),
        ("setback.pitch", 261, "R501"),
        ("partnership_variations.pitch", 76, "D206"), ("partnership_variations.pitch", 205, "P405"),
        ("partnership_variations.pitch", 307, "A309"), ("tenpoint.pitch", 68, "D206"), ("tenpoint.pitch", 237, "S601"),
        ("tenpoint.pitch", 358, "R501"), ("tenpoint52.pitch", 106, "P407"), ("tenpoint52.pitch", 272, "S602"),
        ("smear.pitch", 122, "R501"), ("smear.pitch", 301, "S601"), ("smear.pitch", 481, "S602")]
        + [(name, line, "R503") for name, line in REVOKES])  # each revoke with what it cost
    assert len(found) == 34  # two S601 lines name two players each


from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402


@settings(max_examples=25, deadline=None)
@given(preset=st.sampled_from(PRESETS), seed=st.integers(0, 10_000), players=st.integers(3, 7))
def test_legal_games_produce_no_findings(preset, seed, players):
    """Any legal game the bots play, under any preset and table size the preset allows, audits clean."""
    from auditor.rules import PRESETS as RULESETS

    lo, hi = RULESETS[preset].players
    n = min(max(players, lo), hi)
    text, _ = simulate(preset, games=1, seed=seed, players=n)
    results, findings = audit_text(text)
    assert findings == [], [f.message for f in findings]
    assert all(h.scored for r in results for h in r.hands)


def test_draw_variant_checks_discards_and_draws():
    text, _ = simulate("partnership", games=1, seed=2, rules_text="draw=on")
    games, _ = parse_text(text)
    h = next(h for h in games[0].hands if h.exchanges and h.deal)
    drawn = next(x for x in h.exchanges if x.kind == "draw")
    dealt_elsewhere = next(c for hold in h.deal.holdings if hold.player != drawn.holding.player for c in hold.cards)
    from auditor.cards import CARD_NAMES

    bad_line = f"draw {drawn.holding.player}: " + " ".join(CARD_NAMES[c] for c in drawn.holding.cards)
    worse = bad_line.replace(CARD_NAMES[drawn.holding.cards[0]], CARD_NAMES[dealt_elsewhere], 1)
    _, findings = audit_text(text.replace(bad_line, worse, 1))
    # a card drawn that was dealt to someone else: D201 at the draw, and the hand after the draw is wrong
    assert "D201" in [f.code for f in findings if f.hand == h.number]


def _golden(case: str):
    from auditor.notation import parse_file

    from .conftest import GOLDEN

    games, problems = parse_file(GOLDEN / f"{case}.pitch")
    results = audit_games(games)
    return results, problems + [f for r in results for f in r.findings]


def test_rulings_name_the_rule_that_decided_them():
    # a failed all-tricks smudge: what a smudge needs, and who took the trick the bidder lost
    results, (f,) = _golden("cutthroat/S601_smudge_failed")
    assert f.code == "S601" and ("and was set: under smudge=all-tricks a smudge needs all four points and all six "
                                 "tricks, but Ann took trick 4") in f.message
    assert "Ann took trick 4" in results[0].hands[0].contract_rule  # the replay's Contract line says it too
    # a hand played after a made smudge ended the game
    _, (f,) = _golden("auction/S603_hand_after_win")
    assert f.code == "S603" and "under smudge=wins-game a made smudge wins the game at once" in f.message
    # bidder-only: the side that reached the target did not bid that hand
    _, (f,) = _golden("cutthroat/S603_nonbidder_winner")
    assert f.code == "S603" and ("in hand 3 Ann reached 11, but under going_out=bidder-only only the bidding side "
                                 "(Bob's) can go out that hand") in f.message
    # R502: what the accused held
    _, (f,) = _golden("auction/R502_false_call")
    assert f.code == "R502" and "Cal had no clubs when trick 3 was led (5C), so 9H broke no rule" in f.message
    _, (f,) = _golden("sell/R502_trumped_not_revoke")
    assert "Dee held clubs in trick 2 (2C led) and trumped with 2S, which follow=follow-or-trump allows" in f.message


def test_messages_that_apply_a_rule_key_name_the_key_and_its_value():
    cases = {"auction/A304_bid_range": "(min_bid=2, max_bid=4)",
             "auction/A305_smudge_steal": "steal_smudge=off",
             "setback/A305_dealer_equal": "dealer_steal=off",
             "setback/A306_allpass_played": "all_pass=redeal",
             "cutthroat/A306_dealer_passed": "all_pass=dealer-bids",
             "auction/A306_thrown_in": "all_pass=eldest-pitches",
             "setback/R501_pitcher_revokes": "under follow=follow-or-trump",
             "tenpoint/R501_strict_void_must_trump": "under follow=strict",
             "partnership/D206_trump_discarded": "discard=non-trumps",
             "tenpoint52/D206_dealt_nontrump_kept": "discard=all-non-trumps",
             "tenpoint52/D206_not_refilled": "draw=on",
             "tenpoint/D206_widow_not_taken": "leftover=bidder",
             "tenpoint52/P407_dropped_out_plays": "trumps_only=on",
             "partnership/A309_bid_after_pitch": "pitching=on",
             "partnership/D203_joker": "deck=52",
             "sell/S602_counted_up": "count_down=on",
             "auction/S601_low_to_taker": "Low: Ann held 4S (low=holder)",
             "sell/D202_seven_cards": "deal_size=6",
             "auction/A301_missing_bidder": "auction=once-round"}
    for case, key in cases.items():
        _, found = _golden(case)
        found = [f for f in found if f.code != "R503"]  # what a revoke cost applies no rule key
        assert found and all(key in f.message for f in found), (case, [f.message for f in found])
