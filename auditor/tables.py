"""Arrow tables: the schemas, and the game keys.

The schemas are defined once, in ``schemas/tables.json`` at the top of the repository, with
a version and a meaning for every column.  The core compiles that file in and builds and
writes the tables (``core/src/columns.rs``, ``core/src/tables.rs``); this module reads the
same text from the core (``_core.schema_json``), so an installed wheel and a source tree
agree.  Where the tables are stored, and how, is :mod:`auditor.dataset`.
"""

from __future__ import annotations

import json
from collections.abc import Mapping

from ._lazy import lazy

pa = lazy("pyarrow")

from . import _core
from .notation import Game


def load_schema_doc() -> dict:
    """The parsed ``schemas/tables.json``, as the core compiled it in."""
    return json.loads(_core.schema_json())


_DOC = load_schema_doc()
SCHEMA_VERSION: int = _DOC["schema_version"]


class _Schemas(Mapping):
    """Table name to its Arrow schema, built from ``schemas/tables.json`` on first use (pyarrow loads then)."""

    def __init__(self) -> None:
        self._built: dict | None = None

    def _all(self) -> dict:
        if self._built is None:
            types = {
                "string": pa.string(), "bool": pa.bool_(), "int8": pa.int8(), "int16": pa.int16(),
                "int32": pa.int32(), "int64": pa.int64(), "date32": pa.date32(),
                "timestamp": pa.timestamp("us", tz="UTC"), "list<string>": pa.list_(pa.string()),
            }
            self._built = {
                name: pa.schema([pa.field(c, types[t], metadata={"doc": d}) for c, t, d in spec["columns"]],
                                metadata={"doc": spec["doc"], "schema_version": str(SCHEMA_VERSION)})
                for name, spec in _DOC["tables"].items()
            }
        return self._built

    def __getitem__(self, name: str):
        return self._all()[name]

    def __iter__(self):
        return iter(_DOC["tables"])

    def __len__(self) -> int:
        return len(_DOC["tables"])


SCHEMAS: Mapping = _Schemas()
TABLES = tuple(SCHEMAS)


def game_key(game: Game) -> str:
    """The content hash that names a game: the BLAKE2b-128 hash of its canonical text, and nothing else.

    The parser sets it (``Game.key``); a game built in Python has it computed by the core.
    """
    return game.key or _core.game_key(game)


def schema_markdown() -> str:
    """Every table and column with its type and meaning, as Markdown (docs/schema.md)."""
    out = [f"# Dataset schema (version {SCHEMA_VERSION})", "",
           "Made from `schemas/tables.json` at the top of the repository, where every table and column is "
           "declared once: the compiled core carries it (an installed wheel needs no copy beside it), builds "
           "each table as Arrow record batches and writes the Parquet files; `auditor.tables.SCHEMAS` reads "
           "the same text from the core. To change a table, edit that file and regenerate this page.", "",
           _DOC["doc"], ""]
    for name, spec in _DOC["tables"].items():
        out += [f"## `{name}`", "", spec["doc"], "", "| column | type | meaning |", "|---|---|---|"]
        out += [f"| `{c}` | {t} | {d} |" for c, t, d in spec["columns"]]
        out.append("")
    return "\n".join(out)
