"""Every command at its edges: empty, junk and missing input by one rule, and the small habits of a CLI.

The rule (docs/notation.md, "Bad input"): a file that is not a log is a finding with its file
(E109 for one that is not text), exit 1; an empty file is a warning; a path that is not there,
a link to nothing, or nothing readable at all is exit 2. The rest of the input is still read.
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

import pytest
from typer.testing import CliRunner

from auditor import _core, dataset
from auditor.cli import app

from .conftest import NOTATION_EXAMPLE, SAMPLE_LOGS

runner = CliRunner()


def invoke(*args, **kw):
    return runner.invoke(app, [str(a) for a in args], **kw)


@pytest.fixture
def inputs(tmp_path) -> dict[str, Path]:
    empty = tmp_path / "empty.pitch"
    empty.write_text("% nothing played tonight\n\n")
    junk = tmp_path / "junk.pitch"
    junk.write_bytes(bytes(range(256)) * 8)
    prose = tmp_path / "prose.pitch"
    prose.write_text("Dear members,\nthe club meets on Thursday.\n")
    good = tmp_path / "good.pitch"
    good.write_text(NOTATION_EXAMPLE)
    return {"empty": empty, "junk": junk, "prose": prose, "good": good, "missing": tmp_path / "missing.pitch"}


def _run(command: str, path: Path, tmp_path: Path):
    if command == "query":
        return invoke("query", "--data", path, "SELECT count(*) FROM games")
    if command == "fix --diff":
        return invoke("fix", "--diff", path)
    extra = {"import": ["--out", tmp_path / f"ds-{path.stem}"], "report": ["-o", tmp_path / f"{path.stem}.html"]}
    return invoke(command, path, *extra.get(command, []))


# every command that reads logs; report and replay show a game, so with none they cannot run (exit 2)
COMMANDS = ("analyze", "stats", "audit", "import", "report", "replay", "fmt", "fix", "fix --diff", "query")
SHOWS_A_GAME = {"report", "replay"}


@pytest.mark.parametrize("command", COMMANDS)
def test_one_rule_for_empty_junk_and_missing_input(command, inputs, tmp_path):
    r = _run(command, inputs["empty"], tmp_path)
    assert "empty.pitch is empty: no games in it" in r.stderr, r.output
    assert r.exit_code == (2 if command in SHOWS_A_GAME else 0), r.output
    assert "Traceback" not in r.output and "/tmp/auditor-" not in r.output

    r = _run(command, inputs["junk"], tmp_path)
    assert re.search(r"junk\.pitch:1:1: E109 this is not a text file", r.output), r.output
    assert r.exit_code == (2 if command in SHOWS_A_GAME else 1), r.output

    r = _run(command, inputs["prose"], tmp_path)  # text, but not the notation: no game could be read
    assert "prose.pitch" in r.output and ("not a log" in r.stderr or "E102" in r.output), r.output
    assert r.exit_code == (2 if command in SHOWS_A_GAME else 1), r.output

    r = _run(command, inputs["missing"], tmp_path)
    assert r.exit_code == 2 and "missing.pitch" in r.stderr and "Traceback" not in r.output


@pytest.mark.parametrize("command", COMMANDS)
def test_comments_only_are_empty_however_long_and_whatever_their_line_ends(command, tmp_path):
    """Comments past the first bytes the sniff reads, and a comment holding a lone carriage return (the core
    ends a line at a line feed only), are an empty file, as a short one is: a warning, never 'not a log'; so is
    a comment after a byte-order mark (which the core skips), with or without a line end."""
    for name, text in (("long", "% the club's notes, no hand played\n" * 400), ("cr", "% set\rback forgot\n"),
                       ("bom", "\ufeff% Clean a"), ("bomnl", "\ufeff% notes\n\n")):
        path = tmp_path / f"{name}.pitch"
        path.write_bytes(text.encode())
        r = _run(command, path, tmp_path)
        if command != "fmt":  # fmt prints the comments back, and says what it could not read: nothing here
            assert f"{name}.pitch is empty: no games in it" in r.stderr, (name, r.output)
        assert "not a log" not in r.stderr and "Traceback" not in r.output, (name, r.output)
        assert r.exit_code == (2 if command in SHOWS_A_GAME else 0), (name, r.output)


@pytest.mark.parametrize("command", [c for c in COMMANDS if c != "query"])
def test_empty_standard_input_is_empty_as_an_empty_file_is(command, tmp_path):
    """Nothing, or comments only, on standard input: the same warning and exit status as an empty file."""
    words = command.split()
    extra = {"import": ["--out", tmp_path / "ds"], "report": ["-o", tmp_path / "r.html"]}.get(command, [])
    for text in ("", "% nothing played tonight\n\n"):
        r = runner.invoke(app, [*words, "-", *map(str, extra)], input=text)
        if command != "fmt":
            assert "<stdin> is empty: no games in it" in r.stderr, (text, r.output)
        assert "not a log" not in r.stderr and "Traceback" not in r.output, (text, r.output)
        assert r.exit_code == (2 if command in SHOWS_A_GAME else 0), (text, r.output)


@pytest.mark.parametrize("command", ("analyze", "stats", "audit", "import", "report"))
def test_a_file_that_is_not_a_log_costs_itself_only(command, inputs, tmp_path):
    """Beside a good log, junk is said (exit 1) and the good log is still read."""
    extra = {"import": ["--out", tmp_path / "ds"], "report": ["-o", tmp_path / "r.html"]}.get(command, [])
    r = invoke(command, inputs["good"], inputs["junk"], *extra)
    assert r.exit_code == 1, r.output
    assert "junk.pitch:1:1: E109" in r.output
    if command == "report":
        assert (tmp_path / "r.html").exists() and "wrote " in r.stderr
    if command == "stats":
        assert "Ann" in r.stdout


def test_report_of_an_empty_file_names_it_not_a_temporary_folder(inputs, tmp_path):
    r = invoke("report", inputs["empty"], "-o", tmp_path / "e.html")
    assert r.exit_code == 2
    assert f"no games found in {inputs['empty']}: nothing to report" in r.stderr
    assert "/tmp/auditor-" not in r.output and "is not a dataset" not in r.output
    assert not (tmp_path / "e.html").exists()


def test_a_file_that_is_not_text_is_never_read_whole(tmp_path, monkeypatch):
    """A sparse file of NULs is sniffed from its first bytes: not split, not read whole, by any command."""
    big = tmp_path / "disk.pitch"
    with open(big, "wb") as f:
        f.truncate(64 << 20)
    real_read_bytes, real_split = Path.read_bytes, _core.split_file

    def read_bytes(self):
        assert self.resolve() != big.resolve(), "read whole"
        return real_read_bytes(self)

    def split_file(path, chunk):
        assert Path(path).resolve() != big.resolve(), "scanned for game boundaries"
        return real_split(path, chunk)

    monkeypatch.setattr(Path, "read_bytes", read_bytes)
    monkeypatch.setattr(_core, "split_file", split_file)
    assert dataset.plan_tasks([str(big)], 1 << 20) == [[dataset.Chunk(str(big))]]
    for args in (["import", big, "--out", tmp_path / "ds"], ["fmt", big], ["fmt", "--check", big],
                 ["fix", big], ["audit", big], ["analyze", big], ["stats", big]):
        r = invoke(*args)
        assert r.exit_code == 1 and "disk.pitch:1:1: E109" in r.output, (args, r.output)


def test_a_link_to_nothing_inside_a_folder_is_reported(tmp_path):
    logs = tmp_path / "logs"
    logs.mkdir()
    (logs / "thursday.pitch").write_text(NOTATION_EXAMPLE)
    os.symlink(tmp_path / "gone.pitch", logs / "friday.pitch")
    for args in (["audit", logs], ["import", logs, "--out", tmp_path / "ds"], ["stats", logs], ["fmt", logs],
                 ["analyze", logs]):
        r = invoke(*args)
        assert "friday.pitch: it is a link to" in r.stderr and "which is not there" in r.stderr, (args, r.output)
        assert r.exit_code == 2, (args, r.output)
    # the rest was read all the same
    assert "audited 1 game" in invoke("audit", logs).stderr


def test_fmt_check_suggests_what_will_work(tmp_path):
    broken = tmp_path / "broken.pitch"
    broken.write_text(NOTATION_EXAMPLE.replace("dealer Ann", "dealer   Ann").replace("1. Ann:AS", "1. Ann:AX"))
    r = invoke("fmt", "--check", broken)
    assert r.exit_code == 1
    assert f"{broken}: not in canonical form (fix line 9 first, then auditor fmt --in-place {broken})" in r.stderr
    r = invoke("fmt", "--in-place", broken)
    assert r.exit_code == 1 and "1 line could not be read and would be lost in rewriting (fix line 9 first)" \
        in r.stderr
    tidy = tmp_path / "tidy.pitch"
    tidy.write_text(NOTATION_EXAMPLE.replace("dealer Ann", "dealer   Ann"))
    r = invoke("fmt", "--check", tidy)
    assert f"(auditor fmt --in-place {tidy})" in r.stderr
    assert invoke("fmt", "--in-place", tidy).exit_code == 0 and invoke("fmt", "--check", tidy).exit_code == 0


def test_dash_h_is_help_for_the_tool_and_every_command():
    assert invoke("-h").stdout == invoke("--help").stdout and "Commands:" in invoke("-h").stdout
    for command in ("audit", "report", "stats", "replay", "fmt"):
        r = invoke(command, "-h")
        assert r.exit_code == 0 and r.stdout == invoke(command, "--help").stdout and "Usage: auditor" in r.stdout


def test_command_summaries_are_whole(monkeypatch):
    monkeypatch.setenv("COLUMNS", "80")
    text = invoke("--help").stdout
    assert "…" not in text and "..." not in text.split("Commands:")[1].replace("...)", ")")
    listed = " ".join(text.split("Commands:")[1].split())
    for command in app.registered_commands:
        doc = " ".join(command.callback.__doc__.split("\n\n")[0].split())
        assert doc in listed, doc


def test_plurals_agree_with_their_numbers(tmp_path, inputs):
    r = invoke("import", inputs["good"], "--out", tmp_path / "ds")
    assert "imported 1 new game from 1 file into" in r.stderr and "1 finding recorded" not in r.stderr
    assert "(0 already present, 1 hand read, 2 findings recorded)" in r.stderr
    r = invoke("compact", tmp_path / "ds")
    assert "nothing to merge (1 batch, left as it was)" in r.stderr and "merged into" not in r.stderr
    assert "(es)" not in r.stderr
    r = invoke("check", tmp_path / "ds")
    assert re.search(r"generation \d+, 1 batch, \d+ files checked: sound", r.stderr), r.stderr
    r = invoke("stats", inputs["good"])
    assert "read 1 game, 1 hand from 1 file into a temporary dataset (2 findings)" in r.stderr
    r = invoke("report", inputs["good"], "-o", tmp_path / "r.html")
    assert re.search(r"wrote .*r\.html: 1 game in 1 event, 2 findings, \d+ kB", r.stderr), r.stderr
    assert "(s)" not in r.stderr
    md = invoke("report", inputs["good"], "--format", "md", "-o", "-").stdout
    assert "· 1 game · 1 event" in md and "1 games" not in md and "1 events" not in md, md
    name = f"{inputs['good'].name}#1"
    shown = invoke("replay", inputs["good"], "--game", name).stdout
    assert "· 1 hand" in shown and "1 hands" not in shown, shown


def test_simulate_says_which_file_it_wrote(tmp_path):
    out = tmp_path / "demo.pitch"
    r = invoke("simulate", "--rules", "setback", "--games", "2", "--seed", "7", "-o", out)
    assert r.exit_code == 0 and f"wrote 2 games to {out}" in r.stderr
    r = invoke("simulate", "--games", "1", "--faults", "score", "-o", out)
    assert f"wrote 1 game to {out}" in r.stderr and f"to {out}.key.json" in r.stderr


def test_query_schema_shows_a_column_a_line(monkeypatch):
    monkeypatch.setenv("COLUMNS", "200")
    rows = json.loads(invoke("query", "--schema", "--format", "json").stdout)
    text = invoke("query", "--schema").stdout.splitlines()
    for row in rows:
        want = re.compile(rf"^  {re.escape(row['column'])} +{re.escape(row['type'])} +{re.escape(row['meaning'][:40])}")
        assert any(want.match(line) for line in text), row
    # one line per column (the widest meanings wrap at 200 columns only if longer than the line)
    lines = [ln for ln in text if ln.startswith("  ") and not ln.startswith("   ")]
    assert len(lines) == len(rows)


def test_since_and_until_take_the_date_as_the_date_tag_writes_it(tmp_path, inputs):
    for command in ("stats", "report"):
        text = " ".join(invoke(command, "--help").stdout.split())
        assert "YYYY-MM-DD, or YYYY.MM.DD as the Date tag writes it" in text
    a = invoke("stats", inputs["good"], "--since", "2026.11.19", "--format", "csv")
    b = invoke("stats", inputs["good"], "--since", "2026-11-19", "--format", "csv")
    assert a.exit_code == b.exit_code == 0 and a.stdout == b.stdout and "Ann" in a.stdout
    assert "Ann" not in invoke("stats", inputs["good"], "--since", "2026.11.20", "--format", "csv").stdout
    r = invoke("report", inputs["good"], "-o", "-", "--format", "md", "--until", "2026.11.19")
    assert r.exit_code == 0 and "Thursday club" in r.stdout
    r = invoke("stats", inputs["good"], "--until", "19.11.2026")
    assert r.exit_code == 2 and "YYYY-MM-DD, or YYYY.MM.DD as the Date tag writes it" in r.stderr


def test_sample_logs_have_no_bad_input():
    r = invoke("audit", SAMPLE_LOGS, "--statistics")
    assert "is empty" not in r.stderr and "not a log" not in r.stderr


def test_a_report_beside_a_link_to_nothing_is_written_and_says_so(tmp_path):
    """As every command does: the link is said, the rest is reported, and the status is 2 (not all
    that was asked could be read), as docs/report.md says."""
    logs = tmp_path / "logs"
    logs.mkdir()
    (logs / "thursday.pitch").write_text(NOTATION_EXAMPLE)
    os.symlink(tmp_path / "gone.pitch", logs / "friday.pitch")
    r = invoke("report", logs, "-o", tmp_path / "r.html")
    assert "friday.pitch: it is a link to" in r.stderr and "which is not there" in r.stderr, r.output
    assert r.exit_code == 2 and (tmp_path / "r.html").exists() and "wrote " in r.stderr, r.output
    doc = " ".join((Path(__file__).parents[1] / "docs" / "report.md").read_text().split())
    assert "a folder holds a link to nothing: it is said on stderr, and the report of the rest is written" in doc
