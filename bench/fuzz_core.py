"""Fuzz the whole path a log takes: parse, write, audit, the tables, and the audit/import equality.

    python bench/fuzz_core.py                                  # 1,000,000 inputs in Rust, 20,000 through Python
    python bench/fuzz_core.py --inputs 100000 --python 2000 --seed 7
    python bench/fuzz_core.py --debug --seconds 25 --python-seconds 20   # the smoke `.ci/run` runs

Part 1 builds and runs the Rust driver (core/examples/fuzz.rs) over generated and mutated
inputs seeded from sample_logs/ and tests/: byte flips, truncations, shuffled and duplicated
lines, huge numbers and lines, random UTF-8.  Besides the parser's chunking and the writer's
idempotence, it checks that the lexer's fast path and its general path alone give the same
games and findings.  It resolves each game's rules as `auditor` does
(the core's presets) and audits as `auditor audit` does, then imports the same bytes as
`auditor import` does (the tables of the core's own schema, with the counters, and one input in
eight with the analysis), writes the Parquet files and reads them back: each piece's rows
whole, a game read twice stored once, the stored findings the audit's.  It runs in
segments of `--segment` inputs (seeds SEED, SEED+1, ...): a segment that dies (a crash: the
process killed by a signal, a stack overflow) is counted and run again with `--trace`, which
leaves its last input in core/target/fuzz-panics/last.pitch.  Inputs that panic or fail a
check are saved under core/target/fuzz-panics/.

Part 2 feeds mutated inputs through Python and the command line: `auditor.notation`
(parse_stream, write_games, format_bytes), the engine over records (`audit_games`), `auditor
audit FILE --format json` (its exit status must be 1 with findings, 0 without, and never a
traceback) and an import of the same bytes into a dataset, whose findings table must hold what
`audit` reported (less the findings of a game read twice, stored once).  Findings outside any
game (before the first tag block) that the import does not store are counted apart, as the
known case.  Not part of the test run.
"""

from __future__ import annotations

import argparse
import io
import json
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CORE = ROOT / "core"
CORPUS = [ROOT / "sample_logs", ROOT / "tests" / "golden", ROOT / "tests" / "fixtures"]


COUNTS = re.compile(r"inputs (\d+), bytes (\d+), seconds [\d.]+, panics (\d+), not idempotent or not chunk-stable "
                    r"(\d+), fast and general paths differ (\d+) \(lines read by the fast path \d+\), audit faults (\d+), table faults (\d+), audit/import mismatches (\d+), known case "
                    r"\(findings before the first tag block not stored\) (\d+), slowest ([\d.]+) ms")
KEYS = ("inputs", "bytes", "panics", "unstable", "paths differ", "audit faults", "table faults", "mismatches", "known case")


def rust(inputs: int, seed: int, seconds: float | None, segment: int, debug: bool, exe: Path | None = None) -> int:
    """Part 1: the Rust driver, in segments; returns the exit status (0: nothing found)."""
    if exe is None:
        profile = [] if debug else ["--release"]
        subprocess.run(["cargo", "build", "--quiet", *profile, "--example", "fuzz"], cwd=CORE, check=True)
        exe = CORE / "target" / ("debug" if debug else "release") / "examples" / "fuzz"
    exe = exe.resolve()  # the driver runs in core/
    total, crashes, slowest, k = Counter(), 0, 0.0, 0
    started = time.monotonic()
    while total["inputs"] < inputs:
        left = None if seconds is None else seconds - (time.monotonic() - started)
        if left is not None and left <= 0:
            break
        n = min(segment, inputs - total["inputs"])
        cmd = [str(exe), str(n), str(seed + k), *map(str, CORPUS)]
        if left is not None:
            cmd += ["--seconds", f"{left:.1f}"]
        proc = subprocess.run(cmd, cwd=CORE, capture_output=True, text=True)
        m = COUNTS.search(proc.stdout)
        if m is None or proc.returncode < 0:  # died: a crash, found again with each input written first
            crashes += 1
            subprocess.run([*cmd, "--trace"], cwd=CORE, capture_output=True)
            print(f"crash: seed {seed + k} (exit {proc.returncode}); its last input is "
                  f"{CORE / 'target' / 'fuzz-panics' / 'last.pitch'}", file=sys.stderr)
            total["inputs"] += n
        else:
            total.update(dict(zip(KEYS, map(int, m.groups()[:9]))))
            slowest = max(slowest, float(m.group(10)))
        print(f"segment seed {seed + k}: {proc.stdout.strip() or f'died ({proc.returncode})'}", flush=True)
        k += 1
    print(f"rust: inputs {total['inputs']}, bytes {total['bytes']}, seconds {time.monotonic() - started:.1f}, "
          f"segments {k}, crashes {crashes}, panics {total['panics']}, not idempotent or not "
          f"chunk-stable {total['unstable']}, fast and general paths differ {total['paths differ']}, audit faults {total['audit faults']}, table faults "
          f"{total['table faults']}, audit/import mismatches {total['mismatches']}, known case (findings before "
          f"the first tag block not stored) {total['known case']}, slowest {slowest:.1f} ms")
    found = crashes + sum(total[key] for key in ("panics", "unstable", "paths differ", "audit faults", "table faults", "mismatches"))
    return 1 if found else 0


def mutated(rng: random.Random, seeds: list[bytes]) -> bytes:
    data = bytearray(rng.choice(seeds))
    for _ in range(rng.randint(1, 4)):
        kind = rng.randrange(7)
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
        elif kind == 5:  # a statement before the first tag block, or a game twice
            lines = bytes(data).split(b"\n")
            line = rng.choice(lines)
            data = bytearray(b"\n".join([line, *lines]) if rng.random() < 0.5 else bytes(data) + b"\n" + bytes(data))
        else:
            at = rng.randrange(len(data) + 1)
            data[at:at] = rng.choice([b"\x00", b"\xff\xfe", b"\r\n", "\ufeff".encode(), b"%", b'"', b"1.", b"hand 0"])
    return bytes(data)


def _key(f: dict) -> tuple:
    return (f.get("code"), f.get("line"), f.get("column"), f.get("message"), f.get("game") or None)


def python(inputs: int, seed: int, seconds: float | None) -> int:
    """Part 2: through Python and the command line; returns the exit status (0: nothing found)."""
    import typer
    from click.testing import CliRunner

    import auditor.dataset as ds_mod
    from auditor.cli import app
    from auditor.dataset import import_paths, read_table
    from auditor.engine import audit_games
    from auditor.notation import format_bytes, parse_stream, write_games

    os.fsync = lambda fd: None  # durability is not what is fuzzed here; the datasets live in a scratch folder
    ds_mod.os.fsync = os.fsync
    seeds = [f.read_bytes() for d in CORPUS for f in sorted(d.rglob("*.pitch"))]
    rng = random.Random(seed)
    runner, command = CliRunner(), typer.main.get_command(app)  # the command built once, not at each run
    counts = Counter()
    slowest = (0.0, 0)
    scratch = Path(tempfile.mkdtemp(prefix="fuzz-", dir="/dev/shm" if os.path.isdir("/dev/shm") else None))
    saved = CORE / "target" / "fuzz-panics"
    saved.mkdir(parents=True, exist_ok=True)
    t0 = time.perf_counter()

    def keep(kind: str, data: bytes, why: str) -> None:
        counts[kind] += 1
        if counts[kind] <= 5:
            path = saved / f"python-{kind}-{seed}-{n}.pitch"
            path.write_bytes(data)
            print(f"{kind}: {why} (input saved to {path})", file=sys.stderr)

    try:
        for n in range(inputs):
            if seconds is not None and time.perf_counter() - t0 > seconds:
                break
            data = mutated(rng, seeds)
            counts["inputs"] += 1
            t = time.perf_counter()
            log, ds = scratch / "fuzz.pitch", scratch / "ds"
            log.write_bytes(data)
            try:
                games, _ = parse_stream(io.BytesIO(data), "fuzz.pitch")
                write_games(games)
                format_bytes(data, "fuzz.pitch")
                audit_games(games)  # the engine over records
                r = runner.invoke(command, ["--isolated", "audit", str(log), "--format", "json", "--quiet"])
                if r.exception is not None and not isinstance(r.exception, SystemExit):
                    raise r.exception
                found = json.loads(r.stdout)
                if r.exit_code != (1 if found else 0):
                    keep("wrong exit codes", data, f"audit exits {r.exit_code} with {len(found)} findings")
                stats = import_paths([str(log)], ds)
                stored = read_table(ds, "findings").to_pylist() if (ds / "current").exists() else []
                audited, kept = Counter(map(_key, found)), Counter(map(_key, stored))
                missing, extra = audited - kept, kept - audited
                if stats.games_skipped:  # a game read twice is stored once: what is stored was reported
                    missing = Counter()
                if not missing and not extra:
                    pass
                elif not extra and all(k[4] is None for k in missing):
                    counts["known case"] += 1
                else:
                    keep("mismatches", data, f"audit and import differ: {sum(missing.values())} finding(s) not "
                         f"stored, {sum(extra.values())} stored and not reported")
            except Exception as e:  # noqa: BLE001 - counting what escapes is the point
                keep("exceptions", data, f"{type(e).__name__}: {e} (input of {len(data)} bytes)")
            finally:
                shutil.rmtree(ds, ignore_errors=True)
            slowest = max(slowest, (time.perf_counter() - t, len(data)))
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    print(f"python: inputs {counts['inputs']}, seconds {time.perf_counter() - t0:.1f}, exceptions "
          f"{counts['exceptions']}, wrong exit codes {counts['wrong exit codes']}, audit/import mismatches "
          f"{counts['mismatches']}, known case (findings before the first tag block not stored) "
          f"{counts['known case']}, slowest {slowest[0] * 1e3:.1f} ms ({slowest[1]} bytes)")
    return 1 if counts["exceptions"] or counts["wrong exit codes"] or counts["mismatches"] else 0


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--inputs", type=int, default=1_000_000, help="inputs for the Rust driver")
    ap.add_argument("--seconds", type=float, default=None, help="stop the Rust driver after this long")
    ap.add_argument("--segment", type=int, default=100_000, help="inputs per run of the Rust driver")
    ap.add_argument("--debug", action="store_true", help="the driver's debug build (the one `cargo test` makes)")
    ap.add_argument("--exe", type=Path, default=None, help="run this build of the driver (a long campaign's copy)")
    ap.add_argument("--python", type=int, default=20_000, help="inputs through Python and the command line")
    ap.add_argument("--python-seconds", type=float, default=None, help="stop the Python part after this long")
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    status = rust(args.inputs, args.seed, args.seconds, args.segment, args.debug, args.exe) if args.inputs else 0
    if args.python:
        status |= python(args.python, args.seed, args.python_seconds)
    sys.exit(status)


if __name__ == "__main__":
    main()
