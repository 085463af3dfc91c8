"""The ten-point presets and the partnership variations: moon, drop-outs, the off-jack, pitching, follow rules.

Every hand here is worked by hand in its comment; simulated games of every variation
must audit clean, and injected faults must be found exactly.
"""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from auditor.engine import audit_games
from auditor.notation import parse_text
from auditor.simulate import answer_key_findings, finding_tuple, simulate

VARIANTS = [("tenpoint", "", 4), ("tenpoint", "", 6), ("tenpoint52", "", 4), ("tenpoint52", "", 6),
            ("tenpoint", "trey=off game_point=ten", 4), ("tenpoint", "follow=strict", 4),
            ("tenpoint", "follow=free-when-void", 4), ("partnership", "players=6", 6),
            ("partnership", "pitching=on double_loss=on", 4), ("partnership", "draw=on pitching=on", 4),
            ("tenpoint", "draw=on discard=all-non-trumps", 4), ("smear", "", 4),
            # the smear keys from other presets: the jick alone, the all-pass set-back for a player alone
            ("cutthroat", "jick=on", 5), ("auction", "all_pass=dealer-set-back", 4)]


def audit(text: str):
    games, problems = parse_text(text, "t.pitch")
    results = audit_games(games)
    return results, problems + [f for r in results for f in r.findings]


@pytest.mark.parametrize("preset,keys,players", VARIANTS, ids=[f"{p} {k} {n}".strip() for p, k, n in VARIANTS])
def test_clean_simulated_games_of_every_variation_give_no_findings(preset, keys, players):
    text, key = simulate(preset, games=5, seed=23, players=players, rules_text=keys)
    results, findings = audit(text)
    assert key == [] and findings == []
    hands = [h for r in results for h in r.hands if h.status == "played"]
    assert len(hands) >= 15
    games, _ = parse_text(text)
    records = [h for g in games for h in g.hands]
    if preset.startswith("tenpoint"):  # the ten-point features were really exercised
        assert sum(any(p.card >= 52 for p in t.plays) for h in records for t in h.tricks) > 5  # jokers played
        assert any(h.made and max(h.made.values()) > 4 for h in hands)
        assert all(h.widow and h.exchanges for h in records if h.tricks)
    if preset == "smear" or "jick" in keys:  # the jick's point was scored: five points awarded in a hand
        assert any(sum(h.made.values()) == 5 for h in hands)
    if "dealer-set-back" in keys:  # an all-pass sets the dealer (alone here) back 2
        passed = [h for r in results for h in r.hands if h.status == "thrown-in"]
        assert passed and all(sorted(h.score.values())[0] == -2 and sum(h.score.values()) == -2 for h in passed)
    if preset == "tenpoint52":  # players drop out: tricks with fewer cards than players
        assert any(len(t.plays) < players for h in records for t in h.tricks)
    if "pitching" in keys:
        assert any(b.word.startswith("pitch") for h in records if h.bids for b in h.bids.bids)
        assert any(h.takeover for h in hands)


@pytest.mark.parametrize("preset", ["tenpoint", "tenpoint52", "smear"])
def test_injected_faults_in_ten_point_games_are_found_once_each(preset):
    text, key = simulate(preset, games=5, seed=4, faults=("revoke", "score", "total", "winner"))
    games, _ = parse_text(text, "simulated")
    findings = [f for r in audit_games(games) for f in r.findings]
    assert {k["code"] for k in key} >= {"S601", "S602"}
    assert sorted(finding_tuple(f) for f in findings) == sorted(answer_key_findings(key))


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(variant=st.sampled_from(VARIANTS), seed=st.integers(0, 10_000))
def test_any_legal_simulated_game_audits_clean(variant, seed):
    preset, keys, players = variant
    text, _ = simulate(preset, games=1, seed=seed, players=players, rules_text=keys)
    assert audit(text)[1] == []


# tenpoint52, clubs trump: J♠ is the off-jack, the jokers are trumps; players without a
# trump drop out (Cal after trick 2, then Bob and Dee).  Worked by hand: NS take High (A♣),
# Jack, Off-jack, both jokers, the Trey (3) and Game (21 to 0): 9; EW take Low (2♣): 1.
TEN_POINT = """\
[Rules "tenpoint52"]
[Players "Ann Bob Cal Dee"]
[Teams "NS: Ann Cal; EW: Bob Dee"]

hand 1
dealer Cal
deal Ann: TS JS AH JD KD 6C 7C QC KC; Bob: KS 5H 7H 9H 7D 8D AD 5C 8C; Cal: 4S 6S AS 3H 8H TH JH 4D 9C; Dee: 2S 7S 2H 6H 2D 3D 2C 3C JC
widow: QD 8S TD KH JKH 6D QH 9S QS 5S AC 4H 5D 3S 9D 4C TC JKL
bids Dee 4, Ann 7, Bob pass, Cal pass
trump C
discard Dee: 2S 2H 2D 3D 6H 7S
discard Ann: TS JD KD AH
discard Bob: 5H 7H 7D 8D 9H KS AD
discard Cal: 3H 4S 4D 6S 8H TH JH AS
draw Dee: QD 8S TD
draw Ann: KH
draw Bob: JKH 6D QH 9S
draw Cal: QS 5S AC 4H 5D
draw Ann: 3S 9D 4C TC JKL
discard Ann: 3S 9D KH 4C 6C
1. Ann:KC Bob:5C Cal:9C Dee:2C
2. Ann:JKL Bob:JKH Cal:AC Dee:3C
3. Dee:JC Ann:QC Bob:8C
4. Ann:JS
5. Ann:TC
6. Ann:7C
score NS 9, EW 1
total NS 9, EW 1
"""


T52 = '[Rules "tenpoint52"]\n[Players "Ann Bob Cal Dee"]\n[Teams "NS: Ann Cal; EW: Bob Dee"]\n\n'

# NS shoot the moon in spades and take all ten points: High AS (Ann), Low 2S (Cal), Jack JS,
# off-jack JC, both jokers and the trey 3S in Ann's tricks, Game 21 to 0.  Dee drops out
# after trick 2, Cal after trick 3, Bob after trick 4.  From 0 the score jumps to 52: NS win.
MOON_MADE = T52 + """hand 1
dealer Dee
bids Ann moon, Bob pass, Cal pass, Dee pass
trump S
1. Ann:AS Bob:JKL Cal:2S Dee:4S
2. Ann:KS Bob:JKH Cal:3S Dee:5S
3. Ann:QS Bob:6S Cal:JS
4. Ann:JC Bob:7S
5. Ann:TS
score NS 52, EW 0
total NS 52, EW 0
winner NS
"""


def test_a_made_moon_jumps_to_52_and_wins():
    results, findings = audit(MOON_MADE)
    assert findings == []
    hs = results[0].hands[0]
    assert hs.made == {"NS": 10, "EW": 0} and hs.score == {"NS": 52, "EW": 0} and hs.went_out == "NS"
    assert [o for _, o, _, _ in hs.awards] == ["NS"] * 8


def test_a_made_moon_from_below_zero_only_reaches_zero():
    # hand 1: NS bid 4 in spades and take only Low (2S, Ann's): set back 4.  EW: High AS (Bob),
    # Jack (Dee took JS), off-jack JC and the trey 3S (Bob's and Dee's tricks), Game 11 to 0: 7.
    # hand 2: Cal shoots the moon in hearts and NS take all ten; from -4 the score goes to 0.
    text = T52 + """hand 1
dealer Dee
bids Ann 4, Bob pass, Cal pass, Dee pass
trump S
1. Ann:2S Bob:AS Cal:3S Dee:KS
2. Bob:JS Cal:4S Dee:QS Ann:5S
3. Dee:JC Ann:6S
score NS -4, EW 7
total NS -4, EW 7

hand 2
dealer Ann
bids Bob pass, Cal moon, Dee pass, Ann pass
trump H
1. Cal:AH Dee:4H Ann:2H Bob:5H
2. Cal:KH Dee:6H Ann:JKH Bob:7H
3. Cal:QH Dee:JKL Ann:3H Bob:8H
4. Cal:JH Ann:JD
5. Cal:TH
score NS 4, EW 0
total NS 0, EW 7
"""
    results, findings = audit(text)
    assert findings == []
    assert results[0].hands[1].score == {"NS": 4, "EW": 0} and results[0].winner is None


def test_a_failed_moon_loses_the_game_at_once():
    # as MOON_MADE, but Dee plays the 2S: Low is EW's, NS take 9 of 10 and lose the game
    text = MOON_MADE.replace("Cal:2S Dee:4S", "Cal:4S Dee:2S").replace(
        "score NS 52, EW 0\ntotal NS 52, EW 0\nwinner NS", "score NS -10, EW 1\ntotal NS -10, EW 1\nwinner EW")
    results, findings = audit(text)
    assert findings == []
    assert results[0].winner == "EW" and results[0].hands[0].contract_made is False


def test_a_card_from_a_player_who_dropped_out_is_p407():
    text = MOON_MADE.replace("5. Ann:TS", "5. Ann:TS Bob:9D")
    _, findings = audit(text)
    assert [(f.code, f.trick, f.subject) for f in findings] == [("P407", 5, "Bob")]


def test_a_player_left_out_while_holding_a_trump_is_p402_and_the_lead_passes_left():
    # Bob still plays a trump in trick 4, so leaving him out of trick 3 is P402
    _, findings = audit(MOON_MADE.replace("3. Ann:QS Bob:6S Cal:JS", "3. Ann:QS Cal:JS"))
    assert [(f.code, f.trick) for f in findings][:1] == [("P402", 3)]


# tenpoint, hearts trump: JD is the off-jack, a trump.  Dee throws 5C on a heart lead while
# holding JD (she plays it in trick 2): a revoke.  In trick 2 JD trumps the diamond lead.
OFF_JACK = """[Rules "tenpoint"]
[Players "Ann Bob Cal Dee"]
[Teams "NS: Ann Cal; EW: Bob Dee"]

hand 1
dealer Dee
bids Ann 2, Bob pass, Cal pass, Dee pass
trump H
1. Ann:AH Bob:3H Cal:2H Dee:5C
2. Ann:KD Bob:4D Cal:6D Dee:JD
3. Dee:7S Ann:8S Bob:9S Cal:TS
4. Cal:2C Dee:6C Ann:7C Bob:8C
5. Bob:3C Cal:4C Dee:9C Ann:TC
6. Ann:2S Bob:3S Cal:4S Dee:5S
"""


def test_the_off_jack_is_a_trump_for_following_and_winning():
    results, findings = audit(OFF_JACK)
    assert [(f.code, f.trick, f.subject) for f in findings] == [("R501", 1, "Dee"), ("R503", 1, "Dee")]
    assert "JD" in findings[0].message
    hs = results[0].hands[0]
    assert hs.winners[1] == "Dee"  # JD takes the diamond lead
    assert dict((n, o) for n, o, _, _ in hs.awards)["Off-jack"] == "EW"
    # in a 52-card game JD is just a diamond: no revoke, and Ann's KD takes trick 2 (so Dee's lead is P401)
    plain = OFF_JACK.replace('[Rules "tenpoint"]', '[Rules "partnership"]').replace("trump H\n", "")
    results, findings = audit(plain)
    assert [f.code for f in findings] == ["P401"] and results[0].hands[0].winners[1] == "Ann"


# spades trump.  In trick 3 (hearts led) Bob has no heart and holds the 2S (played in
# trick 4), yet plays 2D.
VOID = """[Rules "setback{keys}"]
[Players "Ann Bob Cal Dee"]

hand 1
dealer Ann
bids Bob 2, Cal pass, Dee pass, Ann pass
1. Bob:AS Cal:JS Dee:3S Ann:4S
2. Bob:3H Cal:4H Dee:5H Ann:AH
3. Ann:KH Bob:2D Cal:8H Dee:TH
4. Ann:AD Bob:2S Cal:3D Dee:4D
5. Bob:2C Cal:3C Dee:4C Ann:AC
6. Ann:KC Bob:5C Cal:6C Dee:7C
"""


@pytest.mark.parametrize("follow,codes", [("", []), (" follow=free-when-void", []), (" follow=strict", ["R501", "R503"])])
def test_a_void_player_must_trump_only_under_strict(follow, codes):
    _, findings = audit(VOID.format(keys=follow))
    assert [f.code for f in findings] == codes
    if codes:
        assert findings[0].subject == "Bob" and findings[0].trick == 3 and "must play a trump" in findings[0].message


PITCHING = """[Rules "partnership pitching=on double_loss=on"]
[Players "Ann Bob Cal Dee"]
[Teams "NS: Ann Cal; EW: Bob Dee"]

hand 1
dealer Dee
bids Ann pass, Bob pitch H, Cal pass, Dee pitch S
1. Dee:AS Ann:2S Bob:3S Cal:4S
2. Dee:KS Ann:5S Bob:6S Cal:7S
3. Dee:2H Ann:AH Bob:KH Cal:QH
4. Ann:2D Bob:3D Cal:4D Dee:5D
5. Dee:2C Ann:3C Bob:4C Cal:5C
6. Cal:6D Dee:7D Ann:8D Bob:9D
score NS 1, EW -8
"""


def test_a_dealer_who_takes_over_a_pitch_and_is_set_loses_double():
    # Dee takes Bob's heart pitch over with spades (4).  EW: High AS, Low 2S (taken by Dee);
    # no jack in play; Game NS 9 (AH KH QH) to EW 7 (AS KS): EW make 2 of 4, set back 2 x 4.
    results, findings = audit(PITCHING)
    assert findings == []
    hs = results[0].hands[0]
    assert hs.takeover and hs.contract == 4 and hs.score == {"NS": 1, "EW": -8}


@pytest.mark.parametrize("bids,subject", [("Ann pass, Bob pitch H, Cal 5, Dee pitch S", "Cal"),
                                          ("Ann pass, Bob pitch H, Cal pass, Dee 4", "Dee"),
                                          ("Ann pass, Bob pitch S, Cal pass, Dee pitch S", "Dee")])
def test_after_a_pitch_only_the_dealer_takes_over_with_a_new_suit_or_a_smudge(bids, subject):
    _, findings = audit(PITCHING.replace("Ann pass, Bob pitch H, Cal pass, Dee pitch S", bids))
    assert ("A309", subject) in [(f.code, f.subject) for f in findings]


def test_pitching_off_makes_a_pitch_no_bid():
    _, findings = audit(PITCHING.replace(" pitching=on double_loss=on", ""))
    assert [f.code for f in findings if f.code.startswith("A")][:2] == ["A304", "A304"]


def test_a_takeover_by_a_number_is_one_a309_and_the_hand_is_judged_as_played():
    # Dee (dealer) takes Bob's pitch over with a plain 4 and pitches spades: one A309, no A307;
    # the hand is scored with Dee's 4 as the contract (EW make 2: set back 8 with double_loss)
    text = PITCHING.replace("Ann pass, Bob pitch H, Cal pass, Dee pitch S", "Ann pass, Bob pitch H, Cal pass, Dee 4")
    results, findings = audit(text)
    assert [(f.code, f.subject) for f in findings] == [("A309", "Dee")]
    hs = results[0].hands[0]
    assert hs.pitcher == "Dee" and hs.contract == 4


def test_a_card_from_a_dropped_out_player_counts_for_nothing():
    # Bob, out, throws the 10 of diamonds into trick 5: P407, and its 10 counts for nobody's Game
    results, findings = audit(MOON_MADE.replace("5. Ann:TS", "5. Ann:TS Bob:TD"))
    assert [f.code for f in findings] == ["P407"]
    assert results[0].hands[0].counts == {"NS": 21, "EW": 0}


def test_a_moon_is_scored_from_the_sheets_total_so_an_earlier_slip_is_not_repeated():
    # hand 1: EW (Dee) bid 4 and take High, the trey and Game (5); NS take Low (Ann's 2S): 1.  NS's total is
    # written one too high (S602).  Hand 2's moon is written from that total: 52 - 2 = 50, which is right.
    text = T52 + """hand 1
dealer Cal
bids Dee 4, Ann pass, Bob pass, Cal pass
trump S
1. Dee:AS Ann:2S Bob:3S Cal:4S
2. Dee:KS Ann:5S Bob:6S Cal:7S
score NS 1, EW 5
total NS 2, EW 5
""" + MOON_MADE.split("\n\n", 1)[1].replace("hand 1", "hand 2").replace(
        "score NS 52, EW 0\ntotal NS 52, EW 0", "score NS 50, EW 0\ntotal NS 52, EW 5")
    results, findings = audit(text)
    assert [(f.code, f.line) for f in findings] == [("S602", 12)]
    assert results[0].winner == "NS"


def test_a_bid_below_the_minimum_with_nobody_else_bidding_is_one_a304_and_no_contract():
    text = MOON_MADE.replace("bids Ann moon, Bob pass, Cal pass, Dee pass", "bids Ann 3, Bob pass, Cal pass, Dee pass")
    results, findings = audit(text.replace("score NS 52, EW 0\ntotal NS 52, EW 0\nwinner NS\n", ""))
    assert [(f.code, f.subject) for f in findings] == [("A304", "Ann")]
    # a bid that is no legal bid is never a contract (only a forced dealer's bid stands as written)
    hand = results[0].hands[0]
    assert (hand.pitcher, hand.contract, hand.status) == ("Ann", 0, "played")


def test_a_pitch_in_one_suit_and_a_lead_in_another_is_p404():
    text = PITCHING.replace("Dee pitch S", "Dee pitch H").replace("Bob pitch H", "Bob pitch D")
    _, findings = audit(text)
    assert [(f.code, f.line) for f in findings] == [("P404", 8)]
    assert "Dee pitched hearts on the bids line, but trump is spades" in findings[0].message


def test_two_draw_lines_swapped_give_what_they_break_and_no_cascade():
    # Bob's and Dee's draws written the other way round: each hand is the wrong size after the draw (D206), and
    # Bob plays a joker the record gave Dee (D204); their hands are then judged from their plays
    swapped = TEN_POINT.replace("draw Dee: QD 8S TD", "draw XX: QD 8S TD").replace(
        "draw Bob: JKH 6D QH 9S", "draw Dee: JKH 6D QH 9S").replace("draw XX:", "draw Bob:")
    _, findings = audit(swapped)
    assert [(f.code, f.subject) for f in findings] == [("D206", "Bob"), ("D206", "Dee"), ("D204", "Bob")]


# Records from a code review: each once crashed the auditor or gave a wrong verdict.

def test_a_trick_with_a_card_too_many_is_reported_not_a_crash():
    text = ('[Rules "auction"]\n[Players "Ann Bob Cal Dee"]\n\nhand 1\ndealer Dee\nbids Ann 2, Bob pass, Cal pass, '
            'Dee pass\n1. Ann:AS Bob:2S Cal:3S Dee:4S Ann:5S\n')
    _, findings = audit(text)
    assert [(f.code, f.subject) for f in findings if f.code == "P402"] == [("P402", "Ann")]
    _, findings = audit(text.replace('"auction"', '"tenpoint52"').replace('[Players "Ann Bob Cal Dee"]',
                                     '[Players "Ann Bob Cal Dee"]\n[Teams "NS: Ann Cal; EW: Bob Dee"]')
                        .replace("Dee pass\n", "Dee pass\ntrump S\n"))
    assert ("P402", "Ann") in [(f.code, f.subject) for f in findings]


def test_a_joker_led_in_a_52_card_game_is_d203_whatever_the_follow_rule():
    text = """[Rules "partnership follow=strict"]
[Players "Ann Bob Cal Dee"]
[Teams "NS: Ann Cal; EW: Bob Dee"]

hand 1
dealer Ann
bids Bob pass, Cal 2, Dee pass, Ann pass
1. Cal:AS Dee:3S Ann:QS Bob:2S
2. Cal:JKL Dee:4S Ann:AH Bob:5S
"""
    _, findings = audit(text)
    assert [f.code for f in findings if f.trick == 2] == ["D203"]


def test_the_free_first_trick_overrides_strict_trumping():
    # hearts led to trick 1 under first_trick_trump=free: Dee, void in hearts, may not trump, so 6C is right
    text = """[Rules "partnership first_trick_trump=free follow=strict"]
[Players "Ann Bob Cal Dee"]
[Teams "NS: Ann Cal; EW: Bob Dee"]

hand 1
dealer Ann
bids Bob pass, Cal 2, Dee pass, Ann pass
trump S
1. Cal:4H Dee:6C Ann:KH Bob:AH
2. Bob:2H Cal:AS Dee:3S Ann:8H
3. Cal:KS Dee:TS Ann:JS Bob:5S
4. Cal:QS Dee:5D Ann:4C Bob:8C
5. Cal:AC Dee:7C Ann:6D Bob:TD
6. Cal:2D Dee:9D Ann:3D Bob:KD
score NS 4, EW 0
"""
    assert audit(text)[1] == []


def test_a_moon_shooter_who_revokes_scores_nothing_and_the_game_goes_on():
    # Cal throws 8D to trick 1 while holding 2S (played in trick 4): NS take all ten points but revoked
    text = MOON_MADE.replace("1. Ann:AS Bob:JKL Cal:2S Dee:4S", "1. Ann:AS Bob:JKL Cal:8D Dee:4S").replace(
        "4. Ann:JC Bob:7S", "4. Ann:JC Bob:7S Cal:2S")
    results, findings = audit(text.replace("score NS 52, EW 0\ntotal NS 52, EW 0\nwinner NS\n", ""))
    assert [(f.code, f.subject) for f in findings] == [("R501", "Cal"), ("R503", "Cal")]
    assert results[0].hands[0].score["NS"] == -10 and results[0].winner is None


def test_more_than_eight_tricks_are_all_replayed():
    tricks = "".join(f"{i + 1}. Ann:{r}S Bob:{r}H Cal:{r}D Dee:{r}C\n" for i, r in enumerate("AKQJT9876"))
    text = ('[Rules "auction hand_size=9 deal_size=9"]\n[Players "Ann Bob Cal Dee"]\n\nhand 1\ndealer Dee\n'
            f'bids Ann 2, Bob pass, Cal pass, Dee pass\n{tricks}')
    results, findings = audit(text)
    hs = results[0].hands[0]
    assert findings == [] and len(hs.winners) == 9 and hs.low_card == "6S"


def test_partnership_teams_are_pairs():
    text = OFF_JACK.replace('[Players "Ann Bob Cal Dee"]\n[Teams "NS: Ann Cal; EW: Bob Dee"]',
                            '[Players "Ann Bob Cal Dee Eve Fay"]\n[Teams "X: Ann Cal Eve; Y: Bob Dee Fay"]')
    assert [f.code for f in audit(text)[1]] == ["E107"]


def test_a_pitched_suit_and_a_trump_line_both_contradicted_by_the_lead_are_one_p404():
    text = PITCHING.replace("Dee pitch S", "Dee pitch H").replace("Bob pitch H", "Bob pitch D").replace(
        "Dee pitch H\n", "Dee pitch H\ntrump H\n")
    assert [f.code for f in audit(text)[1]] == ["P404"]
