"""Benchmark: the perfect-play solver on generated games, beside the floor and the audit of the same file.

    python bench/bench_analyze.py                       # 4-player partnership, 6-player partnership, tenpoint
    python bench/bench_analyze.py --games 100 --jobs 1

For each table: the floor (reading the file's lines), the audit (parse, replay, score), then
the analysis of every hand in the core, twice: "costs" (par with the trump pitched and each
card's cost: a solve of every position of the record) and "full" (also par with each trump
the pitcher could have pitched, and the claim). Per hand: the mean and the worst time, and
the positions searched, as the core measured them.
"""

from __future__ import annotations

import argparse
import statistics
import time

from auditor import _core
from auditor.engine import analyze_games, audit_games
from auditor.notation import parse_text
from auditor.simulate import simulate

TABLES = {
    "partnership": ("partnership", None, ""),
    "partnership-6": ("partnership", 6, "players=6 deal_size=6"),
    "cutthroat-4": ("cutthroat", 4, ""),
    "tenpoint": ("tenpoint", None, ""),
    "smear": ("smear", None, ""),
}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=150)
    ap.add_argument("--tables", default="partnership,partnership-6,tenpoint")
    ap.add_argument("--jobs", type=int, default=2)
    args = ap.parse_args()
    for name in args.tables.split(","):
        preset, players, rules = TABLES[name]
        kw = {"players": players} if players else {}
        text, _ = simulate(preset, games=args.games, seed=11, rules_text=rules, **kw)
        path = f"/tmp/bench_analyze_{name}.pitch"
        with open(path, "w") as f:
            f.write(text)
        t = time.perf_counter()
        _core.count_lines(path)
        floor = time.perf_counter() - t
        games, _ = parse_text(text, path)
        t = time.perf_counter()
        audit_games(games)
        audit = time.perf_counter() - t
        print(f"{name}: {len(games)} games, {len(text) / 1e6:.2f} MB; floor {floor:.3f}s; audit {audit:.3f}s")
        for full in (False, True):
            t = time.perf_counter()
            hands = [h for g in analyze_games(games, jobs=args.jobs, full=full) for h in g]
            wall = time.perf_counter() - t
            done = [h for h in hands if not h.not_analysable]
            micros = [h.micros for h in done]
            plays = sum(len(h.plays) for h in done)
            print(f"  {'full ' if full else 'costs'}  {wall:7.3f}s  {len(done) / wall:9,.0f} hands/s on {args.jobs} "
                  f"thread(s) ({len(hands) - len(done)} not analysable); {plays:,} cards costed; per hand "
                  f"mean {statistics.mean(micros) / 1e3:.2f} ms, worst {max(micros) / 1e3:.1f} ms")


if __name__ == "__main__":
    main()
