"""Commands over logs: import, audit, fmt, explain, rules, simulate."""

from __future__ import annotations

import io
import json
import os
import shlex
import sys
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console

from ..engine import resolve_rules
from ..findings import CATALOG, by_code, catalog_markdown, explain as explain_code, select, sort_key, to_csv, \
    to_json, to_jsonl
from ..notation import EMPTY, expand_paths, format_bytes, sniff_file
from ..render import emit_rows, known_width, plural, print_findings, print_glossary, progress_bar, \
    stderr_console, say, stdout_console, summary_lines, wrap_prose, write_atomic, write_atomic_with
from ..rules import KEYS, PRESETS, RulesError, format_value
from .._lazy import lazy
from ..dataset import DatasetError, import_paths, process, write_check_record
from ..dataset import compact as compact_dataset

sim = lazy("auditor.simulate")
wh = lazy("auditor.warehouse")  # summarize_batch: the per-game counters each new batch gets (`auditor stats` reads them)
from . import EXIT_CLEAN, EXIT_FAILED, EXIT_FINDINGS, app, fail, settings
from .inputs import note_inputs

Paths = Annotated[list[str], typer.Argument(metavar="PATH", help="log files, folders (searched for *.pitch), or - for stdin")]
RulesOpt = Annotated[str, typer.Option("--rules", metavar="RULES",
                                       help="override every game's rules: a preset and/or key=value words "
                                       "(not given: the configuration's rules)")]
JobsOpt = Annotated[int, typer.Option("--jobs", "-j", metavar="N", min=1,
                                      help="threads of the compiled core", show_default="every core")]
SchedulerOpt = Annotated[str | None, typer.Option("--scheduler", metavar="ADDRESS",
                                                  help="run the work on this Dask scheduler "
                                                  "(tcp://HOST:PORT); needs auditor[dask]")]
CORES = os.cpu_count() or 1


def check_format(fmt: str, allowed: tuple[str, ...]) -> None:
    """Exit 2 unless ``fmt`` is one of ``allowed``."""
    if fmt not in allowed:
        raise fail(f"--format must be one of {', '.join(allowed)}, not {fmt!r}")


def given(ctx: typer.Context, param: str) -> bool:
    """Whether the option ``param`` was given on the command line (else the configuration may set it)."""
    source = ctx.get_parameter_source(param)  # typer's own click: its ParameterSource, compared by name
    return source is not None and source.name not in ("DEFAULT", "DEFAULT_MAP")


def _check_rules(rules: str, ctx: typer.Context) -> str:
    """The run's rules override: ``--rules``, else the configuration's; exit 2 if it is bad."""
    if not given(ctx, "rules"):
        return settings()["rules"]  # checked when the file was read
    if rules:
        try:
            resolve_rules("auction", rules)
        except RulesError as e:
            raise fail(f"bad --rules: {e}")
    return rules


def dataset_path(given: str | None, option: str) -> str:
    """The dataset a command works on: the one given, else the configuration's ``data``."""
    if given:
        return given
    if settings()["data"]:
        return settings()["data"]
    raise fail(f"give {option} (or set data = \"DATASET\" in auditor.toml: see `auditor config`)")


def _total_bytes(paths: list[str]) -> int:
    files, _ = expand_paths(paths)
    return sum(os.path.getsize(f) for f in files if f != "-" and os.path.exists(f))


@app.command("import")
def import_cmd(
    paths: Paths,
    ctx: typer.Context,
    out: Annotated[str | None, typer.Option("--out", "-o", metavar="DATASET",
                                            help="dataset folder to create or add to (not given: the "
                                            "configuration's data)")] = None,
    rules: RulesOpt = "",
    fmt: Annotated[str, typer.Option("--format", metavar="FORMAT", help="summary as text or json")] = "text",
    jobs: JobsOpt = CORES,
    scheduler: SchedulerOpt = None,
    analyze: Annotated[bool, typer.Option("--analyze", help="also examine every hand under perfect play: the "
                                          "analysis table, and accuracy in stats")] = False,
) -> None:
    """Parse and audit logs into a Parquet dataset (idempotent, atomic)."""
    check_format(fmt, ("text", "json"))
    rules = _check_rules(rules, ctx)
    out = dataset_path(out, "--out DATASET")
    try:
        with progress_bar(_total_bytes(paths)) as tick:
            stats = import_paths(paths, out, override=rules, progress=tick, jobs=jobs, scheduler=scheduler,
                                 summarize=wh.summarize_batch, analyze=analyze, keep_findings=False)
    except DatasetError as e:
        raise fail(f"{e.strerror or e}; the dataset is unchanged")
    summary = {"dataset": str(out), "files": stats.files, "games": stats.games, "games_added": stats.games_new,
               "games_already_present": stats.games_skipped, "hands": stats.hands,
               "findings_recorded": stats.findings_stored, "games_replaced": stats.games_replaced}
    # what was not there, not a log or empty, said on stderr (in every format)
    status = note_inputs(stats.games_by_file, stats.games_by_file, stats.findings)
    if fmt == "json":
        typer.echo(json.dumps(summary, indent=2))
    else:
        err = stderr_console()
        if not stats.files:
            raise typer.Exit(EXIT_FAILED)  # the reason was printed above; nothing was written
        if stats.games_replaced:
            say(err, f"{plural(stats.games_replaced, 'game')} already in {out} "
                     f"{'was' if stats.games_replaced == 1 else 'were'} replaced by a new version "
                     "(same GameId, or same file and position, different content)")
        say(err, f"imported {plural(stats.games_new, 'new game')} from {plural(stats.files, 'file')} into {out} "
                 f"({stats.games_skipped} already present, {plural(stats.hands, 'hand')} read, "
                 f"{plural(stats.findings_stored, 'finding')} recorded)")
    raise typer.Exit(status)


@app.command()
def audit(
    paths: Paths,
    ctx: typer.Context,
    fmt: Annotated[str, typer.Option("--format", metavar="FORMAT", help="text, json, jsonl or csv (not given: "
                                     "the configuration's format)")] = "text",
    select_: Annotated[list[str], typer.Option("--select", metavar="CODES",
                                               help="only codes starting with these (repeatable)")] = [],
    ignore: Annotated[list[str], typer.Option("--ignore", metavar="CODES",
                                              help="drop codes starting with these (repeatable)")] = [],
    rules: RulesOpt = "",
    out: Annotated[str | None, typer.Option("--out", metavar="DATASET",
                                            help="also write scores and findings to this dataset")] = None,
    jobs: JobsOpt = CORES,
    scheduler: SchedulerOpt = None,
    fix_: Annotated[bool, typer.Option("--fix",
                                       help="first correct the score sheets in the files (`auditor fix`)")] = False,
    unsafe_fixes: Annotated[bool, typer.Option("--unsafe-fixes",
                                               help="with --fix, also apply the rulings (S601)")] = False,
    statistics: Annotated[bool, typer.Option("--statistics", help="how many findings of each code, not each "
                                             "finding")] = False,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="the findings only: no summary")] = False,
    output: Annotated[str | None, typer.Option("--output", "-o", metavar="FILE",
                                               help="write the report to FILE (atomically) instead of stdout")] = None,
) -> None:
    """Replay every hand and report revokes, illegal plays and scoring mistakes."""
    fmt = fmt if given(ctx, "fmt") else settings()["format"]
    check_format(fmt, ("text", "json", "jsonl", "csv"))
    if output and (output.endswith(".parquet") or Path(output).is_dir()):
        # `import -o` names a dataset; here -o is the report's file: a dataset is --out's
        raise fail(f"-o/--output writes the findings as {fmt} to a file, not a dataset ({output}): "
                   f"`auditor audit ... --out {output}` stores them as `auditor import -o` does")
    rules = _check_rules(rules, ctx)
    sel, ign = _codes(select_, "select"), _codes(ignore, "ignore")
    if unsafe_fixes and not fix_:
        raise fail("--unsafe-fixes goes with --fix (or use `auditor fix --unsafe-fixes`)")
    fix_failed = False
    if fix_:
        if "-" in paths:
            raise fail("--fix rewrites files, not stdin (`auditor fix -` prints the fixed log)")
        # a file that cannot be fixed is said so, and the audit still reports on every file
        fix_failed = _fix_files(paths, diff=False, unsafe=unsafe_fixes, sel=sel, ign=ign, annotate=False,
                                rules=rules, fmt="text", quiet_clean=True) == EXIT_FAILED
    try:
        with progress_bar(_total_bytes(paths), "auditing") as tick:
            stats = process(paths, override=rules, out=out, progress=tick, jobs=jobs, scheduler=scheduler,
                            summarize=wh.summarize_batch if out else None)
    except DatasetError as e:
        raise fail(f"{e.strerror or e}; the dataset is unchanged")
    missing = [f for f in stats.findings if f.code == "E100"]
    found = sorted(select(stats.findings, sel, ign), key=sort_key)
    sink = io.StringIO() if output else None
    write = sink.write if sink is not None else sys.stdout.write
    if statistics:
        counts = sorted(by_code(found).items(), key=lambda cn: (-cn[1], cn[0]))
        if fmt == "text":
            width = max((len(str(n)) for _, n in counts), default=1)
            wrap_at = known_width(stdout_console()) if sink is None else None
            for code, n in counts:
                title = CATALOG[code].title if code in CATALOG else ""
                write(wrap_prose(f"{n:>{width}}  {code}  {title}", wrap_at, "", " " * (width + 8)) + "\n")
        else:
            rows = [{"code": c, "count": n, "title": CATALOG[c].title if c in CATALOG else None} for c, n in counts]
            write(json.dumps(rows, indent=2) + "\n" if fmt == "json" else
                  "".join(json.dumps(r) + "\n" for r in rows) if fmt == "jsonl" else
                  "code,count\n" + "".join(f"{r['code']},{r['count']}\n" for r in rows))
    elif fmt == "json":
        write(to_json(found) + "\n")
    elif fmt == "jsonl":
        write(to_jsonl(found))
    elif fmt == "csv":
        write(to_csv(found))
    else:
        # a path that is not there is said once, below, as the command's own error: not also as a finding
        shown = [f for f in found if f.code != "E100"]
        con = stdout_console() if sink is None else Console(file=sink, width=200, color_system=None,
                                                             soft_wrap=True, highlight=False)
        print_findings(shown, con, known_width(con) if sink is None else None)
    # the findings list the files that are not logs; said here: the paths not there and the empty files
    inputs = note_inputs(stats.games_by_file, stats.games_by_file, stats.findings, listed=True)
    if fmt == "text" and not quiet:
        shown = [f for f in found if f.code != "E100"]
        if stats.files and not stats.games:
            stderr_console().print("auditor: no games found", markup=False)
        elif stats.games:
            for line in summary_lines(stats.games, stats.hands, stats.cards, shown, stats.unscored):
                stderr_console().print(line, markup=False)
    if sink is not None:
        try:
            write_atomic(output, sink.getvalue().encode("utf-8"))
        except OSError as e:
            raise fail(f"cannot write {output}: {e.strerror}")
    for f in missing:
        typer.echo(f"auditor: {f.message}", err=True)
    raise typer.Exit(max(inputs, EXIT_FAILED if fix_failed else EXIT_FINDINGS if found else EXIT_CLEAN))


def _codes(values: list[str], key: str) -> list[str]:
    """``--select``/``--ignore`` values, split on commas (none given: the configuration's ``key``); a prefix
    no code has is refused."""
    if not values:
        return list(settings()[key])
    out = [s for v in values for s in v.split(",") if s]
    for prefix in out:  # a mistyped prefix would otherwise pass a CI gate silently
        if not any(c.startswith(prefix.upper()) for c in CATALOG):
            raise fail(f"no finding code starts with {prefix!r} (see `auditor explain --all`)")
    return out


def _fix_files(paths: list[str], *, diff: bool, unsafe: bool, sel: list[str], ign: list[str], annotate: bool,
               rules: str, fmt: str, quiet_clean: bool = False) -> int:
    """Fix each file's score sheet (or show the diff); the exit status: 0 nothing left, 1 something left
    (or, with ``diff``, something to fix), 2 a file could not be read, settled or written."""
    from ..fix import FixError, fix_bytes, game_count

    files, missing = expand_paths(paths)
    err = stderr_console()
    status, reports = EXIT_CLEAN, []
    failed: list[dict] = []
    # how many games each file gave, for the one rule of bad input (a text file with none is not a log)
    games_by_file: dict[str, int] = {}
    for path in files:
        label = "<stdin>" if path == "-" else path
        try:
            _, binary = sniff_file(path)  # the first bytes: a file that is not text is never read whole
            if binary is not None:
                say(err, f"{binary.source}:{binary.line}:{binary.column}: {binary.code} {binary.message}; "
                         "left unchanged")
                status = max(status, EXIT_FINDINGS)
                games_by_file[path] = 1  # said here: not again below
                continue
            data = sys.stdin.buffer.read() if path == "-" else Path(path).read_bytes()
            done = fix_bytes(data, label, unsafe=unsafe, select=tuple(sel), ignore=tuple(ign), annotate=annotate,
                             override=rules)
            games_by_file[path] = game_count(data, label) if not done.fixes else 1
            if not diff and done.changed and path != "-":
                target = Path(path).resolve()
                if not os.access(target, os.W_OK):
                    raise PermissionError(f"the file is read-only ({oct(target.stat().st_mode & 0o777)})")
                if not os.access(target.parent, os.W_OK | os.X_OK):
                    raise PermissionError(f"its folder {target.parent} is read-only (the fixed file is written "
                                          "beside it, then renamed over it)")
                write_atomic(path, done.after)
        except (OSError, FixError) as e:
            reason = (e.strerror if isinstance(e, OSError) and e.strerror else None) or str(e)
            say(err, f"auditor: {label}: {reason}; left unchanged")
            failed.append({"file": label, "error": reason})
            status = EXIT_FAILED
            continue
        if path == "-" and not diff and fmt == "text":
            sys.stdout.buffer.write(done.after)  # the fixed log on stdout, as ruff does for stdin
        elif diff and fmt == "text":
            sys.stdout.write(done.diff())
        reports.append(done)
        left = len(done.remaining)
        if status != EXIT_FAILED and ((diff and done.changed) or (not diff and left)):
            status = EXIT_FINDINGS
        if fmt == "text" and not (quiet_clean and not done.fixes):
            say(err, _fix_summary(done, diff))
    if fmt == "json":
        out = [{"file": d.path, "changed": d.changed, "fixes": [f.as_dict() for f in d.fixes],
                "fixed": dict(sorted(d.counts().items())),
                "reported_fixed": dict(sorted(d.reported_counts().items())),
                "followed": dict(sorted(d.followed_counts().items())), "remaining": dict(sorted(by_code(d.remaining).items())),
                "unsafe_fixes_available": d.unsafe_left} for d in reports]
        for d, entry in zip(reports, out):
            if d.path == "<stdin>" and not diff:
                entry["output"] = d.after.decode("utf-8", "surrogateescape")  # the fixed log, inside the JSON
        sys.stdout.write(json.dumps({"files": out + failed}, indent=2, ensure_ascii=False) + "\n")
    found = list(missing) + [f for d in reports for f in d.remaining]
    return max(status, note_inputs(files, games_by_file, found))


def _fix_summary(done, diff: bool) -> str:
    """``club.pitch: fixed 1 finding (S601 1); 2 lines followed from it (S602 2); 1 finding left ...``:
    what the audit reported and was fixed, apart from what followed from those fixes."""
    verb = "would fix" if diff else "fixed"

    def listed(counts) -> str:
        return ", ".join(f"{c} {k}" for c, k in sorted(counts.items()))

    reported, followed = done.reported_counts(), done.followed_counts()
    if reported or followed:
        n = sum(reported.values())
        head = f"{done.path}: {verb} {n} finding{'s' * (n != 1)}" + (f" ({listed(reported)})" if n else "")
        if followed:
            m = sum(followed.values())
            head += (f"; {m} line{'s' * (m != 1)} {'follow' if m != 1 else 'follows'}" if diff else
                     f"; {m} line{'s' * (m != 1)} followed") + f" from {'them' if n != 1 else 'it'} ({listed(followed)})"
    else:
        head = f"{done.path}: nothing to fix"
    left = by_code(done.remaining)
    if left:
        n = sum(left.values())
        head += f"; {n} finding{'s' * (n != 1)} left ({listed(left)})"
        if done.unsafe_left and not diff:
            head += f"; {done.unsafe_left} with an unsafe fix (--unsafe-fixes)"
    return head


@app.command()
def fix(
    ctx: typer.Context,
    paths: Paths,
    diff: Annotated[bool, typer.Option("--diff",
                                       help="print a unified diff of the fixes and write nothing")] = False,
    unsafe_fixes: Annotated[bool, typer.Option("--unsafe-fixes",
                                               help="also apply the audit's rulings: hand scores "
                                               "replaced by the recomputed ones (S601)")] = False,
    annotate: Annotated[bool, typer.Option("--annotate",
                                           help='append % fixed: was "..." to each changed line')] = False,
    select_: Annotated[list[str], typer.Option("--select", metavar="CODES",
                                               help="only codes starting with these (repeatable)")] = [],
    ignore: Annotated[list[str], typer.Option("--ignore", metavar="CODES",
                                              help="drop codes starting with these (repeatable)")] = [],
    rules: RulesOpt = "",
    fmt: Annotated[str, typer.Option("--format", metavar="FORMAT", help="text or json")] = "text",
) -> None:
    """Correct the score sheet in the log itself: safe fixes (totals, winner), unsafe ones with --unsafe-fixes."""
    check_format(fmt, ("text", "json"))
    rules = _check_rules(rules, ctx)
    raise typer.Exit(_fix_files(paths, diff=diff, unsafe=unsafe_fixes, sel=_codes(select_, "select"),
                                ign=_codes(ignore, "ignore"),
                                annotate=annotate, rules=rules, fmt=fmt))


@app.command()
def fmt(
    files: Annotated[list[str], typer.Argument(metavar="PATH", help=".pitch files or folders (searched for "
                                                "*.pitch), or - for stdin")],
    in_place: Annotated[bool, typer.Option("--in-place",
                                           help="rewrite each file (refused if it has unreadable lines)")] = False,
    check: Annotated[bool, typer.Option("--check",
                                        help="list the files not in canonical form; exit 1 if any")] = False,
) -> None:
    """Print logs in canonical form: one statement per line, canonical card tokens, comments kept."""
    paths, missing = expand_paths(files)
    if in_place and "-" in paths:
        raise fail("--in-place needs files, not stdin")
    status = EXIT_CLEAN
    games_by_file: dict[str, int] = {}
    found: list = list(missing)
    for path in paths:
        try:
            kind, binary = sniff_file(path)  # the first bytes: a file that is not text is never read whole
            data = b"" if binary is not None else sys.stdin.buffer.read() if path == "-" else Path(path).read_bytes()
        except OSError as e:
            typer.echo(f"auditor: cannot read {path}: {e.strerror}", err=True)
            status = EXIT_FINDINGS
            continue
        if binary is not None:
            typer.echo(f"{binary.source}:{binary.line}:{binary.column}: {binary.code} {binary.message}", err=True)
            status = EXIT_FINDINGS
            games_by_file[path] = 1  # said here: not again below
            continue
        text, problems = format_bytes(data, "<stdin>" if path == "-" else path)
        games_by_file[path] = 0 if kind == EMPTY else 1  # fmt lists every problem itself: only the empty are said
        for p in problems:
            typer.echo(f"{p.source}:{p.line}:{p.column}: {p.code} {p.message}", err=True)
        if problems:
            status = max(status, EXIT_FINDINGS)
        if check:
            if path == "-" or data != text.encode("utf-8"):
                # --in-place leaves a file with an unreadable line alone: say what will work
                hint = (f"fix {_fix_first(problems)}, then auditor fmt --in-place {path}" if problems
                        else f"auditor fmt --in-place {path}" if path != "-" else "auditor fmt - prints it")
                typer.echo(f"{path}: not in canonical form ({hint})", err=True)
                status = max(status, EXIT_FINDINGS)
        elif in_place:
            if problems:
                typer.echo(f"auditor: {path} left unchanged: {plural(len(problems), 'line')} could not be read "
                           f"and would be lost in rewriting (fix {_fix_first(problems)})", err=True)
                continue
            write_atomic(path, text.encode("utf-8"))  # through a symlink to the file it names, keeping its mode
        else:
            sys.stdout.write(text)
    raise typer.Exit(max(status, note_inputs(paths, games_by_file, found)))


def _fix_first(problems: list) -> str:
    """``line 7 first`` / ``lines 7, 9 and 12 first``: what to mend before a rewrite can keep everything."""
    lines = sorted({p.line for p in problems if p.line})
    if not lines:
        return "the problems above first"
    shown = ", ".join(map(str, lines[:5])) + (f" and {len(lines) - 5} more" if len(lines) > 5 else "")
    return f"line{'s' * (len(lines) != 1)} {shown} first"


@app.command()
def explain(
    code: Annotated[str | None, typer.Argument(help="a finding code, e.g. R501")] = None,
    all_: Annotated[bool, typer.Option("--all", help="every code")] = False,
    fmt: Annotated[str, typer.Option("--format", metavar="FORMAT", help="text, json or markdown (also md)")] = "text",
) -> None:
    """Say what a finding code means, why it matters, and show an example."""
    check_format(fmt, ("text", "json", "markdown", "md"))  # md and markdown alike, as `report` takes them
    codes = list(CATALOG) if all_ or code is None else [code.upper()]
    if fmt in ("markdown", "md"):
        sys.stdout.write(catalog_markdown() if all_ or code is None else explain_code(codes[0]) or "")
        return
    if fmt == "json":
        out = [dict(code=c.code, kind=c.kind, severity=c.severity, title=c.title, why=c.why, example=c.example,
                    fix=c.fix, section=c.link)
               for c in (CATALOG[x] for x in codes if x in CATALOG)]
        if not out:
            raise fail(f"unknown code {code!r}: see `auditor explain --all`")
        typer.echo(json.dumps(out if len(out) > 1 else out[0], indent=2))
        return
    width = stdout_console().width  # the terminal's, or COLUMNS, else 80
    for c in codes:
        text = explain_code(c)
        if text is None:
            raise fail(f"unknown code {c!r}: see `auditor explain --all`")
        # prose wrapped at spaces; the example, a line of notation, stays whole
        typer.echo("\n".join(line if line.startswith("    ") else wrap_prose(line, width, "", "")
                             for line in text.split("\n")))


@app.command("rules")
def rules_cmd(
    name: Annotated[str | None, typer.Argument(metavar="PRESET", help="a preset to show in full, optionally with key=value words")] = None,
    fmt: Annotated[str, typer.Option("--format", metavar="FORMAT", help="table, csv, json or jsonl")] = "table",
) -> None:
    """List the rule presets and keys, or show one preset in full."""
    check_format(fmt, ("table", "csv", "json", "jsonl"))
    if name:
        try:
            r = resolve_rules(None, name)
        except RulesError as e:
            raise fail(str(e))
        rows = [{"key": k.name, "value": format_value(k, r), "meaning": k.meaning} for k in KEYS]
        emit_rows(rows, fmt, title=f"{r.preset} (source: {r.source}) — Rules tag: {r.to_text()}", keyed=True)
        return
    rows = []
    for k in KEYS:
        row = {"key": k.name}
        for p, r in PRESETS.items():
            row[p] = format_value(k, r)
        row["meaning"] = k.meaning
        rows.append(row)
    if fmt != "table":
        emit_rows(rows, fmt)
        return
    # the meanings are long: a matrix of values first, then each key's meaning, so it reads at 80 columns
    emit_rows(rows, fmt, columns=["key", *PRESETS],
              title="Rule presets (override in [Rules \"PRESET key=value ...\"] or with --rules)")
    print_glossary(stdout_console(), [(k.name, k.meaning) for k in KEYS])


@app.command()
def simulate(
    rules: Annotated[str, typer.Option("--rules", metavar="RULES",
                                       help="preset, optionally with key=value words")] = "auction",
    games: Annotated[int, typer.Option("--games", metavar="N", min=1, help="number of games")] = 10,
    seed: Annotated[int, typer.Option("--seed", metavar="N", help="random seed (same seed, same games)")] = 0,
    players: Annotated[int | None, typer.Option("--players", metavar="N", min=2, help="number of players")] = None,
    faults: Annotated[str, typer.Option("--faults", metavar="KINDS",
                                        help="comma-separated: revoke, score, total, winner")] = "",
    output: Annotated[str | None, typer.Option("--output", "-o", metavar="FILE",
                                               help="write the log here (default stdout)")] = None,
    key: Annotated[str | None, typer.Option("--key", metavar="FILE",
                                            help="answer key file (default OUTPUT.key.json)")] = None,
    jobs: JobsOpt = CORES,
) -> None:
    """Write legal games played by simple bots, optionally with injected faults and an answer key."""
    wanted = tuple(f for f in faults.split(",") if f)
    bad = [f for f in wanted if f not in sim.FAULTS]
    if bad:
        raise fail(f"unknown fault {bad[0]!r} (known: {', '.join(sim.FAULTS)})")
    words = rules.split()
    try:
        resolve_rules(None, rules)
    except RulesError as e:
        raise fail(str(e))
    key_path = key or (f"{output}.key.json" if output else None)

    def run(write) -> list[dict]:
        return sim.simulate_to(write, words[0], games, seed, players, wanted, " ".join(words[1:]), jobs)

    try:
        if output:
            answers: list[dict] = []
            write_atomic_with(output, lambda f: answers.extend(run(lambda text: f.write(text.encode("utf-8")))))
            typer.echo(f"wrote {plural(games, 'game')} to {output}", err=True)
        else:
            answers = run(sys.stdout.write)
        if key_path and (wanted or key):
            write_atomic(key_path, (json.dumps(answers, indent=2) + "\n").encode("utf-8"))
            typer.echo(f"wrote {plural(len(answers), 'expected finding')} to {key_path}", err=True)
        elif wanted:
            typer.echo("the answer key was not written: give --output FILE or --key FILE", err=True)
    except ValueError as e:
        raise fail(str(e))
    except OSError as e:
        raise fail(f"cannot write {e.filename}: {e.strerror}")


@app.command()
def compact(
    dataset: Annotated[str | None, typer.Argument(help="dataset folder (default: the configuration's data)")] = None,
    rows: Annotated[int, typer.Option("--rows", metavar="N", min=1, help="plays rows per merged batch")] = 2_000_000,
) -> None:
    """Merge a dataset's small batches into larger ones (atomic; readers see the old or the new)."""
    dataset = dataset_path(dataset, "the DATASET")
    if not any(Path(dataset, p).exists() or Path(dataset, p).is_symlink() for p in ("current", "gens", "store")):
        raise fail(f"{dataset} is not a dataset (no `current` link): import something into it first")
    try:
        before, after = compact_dataset(dataset, rows, summarize=wh.summarize_batch)
    except DatasetError as e:
        raise fail(f"{e.strerror or e}; the dataset is unchanged")
    if after == before:  # one batch, or none small enough to merge: say so, not "1 batch merged into 1"
        typer.echo(f"{dataset}: nothing to merge ({plural(before, 'batch')}, left as {'it was' if before == 1 else 'they were'})",
                   err=True)
    else:
        typer.echo(f"{dataset}: {plural(before, 'batch')} merged into {after}", err=True)


@app.command()
def check(
    dataset: Annotated[str | None, typer.Argument(help="dataset folder (default: the configuration's data)")] = None,
    repair: Annotated[bool, typer.Option("--repair",
                                         help="roll back an interrupted publish and remove the "
                                         "left-overs (never a published game)")] = False,
    fmt: Annotated[str, typer.Option("--format", metavar="FORMAT", help="text or json")] = "text",
) -> None:
    """Verify a dataset file by file against its manifest and checksums; exit 0 sound, 1 problems, 2 no dataset."""
    from ..check import CheckError, check_dataset, repair_dataset

    dataset = dataset_path(dataset, "the DATASET")
    check_format(fmt, ("text", "json"))
    try:
        report = repair_dataset(dataset, summarize=wh.summarize_batch) if repair else check_dataset(dataset)
    except (CheckError, OSError) as e:
        raise fail(str(e.strerror if isinstance(e, OSError) and e.strerror else e))
    write_check_record(Path(dataset), report.generation, [p.as_dict() for p in report.problems])  # stats and query warn
    if fmt == "json":
        typer.echo(json.dumps({"dataset": dataset, "generation": report.generation, "batches": report.batches,
                               "files": report.files, "problems": [p.as_dict() for p in report.problems],
                               "repaired": report.repaired, "reimport": report.reimport}, indent=2))
    else:
        con = stdout_console()
        for p in report.problems:
            say(con, f"{p.path}: {p.what}" + (f" ({p.detail})" if p.detail else "")
                + (" [repairable: --repair]" if p.repairable and not repair else ""))
        err = stderr_console()
        for line in report.repaired:
            say(err, f"repaired: {line}")
        gen = "no generation" if not report.generation else f"generation {report.generation}"
        verdict = "sound" if not report.problems else plural(len(report.problems), "problem")
        say(err, f"{dataset}: {gen}, {plural(report.batches, 'batch')}, {plural(report.files, 'file')} checked: "
                 f"{verdict}")
        if report.reimport:  # the games no copy holds come back from their logs
            say(err, f"to get the lost games back, import these logs again: "
                     f"{shlex.join(['auditor', 'import', *report.reimport, '--out', dataset])}")
    raise typer.Exit(EXIT_FINDINGS if report.problems else EXIT_CLEAN)


@app.command("config")
def config_cmd(
    fmt: Annotated[str, typer.Option("--format", metavar="FORMAT", help="table or json")] = "table",
) -> None:
    """Show the configuration in force: each setting, its value and where it came from."""
    from ..config import describe

    check_format(fmt, ("table", "json"))
    cfg = settings()
    rows = describe(cfg)
    if fmt == "json":
        typer.echo(json.dumps({"file": str(cfg.path) if cfg.path else None, "settings": rows}, indent=2))
        return
    say(stderr_console(), f"configuration file: {cfg.path}" if cfg.path else
        "configuration file: none (auditor.toml, or [tool.auditor] in pyproject.toml, from here upwards; "
        "every setting is its default)")
    shown = [{"key": r["key"], "value": json.dumps(r["value"]), "from": r["origin"], "meaning": r["meaning"]}
             for r in rows]
    emit_rows(shown, "table", columns=["key", "value", "from", "meaning"], keyed=True)
