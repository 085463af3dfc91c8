"""`auditor check`: each injected fault found and named, the repairable ones repaired, never a published game lost."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from auditor.check import CheckError, check_dataset, repair_dataset
from auditor.cli import app
from auditor.dataset import current, import_paths, read_manifest, read_table

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
    shutil.copytree(sound, root, symlinks=True)
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


def test_a_flipped_bit_is_found_and_named_and_not_repaired(ds):
    part = next(current(ds).glob("batch=*/hands.parquet"))
    data = bytearray(part.read_bytes())
    data[len(data) // 2] ^= 0x10
    with open(part, "r+b") as f:  # in place: the store's hard link shares the damage, as on a real disk
        f.write(data)
    report = check_dataset(ds)
    (p,) = report.problems
    assert p.path == str(part) and "damaged file" in p.what and not p.repairable
    r = invoke("check", ds, "--format", "json")
    assert r.exit_code == 1 and json.loads(r.stdout)["problems"][0]["path"] == str(part)
    assert repair_dataset(ds).problems == report.problems  # never deleted: reported again


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


def test_a_dangling_current_is_pointed_at_the_newest_complete_generation(ds):
    shutil.rmtree(ds / "gens" / "2")
    report = check_dataset(ds)
    assert "a `current` link that names no complete generation" in whats(report)
    with pytest.raises(Exception, match="check --repair"):  # no writer guesses
        import_paths([str(GOLDEN / "smear" / "clean_bid_of_five_made.pitch")], ds)
    repaired = repair_dataset(ds)
    assert os.readlink(ds / "current") == os.path.join("gens", "1")
    assert any("generation 1" in line for line in repaired.repaired)
    # the batch only the lost generation named may be the last copy of its games: kept, and reported
    (kept,) = repaired.problems
    assert kept.what == "a stored batch no kept generation names" and (Path(kept.path) / "games.parquet").exists()
    import_paths([str(GOLDEN / "smear" / "clean_bid_of_five_made.pitch")], ds)  # writers work again
    assert check_dataset(ds).problems == []


def test_left_overs_of_an_interrupted_write_are_found_and_removed(ds):
    (ds / "staging" / "tmp-abc").mkdir(parents=True)
    (ds / "store" / "0123abcd").mkdir()
    (ds / "gens" / ".4.abc").mkdir()
    os.symlink("gens/2", ds / ".current.abc")
    assert whats(check_dataset(ds)) == {"staged batches left by an interrupted write",
                                        "a stored batch no kept generation names", "a generation half built",
                                        "a temporary link left by an interrupted publish"}
    assert repair_dataset(ds).problems == []


def test_what_is_not_a_dataset_cannot_be_checked(tmp_path):
    with pytest.raises(CheckError):
        check_dataset(tmp_path)
    assert invoke("check", tmp_path).exit_code == 2
    assert invoke("check", tmp_path / "missing").exit_code == 2


def test_checksums_are_recorded_for_every_file_of_every_batch(ds):
    for batch, entry in read_manifest(ds)["batches"].items():
        files = {p.name for p in (current(ds) / f"batch={batch}").iterdir()}
        assert set(entry["checksums"]) == files and "games.parquet" in files
