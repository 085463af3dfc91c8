"""Benchmark: `auditor fix` on generated sheets with slips, beside the floor and the audit of the same file.

    python bench/bench_fix.py                      # 200 games of each of three presets
    python bench/bench_fix.py --games 50 --presets smear

The sheets carry injected faults (a wrong hand score carried into the totals, a total slip
carried on, a wrong winner), so the safe fixes rewrite total and winner lines and the unsafe
ones also the hand scores.  The floor reads the same file's lines; "audit" is the one audit
pass a fix starts with.  Each game is fixed pass by pass until nothing fixable is left in it,
so a slip carried through many hands costs that game several passes.
"""

from __future__ import annotations

import argparse
import time

from auditor import _core
from auditor.fix import _audit, fix_bytes
from auditor.simulate import simulate


def best(fn, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return min(times)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=200)
    ap.add_argument("--presets", default="auction,partnership,smear")
    ap.add_argument("--repeat", type=int, default=2)
    args = ap.parse_args()
    for preset in args.presets.split(","):
        text, key = simulate(preset, games=args.games, seed=7, faults=("score", "total", "winner"))
        data = text.encode()
        path = f"/tmp/bench_fix_{preset}.pitch"
        with open(path, "wb") as f:
            f.write(data)
        hands = text.count("\nhand ")
        floor = best(lambda: _core.count_lines(path), args.repeat)
        audit = best(lambda: _audit(data, path, ""), args.repeat)
        safe = fix_bytes(data, path)
        t_safe = best(lambda: fix_bytes(data, path), args.repeat)
        unsafe = fix_bytes(data, path, unsafe=True)
        t_unsafe = best(lambda: fix_bytes(data, path, unsafe=True), args.repeat)
        print(f"{preset}: {args.games} games, {hands} hands, {len(data) / 1e6:.2f} MB, {len(key)} faults injected")
        print(f"  floor   {floor:7.3f}s")
        print(f"  audit   {audit:7.3f}s  {hands / audit:9,.0f} hands/s")
        print(f"  safe    {t_safe:7.3f}s  {hands / t_safe:9,.0f} hands/s  {len(safe.fixes)} lines fixed, "
              f"{len(safe.remaining)} findings left")
        print(f"  unsafe  {t_unsafe:7.3f}s  {hands / t_unsafe:9,.0f} hands/s  {len(unsafe.fixes)} lines fixed, "
              f"{len(unsafe.remaining)} findings left")


if __name__ == "__main__":
    main()
