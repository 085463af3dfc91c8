"""The DuckDB warehouse: views, statistics counted by hand, read-only SQL.

The hand counts come from tests/fixtures/stats/: club.pitch (two Auction Pitch games, three
players) and league.pitch (a one-hand partnership game and two hands of the selling
auction).  Each hand, as `auditor audit` recomputes it (the files' comments say the same):

club-1 (auction; Ann wins with a smudge in hand 4; settlement Ann +3, Bob -2, Cal -1)
  h1 dealer Ann. Bob 2, Cal 3, Ann pass. Cal pitches 3 and makes it: High, Jack, Game to
     Cal, Low to Ann (holder). Scores Ann 1, Bob 0, Cal 3. Sheet: Cal 2 -> S601 Cal.
  h2 dealer Bob. Misdeal.
  h3 dealer Cal. Ann 2, Bob pass, Cal pass. Ann pitches 2, takes Low only; Bob revokes (R501);
     Ann is not set (1), Bob is set back 2 (-2), Cal takes High, Jack, Game (3).
     Total line Cal 4 for 2 + 3 -> S602 Cal.
  h4 dealer Ann. Bob pass, Cal 3, Ann smudge. Ann takes all four points: 4, wins at once.
club-2 (auction; unfinished)
  h1 dealer Ann. Bob 3, Cal pass, Ann pass. Bob takes High and Jack (2 < 3): set back 3.
     Low to Ann, Game to Cal. Scores Ann 1, Bob -3, Cal 1.
  h2 dealer Bob. All pass: Cal (eldest) pitches with no contract; Cal High and Low, Ann Jack,
     Bob Game. Scores Ann 1, Bob 1, Cal 2.
pair-1 (partnership game=3, NS: Ann Cal; EW: Bob Dee; NS wins)
  h1 dealer Ann. Bob 2, Cal 3, Dee pass, Ann pass. NS (Cal) pitches 3: High, Low (taker),
     Jack to NS (3, made); Game to EW (1).
sell-1 (sell; counted down; unfinished)
  h1 dealer Ann. Cal 2, Dee pass, Ann 3, Bob sells. Bob scores the sale, 3. Ann pitches 3:
     High, Jack, Game (3, made); Low to Dee (1). Scores Ann 3, Bob 3, Cal 0, Dee 1.
  h2 dealer Bob. Dee 1, Ann 2, Bob pass, Cal keeps. Cal pitches 2, takes Game only: set back
     2. Bob High and Low (2). Jack not in play. Scores Ann 0, Bob 2, Cal -2, Dee 0.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import os
import shutil
import stat
from collections import defaultdict
from pathlib import Path

import duckdb
import pytest

from auditor.notation import parse_teams
from auditor.rules import parse_rules
from auditor.simulate import simulate
import auditor.dataset as ds_mod
from auditor.dataset import compact, current, import_paths, read_table, table_files
from auditor.tables import SCHEMAS, TABLES
from auditor.warehouse import SUMMARY_TABLE, QueryRefused, WarehouseError, check_read_only, connect, open_data, \
    run_query, schema_rows, sql_objects, stat_columns, stats, summaries_complete, summarize_batch

from .conftest import ROOT, SAMPLE_LOGS
from .test_dataset import downgrade_to_v1
from .test_tables import bid_number, recount_logs, tenpoint_logs

FIXTURES = ROOT / "tests" / "fixtures" / "stats"


@pytest.fixture(scope="module")
def fixture_ds(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("stats") / "ds"
    import_paths([str(FIXTURES)], out)
    return out


@pytest.fixture(scope="module")
def summarized_ds(tmp_path_factory) -> Path:
    """The fixtures imported with their stored counters (as `auditor import` does)."""
    out = tmp_path_factory.mktemp("stats-summarized") / "ds"
    import_paths([str(FIXTURES)], out, summarize=summarize_batch)
    return out


def reads_counters(w) -> bool:
    """Whether unit_stats reads the stored counters on this connection (else the raw tables)."""
    return w.con.execute("SELECT getvariable('auditor_summaries')").fetchall()[0][0]


# every hand-counted test below runs on both sources of the counters
@pytest.fixture(scope="module", params=["raw tables", "stored counters"])
def wh(request, fixture_ds):
    stored = request.param == "stored counters"
    w = connect(request.getfixturevalue("summarized_ds") if stored else fixture_ds)
    assert reads_counters(w) == stored
    yield w
    w.con.close()


SIMULATED = ("auction", "partnership", "sell", "setback", "cutthroat", "tenpoint", "tenpoint52", "tenpoint trey=off",
             "smear")
PRESETS = ("auction", "partnership", "sell", "setback", "cutthroat", "tenpoint", "tenpoint52", "smear")


@pytest.fixture(scope="module")
def simulated_ds(tmp_path_factory) -> Path:
    """Every preset, with injected revokes and score-sheet errors, in one dataset."""
    logs = tmp_path_factory.mktemp("sim")
    for i, preset in enumerate(SIMULATED):
        text, _ = simulate(preset, games=2 if "trey=off" in preset else 4, seed=10 + i,
                           faults=("revoke", "score", "total"))
        (logs / f"{preset.replace(' ', '-')}.pitch").write_text(text, encoding="utf-8")
    out = logs / "ds"
    import_paths([str(logs)], out)
    return out


def by_name(table, key: str = "player") -> dict[str, dict]:
    return {r[key]: r for r in table.to_pylist()}


def approx(row: dict, expected: dict) -> None:
    """Every expected value; rates to the two places the SQL rounds to."""
    for k, v in expected.items():
        got = row[k]
        if isinstance(v, float) and got is not None:
            assert abs(got - v) <= 0.0051, (k, got, v)
        else:
            assert got == v, (k, got, v)


# --------------------------------------------------------------------------- hand-counted statistics


ANN = dict(
    place=1,  # games won 2 (then Cal 1, Bob and Dee 0: Bob 0.75 points a hand before Dee 0.67)
    games=4, games_finished=2,  # club-1 (won by Ann) and pair-1 (won by NS) finished; club-2, sell-1 did not
    games_won=2, win_pct=100.0,
    hands=8,  # club-1 h1 h3 h4 (h2 misdeal), club-2 h1 h2, pair-1 h1, sell-1 h1 h2
    bid_turns=8,  # club-1 pass 2 smudge, club-2 pass pass, pair-1 pass, sell-1 3 2
    bids=4, bid_rate=50.0,
    auctions_won=3,  # club-1 h3 (2), h4 (4), sell-1 h1 (bought at 3)
    avg_winning_bid=3.0, contracts_made=2,  # club-1 h4, sell-1 h1; club-1 h3 failed
    contracts_made_pct=66.67, times_set=0,  # club-1 h3 failed but Bob revoked: not set
    points_set_back=0, smudge_attempts=1, smudges_made=1,  # club-1 h4
    moon_attempts=0, moons_made=0,  # no rule set with smudge=moon
    high_per_100=37.5,  # 3/8: club-1 h4, pair-1 (NS), sell-1 h1
    low_per_100=62.5,  # 5/8: club-1 h1 h3 h4, club-2 h1, pair-1 (NS)
    jack_per_100=50.0,  # 4/8: club-1 h4, club-2 h2, pair-1 (NS), sell-1 h1
    game_per_100=25.0,  # 2/8: club-1 h4, sell-1 h1
    off_jack_per_100=None, jokers_per_100=None, trey_per_100=None,  # no ten-point game
    points=14, points_per_hand=1.75,  # (1+1+4) + (1+1) + 3 + (3+0) = 14 / 8
    points_pct=43.75,  # 14 of 8 * 4 points in play
    score=14, score_per_hand=1.75,  # the same 14: no set-backs
    revokes=0, revokes_per_100=0.0, scoring_errors=0,
    settlement=3,  # club-1 only (auction): collects 2 from Bob (on -2) and 1 from Cal (on 6)
    # imported without --analyze: no accuracy under perfect play
    cards_analysed=None, points_lost_per_100_cards=None, mistakes_per_hand=None, unmakeable_bids=None,
    underbids=None,
)
BOB = dict(
    place=3, games=4, games_finished=2, games_won=0, win_pct=0.0, hands=8,
    bid_turns=7,  # club-1 2 pass pass, club-2 3 pass, pair-1 2, sell-1 pass (his `sells` is no bid turn)
    bids=3, bid_rate=42.86,  # 3/7
    auctions_won=1, avg_winning_bid=3.0, contracts_made=0, contracts_made_pct=0.0,  # club-2 h1
    times_set=1, points_set_back=5,  # club-1 h3 revoke 2 + club-2 h1 set 3
    smudge_attempts=0, smudges_made=0, moon_attempts=0, moons_made=0,
    high_per_100=25.0,  # 2/8: club-2 h1, sell-1 h2
    low_per_100=12.5,  # sell-1 h2
    jack_per_100=12.5,  # club-2 h1
    game_per_100=25.0,  # club-2 h2, pair-1 (EW)
    off_jack_per_100=None, jokers_per_100=None, trey_per_100=None,  # no ten-point game
    points=6, points_per_hand=0.75,  # 0 + (2+1) + 1 + (0+2) = 6 / 8
    points_pct=18.75,  # 6 / 32
    score=2, score_per_hand=0.25,  # (0-2+0) + (-3+1) + 1 + (3+2) = 2 / 8
    revokes=1, revokes_per_100=12.5, scoring_errors=0, settlement=-2,
)
CAL = dict(
    place=2, games=4, games_finished=2, games_won=1, win_pct=50.0, hands=8,  # pair-1 with NS
    bid_turns=7,  # club-1 3 pass 3, club-2 pass pass, pair-1 3, sell-1 2 (his `keeps` is no bid turn)
    bids=4, bid_rate=57.14,
    auctions_won=3,  # club-1 h1 (3), pair-1 (3), sell-1 h2 (kept at 2); club-2 h2 had no contract
    avg_winning_bid=2.67, contracts_made=2, contracts_made_pct=66.67, times_set=1,  # sell-1 h2
    points_set_back=2, smudge_attempts=0, smudges_made=0, moon_attempts=0, moons_made=0,
    high_per_100=50.0,  # 4/8: club-1 h1 h3, club-2 h2, pair-1 (NS)
    low_per_100=25.0,  # club-2 h2, pair-1 (NS)
    jack_per_100=37.5,  # club-1 h1 h3, pair-1
    game_per_100=50.0,  # club-1 h1 h3, club-2 h1, sell-1 h2
    off_jack_per_100=None, jokers_per_100=None, trey_per_100=None,  # no ten-point game
    points=13, points_per_hand=1.625,  # (3+3+0) + (1+2) + 3 + (0+1) = 13 / 8
    points_pct=40.63,  # 13 / 32
    score=10, score_per_hand=1.25,  # 6 + 3 + 3 + (0-2) = 10 / 8
    revokes=0, revokes_per_100=0.0,
    scoring_errors=2,  # club-1 h1 S601, h3 S602
    settlement=-1,
)
DEE = dict(
    place=4, games=2, games_finished=1, games_won=0, win_pct=0.0, hands=3,  # pair-1, sell-1
    bid_turns=3, bids=1, bid_rate=33.33,  # pair-1 pass, sell-1 pass 1
    auctions_won=0, avg_winning_bid=None, contracts_made=0, contracts_made_pct=None, times_set=0,
    points_set_back=0, smudge_attempts=0, smudges_made=0, moon_attempts=0, moons_made=0,
    high_per_100=0.0, low_per_100=33.33, jack_per_100=0.0, game_per_100=33.33,  # sell-1 h1 Low; pair-1 EW Game
    off_jack_per_100=None, jokers_per_100=None, trey_per_100=None,  # no ten-point game
    points=2, points_per_hand=0.67, score=2, score_per_hand=0.67,  # 1 + 1 + 0 = 2 / 3
    points_pct=16.67,  # 2 / 12
    revokes=0, revokes_per_100=0.0, scoring_errors=0,
    settlement=None,  # neither partnership nor sell settles
)


def test_every_statistic_per_player_counted_by_hand(wh):
    t = stats(wh)
    rows = by_name(t)
    assert set(rows) == {"Ann", "Bob", "Cal", "Dee"}
    for name, expected in (("Ann", ANN), ("Bob", BOB), ("Cal", CAL), ("Dee", DEE)):
        approx(rows[name], expected)
    # every column of the table is checked above
    assert set(t.column_names) == {"player", *ANN}
    # default order: games won, then win %, then points per hand (Bob 0.75 before Dee 0.67)
    assert t.column("player").to_pylist() == ["Ann", "Cal", "Bob", "Dee"]


def test_team_statistics_in_partnership(wh):
    rows = by_name(stats(wh, "team", preset="partnership"), "team")
    assert set(rows) == {"NS", "EW"}
    approx(rows["NS"], dict(games=1, games_finished=1, games_won=1, win_pct=100.0, hands=1,
                            bid_turns=2, bids=1, bid_rate=50.0,  # Cal 3, Ann pass
                            auctions_won=1, avg_winning_bid=3.0, contracts_made=1, contracts_made_pct=100.0,
                            times_set=0, points_set_back=0,
                            high_per_100=100.0, low_per_100=100.0, jack_per_100=100.0, game_per_100=0.0,
                            points_per_hand=3.0, score_per_hand=3.0, revokes=0, scoring_errors=0,
                            settlement=None))
    approx(rows["EW"], dict(games=1, games_finished=1, games_won=0, win_pct=0.0, hands=1,
                            bid_turns=2, bids=1, bid_rate=50.0,  # Bob 2, Dee pass
                            auctions_won=0, avg_winning_bid=None, contracts_made_pct=None,
                            high_per_100=0.0, low_per_100=0.0, jack_per_100=0.0, game_per_100=100.0,
                            points_per_hand=1.0, score_per_hand=1.0))


def test_partnership_by_player_credits_team_points_and_own_auction(wh):
    rows = by_name(stats(wh, "player", preset="partnership"))
    # the team's points for both partners; the auction for Cal alone
    approx(rows["Ann"], dict(games=1, games_won=1, hands=1, bid_turns=1, bids=0, bid_rate=0.0, auctions_won=0,
                             high_per_100=100.0, low_per_100=100.0, points_per_hand=3.0, score_per_hand=3.0))
    approx(rows["Cal"], dict(games=1, games_won=1, hands=1, bid_turns=1, bids=1, bid_rate=100.0, auctions_won=1,
                             contracts_made=1, points_per_hand=3.0))
    approx(rows["Dee"], dict(games_won=0, game_per_100=100.0, points_per_hand=1.0, bids=0))


def test_team_view_outside_partnership_is_the_player_table(wh):
    players = stats(wh, "player", preset="auction").to_pylist()
    teams = stats(wh, "team", preset="auction").to_pylist()
    assert [dict(r, player=r.pop("team")) for r in teams] == players


def test_sell_counts_down_but_scores_points_made(wh):
    rows = by_name(stats(wh, preset="sell"))
    # Bob: the sale (3) and High + Low (2); Cal kept and was set back 2
    approx(rows["Bob"], dict(games=1, games_finished=0, win_pct=None, hands=2, bid_turns=1, bids=0,
                             score_per_hand=2.5, points_per_hand=1.0, settlement=None))
    approx(rows["Cal"], dict(auctions_won=1, times_set=1, points_set_back=2, score_per_hand=-1.0, bid_turns=1))
    approx(rows["Ann"], dict(auctions_won=1, contracts_made=1, avg_winning_bid=3.0, bid_turns=2, bids=2))


def test_filters(wh):
    # one game by name: club-2, unfinished
    rows = by_name(stats(wh, game="club-2"))
    assert set(rows) == {"Ann", "Bob", "Cal"}
    approx(rows["Bob"], dict(games=1, games_finished=0, win_pct=None, hands=2, auctions_won=1, times_set=1,
                             points_set_back=3, settlement=None))
    approx(rows["Cal"], dict(auctions_won=0, high_per_100=50.0, low_per_100=50.0))  # pitched with no contract
    # by game_id too
    gid = run_query(wh, "SELECT game_id FROM games WHERE game = 'club-1'").column(0)[0].as_py()
    assert stats(wh, game=gid).num_rows == 3
    # an event and a date range: club-1 is on 2026-01-08, club-2 on 2026-01-15
    rows = by_name(stats(wh, event="Club", since=dt.date(2026, 1, 10)))
    assert rows["Ann"]["games"] == 1 and rows["Ann"]["hands"] == 2
    rows = by_name(stats(wh, until=dt.date(2026, 1, 8)))
    assert set(rows) == {"Ann", "Bob", "Cal"} and rows["Ann"]["games_won"] == 1 and rows["Cal"]["scoring_errors"] == 2
    assert stats(wh, event="No such club").num_rows == 0
    # --min-hands leaves out Dee (3 played hands)
    assert set(by_name(stats(wh, min_hands=4))) == {"Ann", "Bob", "Cal"}
    assert set(by_name(stats(wh, min_hands=3))) == {"Ann", "Bob", "Cal", "Dee"}


def test_sort(wh):
    assert stats(wh, sort="bid_rate").column("player").to_pylist() == ["Cal", "Ann", "Bob", "Dee"]
    assert stats(wh, sort="player").column("player").to_pylist() == ["Ann", "Bob", "Cal", "Dee"]
    # nulls last: Dee won no auction
    assert stats(wh, sort="avg_winning_bid").column("player").to_pylist()[-1] == "Dee"
    with pytest.raises(WarehouseError, match="unknown sort column"):
        stats(wh, sort="points; DROP TABLE x")
    with pytest.raises(WarehouseError, match="player or team"):
        stats(wh, "dealer")


def test_filter_values_are_quoted_not_pasted(wh):
    assert stats(wh, event="Club' OR '1'='1").num_rows == 0


# --------------------------------------------------------------------------- the row views


def rows_of(wh, sql: str) -> list[dict]:
    return run_query(wh, sql).to_pylist()


def test_player_hands_rows(wh):
    def row(game, hand, player):
        (r,) = rows_of(wh, f"SELECT * FROM player_hands "
                           f"WHERE game = '{game}' AND hand = {hand} AND player = '{player}'")
        return r

    assert run_query(wh, "SELECT count(*) FROM player_hands").column(0)[0].as_py() == 3 * 4 + 3 * 2 + 4 * 1 + 4 * 2
    approx(row("club-1", 3, "Bob"), dict(status="played", seat=2, team=None, side="Bob", was_dealer=False,
                                         bid_turn=True, bid_words="pass", bid=None, pitched=False, won_auction=False,
                                         contract=None, contract_made=None, was_set=False, points=0, score=-2,
                                         set_back=2, revoked=True, revokes=1,
                                         hand_findings=3,  # R501 Bob and its R503, S602 Cal
                                         player_findings=2, scoring_errors=0))  # the R503 is about the revoker too
    approx(row("club-1", 3, "Ann"), dict(won_auction=True, pitched=True, contract=2, contract_made=False,
                                         was_set=False, low=True, high=False, points=1, score=1, set_back=0))
    approx(row("club-1", 3, "Cal"), dict(was_dealer=True, scoring_errors=1, player_findings=1, high=True, jack=True,
                                         game_point=True, points=3))
    approx(row("club-1", 4, "Ann"), dict(bid_words="smudge", bid=4, won_auction=True, top_bid=True,
                                         contract_made=True, points=4))
    approx(row("club-1", 2, "Bob"), dict(status="misdeal", was_dealer=True, bid_turn=False, bid_words=None,
                                         points=None, score=None, high=None))
    approx(row("club-2", 2, "Cal"), dict(pitched=True, won_auction=False, contract=None, high=True, low=True))
    approx(row("club-2", 1, "Bob"), dict(won_auction=True, contract_made=False, was_set=True, set_back=3, score=-3))
    approx(row("pair-1", 1, "Ann"), dict(seat=1, team="NS", side="NS", points=3, score=3, bid_words="pass"))
    approx(row("pair-1", 1, "Dee"), dict(seat=4, team="EW", side="EW", game_point=True, points=1))
    approx(row("sell-1", 1, "Bob"), dict(bid_words="sells", bid_turn=False, bid=None, score=3, points=0))
    approx(row("sell-1", 2, "Cal"), dict(bid_words="keeps", bid_turn=False, won_auction=True, contract=2,
                                         was_set=True, score=-2, set_back=2))


def test_side_hands_add_up_members(wh):
    (ns,) = rows_of(wh, "SELECT * FROM side_hands WHERE game = 'pair-1' AND side = 'NS'")
    approx(ns, dict(players=["Ann", "Cal"], was_dealer=True, bid_turns=2, bids=1, bid=3, won_auction=True,
                    contract=3, contract_made=True, was_set=False, points=3, score=3))
    (bob,) = rows_of(wh, "SELECT * FROM side_hands WHERE game = 'club-1' AND hand = 3 AND side = 'Bob'")
    approx(bob, dict(players=["Bob"], revoked=True, revokes=1, score=-2))


def test_game_players(wh):
    rows = rows_of(wh, "SELECT game, player, seat, team, side, finished, won, settles, settlement "
                       "FROM game_players ORDER BY game, seat")
    got = {(r["game"], r["player"]): r for r in rows}
    approx(got[("club-1", "Ann")], dict(seat=1, side="Ann", finished=True, won=True, settles=True, settlement=3))
    approx(got[("club-1", "Cal")], dict(seat=3, won=False, settlement=-1))
    approx(got[("club-2", "Ann")], dict(finished=False, settles=True, settlement=None))
    approx(got[("pair-1", "Cal")], dict(team="NS", side="NS", won=True, settles=False, settlement=None))
    approx(got[("sell-1", "Dee")], dict(seat=4, team=None, side="Dee", finished=False, settles=False))


def test_rule_sets(wh):
    rows = {r["preset"]: r for r in rows_of(wh, "SELECT * FROM rule_sets")}
    assert rows["auction"]["top_bid"] == 4 and rows["auction"]["settles"] is True
    assert rows["partnership"]["partnership"] is True and rows["partnership"]["game_to"] == 3
    assert rows["sell"]["top_bid"] is None and rows["sell"]["count_down"] is True


# --------------------------------------------------------------------------- two definitions, one answer


# unit_stats adds up the raw tables directly (for speed); the same numbers from the readable
# per-hand views must agree with it
_FROM_VIEWS = """
WITH h AS (
    SELECT {unit} AS unit, count(*) FILTER (WHERE status = 'played') AS hands,
           sum({turns})::BIGINT AS bid_turns, sum({bids})::BIGINT AS bids,
           count(*) FILTER (WHERE status = 'played' AND won_auction) AS auctions_won,
           count(*) FILTER (WHERE contract_made) AS contracts_made,
           count(*) FILTER (WHERE was_set) AS times_set,
           coalesce(sum(set_back), 0)::BIGINT AS points_set_back,
           count(*) FILTER (WHERE status = 'played' AND top_bid) AS smudge_attempts,
           count(*) FILTER (WHERE status = 'played' AND moon) AS moon_attempts,
           count(*) FILTER (WHERE moon AND contract_made) AS moons_made,
           count(*) FILTER (WHERE high) AS high, count(*) FILTER (WHERE low) AS low,
           count(*) FILTER (WHERE jack) AS jack, count(*) FILTER (WHERE game_point) AS game_point,
           count(high_joker) AS ten_point_hands, count(off_jack) AS off_jack_hands,
           count(*) FILTER (WHERE off_jack) AS off_jack,
           count(*) FILTER (WHERE high_joker) + count(*) FILTER (WHERE low_joker) AS jokers,
           count(trey) AS trey_hands, count(*) FILTER (WHERE trey) AS trey,
           sum(points)::BIGINT AS points, sum(points_in_play)::BIGINT AS points_in_play, sum(score)::BIGINT AS score,
           count(*) FILTER (WHERE status = 'played' AND revoked) AS revokes,
           sum(scoring_errors)::BIGINT AS scoring_errors
    FROM {view} GROUP BY ALL
)
SELECT * FROM h ORDER BY unit
"""


@pytest.mark.parametrize("per", ["player", "team"])
def test_unit_stats_agree_with_the_per_hand_views(wh, simulated_ds, per):
    sim = connect(simulated_ds)
    for w in (wh, sim):
        if per == "player":
            sql = _FROM_VIEWS.format(unit="player", view="player_hands", turns="bid_turn::INT",
                                     bids="(bid IS NOT NULL)::INT")
        else:
            sql = _FROM_VIEWS.format(unit="side", view="side_hands", turns="bid_turns", bids="bids")
        views = {r["unit"]: r for r in run_query(w, sql).to_pylist()}
        table = by_name(stats(w, per), per)
        assert set(views) == set(table)
        for unit, v in views.items():
            s = table[unit]
            assert s["hands"] == v["hands"] and s["bid_turns"] == v["bid_turns"] and s["bids"] == v["bids"]
            for k in ("auctions_won", "contracts_made", "times_set", "points_set_back", "smudge_attempts",
                      "moon_attempts", "moons_made", "revokes", "scoring_errors"):
                assert s[k] == v[k], (unit, k)
            for k, col in (("high", "high_per_100"), ("low", "low_per_100"), ("jack", "jack_per_100"),
                           ("game_point", "game_per_100")):
                assert abs(s[col] - round(100 * v[k] / v["hands"], 2)) < 0.006, (unit, k)
            for k, col, d in (("off_jack", "off_jack_per_100", "off_jack_hands"),
                              ("jokers", "jokers_per_100", "ten_point_hands"), ("trey", "trey_per_100", "trey_hands"),
                              ("points", "points_pct", "points_in_play")):
                if v[d]:
                    assert abs(s[col] - 100 * v[k] / v[d]) <= 0.0051, (unit, k)
                else:
                    assert s[col] is None, (unit, k)
            assert abs(s["points_per_hand"] - v["points"] / v["hands"]) < 0.006
            assert abs(s["score_per_hand"] - v["score"] / v["hands"]) < 0.006
    sim.con.close()


# --------------------------------------------------------------------------- stored counters


def same_stats(a, b, filters=({},)) -> None:
    """unit_stats on two connections: equal, every column and type, per player and per team."""
    for per in ("player", "team"):
        for f in filters:
            x, y = stats(a, per, **f), stats(b, per, **f)
            assert x.schema == y.schema, (per, f)
            assert x.to_pylist() == y.to_pylist(), (per, f)


FIXTURE_FILTERS = ({}, {"preset": "partnership"}, {"preset": "auction"}, {"preset": "sell"}, {"game": "club-2"},
                   {"event": "Club", "since": dt.date(2026, 1, 10)}, {"until": dt.date(2026, 1, 8)},
                   {"min_hands": 4}, {"event": "No such club"})


def check_counters(root: Path, filters=({},)) -> None:
    """Every batch has the stored counters, they are the view's rows, and stats from either are equal."""
    assert summaries_complete(root)
    for b in current(root).glob("batch=*"):
        assert (b / f"{SUMMARY_TABLE}.parquet").exists(), b
    stored, raw = connect(root), connect(root, summaries=False)
    try:
        assert reads_counters(stored) and not reads_counters(raw)
        table = sorted(run_query(stored, f"SELECT * FROM {SUMMARY_TABLE}").to_pylist(), key=repr)
        assert table and table == sorted(run_query(stored, "SELECT * FROM game_player_counters_live").to_pylist(),
                                         key=repr)
        assert stored.con.sql(f"DESCRIBE {SUMMARY_TABLE}").fetchall() == \
            stored.con.sql("DESCRIBE game_player_counters_live").fetchall()
        same_stats(stored, raw, filters)
        # the views built on unit_stats follow the same choice
        for view in ("player_stats", "team_stats"):
            assert run_query(stored, f"SELECT * FROM {view}").to_pylist() == \
                run_query(raw, f"SELECT * FROM {view}").to_pylist()
    finally:
        stored.con.close()
        raw.con.close()


def test_stored_counters_give_the_raw_tables_stats_on_the_fixture(summarized_ds, fixture_ds):
    check_counters(summarized_ds, FIXTURE_FILTERS)
    # and the dataset imported without them gives the same numbers
    with_counters, without = connect(summarized_ds), connect(fixture_ds)
    assert reads_counters(with_counters) and not reads_counters(without)
    same_stats(with_counters, without, FIXTURE_FILTERS)
    with_counters.con.close()
    without.con.close()


@pytest.fixture(scope="module")
def summarized_sim_ds(simulated_ds, tmp_path_factory) -> Path:
    """simulated_ds's logs imported with the stored counters, in several batches."""
    out = tmp_path_factory.mktemp("sim-summarized") / "ds"
    saved = ds_mod.CHUNK_BYTES
    ds_mod.CHUNK_BYTES = 20_000  # several batches per file, so the counters are summed across batches
    try:
        import_paths([str(p) for p in sorted(simulated_ds.parent.glob("*.pitch"))], out, summarize=summarize_batch)
    finally:
        ds_mod.CHUNK_BYTES = saved
    assert len(list(current(out).glob("batch=*"))) > 5
    return out


def test_stored_counters_give_the_raw_tables_stats_on_every_simulated_preset(summarized_sim_ds, simulated_ds):
    presets = [{"preset": p} for p in PRESETS]
    check_counters(summarized_sim_ds, ({}, *presets, {"min_hands": 30}))
    check_recount(summarized_sim_ds)
    with_counters, without = connect(summarized_sim_ds), connect(simulated_ds)
    assert reads_counters(with_counters) and not reads_counters(without)
    same_stats(with_counters, without, ({}, *presets))
    t = stats(with_counters).to_pylist()
    assert sum(r["revokes"] for r in t) > 0 and sum(r["scoring_errors"] for r in t) > 0
    with_counters.con.close()
    without.con.close()


def test_a_partly_summarized_dataset_reads_the_raw_tables(tmp_path, summarized_ds):
    """Batches without counters (an older import) send unit_stats to the raw tables."""
    root = tmp_path / "ds"
    import_paths([str(FIXTURES / "club.pitch")], root, summarize=summarize_batch)
    import_paths([str(FIXTURES / "league.pitch")], root)  # no counters for this batch
    assert not summaries_complete(root)
    w, full = connect(root), connect(summarized_ds)
    assert not reads_counters(w)
    same_stats(w, full, FIXTURE_FILTERS)
    w.con.close()
    # compacting with summarize gives the merged batch its counters
    assert compact(root, summarize=summarize_batch) == (2, 1)
    check_counters(root, FIXTURE_FILTERS)
    w = connect(root)
    same_stats(w, full, FIXTURE_FILTERS)
    w.con.close()
    full.con.close()


def test_an_open_connection_follows_batches_published_without_counters(tmp_path):
    first, second = tmp_path / "a.pitch", tmp_path / "b.pitch"
    first.write_text(simulate("auction", games=2, seed=1, faults=("revoke",))[0])
    second.write_text(simulate("auction", games=3, seed=2, faults=("revoke",))[0])
    root = tmp_path / "ds"
    import_paths([str(first)], root, summarize=summarize_batch)
    w = connect(root)
    assert reads_counters(w)
    import_paths([str(second)], root)
    fresh = connect(root, summaries=False)
    same_stats(w, fresh)
    assert not reads_counters(w)
    # every game counted, the five of both imports
    seats = run_query(w, "SELECT count(*) FROM game_players").column(0)[0].as_py()
    assert sum(stats(w).column("games").to_pylist()) == seats and \
        run_query(w, "SELECT count(DISTINCT game_id) FROM game_players").column(0)[0].as_py() == 5
    fresh.con.close()
    w.con.close()


def test_compact_keeps_stored_counters(tmp_path, summarized_ds, monkeypatch):
    monkeypatch.setattr(ds_mod, "CHUNK_BYTES", 2_000)
    root = tmp_path / "ds"
    import_paths([str(FIXTURES)], root, summarize=summarize_batch)
    assert len(list(current(root).glob("batch=*"))) > 1
    # without summarize, the merged batch keeps the counters every part had
    compact(root)
    assert len(list(current(root).glob("batch=*"))) == 1
    check_counters(root, FIXTURE_FILTERS)
    full = connect(summarized_ds)
    w = connect(root)
    same_stats(w, full, FIXTURE_FILTERS)
    w.con.close()
    full.con.close()


def test_compact_without_summarize_drops_partial_counters(tmp_path, summarized_ds):
    root = tmp_path / "ds"
    import_paths([str(FIXTURES / "club.pitch")], root, summarize=summarize_batch)
    import_paths([str(FIXTURES / "league.pitch")], root)
    compact(root)
    # part of the games' counters would be wrong: the merged batch has none, stats use the raw tables
    assert table_files(root, SUMMARY_TABLE) == []
    w, full = connect(root), connect(summarized_ds)
    assert not reads_counters(w)
    same_stats(w, full, FIXTURE_FILTERS)
    w.con.close()
    full.con.close()


def test_summarize_batch_marks_a_batch_without_games(tmp_path):
    """A batch of an unreadable file's finding alone still gets an (empty) counters file."""
    root = tmp_path / "ds"
    (tmp_path / "broken.pitch").write_bytes(b"\xff\xfe not a game\n")
    import_paths([str(tmp_path / "broken.pitch")], root, summarize=summarize_batch)
    (batch,) = current(root).glob("batch=*")
    assert sorted(f.name for f in batch.iterdir()) == ["batch.json", "findings.parquet", f"{SUMMARY_TABLE}.parquet"]
    assert summaries_complete(root)
    w = connect(root)
    assert stats(w).num_rows == 0
    w.con.close()


# --------------------------------------------------------------------------- an independent recount


def recount(dataset: Path, per: str) -> dict[str, dict]:
    """Every statistic recounted in plain Python from the raw tables, independently of the SQL."""
    games = read_table(dataset, "games").to_pylist()
    side_of, members, info = {}, defaultdict(list), {}
    for g in games:
        r = parse_rules(g["rules"]) if g["rules"] else None
        teams = parse_teams(g["teams"] or "")[0] if r is not None and r.partnership else {}
        team_of = {p: t for t, ps in teams.items() for p in ps}
        info[g["game_id"]] = (g, r)
        for p in g["players"]:
            side = team_of.get(p, p)
            side_of[g["game_id"], p] = side
            members[g["game_id"], side].append(p)

    def unit_of_player(gid, p):
        return p if per == "player" else side_of[gid, p]

    def units_of_side(gid, side):
        return members[gid, side] if per == "player" else [side]

    acc: dict[str, dict] = defaultdict(lambda: defaultdict(int))
    for gid, (g, r) in info.items():
        units = {unit_of_player(gid, p) for p in g["players"]}
        for u in units:
            a = acc[u]
            a["games"] += 1
            a["games_finished"] += g["winner"] is not None
            side = u if per == "team" else side_of[gid, u]
            a["games_won"] += g["winner"] is not None and g["winner"] == side
    settle = {(s["game_id"], s["side"]): s["amount"] for s in read_table(dataset, "settlements").to_pylist()}
    for gid, (g, r) in info.items():
        if r is not None and r.settlement == "club" and not r.partnership and g["winner"] is not None:
            for p in g["players"]:
                u = unit_of_player(gid, p)
                acc[u]["settlement"] = acc[u].get("settlement", 0) + settle.get((gid, side_of[gid, p]), 0)
    for b in read_table(dataset, "bids").to_pylist():
        a = acc[unit_of_player(b["game_id"], b["player"])]
        a["bid_turns"] += b["word"] not in ("sells", "keeps")
        a["bids"] += b["value"] is not None
    scores = read_table(dataset, "hand_scores").to_pylist()
    pitcher_row = {(s["game_id"], s["hand"]): s for s in scores if s["pitcher_side"]}
    for s in scores:
        r = info[s["game_id"]][1]
        for u in units_of_side(s["game_id"], s["side"]):
            a = acc[u]
            a["hands"] += 1
            for k in ("high", "low", "jack", "game_point"):
                a[k] += bool(s[k])
            # the ten-point flags are null where the rule set has no such point (or the batch predates them)
            a["ten_point_hands"] += s["high_joker"] is not None
            a["off_jack_hands"] += s["off_jack"] is not None
            a["off_jack"] += bool(s["off_jack"])
            a["jokers"] += bool(s["high_joker"]) + bool(s["low_joker"])
            a["trey_hands"] += s["trey"] is not None
            a["trey"] += bool(s["trey"])
            a["points_in_play"] += r.points_in_play
            a["points"] += s["points"]
            a["score"] += s["score"]
            a["points_set_back"] += s["set_back"]
    hands = {(h["game_id"], h["hand"]): h for h in read_table(dataset, "hands").to_pylist()}
    for (gid, hand), h in hands.items():
        if h["status"] != "played" or not h["contract"]:
            continue
        r = info[gid][1]
        a = acc[unit_of_player(gid, h["pitcher"])]
        a["auctions_won"] += 1
        a["contract_sum"] += h["contract"]
        a["contracts_made"] += bool(h["contract_made"])
        a["times_set"] += h["contract_made"] is False and pitcher_row[gid, hand]["set_back"] > 0
        top = r.top_bid if r.top_bid_words or r.smudge != "none" else None
        a["smudge_attempts"] += h["contract"] == top
        a["smudges_made"] += h["contract"] == top and bool(h["contract_made"])
        a["moon_attempts"] += h["contract"] == top and r.smudge == "moon"
        a["moons_made"] += h["contract"] == top and r.smudge == "moon" and bool(h["contract_made"])
    revoked = {(p["game_id"], p["hand"], unit_of_player(p["game_id"], p["player"]))
               for p in read_table(dataset, "plays", ["game_id", "hand", "player", "revoke"]).to_pylist()
               if p["revoke"] and hands[p["game_id"], p["hand"]]["status"] == "played"}
    for _, _, u in revoked:
        acc[u]["revokes"] += 1
    for f in read_table(dataset, "findings").to_pylist():
        if f["code"] in ("S601", "S602") and f["hand"] is not None and (f["game_id"], f["player"]) in members:
            for u in units_of_side(f["game_id"], f["player"]):
                acc[u]["scoring_errors"] += 1

    def rate(n, d, scale=100):
        return None if not d else scale * n / d

    out = {}
    for u, a in acc.items():
        n = a["hands"]
        out[u] = dict(
            games=a["games"], games_finished=a["games_finished"], games_won=a["games_won"],
            win_pct=rate(a["games_won"], a["games_finished"]), hands=n, bid_turns=a["bid_turns"], bids=a["bids"],
            bid_rate=rate(a["bids"], a["bid_turns"]), auctions_won=a["auctions_won"],
            avg_winning_bid=rate(a["contract_sum"], a["auctions_won"], 1), contracts_made=a["contracts_made"],
            contracts_made_pct=rate(a["contracts_made"], a["auctions_won"]), times_set=a["times_set"],
            points_set_back=a["points_set_back"], smudge_attempts=a["smudge_attempts"],
            smudges_made=a["smudges_made"], moon_attempts=a["moon_attempts"], moons_made=a["moons_made"],
            high_per_100=rate(a["high"], n), low_per_100=rate(a["low"], n),
            jack_per_100=rate(a["jack"], n), game_per_100=rate(a["game_point"], n),
            off_jack_per_100=rate(a["off_jack"], a["off_jack_hands"]),
            jokers_per_100=rate(a["jokers"], a["ten_point_hands"]), trey_per_100=rate(a["trey"], a["trey_hands"]),
            points=a["points"], points_per_hand=rate(a["points"], n, 1),
            points_pct=rate(a["points"], a["points_in_play"]), score=a["score"] if n else None,
            score_per_hand=rate(a["score"], n, 1), revokes=a["revokes"],
            revokes_per_100=rate(a["revokes"], n), scoring_errors=a["scoring_errors"],
            settlement=a.get("settlement"))
    return out


def check_recount(dataset: Path) -> None:
    w = connect(dataset)
    try:
        for per in ("player", "team"):
            expected = recount(dataset, per)
            got = by_name(stats(w, per), per)
            assert set(got) == set(expected), per
            for unit, e in expected.items():
                approx(got[unit], e)
    finally:
        w.con.close()


def test_recount_matches_on_the_fixture(fixture_ds):
    check_recount(fixture_ds)


def test_recount_matches_on_every_simulated_preset(simulated_ds):
    check_recount(simulated_ds)
    # the faults did land, so the revoke and score-sheet columns were really compared
    w = connect(simulated_ds)
    t = stats(w).to_pylist()
    assert sum(r["revokes"] for r in t) > 0 and sum(r["scoring_errors"] for r in t) > 0
    assert sum(r["times_set"] for r in t) > 0 and any(r["settlement"] for r in t)


@pytest.fixture(scope="module")
def sample_ds(tmp_path_factory) -> Path:
    if not list(SAMPLE_LOGS.glob("*.pitch")):
        pytest.skip("no sample_logs/*.pitch")
    out = tmp_path_factory.mktemp("sample") / "ds"
    import_paths([str(SAMPLE_LOGS)], out)
    return out


def test_recount_matches_on_sample_logs(sample_ds):
    check_recount(sample_ds)


def test_sample_logs_facts(sample_ds):
    """Facts of sample_logs/ checked by reading the logs (see sample_logs/README.md)."""
    w = connect(sample_ds)
    games = {r[0] for r in w.con.sql("SELECT game FROM games").fetchall()}
    if "thu-0108-2" in games:  # Hal bids smudge in hand 7 from 2, takes all four and wins at once
        hal = by_name(stats(w, game="thu-0108-2"))["Hal"]
        assert hal["games_won"] == 1 and hal["smudge_attempts"] >= 1 and hal["smudges_made"] >= 1
    if "thu-0108-1" in games:  # Bob's called revoke in hand 5; Cal, the pitcher, is not set by it
        rows = by_name(stats(w, game="thu-0108-1"))
        assert rows["Bob"]["revokes"] == 1 and rows["Ann"]["games_won"] == 1
        (cal,) = rows_of(w, "SELECT * FROM player_hands WHERE game = 'thu-0108-1' AND hand = 5 AND player = 'Cal'")
        assert cal["won_auction"] and cal["contract_made"] is False and not cal["was_set"]
    if "sb-0203-r3" in games:  # Cy bids moon in hand 9 and is set; Eli goes out
        rows = by_name(stats(w, game="sb-0203-r3"))
        assert rows["Cy"]["smudge_attempts"] >= 1 and rows["Cy"]["times_set"] >= 1 and rows["Eli"]["games_won"] == 1
    if "sb-0210-r1" in games:  # the sheet credits Kai +2 where he was set back 3: S601 on his entry
        assert by_name(stats(w, game="sb-0210-r1"))["Kai"]["scoring_errors"] >= 1
    if "stann-1205-t7" in games:  # a made smudge (+5) in hand 3
        teams = by_name(stats(w, "team", game="stann-1205-t7"), "team")
        assert sum(t["smudges_made"] for t in teams.values()) >= 1
    # settlement only in auction games; every settled game sums to zero
    ((total,),) = w.con.sql("SELECT coalesce(sum(settlement), 0) FROM player_stats").fetchall()
    assert total == 0
    w.con.close()


# --------------------------------------------------------------------------- read-only


def digest(root: Path) -> dict[str, str]:
    return {str(p.relative_to(root)): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(root.rglob("*")) if p.is_file()}


@pytest.fixture
def scratch_ds(fixture_ds, tmp_path) -> Path:
    out = tmp_path / "ds"
    shutil.copytree(fixture_ds, out)
    return out


def refused_statements(part: Path) -> list[str]:
    return [
        "UPDATE hands SET contract = 9",
        "DELETE FROM plays",
        "INSERT INTO games SELECT * FROM games",
        f"COPY (SELECT 1 AS a) TO '{part}' (FORMAT parquet, USE_TMP_FILE false)",
        f"COPY (SELECT * FROM plays LIMIT 1) TO '{part}'",
        f"EXPLAIN ANALYZE COPY (SELECT 1 AS a) TO '{part}' (FORMAT parquet, USE_TMP_FILE false)",
        f"SELECT 1; COPY (SELECT 1 AS a) TO '{part}' (FORMAT parquet, USE_TMP_FILE false)",
        f"EXPORT DATABASE '{part.parent}'",
        f"ATTACH '{part.parent / 'x.duckdb'}' AS x",
        "CREATE TABLE t AS SELECT 1",
        "CREATE OR REPLACE VIEW hands AS SELECT 1",
        "DROP VIEW hands",
        "SET enable_external_access = true",
        "RESET lock_configuration",
        "INSTALL httpfs",
        "LOAD httpfs",
        f"PRAGMA import_database('{part.parent}')",
        "CALL pragma_table_info('hands')",
        "CHECKPOINT",
        "PIVOT (SELECT 1 AS a, 2 AS b) ON a USING sum(b)",
    ]


def test_writing_statements_are_refused_and_the_data_is_unchanged(scratch_ds):
    before = digest(scratch_ds)
    part = table_files(scratch_ds, "plays")[0]
    w = connect(scratch_ds)
    for sql in refused_statements(part):
        with pytest.raises(QueryRefused):
            run_query(w, sql)
        assert digest(scratch_ds) == before, sql
    # the connection still answers afterwards, over unchanged views
    assert run_query(w, "SELECT count(*) FROM hands").column(0)[0].as_py() == 9
    w.con.close()
    assert digest(scratch_ds) == before


def test_the_sandbox_holds_even_without_the_statement_check(scratch_ds):
    """The second lock: DuckDB itself cannot reach files other than the parts, nor be reconfigured."""
    w = connect(scratch_ds)
    before = digest(scratch_ds)
    with pytest.raises(duckdb.Error, match="disabled by configuration"):
        w.con.execute(f"COPY (SELECT 1 AS a) TO '{scratch_ds / 'new.csv'}'")
    with pytest.raises(duckdb.Error, match="disabled by configuration"):
        w.con.execute("SELECT * FROM read_csv('/etc/hostname')")
    with pytest.raises(duckdb.Error):
        w.con.execute("SET enable_external_access = true")
    with pytest.raises(duckdb.Error, match="locked"):
        w.con.execute("SET threads = 1")
    assert digest(scratch_ds) == before
    w.con.close()


def test_no_file_outside_the_datasets_parts_can_be_read_listed_or_globbed(scratch_ds, tmp_path, monkeypatch):
    """DuckDB's temporary folder is readable by queries whatever the sandbox says: it must hold none of the
    user's files (it used to be `.tmp` under the current folder)."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / ".tmp").mkdir()
    (tmp_path / ".tmp" / "secret.txt").write_text("the club's bank details")
    (tmp_path / "notes.txt").write_text("private")
    w = connect(scratch_ds)
    scratch = w.con.execute("SELECT current_setting('temp_directory')").fetchall()[0][0]
    assert Path(scratch).name.startswith("auditor-duckdb-") and stat.S_IMODE(os.stat(scratch).st_mode) == 0o700
    assert os.listdir(scratch) == []  # nothing of the user's: only what DuckDB itself spills there
    probes = ["SELECT * FROM read_text('./.tmp/secret.txt')", "SELECT * FROM glob('./.tmp/*')",
              "SELECT * FROM glob('*')", "SELECT * FROM read_text('notes.txt')", "SELECT * FROM glob('/etc/*')",
              f"SELECT * FROM read_text('{tmp_path}/notes.txt')", "SELECT * FROM read_csv('/etc/passwd')",
              f"SELECT * FROM glob('{scratch_ds}/*')", f"SELECT * FROM read_text('{scratch_ds}/.lock')"]
    for sql in probes:
        with pytest.raises(WarehouseError):
            run_query(w, sql)
        with pytest.raises(duckdb.Error):  # and DuckDB refuses it too, without the statement check
            w.con.execute(sql).fetchall()
    # every part file is readable, and the stats still answer
    assert run_query(w, "SELECT count(*) FROM hands").column(0)[0].as_py() == 9
    w.con.close()
    del w
    import gc

    gc.collect()
    assert not os.path.exists(scratch)  # the scratch folder goes with the connection


@pytest.mark.parametrize("sql", [
    "SELECT count(*) FROM plays",
    "WITH x AS (SELECT * FROM hands) SELECT count(*) FROM x",
    "FROM player_stats",
    "DESCRIBE player_hands",
    "SHOW TABLES",
    "SUMMARIZE hands",
    "EXPLAIN SELECT * FROM hands",
    "EXPLAIN ANALYZE SELECT * FROM hands",
    "PRAGMA table_info('hands')",
    "VALUES (1), (2)",
    "-- a comment first\nSELECT 1",
    "PIVOT (SELECT 1 AS a, 2 AS b) ON a IN (1) USING sum(b)",
])
def test_reading_statements_run(wh, sql):
    assert run_query(wh, sql).num_columns >= 1


def test_bad_sql_reports_duckdbs_message(wh):
    with pytest.raises(WarehouseError, match="syntax error"):
        run_query(wh, "SELEC 1")
    with pytest.raises(WarehouseError, match="nope"):
        run_query(wh, "SELECT * FROM nope")
    with pytest.raises(WarehouseError, match="no SQL"):
        check_read_only(wh.con, "  -- nothing\n")


def test_last_statement_result_and_duplicate_names(wh):
    t = run_query(wh, "SELECT 1 AS a; SELECT 2 AS a, 3 AS a")
    assert t.column_names == ["a", "a_2"] and t.to_pylist() == [{"a": 2, "a_2": 3}]


# --------------------------------------------------------------------------- empty data, schema, docs


def test_empty_dataset_views_have_the_same_columns_and_types(wh):
    empty = connect(None)
    for t in TABLES:
        assert empty.con.sql(f"DESCRIBE {t}").fetchall() == wh.con.sql(f"DESCRIBE {t}").fetchall(), t
        assert [c[0] for c in wh.con.sql(f"DESCRIBE {t}").fetchall()] == SCHEMAS[t].names
    for view in ("game_players", "player_hands", "side_hands", "player_stats", "team_stats"):
        assert empty.con.sql(f"DESCRIBE {view}").fetchall() == wh.con.sql(f"DESCRIBE {view}").fetchall(), view
    assert stats(empty).num_rows == 0 and stats(empty, "team").num_rows == 0
    empty.con.close()


def test_every_derived_column_is_documented(wh):
    objects = sql_objects()
    assert {"rule_sets", "game_players", "player_hands", "side_hands", "unit_stats", "player_stats",
            "team_stats"} <= set(objects)
    for name, obj in objects.items():
        assert obj.doc, name
        sql = f"DESCRIBE SELECT * FROM {name}()" if obj.kind == "macro" else f"DESCRIBE {name}"
        cols = [c[0] for c in wh.con.sql(sql).fetchall()]
        missing = [c for c in cols if not obj.columns.get(c)]
        assert not missing, (name, missing)
        if obj.kind != "view" or name not in ("player_stats", "team_stats"):
            # no documented column that the object does not have (the stats views inherit `unit`)
            assert set(obj.columns) == set(cols), (name, set(obj.columns) ^ set(cols))
    rows = schema_rows(wh)
    assert all(r["meaning"] for r in rows), [r for r in rows if not r["meaning"]]
    assert {"player_hands", "hands", "unit_stats(...)"} <= {r["view"] for r in rows}


def test_docs_define_every_statistic(wh):
    doc = (ROOT / "docs" / "stats.md").read_text(encoding="utf-8")
    for col in stat_columns(wh):
        assert f"`{col}`" in doc, col


# --------------------------------------------------------------------------- logs on the fly


def test_logs_in_place_of_a_dataset(fixture_ds):
    with open_data([str(FIXTURES / "club.pitch"), str(FIXTURES / "league.pitch")]) as w:
        assert w.imported is not None and w.imported.games == 4
        from_logs = stats(w).to_pylist()
        tmp = w.dataset
    assert not tmp.exists()  # the temporary dataset is gone
    with open_data([str(fixture_ds)]) as w:
        assert w.imported is None and stats(w).to_pylist() == from_logs
    with pytest.raises(WarehouseError, match="nowhere.pitch"):
        with open_data([str(FIXTURES / "nowhere.pitch")]):
            pass
    with pytest.raises(WarehouseError, match="not a dataset"):
        connect(FIXTURES)


def test_an_open_connection_sees_games_imported_after_it_opened(tmp_path):
    """Views read the published generation's globs: readers during an import see old or new, never half."""
    first, second = tmp_path / "a.pitch", tmp_path / "b.pitch"
    first.write_text(simulate("auction", games=2, seed=1)[0])
    second.write_text(simulate("setback", games=3, seed=2)[0])
    import_paths([str(first)], tmp_path / "ds")
    w = connect(tmp_path / "ds")
    assert run_query(w, "SELECT count(*) FROM games").column(0)[0].as_py() == 2
    import_paths([str(second)], tmp_path / "ds")
    assert run_query(w, "SELECT count(*) FROM games").column(0)[0].as_py() == 5
    w.con.close()


# --------------------------------------------------------------------------- ten-point games


@pytest.fixture(scope="module")
def tenpoint_ds(tmp_path_factory) -> tuple[Path, list[Path], dict]:
    """Simulated ten-point games and tests/fixtures/tenpoint (moons, pitches), with stored counters."""
    logs = tenpoint_logs(tmp_path_factory.mktemp("tenpoint-logs"))
    root = tmp_path_factory.mktemp("tenpoint") / "ds"
    imported = import_paths([str(p) for p in logs], root, summarize=summarize_batch)
    assert imported.findings == []
    return root, logs, recount_logs(logs)


def recount_points(recounted: dict, per: str) -> dict[str, dict]:
    """The point and moon statistics per unit, from the records replayed in tests/test_tables.py."""
    acc: dict[str, dict] = defaultdict(lambda: defaultdict(int))
    for game, hand, rules, rc in recounted.values():
        team_of = {p: t for t, ps in game.teams.items() for p in ps}
        members = defaultdict(list)
        for p in game.players:
            members[team_of.get(p, p)].append(p)
        pitcher = max(((b.player, bid_number(b.word, rules)) for b in hand.bids.bids), key=lambda pb: pb[1])[0]
        for b in hand.bids.bids:
            acc[b.player if per == "player" else team_of.get(b.player, b.player)]["bids"] += b.word != "pass"
        if rc["moon"]:
            a = acc[pitcher if per == "player" else team_of[pitcher]]
            a["moon_attempts"] += 1
            a["moons_made"] += rc["made"][team_of[pitcher]] == rules.top_bid
        for side, made in rc["made"].items():
            for u in (members[side] if per == "player" else [side]):
                a = acc[u]
                a["hands"] += 1
                a["points"] += made
                a["in_play"] += (10 if rules.trey else 7) if rules.ten_point else 4
                if rules.ten_point:
                    a["ten_point_hands"] += 1
                    a["off_jack"] += rc["points"]["off_jack"] == side
                    a["jokers"] += (rc["points"]["high_joker"] == side) + (rc["points"]["low_joker"] == side)
                if rules.trey:
                    a["trey_hands"] += 1
                    a["trey"] += rc["points"]["trey"] == side

    def rate(n, d):
        return 100 * n / d if d else None

    return {u: dict(hands=a["hands"], bids=a["bids"], moon_attempts=a["moon_attempts"],
                    smudge_attempts=a["moon_attempts"],  # no other top bid was won in these games
                    moons_made=a["moons_made"], smudges_made=a["moons_made"],
                    off_jack_per_100=rate(a["off_jack"], a["ten_point_hands"]),
                    jokers_per_100=rate(a["jokers"], a["ten_point_hands"]),
                    trey_per_100=rate(a["trey"], a["trey_hands"]), points_per_hand=a["points"] / a["hands"],
                    points_pct=rate(a["points"], a["in_play"]))
            for u, a in acc.items()}


@pytest.mark.parametrize("per", ["player", "team"])
@pytest.mark.parametrize("summaries", [True, False])
def test_ten_point_statistics_match_a_recount_of_the_records(tenpoint_ds, per, summaries):
    root, _, recounted = tenpoint_ds
    w = connect(root, summaries=summaries)
    assert reads_counters(w) == summaries
    got = by_name(stats(w, per), per)
    expected = recount_points(recounted, per)
    assert set(got) == set(expected)
    for unit, e in expected.items():
        approx(got[unit], e)
    # the moons of tests/fixtures/tenpoint: EW made one (Dee), NS failed one (Ann)
    if per == "team":
        approx(got["EW"], dict(moon_attempts=1, moons_made=1))
        approx(got["NS"], dict(moon_attempts=1, moons_made=0))
    # a game with trey=off has no trey rate; a game outside the ten-point presets has none of the three
    rows = by_name(stats(w, per, game="sim-tenpoint trey=off-2-1"), per)
    assert rows and all(r["trey_per_100"] is None and r["off_jack_per_100"] is not None for r in rows.values())
    rows = by_name(stats(w, per, game="pitching"), per)
    assert all(r["off_jack_per_100"] is None and r["jokers_per_100"] is None for r in rows.values())
    w.con.close()


def test_ten_point_views_and_counters(tenpoint_ds):
    root, _, recounted = tenpoint_ds
    check_counters(root, ({}, {"preset": "tenpoint"}, {"preset": "tenpoint52"}, {"game": "moon-made"}))
    check_recount(root)
    w = connect(root)
    # player_hands: the points the side took, the moon on the shooter's row only, the takeover on the dealer's
    (dee,) = rows_of(w, "SELECT * FROM player_hands WHERE game = 'moon-made' AND hand = 12 AND player = 'Dee'")
    approx(dee, dict(won_auction=True, contract=10, top_bid=True, moon=True, contract_made=True, points=10,
                     points_in_play=10, off_jack=True, high_joker=True, low_joker=True, trey=True))
    (bob,) = rows_of(w, "SELECT * FROM player_hands WHERE game = 'moon-made' AND hand = 12 AND player = 'Bob'")
    approx(bob, dict(moon=False, points=10, off_jack=True))
    (cal,) = rows_of(w, "SELECT * FROM player_hands WHERE game = 'pitching' AND hand = 3 AND player = 'Cal'")
    approx(cal, dict(takeover=True, won_auction=True, contract=4, bid=4, bid_words="pitch D", off_jack=None,
                     trey=None, points_in_play=4, set_back=8))
    assert rows_of(w, "SELECT count(*) AS n FROM player_hands WHERE takeover")[0]["n"] == 1
    (ns,) = rows_of(w, "SELECT * FROM side_hands WHERE game = 'moon-failed' AND hand = 2 AND side = 'NS'")
    approx(ns, dict(moon=True, contract=10, contract_made=False, was_set=True, set_back=10))
    # the stored counters: played hands of ten-point rule sets per side, and the points in play
    (c,) = rows_of(w, "SELECT * FROM game_player_counters WHERE game = 'moon-made' AND player = 'Dee'")
    assert (c["moon_attempts"], c["moons_made"], c["hands"], c["ten_point_hands"], c["trey_hands"],
            c["points_in_play"]) == (1, 1, 12, 12, 12, 120)
    rule_sets = {r["rules"]: r for r in rows_of(w, "SELECT * FROM rule_sets")}
    approx(rule_sets["tenpoint52"], dict(top_bid=10, moon=True, points_in_play=10, ten_point=True, trey=True))
    approx(rule_sets["tenpoint"], dict(top_bid=None, moon=False, points_in_play=10, ten_point=True, trey=True))
    approx(rule_sets["tenpoint trey=off"], dict(points_in_play=7, trey=False))
    w.con.close()


# --------------------------------------------------------------------------- datasets of an earlier schema version


def test_a_dataset_of_schema_version_1_answers_stats_and_queries(tmp_path, tenpoint_ds):
    full_root, logs, recounted = tenpoint_ds
    root = tmp_path / "ds"
    import_paths([str(p) for p in logs], root, summarize=summarize_batch)
    downgrade_to_v1(root)
    # the stored counters lack the new columns: the raw tables are read instead
    assert not summaries_complete(root)
    old, full = connect(root), connect(full_root)
    assert not reads_counters(old)
    unknown = ("off_jack_per_100", "jokers_per_100", "trey_per_100")  # never recorded by version 1
    for per in ("player", "team"):
        a, b = stats(old, per), stats(full, per)
        assert a.schema == b.schema
        for x, y in zip(a.to_pylist(), b.to_pylist()):
            assert all(x[k] is None for k in unknown)
            # moons and points in play come from the rule set: known for old batches too
            assert {k: v for k, v in x.items() if k not in unknown} == {k: v for k, v in y.items() if k not in unknown}
    # every view answers, the new columns null, the new table empty
    ((n, off_jack, widow, takeover),) = old.con.sql(
        "SELECT count(*), count(off_jack), count(widow), count(takeover) FROM hands").fetchall()
    assert n == len(recounted) and off_jack == widow == takeover == 0
    assert run_query(old, "SELECT count(*) FROM exchanges").column(0)[0].as_py() == 0
    for view in ("player_hands", "side_hands", "game_player_counters_live", "player_stats", "team_stats"):
        assert run_query(old, f"SELECT count(*) FROM {view}").column(0)[0].as_py() > 0, view
        assert old.con.sql(f"DESCRIBE {view}").fetchall() == full.con.sql(f"DESCRIBE {view}").fetchall(), view
    old.con.close()

    # a corrected game replaces its old version: the old batch is rewritten without its stale counters
    fixture = logs[-1].read_text(encoding="utf-8")
    corrected = tmp_path / "variations.pitch"
    corrected.write_text(fixture.replace('[GameId "pitching"]', '[GameId "pitching"]\n[Round "2"]'), encoding="utf-8")
    assert import_paths([str(corrected)], root).games_replaced == 1
    for f in table_files(root, SUMMARY_TABLE):
        assert not ds_mod.has_current_columns(f, SUMMARY_TABLE), f  # none that only looks complete
    # a new batch beside the old ones: its ten-point hands count, the old batches' cannot
    extra = tmp_path / "extra.pitch"
    extra.write_text(simulate("tenpoint", games=1, seed=9)[0], encoding="utf-8")
    import_paths([str(extra)], root, summarize=summarize_batch)
    mixed = connect(root)
    assert not reads_counters(mixed)
    fresh = recount_points(recount_logs([extra]), "team")
    for team, r in by_name(stats(mixed, "team"), "team").items():
        if team in fresh:
            approx(r, {k: fresh[team][k] for k in unknown})
    before = stats(mixed, "team").to_pylist()
    mixed.con.close()
    # compacting with summarize gives every batch current counters, and the same numbers
    compact(root, summarize=summarize_batch)
    assert summaries_complete(root)
    w = connect(root)
    assert reads_counters(w) and stats(w, "team").to_pylist() == before
    w.con.close()


def test_stats_table_format_shows_the_ten_point_table_only_where_it_has_numbers(tenpoint_ds):
    from typer.testing import CliRunner

    from auditor.cli import app

    root, _, _ = tenpoint_ds
    title = "moons, the ten-point points and the jick"
    out = CliRunner().invoke(app, ["stats", str(root), "--by", "team"])
    assert out.exit_code == 0 and title in out.stdout and "jokers per" in out.stdout
    out = CliRunner().invoke(app, ["stats", str(FIXTURES)])  # no ten-point game, no moon
    assert out.exit_code == 0 and title not in out.stdout and "moon" not in out.stdout


# --------------------------------------------------------------------------- smear


SMEAR_HANDS = ("clean_jick_follows_trump", "clean_low_is_the_jick", "clean_game_tie_jick_not_in_play",
               "clean_bid_of_five_made")


@pytest.mark.parametrize("stored", [False, True], ids=["raw tables", "stored counters"])
def test_smear_the_jick_counts_in_the_off_jack_rate(tmp_path, stored):
    """Four one-hand games, counted by hand (tests/golden/smear): the Jick taken by EW in the first,
    by NS in the second and fourth, not in play in the third; no jokers, no trey."""
    from .conftest import GOLDEN

    root = tmp_path / "ds"
    paths = [str(GOLDEN / "smear" / f"{name}.pitch") for name in SMEAR_HANDS]
    import_paths(paths, root, summarize=summarize_batch if stored else None)
    w = connect(root)
    assert reads_counters(w) == stored
    teams = by_name(stats(w, "team"), "team")
    # hands: 4 each; the jick's point is known in all four (in play or not): the denominator
    approx(teams["NS"], dict(hands=4, off_jack_per_100=50.0, jokers_per_100=None, trey_per_100=None,
                             points_pct=45.0))  # NS took 0 + 3 + 1 + 5 of 4 x 5 points
    approx(teams["EW"], dict(hands=4, off_jack_per_100=25.0, jokers_per_100=None, trey_per_100=None,
                             points_pct=35.0))  # 4 + 1 + 2 + 0
    ((jick_hands, tenpoint_hands),) = w.con.sql(
        "SELECT sum(off_jack_hands), sum(ten_point_hands) FROM game_player_counters_live WHERE side_lead").fetchall()
    assert (jick_hands, tenpoint_hands) == (8, 0)
    w.con.close()
