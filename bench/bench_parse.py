"""Benchmark: the compiled core on generated logs of every preset, beside the floor.

    python bench/bench_parse.py                         # 1,000,000 hands of each preset: floor, parse
    python bench/bench_parse.py --phases floor,audit,import --hands 200000,1000000   # the commands
    python bench/bench_parse.py --presets auction --hands 200000,1000000   # memory flat?
    python bench/bench_parse.py --hostile --phases audit,import   # the pathological inputs, time and peak memory

"audit" and "import" are the commands as a user runs them (`auditor audit -j JOBS FILE`,
output discarded; `auditor import FILE --out DIR -j JOBS`), start-up included, on this
machine's cores (``--jobs``).

The floor is reading the same file's lines with the same reader (1 MiB chunks, lines found
with memchr) and doing nothing with them.  "parse" is the core's parser alone, in Rust, one
core, the GIL released: every statement read into records, every finding made, games
handed over one at a time; the common lines by the lexer's fast path. "general" is the same
parse with every line by the general path (the fast path off), for the ratio between them.  "records" is the same parse with every record built as a
Python object (what `auditor.notation.iter_games` gives the engine today).  Each phase runs
in a child process so that its peak memory is its own.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
DATA = HERE / "_data"
sys.path.insert(0, str(HERE))

from bench_import import PHASES as IMPORT_PHASES  # noqa: E402
from bench_import import generate  # noqa: E402  (the same generated data as the import bench)

PHASES = {
    "floor": "from auditor import _core\nn = _core.count_lines(PATH)[1]",
    "parse": "from auditor import _core\nn = _core.scan_file(PATH)[2]",
    "general": "from auditor import _core\nn = _core.scan_file(PATH, general=True)[2]",
    "records": IMPORT_PHASES["parse"],
    "audit": """
import os, subprocess, sys
r = subprocess.run([sys.executable, "-c", "from auditor.cli import main; main()", "audit", "-j", os.environ["JOBS"],
                    PATH], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
assert r.returncode in (0, 1), r.stderr[-2000:]
n = 1
""",
    "import": """
import os, shutil, subprocess, sys
out = PATH + ".ds"
shutil.rmtree(out, ignore_errors=True)
r = subprocess.run([sys.executable, "-c", "from auditor.cli import main; main()", "import", PATH, "--out", out,
                    "-j", os.environ["JOBS"]], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
assert r.returncode in (0, 1), r.stderr[-2000:]
shutil.rmtree(out, ignore_errors=True)
n = 1
""",
}

CHILD = """
import json, resource, sys, time
PATH = sys.argv[1]
t = time.perf_counter()
{body}
dt = time.perf_counter() - t
# VmHWM, not ru_maxrss: Linux carries a parent's peak across fork and exec into ru_maxrss
hwm = next(int(ln.split()[1]) for ln in open("/proc/self/status") if ln.startswith("VmHWM:"))
peak = max(hwm, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)
print(json.dumps({{"seconds": dt, "n": n, "peak_mb": peak / 1024}}))
"""


def run(phase: str, path: Path, repeat: int = 1) -> dict:
    """The best of ``repeat`` runs of a phase, each in a fresh child process."""
    best = None
    for _ in range(repeat):
        proc = subprocess.run([sys.executable, "-c", CHILD.format(body=PHASES[phase]), str(path)],
                              capture_output=True, text=True, check=True)
        r = json.loads(proc.stdout.strip().splitlines()[-1])
        best = r if best is None or r["seconds"] < best["seconds"] else best
    return best


HEAD = '[Rules "auction"]\n[Players "Amy Ben Cal"]\nhand 1\ndealer Amy\nbids Ben 2, Cal pass, Amy pass\n'
CARDS = [r + s for s in "SHDC" for r in "AKQJT98765432"]


def hostile_inputs():
    """The inputs that were quadratic or memory-hungry in the pure-Python parser, one at a time
    (name, text), so that the parent holds one only."""
    rng = random.Random(7)

    def trick(n: int) -> str:
        return "1. " + " ".join(f"{rng.choice(('Amy', 'Ben', 'Cal'))}:{rng.choice(CARDS)}" for _ in range(n)) + "\n"

    yield "trick of 16,000 cards", HEAD + trick(16_000)
    yield "trick of 250,000 cards (2 MB)", HEAD + trick(250_000)
    yield "4,000 trick lines in one hand", HEAD + "".join(f"{i % 99 + 1}. Ben:AS Cal:2S Amy:3S\n" for i in range(4000))
    yield "8,000 tags in one block", "".join(f'[T{i} "x"]\n' for i in range(8000)) + HEAD
    yield "note of 20 MB", HEAD + 'note "' + "x" * 20_000_000 + '"\n'
    yield "note of 200 MB", HEAD + 'note "' + "x" * 200_000_000 + '"\n'
    yield "line of 10 MB, no statement", HEAD + "x" * 10_000_000 + "\n"
    # the shapes that were quadratic in the audit or the import, at 10x steps
    names = ("Amy", "Ben", "Cal")
    hand = ("dealer {0}\nbids {1} 2, {2} pass, {0} pass\n1. {1}:AS {2}:KS {0}:QS\n2. {1}:AH {2}:KH {0}:QH\n"
            "3. {1}:AD {2}:KD {0}:QD\n4. {1}:AC {2}:KC {0}:QC\n5. {1}:JS {2}:TS {0}:9S\n6. {1}:JH {2}:TH {0}:9H\n"
            "score Amy 0, Ben 0, Cal 0\n")
    for n in (1_000, 10_000, 100_000):
        yield f"one trick of {n:,} cards", HEAD + trick(n)
        yield f"one trick of {n:,} short-form cards", HEAD + "1. " + " ".join(rng.choice(CARDS) for _ in range(n)) + "\n"
        yield f"{n:,} players", ('[Rules "auction"]\n[Players "' + " ".join(f"P{i}" for i in range(n))
                                 + '"]\nhand 1\ndealer P0\nbids P1 2, P2 pass\n1. P1:AS P2:KS P3:QS\n')
        yield f"{n:,} tags", "".join(f'[T{i} "x"]\n' for i in range(n)) + HEAD + "1. Ben:AS Cal:KS Amy:QS\n"
        yield f"{n:,} hands in one game", HEAD.split("hand 1")[0] + "".join(
            f"\nhand {i + 1}\n" + hand.format(names[i % 3], names[(i + 1) % 3], names[(i + 2) % 3]) for i in range(n))


def count_plays(path: Path) -> int:
    """The cards played in a generated log: each card of a trick line, named (`NAME:CARD`) or
    bare (the short form `1. AH 2C QH 2H`), the trick numbers left out."""
    n = 0
    with open(path, "rb") as f:
        for line in f:
            if line[:1].isdigit():
                n += sum(1 for tok in line.split() if not (tok.endswith(b".") and tok[:-1].isdigit()))
    return n


def hostile(phases: list[str]) -> None:
    DATA.mkdir(exist_ok=True)
    print(f"{'input':32s} {'size':>8s}  " + "  ".join(f"{p:>22s}" for p in phases))
    for name, text in hostile_inputs():
        path = DATA / "hostile.pitch"
        path.write_text(text, encoding="utf-8")
        size = len(text)
        del text
        cells = []
        for phase in phases:
            r = run(phase, path)
            cells.append(f"{r['seconds']:8.2f}s {r['peak_mb']:7.0f} MB")
        print(f"{name:32s} {size / 1e6:6.1f}MB  " + "  ".join(f"{c:>22s}" for c in cells))
    path.unlink(missing_ok=True)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--hands", default="1000000", help="comma-separated sizes (hands per preset)")
    ap.add_argument("--presets", default="", help="comma-separated presets (default: every preset)")
    ap.add_argument("--phases", default="floor,parse,general", help="of: floor, parse, general, records, audit, import")
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 1, help="threads for audit and import")
    ap.add_argument("--repeat", type=int, default=3, help="runs per phase; the best is reported")
    ap.add_argument("--hostile", action="store_true", help="time the pathological inputs instead")
    args = ap.parse_args()
    os.environ["JOBS"] = str(args.jobs)
    if args.hostile:
        hostile([p for p in args.phases.split(",") if p != "floor"] or ["parse"])
        return
    from auditor.rules import PRESETS

    DATA.mkdir(exist_ok=True)
    presets = [p for p in args.presets.split(",") if p] or list(PRESETS)
    for size in (int(s) for s in args.hands.split(",")):
        for preset in presets:
            path = DATA / f"parse_{preset}_{size}.pitch"
            t = time.perf_counter()
            n = generate(size, path, presets=(preset,))
            mb = path.stat().st_size / 1e6
            plays = count_plays(path)
            print(f"{preset}: {n:,} hands, {mb:.0f} MB (generated in {time.perf_counter() - t:.0f}s)")
            floor = None
            for phase in args.phases.split(","):
                r = run(phase, path, args.repeat if phase in ("floor", "parse", "general") else 1)
                rate = f"{mb / r['seconds']:7.0f} MB/s {n / r['seconds']:>12,.0f} hands/s {plays / r['seconds']:>13,.0f} plays/s"
                if phase == "floor":
                    floor = r["seconds"]
                    print(f"  floor   {r['seconds']:7.3f}s {rate}  peak {r['peak_mb']:5.0f} MB  ({r['n']:,} lines)")
                    continue
                ratio = f", {r['seconds'] / floor:.1f}x the floor" if floor else ""
                print(f"  {phase:7s} {r['seconds']:7.3f}s {rate}  peak {r['peak_mb']:5.0f} MB{ratio}")
            path.unlink()


if __name__ == "__main__":
    main()
