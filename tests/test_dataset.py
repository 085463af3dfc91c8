"""The dataset on disk: idempotent, atomic under a kill or a full disk, the same with any number of jobs."""

from __future__ import annotations

import errno
import hashlib
import json
import os
import re
import subprocess
import sys
import tarfile
import textwrap

import pyarrow.parquet as pq
import pytest

import auditor.dataset as ds_mod
from auditor.dataset import (DatasetError, compact, current, import_paths, known_game_ids, read_manifest,
                             read_table, split_file, table_files)
from auditor.notation import parse_file, write_game
from auditor.notation import parse_text as parse_text_for_key
from auditor.simulate import simulate
from auditor.tables import SCHEMA_VERSION, SCHEMAS, TABLES, game_key

from .conftest import NOTATION_EXAMPLE, ROOT, SAMPLE_LOGS

TENPOINT_FIXTURE = ROOT / "tests" / "fixtures" / "tenpoint" / "variations.pitch"


def snapshot(root, leave_out: dict[str, list[str]] | None = None):
    """Every table's rows, sorted; ``leave_out`` names columns to take out first (table -> columns)."""
    out = {}
    for t in TABLES:
        table = read_table(root, t)
        drop = ["imported_at"] + (leave_out or {}).get(t, [])
        table = table.drop_columns([c for c in drop if c in table.schema.names])
        out[t] = sorted(map(repr, table.to_pylist()))
    return out


@pytest.fixture
def logs(tmp_path):
    text, _ = simulate("setback", games=12, seed=8, faults=("revoke", "score"))
    # half the games lose their GameId, so they are named FILE#N and must be numbered across chunks
    text = re.sub(r'\[GameId "sim-setback-8-(\d*[02468])"\]\n', "", text)
    first_game = text.split("\n\n[Event")[0]
    d = tmp_path / "logs"
    d.mkdir()
    (d / "a.pitch").write_text(text + "\n" + first_game + "\n")  # the first game again at the end
    (d / "b.pitch").write_text(NOTATION_EXAMPLE)
    return d


def test_reimport_adds_nothing(tmp_path, example_file):
    root = tmp_path / "ds"
    import_paths([str(example_file)], root)
    before, manifest = snapshot(root), read_manifest(root)
    copy = tmp_path / "copy.pitch"
    copy.write_text(NOTATION_EXAMPLE.replace("\n", "\r\n"))  # the same game, written differently
    stats = import_paths([str(example_file), str(copy)], root)
    assert (stats.games_new, stats.games_skipped) == (0, 2)
    assert read_manifest(root) == manifest and snapshot(root) == before


def test_new_files_are_added_beside_the_old_ones(tmp_path, example_file):
    root = tmp_path / "ds"
    import_paths([str(example_file)], root)
    more = tmp_path / "more.pitch"
    more.write_text(simulate("auction", games=2, seed=1)[0])
    stats = import_paths([str(more)], root)
    assert stats.games_new == 2 and len(known_game_ids(root)) == 3
    assert read_manifest(root)["generation"] == 2 and len(read_manifest(root)["batches"]) == 2


def test_an_import_killed_midway_leaves_the_dataset_as_it_was(tmp_path, example_file):
    root = tmp_path / "ds"
    import_paths([str(example_file)], root)
    before, manifest = snapshot(root), read_manifest(root)
    big = tmp_path / "big.pitch"
    text = simulate("auction", games=40, seed=2)[0]
    # a few pieces' worth (each copy a game of its own), so that the core is still at work when it dies
    big.write_text("\n".join(re.sub(r'\[GameId "([^"]+)"\]', lambda m: f'[GameId "{m.group(1)}-{i}"]', text)
                             for i in range(12)))
    # the child's core writes the first row groups of its batch, then the child dies by SIGKILL
    script = textwrap.dedent(f"""
        import os, pathlib, signal, threading, time
        import auditor.dataset as d
        staging = pathlib.Path({str(root)!r}) / "staging"
        def watch():
            while not list(staging.rglob("*.parquet")):
                time.sleep(0.001)
            os.kill(os.getpid(), signal.SIGKILL)
        threading.Thread(target=watch, daemon=True).start()
        d.import_paths([{str(big)!r}], {str(root)!r}, jobs=1)
    """)
    proc = subprocess.run([sys.executable, "-c", script], capture_output=True)
    assert proc.returncode == -9
    assert list((root / "staging").rglob("*.parquet")), "the child should have died while writing"
    assert read_manifest(root) == manifest and snapshot(root) == before
    stats = import_paths([str(big)], root)  # the next import sweeps the left-overs and completes
    assert stats.games_new == 480 and not (root / "staging").exists()
    assert read_table(root, "games").num_rows == 481


def test_a_full_disk_gives_an_error_and_leaves_the_dataset_unchanged(tmp_path, example_file, monkeypatch):
    root = tmp_path / "ds"
    import_paths([str(example_file)], root)
    before, manifest = snapshot(root), read_manifest(root)
    more = tmp_path / "more.pitch"
    more.write_text(simulate("auction", games=2, seed=1)[0])
    made = ds_mod.BatchWriter.__init__

    def full(self, *a, **k):
        made(self, *a, **k)
        # the disk fills up under the core's writer: its plays file is the device that is always full
        os.symlink("/dev/full", self.dir / "plays.parquet")

    monkeypatch.setattr(ds_mod.BatchWriter, "__init__", full)
    with pytest.raises(DatasetError, match="No space left"):
        import_paths([str(more)], root)
    assert read_manifest(root) == manifest and snapshot(root) == before
    assert not (root / "staging").exists()


def test_an_unwritable_dataset_path_is_an_error(tmp_path, example_file):
    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    with pytest.raises(DatasetError):
        import_paths([str(example_file)], blocker / "ds")


def test_a_corrupt_file_does_not_stop_the_batch(tmp_path, example_file):
    (tmp_path / "logs").mkdir()
    (tmp_path / "logs" / "noise.pitch").write_bytes(bytes(range(256)) * 100)
    (tmp_path / "logs" / "good.pitch").write_text(NOTATION_EXAMPLE)
    stats = import_paths([str(tmp_path / "logs")], tmp_path / "ds")
    assert stats.games_new == 1
    codes = sorted((f["code"], f["file"].rsplit("/", 1)[-1]) for f in read_table(tmp_path / "ds", "findings").to_pylist())
    assert codes == [("E109", "noise.pitch"), ("S601", "good.pitch"), ("S601", "good.pitch")]


def test_large_files_are_cut_at_game_boundaries_with_their_line_and_game_numbers(logs):
    path = str(logs / "a.pitch")
    chunks = split_file(path, 4_000)
    assert len(chunks) > 5
    games, _ = parse_file(path)
    starts = {g.line: g.index - 1 for g in games}
    for c in chunks[1:]:
        assert starts[c.first_line] == c.first_game
    data = open(path, "rb").read()
    assert all(data[c.start:c.start + 1] == b"[" for c in chunks)


def test_jobs_give_the_same_dataset_as_one_process(tmp_path, logs, monkeypatch):
    monkeypatch.setattr(ds_mod, "CHUNK_BYTES", 4_000)
    one = import_paths([str(logs)], tmp_path / "one", jobs=1)
    two = import_paths([str(logs)], tmp_path / "two", jobs=2)
    assert (one.games, one.games_new, one.games_skipped) == (two.games, two.games_new, two.games_skipped) \
        == (14, 13, 1)
    assert snapshot(tmp_path / "one") == snapshot(tmp_path / "two")
    names = read_table(tmp_path / "one", "games").column("game").to_pylist()
    assert "a.pitch#2" in names and "a.pitch#12" in names and len(set(names)) == 13
    f1 = sorted((f.source, f.line, f.code, f.game) for f in one.findings)
    assert f1 == sorted((f.source, f.line, f.code, f.game) for f in two.findings) and len(f1) >= 12


def test_compact_merges_batches_and_keeps_every_row(tmp_path, logs, monkeypatch):
    monkeypatch.setattr(ds_mod, "CHUNK_BYTES", 4_000)
    root = tmp_path / "ds"
    import_paths([str(logs)], root)
    before = snapshot(root)
    assert len(read_manifest(root)["batches"]) > 3
    n_before, n_after = compact(root)
    assert n_after == 1 and n_before == len(read_manifest(root)["batches"]) + n_before - 1
    assert snapshot(root) == before
    assert len(table_files(root, "plays")) == 1


def test_a_dask_cluster_gives_the_same_dataset(tmp_path, logs, monkeypatch):
    distributed = pytest.importorskip("distributed")
    monkeypatch.setattr(ds_mod, "CHUNK_BYTES", 4_000)
    local = import_paths([str(logs)], tmp_path / "local")
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as c, \
            distributed.Client(c) as client:
        remote = import_paths([str(logs)], tmp_path / "dask", scheduler=client)
    assert (local.games_new, local.hands) == (remote.games_new, remote.hands)
    assert snapshot(tmp_path / "local") == snapshot(tmp_path / "dask")


def test_a_dask_worker_knows_the_house_presets_of_the_configuration(tmp_path):
    """A worker is another process: a game whose Rules tag names a club's own preset is read
    and scored there as at home, not refused as an unknown preset."""
    distributed = pytest.importorskip("distributed")
    from auditor.rules import define_house_presets

    text, _ = simulate("auction", games=2, seed=1)
    log = tmp_path / "club.pitch"
    log.write_text(re.sub(r'\[Rules "[^"]*"\]', '[Rules "thursday"]', text), encoding="utf-8")
    define_house_presets({"thursday": {"base": "auction"}})
    try:
        local = import_paths([str(log)], tmp_path / "local")
        with distributed.LocalCluster(n_workers=1, threads_per_worker=1, processes=True,
                                      dashboard_address=None) as c, distributed.Client(c) as client:
            remote = import_paths([str(log)], tmp_path / "dask", scheduler=client)
    finally:
        define_house_presets({})
    assert local.findings == [] and local.games_new == 2
    assert [f.code for f in remote.findings] == []
    assert read_table(tmp_path / "dask", "games").column("preset").to_pylist() == ["thursday"] * 2
    assert snapshot(tmp_path / "local") == snapshot(tmp_path / "dask")


def _die_once(marker: str, chunks, *args, **kw):
    """A task that kills its worker process the first time it runs (the marker file remembers)."""
    import os

    if not os.path.exists(marker):
        open(marker, "w").close()
        os._exit(1)
    return ds_mod.run_task(chunks, *args, **kw)


def test_a_worker_killed_mid_task_neither_loses_nor_duplicates_games(tmp_path, logs, monkeypatch):
    import functools

    distributed = pytest.importorskip("distributed")
    local = import_paths([str(logs)], tmp_path / "local")
    marker = tmp_path / "died"
    monkeypatch.setattr(ds_mod, "run_task", functools.partial(_die_once, str(marker)))
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as c, \
            distributed.Client(c) as client:
        remote = import_paths([str(logs)], tmp_path / "dask", scheduler=client)
    assert marker.exists()  # a worker did die
    assert (local.games_new, local.games_skipped) == (remote.games_new, remote.games_skipped)
    assert snapshot(tmp_path / "local") == snapshot(tmp_path / "dask")


def test_a_corrected_log_replaces_its_earlier_version(tmp_path):
    log = tmp_path / "club.pitch"
    log.write_text(NOTATION_EXAMPLE.replace('[Event "Thursday club"]', '[Event "Thursday club"]\n[GameId "thu-1"]')
                   + "\n" + simulate("auction", games=2, seed=1)[0])  # seed 1: no sheet line the same as the example's
    root = tmp_path / "ds"
    import_paths([str(log)], root)
    assert read_table(root, "findings").num_rows == 2
    # the score keeper corrects the sheet (and adds a comment); the other games are untouched
    log.write_text(log.read_text().replace("score Ann 3, Bob 0, Cal 1, Dee 0", "score Ann 3, Bob 0, Cal 0, Dee 1  % fixed")
                   .replace("total Ann 3, Bob 0, Cal 1, Dee 0", "total Ann 3, Bob 0, Cal 0, Dee 1"))
    stats = import_paths([str(log)], root)
    assert (stats.games_new, stats.games_skipped, stats.games_replaced) == (1, 2, 1)
    games = read_table(root, "games").column("game").to_pylist()
    assert sorted(games) == sorted(["thu-1", "sim-auction-1-1", "sim-auction-1-2"])
    assert read_table(root, "findings").num_rows == 0
    plays = read_table(root, "plays").to_pylist()
    assert len({p["game_id"] for p in plays}) == 3  # the earlier version's rows are gone from every table
    hands = read_table(root, "hands").to_pylist()
    assert len(plays) == sum(h["tricks"] * 4 for h in hands)


def test_summarize_runs_on_each_final_batch_before_it_is_published(tmp_path, logs, monkeypatch):
    """The derived table matches its batch: written after duplicates and replaced games are filtered out."""
    from auditor.warehouse import summarize_batch

    monkeypatch.setattr(ds_mod, "CHUNK_BYTES", 4_000)
    seen = []

    def summarize(batch_dir):
        assert batch_dir.parent.name == "staging" and batch_dir.is_dir()  # staged, not yet published
        seen.append(batch_dir.name)
        summarize_batch(batch_dir)

    root = tmp_path / "ds"
    stats = import_paths([str(logs)], root, summarize=summarize)
    assert stats.games_skipped == 1  # the repeated game: stored once, counted once
    # the core computed every batch's counters from the same audit: no batch needed `summarize`
    assert seen == [] and len(read_manifest(root)["batches"]) > 3

    def counted_games():
        for b in current(root).glob("batch=*"):
            assert (b / "game_player_counters.parquet").exists(), b
        return set(read_table(root, "game_player_counters", ["game_id"]).column("game_id").to_pylist())

    assert counted_games() == known_game_ids(root)
    # a corrected game replaces its earlier version in a stored batch: that batch is rewritten and summarized again
    log = logs / "b.pitch"
    log.write_text(log.read_text().replace("score Ann 3, Bob 0, Cal 1, Dee 0", "score Ann 3, Bob 0, Cal 0, Dee 1")
                   .replace("total Ann 3, Bob 0, Cal 1, Dee 0", "total Ann 3, Bob 0, Cal 0, Dee 1"))
    seen.clear()
    stats = import_paths([str(logs)], root, summarize=summarize)
    assert stats.games_replaced == 1
    assert counted_games() == known_game_ids(root)
    n = read_table(root, "game_player_counters").num_rows
    assert n == sum(len(p) for p in read_table(root, "games", ["players"]).column("players").to_pylist())


# --------------------------------------------------------------------------- batches of an older schema version

# What schema version 2 added (see schemas/tables.json): a dataset written by version 1 has none of it.
ADDED_IN_V2 = {
    "hands": ["widow", "points_in_play", "off_jack", "high_joker", "low_joker", "trey", "moon", "takeover"],
    "hand_scores": ["off_jack", "high_joker", "low_joker", "trey"],
    "game_player_counters": ["moon_attempts", "moons_made", "ten_point_hands", "off_jack", "high_joker",
                             "low_joker", "trey_hands", "trey", "points_in_play"],
}
NEW_TABLES_IN_V2 = ("exchanges",)


def downgrade_to_v1(root) -> None:
    """Rewrite every published batch of ``root`` as schema version 1 wrote it: the columns and tables
    version 2 added taken out (the files are rewritten in place, so the store's links follow)."""
    gen = ds_mod.current(root)
    for batch in gen.glob("batch=*"):
        for t in NEW_TABLES_IN_V2:
            (batch / f"{t}.parquet").unlink(missing_ok=True)
        for t, cols in ADDED_IN_V2.items():
            f = batch / f"{t}.parquet"
            if f.exists():
                table = pq.read_table(f).drop_columns(cols)
                table = table.replace_schema_metadata({**table.schema.metadata, b"schema_version": b"1"})
                # truncated in place: gens/N/batch=X and store/X are one file
                pq.write_table(table, f, compression="zstd")
    # version 1 recorded no schema version per batch, no checksums and no batch records
    manifest = json.loads((gen / "manifest.json").read_text("utf-8"))
    manifest["schema_version"] = 1
    manifest.pop("checksum", None)
    for batch, entry in manifest["batches"].items():
        for key in ("schema_version", "checksums", "generation", "replaces"):
            entry.pop(key, None)
        for copy in (gen / f"batch={batch}", root / "store" / batch):
            (copy / ds_mod.RECORD).unlink(missing_ok=True)
    (gen / "manifest.json").write_text(json.dumps(manifest, indent=1), "utf-8")


def test_version_1_schema_is_version_2_without_its_additions():
    doc = ds_mod.load_schema_doc()
    assert doc["schema_version"] == 7
    for t, cols in ADDED_IN_V2.items():
        assert set(cols) <= set(SCHEMAS[t].names), t
    assert set(NEW_TABLES_IN_V2) <= set(TABLES)


def test_batches_of_schema_version_1_read_and_compact(tmp_path, logs, monkeypatch):
    tenpoint = tmp_path / "tenpoint.pitch"
    tenpoint.write_text(simulate("tenpoint", games=2, seed=4)[0], encoding="utf-8")
    monkeypatch.setattr(ds_mod, "CHUNK_BYTES", 40_000)
    root = tmp_path / "ds"
    import_paths([str(logs), str(tenpoint)], root)
    before = snapshot(root, ADDED_IN_V2)
    downgrade_to_v1(root)
    assert len(table_files(root, "hands")) > 1 and table_files(root, "exchanges") == []
    assert set(ds_mod.batch_schema_versions(root).values()) == {1}
    # read with the current schema: the columns a batch lacks are null, every other value as it was
    hands = read_table(root, "hands")
    assert hands.schema.names == SCHEMAS["hands"].names
    assert hands.column("points_in_play").null_count == hands.num_rows
    assert read_table(root, "exchanges").num_rows == 0

    old = {t: rows for t, rows in snapshot(root, ADDED_IN_V2).items() if t not in NEW_TABLES_IN_V2}
    assert old == {t: rows for t, rows in before.items() if t not in NEW_TABLES_IN_V2}
    # compact writes the old rows under the current schema
    before_compact = snapshot(root)
    assert compact(root)[1] == 1
    (batch,) = ds_mod.current(root).glob("batch=*")
    for t in ("hands", "hand_scores"):
        assert pq.read_schema(batch / f"{t}.parquet").names == SCHEMAS[t].names
        assert ds_mod.has_current_columns(batch / f"{t}.parquet", t)
    assert snapshot(root) == before_compact
    assert set(ds_mod.batch_schema_versions(root).values()) == {SCHEMA_VERSION}
    # a new import beside the old batches keeps its new columns
    import_paths([str(TENPOINT_FIXTURE)], root)
    hands = read_table(root, "hands").to_pylist()
    assert {h["points_in_play"] for h in hands} == {None, 10, 4}
    assert read_table(root, "exchanges").num_rows > 0


def test_findings_of_schema_version_6_read_with_their_fields_null(tmp_path, example_file):
    """Version 7 added the findings' typed fields: a batch written before has none, and reads as null."""
    bad = tmp_path / "bad.pitch"
    bad.write_text(example_file.read_text().replace("score Ann 3, Bob 0, Cal 1, Dee 0", "score Ann 3, Bob 0, Cal 0, Dee 1"))
    root = tmp_path / "ds"
    import_paths([str(bad)], root)
    rows = read_table(root, "findings").to_pylist()
    assert rows and all(isinstance(json.loads(r["fields"]), dict) for r in rows)
    for f in ds_mod.current(root).glob("batch=*/findings.parquet"):
        table = pq.read_table(f).drop_columns(["fields"])
        pq.write_table(table.replace_schema_metadata({**table.schema.metadata, b"schema_version": b"6"}), f,
                       compression="zstd")
    old = read_table(root, "findings").to_pylist()
    assert [r["fields"] for r in old] == [None] * len(rows)
    assert [{**r, "fields": None} for r in rows] == old


# --------------------------------------------------------------------------- a dataset written by auditor 0.2

def test_a_dataset_written_by_version_0_2_knows_every_game_again(tmp_path):
    # tests/fixtures/dataset_v2.tar.gz: `auditor import sample_logs --out v2ds` by auditor 0.2 (schema
    # version 2, the pure-Python parser, keys that also hashed the reading findings' messages)
    with tarfile.open(ROOT / "tests" / "fixtures" / "dataset_v2.tar.gz") as tar:
        tar.extractall(tmp_path, filter="tar")
    root = tmp_path / "v2ds"
    assert set(ds_mod.batch_schema_versions(root).values()) == {2}
    stored = known_game_ids(root)
    # the sample logs of 0.2 (smear.pitch came with 0.5)
    logs = sorted(p for p in SAMPLE_LOGS.glob("*.pitch") if p.name != "smear.pitch")
    stats = import_paths([str(p) for p in logs], root)
    assert (stats.games, stats.games_new, stats.games_replaced, stats.games_skipped) == (24, 0, 0, 24)
    assert known_game_ids(root) == stored
    # a game read without findings keeps the key it had: the hash of its canonical text alone
    clean = set()
    for f in logs:
        games, found = parse_file(f)
        bad = {p.game for p in found}
        clean |= {game_key(g) for g in games if g.name not in bad}
    assert len(clean) >= 20 and clean <= stored
    # and the old batches still answer, beside nothing new
    assert read_table(root, "games").num_rows == 24


def test_the_key_is_the_hash_of_the_canonical_text_alone():
    (g,), _ = parse_text_for_key(NOTATION_EXAMPLE)
    assert game_key(g) == hashlib.blake2b(write_game(g).encode(), digest_size=16).hexdigest()
    # a finding of reading (an unknown word) does not change which game this is
    (h,), found = parse_text_for_key(NOTATION_EXAMPLE.replace("hand 1\n", "hand 1\nnotes x\n"))
    assert [f.code for f in found] == ["E102"] and game_key(h) == game_key(g)


def test_progress_moves_through_a_multi_megabyte_file_and_is_silent_off_a_terminal(tmp_path, monkeypatch):
    import io

    from rich.console import Console

    from auditor.render import progress_bar

    big = tmp_path / "big.pitch"
    big.write_text(NOTATION_EXAMPLE * 8000)  # about 3.4 MB: one game, 8,000 times
    size = big.stat().st_size
    seen: list[tuple[int, int]] = []
    monkeypatch.setattr(ds_mod, "PROGRESS_EVERY", 0.0)  # every report the core makes, not ten a second
    stats = ds_mod.process([str(big)], jobs=2, progress=lambda nbytes, hands: seen.append((nbytes, hands)))
    # the core reports as it reads, 64 KB at a time, not only at the file's end: many growing updates
    assert len(set(seen)) >= size // (128 << 10) and seen == sorted(seen) and seen[0][0] < size
    assert seen[-1] == (size, stats.hands) and 0 < seen[0][1] < stats.hands
    # the bar shows bytes and hands on a terminal, and writes nothing where stderr is not one
    tty, pipe = io.StringIO(), io.StringIO()
    with progress_bar(size, "auditing", Console(file=tty, force_terminal=True, width=100)) as tick:
        for nbytes, hands in seen:
            tick(nbytes, hands)
    assert "hands" in tty.getvalue()
    with progress_bar(size, "auditing", Console(file=pipe, force_terminal=False)) as tick:
        for nbytes, hands in seen:
            tick(nbytes, hands)
    assert pipe.getvalue() == ""


# --------------------------------------------------------------------------- one game, one copy; audit = import


@pytest.mark.parametrize("jobs", [1, 2])
def test_the_same_game_in_two_files_of_one_run_is_stored_once(tmp_path, jobs):
    """Issue 27 item 1: a.pitch and b.pitch hold the same games; the run stores them once, as a later run would."""
    logs = tmp_path / "logs"
    logs.mkdir()
    text = (SAMPLE_LOGS / "setback.pitch").read_text("utf-8")
    (logs / "a.pitch").write_text(text)
    (logs / "b.pitch").write_text(text)
    root = tmp_path / "ds"
    stats = import_paths([str(logs)], root, jobs=jobs)
    games = read_table(root, "games").to_pylist()
    assert (stats.games, stats.games_new, stats.games_skipped) == (6, 3, 3)
    assert len(games) == 3 and {g["source_file"] for g in games} == {str(logs / "a.pitch")}
    single = tmp_path / "single"
    import_paths([str(logs / "a.pitch")], single)
    assert snapshot(root, {"games": ["source_file"]}) == snapshot(single, {"games": ["source_file"]})
    assert sum(e["games"] for e in read_manifest(root)["batches"].values()) == 3
    from auditor.check import check_dataset
    assert check_dataset(root).problems == []


def _fields(fields) -> str:
    """Typed fields (a dict, or the JSON text the findings table holds) in one comparable form."""
    return json.dumps(json.loads(fields) if isinstance(fields, str) else fields, sort_keys=True)


def _finding_rows(findings) -> list[tuple]:
    return sorted(((f.code, f.line, f.column, f.game or None, f.hand, f.trick, f.subject, f.message, f.expected,
                    f.recorded, _fields(f.fields)) for f in findings), key=repr)


def _json_rows(found: list[dict]) -> list[tuple]:
    """Findings as `audit --format json` gives them, compared as the findings table stores them."""
    return sorted(((f["code"], f["line"], f["column"], f["game"], f["hand"], f["trick"], f["player"], f["message"],
                    f["expected"], f["recorded"], _fields(f["fields"])) for f in found), key=repr)


def _table_rows(root) -> list[tuple]:
    return _json_rows(read_table(root, "findings").to_pylist())


def test_findings_before_the_first_tag_block_are_stored_as_audit_reports_them(tmp_path):
    """Issue 27 item 2: a hand before any [Tag] line: audit's four E108 are in the dataset too."""
    log = tmp_path / "early.pitch"
    log.write_text("hand 1\ndealer Ann\nbids Ann 2\n1. Ann:AS\n\n" + NOTATION_EXAMPLE)
    audited = ds_mod.process([str(log)]).findings
    assert [f.code for f in audited].count("E108") == 4
    root = tmp_path / "ds"
    imported = import_paths([str(log)], root)
    assert _finding_rows(imported.findings) == _finding_rows(audited) == _table_rows(root)
    assert imported.findings_stored == len(audited)
    stray = [r for r in read_table(root, "findings").to_pylist() if r["code"] == "E108"]
    assert len(stray) == 4 and all(r["game_id"] is None and r["file"] == str(log) for r in stray)


def _mutations(seed: bytes, rng) -> bytes:
    """A log damaged as a disk or an editor damages one: bytes flipped, cut short, lines shuffled,
    duplicated or dropped, numbers and strange characters put in."""
    data = bytearray(seed)
    for _ in range(rng.randint(1, 4)):
        kind = rng.randrange(6)
        lines = bytes(data).split(b"\n")
        if kind == 0 and data:
            for _ in range(rng.randint(1, 8)):
                data[rng.randrange(len(data))] ^= 1 << rng.randrange(8)
        elif kind == 1:
            del data[rng.randrange(len(data) + 1):]
        elif kind == 2:
            rng.shuffle(lines)
            data = bytearray(b"\n".join(lines))
        elif kind == 3 and lines:
            i = rng.randrange(len(lines))
            lines.insert(rng.randrange(len(lines) + 1), lines[i])
            data = bytearray(b"\n".join(lines))
        elif kind == 4 and lines:
            del lines[rng.randrange(len(lines))]
            data = bytearray(b"\n".join(lines))
        else:
            at = rng.randrange(len(data) + 1)
            data[at:at] = rng.choice([b"9" * rng.randint(1, 12), b"\x00", b"\r\n", "\ufeff".encode(), b"%",
                                      b'"', b"hand 0\n", b'[Rules "smear"]\n', "é\u2028".encode()])
    return bytes(data)


def test_import_stores_what_audit_reports_on_damaged_logs(tmp_path):
    """Issue 27 item 2, as a property: for mutated logs, input by input, the findings of
    `audit --format json` are the import's, and the dataset's findings table holds them, but
    for the copies of a game already stored (audit reports every copy where it stands)."""
    import json as json_mod
    import random

    from typer.testing import CliRunner

    from auditor.cli import app

    seeds = [p.read_bytes() for p in sorted((ROOT / "tests" / "golden").glob("*/*.pitch"))[:40]]
    seeds += [p.read_bytes()[:6000] for p in sorted(SAMPLE_LOGS.glob("*.pitch"))]
    rng = random.Random(27)
    runner = CliRunner()
    exact = 0
    for i in range(40):
        log = tmp_path / f"m{i}.pitch"
        log.write_bytes(_mutations(rng.choice(seeds), rng))
        out = runner.invoke(app, ["audit", str(log), "--format", "json", "-j", "1"])
        assert out.exit_code in (0, 1), out.output
        audited = _json_rows(json_mod.loads(out.stdout))
        root = tmp_path / f"ds{i}"
        stats = import_paths([str(log)], root, jobs=1 + i % 2)
        assert _finding_rows(stats.findings) == audited, log
        stored = _table_rows(root)
        assert stats.findings_stored == len(stored)
        if stats.games_skipped == 0:
            assert stored == audited, log
            exact += 1
        else:  # a game written twice: the first copy's findings are stored, every copy's reported
            assert set(stored) <= set(audited) and len(stored) < len(audited) or stored == audited
    assert exact >= 30


# --------------------------------------------------------------------------- audit and import agree

def _groups(paths: list) -> list[list]:
    """The inputs in groups in which no game is in two files: a dataset stores a game once, so each
    group's findings table must hold exactly what audit says of each of its files."""
    groups: list[tuple[set, list]] = []
    for p in paths:
        games, _ = parse_file(p)
        keys = {game_key(g) for g in games}
        for seen, members in groups:
            if not keys & seen:
                seen |= keys
                members.append(p)
                break
        else:
            groups.append((set(keys), [p]))
    return [m for _, m in groups]


def test_import_stores_every_finding_audit_reports_input_by_input(tmp_path):
    """The golden cases, the sample logs and damaged copies of them: for each input, the rows of the
    dataset's findings table (typed fields included) are the findings of `audit --format json`."""
    import random

    from typer.testing import CliRunner

    from auditor.cli import app
    from tests.conftest import GOLDEN

    golden = sorted(GOLDEN.glob("*/*.pitch"))
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    rng = random.Random(24)
    for f in golden[::5] + sorted(SAMPLE_LOGS.glob("*.pitch")):
        (corpus / f"{f.parent.name}-{f.name}").write_bytes(_mutations(f.read_bytes(), rng))
    inputs = golden + sorted(SAMPLE_LOGS.glob("*.pitch")) + sorted(corpus.glob("*.pitch"))
    groups = _groups(inputs)
    assert len(inputs) > 150 and len(groups) < 6
    seen_codes = set()
    for i, group in enumerate(groups):
        result = CliRunner().invoke(app, ["audit", *map(str, group), "--format", "json"])
        assert result.exit_code in (0, 1), result.output
        audited = json.loads(result.stdout)
        import_paths([str(p) for p in group], tmp_path / f"ds{i}")
        stored = read_table(tmp_path / f"ds{i}", "findings").to_pylist()
        for file in map(str, group):
            said = _json_rows([f for f in audited if f["file"] == file])
            assert _json_rows([r for r in stored if r["file"] == file]) == said, file
            seen_codes |= {s[0] for s in said}
        assert len(stored) == len(audited)
    assert len(seen_codes) > 30  # the corpus exercises most codes, each with its fields
