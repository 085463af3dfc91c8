"""Arrow tables: the schemas, and the game keys.

The schemas are defined once, in ``auditor/schemas/tables.json`` (the package
``auditor.schemas``), with a version and a meaning for every column.  The core fills the
tables (``core/src/tables.rs``); Python adds only the findings about files it could not
read.  Where the tables are stored, and how, is :mod:`auditor.dataset`.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from importlib import resources

from ._lazy import lazy

pa = lazy("pyarrow")

from . import _core
from .findings import kind_of, severity_of
from .notation import Finding, Game

def load_schema_doc() -> dict:
    """The parsed ``schemas/tables.json``."""
    return json.loads(resources.files("auditor.schemas").joinpath("tables.json").read_text("utf-8"))


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


@dataclass
class Rows:
    """Column lists for every table, filled row by row (the findings of a file that could not be read)."""

    cols: dict[str, dict[str, list]] = field(default_factory=lambda: {
        t: {f.name: [] for f in s} for t, s in SCHEMAS.items()})

    def add(self, table: str, **values) -> None:
        cols = self.cols[table]
        for name, col in cols.items():
            col.append(values.get(name))

    def __len__(self) -> int:
        return len(self.cols["hands"]["hand"])

    def to_arrow(self) -> dict[str, pa.Table]:
        return {t: pa.table({k: pa.array(v, type=SCHEMAS[t].field(k).type) for k, v in cols.items()},
                            schema=SCHEMAS[t]) for t, cols in self.cols.items()}


def add_finding(rows: Rows, f: Finding, game_id: str | None) -> None:
    """One row of the findings table."""
    rows.add("findings", game_id=game_id, game=f.game or None, code=f.code, kind=kind_of(f.code),
             severity=severity_of(f.code), file=f.source, line=f.line, column=f.column, hand=f.hand,
             trick=f.trick, player=f.subject, message=f.message, expected=f.expected, recorded=f.recorded)


def schema_markdown() -> str:
    """Every table and column with its type and meaning, as Markdown (docs/schema.md)."""
    out = [f"# Dataset schema (version {SCHEMA_VERSION})", "", _DOC["doc"], ""]
    for name, spec in _DOC["tables"].items():
        out += [f"## `{name}`", "", spec["doc"], "", "| column | type | meaning |", "|---|---|---|"]
        out += [f"| `{c}` | {t} | {d} |" for c, t, d in spec["columns"]]
        out.append("")
    return "\n".join(out)
