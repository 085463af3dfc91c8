"""Bad input, one rule for every command (docs/notation.md, "Bad input"):

* a file that is not text: E109 (sniffed from its first bytes; the file is never read whole);
* a text file from which no game could be read: not a log, its unreadable lines its findings;
* each of these is said on stderr with its file, the rest of the input is still read, and the
  command exits 1;
* an empty file (no bytes, or blank lines and comments only) is a warning, and changes no status;
* a path that is not there or cannot be read, a link to nothing (named, or found in a folder),
  or nothing readable at all: E100, said with its path; the rest is still read, and the command
  exits 2 (it could not do all it was asked).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from pathlib import Path

from ..dataset import read_check_record
from ..notation import EMPTY, NOT_TEXT, TEXT, Finding, sniff_file
from ..render import plural, say, stderr_console
from . import EXIT_CLEAN, EXIT_FAILED, EXIT_FINDINGS


def _label(path: str) -> str:
    return "<stdin>" if path == "-" else path


def note_inputs(files: Iterable[str], games_by_file: Mapping[str, int], findings: Iterable[Finding],
                listed: bool = False) -> int:
    """Say on stderr what the rule above says of this run's input; return the exit status it calls for.

    ``files`` are the files read (what :func:`auditor.notation.expand_paths` found), ``games_by_file``
    how many games each gave, ``findings`` every finding of the run (its E100s name the paths that
    were not there). ``listed``: the command lists the findings itself (``audit``), so only what
    it does not list (the warnings) is said here.
    """
    err = stderr_console()
    files = list(files)
    findings = list(findings)
    status = EXIT_CLEAN
    for f in findings:
        if f.code == "E100":
            if not listed:
                say(err, f"auditor: {f.message}")
            status = EXIT_FAILED
    by_source: dict[str, list[Finding]] = {}
    for f in findings:
        by_source.setdefault(f.source, []).append(f)
    for path in files:
        if games_by_file.get(path, 0):
            continue
        label = _label(path)
        own = [f for f in by_source.get(label, ()) if f.code != "E100"]
        try:
            # standard input is read once, by the command: no game and nothing unreadable in it
            # means it held nothing, or blank lines and comments only, as an empty file does
            kind, binary = ((EMPTY if not own else TEXT), None) if path == "-" else sniff_file(path)
        except OSError as e:
            say(err, f"auditor: cannot read {path}: {e.strerror or e}")
            status = EXIT_FAILED
            continue
        if kind == NOT_TEXT:
            if not listed:
                f = binary if binary is not None else own[0]
                say(err, f"{f.source}:{f.line}:{f.column}: {f.code} {f.message}")
            status = max(status, EXIT_FINDINGS)
        elif kind == EMPTY:
            say(err, f"auditor: warning: {label} is empty: no games in it")
        else:
            if not listed or not own:
                why = (f"{plural(len(own), 'finding')}, the first {own[0].source}:{own[0].line}:{own[0].column}: "
                       f"{own[0].code} {own[0].message}" if own else "no line of it starts a game")
                say(err, f"auditor: {label}: not a log: no game could be read ({why}; `auditor audit {label}` "
                         "lists every line it cannot read)")
            status = max(status, EXIT_FINDINGS)
    if not files:
        status = EXIT_FAILED
    return status


# ``auditor check``'s last verdict (``check.json``) is kept in the dataset so that the commands reading it
# can warn: a damaged file is reported, never deleted, so the dataset reads on, and its figures may be wrong.


def warn_if_damaged(dataset: Path | None) -> None:
    """A warning on stderr when the last ``auditor check`` of ``dataset`` found problems (until a check
    finds it sound again)."""
    record = read_check_record(Path(dataset)) if dataset is not None else None
    if record is None or not record[1]:
        return
    checked_at, problems = record
    first = problems[0]
    say(stderr_console(), f"auditor: warning: `auditor check` found {plural(len(problems), 'problem')} in {dataset} "
                          f"on {checked_at} (the first: {first.get('path')}: "
                          f"{first.get('problem')}): the figures may be wrong or incomplete until it is repaired "
                          f"(`auditor check {dataset}` says how; it stops warning once a check finds it sound)")
