"""Differential check of the perfect-play analysis: every value compared with values recorded earlier.

    python bench/check_analysis.py record CORPUS_DIR [--only NAME,...]   # write CORPUS_DIR/NAME.values.jsonl
    python bench/check_analysis.py compare CORPUS_DIR [--only NAME,...]  # compare with them, count what agrees

CORPUS_DIR holds generated games (``auditor simulate --rules PRESET --games N --faults revoke -o
DIR/NAME.pitch``). ``record`` analyses every hand in full (par, par with each trump, the result,
each card's value before and after, its cost and the cards that kept the value, the claim, each
revoke's sure and taken points) and writes one JSON line per hand; run it with the solver to
compare against (for instance a build of an earlier version with its budgets lifted, so that
every hand and every claim is answered in full). ``compare`` analyses the same files with the
solver installed now and reports, per file, how many hands, values and card costs were compared
and every difference. Exit status 1 when anything differs.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

from auditor.engine import HandAnalysis, analyze_games
from auditor.notation import parse_file


def hand_values(a: HandAnalysis) -> dict:
    """Everything the analysis says about a hand that perfect play decides (lines aside: any perfect line will do)."""
    return {
        "game": a.game, "hand": a.hand, "not_analysable": a.not_analysable, "par": a.par,
        "par_by_trump": [list(t) for t in a.par_by_trump], "par_by_trump_unknown": a.par_by_trump_unknown,
        "result": a.result, "claim": a.claim,
        "plays": [[p.trick, p.position, p.player, p.card, p.before, p.after, p.cost, p.illegal, list(p.best)]
                  for p in a.plays],
        "revokes": [[r.trick, r.position, r.revoker, list(r.innocent), r.sure, r.took] for r in a.revokes],
    }


def analyse(path: Path, jobs: int) -> tuple[list[dict], float]:
    games, _ = parse_file(path)
    t = time.perf_counter()
    hands = [hand_values(h) for g in analyze_games(games, jobs=jobs, full=True) for h in g]
    return hands, time.perf_counter() - t


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("mode", choices=("record", "compare"))
    ap.add_argument("corpus", type=Path)
    ap.add_argument("--only", default="", help="comma-separated corpus names (default: every *.pitch)")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--values", default="values", help="the recorded values' name: DIR/NAME.VALUES.jsonl")
    args = ap.parse_args()
    names = [n for n in args.only.split(",") if n] or sorted(p.stem for p in args.corpus.glob("*.pitch"))
    bad = 0
    totals = dict(hands=0, values=0, costs=0, claims=0, by_trump=0, revokes=0)
    for name in names:
        path = args.corpus / f"{name}.pitch"
        out = args.corpus / f"{name}.{args.values}.jsonl"
        hands, wall = analyse(path, args.jobs)
        if args.mode == "record":
            with open(out, "w") as f:
                f.writelines(json.dumps(h) + "\n" for h in hands)
            na = sum(1 for h in hands if h["not_analysable"])
            print(f"{name}: recorded {len(hands)} hands ({na} not analysable) in {wall:.1f}s", flush=True)
            continue
        want = [json.loads(line) for line in open(out)]
        diffs: list[str] = []
        counts = dict(hands=0, values=0, costs=0, claims=0, by_trump=0, revokes=0)
        if len(want) != len(hands):
            diffs.append(f"{len(want)} hands recorded, {len(hands)} analysed")
        for w, h in zip(want, hands):
            where = f"{w['game']} hand {w['hand']}"
            if (w["game"], w["hand"]) != (h["game"], h["hand"]):
                diffs.append(f"{where}: analysed {h['game']} hand {h['hand']} in its place")
                continue
            if w["not_analysable"] or h["not_analysable"]:
                if w["not_analysable"] != h["not_analysable"]:
                    diffs.append(f"{where}: not analysable {w['not_analysable']!r} recorded, {h['not_analysable']!r} now")
                continue
            counts["hands"] += 1
            for key in ("par", "result", "par_by_trump", "par_by_trump_unknown", "claim", "plays", "revokes"):
                if w[key] != h[key]:
                    detail = ""
                    if key == "plays":
                        detail = "; ".join(f"{x} recorded, {y} now" for x, y in zip(w[key], h[key]) if x != y)
                    diffs.append(f"{where}: {key} {w[key] if not detail else ''} recorded, {h[key] if not detail else ''} now {detail}")
            counts["values"] += 2 + len(h["plays"]) * 2
            counts["costs"] += len(h["plays"])
            counts["claims"] += h["claim"] is not None
            counts["by_trump"] += len(h["par_by_trump"])
            counts["revokes"] += len(h["revokes"])
        for k, v in counts.items():
            totals[k] += v
        bad += len(diffs)
        print(f"{name}: {counts['hands']} hands compared ({counts['costs']:,} card costs, {counts['values']:,} values, "
              f"{counts['by_trump']} pars by trump, {counts['claims']} claims, {counts['revokes']} revokes) in "
              f"{wall:.1f}s: {len(diffs)} differences", flush=True)
        for d in diffs[:20]:
            print(f"  {d}")
    if args.mode == "compare":
        print(f"total: {totals['hands']:,} hands, {totals['costs']:,} card costs, {totals['values']:,} values, "
              f"{totals['by_trump']:,} pars by trump, {totals['claims']:,} claims, {totals['revokes']:,} revokes; "
              f"{bad} differences")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
