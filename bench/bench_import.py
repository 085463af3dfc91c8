"""Benchmark: parse, audit and import N generated hands, against a floor measured in the same run.

    python bench/bench_import.py                                # 1,000,000 hands of every preset together
    python bench/bench_import.py --hands 200000                 # quicker
    python bench/bench_import.py --each-preset --flat-check     # 1,000,000 hands of each preset, and 200,000
    python bench/bench_import.py --phases floor,cli-audit,cli-import --jobs 2
    python bench/bench_import.py --megabytes 10,100,1000 --phases cli-audit,cli-import   # memory per byte
    python bench/bench_import.py --simulate --presets auction,setback,smear,tenpoint --phases floor,cli-import
                                                                # games played by `auditor simulate -j 2`

The floor is reading the same file's lines into memory with polars (the least any
parser must do).  Each phase runs in a child process so that its peak memory is its
own; running two sizes shows whether memory stays flat as the input grows.  The
`cli-*` phases are the commands a user runs (`auditor audit`, `auditor import` with the
counters, on ``--jobs`` threads); `import` is the library call without the counters.

The corpus is a few thousand simulated hands per preset, repeated under new GameIds (so
that every copy is a game of its own) up to the size asked for; it is kept under
bench/_data/ and made again only when missing.  With ``--simulate`` every game is one of its
own, played by ``auditor simulate --games N -j 2`` (about ``--hands`` hands, shared among the
presets); with ``--megabytes`` too, that corpus is cut or repeated (under new GameIds) to size.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
DATA = HERE / "_data"

PHASES = {
    "floor": """
import polars as pl
df = pl.read_csv(PATH, has_header=False, separator="\\x1f", quote_char=None, new_columns=["line"],
                 schema_overrides={"line": pl.String})
n = df.height
""",
    "parse": """
from auditor.notation import iter_games
n = 0
with open(PATH, "rb") as f:
    for games, _ in iter_games(f, PATH):
        n += sum(len(g.hands) for g in games)
""",
    "parse+audit": """
from auditor.dataset import process
n = process([PATH]).hands
""",
    "import": """
import shutil
from auditor.dataset import import_paths
shutil.rmtree(OUT, ignore_errors=True)
n = import_paths([PATH], OUT, jobs=JOBS).hands
""",
    "cli-audit": """
import contextlib, io
from auditor.cli import main
sys.argv = ["auditor", "audit", PATH, "-j", str(JOBS), "--statistics", "-q"]
with contextlib.redirect_stdout(io.StringIO()):
    try:
        main()
    except SystemExit:
        pass
n = None
""",
    "cli-import": """
import shutil
from auditor.cli import main
shutil.rmtree(OUT, ignore_errors=True)
sys.argv = ["auditor", "import", PATH, "--out", OUT, "-j", str(JOBS), "--format", "json"]
try:
    main()
except SystemExit:
    pass
n = None
""",
}

CHILD = """
import json, resource, sys, time
PATH, OUT, JOBS = sys.argv[1], sys.argv[2], int(sys.argv[3])
t = time.perf_counter()
{body}
dt = time.perf_counter() - t
# VmHWM, not ru_maxrss: Linux carries a parent's peak across fork and exec into ru_maxrss
hwm = next(int(ln.split()[1]) for ln in open("/proc/self/status") if ln.startswith("VmHWM:"))
cpu = resource.getrusage(resource.RUSAGE_SELF)
print(json.dumps({{"seconds": dt, "n": n, "peak_mb": hwm / 1024, "cpu": cpu.ru_utime + cpu.ru_stime}}))
"""


def base_corpus(preset: str, seed: int = 1) -> str:
    """40 simulated games of ``preset`` (kept under bench/_data/, made once)."""
    from auditor.simulate import simulate

    cached = DATA / f"base_{preset}_{seed}.pitch"
    if not cached.exists():
        cached.write_text(simulate(preset, games=40, seed=seed)[0] + "\n", encoding="utf-8")
    return cached.read_text("utf-8")


HANDS_PER_GAME = 10  # about what the simulator's games last (game to 11), to ask it for enough games


def simulated_corpus(hands: int, presets: tuple[str, ...], seed: int = 1) -> Path:
    """About ``hands`` hands of games each played by ``auditor simulate --games N -j 2``, the
    presets in turn (kept under bench/_data/, made once)."""
    cached = DATA / f"sim_{hands}_{'_'.join(presets)}_{seed}.pitch"
    if not cached.exists():
        games = max(1, -(-hands // (HANDS_PER_GAME * len(presets))))
        part = cached.with_suffix(".part")
        with open(part, "wb") as out:
            for p in presets:
                t = time.perf_counter()
                one = DATA / f"sim_{p}.tmp"
                subprocess.run([sys.executable, "-c", "from auditor.cli import main; main()", "simulate", "--rules", p, "--games", str(games),
                                "--seed", str(seed), "-j", "2", "-o", str(one)], check=True, capture_output=True)
                out.write(one.read_bytes() + b"\n")
                one.unlink()
                print(f"  simulated {games:,} {p} games in {time.perf_counter() - t:.0f}s", flush=True)
        part.rename(cached)
    return cached


def generate(hands: int, path: Path, seed: int = 1, presets: tuple[str, ...] = (), base: str | None = None) -> int:
    """Write about ``hands`` hands: a few thousand simulated ones (or ``base``), repeated under
    new GameIds, the last copy cut at a game boundary."""
    from auditor.rules import PRESETS

    if base is None:
        base = "".join(base_corpus(p, seed) for p in presets or tuple(PRESETS))
    starts = [m.start() for m in re.finditer(r"^hand \d+$", base, flags=re.M)]
    written = 0
    with open(path, "w", encoding="utf-8") as f:
        i = 0
        while written < hands:
            text = base
            if hands - written < len(starts):  # the last copy: up to the game holding the hand asked for
                cut = base.find('\n[Event', starts[hands - written])
                text = base if cut < 0 else base[:cut + 1]
            f.write(re.sub(r'\[GameId "([^"]+)"\]', lambda m: f'[GameId "{m.group(1)}-{i}"]', text))
            written += len(re.findall(r"^hand \d+$", text, flags=re.M))
            i += 1
    return written


def run(phase: str, path: Path, out: Path, jobs: int) -> dict:
    code = CHILD.format(body=PHASES[phase])
    proc = subprocess.run([sys.executable, "-c", code, str(path), str(out), str(jobs)], capture_output=True,
                          text=True, check=True)
    return json.loads(proc.stdout.strip().splitlines()[-1])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--hands", type=int, default=1_000_000)
    ap.add_argument("--phases", default="floor,parse,parse+audit,import")
    ap.add_argument("--flat-check", action="store_true", help="also run import at a quarter of the size")
    ap.add_argument("--presets", default="", help="comma-separated presets to simulate (default: every preset)")
    ap.add_argument("--each-preset", action="store_true", help="a corpus of --hands hands for each preset in turn")
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 1, help="threads for the cli-* phases and import")
    ap.add_argument("--keep", action="store_true", help="keep the generated corpora (they are large)")
    ap.add_argument("--megabytes", default="", help="comma-separated log sizes in MB, in place of --hands")
    ap.add_argument("--simulate", action="store_true",
                    help="games each played by `auditor simulate -j 2`, not a few thousand hands repeated")
    args = ap.parse_args()
    from auditor.rules import PRESETS

    chosen = tuple(p for p in args.presets.split(",") if p)
    groups = [(p,) for p in chosen or tuple(PRESETS)] if args.each_preset else [chosen]
    DATA.mkdir(exist_ok=True)
    sizes = [args.hands] + ([args.hands // 5] if args.flat_check else [])
    sim = None
    if args.simulate:
        print(f"simulating about {args.hands:,} hands ({', '.join(chosen or tuple(PRESETS))})", flush=True)
        sim = simulated_corpus(args.hands, chosen or tuple(PRESETS)).read_text("utf-8")
        groups = [chosen]
    if args.megabytes:
        # hands per MB of the corpus, from its base: the sizes asked for in bytes
        base = sim if sim is not None else "".join(base_corpus(p) for p in chosen or tuple(PRESETS))
        per_mb = len(re.findall(r"^hand \d+$", base, flags=re.M)) / (len(base.encode()) / 1e6)
        sizes = [int(float(mb) * per_mb) for mb in args.megabytes.split(",")]
    print(f"{os.cpu_count()} cores, jobs={args.jobs}; load average {os.getloadavg()[0]:.1f}")
    for presets in groups:
        for size in sizes:
            path = DATA / f"bench_{size}{'_' + '_'.join(presets) if presets else ''}.pitch"
            t = time.perf_counter()
            n = generate(size, path, presets=presets, base=sim)
            print(f"{'+'.join(presets) or 'every preset'}: generated {n:,} hands ({path.stat().st_size / 1e6:.0f} MB) "
                  f"in {time.perf_counter() - t:.1f}s")
            floor = floor_cpu = None
            for phase in args.phases.split(","):
                r = run(phase, path, DATA / "bench_ds", args.jobs)
                if phase == "floor":
                    floor = r["seconds"]
                    floor_cpu = r["cpu"]
                    print(f"  floor        {r['seconds']:8.2f}s  (read {r['n']:,} lines with polars), "
                          f"cpu {r['cpu']:.1f}s  peak {r['peak_mb']:.0f} MB")
                    continue
                ratio = f", {r['seconds'] / floor:.1f}x the floor ({r['cpu'] / floor_cpu:.1f}x its cpu)" if floor else ""
                # on a shared machine the wall clock waits for other work; cpu seconds do not
                print(f"  {phase:12s} {r['seconds']:8.2f}s  {n / r['seconds']:>10,.0f} hands/s  "
                      f"cpu {r['cpu']:.1f}s ({n / r['cpu']:,.0f} hands per cpu-s)  peak {r['peak_mb']:.0f} MB{ratio}",
                      flush=True)
            if not args.keep:
                path.unlink()


if __name__ == "__main__":
    main()
