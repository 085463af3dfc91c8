"""The configuration file: found from the current folder upwards, chosen or skipped, applied, explained."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from auditor.cli import app
from auditor.config import ConfigError, find, load

from .conftest import SAMPLE_LOGS

runner = CliRunner()
SETBACK = str(SAMPLE_LOGS / "setback.pitch")  # one E102, one R501, one S601


def invoke(*args):
    return runner.invoke(app, [str(a) for a in args])


def codes(r) -> list[str]:
    return sorted(f["code"] for f in json.loads(r.stdout))


@pytest.fixture
def club(tmp_path, monkeypatch):
    """A club folder with an auditor.toml, the run in a folder below it."""
    (tmp_path / "auditor.toml").write_text('# the club\'s defaults\nselect = ["R", "S6"]\nformat = "json"\n'
                                           'data = "club.parquet"\n')
    sub = tmp_path / "season" / "week1"
    sub.mkdir(parents=True)
    monkeypatch.chdir(sub)
    return tmp_path


def test_the_nearest_file_is_found_from_the_current_folder_upwards(tmp_path):
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "x"\n')  # no [tool.auditor]: not a config
    inner = tmp_path / "a" / "b"
    inner.mkdir(parents=True)
    assert find(inner) is None
    (tmp_path / "pyproject.toml").write_text('[tool.auditor]\nignore = ["S602"]\n')
    assert find(inner) == tmp_path / "pyproject.toml" and load(cwd=inner)["ignore"] == ("S602",)
    (tmp_path / "auditor.toml").write_text('ignore = ["S603"]\n')  # beside it, auditor.toml comes first
    assert find(inner) == tmp_path / "auditor.toml"
    (tmp_path / "a" / "pyproject.toml").write_text('[tool.auditor]\nformat = "csv"\n')  # nearer still
    cfg = load(cwd=inner)
    assert cfg.path == tmp_path / "a" / "pyproject.toml" and cfg["format"] == "csv" and cfg["ignore"] == ()
    assert cfg.settings["format"].origin == f"{tmp_path / 'a' / 'pyproject.toml'}:2:1"


def test_the_file_sets_the_defaults_and_the_command_line_wins(club):
    r = invoke("audit", SETBACK)
    assert r.exit_code == 1 and codes(r) == ["R501", "R503", "S601"]  # select and format from the file
    assert codes(invoke("audit", SETBACK, "--select", "E")) == ["E102"]
    r = invoke("audit", SETBACK, "--format", "text")
    assert r.exit_code == 1 and "R501" in r.stdout and not r.stdout.startswith("[")
    # the default dataset, read from the file's folder
    assert invoke("import", SAMPLE_LOGS / "setback.pitch").exit_code == 0
    assert (club / "club.parquet" / "current").exists()
    r = invoke("query", "SELECT count(*) AS n FROM games", "--format", "csv")
    assert r.exit_code == 0 and r.stdout == "n\n3\n"
    assert invoke("check").exit_code == 0


def test_rules_in_the_file_as_words_or_as_a_table(club):
    (club / "auditor.toml").write_text('format = "json"\n[rules]\ngame = 11\n')
    assert load()["rules"] == "game=11"
    # at 11 nobody of sb-0203-r3 has gone out, so its winner line is an S603
    assert "S603" in codes(invoke("audit", SETBACK))
    assert "S603" not in codes(invoke("audit", SETBACK, "--rules", "game=7"))
    assert "S603" not in codes(invoke("--isolated", "audit", SETBACK, "--format", "json"))


def test_config_and_isolated_choose_or_skip_the_file(club, tmp_path):
    other = tmp_path / "other.toml"
    other.write_text('ignore = ["S6"]\n')
    r = invoke("--config", other, "config", "--format", "json")
    got = {s["key"]: s for s in json.loads(r.stdout)["settings"]}
    assert r.exit_code == 0 and got["ignore"]["value"] == ["S6"] and got["ignore"]["origin"] == f"{other}:1:1"
    assert got["select"]["origin"] == "default"
    r = invoke("--isolated", "config", "--format", "json")
    assert json.loads(r.stdout)["file"] is None
    assert invoke("--isolated", "--config", other, "config").exit_code == 2


def test_auditor_config_says_where_each_value_came_from(club):
    r = runner.invoke(app, ["config"], env={"COLUMNS": "80"})
    # at 80 columns a long path is wrapped where it must be, even within itself: read it unwrapped
    out = "".join(r.stdout.split())
    assert r.exit_code == 0 and str(club / "auditor.toml") in "".join(r.stderr.split())
    assert 'select=["R","S6"]from:' + f"{club / 'auditor.toml'}:2:1" in out
    assert 'ignore=[]from:default' in out


@pytest.mark.parametrize("text, message", [
    ('selct = ["S6"]\n', "auditor.toml:1:1: unknown key 'selct' (did you mean 'select'?)"),
    ('# x\n\nrules = "gmae=11"\n', "auditor.toml:3:1: rules: unknown rule key 'gmae' (did you mean 'game'?)"),
    ('[rules]\nsmudge = true\n', "auditor.toml:1:1: rules: smudge takes one of"),
    ('select = ["Q9"]\n', "auditor.toml:1:1: select: no finding code starts with 'Q9'"),
    ('format = "jsno"\n', "auditor.toml:1:1: format must be one of text, json, jsonl, csv, not 'jsno' "
                          "(did you mean 'json'?)"),
    ('select = [\n', "auditor.toml: not valid TOML"),
    ('select = ["R"]\nformat = \n', "auditor.toml:2:10: not valid TOML: Invalid value"),
])
def test_a_bad_file_is_a_clear_error_with_its_file_and_line(club, text, message):
    (club / "auditor.toml").write_text(text)
    with pytest.raises(ConfigError) as e:
        load()
    assert message in str(e.value)
    r = invoke("audit", SETBACK)
    assert r.exit_code == 2 and message in r.stderr and "Traceback" not in r.output


HOUSE = """\
# the club plays auction to 11, Low to the taker
[presets.thursday]
base = "auction"
game = 11
low = "taker"

[presets.thursday-long]
base = "thursday"
game = 21
"""


@pytest.fixture
def house(tmp_path, monkeypatch):
    (tmp_path / "auditor.toml").write_text(HOUSE)
    monkeypatch.chdir(tmp_path)
    yield tmp_path
    load(isolated=True)  # the house presets go with the file


def test_a_house_preset_is_a_base_and_keys_usable_by_name(house):
    load()
    r = invoke("rules", "thursday", "--format", "json")
    values = {row["key"]: row["value"] for row in json.loads(r.stdout)}
    assert r.exit_code == 0 and (values["game"], values["low"], values["min_bid"]) == ("11", "taker", "2")
    r = invoke("rules", "thursday-long", "--format", "json")
    values = {row["key"]: row["value"] for row in json.loads(r.stdout)}
    assert (values["game"], values["low"]) == ("21", "taker")  # its base's keys, and its own
    # a log's Rules tag names it: a hand of the notation's example, audited to 11 with Low to the taker
    log = house / "thu.pitch"
    log.write_text(SAMPLE_LOGS.joinpath("setback.pitch").read_text().replace('[Rules "setback"]', '[Rules "thursday"]'))
    r = invoke("audit", "--format", "json", log)
    assert "E105" not in codes(r)


def test_a_house_preset_with_a_typo_is_an_error_at_its_line_with_a_suggestion(tmp_path):
    cfg = tmp_path / "auditor.toml"
    cfg.write_text('[presets.club]\nbase = "auctoin"\n')
    with pytest.raises(ConfigError, match=r"auditor.toml:1:1: house preset 'club': unknown base preset 'auctoin' "
                                          r"\(did you mean 'auction'\?\)"):
        load(cfg)
    cfg.write_text('\n[presets.club]\nbase = "auction"\ngmae = 11\n')
    with pytest.raises(ConfigError, match=r"auditor.toml:2:1: house preset 'club': unknown rule key 'gmae' "
                                          r"\(did you mean 'game'\?\)"):
        load(cfg)
    cfg.write_text('[presets.auction]\nbase = "setback"\n')
    with pytest.raises(ConfigError, match="auction is a built-in preset"):
        load(cfg)
    load(isolated=True)


def test_rules_on_the_command_line_may_name_a_house_preset(house):
    log = house / "thu.pitch"
    log.write_text(SAMPLE_LOGS.joinpath("setback.pitch").read_text())
    r = invoke("audit", "--rules", "thursday", "--format", "json", log)
    assert r.exit_code in (0, 1) and "E105" not in codes(r)
    r = invoke("audit", "--rules", "thursdya", log)
    assert r.exit_code == 2 and "did you mean 'thursday'" in r.stderr
