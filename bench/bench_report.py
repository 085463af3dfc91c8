"""Benchmark: `auditor report` of a season of 5,000 games (issue 13: within 10 s), and its file size.

    python bench/bench_report.py                  # 5,000 games, 40 weekly club nights
    python bench/bench_report.py --games 500      # a quicker run
    python bench/bench_report.py --charts all     # a chart for every game (about 15 ms each)
    python bench/bench_report.py --games 300 --faulty 100  # 300 games, every one with faults (~4 findings each)
    python bench/bench_report.py --detail all     # every game of the season in full

The season is simulated once and kept under bench/_data/ (gitignored): a few hundred games of
Auction Pitch (four players) and Partnership Pitch (two teams) are played by the simulator's
bots, about one in ten with an injected revoke, score slip and total slip, and copied until there
are N games. Each copy is a new game to the dataset (a fresh GameId) at a club night of its own
(Event "Week NN", a Date a week apart), with the seats taken by other players of a club of 24,
so that every night has a league table of its own. The copies are imported once (with the stored
counters, as `auditor import` does).

Then, timed on the dataset, best of --repeat: opening it, collecting the report (the league
tables, the score sheets, the findings and their diagrams), writing the HTML (with the charts
--charts picks: `auto` draws the games with findings once a report has more than 300 games, and
the games --detail picks in full: `auto` shows a season's disputed games in full, the others by their
line) and the Markdown. The sizes of both files are printed; the HTML is kept under bench/_data/ to
look at.
"""

from __future__ import annotations

import argparse
import re
import shutil
import sys
import time
from pathlib import Path

from auditor import report as rp
from auditor.dataset import import_paths
from auditor.render import write_atomic
from auditor.simulate import simulate
from auditor.warehouse import connect, is_dataset, summarize_batch

HERE = Path(__file__).resolve().parent
DATA = HERE / "_data"
CLUB = ("Ann Bob Cal Dee Eve Fay Gus Hal Ivy Jon Kit Lea Max Ned Ola Pip Quy Ray Sam Tia Uli Val Wes Yan").split()
_GAME = re.compile(r"(?m)^(?=\[Event )")
_SEATED = re.compile(r"\b(Ann|Bob|Cal|Dee)\b")


def base_games(seed: int, faulty_pct: int = 10) -> list[str]:
    """Simulated games as text blocks: clean ones and, ``faulty_pct`` in a hundred, with three faults each."""
    out = []
    for preset, games in (("auction", 200), ("partnership", 100)):
        faulty = round(games * faulty_pct / 100)
        for n, faults in ((games - faulty, ()), (faulty, ("revoke", "score", "total"))):
            if not n:
                continue
            text, _ = simulate(preset, games=n, seed=seed + len(out), faults=faults)
            out += [b for b in _GAME.split(text) if b.strip()]
    return out


def write_season(games: int, seed: int, logs: Path, weeks: int = 40, faulty_pct: int = 10) -> None:
    """``games`` games in ``weeks`` club nights, copies of the simulated ones (see the module's doc)."""
    blocks = base_games(seed, faulty_pct)
    shutil.rmtree(logs, ignore_errors=True)
    logs.mkdir(parents=True)
    per_week = -(-games // weeks)
    for week in range(weeks):
        batch = []
        for i in range(week * per_week, min(games, (week + 1) * per_week)):
            b = blocks[i % len(blocks)]
            seats = {old: CLUB[(4 * (i // len(blocks)) + k + week) % len(CLUB)]
                     for k, old in enumerate(("Ann", "Bob", "Cal", "Dee"))}
            b = _SEATED.sub(lambda m: seats[m.group(1)], b)
            b = re.sub(r'^\[Event "[^"]*"\]', f'[Event "Week {week + 1:02d}"]', b, flags=re.M)
            day = 5 + 7 * week
            b = re.sub(r'^\[Date "[^"]*"\]', f'[Date "2026.{1 + day // 28 % 12:02d}.{1 + day % 28:02d}"]', b,
                       flags=re.M)
            b = re.sub(r'^\[GameId "([^"]*)"\]', lambda m: f'[GameId "{m.group(1)}-{i}"]', b, flags=re.M)
            batch.append(b)
        (logs / f"week-{week + 1:02d}.pitch").write_text("".join(batch), "utf-8")


def build(games: int, seed: int, faulty_pct: int = 10) -> Path:
    """The season's dataset under bench/_data/, built unless it is already there."""
    root = DATA / f"report-{games}-{seed}" if faulty_pct == 10 else DATA / f"report-{games}-{seed}-f{faulty_pct}"
    done = root / ".complete"
    if done.exists() and is_dataset(root):
        return root
    shutil.rmtree(root, ignore_errors=True)
    logs = DATA / f"report-logs-{games}-{seed}-f{faulty_pct}"
    t = time.perf_counter()
    write_season(games, seed, logs, faulty_pct=faulty_pct)
    print(f"simulated the season in {time.perf_counter() - t:.1f} s", file=sys.stderr)
    t = time.perf_counter()
    st = import_paths([str(logs)], root, summarize=summarize_batch)
    print(f"imported {st.games_new} games, {st.hands} hands ({len(st.findings)} findings) in "
          f"{time.perf_counter() - t:.1f} s", file=sys.stderr)
    done.write_text(str(st.games_new))
    return root


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--games", type=int, default=5000)
    ap.add_argument("--seed", type=int, default=13)
    ap.add_argument("--repeat", type=int, default=2)
    ap.add_argument("--charts", default="auto", choices=rp.CHART_CHOICES)
    ap.add_argument("--detail", default="auto", choices=rp.DETAIL_CHOICES)
    ap.add_argument("--faulty", type=int, default=10, metavar="PCT",
                    help="games in a hundred with injected faults (a revoke, a score and a total slip)")
    args = ap.parse_args()
    root = build(args.games, args.seed, args.faulty)
    out = DATA / f"report-{args.games}.html"
    best: dict[str, float] = {}
    for _ in range(args.repeat):
        t0 = time.perf_counter()
        wh = connect(root)
        t1 = time.perf_counter()
        data = rp.collect(wh, source=str(root))
        t2 = time.perf_counter()
        page = rp.to_html(data, charts=args.charts, detail=args.detail).encode("utf-8")
        write_atomic(out, page)
        t3 = time.perf_counter()
        md = rp.to_markdown(data, args.detail).encode("utf-8")
        write_atomic(out.with_suffix(".md"), md)
        t4 = time.perf_counter()
        wh.con.close()
        for k, v in (("open", t1 - t0), ("collect", t2 - t1), ("html", t3 - t2), ("total", t3 - t0),
                     ("markdown", t4 - t3)):
            best[k] = min(best.get(k, v), v)
    shown = rp.detail_games(data, args.detail)
    charts = len(rp.chart_games(data, args.charts) & shown)
    print(f"{len(data.games)} games, {data.hands} hands, {len(data.events)} events, {len(data.findings)} findings, "
          f"{len(data.diagrams)} hand diagrams, {charts} charts (--charts {args.charts}), {len(shown)} games in full "
          f"(--detail {args.detail})")
    print(f"report (best of {args.repeat}): open {best['open']:.2f} s, collect {best['collect']:.2f} s, "
          f"HTML {best['html']:.2f} s; total {best['total']:.2f} s (target 10 s for 5,000 games)")
    print(f"HTML {len(page) / 1e6:.1f} MB ({out}); Markdown {len(md) / 1e6:.1f} MB in {best['markdown']:.2f} s")


if __name__ == "__main__":
    main()
