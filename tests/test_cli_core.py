"""The command line through typer's runner: output formats, exit codes, errors without tracebacks."""

from __future__ import annotations

import csv
import io
import json

from typer.testing import CliRunner

from auditor.cli import app
from auditor.dataset import read_manifest, read_table

from .conftest import NOTATION_EXAMPLE, SAMPLE_LOGS

runner = CliRunner()


def invoke(*args):
    return runner.invoke(app, [str(a) for a in args])


def test_audit_text_output_and_exit_1_on_findings(example_file):
    r = invoke("audit", example_file)
    assert r.exit_code == 1
    lines = [line for line in r.stdout.splitlines() if "S601" in line]
    assert lines[0].strip().startswith(f"{example_file}:15:21: S601 Cal: recorded 1, expected 0 (High: Ann held AS")
    assert "audited 1 game, 1 hand, 24 cards played: 2 findings" in r.stderr


def test_audit_exit_0_when_clean(tmp_path):
    clean = tmp_path / "clean.pitch"
    clean.write_text(NOTATION_EXAMPLE.replace("score Ann 3, Bob 0, Cal 1, Dee 0", "score Ann 3, Bob 0, Cal 0, Dee 1")
                     .replace("total Ann 3, Bob 0, Cal 1, Dee 0", "total Ann 3, Bob 0, Cal 0, Dee 1"))
    r = invoke("audit", clean)
    assert r.exit_code == 0 and r.stdout == ""


def test_audit_json_has_every_field(example_file):
    r = invoke("audit", example_file, "--format", "json")
    data = json.loads(r.stdout)
    assert r.exit_code == 1 and len(data) == 2
    assert set(data[0]) >= {"code", "kind", "severity", "file", "line", "column", "game", "hand", "trick", "player",
                            "message", "expected", "recorded"}
    assert (data[1]["player"], data[1]["expected"], data[1]["recorded"], data[1]["kind"]) == ("Dee", "1", "0", "score")


def test_audit_jsonl_csv_select_ignore():
    r = invoke("audit", SAMPLE_LOGS, "--format", "jsonl", "--select", "R5,S6", "--ignore", "S602")
    codes = [json.loads(line)["code"] for line in r.stdout.splitlines()]
    assert r.exit_code == 1 and set(codes) == {"R501", "R503", "S601"} and len(codes) == 23
    r = invoke("audit", SAMPLE_LOGS, "--format", "csv", "--select", "E")
    rows = list(csv.DictReader(io.StringIO(r.stdout)))
    assert [(x["code"], x["line"]) for x in rows] == [("E103", "192"), ("E102", "131")]
    assert invoke("audit", SAMPLE_LOGS, "--select", "A30").exit_code == 1  # the A309 in partnership_variations
    assert invoke("audit", SAMPLE_LOGS, "--select", "A301,D201").exit_code == 0


def test_audit_could_not_run_is_exit_2_without_traceback(tmp_path, example_file):
    r = invoke("audit", tmp_path / "missing.pitch", example_file)
    assert r.exit_code == 2 and "no such file or folder" in r.stderr and "Traceback" not in r.output
    assert "S601" in r.stdout  # the readable file is still audited
    r = invoke("audit", example_file, "--rules", "bridge")
    assert r.exit_code == 2 and "unknown preset 'bridge'" in r.stderr
    assert invoke("audit", example_file, "--format", "xml").exit_code == 2


def test_audit_rules_override_changes_the_verdict(example_file):
    r = invoke("audit", example_file, "--rules", "low=taker", "--format", "json")
    found = {(f["player"], f["expected"]) for f in json.loads(r.stdout)}
    assert found == {("Ann", "4"), ("Cal", "0")}  # Low goes to Ann, who took Dee's 2S


def test_audit_out_writes_scores_and_findings(tmp_path, example_file):
    r = invoke("audit", example_file, "--out", tmp_path / "ds")
    assert r.exit_code == 1
    assert read_table(tmp_path / "ds", "findings").num_rows == 2
    assert read_table(tmp_path / "ds", "hand_scores").num_rows == 4


def test_import_twice_and_an_unwritable_dataset(tmp_path, example_file):
    r = invoke("import", example_file, "--out", tmp_path / "ds")
    assert r.exit_code == 0 and "imported 1 new game from" in r.stderr
    r = invoke("import", example_file, "--out", tmp_path / "ds", "--format", "json")
    assert json.loads(r.stdout)["games_already_present"] == 1
    blocker = tmp_path / "file"
    blocker.write_text("x")
    manifest = read_manifest(tmp_path / "ds")
    r = invoke("import", example_file, "--out", blocker / "ds")
    assert r.exit_code == 2 and "dataset is unchanged" in r.stderr and "Traceback" not in r.output
    assert read_manifest(tmp_path / "ds") == manifest


def test_fmt_prints_canonical_form_and_refuses_to_lose_lines(tmp_path):
    messy = tmp_path / "messy.pitch"
    messy.write_text('[Rules "auction"]\n[Players "Ann Bob Cal"]\nhand 1\ndealer   Ann\n'
                     'bids Bob 2,Cal pass, Ann pass\n1. Bob:as  Cal:10s Ann:♥2 % trumped\n')
    r = invoke("fmt", messy)
    assert r.exit_code == 0
    assert r.stdout.splitlines()[-2:] == ["bids Bob 2, Cal pass, Ann pass", "1. Bob:AS Cal:TS Ann:2H  % trumped"]
    assert invoke("fmt", messy, "--check").exit_code == 1
    assert invoke("fmt", messy, "--in-place").exit_code == 0
    assert messy.read_text() == r.stdout and invoke("fmt", messy, "--check").exit_code == 0
    broken = tmp_path / "broken.pitch"
    broken.write_text(messy.read_text() + "2. Cal:XX\n")
    before = broken.read_text()
    r = invoke("fmt", broken, "--in-place")
    assert r.exit_code == 1 and "left unchanged" in r.stderr and broken.read_text() == before
    assert invoke("fmt", tmp_path / "nope.pitch").exit_code == 2


def test_explain_and_rules():
    r = invoke("explain", "r501")
    assert r.exit_code == 0 and r.stdout.startswith("R501 (revoke, error)") and "Example:" in r.stdout
    assert invoke("explain", "Z999").exit_code == 2
    assert json.loads(invoke("explain", "S602", "--format", "json").stdout)["kind"] == "score"
    r = invoke("rules", "--format", "json")
    rows = {row["key"]: row for row in json.loads(r.stdout)}
    assert rows["low"]["partnership"] == "taker" and rows["game"]["sell"] == "10" and rows["low"]["meaning"]
    r = invoke("rules", "setback game=11", "--format", "csv")
    assert "game,11," in r.stdout and r.exit_code == 0
    assert invoke("rules", "bridge").exit_code == 2


def test_simulate_writes_games_and_an_answer_key(tmp_path):
    out = tmp_path / "demo.pitch"
    r = invoke("simulate", "--rules", "auction", "--games", "2", "--seed", "3", "--faults", "score,total", "-o", out)
    assert r.exit_code == 0
    key = json.loads((tmp_path / "demo.pitch.key.json").read_text())
    assert {k["code"] for k in key} == {"S601", "S602"}
    found = json.loads(invoke("audit", out, "--format", "json").stdout)
    assert sorted((f["code"], f["line"]) for f in found) == sorted((k["code"], k["line"]) for k in key)
    assert invoke("simulate", "--faults", "gremlins").exit_code == 2


def test_compact_command(tmp_path, example_file):
    assert invoke("compact", tmp_path / "none").exit_code == 2
    invoke("import", example_file, "--out", tmp_path / "ds")
    r = invoke("compact", tmp_path / "ds")
    assert r.exit_code == 0 and "nothing to merge (1 batch, left as it was)" in r.stderr
    friday = tmp_path / "friday.pitch"
    friday.write_text(NOTATION_EXAMPLE.replace("2026.11.19", "2026.11.20"), encoding="utf-8")
    invoke("import", friday, "--out", tmp_path / "ds")
    r = invoke("compact", tmp_path / "ds")
    assert r.exit_code == 0 and "2 batches merged into 1" in r.stderr


def test_audit_summary_says_when_a_hand_could_not_be_recomputed(tmp_path):
    p = tmp_path / "typo.pitch"
    p.write_text(NOTATION_EXAMPLE.replace("Dee:KS", "Dee:KX"), encoding="utf-8")
    r = invoke("audit", p)
    assert r.exit_code == 1 and "E103" in r.stdout
    assert "1 hand could not be recomputed: scores not checked" in " ".join(r.stderr.split())
    r = invoke("audit", tmp_path / ".." / p.parent.name / "typo.pitch", "--select", "S6")
    assert r.exit_code == 0 and "1 hand could not be recomputed" in " ".join(r.stderr.split())


def test_audit_reads_standard_input_like_a_file():
    text = (SAMPLE_LOGS / "auction.pitch").read_text(encoding="utf-8")
    piped = runner.invoke(app, ["audit", "-", "--format", "jsonl"], input=text)
    direct = invoke("audit", SAMPLE_LOGS / "auction.pitch", "--format", "jsonl")
    assert piped.exit_code == direct.exit_code == 1
    strip = lambda out: [(d["code"], d["line"], d["column"], d["message"]) for d in map(json.loads, out.splitlines())]  # noqa: E731
    assert strip(piped.stdout) == strip(direct.stdout) and strip(piped.stdout)
    assert all(json.loads(ln)["file"] == "<stdin>" for ln in piped.stdout.splitlines())


def test_a_missing_file_is_reported_once_and_an_empty_input_says_so(tmp_path):
    r = invoke("audit", tmp_path / "missing.pitch")
    assert r.exit_code == 2 and r.stderr.count("missing.pitch") == 1 and "E100" not in r.stdout
    empty = tmp_path / "empty.pitch"
    empty.write_text("")
    r = invoke("audit", empty)
    assert r.exit_code == 0 and "no games found" in r.stderr and r.stdout == ""
    # the machine-readable formats keep E100 as a finding, with its path
    r = invoke("audit", tmp_path / "missing.pitch", "--format", "json")
    assert r.exit_code == 2 and json.loads(r.stdout)[0]["code"] == "E100"


def test_help_names_what_each_option_takes_not_its_python_type():
    for command in ("audit", "fix", "import", "stats", "query", "replay", "simulate", "check"):
        r = invoke(command, "--help")
        options = r.stdout[r.stdout.index("Options:"):]
        assert r.exit_code == 0 and "<str>" not in options and "<int" not in options and "list[" not in options, \
            command
        assert "(default:" not in options, command  # one default, in brackets


def test_statistics_quiet_and_output(tmp_path):
    r = invoke("audit", SAMPLE_LOGS, "--statistics")
    lines = r.stdout.splitlines()
    assert r.exit_code == 1 and lines[0].split()[:2] == ["8", "R501"] and "S601" in r.stdout
    counts = {line.split()[1]: int(line.split()[0]) for line in lines}
    full = json.loads(invoke("audit", SAMPLE_LOGS, "--format", "json").stdout)
    assert sum(counts.values()) == len(full) == 34
    report = tmp_path / "report.json"
    r = invoke("audit", SAMPLE_LOGS, "--format", "json", "-o", report)
    assert r.exit_code == 1 and r.stdout == "" and json.loads(report.read_text()) == full
    r = invoke("audit", SAMPLE_LOGS, "-q")
    assert r.exit_code == 1 and "audited" not in r.stderr and "R501" in r.stdout


def test_a_mistyped_preset_or_key_gets_a_suggestion(tmp_path):
    r = invoke("audit", SAMPLE_LOGS / "smear.pitch", "--rules", "partnersip")
    assert r.exit_code == 2 and "did you mean 'partnership'?" in r.stderr
    r = invoke("audit", SAMPLE_LOGS / "smear.pitch", "--rules", "smear gmae=11")
    assert r.exit_code == 2 and "did you mean 'game'?" in r.stderr


def test_no_command_prints_the_help_and_exits_2_and_arguments_show_no_python_type():
    r = invoke()
    assert r.exit_code == 2 and "Usage: auditor" in r.output and "Commands:" in r.output
    for command in ("audit", "fmt", "stats", "query", "rules", "replay"):
        r = invoke(command, "--help")
        assert r.exit_code == 0 and "<list[" not in r.stdout and "<str>" not in r.stdout and "{" not in r.stdout, \
            command
    assert "Usage: auditor audit [OPTIONS] PATH..." in invoke("audit", "--help").stdout
    assert "Usage: auditor query [OPTIONS] [SQL]" in invoke("query", "--help").stdout


# the libraries `auditor audit` must not load: each costs more than auditing a small log
HEAVY = ("polars", "pyarrow", "duckdb", "matplotlib", "numpy", "pandas", "pygments", "markdown_it", "dask",
         "distributed", "rich.table", "rich.progress", "rich.markdown", "rich.syntax", "rich.traceback")


def test_the_audit_command_loads_no_heavy_library():
    """`auditor audit FILE` starts fast: the dataset's, the report's and the charts' libraries stay unloaded."""
    import subprocess
    import sys

    probe = ("import sys\nsys.argv = ['auditor', 'audit', sys.argv[1]]\nfrom auditor.cli import main\n"
             "try:\n    main()\nexcept SystemExit:\n    pass\n"
             f"heavy = {HEAVY!r}\n"
             "print(sorted(m for m in sys.modules if any(m == h or m.startswith(h + '.') for h in heavy)))\n")
    r = subprocess.run([sys.executable, "-c", probe, str(SAMPLE_LOGS / "auction.pitch")], capture_output=True,
                       text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    assert "findings" in r.stderr  # the audit did run: its summary
    assert r.stdout.strip().splitlines()[-1] == "[]"


def test_a_finding_of_the_parser_names_its_game_as_the_audit_does(tmp_path):
    """A game without a GameId is FILE#N in every finding, the parser's (E1xx) as the engine's."""
    log = tmp_path / "typo.pitch"
    log.write_text('[Rules "auction"]\n[Players "Ann Bob Dan"]\n\nhand 1\ndealer Ann\nbisd Bob 2, Dan pass, Ann pass\n'
                   "1. Bob:AS Dan:1OS Ann:QS\n")
    found = json.loads(invoke("audit", log, "--format", "json").stdout)
    assert {f["code"] for f in found} >= {"E102", "E103"}
    assert {f["game"] for f in found} == {"typo.pitch#1"}
    text = invoke("audit", log).stdout
    assert "\x00" not in text and text.splitlines()[0] == "typo.pitch#1 hand 1"


def test_the_summary_off_a_terminal_with_no_columns_is_one_line_a_fact():
    """Piped with no COLUMNS, the count of each code stays on its line, not cut at 80 columns."""
    r = invoke("audit", SAMPLE_LOGS, "--rules", "game=11")
    counts = [line for line in r.stderr.splitlines() if line.startswith("  A309 ")]
    assert len(counts) == 1 and len(counts[0]) > 80 and counts[0].endswith("S602 16, S603 15"), r.stderr


def test_markdown_is_md_and_md_is_markdown_for_every_command_that_writes_it(tmp_path):
    assert invoke("explain", "R501", "--format", "md").stdout == invoke("explain", "R501", "--format", "markdown").stdout
    pages = []
    for fmt in ("md", "markdown"):
        r = invoke("report", SAMPLE_LOGS / "auction.pitch", "--format", fmt, "-o", tmp_path / f"{fmt}.md")
        assert r.exit_code == 0, r.output
        pages.append((tmp_path / f"{fmt}.md").read_text())
    assert pages[0] == pages[1] and pages[0].startswith("# ")


def test_audit_dash_o_on_a_dataset_name_is_refused_not_written_as_text(tmp_path):
    """`import -o` names a dataset and `audit -o` the report's file: a report is never written where
    a dataset was meant (a text file named .parquet, which `stats` would then read as a broken log)."""
    for target in (tmp_path / "club.parquet", tmp_path):
        r = invoke("audit", SAMPLE_LOGS / "auction.pitch", "-o", target)
        assert r.exit_code == 2 and "--out" in r.stderr, r.output
    assert not (tmp_path / "club.parquet").exists()
    r = invoke("audit", SAMPLE_LOGS / "auction.pitch", "-o", tmp_path / "findings.txt")
    assert r.exit_code == 1 and "R501" in (tmp_path / "findings.txt").read_text()
