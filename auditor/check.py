"""`auditor check`: verify a dataset as ``PRAGMA integrity_check`` verifies a database, and repair it.

What is checked (docs/dataset.md describes the layout and the publish protocol):

* ``current`` is a link to a generation whose manifest reads as it was written (it carries
  its own checksum) and names itself, and every batch it lists is there, file by file, with
  the checksum the manifest recorded when it was written (a flipped bit is found and named),
  a readable Parquet footer, and as many games as the manifest says; each batch's own record
  (``batch.json``) agrees; every published file has its copy in ``store/``, with the same
  bytes (a hard link, or a copy of its own where a copy of the dataset kept no hard links);
* nothing is left over: a generation built but never published, one half built, a temporary
  link, staged batches with no writer at work, a stored batch no kept generation names, an
  old generation the sweep missed; and nothing was set aside by an earlier repair.

``repair`` (under the writers' lock) never deletes what a generation names.  It mends what a
sound copy or record still holds: a file from another hard link or the store, a batch's
record from its manifest entry, a manifest from its batches' records, a lost generation or
``current`` from the store (each batch's record names the generation that published it and
the batches it replaced).  A batch with a table that no sound copy holds is taken out of the
dataset into ``lost+found/`` (kept, never read), and the files its games came from are named
for import again.  Then the left-overs of interrupted writes are removed, as a writer would.
"""

from __future__ import annotations

import errno
import fcntl
import json
import os
import re
import shutil
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

from .dataset import DERIVED, KEEP_GENERATIONS, LOST, MANIFEST, RECORD, DatasetError, _fsync_dir, _sweep, \
    build_generation, entry_of, file_checksum, locked, parse_manifest, read_record, record_of, seal, \
    swap_current, unseal, write_file_atomic, write_record
from .tables import SCHEMA_VERSION, TABLES

#: Adds the derived tables to a batch folder (``auditor.warehouse.summarize_batch``): how a repair
#: recomputes a damaged counters file.
Summarize = Callable[[Path], None]
SET_ASIDE = "set-aside.json"  # why `--repair` took a batch out, beside its files in lost+found/


class CheckError(Exception):
    """The check could not run (no dataset there)."""


@dataclass(frozen=True)
class Problem:
    """One thing wrong: the file or folder, what is wrong with it, and whether ``--repair`` fixes it."""

    path: str
    what: str
    detail: str = ""
    repairable: bool = False

    def as_dict(self) -> dict:
        return {"path": self.path, "problem": self.what, "detail": self.detail, "repairable": self.repairable}


@dataclass
class Report:
    """What the check found, what a repair did, and the log files to import again for games it could not keep."""

    root: Path
    generation: int | None = None
    batches: int = 0
    files: int = 0
    problems: list[Problem] = field(default_factory=list)
    repaired: list[str] = field(default_factory=list)
    reimport: list[str] = field(default_factory=list)

    def add(self, path: Path | str, what: str, detail: str = "", repairable: bool = False) -> None:
        self.problems.append(Problem(str(path), what, detail, repairable))

    def lost(self, files: list[str]) -> None:
        self.reimport = sorted(set(self.reimport) | set(files))


def _writer_active(root: Path) -> bool:
    """Whether a writer holds the dataset's lock right now (its staging folder is then in use)."""
    lock = root / ".lock"
    if not lock.is_file():
        return False
    try:
        with open(lock, "a") as f:
            try:
                fcntl.flock(f, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                return True
            fcntl.flock(f, fcntl.LOCK_UN)
    except OSError:
        return False
    return False


def _files_list(files: list[str], most: int = 4) -> str:
    shown = ", ".join(files[:most]) + (f" and {len(files) - most} more" if len(files) > most else "")
    return shown or "files not recorded"


def _games(n: int) -> str:
    return f"{n} game{'s' * (n != 1)}"


def _batches(n: int) -> str:
    return f"{n} batch{'es' * (n != 1)}"


# --------------------------------------------------------------------------- what is on disk


class _Sums:
    """Each file's checksum, read once per file (hard links share one)."""

    def __init__(self) -> None:
        self.seen: dict[tuple[int, int, int, int], str] = {}

    def of(self, path: Path) -> str | None:
        try:
            st = path.stat()
            key = (st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns)
            if key not in self.seen:
                self.seen[key] = file_checksum(path)
            return self.seen[key]
        except OSError:
            return None


@dataclass
class _Gen:
    """A generation folder: its manifest (None: missing or damaged, and why) and its batch folders."""

    number: int
    path: Path
    manifest: dict | None
    why: str | None
    folders: set[str]

    @property
    def batches(self) -> set[str]:
        """What it publishes: the batches its manifest names, else (the manifest lost) its batch folders."""
        return set(self.manifest["batches"]) if self.manifest is not None else self.folders


def _read_gen(path: Path, n: int) -> _Gen:
    folders = {p.name.removeprefix("batch=") for p in path.glob("batch=*") if p.is_dir()}
    try:
        return _Gen(n, path, parse_manifest((path / MANIFEST).read_bytes(), n), None, folders)
    except FileNotFoundError:
        return _Gen(n, path, None, "missing", folders)
    except (OSError, ValueError) as e:
        return _Gen(n, path, None, e.strerror if isinstance(e, OSError) and e.strerror else str(e), folders)


@dataclass
class _Batch:
    """A batch the published generation holds (or should hold), and where its files are."""

    id: str
    entry: dict
    source: str  # where the entry comes from: "manifest", "record" or "files" (rebuilt from what is there)
    sound: dict[str, Path] = field(default_factory=dict)  # file -> a copy that reads as recorded
    missing: list[str] = field(default_factory=list)  # files no sound copy holds

    @property
    def files(self) -> list[str]:
        return list(self.entry.get("files", []))

    @property
    def names(self) -> list[str]:
        """The batch's files by name, sound or not, in order."""
        return sorted(set(self.sound) | set(self.missing))

    @property
    def lost(self) -> bool:
        """Whether a table of the batch has no sound copy (its record and derived tables can be made again)."""
        return any(name != RECORD and name.removesuffix(".parquet") not in DERIVED for name in self.missing)


class _Disk:
    """One look at a dataset folder, read only: ``current``, the generations, the store, and what the
    published generation should hold."""

    def __init__(self, root: Path, sums: _Sums | None = None):
        self.root = root
        self.sums = sums or _Sums()  # shared by the looks of one repair: each file is read once
        link = root / "current"
        self.current_kind = ("link" if link.is_symlink() else "folder" if link.is_dir() else
                             "file" if link.exists() else "none")
        self.target = os.readlink(link) if self.current_kind == "link" else None
        m = re.fullmatch(r"gens/(\d+)/?", self.target or "")
        self.named = int(m.group(1)) if m else None  # the generation `current` names, if it is one
        gens = root / "gens"
        self.gens: dict[int, _Gen] = {}
        for p in sorted(gens.iterdir()) if gens.is_dir() else ():
            if p.name.isdigit() and p.is_dir():
                self.gens[int(p.name)] = _read_gen(p, int(p.name))
        store = root / "store"
        self.stored: dict[str, dict | None] = {p.name: read_record(p) for p in sorted(store.iterdir())
                                                if p.is_dir()} if store.is_dir() else {}
        # the generation `current` publishes, when it is a link to a generation folder
        self.published = self.named if self.named in self.gens else None
        # the newest generation that was published: `current`'s; else the newest there is, or the one a dangling
        # link names, or the one before the newest a record names (a generation is built on the published one)
        self.top = self.published if self.published is not None else max(
            [*self.gens, self.named or 0, *(r["generation"] - 1 for r in self.stored.values() if r), 0])

    # ----------------------------------------------------------------- records and copies

    def copies(self, batch: str, name: str) -> list[Path]:
        """Every place a file of ``batch`` may be: each generation's folder (the published one first), the store."""
        order = sorted(self.gens, key=lambda n: (n != self.published, -n))
        return [self.gens[n].path / f"batch={batch}" / name for n in order] + [self.root / "store" / batch / name]

    def record(self, batch: str) -> dict | None:
        """A sound record of ``batch``: the store's, else a generation's copy."""
        if self.stored.get(batch) is not None:
            return self.stored[batch]
        for n in sorted(self.gens, reverse=True):
            found = read_record(self.gens[n].path / f"batch={batch}")
            if found is not None:
                return found
        return None

    def sound_copy(self, batch: str, name: str, recorded: str | None) -> Path | None:
        """A copy of the file that reads as recorded (without a recorded checksum: a readable Parquet footer)."""
        for p in self.copies(batch, name):
            if not p.is_file():
                continue
            if recorded is not None:
                if self.sums.of(p) == recorded:
                    return p
            elif _footer(p) is not None:
                return p
        return None

    def entry(self, batch: str, gen: _Gen | None) -> tuple[dict, str] | None:
        """The manifest entry of ``batch``: the generation's manifest, else its record, else another generation's
        manifest; None when none is left."""
        if gen is not None and gen.manifest is not None and batch in gen.manifest["batches"]:
            return gen.manifest["batches"][batch], "manifest"
        record = self.record(batch)
        if record is not None:  # the same record always seals to the same bytes: its file's checksum follows
            return entry_of(record, _checksum_of_bytes(seal(record))), "record"
        for g in sorted(self.gens.values(), key=lambda g: -g.number):
            if g.manifest is not None and batch in g.manifest["batches"]:
                return g.manifest["batches"][batch], "manifest"
        return None

    def superseded(self, top: int) -> set[str]:
        """The batches that another batch published up to generation ``top`` replaced (a compaction, a new version
        of a game), by any manifest or record: such a batch never comes back.  (A batch an interrupted write
        stored, with a later generation, replaced nothing yet.)"""
        out: set[str] = set()
        for g in self.gens.values():
            if g.number > top:
                continue
            if g.manifest is not None:
                for e in g.manifest["batches"].values():
                    out |= set(e.get("replaces", []))
            for b in g.folders:
                out |= set((read_record(g.path / f"batch={b}") or {}).get("replaces", []))
        for record in self.stored.values():
            if record is not None and record["generation"] <= top:
                out |= set(record.get("replaces", []))
        return out

    def rebuilt_entry(self, batch: str, generation: int) -> dict | None:
        """An entry made from the batch's files themselves (no manifest or record names it): their
        checksums as they are now, the games and hands their footers count, the logs its games came from."""
        names: dict[str, Path] = {}
        for n in sorted(self.gens, reverse=True):
            for p in (self.gens[n].path / f"batch={batch}").glob("*.parquet"):
                names.setdefault(p.name, p)
        for p in (self.root / "store" / batch).glob("*.parquet"):
            names.setdefault(p.name, p)
        if not names:
            return None
        sums, counts = {}, {}
        for name, p in sorted(names.items()):
            meta = _footer(p)
            if meta is not None:
                sums[name] = self.sums.of(p) or ""
                counts[name] = meta.num_rows
        files = set()
        for table, column in (("games", "source_file"), ("findings", "file")):
            if f"{table}.parquet" in sums:
                try:
                    files |= set(pq.read_table(names[f"{table}.parquet"], columns=[column]).column(column).to_pylist())
                except (pa.ArrowException, OSError, KeyError):
                    pass
        return {"games": counts.get("games.parquet", 0), "hands": counts.get("hands.parquet", 0),
                "files": sorted(f for f in files if f), "schema_version": SCHEMA_VERSION, "generation": generation,
                "replaces": [], "checksums": sums,
                # what the footers could not read is lost: named, so the batch is found incomplete
                "unreadable": sorted(set(names) - set(sums))}

    # ----------------------------------------------------------------- the plan

    def plan(self) -> tuple[int | None, dict[str, _Batch], dict[str, tuple[str, bool]]]:
        """What the published generation should hold: (the generation that holds it, to mend in place, or None
        when a new one must be published; its batches; the stored batches it does not need, each with what
        they are and whether they are kept aside rather than removed).

        ``current`` sound: the generation it names.  ``current`` lost (missing, dangling, not a link): the
        newest generation there is.  Either way, with every stored batch whose record says a generation up
        to that one (or up to the one a dangling ``current`` names) published it, and that no other batch
        replaced: the records rebuild what a lost generation or manifest held."""
        top = self.top
        base = self.gens.get(self.published if self.published is not None else max(self.gens, default=0))
        wanted = set(base.batches) if base is not None else set()
        kept = set().union(*(g.batches for g in self._kept(top)))
        superseded = self.superseded(top)
        leftovers: dict[str, tuple[str, bool]] = {}
        for b, record in self.stored.items():
            if b in wanted or b in kept:
                continue
            if record is None:  # no record to say what it is: a writer's left-over, unless the state was lost
                leftovers[b] = ("a stored batch no kept generation names", self.published is None)
            elif record["generation"] > top or b in superseded:  # never published, or replaced since
                leftovers[b] = ("a stored batch no kept generation names", False)
            else:
                wanted.add(b)
        if self.published is None:  # the newest generation there is may be older than the batches found
            for b in wanted & superseded:
                leftovers[b] = ("a stored batch no kept generation names", False)
            wanted -= superseded
        batches: dict[str, _Batch] = {}
        for b in sorted(wanted):
            found = self.entry(b, base)
            entry, source = found if found is not None else (self.rebuilt_entry(b, top) or {
                "games": 0, "hands": 0, "files": [], "checksums": {}, "unreadable": ["games.parquet"]}, "files")
            batches[b] = self._locate(_Batch(b, entry, source))
        mend = base.number if base is not None and set(batches) == base.batches else None
        return mend, batches, leftovers

    def _locate(self, batch: _Batch) -> _Batch:
        """Find a sound copy of each file of ``batch``."""
        sums = batch.entry.get("checksums") or {}
        names = set(sums) | set(batch.entry.get("unreadable", []))
        if not names:  # written before checksums were recorded: the tables that are there
            names = {p.name for c in self.copies(batch.id, "") if c.is_dir() for p in c.glob("*.parquet")}
        for name in sorted(names):
            copy = self.sound_copy(batch.id, name, sums.get(name)) if name in sums or not sums else None
            if copy is None:
                batch.missing.append(name)
            else:
                batch.sound[name] = copy
        return batch

    def _kept(self, top: int) -> list[_Gen]:
        return [self.gens[n] for n in sorted(n for n in self.gens if n <= top)[-KEEP_GENERATIONS:]]


def _checksum_of_bytes(data: bytes) -> str:
    import hashlib

    return hashlib.blake2b(data, digest_size=16).hexdigest()


def _footer(path: Path):
    try:
        return pq.read_metadata(path)
    except Exception:  # noqa: BLE001 - any failure to read the footer means the file cannot be read
        return None


# --------------------------------------------------------------------------- the check


def _require_dataset(root: Path) -> None:
    if not root.is_dir() or not any((root / p).exists() or (root / p).is_symlink()
                                    for p in ("current", "gens", "store", "staging", LOST, ".lock")):
        raise CheckError(f"{root} is not a dataset (no current, gens or store): give a folder made by "
                         "`auditor import`")


def check_dataset(root: str | Path, *, holding_lock: bool = False, _sums: _Sums | None = None) -> Report:
    """Verify the dataset at ``root``; raises :class:`CheckError` when there is none.

    ``holding_lock``: the caller is the writer (a repair), so ``staging`` is nobody's work in progress.
    """
    root = Path(root)
    _require_dataset(root)
    disk = _Disk(root, _sums)
    report = Report(root, generation=disk.published)
    _, batches, leftovers = disk.plan()
    _check_current(disk, report)
    if disk.published is not None:
        _check_generation(disk, disk.gens[disk.published], batches, report)
    elif batches:
        for b in batches.values():
            _check_batch_files(disk, None, b, report)
    if disk.published is not None:
        for b in sorted(set(batches) - disk.gens[disk.published].batches):
            report.add(root / "store" / b, "a stored batch the published generation lost",
                       f"its record says generation {batches[b].entry.get('generation')} published it and no later "
                       "batch replaced it: --repair publishes it again", repairable=True)
    kept = [g.number for g in disk._kept(disk.top)]
    busy = not holding_lock and _writer_active(root)  # what a writer at work is building is no left-over
    for n, g in disk.gens.items():
        if disk.published is not None and n > disk.published:
            if not busy:
                report.add(g.path, "a generation never published", "an interrupted publish: "
                           "`current` still names the one before", repairable=True)
        elif n not in kept:
            report.add(g.path, "an old generation the sweep did not remove", repairable=True)
        elif n != disk.published and g.manifest is None:
            report.add(g.path / MANIFEST, "a damaged manifest" if g.why != "missing" else "a missing manifest",
                       f"{g.why}; --repair rebuilds it from its batches' records" if g.why != "missing" else
                       "--repair rebuilds it from its batches' records", repairable=True)
    gens = root / "gens"
    for p in sorted(gens.iterdir()) if gens.is_dir() and not busy else ():
        if p.name.startswith("."):
            report.add(p, "a generation half built", "an interrupted publish", repairable=True)
    for p in sorted(root.glob(".current.*")) if not busy else ():
        report.add(p, "a temporary link left by an interrupted publish", repairable=True)
    if (root / "staging").exists() and not busy:
        files = _staged_files(root / "staging")
        report.add(root / "staging", "staged batches left by an interrupted write",
                   f"an import of {_files_list(files)} that never published" if files else "", repairable=True)
    for b, (what, keep) in sorted(leftovers.items()):
        record = disk.stored.get(b)
        if busy and record is not None and record["generation"] > disk.top:
            continue  # being published
        report.add(root / "store" / b, what, f"the published state was lost: --repair keeps it in {LOST}/" if keep
                   else "", repairable=True)
    lock = root / ".lock"
    if lock.exists() and not lock.is_file():
        report.add(lock, "a folder where the writers' lock file should be", "every write fails on it",
                   repairable=True)
    _check_lost_and_found(disk, batches, report)
    return report


def _check_current(disk: _Disk, report: Report) -> None:
    link = disk.root / "current"
    if disk.published is not None or (disk.current_kind == "none" and not (disk.gens or disk.stored)):
        return  # sound, or a new dataset
    how = "--repair publishes the newest state its generations and store hold"
    if disk.current_kind == "none":
        report.add(link, "no `current` link, though the dataset has generations", how, repairable=True)
    elif disk.current_kind == "link":
        report.add(link, "a `current` link that names no complete generation", f"it names {disk.target}; {how}",
                   repairable=True)
    elif disk.current_kind == "file":
        report.add(link, "a file where the `current` link should be", how, repairable=True)
    else:
        report.add(link, "a folder where the `current` link should be", f"a copy that followed the link?; {how}",
                   repairable=True)


def _check_generation(disk: _Disk, gen: _Gen, batches: dict[str, _Batch], report: Report) -> None:
    """Check the published generation file by file."""
    if gen.manifest is None:
        report.add(gen.path / MANIFEST, "a missing manifest" if gen.why == "missing" else "a damaged manifest",
                   ("" if gen.why == "missing" else f"{gen.why}; ") + "--repair rebuilds it from its batches' records",
                   repairable=True)
    else:
        if int(gen.manifest.get("schema_version", 1)) > SCHEMA_VERSION:
            report.add(gen.path / MANIFEST, "a schema version newer than this auditor's",
                       f"{gen.manifest.get('schema_version')} > {SCHEMA_VERSION}: upgrade auditor")
        for extra in sorted(gen.folders - set(gen.manifest["batches"])):
            report.add(gen.path / f"batch={extra}", "a batch folder the manifest does not name",
                       "--repair moves it to lost+found/", repairable=True)
    for b in sorted(gen.batches):
        if b in batches:
            _check_batch_files(disk, gen, batches[b], report)


def _check_batch_files(disk: _Disk, gen: _Gen | None, batch: _Batch, report: Report) -> None:
    """Check one batch the published generation holds (``gen`` None: ``current`` is lost, the store alone)."""
    part = gen.path / f"batch={batch.id}" if gen is not None else None
    store = disk.root / "store" / batch.id
    sums = batch.entry.get("checksums") or {}
    report.batches += 1
    if batch.lost:
        gone = [n for n in batch.missing if n != RECORD and n.removesuffix(".parquet") not in DERIVED]
        where = (part if part is not None and part.is_dir() else store) / gone[0]
        them = "them" if len(batch.files) > 1 else "it"
        report.add(where, "a damaged file: its checksum differs from the one recorded when it was written"
                   if where.exists() else "a file the manifest names is missing",
                   f"no sound copy is left of {', '.join(gone)}: --repair takes the batch "
                   f"({_games(int(batch.entry.get('games', 0)))} from {_files_list(batch.files)}) out of the dataset "
                   f"into {LOST}/; import {them} again to get its games back")
        report.lost(batch.files)
        report.files += len(batch.names)  # read, as a sound batch's are
        return
    if part is not None and not part.is_dir():
        report.add(part, "a batch the manifest names is missing", "--repair links it again from its sound copies",
                   repairable=True)
    elif part is not None and sums:
        for extra in sorted(p.name for p in part.iterdir() if p.name not in sums):
            report.add(part / extra, "a file the manifest does not name", f"--repair moves it to {LOST}/",
                       repairable=True)
    for name in batch.names:
        sound = batch.sound.get(name)
        places = ([part / name] if part is not None and part.is_dir() else []) + [store / name]
        report.files += 1
        if sound is None:  # the record, or the derived counters: made again
            f = places[0]
            what = ("a damaged batch record" if name == RECORD else "a damaged file: its checksum differs from the "
                    "one recorded when it was written") if f.exists() else (
                "a missing batch record" if name == RECORD else "a file the manifest names is missing")
            how = "rewrites it from the manifest entry" if name == RECORD else "recomputes it from the batch's tables"
            report.add(f, what, f"no sound copy is left; --repair {how}", repairable=True)
            continue
        for f in places:
            if not f.is_file():
                report.add(f, "the store's copy of a published file is missing" if f.parent == store
                           else "a file the manifest names is missing", f"--repair links it again from {sound}",
                           repairable=True)
            elif not _same_file(f, sound) and disk.sums.of(f) != disk.sums.of(sound):
                # (a separate copy with the same bytes, as a copy of the dataset that kept no hard links
                # has, is sound: it only takes twice the space)
                report.add(f, "a damaged file: its checksum differs from the one recorded when it was written",
                           f"recorded {sums.get(name, disk.sums.of(sound))}, now {disk.sums.of(f)}; --repair "
                           f"restores it from {sound}", repairable=True)
        if name == RECORD:
            continue
        meta = _footer(sound)
        if name.removesuffix(".parquet") not in TABLES or not name.endswith(".parquet"):
            report.add(places[0], "a file that is no table of the dataset")
        elif meta is None:
            report.add(places[0], "not a readable Parquet file")
        elif name == "games.parquet" and "games" in batch.entry and meta.num_rows != batch.entry["games"]:
            report.add(places[0], "a games count that differs from the manifest's",
                       f"{meta.num_rows} rows, the manifest says {batch.entry['games']}")


def _same_file(a: Path, b: Path) -> bool:
    try:
        return os.path.samefile(a, b)
    except OSError:
        return False


def _staged_files(staging: Path) -> list[str]:
    """The logs an interrupted import was reading, as its staged batches name them."""
    files: set[str] = set()
    for f in staging.glob("*/games.parquet"):
        try:
            files |= {x for x in pq.read_table(f, columns=["source_file"]).column("source_file").to_pylist() if x}
        except (pa.ArrowException, OSError, KeyError):
            pass
    return sorted(files)


def _set_aside_note(folder: Path) -> dict:
    try:
        return unseal((folder / SET_ASIDE).read_bytes())
    except (OSError, ValueError):
        record = read_record(folder) or {}
        return {"reason": "set aside", "games": record.get("games", 0), "files": record.get("files", [])}


def _games_back(folder: Path, published: set[str]) -> bool:
    """Whether every game of a set-aside batch is in the published generation again (its games table reads)."""
    try:
        ids = set(pq.read_table(folder / "games.parquet", columns=["game_id"]).column("game_id").to_pylist())
    except (pa.ArrowException, OSError, KeyError):
        return False
    return bool(ids) and ids <= published


def _published_ids(disk: _Disk, batches: dict[str, _Batch]) -> set[str]:
    ids: set[str] = set()
    for b in batches.values():
        copy = b.sound.get("games.parquet")
        if copy is not None:
            try:
                ids |= set(pq.read_table(copy, columns=["game_id"]).column("game_id").to_pylist())
            except (pa.ArrowException, OSError):
                pass
    return ids


def _check_lost_and_found(disk: _Disk, batches: dict[str, _Batch], report: Report) -> None:
    lost = disk.root / LOST
    items = sorted(lost.iterdir()) if lost.is_dir() else []
    ids = _published_ids(disk, batches) if items else set()
    for p in items:
        if not (p / SET_ASIDE).is_file() and not (p / RECORD).is_file():
            report.add(p, "something a repair moved out of the way",
                       "it stood where the dataset keeps its own files: look at it, then remove it")
            continue
        note = _set_aside_note(p)
        files = [f for f in note.get("files", []) if isinstance(f, str)]
        if _games_back(p, ids):
            report.add(p, "a batch set aside by a repair, whose games are all back in the dataset",
                       "--repair removes it", repairable=True)
            continue
        report.add(p, "a batch set aside by a repair: its games are not in the dataset",
                   f"{note.get('reason', 'set aside')}; {_games(int(note.get('games') or 0))} from "
                   f"{_files_list(files)}: import {'them' if len(files) > 1 else 'it'} again, then remove this folder")
        report.lost(files)


# --------------------------------------------------------------------------- the repair


def repair_dataset(root: str | Path, summarize: Summarize | None = None) -> Report:
    """Mend the dataset at ``root`` under the writers' lock, then check it again (see the module's doc).

    ``summarize`` recomputes a batch's derived tables (``auditor.warehouse.summarize_batch``);
    without it a damaged counters file is left out of its batch, and statistics come from the
    raw tables.  The report's ``reimport`` names the logs whose games the dataset could not keep.
    """
    root = Path(root)
    _require_dataset(root)
    done: list[str] = []
    reimport: list[str] = []
    lock = root / ".lock"
    if lock.exists() and not lock.is_file():  # no writer can take it, so nobody holds it
        _out_of_the_way(root, lock, done, "a folder where the writers' lock file should be")
    sums = _Sums()
    try:
        with locked(root):
            _repair(root, summarize, done, reimport, sums)
    except DatasetError as e:
        raise CheckError(str(e)) from None
    after = check_dataset(root, _sums=sums)
    after.repaired = done
    after.lost(reimport)
    return after


def _out_of_the_way(root: Path, path: Path, done: list[str], why: str) -> None:
    """Move ``path``, which stands where the dataset keeps a file of its own, into lost+found/ (an empty folder
    or a file that is no part of a dataset holds nothing to keep: removed)."""
    if path.is_dir() and not path.is_symlink() and not any(path.iterdir()):
        path.rmdir()
        done.append(f"removed {path} ({why}, empty)")
        return
    (root / LOST).mkdir(exist_ok=True)
    target = root / LOST / f"{path.name.lstrip('.')}-{uuid.uuid4().hex[:8]}"
    os.replace(path, target)
    done.append(f"moved {path} ({why}) to {target}")


def _repair(root: Path, summarize: Summarize | None, done: list[str], reimport: list[str], sums: _Sums) -> None:
    """The repair, under the lock (see :func:`repair_dataset`)."""
    newer = [g.path / MANIFEST for g in _Disk(root, sums).gens.values()
             if g.manifest is not None and int(g.manifest.get("schema_version", 1)) > SCHEMA_VERSION]
    if newer:  # what this auditor rebuilt, it would rebuild without what it does not know: nothing is touched
        raise DatasetError(errno.EPROTO, f"{newer[0]} was written by a newer auditor (schema version "
                           f"{SCHEMA_VERSION} here): upgrade auditor before repairing the dataset")
    # 1. what an interrupted write left, as a writer would roll it back
    staging = root / "staging"
    if staging.exists():
        files = _staged_files(staging)
        shutil.rmtree(staging)
        done.append(f"removed {staging} (staged batches left by an interrupted write"
                    + (f": an import of {_files_list(files)} that never published; run it again)" if files else ")"))
        reimport += files
    for p in sorted(root.glob(".current.*")):
        p.unlink()
        done.append(f"removed {p} (a temporary link left by an interrupted publish)")
    gens, store = root / "gens", root / "store"
    for p in sorted(gens.iterdir()) if gens.is_dir() else ():
        if p.name.startswith("."):
            shutil.rmtree(p) if p.is_dir() and not p.is_symlink() else p.unlink()
            done.append(f"removed {p} (a generation half built)")
    disk = _Disk(root, sums)
    for n in [n for n in disk.gens if disk.published is not None and n > disk.published]:
        shutil.rmtree(disk.gens[n].path)
        done.append(f"removed {disk.gens[n].path} (a generation never published)")
    disk = _Disk(root, sums)
    mend, batches, leftovers = disk.plan()
    # 2. each batch kept gets a whole, sound folder in the store; one that lost a table is set aside
    for b in list(batches.values()):
        if b.lost:
            _set_aside_batch(disk, b, done)
            reimport += b.files
            del batches[b.id]
            mend = None  # the generation changes: a new one is published without it
        else:
            _restore_store(disk, b, summarize, done)
    for b, (what, keep) in sorted(leftovers.items()):
        if keep and (store / b).is_dir():
            (root / LOST).mkdir(exist_ok=True)
            os.replace(store / b, root / LOST / b)
            done.append(f"moved {store / b} ({what}; the published state was lost, so it may hold the last copy "
                        f"of its games) to {root / LOST / b}")
    # 3. the published generation: mended in place when it keeps its batches and their entries, else a new one
    base = disk.gens.get(mend) if mend is not None else None
    if base is not None and base.manifest is not None and \
            any(base.manifest["batches"].get(b.id) != b.entry for b in batches.values()):
        base = None
    link = root / "current"
    if base is not None:
        _mend_generation(disk, base, batches, done)
    if base is None or disk.published != base.number:
        if disk.current_kind == "folder":
            _remove_current_copy(disk, done)
        elif disk.current_kind == "file":
            link.unlink()
            done.append(f"removed {link} (a file where the `current` link should be)")
    if base is not None and disk.published != base.number:
        swap_current(root, base.number)
        done.append(f"`current` now names generation {base.number}"
                    + (f" (it named {disk.target})" if disk.target else ""))
    elif base is None and (batches or disk.current_kind != "none" or disk.gens):
        gen = max([*disk.gens, disk.named or 0, 0]) + 1
        entries = {b.id: b.entry for b in batches.values()}
        build_generation(root, gen, entries)
        swap_current(root, gen)
        done.append(f"published generation {gen}: {_batches(len(entries))}, "
                    f"{_games(sum(int(e.get('games', 0)) for e in entries.values()))}"
                    + (f" (`current` had named {disk.target})" if disk.target and disk.published is None else ""))
        if not entries:
            done.append("no batch of the dataset is left: import its logs again")
    # 4. the other kept generation's manifest, and what no kept generation needs (as a writer sweeps)
    disk = _Disk(root, sums)
    if disk.published is not None:
        for g in disk._kept(disk.published):
            if g.manifest is None:
                _rebuild_manifest(disk, g, done)
        before = {*gens.iterdir(), *(store.iterdir() if store.is_dir() else ())}
        _sweep(root)
        for p in sorted(before - {*gens.iterdir(), *(store.iterdir() if store.is_dir() else ())}):
            why = leftovers.get(p.name, ("no kept generation names it", False))[0] if p.parent == store else \
                f"an old generation: the last {KEEP_GENERATIONS} are kept"
            done.append(f"removed {p} ({why})")
        _fsync_dir(gens)
        _clear_lost_and_found(_Disk(root, sums), done)


def _link_over(source: Path, target: Path) -> None:
    """Make ``target`` a hard link to ``source``, atomically (a reader sees the old file or the new)."""
    target.parent.mkdir(parents=True, exist_ok=True)
    tmp = target.with_name(f".{target.name}.{uuid.uuid4().hex}.tmp")
    os.link(source, tmp)
    os.replace(tmp, target)


def _restore_store(disk: _Disk, b: _Batch, summarize: Summarize | None, done: list[str]) -> None:
    """Give ``b`` a whole folder in the store: each file linked from its sound copy; the derived counters
    recomputed and the record rewritten where no sound copy is left (the entry then follows)."""
    folder = disk.root / "store" / b.id
    folder.mkdir(parents=True, exist_ok=True)
    for name, sound in sorted(b.sound.items()):
        stored = folder / name
        if not _same_file(stored, sound) and disk.sums.of(stored) != disk.sums.of(sound):
            _link_over(sound, stored)
            done.append(f"restored {stored} from {sound}")
    for p in folder.iterdir():  # what an interrupted atomic write left
        if p.name.startswith("."):
            p.unlink()
    recorded = dict(b.entry.get("checksums") or {})
    sums = dict(recorded)
    for name in [n for n in b.missing if n != RECORD]:  # derived counters: recomputed, or left out
        (folder / name).unlink(missing_ok=True)
        if summarize is not None:
            summarize(folder)
        if (folder / name).is_file():
            sums[name] = file_checksum(folder / name)
            done.append(f"recomputed {folder / name} from the batch's tables (it was damaged)")
        else:
            sums.pop(name, None)
            done.append(f"left {name} out of batch {b.id} (it was damaged): statistics come from the raw tables")
    if RECORD in recorded and (RECORD in b.missing or sums != recorded) or b.source == "files":
        b.entry = write_record(folder, b.id, _clean(b.entry), {k: v for k, v in sums.items() if k != RECORD})
        if b.entry["checksums"].get(RECORD) != recorded.get(RECORD) or RECORD in b.missing:
            done.append(f"rewrote {folder / RECORD} (the batch's record) from its "
                        f"{'files' if b.source == 'files' else 'manifest entry'}")
    b.sound = {name: folder / name for name in b.entry.get("checksums") or b.sound if (folder / name).is_file()}
    b.missing = []
    _fsync_dir(folder)


def _clean(entry: dict) -> dict:
    return {k: v for k, v in entry.items() if k != "unreadable"}


def _set_aside_batch(disk: _Disk, b: _Batch, done: list[str]) -> None:
    """Take a batch that lost a table into lost+found/<id>/: a copy of each of its files kept, with why."""
    lost = disk.root / LOST / b.id
    lost.mkdir(parents=True, exist_ok=True)
    for name in sorted(set(b.entry.get("checksums") or {}) | set(b.missing) | set(b.sound)):
        copy = b.sound.get(name) or next((p for p in disk.copies(b.id, name) if p.is_file()), None)
        if copy is not None and not (lost / name).exists():
            os.link(copy, lost / name)
    if RECORD in b.missing or not (lost / RECORD).is_file():
        write_file_atomic(lost / RECORD, seal(record_of(b.id, _clean(b.entry))))
    gone = [n for n in b.missing if n != RECORD and n.removesuffix(".parquet") not in DERIVED]
    note = {"batch": b.id, "reason": f"no sound copy was left of {', '.join(gone)}",
            "games": int(b.entry.get("games", 0)), "files": b.files}
    write_file_atomic(lost / SET_ASIDE, seal(note))
    _fsync_dir(lost)
    if (disk.root / "store" / b.id).exists():
        shutil.rmtree(disk.root / "store" / b.id)
    done.append(f"took batch {b.id} out of the dataset into {lost} ({note['reason']}): "
                f"{_games(note['games'])} from {_files_list(b.files)} to import again")


def _mend_generation(disk: _Disk, gen: _Gen, batches: dict[str, _Batch], done: list[str]) -> None:
    """Mend a generation in place: what it names, as it was written (links to the store's files, its
    manifest rebuilt from the batches' records)."""
    for b in batches.values():
        part = gen.path / f"batch={b.id}"
        part.mkdir(exist_ok=True)
        wanted = set(b.entry.get("checksums") or b.sound)
        for name in sorted(wanted):
            stored = disk.root / "store" / b.id / name
            if stored.is_file() and not _same_file(part / name, stored) and \
                    disk.sums.of(part / name) != disk.sums.of(stored):
                _link_over(stored, part / name)
                done.append(f"restored {part / name} from {stored}")
        for extra in sorted(p for p in part.iterdir() if b.entry.get("checksums") and p.name not in wanted):
            if extra.name.startswith("."):
                extra.unlink()
            else:
                _out_of_the_way(disk.root, extra, done, "a file the manifest does not name")
        _fsync_dir(part)
    if gen.manifest is not None:
        for extra in sorted(gen.folders - set(gen.manifest["batches"])):
            _out_of_the_way(disk.root, gen.path / f"batch={extra}", done, "a batch folder the manifest does not name")
    if gen.manifest is None:
        write_file_atomic(gen.path / MANIFEST, seal({"schema_version": SCHEMA_VERSION, "generation": gen.number,
                                                     "batches": {b.id: b.entry for b in batches.values()}}))
        done.append(f"rebuilt {gen.path / MANIFEST} from its batches' records"
                    + ("" if gen.why == "missing" else f" (it was damaged: {gen.why})"))
    _fsync_dir(gen.path)


def _rebuild_manifest(disk: _Disk, g: _Gen, done: list[str]) -> None:
    """A kept generation other than the published one: its manifest rebuilt from its batch folders' records."""
    entries = {}
    for b in sorted(g.folders):
        found = disk.entry(b, None)
        entry = found[0] if found is not None else disk.rebuilt_entry(b, g.number)
        if entry is not None:
            entries[b] = _clean(entry)
    write_file_atomic(g.path / MANIFEST, seal({"schema_version": SCHEMA_VERSION, "generation": g.number,
                                               "batches": entries}))
    done.append(f"rebuilt {g.path / MANIFEST} from its batches' records")


def _remove_current_copy(disk: _Disk, done: list[str]) -> None:
    """A folder named ``current`` (a copy that followed the link): removed if every file in it is a generation's,
    byte for byte; else moved out of the way."""
    link = disk.root / "current"
    try:
        n = json.loads((link / MANIFEST).read_bytes()).get("generation")
    except (OSError, ValueError, AttributeError):
        n = None
    gen = disk.gens.get(n) if isinstance(n, int) else None
    same = gen is not None and all(
        p.is_dir() or (gen.path / p.relative_to(link)).is_file()
        and disk.sums.of(p) == disk.sums.of(gen.path / p.relative_to(link)) for p in link.rglob("*"))
    if same:
        shutil.rmtree(link)
        done.append(f"removed {link} (a folder where the `current` link should be: a copy of generation {n})")
    else:
        _out_of_the_way(disk.root, link, done, "a folder where the `current` link should be")


def _clear_lost_and_found(disk: _Disk, done: list[str]) -> None:
    """A set-aside batch whose games are all back (imported again) is no longer needed."""
    lost = disk.root / LOST
    folders = sorted(p for p in lost.iterdir() if (p / SET_ASIDE).is_file()) if lost.is_dir() else []
    if not folders:
        return
    _, batches, _ = disk.plan()
    ids = _published_ids(disk, batches)
    for p in folders:
        if _games_back(p, ids):
            shutil.rmtree(p)
            done.append(f"removed {p} (a set-aside batch whose games are all back in the dataset)")
    if not any(lost.iterdir()):
        lost.rmdir()
