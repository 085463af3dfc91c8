"""`auditor stats` and `auditor query` through the command line (typer's CliRunner).

The numbers are the hand counts of tests/test_warehouse.py, on tests/fixtures/stats/.
"""

from __future__ import annotations

import csv
import hashlib
import io
import json
import shutil
from pathlib import Path

import pyarrow.parquet as pq
import pytest
from typer.testing import CliRunner

from auditor.cli import app
from auditor.dataset import import_paths, table_files

from .conftest import ROOT

FIXTURES = ROOT / "tests" / "fixtures" / "stats"
runner = CliRunner()


@pytest.fixture(scope="module")
def ds(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("cli") / "ds"
    import_paths([str(FIXTURES)], out)
    return out


def invoke(*args: str, input: str | None = None):
    return runner.invoke(app, list(args), input=input)


def csv_rows(text: str) -> list[dict]:
    return list(csv.DictReader(io.StringIO(text)))


def digest(root: Path) -> dict[str, str]:
    return {str(p.relative_to(root)): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(root.rglob("*")) if p.is_file()}


# --------------------------------------------------------------------------- stored counters


def counters_in_every_batch(root: Path) -> int:
    batches = list((root / "current").glob("batch=*"))
    assert batches and all((b / "game_player_counters.parquet").exists() for b in batches), batches
    return len(batches)


def test_import_audit_and_compact_write_the_stored_counters(tmp_path):
    root = tmp_path / "ds"
    assert invoke("import", str(FIXTURES / "club.pitch"), "--out", str(root)).exit_code == 0
    r = invoke("audit", str(FIXTURES / "league.pitch"), "--out", str(root))
    assert r.exit_code == 0, r.output
    assert counters_in_every_batch(root) == 2
    before = invoke("stats", str(root), "--format", "json").stdout
    r = invoke("compact", str(root))
    assert r.exit_code == 0, r.output
    assert counters_in_every_batch(root) == 1
    assert invoke("stats", str(root), "--format", "json").stdout == before


def test_stats_from_counters_equal_stats_from_raw_tables(ds, tmp_path):
    root = tmp_path / "ds"
    assert invoke("import", str(FIXTURES), "--out", str(root)).exit_code == 0
    counters_in_every_batch(root)
    assert not list((ds / "current").glob("batch=*/game_player_counters.parquet"))
    for args in ([], ["--by", "team"], ["--rules", "partnership", "--by", "team"], ["--game", "club-2"]):
        with_counters = invoke("stats", str(root), "--format", "json", *args)
        without = invoke("stats", str(ds), "--format", "json", *args)
        assert with_counters.exit_code == 0 and with_counters.stdout == without.stdout, args


# --------------------------------------------------------------------------- stats


def test_stats_table_is_the_default(ds):
    r = invoke("stats", str(ds))
    assert r.exit_code == 0, r.output
    out = r.stdout
    for title in ("games, by player", "auction, by player", "contracts, by player", "points", "revokes"):
        assert title in out
    for name in ("Ann", "Bob", "Cal", "Dee"):
        assert name in out
    assert "Traceback" not in r.output


def test_stats_json_and_csv(ds):
    r = invoke("stats", str(ds), "--format", "json")
    assert r.exit_code == 0, r.output
    rows = {x["player"]: x for x in json.loads(r.stdout)}
    # Ann: 8 played hands, 4 bids in 8 turns, 3 auctions won (2, 4, 3), settlement +3 from club-1
    assert rows["Ann"]["hands"] == 8 and rows["Ann"]["bid_rate"] == 50.0
    assert rows["Ann"]["avg_winning_bid"] == 3.0 and rows["Ann"]["settlement"] == 3
    # Bob: set back 3 in club-2 and 2 for his revoke in club-1
    assert rows["Bob"]["points_set_back"] == 5 and rows["Bob"]["revokes"] == 1
    assert rows["Dee"]["settlement"] is None
    r = invoke("stats", str(ds), "--format", "csv", "--sort", "scoring_errors")
    assert r.exit_code == 0, r.output
    table = csv_rows(r.stdout)
    assert table[0]["player"] == "Cal" and table[0]["scoring_errors"] == "2"  # S601 and S602 in club-1


def test_stats_by_team_with_filters(ds):
    r = invoke("stats", str(ds), "--by", "team", "--rules", "partnership", "--format", "csv")
    assert r.exit_code == 0, r.output
    rows = {x["team"]: x for x in csv_rows(r.stdout)}
    assert set(rows) == {"NS", "EW"}
    assert rows["NS"]["games_won"] == "1" and rows["NS"]["auctions_won"] == "1"
    assert rows["EW"]["game_per_100"] == "100.0"
    # club-2 only (dated 2026.01.15), both date spellings accepted
    for since in ("2026-01-10", "2026.01.10"):
        r = invoke("stats", str(ds), "--event", "Club", "--since", since, "--until", "2026-01-31", "--format", "json")
        assert r.exit_code == 0, r.output
        rows = {x["player"]: x for x in json.loads(r.stdout)}
        assert rows["Bob"]["games"] == 1 and rows["Bob"]["times_set"] == 1
    r = invoke("stats", str(ds), "--game", "club-1", "--min-hands", "3", "--format", "json")
    assert [x["player"] for x in json.loads(r.stdout)] == ["Ann", "Cal", "Bob"]


def test_stats_parquet_output(ds, tmp_path):
    out = tmp_path / "stats.parquet"
    r = invoke("stats", str(ds), "--format", "parquet", "--output", str(out))
    assert r.exit_code == 0, r.output
    t = pq.read_table(out)
    rows = {x["player"]: x for x in t.to_pylist()}
    assert rows["Cal"]["auctions_won"] == 3 and rows["Cal"]["times_set"] == 1
    assert t.schema.field("win_pct").type == "double"


def test_stats_table_to_a_file(ds, tmp_path):
    out = tmp_path / "stats.txt"
    r = invoke("stats", str(ds), "--output", str(out))
    assert r.exit_code == 0 and r.stdout == ""
    assert "contracts, by player" in out.read_text(encoding="utf-8")


def test_stats_straight_from_logs(ds):
    from_logs = invoke("stats", str(FIXTURES), "--format", "json")
    assert from_logs.exit_code == 0, from_logs.output
    assert "temporary dataset" in from_logs.stderr
    assert json.loads(from_logs.stdout) == json.loads(invoke("stats", str(ds), "--format", "json").stdout)


@pytest.mark.parametrize("args, message", [
    (["--by", "dealer"], "--by must be player or team"),
    (["--rules", "bridge"], "preset"),
    (["--since", "last week"], "--since takes a date"),
    (["--sort", "luck"], "unknown sort column 'luck'"),
    (["--format", "xml"], "--format must be one of"),
])
def test_stats_bad_arguments_exit_2(ds, args, message):
    r = invoke("stats", str(ds), *args)
    assert r.exit_code == 2
    assert message in r.stderr and "Traceback" not in r.output


def test_stats_unreadable_path_exits_2(tmp_path):
    r = invoke("stats", str(tmp_path / "nowhere.pitch"))
    assert r.exit_code == 2 and "nowhere.pitch" in r.stderr


# --------------------------------------------------------------------------- query


def test_query_csv_over_the_views(ds):
    r = invoke("query", "SELECT player, sum(points)::INT AS points FROM player_hands WHERE game = 'club-1' "
                        "GROUP BY ALL ORDER BY player", "--data", str(ds), "--format", "csv")
    assert r.exit_code == 0, r.output
    # club-1: Ann 1+1+4, Bob 0, Cal 3+3+0 (the misdeal has no points)
    assert r.stdout == "player,points\nAnn,6\nBob,0\nCal,6\n"


def test_query_sums_print_as_numbers(ds):
    r = invoke("query", "SELECT sum(points) AS s FROM hand_scores", "--data", str(ds), "--format", "json")
    assert r.exit_code == 0, r.output
    # points taken: club-1 (1+3) + (1+3) + 4, club-2 (1+2+1) + (1+1+2), pair-1 3+1, sell-1 (3+1) + (2+1)
    assert json.loads(r.stdout) == [{"s": 12 + 8 + 4 + 7}]


def test_query_from_a_file_and_from_stdin(ds, tmp_path):
    report = tmp_path / "report.sql"
    report.write_text("-- revokes per player\nSELECT player, count(*) AS n FROM plays WHERE revoke GROUP BY ALL;\n",
                      encoding="utf-8")
    r = invoke("query", f"@{report}", "--data", str(ds), "--format", "json")
    assert r.exit_code == 0, r.output
    assert json.loads(r.stdout) == [{"player": "Bob", "n": 1}]
    r = invoke("query", "--data", str(ds), "--format", "csv", input="SELECT count(*) AS n FROM hands")
    assert r.exit_code == 0, r.output
    assert r.stdout == "n\n9\n"
    r = invoke("query", "-", "--data", str(ds), "--format", "csv", input="SELECT count(*) AS n FROM games")
    assert r.stdout == "n\n4\n"
    r = invoke("query", f"@{tmp_path / 'missing.sql'}", "--data", str(ds))
    assert r.exit_code == 2 and "missing.sql" in r.stderr


def test_query_parquet_output(ds, tmp_path):
    out = tmp_path / "q.parquet"
    r = invoke("query", "SELECT * FROM player_hands", "--data", str(ds), "--format", "parquet", "--output", str(out))
    assert r.exit_code == 0, r.output
    assert pq.read_table(out).num_rows == 3 * 4 + 3 * 2 + 4 * 1 + 4 * 2  # players x hands of each game


def test_query_over_logs(ds):
    r = invoke("query", "SELECT count(*) AS n FROM player_hands", "--data", str(FIXTURES / "club.pitch"),
               "--format", "csv")
    assert r.exit_code == 0, r.output
    assert r.stdout == "n\n18\n"  # 3 players x 6 hands


@pytest.mark.parametrize("sql, message", [
    ("SELEC 1", "syntax error"),
    ("SELECT * FROM no_such_view", "no_such_view"),
    ("SELECT 1/'x'", "Error"),
])
def test_bad_sql_gets_duckdbs_message_and_exit_2(ds, sql, message):
    r = invoke("query", sql, "--data", str(ds))
    assert r.exit_code == 2
    assert message in r.stderr and "Traceback" not in r.output and r.stdout == ""


@pytest.mark.parametrize("sql", [
    "UPDATE hands SET contract = 9 WHERE hand = 1",
    "DELETE FROM plays",
    "COPY (SELECT * FROM plays) TO '{part}' (FORMAT parquet, USE_TMP_FILE false)",
    "COPY hands TO '{root}/hands.csv'",
    "EXPLAIN ANALYZE COPY (SELECT 1 AS a) TO '{part}' (FORMAT parquet, USE_TMP_FILE false)",
])
def test_writes_are_refused_with_exit_2_and_the_data_unchanged(ds, tmp_path, sql):
    root = tmp_path / "ds"
    shutil.copytree(ds, root)
    part = table_files(root, "plays")[0]
    before = digest(root)
    r = invoke("query", sql.format(part=part, root=root), "--data", str(root))
    assert r.exit_code == 2, r.output
    assert "refused" in r.stderr and "nothing was run" in r.stderr and "Traceback" not in r.output
    assert digest(root) == before
    r = invoke("query", "SELECT count(*) AS n FROM plays", "--data", str(root), "--format", "csv")
    # 5 played club hands of 18 cards, pair-1's 24, sell-1's 2 x 24
    assert r.stdout == "n\n" + str(5 * 18 + 24 + 2 * 24) + "\n"


def test_schema_lists_views_and_columns():
    r = invoke("query", "--schema", "--format", "json")
    assert r.exit_code == 0, r.output
    rows = json.loads(r.stdout)
    cols = {(x["view"], x["column"]) for x in rows}
    assert ("player_hands", "was_set") in cols and ("hands", "contract_made") in cols
    assert ("player_stats", "smudges_made") in cols and ("unit_stats(...)", "unit") in cols
    assert all(x["meaning"] for x in rows)
    r = invoke("query", "--schema")
    assert r.exit_code == 0 and "player_hands" in r.stdout


def test_query_without_data_runs_over_empty_views():
    r = invoke("query", "SELECT count(*) AS n FROM player_stats", "--format", "csv")
    assert r.exit_code == 0 and r.stdout == "n\n0\n" and "views are empty" in r.stderr


def test_query_runs_one_statement_and_refuses_several_rather_than_show_only_the_last(ds):
    r = invoke("query", "--data", str(ds), "SELECT 1 AS a; SELECT 2 AS b")
    assert r.exit_code == 2 and "2 statements" in r.stderr and r.stdout == ""
    r = invoke("query", "--data", str(ds), "--format", "csv", "SELECT 2 AS b;")  # a trailing `;` is one statement
    assert r.exit_code == 0 and r.stdout.splitlines() == ["b", "2"]


def test_stats_and_query_warn_after_check_found_a_damaged_file(tmp_path):
    root = tmp_path / "ds"
    assert invoke("import", str(FIXTURES / "club.pitch"), "--out", str(root)).exit_code == 0
    assert "warning" not in invoke("stats", str(root)).stderr
    plays = next((root / "current").glob("batch=*/plays.parquet")).resolve()
    data = bytearray(plays.read_bytes())
    original = bytes(data)
    data[len(data) // 2] ^= 0x01  # a flipped bit in the middle of a column: the file still reads
    plays.write_bytes(bytes(data))
    assert "warning" not in invoke("stats", str(root)).stderr  # nobody has looked yet
    r = invoke("check", str(root))
    assert r.exit_code == 1 and "plays.parquet" in r.stdout
    for args in (["stats", str(root)], ["query", "--data", str(root), "SELECT count(*) FROM games"],
                 ["report", str(root), "-o", str(tmp_path / "r.html")]):
        r = invoke(*args)
        assert "warning: `auditor check` found 1 problem in" in r.stderr and "plays.parquet" in r.stderr, args
        assert "figures may be wrong" in r.stderr
    plays.write_bytes(original)
    assert invoke("check", str(root)).exit_code == 0
    assert "warning" not in invoke("stats", str(root)).stderr  # sound again: no more warning
