"""Compare two datasets table by table, row for row: the same logs imported by two versions.

    python bench/compare_datasets.py DATASET_A DATASET_B

Each table of each dataset is read from its published generation's Parquet files (with
pyarrow alone, so either version's files read the same), ``imported_at`` left out, the rows
sorted; the script prints each table's rows on both sides and the first rows that differ,
and exits 1 if any table differs.  Not part of the test run.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq


def rows(root: Path, table: str) -> list[str]:
    files = sorted((root / "current").glob(f"batch=*/{table}.parquet"))
    out: list[str] = []
    for f in files:
        t = pq.read_table(f)
        t = t.drop_columns([c for c in ("imported_at",) if c in t.schema.names])
        # dictionary-encoded text reads as its values: compare values, not encodings
        t = pa.table({n: (c.cast(c.type.value_type) if pa.types.is_dictionary(c.type) else c)
                      for n, c in zip(t.schema.names, t.columns)})
        out += [repr(sorted(r.items())) for r in t.to_pylist()]
    return sorted(out)


def main() -> int:
    a, b = (Path(p) for p in sys.argv[1:3])
    tables = sorted({f.stem for root in (a, b) for f in (root / "current").glob("batch=*/*.parquet")})
    same = True
    for t in tables:
        ra, rb = rows(a, t), rows(b, t)
        ok = ra == rb
        same &= ok
        print(f"{t:22s} {len(ra):>10,} {len(rb):>10,}  {'same' if ok else 'DIFFERENT'}")
        if not ok:
            only_a, only_b = sorted(set(ra) - set(rb)), sorted(set(rb) - set(ra))
            for r in only_a[:3]:
                print("   only in A:", r[:400])
            for r in only_b[:3]:
                print("   only in B:", r[:400])
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
