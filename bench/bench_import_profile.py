"""Where `auditor import` spends its CPU: perf's samples of one import, by part of the path.

    python bench/bench_import_profile.py LOG [--jobs 2] [--hz 299]

Runs ``perf record --call-graph dwarf`` on ``auditor import LOG --out TMP -j JOBS`` and sorts
every sample by the part of the path its stack is in: Parquet encoding (the parquet crate
and zstd, called from ``columns::encode`` and ``BatchFiles``), filling the tables (columns.rs,
tables.rs), the Arrow arrays, the audit (engine), the parse, the streaming, and Python
(start-up, the CLI, dataset.py: fixed costs, whatever the size). A sample counts as Parquet
encoding when that step is anywhere on its stack (its callees are inlined and nameless);
otherwise by the first frame, from the leaf up, that names a part. Needs ``perf`` on PATH.
"""

from __future__ import annotations

import argparse
import collections
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ENCODING = "Parquet encoding (parquet crate, zstd)"
PARTS = [
    (ENCODING, re.compile(r"parquet::|ZSTD|HUF_|zstd|FSE_|pitch_core::columns::(encode|BatchFiles)")),
    ("Arrow arrays (arrow crate)", re.compile(r"arrow_|arrow::")),
    ("filling the tables (columns.rs, tables.rs)", re.compile(r"pitch_core::(columns|tables)")),
    ("audit (engine)", re.compile(r"pitch_core::(engine|findings|rules)")),
    ("parse (lexer, parser)", re.compile(r"pitch_core::(notation|cards|scan|text)")),
    ("streaming, threads (audit.rs)", re.compile(r"pitch_core::audit|std::sync|std::thread")),
    ("Python (start-up, CLI, dataset.py)", re.compile(r"_Py|Py[A-Z]|libpython|gc_collect|visit_|unicodekeys")),
]


def shares(script: str) -> tuple[collections.Counter, int]:
    """Samples per part from ``perf script`` text (one stack per paragraph, leaf first)."""
    counts: collections.Counter = collections.Counter()
    total = 0
    for block in script.split("\n\n"):
        stack = [ln.strip() for ln in block.splitlines() if ln[:1] in (" ", "\t") and ln.strip()]
        if not stack:
            continue
        total += 1
        if any(PARTS[0][1].search(f) for f in stack):
            counts[ENCODING] += 1
            continue
        part = next((name for f in stack for name, rx in PARTS if rx.search(f)), "other (kernel, allocator)")
        counts[part] += 1
    return counts, total


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("log")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--hz", type=int, default=299)
    args = ap.parse_args()
    if shutil.which("perf") is None:
        sys.exit("perf is not on PATH")
    with tempfile.TemporaryDirectory() as tmp:
        data = Path(tmp) / "perf.data"
        auditor = [sys.executable, "-c", "from auditor.cli import main; main()"]
        subprocess.run(["perf", "record", "-q", "-F", str(args.hz), "--call-graph", "dwarf,16384", "-o", str(data),
                        "--", *auditor, "import", args.log, "--out", str(Path(tmp) / "ds"), "-j", str(args.jobs)],
                       check=True)
        script = subprocess.run(["perf", "script", "-i", str(data)], capture_output=True, text=True,
                                errors="replace", check=True).stdout
    counts, total = shares(script)
    core = total - counts["Python (start-up, CLI, dataset.py)"]
    print(f"{total:,} samples at {args.hz} Hz ({total / args.hz:.1f} cpu-seconds)")
    for name, n in counts.most_common():
        of_core = "" if name.startswith("Python") else f"  ({100 * n / max(core, 1):4.1f}% of the core's)"
        print(f"  {100 * n / total:5.1f}%  {name}{of_core}")


if __name__ == "__main__":
    main()
