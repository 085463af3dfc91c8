"""``auditor analyze``: every recorded hand judged against perfect play.

The solver is the core's (``core/src/engine/solver.rs``); this module picks the games and
hands, and prints par, the result and each mistake, or the rows as JSON, JSONL or CSV.
"""

from __future__ import annotations

import json
import sys
import time
from typing import Annotated, Any

import typer

from ..engine import HandAnalysis, examine_log
from .. import _core
from ..notation import expand_paths
from ..render import emit_rows, mistake_text, plural, points_text
from . import EXIT_FAILED, app, fail
from .inputs import note_inputs
from .core import CORES, JobsOpt, Paths, RulesOpt, _check_rules


def hand_row(a: HandAnalysis) -> dict[str, Any]:
    """One hand's analysis as a flat row (the mistakes counted; JSON adds them in full)."""
    best = a.best_trump
    mistakes = a.mistakes
    return {
        "game": a.game, "hand": a.hand, "pitcher": a.pitcher, "pitcher_side": a.pitcher_side, "trump": a.trump,
        "par": a.par, "best_trump": best[0] if best else None, "best_par": best[1] if best else None,
        "result": a.result, "mistakes": len(mistakes), "points_lost": sum(m.cost for m in mistakes),
        "claim": a.claim, "not_analysable": a.not_analysable,
    }


def mistake_dict(m) -> dict[str, Any]:
    return {"trick": m.trick, "position": m.position, "player": m.player, "card": m.card, "before": m.before,
            "after": m.after, "cost": m.cost, "illegal": m.illegal, "best": list(m.best)}


def hand_text(a: HandAnalysis) -> list[str]:
    """A hand's analysis in words: par, result, the claim, then each mistake."""
    head = f"{a.game} hand {a.hand}"
    if a.not_analysable:
        return [f"{head}: not analysable: {a.not_analysable}"]
    best = a.best_trump
    if best and best[0] != a.trump and best[1] > (a.par or 0):
        trumps = f"; pitching {best[0]} instead, par {best[1]}"
    elif best:
        trumps = f"; {a.trump} was the best trump to pitch"
    else:
        trumps = f" ({a.par_by_trump_unknown}: par with other trumps not known)"
    side = f" ({a.pitcher_side})" if a.pitcher_side and a.pitcher_side != a.pitcher else ""
    out = [f"{head}: {a.pitcher}{side} pitched {a.trump}: par {a.par}{trumps}; result {a.result}"
           + (f"; claim from trick {a.claim}" if a.claim else "")]
    out += [f"  {mistake_text(m)}" for m in a.mistakes]
    if not a.mistakes:
        out.append("  no mistakes: every card kept the value")
    return out


def _unmatched(texts: dict[str, bytes], game: str | None, hand: int | None) -> str:
    """Why --game/--hand chose no hand: of one log, the game or the hand that is not in it."""
    from ..notation import parse_text
    from .replay import _hand_numbers, find_game, no_game

    chose = " ".join(f"{o} {v}" for o, v in (("--game", game), ("--hand", hand)) if v is not None)
    if len(texts) != 1:
        return f"no hand of the {len(texts)} logs matches {chose}"
    ((source, data),) = texts.items()
    games, _ = parse_text(data.decode("utf-8", "replace"), source)
    found = find_game(games, game) if game is not None else None
    if game is not None and found is None:
        return no_game(games, game, source)
    if found is not None or len(games) == 1:
        only = found or games[0]
        return f"{only.name} has no hand {hand} (hands: {_hand_numbers(only)})" if hand is not None \
            else f"{only.name} has no hands"
    return f"no game in {source} has a hand {hand}"


@app.command()
def analyze(
    ctx: typer.Context,
    paths: Paths,
    game: Annotated[str | None, typer.Option("--game", metavar="GAME",
                                             help="only this game: its name, or its number in the file")] = None,
    hand: Annotated[int | None, typer.Option("--hand", metavar="N", help="only this hand number")] = None,
    rules: RulesOpt = "",
    fmt: Annotated[str, typer.Option("--format", metavar="FORMAT", help="text, json, jsonl or csv")] = "text",
    jobs: JobsOpt = CORES,
) -> None:
    """Judge every hand against perfect play: par, the result, each card's cost, the claim.

    Par is the pitcher's score when everyone plays perfectly from the first lead (the pitcher's
    side for the most, the others against it), with the trump pitched and with each trump it
    could have pitched. A card that lowers its side's value under perfect play is a mistake of
    that many points. Hands whose cards are not all known are reported as not analysable.
    """
    if fmt not in ("text", "json", "jsonl", "csv"):
        raise fail(f"--format must be one of text, json, jsonl, csv, not {fmt!r}")
    rules = _check_rules(rules, ctx)
    files, missing = expand_paths(paths)
    started = time.perf_counter()
    analyses: list[HandAnalysis] = []
    games_by_file: dict[str, int] = {}
    texts: dict[str, bytes] = {}  # kept when a --game/--hand may need explaining
    problems: list = list(missing)
    for path in files:
        try:
            data = sys.stdin.buffer.read() if path == "-" else open(path, "rb").read()
        except OSError as e:
            problems.append(_core.path_finding("Unreadable", path, e.strerror or str(e)))
            continue
        source = "<stdin>" if path == "-" else str(path)
        if game is not None or hand is not None:
            texts[source] = data
        # only the mistakes cross into Python: nothing here shows the other cards
        in_log, found, examined = examine_log(data, source, rules, jobs, plays=False, game=game, hand=hand)
        games_by_file[path] = in_log
        problems += found
        for _, hands in examined:
            analyses += hands
    # what was not there, not a log or empty: said as every command says it
    status = note_inputs([f for f in files if f in games_by_file], games_by_file, problems)
    if not analyses:
        if status != EXIT_FAILED and texts and any(games_by_file.values()):
            # a choice that matches nothing is a mistake in the command, as in `replay`
            raise fail(_unmatched(texts, game, hand))
        if status != EXIT_FAILED:
            typer.echo("auditor: no hands found", err=True)
        raise typer.Exit(status)
    if fmt == "text":
        sys.stdout.write("".join(line + "\n" for a in analyses for line in hand_text(a)))
    elif fmt == "json":
        typer.echo(json.dumps([dict(hand_row(a), mistake_list=[mistake_dict(m) for m in a.mistakes],
                                     par_by_trump=dict(a.par_by_trump),
                                     revokes=[{"trick": r.trick, "revoker": r.revoker, "innocent": list(r.innocent),
                                               "sure": r.sure, "took": r.took, "damage": r.damage}
                                              for r in a.revokes])
                                for a in analyses], indent=2))
    else:
        emit_rows([hand_row(a) for a in analyses], fmt)
    done = [a for a in analyses if not a.not_analysable]
    lost = sum(m.cost for a in done for m in a.mistakes)
    typer.echo(f"analysed {plural(len(done), 'hand')} ({len(analyses) - len(done)} not analysable): "
               f"{plural(sum(len(a.mistakes) for a in done), 'mistake')}, {points_text(lost)} lost; "
               f"{time.perf_counter() - started:.2f} s", err=True)
    raise typer.Exit(status)
