"""Every kill point of a write is safe: an import, an `audit --out` and a `compact` stopped at each
filesystem step leave readers the old state or the new one, never a mix, and the next writer
succeeds and gives the dataset an uninterrupted run gives.

A step is each call that changes the disk: a file opened for writing, a Parquet write or close,
an fsync, a rename, a link, a symlink, a folder made or removed, a file removed.  The run is
stopped by an exception raised at that call (a `BaseException`, which no cleanup handler of
the pipeline catches); one test also kills a child process with SIGKILL at the step the issue
found, after the new generation is in place and before `current` names it.

The sweep of every step (`-m killpoints`, a few minutes) runs in a step of its own in CI; the
suite stops each write for real at four steps of it.
"""

from __future__ import annotations

import builtins
import os
import shutil
import signal
import subprocess
import sys

import pyarrow.parquet as pq
import pytest

import auditor.dataset as ds_mod
from auditor.check import check_dataset
from auditor.dataset import compact, import_paths, process, read_table
from auditor.tables import TABLES
from auditor.warehouse import summarize_batch

from .conftest import GOLDEN, ROOT


class Killed(BaseException):
    """The process 'dies' here: nothing of the pipeline catches it."""


class Steps:
    """Counts the disk-changing calls; raises :class:`Killed` at the ``kill_at``-th (0: never).

    With ``snapshot``, the dataset folder is copied just before every step instead: the copy is
    what a kill at that step leaves on disk (buffers not yet written are lost either way).
    """

    def __init__(self, monkeypatch, kill_at: int = 0, snapshot=None):
        self.n, self.kill_at, self.inside, self.snapshot = 0, kill_at, 0, snapshot
        for mod, names in ((os, ("replace", "rename", "link", "symlink", "fsync", "unlink", "mkdir", "rmdir")),
                           (pq, ("write_table",))):
            for name in names:
                monkeypatch.setattr(mod, name, self.wrap(getattr(mod, name)))
        # a tree removed is one step: a kill part-way leaves garbage of the same kind as a kill before it
        monkeypatch.setattr(shutil, "rmtree", self.wrap(shutil.rmtree, whole=True))
        for name in ("write_table", "close"):
            monkeypatch.setattr(pq.ParquetWriter, name, self.wrap(getattr(pq.ParquetWriter, name)))
        real_open = builtins.open

        def opening(file, mode="r", *a, **k):
            if any(c in mode for c in "wax+"):
                self.step()
            return real_open(file, mode, *a, **k)

        monkeypatch.setattr(builtins, "open", opening)

    def step(self) -> None:
        if self.inside:
            return
        self.n += 1
        if self.n == self.kill_at:
            raise Killed(self.n)
        if self.snapshot is not None:
            self.inside += 1
            try:
                self.snapshot(self.n)
            finally:
                self.inside -= 1

    def wrap(self, f, whole: bool = False):
        def call(*a, **k):
            self.step()
            self.inside += whole
            try:
                return f(*a, **k)
            finally:
                self.inside -= whole
        return call


def content(root) -> dict[str, tuple]:
    """What readers see: each table's rows, as sorted tuples (independent of how batches are cut)."""
    out = {}
    for t in TABLES:
        if t == "game_player_counters":
            continue  # derived: its rows follow the other tables'
        rows = read_table(root, t).to_pylist()
        out[t] = tuple(sorted(tuple(sorted((k, str(v)) for k, v in r.items() if k != "imported_at")) for r in rows))
    return out


LOGS_A = [GOLDEN / "auction" / "clean_full_game.pitch"] if (GOLDEN / "auction" / "clean_full_game.pitch").exists() \
    else sorted((GOLDEN / "auction").glob("clean_*.pitch"))[:1]
LOGS_B = sorted((GOLDEN / "smear").glob("clean_*.pitch"))[:2]


def run_import(root, logs):
    """`auditor import`, with the derived counters its batches get (their writes are kill points too)."""
    return import_paths([str(p) for p in logs], root, summarize=summarize_batch)


# `audit --out` and `compact` share the publish with import; their own steps are the staging and
# merging, so they run without the counters (DuckDB at every step would triple the test's time)
def run_audit_out(root, logs):
    return process([str(p) for p in logs], out=root)


def run_compact(root, _logs):
    return compact(root)


def base_dataset(tmp_path, command):
    """The dataset before the write: one import (and for compact a second, so there are batches to merge)."""
    root = tmp_path / "base"
    run_import(root, LOGS_A)
    if command is run_compact:
        run_import(root, LOGS_B)
    return root


def disk_state(root) -> tuple:
    """Every file and link under ``root`` with its bytes: two kill points that leave the same state
    leave the same outcome."""
    out = []
    for p in sorted(root.rglob("*")):
        rel = str(p.relative_to(root))
        if p.is_symlink():
            out.append((rel, "->", os.readlink(p)))
        elif p.is_file() and p.name != ".lock":
            out.append((rel, p.read_bytes()))
        elif p.is_dir():
            out.append((rel, "dir"))
    return tuple(out)


COMMANDS = pytest.mark.parametrize("command", [run_import, run_audit_out, run_compact],
                                   ids=["import", "audit --out", "compact"])


def uninterrupted(tmp_path, monkeypatch, command, snapshot=None):
    """The write run whole on a copy of the base dataset: (the base, what readers saw before, after, its steps)."""
    base = base_dataset(tmp_path, command)
    old = content(base)
    whole = tmp_path / "whole"
    shutil.copytree(base, whole, symlinks=True)
    with monkeypatch.context() as m:
        counter = Steps(m, snapshot=snapshot)
        command(whole, LOGS_B)
    new = content(whole)
    assert new != old or command is run_compact
    assert counter.n > 20
    return base, old, new, counter.n


def stopped(tmp_path, monkeypatch, command, base, k: int):
    """The write really stopped at step ``k`` of a copy of ``base``: the folder it left."""
    root = tmp_path / f"killed-{k}"
    shutil.copytree(base, root, symlinks=True)
    with monkeypatch.context() as m:
        Steps(m, kill_at=k)
        with pytest.raises(Killed):
            command(root, LOGS_B)
    return root


def assert_recovers(root, command, old, new, where: str) -> None:
    """Readers see the old state or the new one; the next writer cleans up and gives the dataset the
    uninterrupted run gives, and the check finds it sound."""
    assert content(root) in (old, new), f"{where}: readers see neither state"
    command(root, LOGS_B)
    assert content(root) == new, f"{where}: the next run differs"
    report = check_dataset(root)
    assert report.problems == [], f"{where}: {report.problems}"
    shutil.rmtree(root)


@COMMANDS
def test_a_write_stopped_part_way_leaves_the_old_or_the_new_state(tmp_path, monkeypatch, command):
    """A write really stopped early, a third and half of the way through, and at its last step (every step is
    swept by the `killpoints` test, which CI runs apart)."""
    base, old, new, steps = uninterrupted(tmp_path, monkeypatch, command)
    for k in (2, steps // 3, steps // 2, steps - 1):
        assert_recovers(stopped(tmp_path, monkeypatch, command, base, k), command, old, new,
                        f"stopped at step {k} of {steps}")


@pytest.mark.killpoints
@COMMANDS
def test_every_kill_point_leaves_the_old_or_the_new_state(tmp_path, monkeypatch, command):
    # the disk as a kill just before each step of the uninterrupted run would leave it, one copy per distinct state
    states: dict[tuple, list[int]] = {}
    kept: dict[tuple, object] = {}
    whole = tmp_path / "whole"

    def snapshot(k: int) -> None:
        state = disk_state(whole)
        if state not in states:
            shutil.copytree(whole, kept.setdefault(state, tmp_path / f"kill-{k}"), symlinks=True)
        states.setdefault(state, []).append(k)

    base, old, new, steps = uninterrupted(tmp_path, monkeypatch, command, snapshot)
    assert len(states) > 10
    # beside the snapshots, a run really stopped at a few steps (its names and timestamps differ, so
    # its disk is not byte for byte a snapshot's; what readers and the next writer see must be)
    for k in (2, steps // 3, steps // 2, steps - 1):
        kept[("stopped", k)] = stopped(tmp_path, monkeypatch, command, base, k)
        states[("stopped", k)] = [k]
    for state, ks in states.items():
        assert_recovers(kept[state], command, old, new,
                        f"killed at step {ks[0]} of {steps} (and {len(ks) - 1} more steps leaving the same disk)")


def test_a_sigkill_between_the_new_generation_and_the_current_link(tmp_path):
    """The kill point the issue found: `gens/N` in place, `current` still on N-1."""
    root = tmp_path / "ds"
    run_import(root, LOGS_A)
    old = content(root)
    script = (
        "import os, sys\n"
        "import auditor.dataset as d\n"
        "real = os.symlink\n"
        "def symlink(src, dst, *a, **k):\n"
        "    if str(dst).startswith(sys.argv[1]) and '.current.' in str(dst):\n"
        "        os.kill(os.getpid(), 9)\n"
        "    return real(src, dst, *a, **k)\n"
        "os.symlink = symlink\n"
        "from auditor.warehouse import summarize_batch\n"
        "d.import_paths(sys.argv[2:], sys.argv[1], summarize=summarize_batch)\n"
    )
    proc = subprocess.run([sys.executable, "-c", script, str(root), *map(str, LOGS_B)], cwd=ROOT)
    assert proc.returncode == -signal.SIGKILL
    gens = sorted(p.name for p in (root / "gens").iterdir())
    assert "2" in gens and os.readlink(root / "current") == os.path.join("gens", "1")  # the state the issue saw
    assert content(root) == old
    report = check_dataset(root)
    assert any("never published" in p.what for p in report.problems)
    # every later import works (it used to fail with "Directory not empty"), and compact too
    run_import(root, LOGS_B)
    assert len(content(root)["games"]) == len(old["games"]) + len(LOGS_B)
    compact(root)
    assert check_dataset(root).problems == []


def test_no_leftover_survives_the_next_writer(tmp_path):
    root = tmp_path / "ds"
    run_import(root, LOGS_A)
    (root / "gens" / "7").mkdir()  # a generation nobody published
    (root / "gens" / ".3.abc").mkdir()  # one half built
    os.symlink("gens/1", root / ".current.abc")
    assert {p.what for p in check_dataset(root).problems} >= {"a generation never published",
                                                              "a generation half built"}
    run_import(root, LOGS_B)
    assert sorted(p.name for p in (root / "gens").iterdir()) == ["1", "2"]
    assert not list(root.glob(".current.*")) and check_dataset(root).problems == []


def _processes_of_session(sid: int) -> list[int]:
    out = []
    for p in os.listdir("/proc"):
        if p.isdigit():
            try:
                if os.getsid(int(p)) == sid:
                    out.append(int(p))
            except OSError:  # gone meanwhile
                pass
    return out


def test_killing_an_import_leaves_no_process_behind(tmp_path):
    """A local import runs on the core's threads: no worker process to outlive it when it is killed."""
    import re
    import time

    from auditor.simulate import simulate

    text, _ = simulate("auction", games=40, seed=5)
    log = tmp_path / "big.pitch"
    with open(log, "w", encoding="utf-8") as f:
        for i in range(100):  # about 40,000 hands: long enough to be caught at work (half a second is watched)
            f.write(re.sub(r'\[GameId "([^"]+)"\]', lambda m: f'[GameId "{m.group(1)}-{i}"]', text))
    proc = subprocess.Popen([sys.executable, "-c", "from auditor.cli import main; main()", "import", str(log), "--out", str(tmp_path / "ds"),
                             "-j", "2"], cwd=ROOT, start_new_session=True, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)
    try:
        seen: set[int] = set()
        deadline = time.monotonic() + 0.5
        while time.monotonic() < deadline and proc.poll() is None:
            seen |= set(_processes_of_session(proc.pid))
            time.sleep(0.05)
        assert proc.poll() is None, "the import ended before it could be killed: give it more to do"
        assert seen == {proc.pid}, f"processes besides the import itself: {sorted(seen - {proc.pid})}"
        os.kill(proc.pid, signal.SIGKILL)  # its own process, not its group
        proc.wait(timeout=10)
        time.sleep(0.2)
        assert _processes_of_session(proc.pid) == []
    finally:
        if proc.poll() is None:
            proc.kill()
    # and the dataset it was writing is as if it never started: the next import publishes it whole
    stats = import_paths([str(log)], tmp_path / "ds")
    assert stats.games == 4000 and check_dataset(tmp_path / "ds").problems == []
