"""Differential check: the reference Python engine against the engine installed today.

    python bench/differential.py                       # every corpus, >= 100,000 hands each
    python bench/differential.py --hands 2000          # a quick run
    python bench/differential.py --only 'partnership*' --hands 20000 --jobs 2
    python bench/differential.py --exclude R501@first_trick_trump=free --exclude S601@first_trick_trump=free
    python bench/differential.py --list                # the corpora, and nothing else

The reference engine is ``auditor/engine.py`` as of a git revision (``--ref``, default
171b4de), read with ``git show REV:auditor/engine.py`` and executed as the module
``auditor._reference_engine`` inside the installed package, so that its relative imports
(``from .cards import ...``) use today's ``cards``, ``notation`` and ``rules``; no copy of the
old engine is kept in the tree.  The engine under test is ``auditor.engine.audit_games`` as
installed (which may call the compiled core).

Corpora.  One corpus per preset of ``auditor.rules.PRESETS`` and per rule variation the
tests exercise (the partnership variations, follow rules, ``low=taker``, the draw,
``trumps_only``, six players, ``count_down``, the smallest and largest tables, ...; see
``CORPORA``, or ``--list``).  Each is written by ``auditor.simulate.simulate`` with every
kind of injected fault (``--faults``, default all of ``auditor.simulate.FAULTS``) until it
holds at least ``--hands`` hands.  While simulating, the simulator's scorer is pointed at the
reference engine, so the score sheets in a corpus are the reference's and a cached corpus
does not depend on the engine under test.

The cache.  A corpus is kept under ``bench/_data/diff/NAME-HASH/`` (gitignored) as gzipped
chunks of about ``--chunk-hands`` hands (each chunk is one ``simulate`` call with its own
seed) and a ``manifest.json``.  HASH covers the preset, rules, players, faults, seed, chunk
size, the reference revision and the source of ``auditor/simulate.py``; it does not cover
``--hands``: a bigger run appends chunks to the same corpus, a smaller one reads a prefix of
it.  ``--regenerate`` throws the selected corpora away first.  The text is parsed with
today's ``auditor.notation.parse_text`` at every run, one chunk at a time (memory stays
bounded by the chunk size).

What is compared, game by game:

- the multiset of findings as ``(code, game, hand, trick, subject, line, column)``;
- per hand, in order: the hand number, ``status``, ``scored``, ``score`` and ``total``;
- the game's ``winner``, ``won_in_hand`` and ``settlement``.

Every difference is counted by kind (``finding only in reference``, ``finding only in new``,
``hand score``, ``winner``, ``new engine raised``, ...); the first few games that differ
(``--show``) are printed in full, both sides' findings with their messages.  Exit status:
0 no mismatch, 1 a mismatch, 2 could not run.

Exclusions (``--exclude``, repeatable) leave out of the comparison the findings an intended
fix changes.  ``--exclude CODE`` applies to every corpus; ``--exclude CODE@KEY=VALUE`` only to
the corpora whose rules have that value: KEY is any rule key (``auditor rules``), with the
value read as a ``[Rules]`` tag reads it, or ``preset=NAME``, or ``seats=N`` (the number
of players at the table).  Within a corpus it applies to:

1. an excluded code's findings are dropped from both sides before the findings compare;
2. a hand holding an excluded finding on either side is not compared at all (status,
   scores), and the ``total`` of every later hand of that game is not compared either
   (totals are recomputed cumulatively, so a changed score moves every later total);
3. a game holding an excluded finding on either side has its winner, ``won_in_hand`` and
   settlement left uncompared.  A changed score can change the recomputed winner, and with
   it an S603: exclude S603 too if the fix may do that.

For example, a fix to the revoke rule under ``first_trick_trump=free`` that changes which
plays are revokes and so the recomputed scores::

    --exclude R501@first_trick_trump=free --exclude S601@first_trick_trump=free

The summary counts the excluded findings and the hands skipped for each corpus.
"""

from __future__ import annotations

import argparse
import fnmatch
import gzip
import hashlib
import json
import linecache
import os
import re
import shutil
import subprocess
import sys
import time
import traceback
import types
from collections import Counter
from collections.abc import Iterator
from concurrent.futures import ProcessPoolExecutor, as_completed
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
CACHE = HERE / "_data" / "diff"
REFERENCE_MODULE = "auditor._reference_engine"
_HAND_LINE = re.compile(rb"^hand \d+", re.M)


@dataclass(frozen=True)
class Corpus:
    preset: str
    rules: str = ""  # key=value words after the preset
    players: int | None = None  # None: simulate's default for the preset

    @property
    def rule_set(self):
        from auditor.rules import parse_rules

        return parse_rules(f"{self.preset} {self.rules}".strip())

    @property
    def seats(self) -> int:
        lo, hi = self.rule_set.players
        return self.players or (4 if lo <= 4 <= hi else lo)

    @property
    def name(self) -> str:
        return " ".join(x for x in (self.preset, self.rules, f"{self.seats}p") if x)


CORPORA = (
    # every preset, at its usual table
    Corpus("auction"), Corpus("sell"), Corpus("setback"), Corpus("partnership"), Corpus("cutthroat"),
    Corpus("tenpoint"), Corpus("tenpoint52"),
    # other table sizes: the smallest and largest the presets allow, six in the ten-point games
    Corpus("auction", "", 3), Corpus("auction", "", 7), Corpus("sell", "", 8), Corpus("cutthroat", "", 2),
    Corpus("cutthroat", "game=11", 3), Corpus("tenpoint", "", 6), Corpus("tenpoint52", "", 6),
    # the partnership variations
    Corpus("partnership", "players=6", 6), Corpus("partnership", "pitching=on"),
    Corpus("partnership", "pitching=on double_loss=on"), Corpus("partnership", "draw=on"),
    Corpus("partnership", "draw=on pitching=on"), Corpus("partnership", "first_trick_trump=free"),
    Corpus("partnership", "first_trick_trump=free follow=strict"),
    Corpus("partnership", "players=6 first_trick_trump=free", 6), Corpus("partnership", "follow=strict"),
    # follow rules, the ten-point variations, and single keys the tests turn
    Corpus("setback", "follow=strict"), Corpus("tenpoint", "follow=strict"),
    Corpus("tenpoint", "follow=free-when-void"), Corpus("tenpoint", "trey=off game_point=ten"),
    Corpus("tenpoint", "draw=on discard=all-non-trumps"), Corpus("auction", "low=taker"),
    Corpus("auction", "count_down=on"), Corpus("setback", "trumps_only=on"),
)


# --- the reference engine ---------------------------------------------------------------------------

def resolve_rev(rev: str) -> str:
    r = subprocess.run(["git", "-C", str(REPO), "rev-parse", "--verify", "--quiet", f"{rev}^{{commit}}"],
                       capture_output=True, text=True)
    if r.returncode:
        print(f"differential: {rev!r} is not a commit of {REPO}", file=sys.stderr)
        raise SystemExit(2)
    return r.stdout.strip()


def load_reference(commit: str) -> types.ModuleType:
    """``auditor/engine.py`` at ``commit`` as the module ``auditor._reference_engine``."""
    mod = sys.modules.get(REFERENCE_MODULE)
    if mod is not None and getattr(mod, "__commit__", None) == commit:
        return mod
    import auditor

    src = subprocess.run(["git", "-C", str(REPO), "show", f"{commit}:auditor/engine.py"],
                         capture_output=True, text=True, check=True).stdout
    filename = f"<{commit[:12]}:auditor/engine.py>"
    linecache.cache[filename] = (len(src), None, src.splitlines(True), filename)  # readable tracebacks
    mod = types.ModuleType(REFERENCE_MODULE)
    mod.__package__ = "auditor"
    mod.__file__ = filename
    mod.__commit__ = commit
    sys.modules[REFERENCE_MODULE] = mod  # before exec: dataclasses look their module up
    try:
        exec(compile(src, filename, "exec"), mod.__dict__)
    except BaseException:
        del sys.modules[REFERENCE_MODULE]
        raise
    auditor._reference_engine = mod
    return mod


@contextmanager
def simulating_with(engine: types.ModuleType):
    """``auditor.simulate`` writing its score sheets with ``engine``."""
    from auditor import simulate as sim

    names = ("audit_games", "resolve_rules", "trick_winner_pos", "PITCH_VALUE")
    saved = {n: getattr(sim, n) for n in names}
    try:
        for n in names:
            setattr(sim, n, getattr(engine, n))
        yield sim
    finally:
        for n, v in saved.items():
            setattr(sim, n, v)


# --- exclusions -------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Exclusion:
    code: str
    key: str | None = None
    value: str | None = None

    @classmethod
    def parse(cls, text: str) -> Exclusion:
        from auditor.rules import KEY_BY_NAME, parse_value

        code, at, cond = text.partition("@")
        if not re.fullmatch(r"[A-Z]\d{3}", code):
            raise ValueError(f"--exclude {text!r}: a finding code is a letter and three digits, like R501")
        if not at:
            return cls(code)
        key, eq, value = cond.partition("=")
        if not eq or not value:
            raise ValueError(f"--exclude {text!r}: write CODE@KEY=VALUE")
        if key in KEY_BY_NAME:
            try:
                parse_value(KEY_BY_NAME[key], value)
            except ValueError as e:
                raise ValueError(f"--exclude {text!r}: {e}") from None
        elif key not in ("preset", "seats"):
            raise ValueError(f"--exclude {text!r}: unknown key {key!r} (a rule key, preset or seats)")
        return cls(code, key, value)

    def applies(self, corpus: Corpus) -> bool:
        from auditor.rules import KEY_BY_NAME, parse_value

        if self.key is None:
            return True
        if self.key == "preset":
            return corpus.preset == self.value
        if self.key == "seats":
            return str(corpus.seats) == self.value
        return getattr(corpus.rule_set, self.key) == parse_value(KEY_BY_NAME[self.key], self.value)

    def __str__(self) -> str:
        return self.code + (f"@{self.key}={self.value}" if self.key else "")


# --- the corpus cache -------------------------------------------------------------------------------

def corpus_dir(corpus: Corpus, commit: str, faults: tuple[str, ...], seed: int, chunk_hands: int) -> tuple[Path, dict]:
    import auditor.simulate

    params = {"preset": corpus.preset, "rules": corpus.rules, "players": corpus.seats, "faults": list(faults),
              "seed": seed, "chunk_hands": chunk_hands, "reference": commit,
              "writer": os.environ.get("DIFF_GENERATE_WITH", "new"),
              "simulate_sha1": hashlib.sha1(Path(auditor.simulate.__file__).read_bytes()).hexdigest()}
    digest = hashlib.sha1(json.dumps(params, sort_keys=True).encode()).hexdigest()[:10]
    slug = re.sub(r"[^A-Za-z0-9]+", "-", corpus.name).strip("-")
    return CACHE / f"{slug}-{digest}", params


def _write_atomic(path: Path, data: bytes) -> None:
    tmp = path.with_name(path.name + f".tmp{os.getpid()}")
    tmp.write_bytes(data)
    os.replace(tmp, path)


def chunks(corpus: Corpus, commit: str, faults: tuple[str, ...], seed: int, chunk_hands: int, hands: int,
           log) -> Iterator[tuple[Path, dict]]:
    """Generate what is missing of the corpus, chunk by chunk; yields (path, chunk record)."""
    where, params = corpus_dir(corpus, commit, faults, seed, chunk_hands)
    if os.environ.get("DIFF_FROM_CACHE"):
        # --from-cache: the biggest corpus already generated for these parameters, whatever version of
        # simulate.py (or engine) wrote it: only the comparison runs again
        same = [d for d in CACHE.glob(where.name.rsplit("-", 1)[0] + "-*") if (d / "manifest.json").exists()
                and {k: v for k, v in json.loads((d / "manifest.json").read_text())["params"].items()
                     if k not in ("simulate_sha1", "writer")} == {k: v for k, v in params.items()
                                                                  if k not in ("simulate_sha1", "writer")}]
        if same:
            where = max(same, key=lambda d: sum(c["hands"] for c in json.loads((d / "manifest.json").read_text())
                                                ["chunks"]))
    where.mkdir(parents=True, exist_ok=True)
    manifest_path = where / "manifest.json"
    manifest = json.loads(manifest_path.read_text()) if manifest_path.exists() else {"params": params, "chunks": []}
    have = 0
    for i in range(10 ** 6):
        if have >= hands:
            return
        if i < len(manifest["chunks"]) and (where / manifest["chunks"][i]["file"]).exists():
            rec = manifest["chunks"][i]
        else:
            del manifest["chunks"][i:]
            done = manifest["chunks"]
            # the first chunk is 20 games; later ones are sized from the hands per game so far (so a
            # chunk's size, and so the corpus, depends only on the chunks before it, not on --hands)
            per_game = sum(c["hands"] for c in done) / max(1, sum(c["games"] for c in done))
            games = 20 if not done else max(1, round(chunk_hands / max(per_game, 1.0)))
            chunk_seed = seed * 1_000_000 + i
            writer = load_reference(commit) if os.environ.get("DIFF_GENERATE_WITH", "new") == "reference" else sys.modules["auditor.engine"]
            t0 = time.perf_counter()
            with simulating_with(writer) as sim:
                text, _key = sim.simulate(corpus.preset, games=games, seed=chunk_seed, players=corpus.seats,
                                          faults=faults, rules_text=corpus.rules)
            seconds = time.perf_counter() - t0
            data = text.encode("utf-8")
            rec = {"file": f"chunk-{i:05d}.pitch.gz", "seed": chunk_seed, "games": games,
                   "hands": len(_HAND_LINE.findall(data)), "seconds": round(seconds, 3), "new": True}
            _write_atomic(where / rec["file"], gzip.compress(data, 6))
            done.append({k: v for k, v in rec.items() if k != "new"})
            _write_atomic(manifest_path, json.dumps(manifest, indent=1).encode())
            log(f"{corpus.name}: chunk {i} generated, {rec['games']} games, {rec['hands']} hands, {seconds:.1f}s")
        have += rec["hands"]
        yield where / rec["file"], rec


# --- comparing --------------------------------------------------------------------------------------

def finding_key(f) -> tuple:
    return (f.code, f.game, f.hand, f.trick, f.subject, f.line, f.column)


@dataclass
class Tally:
    corpus: str
    games: int = 0
    hands: int = 0
    hands_skipped: int = 0
    findings: int = 0  # reference findings compared (after exclusions)
    excluded: int = 0  # findings dropped by exclusions, both sides
    fixed_games: int = 0  # games where a corrected verdict (item 8) applies
    fixed_findings: int = 0
    parse_problems: int = 0
    gen_hands: int = 0  # hands in the chunks read, and the seconds their simulation took
    gen_seconds: float = 0.0
    generated_now: int = 0  # hands simulated in this run
    parse_seconds: float = 0.0
    ref_seconds: float = 0.0
    new_seconds: float = 0.0
    exclusions: list[str] = field(default_factory=list)
    mismatches: Counter = field(default_factory=Counter)
    details: list[str] = field(default_factory=list)
    error: str | None = None


def _fmt_finding(mark: str, f) -> str:
    where = f"{f.line}:{f.column}"
    bits = [f"hand {f.hand}" if f.hand is not None else "", f"trick {f.trick}" if f.trick is not None else "",
            f.subject or ""]
    return f"    {mark} {f.code} {where} {' '.join(b for b in bits if b)}: {f.message}"


def _fmt_hand(hs) -> str:
    return f"status={hs.status} scored={hs.scored} score={dict(sorted(hs.score.items()))} " \
           f"total={dict(sorted(hs.total.items()))}"


def fixed_hands(ref, new) -> set:
    """The hands where one of the three verdicts the core corrects (issue 12, item 8) applies, by its rule.

    (a) ``first_trick_trump=free``: a revoke in the free first trick (R501 in trick 1, new only);
    (b) ``pitching=on``: a dealer's smudge over a pitch called A309 (reference only, "the suit already
    pitched" with a takeover that was no pitch); (c) ``going_out=bidder-only``: the reference declares a
    side the winner in a hand where it revoked (marked by the game, ``None``).
    Everything in those hands, and the totals and winner after them, is left out of the comparison.
    """
    rules = ref.rules
    out = set()
    if rules is None:
        return out
    if rules.first_trick_trump == "free":
        out |= {f.hand for f in new.findings if f.code == "R501" and f.trick == 1}
    if rules.pitching:
        out |= {f.hand for f in ref.findings if f.code == "A309" and "the suit already pitched" in f.message
                and not any(g.code == "A309" and g.hand == f.hand for g in new.findings)}
    if rules.going_out == "bidder-only" and ref.winner is not None:
        won = next((h for h in ref.hands if h.hand == ref.won_in_hand), None)
        if won is not None and ref.winner in won.revokers:
            out.add(None)
    return out


def compare_game(ref, new, excluded: set[str], tally: Tally, where: str, show: int) -> None:
    kinds: Counter = Counter()
    notes: list[str] = []
    all_found = list(ref.findings) + list(new.findings)
    fixed = fixed_hands(ref, new)
    if fixed:
        tally.fixed_games += 1
        tally.fixed_findings += sum(1 for f in all_found if f.hand in fixed or None in fixed and f.code == "S603")
    gone = [f for f in all_found if f.code in excluded or f.hand in fixed or (None in fixed and f.code == "S603")]
    skip_hands = {f.hand for f in gone} | (fixed - {None})
    tally.excluded += sum(f.code in excluded for f in all_found)
    gone_ids = {id(f) for f in gone}
    rf = Counter(finding_key(f) for f in ref.findings if id(f) not in gone_ids)
    nf = Counter(finding_key(f) for f in new.findings if id(f) not in gone_ids)
    tally.findings += sum(rf.values())
    only_ref, only_new = rf - nf, nf - rf
    if only_ref:
        kinds["finding only in reference"] += sum(only_ref.values())
    if only_new:
        kinds["finding only in new"] += sum(only_new.values())
    if len(ref.hands) != len(new.hands):
        kinds["hand count"] += 1
        notes.append(f"  hands: reference {len(ref.hands)}, new {len(new.hands)}")
    tainted = False  # a hand before was skipped: totals from here on may differ by design
    for a, b in zip(ref.hands, new.hands):
        tally.hands += 1
        if a.hand != b.hand:
            kinds["hand number"] += 1
            notes.append(f"  hand #{a.hand} in the reference is hand #{b.hand} in new")
            continue
        if a.hand in skip_hands:
            tally.hands_skipped += 1
            tainted = True
            continue
        diff = [k for k, x, y in (("status", a.status, b.status), ("scored", a.scored, b.scored),
                                  ("score", a.score, b.score), ("total", a.total, b.total))
                if x != y and not (k == "total" and tainted)]
        for k in diff:
            kinds[f"hand {k}"] += 1
        if diff:
            notes.append(f"  hand {a.hand} (line {a.line}), differs in {', '.join(diff)}:\n"
                         f"    reference {_fmt_hand(a)}\n    new       {_fmt_hand(b)}")
    if not skip_hands and None not in fixed:
        for k in ("winner", "won_in_hand", "settlement"):
            if getattr(ref, k) != getattr(new, k):
                kinds[k] += 1
        if any(getattr(ref, k) != getattr(new, k) for k in ("winner", "won_in_hand", "settlement")):
            notes.append(f"  winner: reference {ref.winner} in hand {ref.won_in_hand}, settlement {ref.settlement}; "
                         f"new {new.winner} in hand {new.won_in_hand}, settlement {new.settlement}")
    if not kinds:
        return
    tally.mismatches.update(kinds)
    if len(tally.details) >= show:
        return
    g = ref.game
    start = g.tags[0].line if g.tags else "?"
    lines = [f"[{tally.corpus}] game {g.name} ({where}, from line {start}): "
             + ", ".join(f"{k} x{n}" for k, n in sorted(kinds.items()))]
    lines.append("  findings (- only in the reference, + only in new, = in both; ! excluded):")
    common = rf & nf
    for side, found, only in (("reference", ref.findings, only_ref), ("new", new.findings, only_new)):
        lines.append(f"   {side}: {len(found)} finding(s)")
        left = Counter(only)
        for f in sorted(found, key=lambda f: (f.line, f.column, f.code)):
            k = finding_key(f)
            if f.code in excluded:
                mark = "!"
            elif left[k] > 0:
                left[k] -= 1
                mark = "-" if side == "reference" else "+"
            else:
                mark = "=" if common[k] else "?"
            lines.append(_fmt_finding(mark, f))
    lines += notes
    tally.details.append("\n".join(lines))


def run_corpus(corpus: Corpus, commit: str, faults: tuple[str, ...], seed: int, chunk_hands: int, hands: int,
               excludes: list[Exclusion], show: int, quiet: bool) -> Tally:
    tally = Tally(corpus.name)
    log = (lambda m: None) if quiet else (lambda m: print(f"differential: {m}", file=sys.stderr, flush=True))
    try:
        from auditor import engine as new_engine
        from auditor.notation import parse_text

        ref = load_reference(commit)
        excluded = {x.code for x in excludes if x.applies(corpus)}
        tally.exclusions = sorted(str(x) for x in excludes if x.applies(corpus))
        for path, rec in chunks(corpus, commit, faults, seed, chunk_hands, hands, log):
            tally.gen_hands += rec["hands"]
            tally.gen_seconds += rec["seconds"]
            tally.generated_now += rec["hands"] if rec.get("new") else 0
            where = str(path.relative_to(REPO)) if path.is_relative_to(REPO) else str(path)
            t0 = time.perf_counter()
            text = gzip.decompress(path.read_bytes()).decode("utf-8")
            games, problems = parse_text(text, where)
            t1 = time.perf_counter()
            tally.parse_problems += len(problems)
            ref_results = ref.audit_games(games)
            t2 = time.perf_counter()
            tally.games += len(games)
            try:
                new_results = new_engine.audit_games(games)
            except Exception:
                tally.mismatches["new engine raised"] += len(games)
                if len(tally.details) < show:
                    tally.details.append(f"[{corpus.name}] the new engine raised on {where} "
                                         f"({len(games)} games):\n{traceback.format_exc()}")
                continue
            finally:
                tally.parse_seconds += t1 - t0
                tally.ref_seconds += t2 - t1
                tally.new_seconds += time.perf_counter() - t2
            if len(ref_results) != len(new_results):
                tally.mismatches["game count"] += 1
            for a, b in zip(ref_results, new_results):
                compare_game(a, b, excluded, tally, where, show)
            del games, ref_results, new_results, text
        log(f"{corpus.name}: {tally.games} games, {tally.hands} hands, "
            f"{sum(tally.mismatches.values())} mismatch(es)")
    except Exception:
        tally.error = traceback.format_exc()
    return tally


# --- the command line -------------------------------------------------------------------------------

def _rate(seconds: float, hands: int) -> str:
    return f"{1000 * seconds / hands:6.2f}" if hands else "     -"


def print_summary(tallies: list[Tally], show: int) -> int:
    width = max(len(t.corpus) for t in tallies + [Tally("corpus")])
    head = (f"{'corpus':<{width}} {'games':>7} {'hands':>8} {'findings':>8} {'excl':>6} {'fixed':>5} {'skip':>5} {'mism':>6}"
            f" | s/1k hands:{'gen':>6} {'parse':>6} {'ref':>6} {'new':>6}")
    rule = "-" * len(head)

    def row(t: Tally, mism: int) -> str:
        return (f"{t.corpus:<{width}} {t.games:>7} {t.hands:>8} {t.findings:>8} {t.excluded:>6} "
                f"{t.fixed_games:>5} {t.hands_skipped:>5} {mism:>6} | {'':>11}{_rate(t.gen_seconds, t.gen_hands)} "
                f"{_rate(t.parse_seconds, t.hands)} {_rate(t.ref_seconds, t.hands)} {_rate(t.new_seconds, t.hands)}")

    print(head)
    print(rule)
    total = Tally("total")
    for t in tallies:
        print(row(t, sum(t.mismatches.values()) + (1 if t.error else 0))
              + (f"  excluding {', '.join(t.exclusions)}" if t.exclusions else "") + ("  ERROR" if t.error else ""))
        for k in ("games", "hands", "findings", "excluded", "fixed_games", "fixed_findings", "hands_skipped", "parse_problems", "gen_hands",
                  "generated_now", "gen_seconds", "parse_seconds", "ref_seconds", "new_seconds"):
            setattr(total, k, getattr(total, k) + getattr(t, k))
        total.mismatches.update(t.mismatches)
    errors = [t for t in tallies if t.error]
    mism = sum(total.mismatches.values()) + len(errors)
    print(rule)
    print(row(total, mism))
    print(f"(excl: findings excluded, both sides; fixed: games where a verdict the core corrects applies (item 8 of issue 12, see fixed_hands), left out; skip: hands not compared for an exclusion; mism: mismatches. "
          f"gen: simulating the corpus, as its manifest recorded it, {total.generated_now} hands simulated in this "
          f"run; parse: parse_text; ref, new: audit_games. Parse problems: {total.parse_problems})")
    if total.mismatches:
        print("\nmismatches by kind:")
        for k, n in total.mismatches.most_common():
            print(f"  {k:<28} {n}")
    for t in errors:
        print(f"\n[{t.corpus}] could not run:\n{t.error}")
    details = [d for t in tallies for d in t.details]
    if details:
        print(f"\nthe first {min(show, len(details))} game(s) that differ:")
        for d in details[:show]:
            print()
            print(d)
    print(f"\n{'MISMATCH' if mism else 'OK'}: {total.games} games, {total.hands} hands, "
          f"{total.findings} findings compared, {mism} mismatch(es)")
    return 1 if mism else 0


def main(argv: list[str] | None = None) -> int:
    from auditor.simulate import FAULTS

    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter,
                                 epilog="See the module docstring (python -m pydoc bench/differential.py) for "
                                        "the cache and how exclusions work.")
    ap.add_argument("--ref", default="171b4de", help="git revision of the reference auditor/engine.py")
    ap.add_argument("--from-cache", action="store_true",
                    help="compare on the biggest corpora already generated for these parameters, whatever "
                         "version of simulate.py wrote them (no generation when they are big enough)")
    ap.add_argument("--generate-with", choices=("new", "reference"), default="new",
                    help="the engine simulate writes the score sheets with (new: fast; either way both engines "
                         "audit the same text, so a disagreement shows)")
    ap.add_argument("--hands", type=int, default=100_000, help="at least this many hands per corpus")
    ap.add_argument("--only", action="append", default=[], metavar="PATTERN",
                    help="corpora whose name matches this shell pattern (repeatable), e.g. 'tenpoint*'")
    ap.add_argument("--exclude", action="append", default=[], metavar="CODE[@KEY=VALUE]",
                    help="leave this code out of the comparison (in corpora with KEY=VALUE); repeatable")
    ap.add_argument("--faults", default=",".join(FAULTS),
                    help=f"faults injected in every game, comma-separated (default all: {','.join(FAULTS)}; "
                         f"'' for none)")
    ap.add_argument("--seed", type=int, default=0, help="base seed of the corpora")
    ap.add_argument("--chunk-hands", type=int, default=2000, help="hands per cached chunk (about)")
    ap.add_argument("--jobs", "-j", type=int, default=min(2, os.cpu_count() or 1), help="worker processes")
    ap.add_argument("--show", type=int, default=5, help="games that differ to print in detail")
    ap.add_argument("--regenerate", action="store_true", help="throw the selected corpora's cache away first")
    ap.add_argument("--list", action="store_true", help="list the corpora and exit")
    ap.add_argument("--quiet", "-q", action="store_true", help="no progress lines on stderr")
    args = ap.parse_args(argv)
    os.environ["DIFF_GENERATE_WITH"] = args.generate_with  # read by the workers too
    if args.from_cache:
        os.environ["DIFF_FROM_CACHE"] = "1"

    corpora = [c for c in CORPORA if not args.only or any(fnmatch.fnmatchcase(c.name, p) for p in args.only)]
    if args.list:
        for c in corpora:
            print(c.name)
        return 0
    if not corpora:
        print(f"differential: no corpus matches {args.only} (see --list)", file=sys.stderr)
        return 2
    faults = tuple(f for f in args.faults.split(",") if f)
    if bad := [f for f in faults if f not in FAULTS]:
        print(f"differential: unknown fault {bad[0]!r} (known: {', '.join(FAULTS)})", file=sys.stderr)
        return 2
    faults = tuple(f for f in FAULTS if f in faults)
    try:
        excludes = [Exclusion.parse(x) for x in args.exclude]
    except ValueError as e:
        print(f"differential: {e}", file=sys.stderr)
        return 2
    commit = resolve_rev(args.ref)
    load_reference(commit)  # fail early, here, if the old engine cannot be loaded
    if args.regenerate:
        for c in corpora:
            shutil.rmtree(corpus_dir(c, commit, faults, args.seed, args.chunk_hands)[0], ignore_errors=True)
    print(f"reference: auditor/engine.py at {commit[:12]} ({args.ref}); new: auditor.engine as installed; "
          f"{len(corpora)} corpora of >= {args.hands} hands, faults {','.join(faults) or 'none'}, "
          f"{args.jobs} job(s)", flush=True)
    task = dict(commit=commit, faults=faults, seed=args.seed, chunk_hands=args.chunk_hands, hands=args.hands,
                excludes=excludes, show=args.show, quiet=args.quiet)
    t0 = time.perf_counter()
    if args.jobs <= 1:
        tallies = [run_corpus(c, **task) for c in corpora]
    else:
        with ProcessPoolExecutor(max_workers=args.jobs) as pool:
            futures = {pool.submit(run_corpus, c, **task): i for i, c in enumerate(corpora)}
            done: dict[int, Tally] = {}
            for fut in as_completed(futures):
                i = futures[fut]
                try:
                    done[i] = fut.result()
                except Exception:  # a worker died (a crash in compiled code breaks the whole pool)
                    done[i] = Tally(corpora[i].name, error=traceback.format_exc())
        tallies = [done[i] for i in range(len(corpora))]
    print(f"({time.perf_counter() - t0:.0f}s)\n")
    return print_summary(tallies, args.show)


if __name__ == "__main__":
    sys.exit(main())
