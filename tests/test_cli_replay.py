"""`auditor replay` as a user runs it: piped, on a colour terminal, and stepping in a pseudo-terminal."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest
from rich.cells import cell_len

from .test_replay import PARTNERSHIP, REVOKE, TWO_HANDS

AUDITOR = str(Path(sys.executable).parent / "auditor")
SGR = re.compile(r"\x1b\[([0-9;]*)m")


def styled(text: str) -> str:
    """A pattern for ``text`` as a colour terminal receives it: style codes may sit between any two characters."""
    return "(?:\x1b\\[[0-9;]*m)*".join(re.escape(ch) for ch in text)


def clean_env(**extra: str) -> dict[str, str]:
    """The environment without the variables that force or forbid colour or set the width."""
    env = {k: v for k, v in os.environ.items() if k not in ("NO_COLOR", "FORCE_COLOR", "COLUMNS", "LINES",
                                                            "TTY_COMPATIBLE", "TTY_INTERACTIVE")}
    env.update(TERM="xterm-256color", LANG="C.UTF-8", **extra)
    return env


def run(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([AUDITOR, "replay", *args], capture_output=True, text=True, encoding="utf-8",
                          stdin=subprocess.DEVNULL, env=env or clean_env(), timeout=60)


@pytest.fixture
def revoke_file(tmp_path: Path) -> Path:
    p = tmp_path / "revoke.pitch"
    p.write_text(REVOKE, encoding="utf-8")
    return p


@pytest.fixture
def club_file(tmp_path: Path) -> Path:
    p = tmp_path / "club.pitch"
    p.write_text(TWO_HANDS + "\n" + PARTNERSHIP, encoding="utf-8")
    return p


# --------------------------------------------------------------------------- piped


def test_piped_output_is_plain_text_with_suit_symbols(revoke_file):
    r = run(str(revoke_file), "--width", "60")
    assert r.returncode == 0, r.stderr
    assert "\x1b" not in r.stdout
    assert all(sym in r.stdout for sym in "♠♥♦♣")
    assert re.search(r"Trick 2 of 6 · ♥ hearts led · won by Ann", r.stdout)
    assert re.search(r"Dee\s+7♣\s+✗ R501", r.stdout)
    lines = r.stdout.splitlines()
    assert max(cell_len(line) for line in lines) <= 60
    assert all(line == line.rstrip() for line in lines)  # no padding left at the ends of lines


@pytest.mark.parametrize("columns", ["60", "120"])
def test_the_layout_follows_the_width_it_is_given(revoke_file, columns):
    r = run(str(revoke_file), env=clean_env(COLUMNS=columns))
    assert r.returncode == 0, r.stderr
    assert max(cell_len(line) for line in r.stdout.splitlines()) <= int(columns)
    side_by_side = any("Hands as dealt" in line and "The auction" in line for line in r.stdout.splitlines())
    assert side_by_side == (columns == "120")


def test_a_width_below_60_is_raised_to_60(revoke_file):
    r = run(str(revoke_file), "--width", "40")
    assert r.returncode == 0
    assert "below the 60 columns" in r.stderr
    assert max(cell_len(line) for line in r.stdout.splitlines()) <= 60


def test_step_without_a_terminal_prints_the_whole_hand(revoke_file):
    r = run(str(revoke_file), "--step")
    assert r.returncode == 0
    assert "--step needs a terminal" in r.stderr
    assert all(f"Trick {n} of 6" in r.stdout for n in range(1, 7)) and "Points" in r.stdout


# --------------------------------------------------------------------------- choosing what to replay


def test_a_file_of_several_games_lists_them(club_file):
    r = run(str(club_file))
    assert r.returncode == 0
    assert f"{club_file}:2games" in "".join(r.stdout.split())  # a long path is wrapped within itself
    assert re.search(r"club.pitch#1\s+auction\s+2\s+1: S601; 2: R501 R503 S602", r.stdout)
    # the first hand with a finding, quoted for the shell
    assert f"auditor replay {club_file} --game 'club.pitch#1' --hand 1" in r.stderr


def test_game_by_name_or_number_and_a_hand(club_file):
    by_name = run(str(club_file), "--game", "club-7", "--hand", "1")
    by_number = run(str(club_file), "--game", "2", "--hand", "1")
    assert by_name.returncode == by_number.returncode == 0
    assert by_name.stdout == by_number.stdout
    assert by_name.stdout.startswith("club-7 · hand 1 · partnership")


def test_game_alone_walks_the_score_sheet(club_file):
    r = run(str(club_file), "--game", "1", "--width", "100")
    assert r.returncode == 0
    assert "Score sheet: running totals as written (sheet) and recomputed (calc)" in r.stdout
    assert re.search(r"2 Bob 2 short\s+5\s+5\s+1\s+1\s+2✗\s+1\s+-3✗\s+-1 R501 R503 S602", r.stdout)
    assert "Chart: running totals over hands 1-2" in r.stdout


@pytest.mark.parametrize("args, message", [
    (["--game", "nope"], "no game 'nope' in"),
    (["--game", "3"], "or a number 1-2"),
    (["--game", "1", "--hand", "9"], "club.pitch#1 has no hand 9 (hands: 1-2)"),
    (["--hand", "1"], "holds 2 games: choose one with --game (club.pitch#1, club-7)"),
    (["--game", "1", "--rules", "bridge"], "bad --rules: unknown preset 'bridge'"),
])
def test_unknown_choices_are_refused_with_exit_2(club_file, args, message):
    r = run(str(club_file), *args)
    assert r.returncode == 2
    assert message in r.stderr and "Traceback" not in r.stderr
    assert r.stdout == ""


def test_bad_files_are_refused_with_exit_2(tmp_path):
    binary = tmp_path / "photo.pitch"
    binary.write_bytes(bytes(range(256)) * 8)
    no_rules = tmp_path / "norules.pitch"
    no_rules.write_text('[Rules "bridge"]\n[Players "Ann Bob Cal"]\n\nhand 1\ndealer Ann\n', encoding="utf-8")
    cases = [(tmp_path / "missing.pitch", "no such file"), (tmp_path, "is a folder"),
             (binary, "this is not a text file"), (no_rules, "cannot replay norules.pitch#1: bad Rules tag")]
    for path, message in cases:
        r = run(str(path))
        assert r.returncode == 2, path
        assert message in r.stderr and "Traceback" not in r.stderr


# --------------------------------------------------------------------------- on a terminal


def _sgr_parameters(text: str) -> set[int]:
    return {int(p) for m in SGR.finditer(text) for p in m.group(1).split(";") if p}


def _spawn(args: list[str], env: dict[str, str], rows: int = 30, columns: int = 80):
    pexpect = pytest.importorskip("pexpect")
    return pexpect.spawn(AUDITOR, ["replay", *args], env=env, dimensions=(rows, columns), encoding="utf-8",
                         timeout=20)


def test_a_terminal_gets_colour_and_no_color_takes_it_away(revoke_file):
    pexpect = pytest.importorskip("pexpect")
    outputs = {}
    for name, env in (("colour", clean_env()), ("no_color", clean_env(NO_COLOR="1"))):
        child = _spawn([str(revoke_file)], env)
        child.expect(pexpect.EOF)
        child.close()
        assert child.exitstatus == 0
        outputs[name] = child.before
    colours = set(range(30, 38)) | set(range(90, 98)) | {38}
    assert _sgr_parameters(outputs["colour"]) & colours  # hearts red, diamonds blue, clubs green
    assert not _sgr_parameters(outputs["no_color"]) & colours
    assert "♥" in outputs["no_color"] and "R501" in outputs["no_color"]


def test_step_moves_one_trick_at_a_time_in_a_pseudo_terminal(revoke_file):
    pexpect = pytest.importorskip("pexpect")
    child = _spawn([str(revoke_file), "--step"], clean_env())
    child.expect(styled("step 1/8: deal and auction"))
    child.send(" ")
    child.expect(styled("Trick 1 of 6 · ♠ spades led · won by Cal"))
    child.expect(styled("step 2/8: trick 1"))
    child.send("\r")  # Enter moves on too
    child.expect(styled("Trick 2 of 6 · ♥ hearts led · won by Ann"))
    child.expect(styled("✗ R501"))
    child.expect(styled("step 3/8: trick 2"))
    child.send("b")
    child.expect(styled("Trick 1 of 6 · ♠ spades led · won by Cal"))
    child.expect(styled("step 2/8: trick 1"))
    child.send("q")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0


def test_step_by_card_in_a_pseudo_terminal(revoke_file):
    pexpect = pytest.importorskip("pexpect")
    child = _spawn([str(revoke_file), "--by-card"], clean_env())
    child.expect(styled("step 1/26"))
    child.send(" ")
    child.expect(styled("1 of 4 cards played · Cal to play"))
    child.send(" ")
    child.expect(styled("2 of 4 cards played · Dee to play"))
    child.send("\x1b[D")  # the left arrow goes back
    child.expect(styled("1 of 4 cards played · Cal to play"))
    child.send("G")  # to the end: the points
    child.expect(styled("step 26/26: points"))
    child.send(" ")  # past the end stays put
    child.send("q")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0
    assert "step 26/26" not in (child.before or "")  # the extra Space drew nothing new


@pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed")
def test_the_screen_shows_only_the_current_trick(revoke_file, tmp_path):
    """What is visible in a real 60x24 terminal after each key (not just what was written)."""
    # a server of our own, its socket in the test's folder: nobody else's tmux is touched
    tmux = ["tmux", "-S", str(tmp_path / "tmux.sock"), "-f", "/dev/null"]

    def screen() -> str:
        return subprocess.run([*tmux, "capture-pane", "-p", "-t", "t"], capture_output=True, text=True,
                              encoding="utf-8").stdout

    def wait_for(text: str) -> str:
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            shown = screen()
            if text in shown:
                return shown
            time.sleep(0.1)
        raise AssertionError(f"{text!r} never appeared; the screen shows:\n{screen()}")

    command = f"{AUDITOR} replay {revoke_file} --step; echo EXIT=$?; sleep 60"
    subprocess.run([*tmux, "new-session", "-d", "-s", "t", "-x", "60", "-y", "24", command], check=True,
                   env=clean_env())
    try:
        wait_for("step 1/8")
        subprocess.run([*tmux, "send-keys", "-t", "t", "Space", "Space"], check=True)
        shown = wait_for("step 3/8: trick 2")
        assert "Trick 2 of 6" in shown and "Trick 1 of 6" not in shown
        # the frame fits the screen: its title is still at the top, the revoke in view
        assert shown.startswith("revoke.pitch#1 · hand 1 · auction")
        assert "should have followed with one of them" in " ".join(shown.split())
        subprocess.run([*tmux, "send-keys", "-t", "t", "b"], check=True)
        shown = wait_for("step 2/8: trick 1")
        assert "Trick 1 of 6" in shown and "Trick 2 of 6" not in shown
        subprocess.run([*tmux, "send-keys", "-t", "t", "q"], check=True)
        assert "EXIT=0" in wait_for("EXIT=")
    finally:
        subprocess.run([*tmux, "kill-server"], capture_output=True)
