"""The Parquet dataset: schemas, idempotent re-import, atomicity under a killed import."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap

import pyarrow.parquet as pq

from auditor.simulate import simulate
from auditor.tables import SCHEMAS, TABLES, import_paths, read_manifest, read_table

from .conftest import NOTATION_EXAMPLE


def snapshot(ds):
    return {t: read_table(ds, t).sort_by([(c, "ascending") for c in ("game_id",)]).to_pylist()
            if t != "games" else sorted(r["game_id"] for r in read_table(ds, t).to_pylist()) for t in TABLES}


def test_every_column_is_documented_and_versioned():
    for name, schema in SCHEMAS.items():
        assert schema.metadata[b"schema_version"] == b"1"
        for f in schema:
            assert f.metadata[b"doc"], (name, f.name)


def test_import_writes_every_table_with_its_schema(tmp_path, example_file):
    stats = import_paths([str(example_file)], tmp_path / "ds")
    assert (stats.games_new, stats.hands) == (1, 1)
    for t in TABLES:
        for f in read_manifest(tmp_path / "ds")["tables"][t]:
            assert pq.read_schema(tmp_path / "ds" / f).remove_metadata() == SCHEMAS[t].remove_metadata()
    plays = read_table(tmp_path / "ds", "plays").to_pylist()
    assert len(plays) == 24
    first = plays[0]
    assert (first["trick"], first["position"], first["player"], first["card"], first["rank"], first["suit"],
            first["trump"], first["trick_winner"]) == (1, 1, "Ann", "AS", "A", "S", True, "Ann")
    findings = read_table(tmp_path / "ds", "findings").to_pylist()
    assert [(f["code"], f["player"], f["line"]) for f in findings] == [("S601", "Cal", 15), ("S601", "Dee", 15)]
    scores = {r["key"]: r["value"] for r in read_table(tmp_path / "ds", "recorded_scores").to_pylist()
              if r["kind"] == "score"}
    assert scores == {"Ann": 3, "Bob": 0, "Cal": 1, "Dee": 0}


def test_reimport_adds_nothing(tmp_path, example_file):
    ds = tmp_path / "ds"
    import_paths([str(example_file)], ds)
    before = snapshot(ds)
    manifest = read_manifest(ds)
    copy = tmp_path / "copy.pitch"
    copy.write_text(NOTATION_EXAMPLE.replace("\n", "\r\n"))  # the same game, written differently
    stats = import_paths([str(example_file), str(copy)], ds)
    assert (stats.games_new, stats.games_skipped) == (0, 2)
    assert read_manifest(ds) == manifest and snapshot(ds) == before


def test_an_import_killed_midway_leaves_the_dataset_as_it_was(tmp_path, example_file):
    ds = tmp_path / "ds"
    import_paths([str(example_file)], ds)
    before = snapshot(ds)
    manifest = (ds / "manifest.json").read_bytes()
    big = tmp_path / "big.pitch"
    text, _ = simulate("auction", games=40, seed=2)
    big.write_text(text)
    # the child flushes a batch every few hands and kills itself with SIGKILL after writing some parts
    script = textwrap.dedent(f"""
        import os, signal
        import auditor.tables as t
        t.BATCH_HANDS = 20
        t.CHUNK_BYTES = 20_000
        write = t._PartWriter.write
        calls = 0
        def write_then_die(self, table):
            global calls
            write(self, table)
            calls += 1
            if calls == 30:
                os.kill(os.getpid(), signal.SIGKILL)
        t._PartWriter.write = write_then_die
        t.import_paths([{str(big)!r}], {str(ds)!r})
    """)
    proc = subprocess.run([sys.executable, "-c", script], capture_output=True)
    assert proc.returncode == -9
    leftovers = [p for p in ds.rglob("*") if p.name.startswith(".part-")]
    assert leftovers, "the child should have been killed while writing"
    assert (ds / "manifest.json").read_bytes() == manifest
    assert snapshot(ds) == before
    # the next import cleans up and completes
    stats = import_paths([str(big)], ds)
    assert stats.games_new == 40
    assert not [p for p in ds.rglob("*") if p.name.startswith(".part-")]
    assert read_table(ds, "games").num_rows == 41


def test_empty_tables_read_back_with_their_schema(tmp_path):
    t = read_table(tmp_path / "nothing", "plays")
    assert t.num_rows == 0 and t.schema.names == SCHEMAS["plays"].names


def test_manifest_names_only_existing_files(tmp_path, example_file):
    ds = tmp_path / "ds"
    import_paths([str(example_file)], ds)
    m = json.loads((ds / "manifest.json").read_text())
    assert m["schema_version"] == 1
    for parts in m["tables"].values():
        for p in parts:
            assert (ds / p).is_file()


def test_jobs_give_the_same_dataset_as_one_process(tmp_path, monkeypatch):
    import re

    import auditor.tables as t

    text, _ = simulate("setback", games=12, seed=8, faults=("revoke", "score"))
    # half the games lose their GameId, so they are named FILE#N and must be numbered across chunks
    text = re.sub(r'\[GameId "sim-setback-8-(\d*[02468])"\]\n', "", text)
    first_game = text.split("\n\n[Event")[0]
    (tmp_path / "logs").mkdir()
    (tmp_path / "logs" / "a.pitch").write_text(text + "\n" + first_game + "\n")  # a repeat at the end
    (tmp_path / "logs" / "b.pitch").write_text(NOTATION_EXAMPLE)
    monkeypatch.setattr(t, "CHUNK_BYTES", 4_000)
    assert len(t.split_file(str(tmp_path / "logs" / "a.pitch"), 4_000)) > 5
    one = t.import_paths([str(tmp_path / "logs")], tmp_path / "one", jobs=1)
    two = t.import_paths([str(tmp_path / "logs")], tmp_path / "two", jobs=2)
    assert (one.games, one.games_new, one.games_skipped) == (two.games, two.games_new, two.games_skipped) == (14, 13, 1)
    for table in TABLES:
        a, b = read_table(tmp_path / "one", table), read_table(tmp_path / "two", table)
        if table == "games":
            a, b = a.drop_columns(["imported_at"]), b.drop_columns(["imported_at"])
        assert a.to_pylist() == b.to_pylist(), table
    names = read_table(tmp_path / "one", "games").column("game").to_pylist()
    assert "a.pitch#2" in names and "a.pitch#12" in names and len(set(names)) == 13
    f1 = sorted((f.source, f.line, f.code, f.game) for f in one.findings)
    assert f1 == sorted((f.source, f.line, f.code, f.game) for f in two.findings) and len(f1) >= 12
