"""Perfect play: par, each card's cost, the claim, and what a revoke cost (``auditor.engine.analyze_games``).

The solver itself is checked in the core against an exhaustive minimax on thousands of random
endings and against the solver it replaced on whole hands (``core/src/engine/solver/tests.rs``);
these tests check what users see.
"""

from __future__ import annotations

import json

import pytest


from auditor.engine import analyze_games, analyze_log, audit_games
from auditor.notation import parse_file, parse_text
from auditor.simulate import simulate

from .conftest import GOLDEN
from .test_cli_core import app, invoke, runner

JACK_ESCAPES = GOLDEN / "partnership" / "R503_jack_escapes.pitch"
COSTS_NOTHING = GOLDEN / "partnership" / "R503_costs_nothing.pitch"


def analysed(path):
    games, _ = parse_file(path)
    return [a for hands in analyze_games(games) for a in hands]


def test_a_revoke_that_lets_the_jack_escape_cost_the_innocent_side_the_jack():
    (a,) = analysed(JACK_ESCAPES)
    (r,) = a.revokes
    # worked out by hand in the file's header: with JS played to trick 1, NS take all four points
    assert (r.revoker, r.innocent, r.sure, r.took, r.damage) == ("Bob", ("NS",), 4, 3, 1)
    assert r.line[0] == ("Bob", "JS")
    games, _ = parse_file(JACK_ESCAPES)
    (f,) = [f for res in audit_games(games) for f in res.findings if f.code == "R503"]
    assert "cost NS 1 point: had Bob played a legal card (JS), NS were sure to take 4 points" in f.message
    assert "line: 1. Ann:AS Bob:JS Cal:2S Dee:3S; 2. Ann:KS" in f.message
    # after the revoke Ann leads AD and Bob trumps it with the Jack: a KS lead would have caught it
    assert [(m.trick, m.player, m.card, m.cost, m.best) for m in a.mistakes] == [(2, "Ann", "AD", 1, ("QS", "KS"))]


def test_a_revoke_that_gained_nothing_says_so_and_the_hand_keeps_its_value():
    (a,) = analysed(COSTS_NOTHING)
    (r,) = a.revokes
    assert (r.sure, r.took, r.damage) == (4, 4, 0)
    games, _ = parse_file(COSTS_NOTHING)
    (f,) = [f for res in audit_games(games) for f in res.findings if f.code == "R503"]
    assert "the revoke by Bob in trick 2 cost NS nothing" in f.message
    # no card changed the value: par 4 before the first lead, 4 after every card
    assert a.par == a.result == 4 and a.mistakes == ()
    assert {p.before for p in a.plays} == {p.after for p in a.plays} == {4}
    # after trick 1 takes EW's only trump, every line gives NS all four points
    assert a.claim == 2


PRESETS = ["auction", "sell", "setback", "partnership", "cutthroat", "smear", "tenpoint"]


@pytest.fixture(scope="module")
def simulated():
    out = {}
    for preset in PRESETS:
        text, _ = simulate(preset, games=2, seed=5)
        games, _ = parse_text(text, preset)
        out[preset] = (games, audit_games(games), analyze_games(games, jobs=2))
    return out


@pytest.mark.parametrize("preset", PRESETS)
def test_the_value_after_the_last_card_is_the_hand_score(simulated, preset):
    games, results, analyses = simulated[preset]
    checked = 0
    for res, hands in zip(results, analyses):
        scores = {h.hand: h for h in res.hands}
        for a in hands:
            assert a.not_analysable is None, a.not_analysable
            hs = scores[a.hand]
            assert a.result == hs.score[a.pitcher_side], (a.game, a.hand)
            assert a.plays[-1].after == a.result and a.plays[0].before == a.par
            # each card's cost is the change of value for its player's side
            side = {p: res.sides[i] for i, p in enumerate(res.game.players)} if not res.rules.partnership else \
                {p: t for t, ps in res.game.teams.items() for p in ps}
            for p in a.plays:
                sign = 1 if side[p.player] == a.pitcher_side else -1
                assert p.cost == sign * (p.before - p.after)
            checked += 1
    assert checked >= 8


def perfect_record(text: str, a, players: list[str]) -> str:
    """The first hand of ``text`` with its tricks replaced by the solver's perfect line."""
    head, _, rest = text.partition("\nhand ")
    body = ("hand " + rest).split("\n1. ")[0]
    n = len(players)
    tricks, trick = [], []
    for player, card in a.perfect:
        trick.append(f"{player}:{card}")
        if len(trick) == n:
            tricks.append(f"{len(tricks) + 1}. " + " ".join(trick))
            trick = []
    return head + "\n" + body + "\n" + "\n".join(tricks) + "\n"


@pytest.mark.parametrize("preset", ["auction", "partnership", "smear"])
def test_a_hand_played_perfectly_keeps_its_value_and_has_no_mistakes(preset):
    text, _ = simulate(preset, games=1, seed=9)
    games, _ = parse_text(text)
    first = next(a for a in analyze_games(games)[0] if a.hand == games[0].hands[0].number)
    record = perfect_record(text, first, games[0].players)
    games2, problems = parse_text(record)
    (again,) = [a for a in analyze_games(games2)[0]]
    assert again.par == first.par and again.mistakes == ()
    assert {p.before for p in again.plays} == {p.after for p in again.plays} == {first.par}
    assert again.result == first.par
    # and the audit finds the perfect line legal: no play or revoke findings
    assert not [f for r in audit_games(games2) for f in r.findings if f.code[0] in "PR"]


def test_a_hand_not_played_out_is_not_analysable_and_a_discard_hides_the_other_trumps():
    text = COSTS_NOTHING.read_text()
    cut = text[:text.index("6. Ann:AC")]  # the last trick is missing
    games, _ = parse_text(cut)
    (a,) = analyze_games(games)[0]
    assert "cannot be replayed in full" in a.not_analysable and "P406" in a.not_analysable and a.par is None
    text, _ = simulate("tenpoint", games=1, seed=3)
    games, _ = parse_text(text)
    a = analyze_games(games)[0][0]
    assert a.par_by_trump == () and "depend on trump" in a.par_by_trump_unknown


def test_analyze_command_text_and_json():
    r = invoke("analyze", JACK_ESCAPES)
    assert r.exit_code == 0
    assert r.stdout.splitlines()[0].startswith("R503_jack_escapes.pitch#1 hand 1: Ann (NS) pitched S: par 4")
    assert "trick 2: Ann AD cost 1 point" in r.stdout and "analysed 1 hand (0 not analysable): 1 mistake, 1 point lost" in r.stderr
    data = json.loads(invoke("analyze", JACK_ESCAPES, "--format", "json").stdout)
    assert data[0]["par"] == 4 and data[0]["revokes"][0]["damage"] == 1 and data[0]["mistakes"] == 1
    assert invoke("analyze", "no-such.pitch").exit_code == 2


def test_replay_analyze_shows_par_each_cards_cost_and_the_damage():
    r = invoke("replay", JACK_ESCAPES, "--hand", "1", "--analyze", "--width", "100")
    assert r.exit_code == 0
    out = " ".join(r.stdout.split())
    assert "Perfect play" in out and "par 4 for Ann" in out
    assert "the revoke by Bob in trick 1 cost NS 1 point" in out
    assert "trick 2: Ann AD cost 1 point" in out


def test_import_analyze_writes_the_analysis_table_and_stats_gain_accuracy(tmp_path):
    from auditor.check import check_dataset
    from auditor.warehouse import connect, stats

    ds = tmp_path / "club.parquet"
    assert invoke("import", JACK_ESCAPES, "-o", ds, "--analyze").exit_code == 0
    wh = connect(ds)
    rows = wh.con.sql("SELECT trick, player, card, value_before, value_after, cost, mistake, illegal, par, "
                      "contract FROM analysis ORDER BY trick, position").fetchall()
    table = {r["player"]: r for r in stats(wh).to_pylist()}
    assert len(rows) == 24
    assert rows[1][1:3] == ("Bob", "3D") and rows[1][7] is True  # the revoke, marked illegal
    assert [r[1:7] for r in rows if r[6]] == [("Ann", "AD", 4, 3, 1, True)]  # the one mistake
    assert {(r[8], r[9]) for r in rows} == {(4, 2)}  # par 4 on a contract of 2
    # Ann: 6 cards, a mistake of 1 point; she bid 2 where par was 4: an underbid
    ann = table["Ann"]
    assert (ann["cards_analysed"], ann["points_lost_per_100_cards"], ann["mistakes_per_hand"]) == (6, 16.67, 1.0)
    assert (ann["unmakeable_bids"], ann["underbids"]) == (0, 1)
    assert table["Cal"]["points_lost_per_100_cards"] == 0.0
    assert check_dataset(ds).problems == []
    # a dataset imported without --analyze has no accuracy: null, not 0
    plain = tmp_path / "plain.parquet"
    assert invoke("import", JACK_ESCAPES, "-o", plain).exit_code == 0
    assert {r["cards_analysed"] for r in stats(connect(plain)).to_pylist()} == {None}


@pytest.mark.parametrize(("preset", "players", "rules"), [("partnership", 4, ""), ("cutthroat", 5, ""),
                                                          ("partnership", 6, "players=6"), ("tenpoint52", 4, "")])
def test_a_log_examined_in_the_core_gives_what_its_games_give(preset, players, rules):
    text, _ = simulate(preset, games=1, seed=4, players=players, faults=("revoke",), rules_text=rules)
    games, _ = parse_text(text, "club.pitch")
    by_games = analyze_games(games, jobs=2)
    by_log = analyze_log(text.encode(), "club.pitch", jobs=2)
    assert [name for name, _ in by_log] == [g.name for g in games]
    assert [hands for _, hands in by_log] == by_games
    assert all(a.not_analysable is None for hands in by_games for a in hands)
    # without the plays, only the mistakes come across, and every other value is the same
    (_, light), = analyze_log(text.encode(), "club.pitch", plays=False)
    for full, lean in zip(by_games[0], light):
        assert lean.plays == full.mistakes
        assert (lean.par, lean.result, lean.claim, lean.par_by_trump, lean.revokes) == \
            (full.par, full.result, full.claim, full.par_by_trump, full.revokes)


def test_a_log_examined_in_the_core_keeps_one_game_and_one_hand_when_asked():
    text, _ = simulate("auction", games=2, seed=6)
    games, _ = parse_text(text, "club.pitch")
    second = games[1]
    for wanted in (second.name, "2"):
        ((name, hands),) = analyze_log(text.encode(), "club.pitch", game=wanted)
        assert name == second.name and [a.hand for a in hands] == [h.number for h in second.hands if h.tricks]
    ((_, hands),) = analyze_log(text.encode(), "club.pitch", game="2", hand=second.hands[0].number)
    assert [a.hand for a in hands] == [second.hands[0].number]
    assert analyze_log(text.encode(), "club.pitch", game="no such game") == []


def test_analyze_command_reads_standard_input_and_picks_a_game_and_a_hand():
    text = JACK_ESCAPES.read_text()
    r = runner.invoke(app, ["analyze", "-", "--format", "json"], input=text)
    assert r.exit_code == 0 and json.loads(r.stdout)[0]["game"] == "<stdin>#1"
    assert json.loads(invoke("analyze", JACK_ESCAPES, "--game", "1", "--hand", "1", "--format", "json").stdout)[0][
        "par"] == 4


@pytest.mark.parametrize(("args", "message"), [
    (["--hand", "7"], "R503_jack_escapes.pitch#1 has no hand 7 (hands: 1)"),
    (["--game", "nope"], "no game 'nope' in "),
    (["--game", "2", "--hand", "1"], "give a name (R503_jack_escapes.pitch#1) or a number 1-1"),
])
def test_analyze_refuses_a_game_or_hand_that_is_not_in_the_log_as_replay_does(args, message):
    r = invoke("analyze", JACK_ESCAPES, *args)
    assert r.exit_code == 2 and message in r.stderr and r.stdout == ""
    r = invoke("analyze", JACK_ESCAPES, COSTS_NOTHING, *args)
    assert r.exit_code == 2 and "no hand of the 2 logs matches " + " ".join(args) in r.stderr




def test_import_analyze_on_two_threads_examines_every_hand_as_one_thread_does(tmp_path):
    """A log of several pieces (the core's workers take a log a piece at a time, smaller pieces
    with --analyze so that both threads examine hands): every scored hand's cards are in the
    analysis table, each once, the same rows on one thread and on two."""
    from auditor.warehouse import connect

    text, _ = simulate("partnership", games=30, seed=5, players=4, faults=("revoke",))
    assert len(text.encode()) > 3 * 64 * 1024  # more than three pieces
    log = tmp_path / "club.pitch"
    log.write_text(text)
    tables = {}
    for jobs in ("1", "2"):
        ds = tmp_path / f"club{jobs}.parquet"
        assert invoke("import", log, "-o", ds, "--analyze", "-j", jobs).exit_code == 0
        con = connect(ds).con
        tables[jobs] = con.execute("SELECT * FROM analysis ORDER BY game_id, hand, trick, position").fetchall()
        played = con.execute("SELECT count(*) FROM plays").fetchone()[0]
        rows, cards, hands = con.execute("SELECT count(*), count(DISTINCT (game_id, hand, trick, position)), "
                                         "count(DISTINCT (game_id, hand)) FROM analysis").fetchone()
        assert rows == cards == played  # every card once (the generated hands are all scored)
        assert hands > 500
    assert tables["1"] == tables["2"]
