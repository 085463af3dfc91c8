"""Fuzz `auditor fix`: mutated logs must never raise, must change only score, total and winner
lines, and must be settled after one run (a second run changes nothing).

    python bench/fuzz_fix.py --inputs 2000 --seed 1

Seeds are the sample logs and the golden cases; mutations are the score-sheet slips a keeper
makes (a number off by one or negated, a total dropped, a winner renamed or removed, an entry
missing), plus line-level damage (lines duplicated, dropped or swapped, bytes flipped, CRLF,
no final newline).
"""

from __future__ import annotations

import argparse
import random
import re
import time
from difflib import SequenceMatcher
from pathlib import Path

from auditor.fix import FixError, fix_bytes

ROOT = Path(__file__).resolve().parent.parent


def seeds() -> list[bytes]:
    files = sorted((ROOT / "sample_logs").glob("*.pitch")) + sorted((ROOT / "tests" / "golden").glob("*/*.pitch"))
    return [f.read_bytes() for f in files]


def mutate(data: bytes, rng: random.Random) -> bytes:
    lines = data.split(b"\n")
    for _ in range(rng.randint(1, 4)):
        i = rng.randrange(len(lines))
        line = lines[i]
        kind = rng.random()
        if kind < 0.5 and re.match(rb"(score|total)\b", line):
            nums = list(re.finditer(rb"[+-]?\d+", line))
            if nums:
                m = rng.choice(nums)
                v = int(m.group())
                new = rng.choice([v + 1, v - 1, -v, v + 10, 0])
                line = line[:m.start()] + str(new).encode() + line[m.end():]
                if rng.random() < 0.1:
                    line = line.rsplit(b",", 1)[0]  # an entry missing
        elif kind < 0.6 and line.startswith(b"winner"):
            line = rng.choice([b"winner Ann", b"winner NS", b"", b"winner"])
        elif kind < 0.7:
            lines.insert(i, line)
        elif kind < 0.75:
            lines.pop(i)
            continue
        elif kind < 0.8 and i + 1 < len(lines):
            lines[i], lines[i + 1] = lines[i + 1], lines[i]
            continue
        elif kind < 0.85 and line:
            j = rng.randrange(len(line))
            line = line[:j] + bytes([rng.randrange(256)]) + line[j + 1:]
        lines[i] = line
    out = b"\n".join(lines)
    if rng.random() < 0.1:
        out = out.replace(b"\n", b"\r\n")
    if rng.random() < 0.1:
        out = out.rstrip(b"\n")
    return out


def check(data: bytes, unsafe: bool, annotate: bool) -> None:
    done = fix_bytes(data, "fuzz.pitch", unsafe=unsafe, annotate=annotate)
    a, b = data.split(b"\n"), done.after.split(b"\n")
    for tag, i, j, k, m in SequenceMatcher(None, a, b, autojunk=False).get_opcodes():
        if tag == "equal":
            continue
        for line in a[i:j] + b[k:m]:
            word = line.split(b" ")[0].strip()
            # a winner line comes and goes with the blank line before it, as the canonical form has it
            blank = not line.strip() and tag in ("insert", "delete", "replace")
            assert blank or word in (b"score", b"total", b"winner") or (annotate and line.startswith(b"% fixed")), \
                (tag, line)
    again = fix_bytes(done.after, "fuzz.pitch", unsafe=unsafe, annotate=annotate)
    assert again.after == done.after, "a second run changed the file"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--inputs", type=int, default=2000)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    rng = random.Random(args.seed)
    corpus = seeds()
    failures, unsettled, slowest = 0, 0, (0.0, b"")
    t0 = time.perf_counter()
    for n in range(args.inputs):
        data = mutate(rng.choice(corpus), rng)
        t = time.perf_counter()
        try:
            check(data, unsafe=rng.random() < 0.5, annotate=rng.random() < 0.3)
        except FixError:
            unsettled += 1
        except Exception as e:  # noqa: BLE001 - every escape is a finding of the fuzz
            failures += 1
            path = Path(f"/tmp/fuzz_fix_{n}.pitch")
            path.write_bytes(data)
            print(f"input {n}: {type(e).__name__}: {str(e)[:200]} (saved to {path})")
        dt = time.perf_counter() - t
        if dt > slowest[0]:
            slowest = (dt, data)
    print(f"inputs {args.inputs}, seconds {time.perf_counter() - t0:.1f}, failures {failures}, "
          f"not settled {unsettled}, slowest {slowest[0] * 1000:.1f} ms ({len(slowest[1])} bytes)")


if __name__ == "__main__":
    main()
