"""Scaling: import throughput with 1 and 2 worker processes and on a two-worker Dask LocalCluster.

    python bench/bench_scale.py --hands 100000

The floor, measured in the same run, is reading the file's lines with polars.
"""

from __future__ import annotations

import argparse
import shutil
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from bench_import import DATA, generate  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--hands", type=int, default=100_000)
    args = ap.parse_args()
    import polars as pl

    from auditor.dataset import import_paths

    DATA.mkdir(exist_ok=True)
    path = DATA / f"bench_{args.hands}.pitch"
    if not path.exists():
        generate(args.hands, path)
    t = time.perf_counter()
    lines = pl.read_csv(path, has_header=False, separator="\x1f", quote_char=None, new_columns=["line"],
                        schema_overrides={"line": pl.String}).height
    floor = time.perf_counter() - t
    print(f"input: {path.name}, {path.stat().st_size / 1e6:.0f} MB, {lines:,} lines; floor {floor:.2f}s")
    print("| run | seconds | hands/s | x floor |")
    print("|---|---:|---:|---:|")

    def run(label, **kw):
        out = DATA / "scale_ds"
        shutil.rmtree(out, ignore_errors=True)
        t = time.perf_counter()
        stats = import_paths([str(path)], out, **kw)
        dt = time.perf_counter() - t
        print(f"| {label} | {dt:.1f} | {stats.hands / dt:,.0f} | {dt / floor:.0f} |", flush=True)

    run("1 job", jobs=1)
    run("2 jobs", jobs=2)
    from distributed import Client, LocalCluster

    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as cluster, \
            Client(cluster) as client:
        run("Dask LocalCluster, 2 workers", scheduler=client)


if __name__ == "__main__":
    main()
