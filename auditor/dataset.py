"""The dataset on disk, and the pipeline that fills it: chunks, the core's threads, a Dask cluster.

Layout (Hive-partitioned Parquet, append-only)::

    DATASET/current -> gens/7                     the published state: a symlink, swapped in one rename
    DATASET/gens/7/manifest.json                  its batches, with their games, hands and findings counts
    DATASET/gens/7/batch=<id>/<table>.parquet     hard links to the stored files
    DATASET/store/<id>/<table>.parquet            immutable batch files, named by content hash
    DATASET/staging/                              batches being written

Readers glob ``DATASET/current/batch=*/<table>.parquet``: they see one generation or the
next, never half of one.  An import stages its batches, moves them into the store, builds
the next generation out of hard links and swaps ``current``.  Killed at any point, it
leaves ``current`` as it was; its left-overs are swept by the next import.  Games are keyed
by the hash of their canonical text, so importing the same game twice adds nothing;
``auditor compact`` merges small batches into one.

Work is cut into tasks (a file, or a chunk of a large file cut at a game boundary; small
files grouped to about :data:`CHUNK_BYTES`).  A task parses, audits and writes a staged
batch; the same task runs in this process, on ``jobs`` threads of the core, or on a Dask
cluster (``scheduler``), so the two give the same dataset.  No worker process is started
for a local run: killing an import leaves nothing running.
"""

from __future__ import annotations

import datetime as dt
import errno
import fcntl
import hashlib
import json
import os
import re
import shutil
import stat
import sys
import tempfile
import uuid
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from pathlib import Path

from ._lazy import lazy

pa = lazy("pyarrow")
pc = lazy("pyarrow.compute")
pq = lazy("pyarrow.parquet")

from . import _core
from .engine import rules_resolver
from .notation import Finding, _not_text, expand_paths
from .tables import SCHEMA_VERSION, SCHEMAS, TABLES, load_schema_doc

CHUNK_BYTES = 32 << 20  # input bytes per task (one staged batch each; the core's threads share a task)
KEEP_GENERATIONS = 2  # a reader that opened the previous generation can finish its query
# Tables computed from a batch's other tables by a `summarize` callable, not by the tasks
# ("derived" in schemas/tables.json): the pipeline never writes them itself.
DERIVED = tuple(t for t, spec in load_schema_doc()["tables"].items() if spec.get("derived"))

Summarize = Callable[[Path], None]
#: Told the bytes read and the hands audited so far, as they grow.
Progress = Callable[[int, int], None]
#: The least time between two calls of a ``progress`` from the core, in seconds (a bar redraws ten times a second).
PROGRESS_EVERY = 0.1


class DatasetError(OSError):
    """The dataset could not be read or written (unwritable path, full disk, ...)."""


# --------------------------------------------------------------------------- the manifest and each batch's record

MANIFEST = "manifest.json"  # a generation's list of batches, with their counts and file checksums
RECORD = "batch.json"  # a stored batch's own record: its manifest entry, kept beside its files
LOST = "lost+found"  # batches `auditor check --repair` took out of the dataset: kept, never read or swept
CHECK_RECORD = "check.json"  # `auditor check`'s last verdict: the readers warn while it found problems
# what a batch's record and its manifest entry hold besides the checksums; the same in both, so
# either is rebuilt from the other, byte for byte
RECORD_KEYS = ("games", "hands", "files", "schema_version", "generation", "replaces")


def _digest(record: dict) -> str:
    body = json.dumps(record, sort_keys=True, separators=(",", ":"), ensure_ascii=True).encode()
    return hashlib.blake2b(body, digest_size=16).hexdigest()


def seal(record: dict) -> bytes:
    """``record`` as JSON carrying the checksum of its own content: a flipped bit or a cut is found.

    The same record always gives the same bytes, so a lost copy is rewritten as it was."""
    return (json.dumps({**record, "checksum": _digest(record)}, sort_keys=True, indent=1,
                       ensure_ascii=True) + "\n").encode()


def unseal(data: bytes, need_seal: bool = True) -> dict:
    """The record :func:`seal` wrote; ValueError if it is not one, or not as written.

    ``need_seal`` false accepts a manifest written before manifests carried their checksum."""
    try:
        record = json.loads(data)
    except (ValueError, UnicodeDecodeError) as e:  # JSONDecodeError is a ValueError
        raise ValueError(f"not JSON ({e})") from None
    if not isinstance(record, dict):
        raise ValueError("not a JSON object")
    digest = record.pop("checksum", None)
    if digest is None and need_seal:
        raise ValueError("it carries no checksum")
    if digest is not None and digest != _digest(record):
        raise ValueError("its checksum does not match its content")
    return record


def _entry_problem(entry: object) -> str | None:
    """What is wrong with a manifest entry or batch record, if anything (types and ranges)."""
    if not isinstance(entry, dict):
        return "an entry that is not an object"
    for key in ("games", "hands"):
        if not isinstance(entry.get(key, 0), int) or entry.get(key, 0) < 0:
            return f"{key} is not a count"
    if not all(isinstance(f, str) for f in entry.get("files", [])) or not isinstance(entry.get("files", []), list):
        return "files is not a list of paths"
    sums = entry.get("checksums", {})
    if not isinstance(sums, dict) or not all(isinstance(k, str) and "/" not in k and isinstance(v, str)
                                             for k, v in sums.items()):
        return "checksums is not a map of file names to checksums"
    if not isinstance(entry.get("replaces", []), list):
        return "replaces is not a list of batches"
    return None


def parse_manifest(data: bytes, n: int) -> dict:
    """Generation ``n``'s manifest from its bytes; ValueError saying what is wrong with it."""
    manifest = unseal(data, need_seal=False)
    batches = manifest.get("batches")
    if not isinstance(batches, dict):
        raise ValueError("it names no batches")
    if manifest.get("generation") != n:
        raise ValueError(f"it names generation {manifest.get('generation')!r}, its folder is {n}")
    if not isinstance(manifest.get("schema_version", 1), int):
        raise ValueError("its schema version is not a number")
    for batch, entry in batches.items():
        why = _entry_problem(entry)
        if why is not None or not re.fullmatch(r"[0-9A-Za-z_.-]+", batch) or batch.startswith("."):
            raise ValueError(f"its entry for batch {batch!r} is damaged ({why or 'not a batch name'})")
    return manifest


def load_manifest(path: Path, n: int, root: str | Path | None = None) -> dict:
    """Generation ``n``'s manifest; :class:`DatasetError` (asking for ``check --repair``) when it is damaged."""
    try:
        return parse_manifest(path.read_bytes(), n)
    except (OSError, ValueError) as e:
        raise damaged(root, path, e) from None


def damaged(root: str | Path | None, path: Path, e: BaseException) -> DatasetError:
    """The error a reader or writer gives for a damaged file of the dataset: what, and how to mend it."""
    why = e.strerror if isinstance(e, OSError) and e.strerror else str(e)
    where = f" {root}" if root is not None else ""
    return DatasetError(errno.EIO, f"the dataset{where} is damaged: {path} cannot be read ({why}); "
                        f"run `auditor check --repair{where}`")


def read_record(folder: Path) -> dict | None:
    """A stored batch's record (``batch.json``), or None when it is missing or damaged."""
    try:
        record = unseal((folder / RECORD).read_bytes())
    except (OSError, ValueError):
        return None
    if _entry_problem(record) is not None or record.get("batch") != folder.name.removeprefix("batch=") \
            or not isinstance(record.get("generation"), int) or not isinstance(record.get("checksums"), dict):
        return None
    return record


def record_of(batch: str, entry: dict) -> dict:
    """The record a batch carries for its manifest entry (the checksums of its table files, not its own)."""
    record = {k: entry[k] for k in RECORD_KEYS if k in entry}
    record.setdefault("files", [])
    record.setdefault("replaces", [])
    record["batch"] = batch
    record["checksums"] = {k: v for k, v in entry.get("checksums", {}).items() if k != RECORD}
    return record


def entry_of(record: dict, record_checksum: str) -> dict:
    """The manifest entry of a batch with this record (its checksums name the record file too)."""
    entry = {k: record[k] for k in RECORD_KEYS if k in record}
    entry["checksums"] = {**record["checksums"], RECORD: record_checksum}
    return entry


def write_record(folder: Path, batch: str, entry: dict, checksums: dict[str, str] | None = None) -> dict:
    """Write ``folder``'s record (atomically) for ``entry``; returns the batch's manifest entry.

    ``checksums`` are those recorded for its table files when they were written; without them,
    each file's as it is now (a batch being stored)."""
    record = record_of(batch, entry)
    record["checksums"] = {k: v for k, v in checksums.items() if k != RECORD} if checksums is not None else \
        {f.name: file_checksum(f) for f in sorted(folder.iterdir())
         if f.suffix == ".parquet" and not f.name.startswith(".")}
    data = seal(record)
    write_file_atomic(folder / RECORD, data)
    return entry_of(record, hashlib.blake2b(data, digest_size=16).hexdigest())


# --------------------------------------------------------------------------- reading


def current(root: str | Path) -> Path | None:
    """The published generation's folder, or None for an empty or new dataset."""
    link = Path(root) / "current"
    return link.resolve() if link.exists() else None


def read_manifest(root: str | Path) -> dict:
    """The published generation's manifest (an empty one for a new dataset).

    Raises :class:`DatasetError` when the dataset is damaged: a ``current`` that names no
    generation, or a manifest that is missing, cut short or not what was written.
    """
    root = Path(root)
    link = root / "current"
    if not link.is_symlink() and not link.exists():
        return {"schema_version": SCHEMA_VERSION, "generation": 0, "batches": {}}
    if link.is_dir() and not link.is_symlink():  # a copy that followed the link: read as the generation it copied
        try:
            n = json.loads((link / MANIFEST).read_bytes()).get("generation")
        except (OSError, ValueError, AttributeError):
            n = None
        if isinstance(n, int):
            return load_manifest(link / MANIFEST, n, root)
    n = generation_of(root)
    if n is None:
        raise DatasetError(errno.EIO, f"the dataset {root} is damaged: its `current` link names no complete "
                           f"generation; run `auditor check --repair {root}`")
    return load_manifest(root / "gens" / str(n) / MANIFEST, n, root)


def require_readable(root: str | Path) -> None:
    """:class:`DatasetError` (asking for ``auditor check --repair``) when the dataset's published state cannot
    be read: ``current`` lost or dangling, its manifest damaged.  A new dataset is readable (and empty)."""
    root = Path(root)
    link = root / "current"
    if not link.exists() and not link.is_symlink() and ((root / "gens").is_dir() or (root / "store").is_dir()):
        raise DatasetError(errno.EIO, f"the dataset {root} is damaged: it has generations but no `current` link; "
                           f"run `auditor check --repair {root}`")
    read_manifest(root)


def table_glob(root: str | Path, table: str) -> str:
    """The glob readers use for one table (through the ``current`` link)."""
    return str(Path(root) / "current" / "batch=*" / f"{table}.parquet")


def table_files(root: str | Path, table: str) -> list[Path]:
    """The files of one table in the published generation."""
    gen = current(root)
    if gen is None:
        return []
    return sorted(p for p in gen.glob(f"batch=*/{table}.parquet"))


def read_table(root: str | Path, table: str, columns: list[str] | None = None) -> pa.Table:
    """One table as a single Arrow table (empty, with its schema, when it has no rows)."""
    schema = SCHEMAS[table]
    if columns:
        schema = pa.schema([schema.field(c) for c in columns], metadata=schema.metadata)
    files = table_files(root, table)
    if not files:
        return schema.empty_table()
    return pa.concat_tables([_read_parquet(root, f, columns, schema) for f in files])


def _read_parquet(root: str | Path, path: Path, columns: list[str] | None, schema: pa.Schema) -> pa.Table:
    """One published file; a file that cannot be read (damaged, cut short) is a :class:`DatasetError`."""
    try:
        return pq.read_table(path, columns=columns, schema=schema)
    except (pa.ArrowException, OSError) as e:
        raise damaged(root, path, e) from None


# file identity -> whether it has every column of its table's current schema. Batch files are
# immutable (a changed batch is a new file), so each footer is read once, not at every query.
_COLUMNS_CHECKED: dict[tuple[int, int, int, int], bool] = {}


def has_current_columns(path: Path, table: str) -> bool:
    """Whether the Parquet file ``path`` has every column of ``table`` in the current schema.

    A batch written under an older schema version lacks the columns added since.
    """
    st = path.stat()
    key = (st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns)
    if key not in _COLUMNS_CHECKED:
        try:
            names = pq.read_schema(path).names
        except (pa.ArrowException, OSError) as e:
            raise damaged(None, path, e) from None
        _COLUMNS_CHECKED[key] = set(SCHEMAS[table].names) <= set(names)
    return _COLUMNS_CHECKED[key]


def conform(table: pa.Table, name: str) -> pa.Table:
    """``table`` with the columns of the current schema of ``name``: a column a batch of an older
    schema version lacks is null."""
    schema = SCHEMAS[name]
    if table.schema.names == schema.names and table.schema.remove_metadata() == schema.remove_metadata():
        return table
    cols = [table.column(f.name).cast(f.type) if f.name in table.schema.names
            else pa.nulls(table.num_rows, f.type) for f in schema]
    return pa.Table.from_arrays(cols, schema=schema)


def batch_schema_versions(root: str | Path) -> dict[str, int]:
    """The schema version each published batch was written under (1: before versions were recorded)."""
    return {b: int(e.get("schema_version", 1)) for b, e in read_manifest(root)["batches"].items()}


def known_game_ids(root: str | Path) -> set[str]:
    """Keys of the games already in the dataset."""
    return set(read_table(root, "games", ["game_id"]).column("game_id").to_pylist())


# --------------------------------------------------------------------------- writing


def _fsync_dir(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def write_file_atomic(path: Path, data: bytes) -> None:
    """Write through a temporary file, fsync, rename (over whatever is there: a link is replaced, never
    followed); a write that fails leaves no temporary file behind."""
    tmp = path.with_name(f".{path.name}.{uuid.uuid4().hex}.tmp")
    try:
        with open(tmp, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except OSError:
        tmp.unlink(missing_ok=True)
        raise


CHECK_RECORD_MOST = 1 << 20  # a verdict is a few kilobytes: past this the file is not one


def write_check_record(root: Path, generation: int | None, problems: list[dict]) -> None:
    """Keep ``auditor check``'s verdict in ``root/check.json``: the generation looked at, when, the problems.
    A dataset that cannot be written to (read-only media, a folder in the way) keeps none."""
    record = {"generation": generation, "checked_at": dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds"),
              "problems": problems}
    try:
        write_file_atomic(root / CHECK_RECORD, (json.dumps(record, indent=2) + "\n").encode("utf-8"))
    except OSError:
        pass


def read_check_record(root: Path) -> tuple[str, list[dict]] | None:
    """The last verdict of ``auditor check`` on ``root``: (when, its problems), or None when there is none that
    reads (never a link, a pipe or a device: reading one could wait forever)."""
    path = root / CHECK_RECORD
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    except OSError:
        return None
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return None
        record = json.loads(os.read(fd, CHECK_RECORD_MOST))
    except (OSError, ValueError):
        return None
    finally:
        os.close(fd)
    if not isinstance(record, dict) or not isinstance(record.get("problems"), list):
        return None
    return str(record.get("checked_at", "?")), [p for p in record["problems"] if isinstance(p, dict)]


@contextmanager
def locked(root: Path) -> Iterator[None]:
    """One writer at a time per dataset (readers never wait)."""
    try:
        root.mkdir(parents=True, exist_ok=True)
        lock = open(root / ".lock", "w")
    except OSError as e:
        raise DatasetError(e.errno, f"cannot write the dataset {root}: {e.strerror}") from None
    with lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)


class BatchWriter:
    """Streams every table of one batch into a staging folder, row group by row group.

    An import's tables are written by the core (:meth:`files`: its workers encode each
    piece's row groups); rows read back from other batches (compact, a batch filtered) are
    written through pyarrow (:meth:`write`).  A table is written one way or the other.
    """

    def __init__(self, staging: Path, derived: bool = False):
        self.dir = staging / f"tmp-{uuid.uuid4().hex}"
        self.dir.mkdir(parents=True)
        self.writers: dict[str, pq.ParquetWriter] = {}
        self.rows = {t: 0 for t in TABLES}
        self.derived = derived
        self._files: _core.BatchFiles | None = None

    def files(self) -> _core.BatchFiles:
        """The core's writers of this batch's files (with ``derived``, the counters too, which the
        core computes from the same audit)."""
        if self._files is None:
            self._files = _core.BatchFiles(self.dir, self.derived)
        return self._files

    def write(self, tables: dict[str, pa.Table]) -> None:
        for t, table in tables.items():
            if table.num_rows:
                if t not in self.writers:
                    self.writers[t] = pq.ParquetWriter(self.dir / f"{t}.parquet", SCHEMAS[t], compression="zstd")
                self.writers[t].write_table(table)
                self.rows[t] += table.num_rows

    def close(self) -> str | None:
        """Finish the files and name the folder by the hash of its content; None when it holds nothing."""
        for w in self.writers.values():
            w.close()
        if self._files is not None:
            for t, n in self._files.close():
                self.rows[t] += n
        if not any(self.rows.values()):
            shutil.rmtree(self.dir, ignore_errors=True)
            return None
        h = hashlib.blake2b(digest_size=16)
        for f in sorted(self.dir.glob("*.parquet")):  # the files pyarrow and the core wrote
            with open(f, "rb") as fh:
                for block in iter(lambda: fh.read(1 << 20), b""):
                    h.update(block)
                os.fsync(fh.fileno())
        batch = h.hexdigest()
        final = self.dir.with_name(batch)
        if final.exists():  # the same content staged by a retried task
            shutil.rmtree(self.dir, ignore_errors=True)
        else:
            os.replace(self.dir, final)
        return batch

    def abort(self) -> None:
        for w in [*self.writers.values(), *([self._files] if self._files is not None else [])]:
            try:
                w.close()
            except Exception:  # noqa: BLE001 - cleaning up after a failure already being raised
                pass
        shutil.rmtree(self.dir, ignore_errors=True)


def file_checksum(path: Path) -> str:
    """The BLAKE2b-128 of a file's bytes, as the manifest records it for every batch file."""
    h = hashlib.blake2b(digest_size=16)
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def generation_of(root: Path) -> int | None:
    """The number of the generation ``current`` names (0: no ``current`` link); None if it is dangling."""
    link = root / "current"
    if not link.is_symlink() and not link.exists():
        return 0
    target = Path(os.readlink(link)) if link.is_symlink() else link
    if not (root / target / MANIFEST).is_file() or not target.name.isdigit():
        return None
    return int(target.name)


def recover(root: Path) -> list[Path]:
    """Undo what an interrupted publish left (the caller holds the lock); returns what it removed.

    A generation above the published one was built but never published: ``current`` still
    names the one before, which readers kept seeing.  It is rolled back, with any half-built
    generation and temporary link; the store's unreferenced batches go with the next sweep.
    A damaged dataset (a dangling ``current``, a published manifest that does not read as
    written) is not guessed at: :class:`DatasetError` (``auditor check --repair``), before
    anything is touched.
    """
    published = generation_of(root)
    gens = root / "gens"
    if published is None:
        raise DatasetError(errno.EIO, f"the dataset {root} is damaged: its `current` link names no complete "
                           f"generation; run `auditor check --repair {root}` first")
    if published:
        load_manifest(gens / str(published) / MANIFEST, published, root)
    numbers = sorted(int(p.name) for p in gens.iterdir() if p.name.isdigit()) if gens.is_dir() else []
    if published == 0 and numbers and numbers != [1]:
        raise DatasetError(errno.EIO, f"the dataset {root} is damaged: it has generations but no `current` link; "
                           f"run `auditor check --repair {root}` first")
    removed: list[Path] = []
    for p in sorted(gens.iterdir()) if gens.is_dir() else ():
        if (p.name.isdigit() and int(p.name) > published) or p.name.startswith("."):
            shutil.rmtree(p)
            removed.append(p)
    for p in root.glob(".current.*"):
        p.unlink()
        removed.append(p)
    if removed:
        _fsync_dir(gens)
    return removed


def publish(root: Path, new: dict[str, dict], drop: Iterable[str] = ()) -> int:
    """Move staged batches into the store and publish the next generation; returns its number.

    ``new`` maps batch ids (folders under ``staging/``) to their manifest entries; ``drop``
    names published batches the new generation leaves out (``compact``, a new version of a
    game).  The caller holds the dataset's lock.  The protocol (docs/dataset.md): every file
    and folder reaches the disk before the one rename of ``current`` publishes it; what an
    interrupted run leaves is rolled back by the next writer (:func:`recover`, through
    :func:`_tidy`, which the caller runs first).

    Each new batch carries its record (``batch.json``, written before it enters the store):
    its manifest entry, with the generation that published it and the batches it replaces,
    so that a lost or damaged manifest is rebuilt from the batches (``auditor check --repair``).
    """
    manifest = read_manifest(root)
    gen = manifest["generation"] + 1
    dropped = set(drop)
    batches = {k: v for k, v in manifest["batches"].items() if k not in dropped}
    store = root / "store"
    for batch, entry in batches.items():  # what the new generation links to is there, before anything moves
        folder = store / batch
        missing = [folder] if not folder.is_dir() else [folder / n for n in entry.get("checksums") or ()
                                                         if not (folder / n).is_file()]
        if missing:
            raise damaged(root, missing[0], FileNotFoundError(errno.ENOENT, "No such file or directory"))
    store.mkdir(exist_ok=True)
    for batch, entry in new.items():
        target = store / batch
        staged = root / "staging" / batch
        entry = {**entry, "generation": gen, "replaces": sorted(dropped)}
        if target.exists():  # the same content, stored before: it keeps the record it was stored with
            shutil.rmtree(staged, ignore_errors=True)
            record = read_record(target)
            batches[batch] = write_record(target, batch, entry) if record is None else \
                entry_of(record, file_checksum(target / RECORD))
        else:
            batches[batch] = write_record(staged, batch, entry)
            _fsync_dir(staged)
            os.replace(staged, target)
    for batch, entry in batches.items():  # a batch stored before batches had records gets its own
        if RECORD not in entry.get("checksums", {}) and (store / batch).is_dir():
            batches[batch] = write_record(store / batch, batch, {"generation": manifest["generation"], **entry},
                                          entry.get("checksums"))
    _fsync_dir(store)
    build_generation(root, gen, batches)
    swap_current(root, gen)
    _sweep(root)
    return gen


def verify_batch(root: Path, folder: Path, entry: dict) -> None:
    """Every file of a published batch reads as its manifest entry recorded; else :class:`DatasetError`."""
    for name, recorded in (entry.get("checksums") or {}).items():
        try:
            now = file_checksum(folder / name)
        except OSError as e:
            raise damaged(root, folder / name, e) from None
        if now != recorded:
            raise damaged(root, folder / name, ValueError("its checksum differs from the one recorded when it "
                                                          "was written"))


def build_generation(root: Path, gen: int, batches: dict[str, dict]) -> None:
    """Build generation ``gen`` of ``batches`` (stored, with their manifest entries) aside, then rename it
    into ``gens/``: a folder of hard links per batch, each fsynced, then its manifest."""
    store, gens = root / "store", root / "gens"
    gens.mkdir(exist_ok=True)
    building = gens / f".{gen}.{uuid.uuid4().hex}"
    building.mkdir()
    for batch, entry in batches.items():
        part = building / f"batch={batch}"
        part.mkdir()
        # the files the entry names (a batch of an old version names none: all of them), never a temporary file
        names = sorted(entry.get("checksums") or (f.name for f in (store / batch).iterdir()
                                                  if not f.name.startswith(".")))
        for name in names:
            os.link(store / batch / name, part / name)
        _fsync_dir(part)
    write_file_atomic(building / MANIFEST, seal({"schema_version": SCHEMA_VERSION, "generation": gen,
                                                 "batches": batches}))
    _fsync_dir(building)
    os.replace(building, gens / str(gen))
    _fsync_dir(gens)


def swap_current(root: Path, gen: int) -> None:
    """Point ``current`` at generation ``gen``: the one step that publishes it."""
    link = root / f".current.{uuid.uuid4().hex}"
    os.symlink(Path("gens") / str(gen), link)
    os.replace(link, root / "current")
    _fsync_dir(root)


def _sweep(root: Path) -> None:
    """Remove what no kept generation needs: old generations, unreferenced batches, staging left-overs."""
    gens = root / "gens"
    numbers = sorted(int(p.name) for p in gens.iterdir() if p.name.isdigit())
    keep = numbers[-KEEP_GENERATIONS:]
    for p in gens.iterdir():
        if not (p.name.isdigit() and int(p.name) in keep):
            shutil.rmtree(p, ignore_errors=True)
    used = set()
    for n in keep:
        used |= {p.name.removeprefix("batch=") for p in (gens / str(n)).glob("batch=*")}
    store = root / "store"
    for p in store.iterdir() if store.exists() else ():
        if p.name not in used:
            shutil.rmtree(p, ignore_errors=True)
    for p in root.glob(".current.*"):
        p.unlink(missing_ok=True)


def _clear_staging(root: Path) -> None:
    shutil.rmtree(root / "staging", ignore_errors=True)


def _tidy(root: Path) -> None:
    """What an interrupted writer left, undone by the next one before it writes (the caller holds the lock)."""
    recover(root)
    _clear_staging(root)
    if generation_of(root):
        _sweep(root)


# --------------------------------------------------------------------------- tasks


@dataclass(frozen=True)
class Chunk:
    """A piece of one input: a whole file, a byte range of a large file cut at a game boundary, or stdin.

    ``first_game`` is how many games of the file come before the chunk (for ``FILE#N`` names).
    """

    path: str
    start: int = 0
    end: int = -1  # -1: to the end
    first_line: int = 1
    first_game: int = 0




def split_file(path: str, chunk_bytes: int) -> list[Chunk]:
    """Cut a file into chunks of about ``chunk_bytes``, each starting at a game's first tag line.

    A cut goes before a tag line that follows some other statement; counting such lines
    numbers the games as the parser does (a game also starts at a repeated tag name, which
    the tasks detect: see :func:`run_tasks`). The core reads the file.
    """
    return [Chunk(path, start, end, line, games) for start, end, line, games in _core.split_file(path, chunk_bytes)]


@dataclass
class TaskResult:
    """What a task gives back to the coordinator: small, whatever the size of the input."""

    chunks: list[Chunk]
    games_per_chunk: list[int]
    batch: str | None  # staged batch id (None: nothing written, or not writing)
    games_read: int = 0
    # every game read when writing: (key, stored in the batch, the key versions 1 and 2 gave it where other)
    games: list[tuple[str, bool, str | None]] = field(default_factory=list)
    # (game key, finding) of every game read, each copy where it stands (as `audit` reports them)
    findings: list[tuple[str | None, Finding]] = field(default_factory=list)
    findings_stored: int = 0  # rows the batch's findings table holds
    hands: int = 0
    cards: int = 0
    unscored: int = 0  # hands with tricks whose score could not be recomputed
    bytes: int = 0


def _sniff(chunk: Chunk, source: str) -> Finding | None:
    """The E109 for a file that is not text (only a chunk that starts the file is sniffed)."""
    if chunk.start != 0:
        return None
    with open(chunk.path, "rb") as f:
        return _not_text(f.read(_core.SNIFF_BYTES), source)


def audit_chunk(chunk: Chunk, source: str, override: str, jobs: int, out: TaskResult,
                progress: Progress | None = None) -> int:
    """Parse and audit one chunk in the core on ``jobs`` threads; its findings and counts go to ``out``.
    ``progress`` is told the chunk's bytes and hands done as the core reads it."""
    binary = _sniff(chunk, source)
    if binary is not None:
        out.findings.append((None, binary))
        return 0
    found, games, hands, cards, unscored, nbytes = _core.audit_file(
        chunk.path, chunk.start, chunk.end, chunk.first_line, chunk.first_game, jobs,
        rules_resolver(override), source, progress, PROGRESS_EVERY)
    out.findings.extend((None, f) for f in found)
    out.games_read += games
    out.hands += hands
    out.cards += cards
    out.unscored += unscored
    out.bytes += nbytes
    return games


def import_chunk(chunk: Chunk, source: str, override: str, jobs: int, writer: BatchWriter, now: dt.datetime,
                 out: TaskResult, keys: _core.GameKeys, progress: Progress | None = None, analyze: bool = False,
                 keep_findings: bool = True) -> int:
    """Parse, audit and write one chunk's tables in the core on ``jobs`` threads; returns its games.

    Each game is stored once: one ``keys`` holds (already in the dataset, or stored earlier in
    the run) is read, audited and reported, not stored again.  With ``analyze``, also the
    chunk's ``analysis`` rows (perfect play, card by card), from the same parse.  Without
    ``keep_findings`` the findings are counted, not kept (an import of any size in bounded memory).
    """
    binary = _sniff(chunk, source)
    if binary is not None:
        writer.files().write_findings([binary])
        out.findings.append((None, binary))
        out.findings_stored += 1
        return 0
    found, games, stored, n, hands, cards, unscored, nbytes = _core.import_file(
        chunk.path, chunk.start, chunk.end, chunk.first_line, chunk.first_game, jobs,
        rules_resolver(override), writer.files(), keys, int(now.timestamp() * 1_000_000), source, analyze,
        keep_findings, progress, PROGRESS_EVERY)
    out.findings.extend(found)
    out.games.extend(games)
    out.games_read += n
    out.findings_stored += stored
    out.hands += hands
    out.cards += cards
    out.unscored += unscored
    out.bytes += nbytes
    return n


@contextmanager
def _readable(chunk: Chunk) -> Iterator[tuple[Chunk, str]]:
    """The chunk as a file the core can read, and its name in findings: standard input is copied
    to a temporary file first (a block at a time)."""
    if chunk.path != "-":
        yield chunk, chunk.path
        return
    with tempfile.NamedTemporaryFile(prefix="auditor-stdin-", suffix=".pitch") as tmp:
        stdin = getattr(sys.stdin, "buffer", None)
        if stdin is not None:
            shutil.copyfileobj(stdin, tmp, 1 << 20)
        else:  # no Python stream (a daemon): the descriptor itself
            with os.fdopen(os.dup(0), "rb") as raw:
                shutil.copyfileobj(raw, tmp, 1 << 20)
        tmp.flush()
        yield replace(chunk, path=tmp.name), "<stdin>"


def run_task(chunks: list[Chunk], override: str = "", staging: str | None = None, analyze: bool = False,
             derived: bool = False, *,
             jobs: int = 1, progress: Progress | None = None, keys: _core.GameKeys | None = None,
             keep_findings: bool = True, house: list | None = None) -> TaskResult:
    """Parse and audit some chunks in the core on ``jobs`` threads; write their tables as one staged
    batch when ``staging`` is given (with ``analyze``, its ``analysis`` rows too; with ``derived``, the
    counters), each game once:
    ``keys`` are the games met before (a local run shares them; a Dask task starts afresh and the
    coordinator filters).  ``progress`` is told the task's bytes and hands done as the core
    reads them (a local run: a Dask worker has nobody to tell).  ``house`` are the house presets
    of the coordinator's configuration (``_core.house_presets()``), defined first in a worker's
    process so its parser and resolver know them as the coordinator does."""
    if house is not None:
        _core.define_house_presets(house)
    now = dt.datetime.now(dt.timezone.utc)
    out = TaskResult(chunks, [], None)
    writer = BatchWriter(Path(staging), derived) if staging else None
    keys = keys if keys is not None else _core.GameKeys()
    try:
        for chunk in chunks:
            # the chunk's own counts, after those of the task's chunks before it
            within = None if progress is None else \
                lambda nbytes, hands, b=out.bytes, h=out.hands: progress(b + nbytes, h + hands)
            try:
                with _readable(chunk) as (readable, source):
                    if writer is not None:
                        games = import_chunk(readable, source, override, jobs, writer, now, out, keys, within,
                                             analyze, keep_findings)
                    else:
                        games = audit_chunk(readable, source, override, jobs, out, within)
            except OSError as e:
                f = _core.path_finding("Unreadable", chunk.path, str(e.strerror or e))
                if writer is not None:
                    writer.files().write_findings([f])
                    out.findings_stored += 1
                out.findings.append((None, f))
                games = 0
            out.games_per_chunk.append(games)
        out.batch = writer.close() if writer is not None else None
    except BaseException:
        if writer is not None:
            writer.abort()
        raise
    return out


def _splittable(path: str) -> bool:
    """Whether a file is text worth cutting at game boundaries: one that is not text (or cannot be
    opened) is one chunk, reported from its first bytes, and never read whole."""
    try:
        return _sniff(Chunk(path), path) is None
    except OSError:
        return False


def plan_tasks(files: list[str], chunk_bytes: int) -> list[list[Chunk]]:
    """Chunks grouped into tasks of about ``chunk_bytes``: big files split, small files together."""
    tasks: list[list[Chunk]] = []
    group: list[Chunk] = []
    size = 0
    for f in files:
        if f == "-" or not os.path.isfile(f) or not _splittable(f):
            tasks.append([Chunk(f)])
            continue
        for c in split_file(f, chunk_bytes):
            n = (c.end if c.end >= 0 else os.path.getsize(f)) - c.start
            if group and size + n > chunk_bytes:
                tasks.append(group)
                group, size = [], 0
            group.append(c)
            size += n
    if group:
        tasks.append(group)
    return tasks


# --------------------------------------------------------------------------- the pipeline


@dataclass
class ImportStats:
    """What an import (or an audit run) read and wrote."""

    files: int = 0
    games: int = 0
    games_new: int = 0
    games_skipped: int = 0
    hands: int = 0
    cards: int = 0
    unscored: int = 0  # hands whose score could not be recomputed (see the findings on them)
    batches: int = 0
    generation: int = 0
    findings_stored: int = 0
    games_replaced: int = 0
    findings: list[Finding] = field(default_factory=list)
    games_by_file: dict[str, int] = field(default_factory=dict)  # every file read, and the games it gave


class _Runner:
    """Runs tasks on a Dask cluster; yields results in task order.

    Local runs need no worker process: the core parses, audits and fills the columns on
    threads of this one, so killing an import leaves nothing running behind it.
    """

    def __init__(self, jobs: int, scheduler: str | None):
        self.jobs, self.scheduler = jobs, scheduler

    def run(self, tasks: list[list[Chunk]], args: tuple) -> Iterator[TaskResult]:
        yield from self._dask(tasks, args)

    def _dask(self, tasks: list[list[Chunk]], args: tuple) -> Iterator[TaskResult]:
        try:
            from distributed import Client
        except ImportError:
            raise DatasetError(errno.ENOENT, "--scheduler needs Dask: install the project with its `dask` extra "
                               "(pip install -e '.[dask]')") from None
        try:
            client = Client(self.scheduler, timeout="10s") if isinstance(self.scheduler, str) else self.scheduler
        except (OSError, ValueError, TimeoutError) as e:
            raise DatasetError(errno.ECONNREFUSED, f"cannot reach the Dask scheduler {self.scheduler}: {e}") from None
        try:
            # coarse tasks, retried on another worker if one dies; pure=False: a retry is a new run
            # a worker is another process: it is given the house presets this run's rules may name
            house = _core.house_presets()
            futures = [client.submit(run_task, t, *args, house=house, retries=3, pure=False) for t in tasks]
            for fut in futures:
                yield fut.result()
        finally:
            if isinstance(self.scheduler, str):
                client.close()


def process(paths: Iterable[str], *, override: str = "", out: str | Path | None = None, jobs: int = 1,
            scheduler=None,
            progress: Progress | None = None, summarize: Summarize | None = None,
            analyze: bool = False, keep_findings: bool = True) -> ImportStats:
    """Parse and audit ``paths``; with ``out``, add them to that dataset.

    The one pipeline behind ``import``, ``audit`` and the on-the-fly datasets of
    ``stats``/``query``.  ``scheduler`` is a Dask scheduler address (or Client).
    ``summarize`` is called on each staged batch folder just before it is published, to add
    the derived tables (:data:`DERIVED`; ``auditor.warehouse.summarize_batch``); without it
    the new batches have none, and readers compute those rows from the raw tables.
    ``analyze`` (with ``out``) adds the ``analysis`` table: every hand under perfect play.
    Without ``keep_findings`` an import counts its findings (``findings_stored``) but keeps only
    those about unreadable paths in ``findings``: its memory stays bounded by its pieces.
    """
    files, missing = expand_paths(paths)
    stats = ImportStats(files=len(files), games_by_file=dict.fromkeys(files, 0))
    stats.findings.extend(missing)
    done = _Done()
    # the games met: the dataset's, then those stored; a local run's core reads and grows them
    known = _core.GameKeys()
    local = scheduler is None
    if local:
        # one process: each task parsed, audited (and turned into rows) by the core on `jobs` threads
        tasks = [[Chunk(f)] for f in files] if out is None else plan_tasks(files, CHUNK_BYTES)

        def run(tasks: list[list[Chunk]], args: tuple) -> Iterator[TaskResult]:
            # within a task the core reports as it reads; `_collect` adds the tasks done before it
            return (run_task(t, *args, jobs=jobs, progress=None if progress is None else
                             lambda nbytes, hands: progress(done.bytes + nbytes, done.hands + hands),
                             keys=known, keep_findings=keep_findings)
                    for t in tasks)
    else:
        tasks = plan_tasks(files, CHUNK_BYTES)
        run = _Runner(jobs, scheduler).run
    if out is None:
        _collect(stats, run(tasks, (override, None)), known, override, None, progress, done)
        return stats
    root = Path(out)
    _check_dataset_path(root)
    if not tasks:  # nothing to read: leave no empty dataset folder behind
        return stats
    with locked(root):
        try:
            _tidy(root)
            staging = root / "staging"
            staging.mkdir()
            known.update(sorted(known_game_ids(root)))
            # the core computes the counters where they are wanted: what `summarize` would add
            derived = summarize is not None
            new = _collect(stats, run(tasks, (override, str(staging), analyze, derived)), known, override,
                           staging, progress, done, analyze, local, keep_findings, derived)
            drop: list[str] = []
            if new:
                replaced, rewritten, drop = _supersede(root, staging, new)
                stats.games_replaced = len(replaced)
                new.update(rewritten)
                _summarize(staging, new, summarize)
                stats.generation = publish(root, new, drop)
            stats.batches = len(new)
        except OSError as e:
            _clear_staging(root)
            if isinstance(e, DatasetError):
                raise
            raise DatasetError(e.errno or errno.EIO, f"cannot write the dataset {root}: "
                               f"{e.strerror or e}") from None
        _clear_staging(root)
    return stats


def _summarize(staging: Path, batches: Iterable[str], summarize: Summarize | None) -> None:
    """Add the derived tables to staged batches that lack them, once their content is final.

    The core writes them with every batch it makes; a batch rewritten from an older one (a
    game superseded) may lack them.  The batch keeps its name (the hash of the files the
    tasks wrote): publish moves the whole folder, the extra file with it.
    """
    if summarize is not None:
        for b in batches:
            if not all((staging / b / f"{t}.parquet").exists() for t in DERIVED):
                summarize(staging / b)


@dataclass
class _Done:
    """The bytes and hands of the tasks finished so far."""

    bytes: int = 0
    hands: int = 0

    def add(self, res: TaskResult, progress: Progress | None) -> None:
        self.bytes += res.bytes
        self.hands += res.hands
        if progress is not None:
            progress(self.bytes, self.hands)


def _collect(stats: ImportStats, results: Iterator[TaskResult], known: _core.GameKeys,
             override: str, staging: Path | None, progress: Progress | None, done: _Done,
             analyze: bool = False, local: bool = True, keep_findings: bool = True,
             derived: bool = False) -> dict[str, dict]:
    """Merge task results in order: count the games stored and left out, check game numbering,
    gather findings.  A local run's core stored each game once already (it shares ``known``);
    a Dask task knew only its own games, so what it stored that was met before is filtered out here."""
    new: dict[str, dict] = {}
    games_before: dict[str, int] = {}
    for res in results:
        res = _renumber_if_needed(res, games_before, override, staging, analyze, known if local else None,
                                  keep_findings, derived)
        for c, n in zip(res.chunks, res.games_per_chunk):
            stats.games_by_file[c.path] = stats.games_by_file.get(c.path, 0) + n
        stats.games += res.games_read
        stats.hands += res.hands
        stats.cards += res.cards
        stats.unscored += res.unscored
        # every finding is reported where it stands (a game already in the dataset is still audited)
        stats.findings.extend(f for _, f in res.findings)
        if staging is None:  # auditing only
            stats.games_new += res.games_read
            done.add(res, progress)
            continue
        stored = [(k, legacy) for k, kept, legacy in res.games if kept]
        if local:
            keep = {k for k, _ in stored}
        else:
            keep = {k for k, legacy in stored if k not in known and (legacy is None or legacy not in known)}
            known.update(sorted(keep))
        stats.games_skipped += res.games_read - len(keep)
        stats.games_new += len(keep)
        findings_stored = res.findings_stored
        if res.batch is not None:
            batch = res.batch
            if len(keep) != len(stored):
                batch = _filter_batch(staging, batch, keep)
                findings = staging / batch / "findings.parquet" if batch is not None else None
                findings_stored = pq.ParquetFile(findings).metadata.num_rows if findings and findings.exists() else 0
            if batch is not None:
                new[batch] = {"games": len(keep), "hands": res.hands, "files": sorted({c.path for c in res.chunks}),
                              "schema_version": SCHEMA_VERSION}
        stats.findings_stored += findings_stored
        done.add(res, progress)
    return new


def _renumber_if_needed(res: TaskResult, games_before: dict[str, int], override: str,
                        staging: Path | None, analyze: bool = False, keys: _core.GameKeys | None = None,
                        keep_findings: bool = True, derived: bool = False) -> TaskResult:
    """Check each chunk's assumed game count; rerun a chunk whose count was wrong (a rare tag layout).
    ``keys``: the run's games met, shared with the core (the rerun's games are taken out of them first)."""
    chunks = res.chunks
    if all(c.first_game == games_before.get(c.path, 0) or c.start == 0 for c in chunks):
        for c, n in zip(chunks, res.games_per_chunk):
            games_before[c.path] = games_before.get(c.path, 0) + n if c.start else n
        return res
    if res.batch is not None and staging is not None:
        shutil.rmtree(staging / res.batch, ignore_errors=True)
    if keys is not None:
        keys.discard([k for k, kept, _ in res.games if kept])
    fixed = [replace(c, first_game=games_before.get(c.path, 0)) if c.start else c for c in chunks]
    res = run_task(fixed, override, str(staging) if staging else None, analyze, derived, keys=keys,
                   keep_findings=keep_findings)
    for c, n in zip(fixed, res.games_per_chunk):
        games_before[c.path] = games_before.get(c.path, 0) + n if c.start else n
    return res


def _filter_batch(staging: Path, batch: str, keep: set[str] | None = None, source: Path | None = None,
                  drop: set[str] | None = None) -> str | None:
    """Rewrite a batch keeping only the games in ``keep`` (or all but those in ``drop``) as a new staged batch.

    ``source`` is the batch's folder (default: the staged one, which is then removed).
    """
    folder = source or staging / batch
    chosen = pa.array(sorted(keep if keep is not None else drop or ()), pa.string())
    writer = BatchWriter(staging)
    try:
        for t in TABLES:
            f = folder / f"{t}.parquet"
            # derived rows of an older schema lack counters: dropped, not kept as nulls that look complete
            if f.exists() and not (t in DERIVED and not has_current_columns(f, t)):
                tb = pq.read_table(f, schema=SCHEMAS[t])  # a column an older batch lacks reads as null
                ids = tb.column("game_id")
                hit = pc.is_in(ids, chosen)
                mask = pc.or_kleene(hit, pc.is_null(ids)) if keep is not None else \
                    pc.or_kleene(pc.invert(hit), pc.is_null(ids))
                writer.write({t: tb.filter(mask)})
        out = writer.close()
    except BaseException:
        writer.abort()
        raise
    if source is None and out != batch:
        shutil.rmtree(staging / batch, ignore_errors=True)
    return out


def _game_names(table: pa.Table) -> dict[tuple, str]:
    """Identity of each game -> its key: (GameId,) when it has one, else (file, position)."""
    out = {}
    for gid, name, src, idx, tags in zip(*(table.column(c).to_pylist() for c in
                                           ("game_id", "game", "source_file", "game_index", "tags"))):
        has_id = "GameId" in json.loads(tags or "{}")
        out[(name,) if has_id else (src, idx)] = gid
    return out


def _supersede(root: Path, staging: Path, new: dict[str, dict]) -> tuple[list[str], dict[str, dict], list[str]]:
    """Games in the new batches that are new versions of stored ones (same GameId, or same file and position,
    different content): the stored versions are taken out.  Returns (replaced keys, rewritten batches, dropped)."""
    cols = ["game_id", "game", "source_file", "game_index", "tags"]
    incoming: dict[tuple, str] = {}
    for b in new:
        f = staging / b / "games.parquet"
        if f.exists():
            incoming.update(_game_names(pq.read_table(f, columns=cols)))
    replaced = set()
    rewritten: dict[str, dict] = {}
    dropped: list[str] = []
    gen = current(root)
    manifest = read_manifest(root)
    for b, entry in manifest["batches"].items():
        f = gen / f"batch={b}" / "games.parquet"
        if not f.exists():
            continue
        stored = _game_names(pq.read_table(f, columns=cols))
        old = {gid for ident, gid in stored.items() if ident in incoming and incoming[ident] != gid}
        if not old:
            continue
        replaced |= old
        out = _filter_batch(staging, b, drop=old, source=gen / f"batch={b}")
        dropped.append(b)
        if out is not None:
            # rewritten under the current schema (what an older batch lacks is null)
            rewritten[out] = {**entry, "games": entry["games"] - len(old), "schema_version": SCHEMA_VERSION}
    return sorted(replaced), rewritten, dropped


def _check_dataset_path(root: Path) -> None:
    """Refuse to write a dataset into a folder that holds something else (a folder of logs, /)."""
    if root.exists() and not root.is_dir():
        raise DatasetError(errno.ENOTDIR, f"{root} is a file, not a dataset folder")
    if root.is_dir() and not ((root / "current").exists() or (root / "current").is_symlink()):
        own = (".lock", "staging", "store", "gens", LOST, CHECK_RECORD)  # what a killed first import or a check leaves
        others = [p.name for p in root.iterdir() if p.name not in own]
        if others:
            raise DatasetError(errno.EEXIST, f"{root} is a folder that is not a dataset (it holds "
                               f"{', '.join(sorted(others)[:3])}{', ...' if len(others) > 3 else ''}): give a new "
                               "or empty folder, or one made by `auditor import`")


def import_paths(paths: Iterable[str], out: str | Path, *, override: str = "",
                 jobs: int = 1, scheduler=None, progress: Progress | None = None,
                 summarize: Summarize | None = None, analyze: bool = False,
                 keep_findings: bool = True) -> ImportStats:
    """Parse, audit and add ``paths`` to the dataset at ``out``: atomic and idempotent.

    ``summarize`` adds the derived tables to each new batch that lacks them (see :func:`process`);
    ``analyze`` the ``analysis`` table (every hand under perfect play, card by card);
    ``keep_findings`` false keeps only the count of the findings (see :func:`process`).
    """
    return process(paths, override=override, out=out, jobs=jobs, scheduler=scheduler,
                   progress=progress, summarize=summarize, analyze=analyze, keep_findings=keep_findings)


def compact(root: str | Path, target_rows: int = 2_000_000, summarize: Summarize | None = None) -> tuple[int, int]:
    """Merge the published batches into as few as ``target_rows`` plays rows each allows.

    Returns (batches before, batches after).  Atomic like an import.  With ``summarize``
    each merged batch gets its derived tables computed afresh; without it a merged batch
    keeps them only if every batch merged into it had them (part of one would be wrong).
    """
    root = Path(root)
    with locked(root):
        _tidy(root)
        manifest = read_manifest(root)
        batches = list(manifest["batches"])
        if len(batches) < 2:
            return len(batches), len(batches)
        (root / "staging").mkdir()
        gen = current(root)
        groups: list[list[str]] = [[]]
        rows = 0
        for b in batches:
            f = gen / f"batch={b}" / "plays.parquet"
            try:
                n = pq.ParquetFile(f).metadata.num_rows if f.exists() else 0
            except (pa.ArrowException, OSError) as e:
                raise damaged(root, f, e) from None
            if groups[-1] and rows + n > target_rows:
                groups.append([])
                rows = 0
            groups[-1].append(b)
            rows += n
        new: dict[str, dict] = {}
        dropped: list[str] = []
        for group in groups:
            if len(group) < 2:
                continue
            for b in group:  # a damaged file merged would be published again as sound: refused
                verify_batch(root, gen / f"batch={b}", manifest["batches"][b])
            writer = BatchWriter(root / "staging")
            try:
                for t in TABLES:
                    # derived rows written under an older schema lack columns: as good as none
                    if t in DERIVED and (summarize is not None or not all(
                            has_current_columns(gen / f"batch={b}" / f"{t}.parquet", t)
                            if (gen / f"batch={b}" / f"{t}.parquet").exists()
                            else not (gen / f"batch={b}" / "games.parquet").exists() for b in group)):
                        continue
                    for b in group:
                        f = gen / f"batch={b}" / f"{t}.parquet"
                        if f.exists():
                            for rg in range(pq.ParquetFile(f).num_row_groups):
                                # a batch of an older schema version gets the columns added since, null
                                writer.write({t: conform(pq.ParquetFile(f).read_row_group(rg), t)})
                batch = writer.close()
            except BaseException as e:
                writer.abort()
                if isinstance(e, pa.ArrowException):  # a file of a batch written before checksums
                    raise damaged(root, gen, e) from None
                raise
            _summarize(root / "staging", [batch], summarize)
            entries = [manifest["batches"][b] for b in group]
            new[batch] = {"games": sum(e["games"] for e in entries), "hands": sum(e["hands"] for e in entries),
                          "files": sorted({f for e in entries for f in e.get("files", [])}),
                          "schema_version": SCHEMA_VERSION}
            dropped += group
        if new:
            publish(root, new, dropped)
        _clear_staging(root)
        return len(batches), len(batches) - len(dropped) + len(new)
