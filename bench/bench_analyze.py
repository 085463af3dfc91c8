"""Benchmark: the perfect-play solver on generated games of every preset, beside the floor and the audit of the same file.

    python bench/bench_analyze.py                                  # the tables of the speed targets
    python bench/bench_analyze.py --tables all --games 20          # every preset and variation
    python bench/bench_analyze.py --tables partnership --cli       # also `auditor analyze FILE --format json`
    python bench/bench_analyze.py --corpus DIR --tables all        # DIR/NAME.pitch instead of generating
    python bench/bench_analyze.py --tables partnership --import    # also `auditor import` with and without --analyze

For each table: the floor (reading the file's lines), the audit (parse, replay, score), then the
analysis of every hand in the core, twice: "costs" (par with the trump pitched and each card's
cost: a solve of every position of the record) and "full" (also par with each trump the pitcher
could have pitched, and the claim), each as `auditor analyze` runs it (the log's bytes parsed,
audited and examined in the core on --jobs threads). Per table: hands per second of wall time
and per second of CPU time (all threads; on a machine shared with other work the CPU figure is
the steadier), the mean and the worst hand's time, the positions searched, and the hands left
not analysed. With --cli, the command itself (JSON out), its start-up (the same command on a log
of one hand) taken off. With --import, `auditor import FILE --out DATASET` with and without
`--analyze`: the analysis's rate is the hands over the difference (the import's own cost taken off).
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from auditor import _core
from auditor.engine import audit_games, rules_resolver
from auditor.notation import parse_text
from auditor.simulate import simulate

# name: (preset, players, rule words)
TABLES = {
    "auction-3": ("auction", 3, ""),
    "auction": ("auction", 4, ""),
    "auction-5": ("auction", 5, ""),
    "auction-6": ("auction", 6, ""),
    "auction-7": ("auction", 7, ""),
    "sell": ("sell", 4, ""),
    "sell-6": ("sell", 6, ""),
    "sell-8": ("sell", 8, ""),
    "setback": ("setback", 4, ""),
    "setback-7": ("setback", 7, ""),
    "partnership": ("partnership", 4, ""),
    "partnership-draw": ("partnership", 4, "draw=on"),
    "partnership-pitching": ("partnership", 4, "pitching=on double_loss=on"),
    "partnership-free": ("partnership", 4, "first_trick_trump=free"),
    "partnership-6": ("partnership", 6, "players=6"),
    "cutthroat-2": ("cutthroat", 2, ""),
    "cutthroat-3": ("cutthroat", 3, ""),
    "cutthroat-4": ("cutthroat", 4, ""),
    "cutthroat-5": ("cutthroat", 5, ""),
    "cutthroat-6": ("cutthroat", 6, ""),
    "cutthroat-7": ("cutthroat", 7, ""),
    "tenpoint": ("tenpoint", 4, ""),
    "tenpoint-6": ("tenpoint", 6, ""),
    "tenpoint-strict": ("tenpoint", 4, "follow=strict"),
    "tenpoint-free": ("tenpoint", 4, "follow=free-when-void"),
    "tenpoint-ten": ("tenpoint", 4, "game_point=ten trey=off"),
    "tenpoint52": ("tenpoint52", 4, ""),
    "smear": ("smear", 4, ""),
}
TARGETS = "partnership,smear,auction,partnership-6"


def cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime


def examine(data: bytes, name: str, jobs: int, full: bool) -> tuple[float, float, list]:
    """Wall and CPU seconds, and per hand (microseconds, positions searched, reason not analysed)."""
    t, c = time.perf_counter(), cpu()
    _, _, out = _core.analyze_bytes(data, name, rules_resolver(""), jobs, full, False)
    wall, used = time.perf_counter() - t, cpu() - c
    hands = []
    for g in out:
        for _, timed in (g or {}).get("hands", []):
            if timed is not None:
                a, micros = timed
                hands.append((micros, 0 if isinstance(a, str) else a["nodes"], a if isinstance(a, str) else None))
    return wall, used, hands


def command(path: str, one: str, runs: int) -> tuple[float, float]:
    """The fastest seconds of `auditor analyze FILE --format json`, and of the same on a log of one hand."""
    exe = [sys.executable, "-m", "auditor.cli"] if not os.path.exists(Path(sys.executable).parent / "auditor") \
        else [str(Path(sys.executable).parent / "auditor")]

    def timed(p: str) -> float:
        t = time.perf_counter()
        subprocess.run(exe + ["analyze", p, "--format", "json"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                       check=False)
        return time.perf_counter() - t

    return min(timed(path) for _ in range(runs)), min(timed(one) for _ in range(runs))


def imports(path: str, runs: int, jobs: int) -> tuple[float, float]:
    """The fastest seconds of `auditor import FILE --out DATASET`, without and with --analyze (a fresh dataset each run)."""
    exe = [sys.executable, "-m", "auditor.cli"] if not os.path.exists(Path(sys.executable).parent / "auditor") \
        else [str(Path(sys.executable).parent / "auditor")]

    def timed(extra: list[str]) -> float:
        with tempfile.TemporaryDirectory() as d:
            t = time.perf_counter()
            subprocess.run(exe + ["import", path, "--out", str(Path(d) / "club.parquet"), "-j", str(jobs)] + extra,
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
            return time.perf_counter() - t

    return min(timed([]) for _ in range(runs)), min(timed(["--analyze"]) for _ in range(runs))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=150)
    ap.add_argument("--tables", default=TARGETS, help=f"comma-separated, or 'all' (default {TARGETS})")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--corpus", type=Path, help="read DIR/NAME.pitch instead of generating the games")
    ap.add_argument("--cli", action="store_true", help="also time the command users run")
    ap.add_argument("--import", dest="imports", action="store_true",
                    help="also time `auditor import` with and without --analyze")
    ap.add_argument("--repeat", type=int, default=1, help="runs of each in-core analysis (the fastest is shown)")
    ap.add_argument("--runs", type=int, default=3, help="runs of the command with --cli or --import (the fastest is shown)")
    args = ap.parse_args()
    names = list(TABLES) if args.tables == "all" else args.tables.split(",")
    for name in names:
        preset, players, rules = TABLES[name]
        if args.corpus:
            path = str(args.corpus / f"{name}.pitch")
            text = Path(path).read_text()
        else:
            text, _ = simulate(preset, games=args.games, seed=11, players=players, faults=("revoke",),
                               rules_text=rules)
            path = f"/tmp/bench_analyze_{name}.pitch"
            Path(path).write_text(text)
        data = text.encode()
        t = time.perf_counter()
        _core.count_lines(path)
        floor = time.perf_counter() - t
        games, _ = parse_text(text, path)
        t = time.perf_counter()
        audit_games(games)
        audit = time.perf_counter() - t
        print(f"{name}: {len(games)} games, {len(data) / 1e6:.2f} MB; floor {floor:.3f}s; audit {audit:.3f}s", flush=True)
        for full in (False, True):
            # on a shared machine the fastest of --repeat runs is the one least disturbed
            wall, used, hands = min((examine(data, name, args.jobs, full) for _ in range(args.repeat)),
                                    key=lambda run: run[0])
            done = [h for h in hands if h[2] is None]
            micros = [h[0] for h in done] or [0]
            worst = max(done, default=(0, 0, None))
            print(f"  {'full ' if full else 'costs'}  {wall:7.3f}s  {len(done) / wall:9,.0f} hands/s on {args.jobs} "
                  f"thread(s), {len(done) / max(used, 1e-9):9,.0f} per CPU-second; {len(hands) - len(done)} not "
                  f"analysed; per hand mean {statistics.mean(micros) / 1e3:.2f} ms, worst {worst[0] / 1e3:.1f} ms "
                  f"({worst[1]:,} positions)", flush=True)
        if args.cli:
            one = "/tmp/bench_analyze_one.pitch"
            first = text.split("\nhand ", 2)
            Path(one).write_text(first[0] + ("\nhand " + first[1] if len(first) > 1 else ""))
            total, start = command(path, one, args.runs)
            hands = len(done)
            print(f"  command  {total:7.3f}s, start-up {start:.3f}s: {hands / max(total - start, 1e-9):9,.0f} hands/s "
                  f"(`auditor analyze FILE --format json`, fastest of {args.runs})", flush=True)

        if args.imports:
            plain, analysed = imports(path, args.runs, args.jobs)
            hands = len(done)
            rate = hands / max(analysed - plain, 1e-9)
            print(f"  import   {plain:7.3f}s, with --analyze {analysed:.3f}s: the analysis {rate:9,.0f} hands/s "
                  f"(fastest of {args.runs})", flush=True)


if __name__ == "__main__":
    main()
