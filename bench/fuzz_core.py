"""Fuzz the compiled core: no panic, the writer idempotent, no Python exception through the bindings.

    python bench/fuzz_core.py                        # 1,000,000 inputs in Rust, 20,000 through Python
    python bench/fuzz_core.py --inputs 100000 --python 2000 --seed 7

Part 1 builds and runs the Rust driver (core/examples/fuzz.rs) over generated and mutated
inputs seeded from sample_logs/ and tests/: byte flips, truncations, shuffled and duplicated
lines, huge numbers and lines, random UTF-8.  It prints the inputs run, the panics caught
(each saved under core/target/fuzz-panics/), the inputs whose canonical text is not stable,
the inputs on which the lexer's fast path and its general path alone give different records
(with the lines the fast path read), and the slowest input.  Part 2 feeds mutated inputs through `auditor.notation` (parse_stream,
write_games, format_bytes), the engine (`audit_games`) and the core's whole-file audit
(`auditor.dataset.process`), and counts any exception that escapes (a panic in the core
comes through as one): a user's bytes must never
give a traceback.  Not part of the test run.
"""

from __future__ import annotations

import argparse
import io
import random
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CORPUS = [ROOT / "sample_logs", ROOT / "tests" / "golden", ROOT / "tests" / "fixtures"]


def rust(inputs: int, seed: int) -> int:
    core = ROOT / "core"
    subprocess.run(["cargo", "build", "--quiet", "--release", "--example", "fuzz"], cwd=core, check=True)
    exe = core / "target" / "release" / "examples" / "fuzz"
    proc = subprocess.run([str(exe), str(inputs), str(seed), *map(str, CORPUS)], cwd=core)
    return proc.returncode


def mutated(rng: random.Random, seeds: list[bytes]) -> bytes:
    data = bytearray(rng.choice(seeds))
    for _ in range(rng.randint(1, 4)):
        kind = rng.randrange(6)
        if kind == 0 and data:
            for _ in range(rng.randint(1, 8)):
                data[rng.randrange(len(data))] ^= 1 << rng.randrange(8)
        elif kind == 1:
            del data[rng.randrange(len(data) + 1):]
        elif kind == 2:
            lines = bytes(data).split(b"\n")
            rng.shuffle(lines)
            data = bytearray(b"\n".join(lines))
        elif kind == 3:
            at = rng.randrange(len(data) + 1)
            data[at:at] = b"9" * rng.randint(1, 40)
        elif kind == 4:
            at = rng.randrange(len(data) + 1)
            data[at:at] = "".join(chr(rng.randrange(0x20, 0x3000)) for _ in range(8)).encode("utf-8", "replace")
        else:
            at = rng.randrange(len(data) + 1)
            data[at:at] = rng.choice([b"\x00", b"\xff\xfe", b"\r\n", "\ufeff".encode(), b"%", b'"', b"1.", b"hand 0"])
    return bytes(data)


def python(inputs: int, seed: int) -> int:
    import tempfile

    from auditor.dataset import process
    from auditor.engine import audit_games
    from auditor.notation import format_bytes, parse_stream, write_games

    seeds = [f.read_bytes() for d in CORPUS for f in sorted(d.rglob("*.pitch"))]
    rng = random.Random(seed)
    escaped = 0
    slowest = (0.0, 0)
    t0 = time.perf_counter()
    for _ in range(inputs):
        data = mutated(rng, seeds)
        t = time.perf_counter()
        try:
            games, _ = parse_stream(io.BytesIO(data), "fuzz.pitch")
            write_games(games)
            format_bytes(data, "fuzz.pitch")
            audit_games(games)  # the engine over records
            with tempfile.NamedTemporaryFile(suffix=".pitch") as f:  # and over a whole file, on threads
                f.write(data)
                f.flush()
                process([f.name], jobs=2)
        except Exception as e:  # noqa: BLE001 - counting what escapes is the point
            escaped += 1
            if escaped <= 5:
                print(f"escaped: {type(e).__name__}: {e} (input of {len(data)} bytes)", file=sys.stderr)
        slowest = max(slowest, (time.perf_counter() - t, len(data)))
    print(f"python: inputs {inputs}, seconds {time.perf_counter() - t0:.1f}, exceptions {escaped}, "
          f"slowest {slowest[0] * 1e3:.1f} ms ({slowest[1]} bytes)")
    return 1 if escaped else 0


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--inputs", type=int, default=1_000_000, help="inputs for the Rust driver")
    ap.add_argument("--python", type=int, default=20_000, help="inputs through the Python bindings")
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    status = rust(args.inputs, args.seed) if args.inputs else 0
    if args.python:
        status |= python(args.python, args.seed)
    sys.exit(status)


if __name__ == "__main__":
    main()
