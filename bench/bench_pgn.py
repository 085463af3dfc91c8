"""Benchmark: the audit's card plays per second beside pgn-extract's plies per second, same run.

    python bench/bench_pgn.py                  # 1,000,000 auction hands and 200,000 chess games
    python bench/bench_pgn.py --hands 200000 --games 50000

pgn-extract (Debian's `pgn-extract`) checks every move of a PGN file with `-r` (report
errors, write nothing); `auditor audit` checks every card of a Pitch log. A Pitch hand is
24 plays (four players, six tricks); a chess game here is Morphy's Opera game, 33 plies,
repeated under new Round tags. The ratio is plays per second over plies per second.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
DATA = HERE / "_data"
sys.path.insert(0, str(HERE))

from bench_import import generate  # noqa: E402
from bench_parse import count_plays  # noqa: E402

OPERA = ("1. e4 e5 2. Nf3 d6 3. d4 Bg4 4. dxe5 Bxf3 5. Qxf3 dxe5 6. Bc4 Nf6 7. Qb3 Qe7 8. Nc3 c6 9. Bg5 b5 "
         "10. Nxb5 cxb5 11. Bxb5+ Nbd7 12. O-O-O Rd8 13. Rxd7 Rxd7 14. Rd1 Qe6 15. Bxd7+ Nxd7 16. Qb8+ Nxb8 "
         "17. Rd8# 1-0")
PLIES = 33


def write_pgn(path: Path, games: int) -> None:
    with open(path, "w") as f:
        for i in range(games):
            f.write(f'[Event "Paris opera"]\n[Site "Paris"]\n[Date "1858.??.??"]\n[Round "{i + 1}"]\n'
                    f'[White "Morphy"]\n[Black "Duke Karl / Count Isouard"]\n[Result "1-0"]\n\n{OPERA}\n\n')


def timed(cmd: list[str]) -> float:
    t = time.perf_counter()
    r = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    assert r.returncode in (0, 1), r.stderr[-2000:]
    return time.perf_counter() - t


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--hands", type=int, default=1_000_000)
    ap.add_argument("--games", type=int, default=200_000)
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    args = ap.parse_args()
    exe = shutil.which("pgn-extract") or "/usr/games/pgn-extract"
    if not Path(exe).exists():
        sys.exit("pgn-extract is not installed (Debian: apt-get install pgn-extract)")
    DATA.mkdir(exist_ok=True)
    pitch, pgn = DATA / "pgn_bench.pitch", DATA / "pgn_bench.pgn"
    n = generate(args.hands, pitch, presets=("auction",))
    plays = count_plays(pitch)
    write_pgn(pgn, args.games)
    audit = timed([sys.executable, "-c", "from auditor.cli import main; main()", "audit", "-j", str(args.jobs),
                   str(pitch)])
    chess = timed([exe, "-r", "-s", str(pgn)])
    pps, cps = plays / audit, args.games * PLIES / chess
    print(f"auditor audit: {n:,} hands, {plays:,} plays in {audit:.2f}s: {pps:,.0f} plays/s ({args.jobs} threads)")
    print(f"pgn-extract -r: {args.games:,} games, {args.games * PLIES:,} plies in {chess:.2f}s: {cps:,.0f} plies/s "
          "(one thread)")
    print(f"ratio: {pps / cps:.1f}x")
    pitch.unlink()
    pgn.unlink()


if __name__ == "__main__":
    main()
