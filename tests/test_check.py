"""`auditor check`: each injected fault found and named, the repairable ones repaired, never a published game lost;
a dataset damaged in each way a user or a disk damages one ends, after `check --repair`, with every game a sound
copy holds and the logs to import again for the rest, and no command shows a traceback on it."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path
from types import SimpleNamespace

import pytest
from typer.testing import CliRunner

import auditor.dataset as ds_mod
from auditor.check import CheckError, check_dataset, repair_dataset
from auditor.cli import app
from auditor.dataset import compact, current, import_paths, read_manifest, read_table
from auditor.tables import TABLES
from auditor.warehouse import SUMMARY_TABLE, summarize_batch

from .conftest import GOLDEN, SAMPLE_LOGS


@pytest.fixture(scope="module")
def sound(tmp_path_factory):
    """A dataset of two generations (two imports), checked sound."""
    root = tmp_path_factory.mktemp("check") / "ds"
    import_paths([str(SAMPLE_LOGS / "auction.pitch")], root)
    import_paths([str(SAMPLE_LOGS / "smear.pitch")], root)
    return root


@pytest.fixture
def ds(sound, tmp_path):
    root = tmp_path / "ds"
    subprocess.run(["cp", "-a", str(sound), str(root)], check=True)  # hard links kept, as on the disk
    return root


def whats(report) -> set[str]:
    return {p.what for p in report.problems}


def invoke(*args):
    return CliRunner().invoke(app, [str(a) for a in args])


def test_a_sound_dataset_is_sound(ds):
    report = check_dataset(ds)
    assert report.problems == [] and report.generation == 2 and report.batches == 2 and report.files >= 15
    r = invoke("check", ds)
    assert r.exit_code == 0 and "generation 2, 2 batches" in r.stderr and "sound" in r.stderr


def test_a_flipped_bit_is_found_and_named_and_the_repair_says_which_logs_to_import_again(ds):
    part = next(current(ds).glob("batch=*/hands.parquet"))
    batch = part.parent.name.removeprefix("batch=")
    log, lost = read_manifest(ds)["batches"][batch]["files"], read_manifest(ds)["batches"][batch]["games"]
    games = read_table(ds, "games").num_rows
    before = check_dataset(ds).files
    data = bytearray(part.read_bytes())
    data[len(data) // 2] ^= 0x10
    with open(part, "r+b") as f:  # in place: the store's hard link shares the damage, as on a real disk
        f.write(data)
    report = check_dataset(ds)
    (p,) = report.problems
    assert p.path == str(part) and "damaged file" in p.what and not p.repairable
    assert "no sound copy is left of hands.parquet" in p.detail and report.reimport == log
    assert report.files == before > 0  # the damaged batch's files were read, and are counted as before
    r = invoke("check", ds, "--format", "json")
    assert r.exit_code == 1 and json.loads(r.stdout)["problems"][0]["path"] == str(part)
    # the repair takes the batch out (kept in lost+found/, never deleted) and says how to get its games back
    r = invoke("check", ds, "--repair")
    assert r.exit_code == 1 and "to get the lost games back, import these logs again: auditor import " \
        f"{log[0]} --out {ds}" in r.stderr
    assert (ds / "lost+found" / batch / "hands.parquet").read_bytes() == bytes(data)
    assert read_table(ds, "games").num_rows == games - lost > 0  # the other batch's games are all there
    import_paths(log, ds)  # as it says
    assert read_table(ds, "games").num_rows == games
    assert repair_dataset(ds).problems == [] and not (ds / "lost+found").exists()


def test_an_orphaned_generation_is_found_and_rolled_back(ds):
    shutil.copytree(ds / "gens" / "2", ds / "gens" / "3", symlinks=True)  # built, never published
    report = check_dataset(ds)
    assert whats(report) == {"a generation never published"}
    r = invoke("check", ds)
    assert r.exit_code == 1 and "gens/3: a generation never published" in r.stdout and "--repair" in r.stdout
    games = read_table(ds, "games").num_rows
    r = invoke("check", ds, "--repair")
    assert r.exit_code == 0 and "repaired: removed" in r.stderr
    assert not (ds / "gens" / "3").exists() and read_table(ds, "games").num_rows == games


def test_a_missing_file_is_found(ds):
    part = next(current(ds).glob("batch=*/plays.parquet"))
    part.unlink()
    assert whats(check_dataset(ds)) == {"a file the manifest names is missing"}


def test_a_missing_store_copy_is_relinked(ds):
    batch = next(iter(read_manifest(ds)["batches"]))
    shutil.rmtree(ds / "store" / batch)
    assert whats(check_dataset(ds)) == {"the store's copy of a published file is missing"}
    assert repair_dataset(ds).problems == [] and (ds / "store" / batch / "games.parquet").exists()


def test_a_dangling_current_is_rebuilt_from_the_store_with_every_game(ds):
    games = read_table(ds, "games").num_rows
    shutil.rmtree(ds / "gens" / "2")
    report = check_dataset(ds)
    assert "a `current` link that names no complete generation" in whats(report)
    with pytest.raises(Exception, match="check --repair"):  # no writer guesses
        import_paths([str(GOLDEN / "smear" / "clean_bid_of_five_made.pitch")], ds)
    repaired = repair_dataset(ds)
    # generation 2's batch is in the store, and its record says generation 2 published it: published again
    assert os.readlink(ds / "current") == os.path.join("gens", "3")
    assert any("published generation 3: 2 batches" in line for line in repaired.repaired)
    assert repaired.problems == [] and read_table(ds, "games").num_rows == games
    import_paths([str(GOLDEN / "smear" / "clean_bid_of_five_made.pitch")], ds)  # writers work again
    assert check_dataset(ds).problems == [] and read_table(ds, "games").num_rows == games + 1


def test_left_overs_of_an_interrupted_write_are_found_and_removed(ds):
    (ds / "staging" / "tmp-abc").mkdir(parents=True)
    (ds / "store" / "0123abcd").mkdir()
    (ds / "gens" / ".4.abc").mkdir()
    os.symlink("gens/2", ds / ".current.abc")
    assert whats(check_dataset(ds)) == {"staged batches left by an interrupted write",
                                        "a stored batch no kept generation names", "a generation half built",
                                        "a temporary link left by an interrupted publish"}
    assert repair_dataset(ds).problems == []


def test_a_writer_at_work_is_not_reported(ds):
    """What a writer is building (its staging, a generation half built) is no left-over while it holds the lock."""
    import fcntl

    (ds / "staging" / "tmp-abc").mkdir(parents=True)
    (ds / "gens" / ".3.abc").mkdir()
    with open(ds / ".lock", "a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        assert check_dataset(ds).problems == []
        fcntl.flock(lock, fcntl.LOCK_UN)
    assert whats(check_dataset(ds)) == {"staged batches left by an interrupted write", "a generation half built"}


def _as_before_records(root: Path) -> None:
    """The dataset as version 0.5 wrote it: checksums in the manifest, no batch records, no manifest checksum."""
    for n in (p for p in (root / "gens").iterdir() if p.name.isdigit()):
        manifest = json.loads((n / "manifest.json").read_text("utf-8"))
        manifest.pop("checksum")
        for batch, entry in manifest["batches"].items():
            for key in ("generation", "replaces"):
                entry.pop(key)
            entry["checksums"].pop("batch.json")
            (n / f"batch={batch}" / "batch.json").unlink(missing_ok=True)
            (root / "store" / batch / "batch.json").unlink(missing_ok=True)
        (n / "manifest.json").write_text(json.dumps(manifest, indent=1), "utf-8")


def test_a_dataset_written_before_batch_records_is_sound_and_gets_them_at_the_next_write(ds):
    games = read_table(ds, "games").num_rows
    _as_before_records(ds)
    assert check_dataset(ds).problems == []
    import_paths([str(GOLDEN / "smear" / "clean_bid_of_five_made.pitch")], ds)
    assert check_dataset(ds).problems == [] and read_table(ds, "games").num_rows == games + 1
    for batch, entry in read_manifest(ds)["batches"].items():
        assert "batch.json" in entry["checksums"] and (ds / "store" / batch / "batch.json").is_file()


def test_a_lost_manifest_of_a_dataset_written_before_batch_records_is_rebuilt_from_its_files(ds):
    games = read_table(ds, "games").num_rows
    _as_before_records(ds)
    (current(ds) / "manifest.json").unlink()
    repaired = repair_dataset(ds)
    assert repaired.problems == [] and repaired.reimport == [] and read_table(ds, "games").num_rows == games
    # each entry as the older generation's manifest, or else the files, say: the logs named, every file checked
    for batch, entry in read_manifest(ds)["batches"].items():
        assert entry["games"] > 0 and entry["files"] and set(entry["checksums"]) >= {"games.parquet"}


@pytest.mark.parametrize("damage", ["cut short", "not a verdict", "a folder", "a link", "a pipe"])
def test_a_damaged_verdict_file_never_jams_a_command_nor_is_written_through(ds, tmp_path, damage):
    """``check.json`` is the one file of the dataset a reader opens before the generation: cut short, holding
    something else, a folder, a link to a file outside the dataset or a named pipe, the readers go on without
    the warning, and ``check`` replaces it (never writing through the link) or, a folder in the way, keeps none."""
    verdict, outside = ds / "check.json", tmp_path / "outside.txt"
    outside.write_text("the user's own file\n")
    if damage == "cut short":
        assert invoke("check", ds).exit_code == 0
        verdict.write_bytes(verdict.read_bytes()[:7])
    elif damage == "not a verdict":
        verdict.write_text('{"problems": 5, "checked_at": 1}')
    elif damage == "a folder":
        verdict.mkdir()
    elif damage == "a link":
        verdict.symlink_to(outside)
    else:
        os.mkfifo(verdict)  # opened for reading, a pipe nobody writes to would wait forever
    r = invoke("stats", ds)  # (query and report read the verdict by the same function)
    assert r.exception is None or isinstance(r.exception, SystemExit), r.exception
    assert r.exit_code == 0 and "warning" not in r.stderr, r.output
    flip = next(current(ds).glob("batch=*/plays.parquet"))
    flip.write_bytes(flip.read_bytes()[:-9])  # a problem for the verdict to hold
    assert invoke("check", ds).exit_code == 1
    assert outside.read_text() == "the user's own file\n"
    assert not list(ds.glob(".check.json.*"))  # no temporary file left behind
    warned = "warning: `auditor check` found" in invoke("stats", ds).stderr
    assert warned == (damage != "a folder") and verdict.is_dir() == (damage == "a folder")


def test_what_is_not_a_dataset_cannot_be_checked(tmp_path):
    with pytest.raises(CheckError):
        check_dataset(tmp_path)
    assert invoke("check", tmp_path).exit_code == 2
    assert invoke("check", tmp_path / "missing").exit_code == 2


def test_checksums_are_recorded_for_every_file_of_every_batch(ds):
    for batch, entry in read_manifest(ds)["batches"].items():
        files = {p.name for p in (current(ds) / f"batch={batch}").iterdir()}
        assert set(entry["checksums"]) == files and "games.parquet" in files


# --------------------------------------------------------------------------- every way a dataset gets damaged


class Killed(BaseException):
    """The import 'dies' here: nothing of the pipeline catches it."""


@pytest.fixture(scope="module")
def shelf(tmp_path_factory):
    """Four small logs; ``ds``: a and b imported, compacted into one batch (generation 3), then c imported
    (generation 4: the batches ab and c; generation 3 kept for readers); ``compacted``: the same before c
    (generation 3: ab, generation 2: a and b, all three stored); ``first``: the first import of a, killed
    before it published.  Each with the rows its readers see, game by game."""
    top = tmp_path_factory.mktemp("damage")
    logs = {}
    for name, golden in (("a", "auction/R501_revoke"), ("b", "setback/clean_goingout_jack_before_game"),
                         ("c", "smear/R501_jick_kept_on_trump_lead"), ("d", "cutthroat/clean_game11_bidder_wins")):
        logs[name] = top / f"{name}.pitch"
        shutil.copyfile(GOLDEN / f"{golden}.pitch", logs[name])
    ds = top / "ds"
    import_paths([str(logs["a"])], ds, summarize=summarize_batch)
    import_paths([str(logs["b"])], ds, summarize=summarize_batch)
    compact(ds, summarize=summarize_batch)
    subprocess.run(["cp", "-a", str(ds), str(top / "compacted")], check=True)
    import_paths([str(logs["c"])], ds, summarize=summarize_batch)
    first = top / "first"

    def killed(*_args, **_kwargs):
        raise Killed()

    with pytest.MonkeyPatch.context() as m:
        m.setattr(ds_mod, "publish", killed)  # staged, never stored: what a kill leaves of a first import
        with pytest.raises(Killed):
            import_paths([str(logs["a"])], first, summarize=summarize_batch)
    batches = {name: {b for b, e in read_manifest(ds)["batches"].items() if str(logs[name]) in e["files"]}
               for name in "abc"}
    games = read_table(ds, "games", ["game_id", "source_file"]).to_pylist()
    of_log = {name: {g["game_id"] for g in games if g["source_file"] == str(logs[name])} for name in "abc"}
    return SimpleNamespace(top=top, logs=logs, ds=ds, batches=batches, of_log=of_log, rows=rows_by_game(ds))


def rows_by_game(root) -> dict[str, tuple]:
    """What readers see, game by game: each table's rows of the game (without the time of import), sorted."""
    out: dict[str, list] = {}
    for t in TABLES:
        table = read_table(root, t)
        table = table.drop_columns([c for c in ("imported_at",) if c in table.schema.names])
        for row in table.to_pylist():
            out.setdefault(row["game_id"], []).append((t, repr(sorted(row.items()))))
    return {g: tuple(sorted(rows)) for g, rows in out.items()}


def _flip(path: Path) -> None:
    """A bit flipped in place, as a disk does it: every hard link to the file shares the damage."""
    data = bytearray(path.read_bytes())
    data[len(data) // 2] ^= 0x08
    with open(path, "r+b") as f:
        f.write(data)


def _truncate(path: Path) -> None:
    os.truncate(path, path.stat().st_size // 2)


def _unlink(path: Path) -> None:
    path.unlink()


def _separate(path: Path) -> Path:
    """The hard link replaced by a copy of its own (as a copy of the dataset that keeps no hard links makes)."""
    tmp = path.with_name(path.name + ".copy")
    shutil.copyfile(path, tmp)
    os.replace(tmp, path)
    return path


def _batch(root: Path, s, log: str) -> str:
    """The batch holding log ``log``'s games."""
    (b,) = s.batches[log]
    return b


def _in_gen(n: int, log: str, name: str):
    return lambda root, s: root / "gens" / str(n) / f"batch={_batch(root, s, log)}" / name


def _in_store(log: str, name: str):
    return lambda root, s: root / "store" / _batch(root, s, log) / name


def _break_links(root: Path, s) -> None:
    for p in root.rglob("*.parquet"):
        _separate(p)
    for p in root.rglob("batch.json"):
        _separate(p)


def _current_as(kind: str):
    def damage(root: Path, s) -> None:
        link = root / "current"
        target = root / os.readlink(link)
        link.unlink()
        if kind == "file":
            link.write_bytes(b"gens/4\n")
        elif kind == "folder":
            shutil.copytree(target, link)  # the copy of a tool that followed the link
        elif kind == "dangling":
            os.symlink("gens/9", link)
    return damage


def _kill_first_import(root: Path, s) -> None:
    shutil.rmtree(root)
    subprocess.run(["cp", "-a", str(s.top / "first"), str(root)], check=True)


# name: (the dataset, the damage, the logs whose games no copy holds after it)
DAMAGES = {
    "manifest deleted": ("ds", lambda r, s: _unlink(r / "gens/4/manifest.json"), ""),
    "manifest truncated": ("ds", lambda r, s: _truncate(r / "gens/4/manifest.json"), ""),
    "manifest flipped": ("ds", lambda r, s: _flip(r / "gens/4/manifest.json"), ""),
    "previous manifest truncated": ("ds", lambda r, s: _truncate(r / "gens/3/manifest.json"), ""),
    "table deleted": ("ds", lambda r, s: _unlink(_in_gen(4, "c", "plays.parquet")(r, s)), ""),
    "table truncated": ("ds", lambda r, s: _truncate(_in_gen(4, "c", "hands.parquet")(r, s)), "c"),
    "table flipped": ("ds", lambda r, s: _flip(_in_gen(4, "a", "plays.parquet")(r, s)), "ab"),
    "counters flipped": ("ds", lambda r, s: _flip(_in_gen(4, "c", f"{SUMMARY_TABLE}.parquet")(r, s)), ""),
    "record deleted": ("ds", lambda r, s: _unlink(_in_gen(4, "c", "batch.json")(r, s)), ""),
    "record truncated": ("ds", lambda r, s: _truncate(_in_gen(4, "a", "batch.json")(r, s)), ""),
    "record flipped": ("ds", lambda r, s: _flip(_in_gen(4, "c", "batch.json")(r, s)), ""),
    "store copy deleted": ("ds", lambda r, s: _unlink(_in_store("c", "games.parquet")(r, s)), ""),
    "store copy truncated": ("ds", lambda r, s: _truncate(_separate(_in_store("c", "games.parquet")(r, s))), ""),
    "store copy flipped": ("ds", lambda r, s: _flip(_separate(_in_store("a", "hands.parquet")(r, s))), ""),
    "hard links broken": ("ds", _break_links, ""),
    "published copy truncated": ("ds", lambda r, s: _truncate(_separate(_in_gen(4, "c", "plays.parquet")(r, s))),
                                 ""),
    "published copy flipped": ("ds", lambda r, s: _flip(_separate(_in_gen(4, "a", "games.parquet")(r, s))), ""),
    "current deleted": ("ds", lambda r, s: _unlink(r / "current"), ""),
    "current dangling": ("ds", _current_as("dangling"), ""),
    "current a file": ("ds", _current_as("file"), ""),
    "current a folder": ("ds", _current_as("folder"), ""),
    ".lock deleted": ("ds", lambda r, s: _unlink(r / ".lock"), ""),
    "generation missing": ("ds", lambda r, s: shutil.rmtree(r / "gens/4"), ""),
    "previous generation missing": ("ds", lambda r, s: shutil.rmtree(r / "gens/3"), ""),
    "every generation missing": ("ds", lambda r, s: shutil.rmtree(r / "gens"), ""),
    "compaction's generation missing": ("compacted", lambda r, s: shutil.rmtree(r / "gens/3"), ""),
    "batch missing": ("ds", lambda r, s: shutil.rmtree(_in_gen(4, "a", "")(r, s)), ""),
    "batch missing everywhere": ("ds", lambda r, s: (shutil.rmtree(_in_gen(4, "c", "")(r, s)),
                                                     shutil.rmtree(_in_store("c", "")(r, s))), "c"),
    "store missing": ("ds", lambda r, s: shutil.rmtree(r / "store"), ""),
    "first import killed": ("ds", _kill_first_import, "a"),
}


@pytest.mark.parametrize("name", list(DAMAGES))
def test_a_damaged_dataset_is_repaired_with_every_game_it_can_read(shelf, tmp_path, name):
    """Damaged in each way a user or a disk damages one, a dataset ends, after ``check --repair``, with every
    game a sound copy holds, no traceback, and the logs to import again for the rest; imported again, every
    game is back."""
    shape, damage, gone = DAMAGES[name]
    root = tmp_path / "ds"
    subprocess.run(["cp", "-a", str(shelf.top / shape), str(root)], check=True)  # hard links kept
    before = rows_by_game(root) if shape != "ds" else shelf.rows
    damage(root, shelf)
    if name == "first import killed":
        before = {}
        shelf_rows = {g: r for g, r in shelf.rows.items() if g in shelf.of_log["a"]}
    else:
        shelf_rows = before
    found = invoke("check", root, "--format", "json")
    assert found.exception is None or isinstance(found.exception, SystemExit), found.exception
    harmless = ("hard links broken", ".lock deleted", "previous generation missing")
    assert found.exit_code == (0 if name in harmless else 1), found.output

    repaired = invoke("check", root, "--repair", "--format", "json")
    assert repaired.exception is None or isinstance(repaired.exception, SystemExit), repaired.exception
    report = json.loads(repaired.stdout)
    lost_logs = [str(shelf.logs[n]) for n in gone]
    assert report["reimport"] == lost_logs
    lost_games = set().union(*(shelf.of_log[n] for n in gone))
    assert rows_by_game(root) == {g: rows for g, rows in before.items() if g not in lost_games}
    # what is left to do is the user's: import those logs again (and the set-aside batch then goes)
    assert all(p["problem"].startswith("a batch set aside by a repair") for p in report["problems"]), \
        report["problems"]
    assert bool(report["problems"]) == bool(gone and name != "first import killed")
    if lost_logs:
        import_paths(lost_logs, root, summarize=summarize_batch)
        assert rows_by_game(root) == shelf_rows
        again = repair_dataset(root)  # a set-aside batch whose games are back goes; one with no games table left
        for p in again.problems:      # cannot say whose they were: the user, told to, removes it
            assert p.detail.endswith("import it again, then remove this folder") and \
                not (Path(p.path) / "games.parquet").exists(), p
            shutil.rmtree(p.path)
        assert check_dataset(root).problems == []


@pytest.mark.parametrize("name", ["manifest truncated", "current dangling", "table truncated", "store copy deleted"])
def test_no_command_shows_a_traceback_on_a_damaged_dataset(shelf, tmp_path, name):
    """Before the repair, every command that reads or writes the dataset runs or says what is damaged and how
    to mend it (or names the damaged file); none shows a traceback."""
    shape, damage, _ = DAMAGES[name]
    damaged = tmp_path / "damaged"
    subprocess.run(["cp", "-a", str(shelf.top / shape), str(damaged)], check=True)
    damage(damaged, shelf)
    for i, command in enumerate((["stats", "{ds}"], ["query", "--data", "{ds}", "SELECT count(*) FROM plays"],
                                 ["report", "{ds}", "--format", "md", "-o", str(tmp_path / "r.md")],
                                 ["import", str(shelf.logs["d"]), "--out", "{ds}"], ["compact", "{ds}"])):
        root = tmp_path / f"run{i}"  # each on the damaged dataset, as the user would find it
        subprocess.run(["cp", "-a", str(damaged), str(root)], check=True)
        r = invoke(*(a.format(ds=root) for a in command))
        assert r.exception is None or isinstance(r.exception, SystemExit), (command, r.exception)
        assert r.exit_code in (0, 2), (command, r.output)
        if r.exit_code == 2:
            assert f"run `auditor check --repair {root}`" in r.stderr or str(root / "current") in r.stderr, \
                (command, r.stderr)
