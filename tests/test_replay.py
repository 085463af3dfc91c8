"""`auditor replay` rendering: what the director sees, checked on fixed-width consoles."""

from __future__ import annotations

import io
import re

import pytest
from rich.cells import cell_len
from rich.console import Console

from auditor.engine import audit_games
from auditor.notation import parse_text
from auditor.replay import (Layout, build_hand_view, hand_frames, game_frames, render_game, render_hand,
                            render_index, run_steps, split_keys, with_footer)

from .conftest import GOLDEN, NOTATION_EXAMPLE
from .test_engine_variants import MOON_MADE, PITCHING, TEN_POINT

# Dee revokes in trick 2: hearts led, she holds T♥ 7♥ (and the trump 4♠) and plays 7♣.
# Bob bid 2 and made only High, but cannot be set because Dee revoked: he scores 1.
# The sheet sets Bob back 2 instead (S601 for Bob).
REVOKE = """\
[Rules "auction"]
[Players "Ann Bob Cal Dee"]

hand 1
dealer Ann
deal Ann: 2S AH KH QH 8D 9C; Bob: AS 3S 2H 3D 4C 5C; Cal: QS 9H 8H 5D 6C 2C; Dee: JS 4S TH 7H 6D 7C
bids Bob 2, Cal pass, Dee pass, Ann pass
1. Bob:3S Cal:QS Dee:JS Ann:2S
2. Cal:9H Dee:7C Ann:AH Bob:2H
3. Ann:KH Bob:3D Cal:8H Dee:TH
4. Ann:QH Bob:AS Cal:5D Dee:7H
5. Bob:4C Cal:6C Dee:4S Ann:9C
6. Dee:6D Ann:8D Bob:5C Cal:2C
score Ann 2, Bob -2, Cal 1, Dee -2
total Ann 2, Bob -2, Cal 1, Dee -2
"""
REVOKE_WINNERS = ["Cal", "Ann", "Ann", "Bob", "Dee", "Ann"]

# No deal line: every hand is inferred from the cards played.  Dee holds Q♠ in trick 2
# (trumps led) and discards J♣.
INFERRED = """\
[Rules "auction"]
[Players "Ann Bob Cal Dee"]

hand 1
dealer Ann
bids Bob 2, Cal 3, Dee pass, Ann pass
1. Cal:AS Dee:2S Ann:TS Bob:4S
2. Cal:KS Dee:JC Ann:8S Bob:KD
3. Cal:9S Dee:QS Ann:6S Bob:QH
4. Dee:KH Ann:4H Bob:6H Cal:AH
5. Cal:8D Dee:7H Ann:QC Bob:5C
6. Cal:2H Dee:9H Ann:6C Bob:7C
score Ann 0, Bob 0, Cal 2, Dee -3
total Ann 0, Bob 0, Cal 2, Dee -3
"""

# The short trick form: seats are assigned from each trick's leader.
SHORT_FORM = """\
[Rules "auction"]
[Players "Ann Bob Cal Dee"]

hand 1
dealer Bob
bids Cal 2, Dee pass, Ann 3, Bob pass
1. AC JC 9C 4C
2. KC QD 6C AS
3. TC JS KS 5S
4. 7C 9S JH TS
5. KD 8H 6S 9H
6. 3H 2S 7H 6H
score Ann 3, Bob 0, Cal 0, Dee 1
total Ann 3, Bob 0, Cal 0, Dee 1
"""

PARTNERSHIP = """\
[GameId "club-7"]
[Rules "partnership"]
[Players "Ann Bob Cal Dee"]
[Teams "NS: Ann Cal; EW: Bob Dee"]

hand 1
dealer Cal
deal Ann: TS JD QD 5C 6C JC; Bob: JS KS AH 7D 8C QC; Cal: 5H 7H 9H 8D KD 7C; Dee: 4S 6S 3H 8H TH JH
bids Dee 4, Ann pass, Bob pass, Cal pass
1. Dee:JH Ann:5C Bob:AH Cal:5H
2. Bob:KS Cal:7H Dee:8H Ann:TS
3. Dee:TH Ann:6C Bob:7D Cal:9H
4. Dee:6S Ann:JD Bob:JS Cal:7C
5. Bob:8C Cal:8D Dee:3H Ann:JC
6. Dee:4S Ann:QD Bob:QC Cal:KD
score NS 0, EW 4
total NS 0, EW 4
"""

# The selling auction counts down from 10; Bob sold for 3 and the sheet gives him 5.
SELL = """\
[Rules "sell"]
[Players "Ann Bob Cal Dee"]

hand 1
dealer Ann
deal Ann: 6S 5D 9D QD 7C 8C; Bob: 4H 8H KH 8D 4C QC; Cal: 9S 7H 4D AD 6C TC; Dee: 5S 3H TH JH JD JC
bids Cal 3, Dee pass, Ann pass, Bob sells
1. Cal:AD Dee:JD Ann:5D Bob:8D
2. Cal:4D Dee:3H Ann:9D Bob:4H
3. Ann:QD Bob:4C Cal:6C Dee:5S
4. Ann:8C Bob:QC Cal:TC Dee:JC
5. Bob:KH Cal:7H Dee:TH Ann:6S
6. Bob:8H Cal:9S Dee:JH Ann:7C
score Ann 0, Bob 5, Cal 3, Dee 0
total Ann 10, Bob 5, Cal 7, Dee 10
"""

# Two hands: the notation's example (S601 for Cal and Dee, the sheet's totals follow its
# own scores), then the revoke hand dealt by Bob with a slip on Dee's total (S602).
TWO_HANDS = NOTATION_EXAMPLE + """
hand 2
dealer Bob
deal Ann: 2S AH KH QH 8D 9C; Bob: AS 3S 2H 3D 4C 5C; Cal: QS 9H 8H 5D 6C 2C; Dee: JS 4S TH 7H 6D 7C
bids Cal pass, Dee pass, Ann pass, Bob 2
1. Bob:3S Cal:QS Dee:JS Ann:2S
2. Cal:9H Dee:7C Ann:AH Bob:2H
3. Ann:KH Bob:3D Cal:8H Dee:TH
4. Ann:QH Bob:AS Cal:5D Dee:7H
5. Bob:4C Cal:6C Dee:4S Ann:9C
6. Dee:6D Ann:8D Bob:5C Cal:2C
score Ann 2, Bob 1, Cal 1, Dee -2
total Ann 5, Bob 1, Cal 2, Dee -3
"""

MISDEAL = """\
[Rules "auction"]
[Players "Ann Bob Cal Dee"]

hand 1
dealer Ann
misdeal
"""


def view_of(text: str, number: int = 1, override: str = ""):
    games, problems = parse_text(text, "t.pitch")
    result = audit_games(games, override)[0]
    return build_hand_view(games[0], result, number, problems)


def game_of(text: str):
    games, problems = parse_text(text, "t.pitch")
    return games[0], audit_games(games)[0], problems


def show(renderable, width: int = 100) -> str:
    """What a console of ``width`` columns, not a terminal, prints."""
    console = Console(width=width, file=io.StringIO(), color_system=None, legacy_windows=False)
    console.print(renderable)
    return console.file.getvalue()


def plain_lines(text: str) -> list[str]:
    return [line.rstrip() for line in text.splitlines()]


def section(text: str, start: str, end: str) -> str:
    """The part of ``text`` from the line holding ``start`` up to the one holding ``end``."""
    i = text.index(start)
    return text[i:text.index(end, i + len(start))]


# --------------------------------------------------------------------------- one hand


def test_each_trick_names_its_winner_and_led_suit():
    out = show(render_hand(view_of(REVOKE), Layout(100)), 100)
    headings = re.findall(r"Trick (\d) of 6 · \S (\w+) led · won by (\w+)", out)
    assert [int(n) for n, _, _ in headings] == [1, 2, 3, 4, 5, 6]
    assert [w for _, _, w in headings] == REVOKE_WINNERS
    assert [s for _, s, _ in headings] == ["spades", "hearts", "hearts", "hearts", "clubs", "diamonds"]
    # the winning card is marked in its row
    assert re.search(r"Cal\s+Q♠\s+wins", out) and re.search(r"Bob\s+A♠\s+wins High", out)


def test_the_winners_agree_with_the_engine():
    games, _ = parse_text(REVOKE, "t.pitch")
    result = audit_games(games)[0]
    view = build_hand_view(games[0], result, 1)
    assert [t.winner for t in view.tricks] == result.hands[0].winners == REVOKE_WINNERS


def test_what_each_trick_carries():
    out = show(render_hand(view_of(REVOKE), Layout(100)), 100)
    first = section(out, "Trick 1 of 6", "Trick 2 of 6")
    assert "Carries: Jack J♠ → Cal · Low 2♠ → Ann (its holder) · Game count 3 (Q♠ 2, J♠ 1)" in first
    third = section(out, "Trick 3 of 6", "Trick 4 of 6")
    assert "Carries: Game count 13 (K♥ 3, T♥ 10)" in third
    fifth = section(out, "Trick 5 of 6", "Trick 6 of 6")
    assert "Carries: Game count 0" in fifth


def test_cards_left_in_every_hand_after_each_trick():
    view = view_of(REVOKE)
    out = show(render_hand(view, Layout(100)), 100)
    second = section(out, "Trick 2 of 6", "Trick 3 of 6")
    # after trick 2 each player holds four cards, trumps first
    assert re.search(r"Dee\s+7♣\s+✗ R501\s+4♠ T♥ 7♥ 6♦", second)
    assert re.search(r"Bob\s+2♥\s+A♠ 3♦ 5♣ 4♣", second)
    last = section(out, "Trick 6 of 6", "Points")
    assert last.count("—") == 4  # every hand is empty at the end
    assert view.tricks[-1].after == {p: 0 for p in ("Ann", "Bob", "Cal", "Dee")}


def test_the_revoke_is_marked_at_its_card_with_the_cards_to_follow_with():
    view = view_of(REVOKE)
    out = show(render_hand(view, Layout(100)), 100)
    marked = [line for line in plain_lines(out) if "✗ R501" in line]
    # once in the trick's table, once in front of the explanation; nowhere else
    assert len(marked) == 2 and "7♣" in marked[0]
    second = section(out, "Trick 2 of 6", "Trick 3 of 6")
    assert "Dee plays 7C to trick 2" in second
    assert ("→ Dee held T♥ 7♥ of ♥ hearts, the suit led, and should have followed with one of them or "
            "trumped (4♠)") in " ".join(second.split())
    revoke = view.tricks[1].plays[1]
    assert (revoke.player, [f.code for f in revoke.findings]) == ("Dee", ["R501"])


def test_a_revoke_on_a_trump_lead_names_the_trump_to_follow_with():
    out = show(render_hand(view_of(INFERRED), Layout(80)), 80)
    assert "→ Dee held Q♠ of ♠ spades, the suit led, and should have followed with it" in out
    assert "or trumped" not in out  # trumps were led: following suit is the only way


def test_hands_inferred_when_there_is_no_deal_line():
    view = view_of(INFERRED)
    out = show(render_hand(view, Layout(80)), 80)
    assert "(no deal line for every hand: inferred from the cards played)" in out
    assert re.search(r"Dee\s+Q♠ 2♠ K♥ 9♥ 7♥ J♣", out)  # trumps first, by rank within each suit
    assert view.inferred == ("Ann", "Bob", "Cal", "Dee")


def test_short_form_tricks_are_seated_from_the_leader():
    out = show(render_hand(view_of(SHORT_FORM), Layout(80)), 80)
    first = section(out, "Trick 1 of 6", "Trick 2 of 6")
    assert [re.match(r"(\w+)\s+(\S+)", line).groups() for line in plain_lines(first)[2:6]] == [
        ("Ann", "A♣"), ("Bob", "J♣"), ("Cal", "9♣"), ("Dee", "4♣")]


def test_the_points_say_who_and_why():
    out = show(render_hand(view_of(REVOKE), Layout(80)), 80)
    points = " ".join(out[out.index("Points"):].split())
    assert "High Bob held A♠, the highest trump in play" in points
    assert "Low Ann held 2♠, the lowest trump in play (Low goes to its holder)" in points
    assert "Jack Cal took J♠ in trick 1" in points
    assert "Game Ann the most Game count (Ann 17, Bob 6, Cal 3, Dee 0)" in points
    assert ("Contract: Bob bid 2, made 1: short, but not set: a pitcher cannot be set in a hand where someone "
            "else revoked; scores 1.") in points
    assert "Penalty: Dee revoked (trick 2): scores nothing and goes back 2 (the bid)." in points


def test_recorded_against_recomputed_scores_and_totals():
    out = show(render_hand(view_of(REVOKE), Layout(80)), 80)
    rows = {line.split()[0]: line.split()[1:] for line in plain_lines(out[out.index("made  score"):])[1:5]}
    # made, score, sheet's score, total, sheet's total
    assert rows["Bob"] == ["1", "1", "-2", "✗", "1", "-2", "✗"]
    assert rows["Dee"] == ["0", "-2", "-2", "-2", "-2"]
    assert "✗ S601 line 14:14 Bob: recorded -2, expected 1" in out


def test_a_clean_sheet_says_so():
    out = show(render_hand(view_of(SHORT_FORM), Layout(80)), 80)
    assert "The sheet agrees with the recomputed score." in out
    assert "✗" not in out


def test_the_notation_example_places_its_s601_with_the_points():
    view = view_of(NOTATION_EXAMPLE)
    assert [(f.code, f.subject) for f in view.score_findings] == [("S601", "Cal"), ("S601", "Dee")]
    assert all(not p.findings for t in view.tricks for p in t.plays)
    out = show(render_hand(view, Layout(80)), 80)
    assert re.search(r"Cal\s+0\s+0\s+1 ✗\s+0\s+1 ✗", out)


def test_partnership_teams_and_low_to_the_taker():
    view = view_of(PARTNERSHIP)
    out = " ".join(show(render_hand(view, Layout(100)), 100).split())
    assert "Teams: NS Ann & Cal; EW Bob & Dee" in out
    assert "Ann (NS) J♣ T♠ Q♦ J♦ 6♣ 5♣" not in out  # the deal is sorted, trumps first
    assert "Dee (EW) J♥ T♥ 8♥ 3♥ 6♠ 4♠" in out
    hs = view.score
    assert "Contract: EW (Dee) bid 4, made" in out
    assert f"Low {hs.low} " in out and "(Low goes to the taker)" in out
    assert re.search(r"NS\s+\d+\s+-?\d+\s+0\s+", out) and re.search(r"EW\s+\d+\s+-?\d+\s+4\s+", out)


def test_a_sale_and_a_count_down_sheet():
    out = show(render_hand(view_of(SELL), Layout(80)), 80)
    flat = " ".join(out.split())
    assert "Ann sells to Cal for 3" not in flat and "Bob sells to Cal for 3: Bob scores 3 at once" in flat
    assert "(totals: points still needed)" in flat
    header = next(line for line in plain_lines(out) if "made  score" in line)
    assert header.split() == ["made", "score", "sheet", "needs", "sheet"]
    assert re.search(r"Bob\s+1\s+4\s+5 ✗\s+6\s+5 ✗", out)


def test_a_misdeal_is_one_short_screen():
    view = view_of(MISDEAL)
    out = show(render_hand(view, Layout(80)), 80)
    assert "Misdeal: the deal is void and passes to the left." in out
    assert "Trick" not in out and "Hands as dealt" not in out
    assert [f.label for f in hand_frames(view)] == ["misdeal"]


def test_smear_the_jick_is_sorted_and_named_among_the_trumps():
    text = (GOLDEN / "smear" / "clean_jick_follows_trump.pitch").read_text()
    out = show(render_hand(view_of(text), Layout(100)), 100)
    # hearts trump: Cal's J♦ is a trump, shown first in his hand, and named on the trumps line
    assert re.search(r"Cal \(NS\)\s+J♦ K♠ 8♠ 7♠ 6♦ 4♣", out)
    assert "trumps first: ♥ hearts, and the Jick J♦" in out
    first = section(out, "Trick 1 of 6", "Trick 2 of 6")
    assert "Carries: Jick J♦ → Bob · Low 4♥ → Dee (its holder)" in first
    points = section(out, "Points", "Scores")
    assert re.search(r"Jick\s+EW", points)


def test_smear_an_all_pass_spells_out_the_dealers_set_back():
    text = (GOLDEN / "smear" / "clean_all_pass_dealer_set_back.pitch").read_text()
    view = view_of(text)
    out = " ".join(show(render_hand(view, Layout(80)), 80).split())
    assert ("Everybody passed: the hand is not played, and the dealer Ann's side NS is set back 2 "
            "(all_pass=dealer-set-back).") in out
    assert re.search(r"NS\s+—\s+-2\s+-2\s+-2\s+-2", show(render_hand(view, Layout(80)), 80))


def test_a_missing_hand_is_a_lookup_error():
    games, _ = parse_text(REVOKE, "t.pitch")
    with pytest.raises(LookupError):
        build_hand_view(games[0], audit_games(games)[0], 9)


# --------------------------------------------------------------------------- width and plain text


@pytest.mark.parametrize("width", [60, 100])
@pytest.mark.parametrize("text", [REVOKE, PARTNERSHIP, SELL, TWO_HANDS])
def test_no_line_is_wider_than_the_console(width, text):
    view = view_of(text)
    frames = hand_frames(view, by_card=True)
    game, result, problems = game_of(text)
    drawings = [render_hand(view, Layout(width)), render_game(game, result, Layout(width), problems),
                *(with_footer(f, i, len(frames), Layout(width)) for i, f in enumerate(frames))]
    for d in drawings:
        out = show(d, width)
        assert max(cell_len(line.rstrip()) for line in out.splitlines()) <= width


def test_the_wide_layout_puts_panels_side_by_side():
    view = view_of(REVOKE)
    narrow, wide = show(render_hand(view, Layout(60)), 60), show(render_hand(view, Layout(120)), 120)
    assert any("Hands as dealt" in line and "The auction" in line for line in wide.splitlines())
    assert not any("Hands as dealt" in line and "The auction" in line for line in narrow.splitlines())
    assert len(narrow.splitlines()) > len(wide.splitlines())


def test_plain_text_keeps_the_suits_and_has_no_escapes():
    out = show(render_hand(view_of(REVOKE), Layout(80)), 80)
    assert "\x1b" not in out
    assert all(sym in out for sym in "♠♥♦♣")


def test_without_symbols_cards_are_letters():
    out = show(render_hand(view_of(REVOKE), Layout(80, symbols=False)), 80)
    assert not any(sym in out for sym in "♠♥♦♣✗→·—")
    assert re.search(r"Dee\s+7C\s+X R501", out)


def test_on_a_colour_terminal_the_suits_are_coloured():
    console = Console(width=80, file=io.StringIO(), color_system="standard", force_terminal=True)
    console.print(render_hand(view_of(REVOKE), Layout(80)))
    out = console.file.getvalue()
    assert "\x1b[1;31mA♥" in out  # hearts in red
    assert "\x1b[1;34m" in out and "\x1b[1;32m" in out  # diamonds blue, clubs green: a four-colour deck


# --------------------------------------------------------------------------- steps


def test_step_frames_one_trick_at_a_time():
    view = view_of(REVOKE)
    frames = hand_frames(view)
    assert [f.label for f in frames] == ["deal and auction", *(f"trick {n}" for n in range(1, 7)), "points"]
    first = show(with_footer(frames[0], 0, len(frames), Layout(80)), 80)
    assert "Hands as dealt" in first and "Bids: Bob 2 · Cal pass · Dee pass · Ann pass" in first
    assert "trump" not in first.splitlines()[0]  # not named before the first lead
    assert re.search(r"Bob\s+A♠ 3♠ 2♥ 3♦ 5♣ 4♣", first)  # plain suit order until trump is known
    assert "step 1/8: deal and auction · Space next · b back · q quit" in first
    second = show(with_footer(frames[2], 2, len(frames), Layout(80)), 80)
    assert "Trick 2 of 6" in second and "Trick 1 of 6" not in second
    assert "1. Bob 3♠, Cal Q♠, Dee J♠, Ann 2♠ → Cal (Game 3)" in second
    assert re.search(r"Dee\s+4♠ T♥ 7♥ 6♦", second)  # left in every hand after the trick
    last = show(with_footer(frames[-1], len(frames) - 1, len(frames), Layout(80)), 80)
    assert "6. Dee 6♦, Ann 8♦, Bob 5♣, Cal 2♣ → Ann" in last and "Jack Cal took J♠ in trick 1" in last
    assert "the end: b back · q quit" in last


def test_step_frames_one_card_at_a_time():
    view = view_of(REVOKE)
    frames = hand_frames(view, by_card=True)
    assert len(frames) == 1 + 24 + 1
    assert frames[6].label == "trick 2, card 2"
    out = show(frames[6].draw(Layout(80)), 80)
    assert "Trick 2 of 6 · ♥ hearts led · 2 of 4 cards played · Ann to play" in out
    assert re.search(r"Dee\s+7♣\s+✗ R501", out)  # the mark appears with the card
    assert "should have followed with one of them" in " ".join(out.split())
    assert re.search(r"Cal\s+9♥\s+best so far", out)
    assert re.search(r"Dee\s+4♠ T♥ 7♥ 6♦", out)  # Dee's hand just after the revoke


def test_step_frames_fit_the_screen_height():
    frames = hand_frames(view_of(REVOKE))
    out = show(with_footer(frames[6], 6, len(frames), Layout(60, height=20)), 60)
    lines = out.splitlines()
    assert len(lines) <= 20 - 1  # the cursor's row stays free, so the title does not scroll away
    assert lines[0].startswith("t.pitch#1 · hand 1") and lines[-1].startswith("step 7/8: trick 6")
    assert "Trick 6 of 6" in out and "earlier tricks not shown: b goes back" in out
    assert "5. Bob 4♣, Cal 6♣, Dee 4♠, Ann 9♣ → Dee" in out  # the latest tricks are the ones kept


def test_keys_move_through_the_steps():
    shown: list[int] = []
    keys = split_keys(" \r\x1b[C") + split_keys("b\x1b[D") + ["x", "G", "g", "q", " "]
    assert run_steps(8, shown.append, keys) == 0
    assert shown == [0, 1, 2, 3, 2, 1, 7, 0]


# --------------------------------------------------------------------------- a whole game


def test_the_score_sheet_sets_recorded_beside_recomputed_totals():
    game, result, problems = game_of(TWO_HANDS)
    out = show(render_game(game, result, Layout(100), problems), 100)
    rows = [line.split() for line in plain_lines(out) if re.match(r"\s*[12] ", line)]
    # hand, pitcher, bid, verdict, then sheet and calc for Ann, Bob, Cal, Dee, then codes
    assert rows[0] == ["1", "Ann", "3", "made", "3", "3", "0", "0", "1✗", "0", "0✗", "1", "S601"]
    assert rows[1] == ["2", "Bob", "2", "short", "5", "5", "1", "1", "2✗", "1", "-3✗", "-1", "R501", "R503", "S602"]


def test_the_narrow_score_sheet_shows_the_sheet_under_a_difference():
    game, result, problems = game_of(TWO_HANDS)
    out = show(render_game(game, result, Layout(60), problems), 60)
    assert "recomputed; where the sheet differs, its figure is under, marked ✗" in " ".join(out.split())
    lines = plain_lines(out)
    i = next(i for i, line in enumerate(lines) if re.match(r"\s*2 Bob 2 short", line))
    assert lines[i].split()[4:8] == ["5", "1", "1", "-1"]
    assert lines[i + 1].split() == ["sheet", "2✗", "sheet", "-3✗"]


def test_the_chart_draws_every_total_on_one_scale():
    game, result, problems = game_of(TWO_HANDS)
    out = show(render_game(game, result, Layout(80), problems), 80)
    assert "Chart: running totals over hands 1-2, lowest -3, highest 5" in out
    chart = {line.split()[0] + " " + line.split()[1]: line.split()[2:] for line in plain_lines(out)
             if re.match(r"(Ann|Bob|Cal|Dee) calc", line)}
    # eight levels from -3 to 5: Ann's 3 then 5, Dee's 1 then -1
    assert chart["Ann calc"] == ["▆█", "5"] and chart["Dee calc"] == ["▅▃", "-1"]
    sheet_rows = [line.split() for line in plain_lines(out) if line.split()[:1] == ["sheet"]]
    assert sheet_rows == [["sheet", "▅▅", "2✗"], ["sheet", "▄▁", "-3✗"]]  # only Cal's and Dee's differ


def test_the_game_says_who_went_out_and_what_the_sheet_says():
    game, result, problems = game_of(TWO_HANDS)
    out = show(render_game(game, result, Layout(80), problems), 80)
    assert "Recomputed: nobody has gone out." in out and "The sheet names no winner." in out
    assert "5 findings in the hands" in out  # S601 twice in hand 1; R501, its R503 and S602 in hand 2


def test_a_game_walk_steps_through_its_hands():
    game, result, problems = game_of(TWO_HANDS)
    frames = game_frames(game, result, problems)
    assert [f.label for f in frames] == ["score sheet", "hand 1", "hand 2"]
    out = show(frames[2].draw(Layout(80)), 80)
    assert "hand 2" in out.splitlines()[0] and "Penalty: Dee revoked (trick 2)" in out


def test_the_index_lists_games_and_the_hands_with_findings():
    games, problems = parse_text(TWO_HANDS + "\n" + PARTNERSHIP, "club.pitch")
    results = audit_games(games)
    out = show(render_index("club.pitch", games, results, problems, Layout(80)), 80)
    assert "club.pitch: 2 games" in out
    assert re.search(r"1\s+club.pitch#1\s+auction\s+2\s+1: S601; 2: R501 R503 S602", out)
    assert re.search(r"2\s+club-7\s+partnership\s+1\s+none", out)


def test_the_sheet_line_of_the_chart_is_dotted_where_it_agrees():
    text = TWO_HANDS.replace("score Ann 3, Bob 0, Cal 1, Dee 0\ntotal Ann 3, Bob 0, Cal 1, Dee 0",
                             "score Ann 3, Bob 0, Cal 0, Dee 1\ntotal Ann 3, Bob 0, Cal 0, Dee 1")
    text = text.replace("total Ann 5, Bob 1, Cal 2, Dee -3", "total Ann 5, Bob 1, Cal 1, Dee -3")
    game, result, problems = game_of(text)
    out = show(render_game(game, result, Layout(80), problems), 80)
    sheet_rows = [line.split() for line in plain_lines(out) if line.split()[:1] == ["sheet"]]
    assert sheet_rows == [["sheet", "·▁", "-3✗"]]  # only Dee's total differs, and only after hand 2


def test_a_total_wrong_since_an_earlier_hand_is_pointed_there():
    view = view_of(TWO_HANDS, number=2)
    out = " ".join(show(render_hand(view, Layout(80)), 80).split())
    # hand 1's slip (S601 for Cal and Dee) carries into hand 2's totals
    assert "The sheet's total for Cal, Dee already differed before this hand" in out
    assert "✗ S602 line 29:28 Dee: total written -3" in out




def test_ten_point_hand_shows_jokers_off_jack_drop_outs_and_every_point():
    game = parse_text(TEN_POINT)[0][0]
    result = audit_games([game])[0]
    assert result.findings == []
    text = show(render_hand(build_hand_view(game, result, 1)), 100)
    lines = plain_lines(text)
    assert any(re.match(r"Ann \(NS\)\s+K♣ Q♣ J♠ 7♣ 6♣ T♠ A♥ K♦ J♦", x) for x in lines)  # off-jack among the trumps
    assert any("Widow:" in x and "JKH" in x for x in lines)
    assert any(x.startswith("Trick 3 of 6") and "out (no trumps): Cal" in x for x in lines)
    assert any(re.match(r"Cal\s+—\s+out: no trumps", x) for x in lines)
    assert any(re.match(r"Ann\s+JKL\s+Low joker", x) for x in lines)
    assert any(re.match(r"Ann\s+J♠\s+wins Off-jack", x) for x in lines)
    for point, owner, why in [("Off-jack", "NS", "Ann took J♠ in trick 4"), ("High joker", "NS", "Cal took JKH"),
                              ("Low joker", "NS", "Cal took JKL"), ("Trey (3)", "NS", "Cal took 3♣ in trick 2"),
                              ("High", "NS", "Cal held A♣"), ("Low", "EW", "Dee held 2♣"),
                              ("Game", "NS", "NS 21, EW 0")]:
        assert any(re.match(rf"{re.escape(point)}\s+{owner}\s.*{re.escape(why)}", x) for x in lines), point
    assert any("bid 7, made 9: made it, scores 9" in x for x in lines)


def test_revoke_help_under_trumps_only_names_the_trumps_held():
    # Bob plays 9♠ to trick 1 while holding 5♣ and the high joker: R501, and the replay says what he held
    text = TEN_POINT.replace("1. Ann:KC Bob:5C", "1. Ann:KC Bob:9S").replace("2. Ann:JKL Bob:JKH Cal:AC Dee:3C",
                                                                            "2. Ann:JKL Bob:5C Cal:AC Dee:3C")
    game = parse_text(text)[0][0]
    result = audit_games([game])[0]
    r501 = [f for f in result.findings if f.code == "R501"]
    assert [(f.trick, f.subject) for f in r501] == [(1, "Bob")]
    lines = plain_lines(show(render_hand(build_hand_view(game, result, 1)), 120))
    assert any("Bob held" in x and "JKH" in x and "only trumps may be played" in x for x in lines)


def test_a_dealer_takeover_and_its_double_loss_are_spelt_out():
    game, result, _ = game_of(PITCHING)
    out = " ".join(show(render_hand(build_hand_view(game, result, 1)), 100).split())
    assert "Bids: Ann pass · Bob pitch H · Cal pass · Dee pitch S" in out
    assert "Dee, the dealer, takes over the pitch: contract 4; if set, the side loses double." in out
    assert "bid 4, made 2: set, goes back 8 (double: the dealer took over a pitch)." in out


def test_a_made_and_a_failed_moon_are_spelt_out():
    hand = MOON_MADE.split("score NS 52")[0]
    game, result, _ = game_of(hand + "score NS 52, EW 0\n")
    out = " ".join(show(render_hand(build_hand_view(game, result, 1)), 100).split())
    assert "bid 10 (moon), made 10: made it, scores 52: shooting the moon, the score jumps from 0 to 52." in out
    game, result, _ = game_of(hand.replace("Cal:2S Dee:4S", "Cal:4S Dee:2S") + "score NS -10, EW 1\n")
    out = " ".join(show(render_hand(build_hand_view(game, result, 1)), 100).split())
    assert "bid 10 (moon), made 9: set, goes back 10." in out
    assert "NS shot the moon and failed, so EW win the game." in out


# --------------------------------------------------------------------------- revokes called at the table, claims


def test_a_revoke_called_at_the_table_is_shown_at_its_trick_with_the_verdict():
    # the call the record bears out: Dee revoked in trick 2
    called = REVOKE.replace("1. Bob:3S", "revoke Dee trick 2\n1. Bob:3S")
    view = view_of(called)
    assert [c.player for c in view.tricks[1].calls] == ["Dee"] and view.calls == []
    out = " ".join(show(render_hand(view, Layout(100)), 100).split())
    second = " ".join(section(show(render_hand(view, Layout(100)), 100), "Trick 2 of 6", "Trick 3 of 6").split())
    assert ("revoke called at the table line 8:8 Dee in trick 2 · the record bears it out: Dee revoked in trick 2 "
            "(R501, line 10:11)") in second
    assert out.count("revoke called at the table") == 1
    # a call the record does not bear out: Cal followed suit in trick 3; the R502 follows the call
    wrong = REVOKE.replace("1. Bob:3S", "revoke Cal trick 3\n1. Bob:3S")
    third = " ".join(section(show(render_hand(view_of(wrong), Layout(100)), 100), "Trick 3 of 6",
                             "Trick 4 of 6").split())
    assert "revoke called at the table line 8:8 Cal in trick 3 · the record does not bear it out (R502 below)" \
        in third
    assert third.index("revoke called") < third.index("R502 line 8:8")
    # a call without a trick goes to the caller's revoke in the record
    untimed = REVOKE.replace("1. Bob:3S", "revoke Dee\n1. Bob:3S")
    assert [c.player for c in view_of(untimed).tricks[1].calls] == ["Dee"]
    # one naming a trick the record does not have is shown with the points, unruled
    late = REVOKE.replace("1. Bob:3S", "revoke Ann trick 9\n1. Bob:3S")
    v = view_of(late)
    assert [c.player for c in v.calls] == ["Ann"]
    assert "revoke called at the table line 8:8 Ann in trick 9" in " ".join(show(render_hand(v, Layout(100)),
                                                                                   100).split())


def test_the_replay_says_from_which_trick_the_hand_was_decided(tmp_path):
    """`replay --hand` shows the analysis's claim at its trick, and again under --analyze."""
    from typer.testing import CliRunner

    from auditor.cli import app
    from auditor.engine import analyze_games

    log = tmp_path / "revoke.pitch"
    log.write_text(REVOKE)
    games, _ = parse_text(REVOKE, str(log))
    (a,) = analyze_games(games)[0]
    assert a.claim is not None and 1 <= a.claim <= 6
    r = CliRunner().invoke(app, ["replay", str(log), "--hand", "1", "--width", "100"])
    assert r.exit_code == 0
    text = r.stdout
    at = text.index(f"From trick {a.claim} the hand was decided: claim")
    assert text.index(f"Trick {a.claim} of 6") > at  # just before its trick
    assert a.claim == 1 or text.index(f"Trick {a.claim - 1} of 6") < at
    r = CliRunner().invoke(app, ["replay", str(log), "--hand", "1", "--width", "100", "--analyze"])
    assert r.stdout.count(f"From trick {a.claim} the hand was decided: claim") == 2
