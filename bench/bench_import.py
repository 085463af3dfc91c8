"""Benchmark: parse, audit and import N generated hands, against a floor measured in the same run.

    python bench/bench_import.py                 # 1,000,000 hands
    python bench/bench_import.py --hands 200000  # quicker

The floor is reading the same file's lines into memory with polars (the least any
parser must do).  Each phase runs in a child process so that its peak memory is its
own; running two sizes shows whether memory stays flat as the input grows.
"""

from __future__ import annotations

import argparse
import json
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
n = import_paths([PATH], OUT).hands
""",
}

CHILD = """
import json, resource, sys, time
PATH, OUT = sys.argv[1], sys.argv[2]
t = time.perf_counter()
{body}
dt = time.perf_counter() - t
# VmHWM, not ru_maxrss: Linux carries a parent's peak across fork and exec into ru_maxrss
hwm = next(int(ln.split()[1]) for ln in open("/proc/self/status") if ln.startswith("VmHWM:"))
print(json.dumps({{"seconds": dt, "n": n, "peak_mb": hwm / 1024}}))
"""


def generate(hands: int, path: Path, seed: int = 1, presets: tuple[str, ...] = ()) -> int:
    """Write about ``hands`` hands: a few thousand simulated ones, repeated under new GameIds."""
    from auditor.rules import PRESETS
    from auditor.simulate import simulate

    base = ""
    for preset in presets or tuple(PRESETS):
        text, _ = simulate(preset, games=40, seed=seed)
        base += text + "\n"
    base_hands = len(re.findall(r"^hand \d+$", base, flags=re.M))
    copies = max(1, -(-hands // base_hands))
    with open(path, "w", encoding="utf-8") as f:
        for i in range(copies):
            f.write(re.sub(r'\[GameId "([^"]+)"\]', lambda m: f'[GameId "{m.group(1)}-{i}"]', base))
    return base_hands * copies


def run(phase: str, path: Path, out: Path) -> dict:
    code = CHILD.format(body=PHASES[phase])
    proc = subprocess.run([sys.executable, "-c", code, str(path), str(out)], capture_output=True, text=True,
                          check=True)
    return json.loads(proc.stdout.strip().splitlines()[-1])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--hands", type=int, default=1_000_000)
    ap.add_argument("--phases", default="floor,parse,parse+audit,import")
    ap.add_argument("--flat-check", action="store_true", help="also run import at a quarter of the size")
    ap.add_argument("--presets", default="", help="comma-separated presets to simulate (default: every preset)")
    args = ap.parse_args()
    presets = tuple(p for p in args.presets.split(",") if p)
    DATA.mkdir(exist_ok=True)
    sizes = [args.hands] + ([args.hands // 4] if args.flat_check else [])
    for size in sizes:
        path = DATA / f"bench_{size}{'_' + '_'.join(presets) if presets else ''}.pitch"
        t = time.perf_counter()
        n = generate(size, path, presets=presets)
        print(f"generated {n:,} hands ({path.stat().st_size / 1e6:.0f} MB) in {time.perf_counter() - t:.1f}s")
        floor = None
        for phase in args.phases.split(","):
            r = run(phase, path, DATA / "bench_ds")
            if phase == "floor":
                floor = r["seconds"]
                print(f"  floor  (read {r['n']:,} lines with polars): {r['seconds']:.2f}s, peak {r['peak_mb']:.0f} MB")
                continue
            ratio = f", {r['seconds'] / floor:.1f}x the floor" if floor else ""
            print(f"  {phase:12s} {r['seconds']:8.2f}s  {n / r['seconds']:>10,.0f} hands/s  "
                  f"peak {r['peak_mb']:.0f} MB{ratio}")


if __name__ == "__main__":
    main()
