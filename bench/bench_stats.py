"""Benchmark: `auditor stats` against a plain DuckDB full scan of the plays table.

Goal (issue 4): stats over a 1,000,000-hand dataset within 3x the time DuckDB takes to scan
the plays table in full, in the same run.  Issue 7: stats read the stored per-game counters
(the table game_player_counters); the time computing them from the raw tables instead is
reported beside it, on the same dataset.

    python bench/bench_stats.py                 # 1,000,000 hands
    python bench/bench_stats.py --hands 100000  # a quicker run
    python bench/bench_stats.py --replicate 10  # 10,000,000 hands (copies of the 1,000,000)

The dataset is built once and kept under bench/_data/ (gitignored): a few thousand hands
are simulated, with one injected revoke, score error and total error per game so that the
revoke and findings paths do real work; the text is replicated with fresh GameId values
(each copy is a new game to the dataset) until it holds N hands, and imported.

Each timing is the best of --repeat runs on the same warmed-up files.  The baseline reads
every column of every row of plays (about 24 rows a hand) through DuckDB's read_parquet, as
`auditor stats` reads its tables; a narrower scan of six columns is reported too, for scale.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import sys
import time
from pathlib import Path

import duckdb

from auditor.dataset import import_paths, table_files
from auditor.simulate import simulate
from auditor.warehouse import SUMMARY_TABLE, connect, is_dataset, stats, summaries_complete, summarize_batch

HERE = Path(__file__).resolve().parent
DATA = HERE / "_data"
_GAME_ID = re.compile(r'^\[GameId "([^"]*)"\]$', re.M)
_HAND = re.compile(r"^hand \d+$", re.M)

# max() cannot be answered from Parquet statistics, unlike count(), so every value is read
FULL_SCAN = "SELECT count(*), max(COLUMNS(*)) FROM read_parquet($f)"
NARROW_SCAN = ("SELECT count(*), sum(hand), sum(trick), sum(position), count_if(revoke), "
               "sum(length(player)), sum(length(card)) FROM read_parquet($f)")


def write_logs(hands: int, seed: int, logs: Path, games_per_file: int = 2000) -> None:
    """About ``hands`` hands of Auction Pitch in ``logs``: simulated once, then copied."""
    text, _ = simulate("auction", games=300, seed=seed, faults=("revoke", "score", "total"))
    blocks = [b for b in re.split(r"(?m)^(?=\[Event )", text) if b.strip()]
    per_copy = len(_HAND.findall(text))
    print(f"writing {logs.name}: copies of {len(blocks)} games / {per_copy} hands", file=sys.stderr)
    shutil.rmtree(logs, ignore_errors=True)
    logs.mkdir(parents=True)
    written, file_no, batch = 0, 0, []
    for c in range(-(-hands // per_copy)):
        for b in blocks:
            if written >= hands:
                break
            batch.append(_GAME_ID.sub(lambda m: f'[GameId "{m.group(1)}-r{c}"]', b))
            written += len(_HAND.findall(b))
            if len(batch) >= games_per_file:
                (logs / f"part-{file_no:04d}.pitch").write_text("".join(batch), "utf-8")
                file_no, batch = file_no + 1, []
    if batch:
        (logs / f"part-{file_no:04d}.pitch").write_text("".join(batch), "utf-8")


def build(hands: int, seed: int, jobs: int) -> Path:
    """The dataset of ``hands`` hands under bench/_data/, built unless it is already there."""
    root = DATA / f"stats-{hands}-{seed}"
    done = root / ".complete"
    if done.exists() and is_dataset(root):
        return root
    shutil.rmtree(root, ignore_errors=True)  # a half-built one, or one in an older layout
    logs = DATA / f"stats-logs-{hands}-{seed}"
    write_logs(hands, seed, logs)
    t = time.perf_counter()
    st = import_paths([str(logs)], root, jobs=jobs, summarize=summarize_batch)
    print(f"imported {st.games_new} games, {st.hands} hands in {time.perf_counter() - t:.1f} s ({jobs} jobs)",
          file=sys.stderr)
    done.write_text(str(st.hands))
    return root


def replicate(src: Path, copies: int) -> Path:
    """A dataset ``copies`` times the size of ``src``: every batch copied with fresh game ids.

    Importing 10M hands through the parser takes hours on two cores; the query side only needs
    the rows, so the copies are made in DuckDB and published as batches of their own.
    """
    from auditor.dataset import locked, publish, read_manifest
    from auditor.tables import TABLES

    root = src.with_name(f"{src.name}-x{copies}")
    if (root / ".complete").exists() and is_dataset(root):
        return root
    shutil.rmtree(root, ignore_errors=True)
    con = duckdb.connect(":memory:")
    gen = src / "current"
    with locked(root):
        new = {}
        for batch, entry in read_manifest(src)["batches"].items():
            for i in range(copies):
                bid = f"{batch}-{i}"
                out = root / "staging" / bid
                out.mkdir(parents=True)
                for t in TABLES:
                    f = gen / f"batch={batch}" / f"{t}.parquet"
                    if f.exists():
                        con.execute(f"COPY (SELECT * REPLACE (game_id || '-{i}' AS game_id) FROM "
                                    f"read_parquet('{f}', hive_partitioning = false)) TO '{out / (t + '.parquet')}' "
                                    "(FORMAT parquet, COMPRESSION zstd)")
                new[bid] = dict(entry)
        publish(root, new)
    (root / ".complete").write_text("")
    return root


def add_summaries(root: Path) -> None:
    """Give every published batch of ``root`` its stored counters, where it lacks them.

    For datasets built before the counters existed: each such batch is restaged as hard
    links under a new id, summarized, and published in its place (one new generation).
    """
    from auditor.dataset import current, locked, publish, read_manifest

    if summaries_complete(root):
        return
    t = time.perf_counter()
    with locked(root):
        gen = current(root)
        manifest = read_manifest(root)
        new, drop = {}, []
        for batch, entry in manifest["batches"].items():
            src = gen / f"batch={batch}"
            if (src / f"{SUMMARY_TABLE}.parquet").exists() or not (src / "games.parquet").exists():
                continue
            bid = f"{batch}-s"
            out = root / "staging" / bid
            shutil.rmtree(out, ignore_errors=True)
            out.mkdir(parents=True)
            for f in src.iterdir():
                os.link(f, out / f.name)
            summarize_batch(out)
            new[bid] = dict(entry)
            drop.append(batch)
        publish(root, new, drop)
    print(f"summarized {len(new)} batches of {root.name} in {time.perf_counter() - t:.1f} s", file=sys.stderr)


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
    ap.add_argument("--goal", type=float, default=3.0, help="allowed stats / full scan ratio")
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 1, help="worker processes for the import")
    ap.add_argument("--replicate", type=int, default=1,
                    help="copy the built dataset's batches this many times (10 gives 10M hands from 1M)")
    args = ap.parse_args(argv)
    root = build(args.hands, args.seed, args.jobs)
    add_summaries(root)  # a dataset built before the counters existed
    if args.replicate > 1:
        root = replicate(root, args.replicate)
        add_summaries(root)
    plays = [str(p) for p in table_files(root, "plays")]
    con = duckdb.connect(":memory:")
    ((hands,),) = con.execute("SELECT count(*) FROM read_parquet($f)",
                              {"f": [str(p) for p in table_files(root, "hands")]}).fetchall()
    ((threads,),) = con.execute("SELECT current_setting('threads')").fetchall()
    scan_rows = con.execute(FULL_SCAN, {"f": plays}).fetchall()[0][0]  # also warms the file cache
    scan = best_of(args.repeat, lambda: con.execute(FULL_SCAN, {"f": plays}).fetchall())
    narrow = best_of(args.repeat, lambda: con.execute(NARROW_SCAN, {"f": plays}).fetchall())
    wh = connect(root)
    raw = connect(root, summaries=False)  # the same dataset, counters computed from the raw tables
    rows = stats(wh).num_rows  # warm-up
    for by in ("player", "team"):
        if stats(raw, by).to_pylist() != stats(wh, by).to_pylist():
            print(f"stats --by {by} from the stored counters differ from the raw tables'", file=sys.stderr)
            return 1
    run = best_of(args.repeat, lambda: stats(wh))
    team = best_of(args.repeat, lambda: stats(wh, "team"))
    run_raw = best_of(args.repeat, lambda: stats(raw))
    team_raw = best_of(args.repeat, lambda: stats(raw, "team"))
    counters = con.execute("SELECT count(*) FROM read_parquet($f)",
                           {"f": [str(p) for p in table_files(root, SUMMARY_TABLE)]}).fetchall()[0][0]
    ratio = run / scan
    print(f"dataset: {root} ({hands} hands, {scan_rows} plays in {len(plays)} file(s), {counters} counter rows); "
          f"duckdb {duckdb.__version__}, {threads} threads")
    print(f"full scan of plays (every column):  {scan:.3f} s")
    print(f"narrow scan of plays (6 columns):   {narrow:.3f} s")
    print(f"auditor stats --by player:          {run:.3f} s ({rows} players; stored counters)")
    print(f"auditor stats --by team:            {team:.3f} s")
    print(f"stats --by player from raw tables:  {run_raw:.3f} s")
    print(f"stats --by team from raw tables:    {team_raw:.3f} s")
    print(f"ratio stats / full scan: {ratio:.2f}x (goal: within {args.goal:g}x); "
          f"stats / narrow scan: {run / narrow:.2f}x; raw tables / stored counters: {run_raw / run:.1f}x")
    return 0 if ratio <= args.goal else 1


if __name__ == "__main__":
    sys.exit(main())
