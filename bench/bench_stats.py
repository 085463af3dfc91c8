"""Benchmark: `auditor stats` against a plain DuckDB full scan of the plays table.

Goal (issue 4): stats over a 1,000,000-hand dataset within 3x the time DuckDB takes to scan
the plays table in full, in the same run.

    python bench/bench_stats.py                 # 1,000,000 hands
    python bench/bench_stats.py --hands 100000  # a quicker run

The dataset is built once and kept under bench/_data/ (gitignored): a few thousand hands
are simulated (with one injected revoke, score error and total error per game), then the text is replicated with fresh GameId values (so each copy is a new
game to the dataset) until it holds N hands, and imported.  Each timing is the best of
--repeat runs, both on the same warmed-up files: the scan reads the plays table (about 24
rows a hand) in full, every column, through DuckDB's read_parquet, as `auditor stats` reads
its tables.
"""

from __future__ import annotations

import argparse
import re
import sys
import time
from pathlib import Path

import duckdb

from auditor.simulate import simulate
from auditor.dataset import import_paths, table_files
from auditor.warehouse import connect, stats

HERE = Path(__file__).resolve().parent
DATA = HERE / "_data"
_GAME_ID = re.compile(r'^\[GameId "([^"]*)"\]$', re.M)


def build(hands: int, seed: int, games_per_file: int = 2000) -> Path:
    """The dataset of ``hands`` hands under bench/_data/, built unless it is already there."""
    root = DATA / f"ds-{hands}-{seed}-faults"
    done = root / ".complete"
    if done.exists():
        return root
    logs = DATA / f"logs-{hands}-{seed}-faults"
    logs.mkdir(parents=True, exist_ok=True)
    # with injected revokes and score-sheet errors, so that the revoke and findings paths do real work
    text, _ = simulate("auction", games=300, seed=seed, faults=("revoke", "score", "total"))
    per_copy = len(re.findall(r"^hand \d+$", text, re.M))
    copies = -(-hands // per_copy)
    games = _GAME_ID.findall(text)
    print(f"building {root.name}: {copies} copies of {len(games)} games / {per_copy} hands", file=sys.stderr)
    # copy game by game, stopping once N hands are written
    blocks = re.split(r"(?m)^(?=\[Event )", text)
    blocks = [b for b in blocks if b.strip()]
    written = 0
    batch: list[str] = []
    file_no = 0

    def flush() -> None:
        nonlocal batch, file_no
        if batch:
            (logs / f"part-{file_no:04d}.pitch").write_text("".join(batch), "utf-8")
            file_no += 1
            batch = []

    for c in range(copies):
        for b in blocks:
            if written >= hands:
                break
            batch.append(_GAME_ID.sub(lambda m: f'[GameId "{m.group(1)}-r{c}"]', b))
            written += len(re.findall(r"^hand \d+$", b, re.M))
            if len(batch) >= games_per_file:
                flush()
    flush()
    t = time.perf_counter()
    st = import_paths([str(logs)], root)
    print(f"imported {st.games_new} games, {st.hands} hands in {time.perf_counter() - t:.1f} s", file=sys.stderr)
    done.write_text(str(st.hands))
    return root


def best_of(n: int, fn) -> float:
    """The fastest of ``n`` timed calls of ``fn``."""
    times = []
    for _ in range(n):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return min(times)


def main(argv: list[str] | None = None) -> int:
    """Build (once) and time; prints both times and the ratio, exit 1 if over the goal."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--hands", type=int, default=1_000_000, help="hands in the dataset (default 1,000,000)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--repeat", type=int, default=3, help="timed runs of each; the best counts")
    ap.add_argument("--goal", type=float, default=3.0, help="allowed stats/scan ratio")
    args = ap.parse_args(argv)
    root = build(args.hands, args.seed)
    plays = [str(p) for p in table_files(root, "plays")]
    con = duckdb.connect(":memory:")
    hands = con.execute("SELECT count(*) FROM read_parquet($f)",
                        {"f": [str(p) for p in table_files(root, "hands")]}).fetchone()[0]
    # The baseline: DuckDB reading every column of every row of plays (max() cannot be
    # answered from Parquet statistics, unlike count(), so each value is really read).
    # A narrower scan of a few columns is reported too, for scale.
    full_sql = "SELECT count(*), max(COLUMNS(*)) FROM read_parquet($f)"
    narrow_sql = ("SELECT count(*), sum(hand), sum(trick), sum(position), count_if(revoke), "
                  "sum(length(player)), sum(length(card)) FROM read_parquet($f)")
    scan_rows = con.execute(full_sql, {"f": plays}).fetchone()[0]  # warms the file cache
    scan = best_of(args.repeat, lambda: con.execute(full_sql, {"f": plays}).fetchall())
    narrow = best_of(args.repeat, lambda: con.execute(narrow_sql, {"f": plays}).fetchall())
    wh = connect(root)
    rows = stats(wh).num_rows  # warm-up
    run = best_of(args.repeat, lambda: stats(wh))
    team = best_of(args.repeat, lambda: stats(wh, "team"))
    ratio = run / scan
    print(f"dataset: {root} ({hands} hands, {scan_rows} plays, {len(table_files(root, 'plays'))} "
          f"plays part file(s)); duckdb {duckdb.__version__}, {con.execute('SELECT current_setting(' + repr('threads') + ')').fetchone()[0]} threads")
    print(f"full scan of plays (every column): {scan:.3f} s")
    print(f"narrow scan of plays (6 columns):  {narrow:.3f} s")
    print(f"auditor stats --by player:         {run:.3f} s ({rows} players)")
    print(f"auditor stats --by team:           {team:.3f} s")
    print(f"ratio stats / full scan: {ratio:.2f}x (goal: within {args.goal:g}x); "
          f"stats / narrow scan: {run / narrow:.2f}x")
    return 0 if ratio <= args.goal else 1


if __name__ == "__main__":
    sys.exit(main())
