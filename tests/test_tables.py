"""Arrow schemas and the rows an audited game contributes."""

from __future__ import annotations

import pyarrow.parquet as pq

from auditor.dataset import import_paths, read_table, table_files
from auditor.tables import SCHEMAS, TABLES


def test_every_column_is_documented_and_versioned():
    for name, schema in SCHEMAS.items():
        assert schema.metadata[b"schema_version"] == b"1"
        for f in schema:
            assert f.metadata[b"doc"], (name, f.name)


def test_import_writes_every_table_with_its_schema(tmp_path, example_file):
    stats = import_paths([str(example_file)], tmp_path / "ds")
    assert (stats.games_new, stats.hands) == (1, 1)
    for t in TABLES:
        for f in table_files(tmp_path / "ds", t):
            assert pq.read_schema(f).remove_metadata() == SCHEMAS[t].remove_metadata()
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
    recomputed = {r["side"]: (r["score"], r["points"], r["count"]) for r in
                  read_table(tmp_path / "ds", "hand_scores").to_pylist()}
    assert recomputed == {"Ann": (3, 3, 18), "Bob": (0, 0, 6), "Cal": (0, 0, 16), "Dee": (1, 1, 0)}


def test_empty_tables_read_back_with_their_schema(tmp_path):
    t = read_table(tmp_path / "nothing", "plays")
    assert t.num_rows == 0 and t.schema.names == SCHEMAS["plays"].names
