"""`auditor check`: verify a dataset as ``PRAGMA integrity_check`` verifies a database, and repair it.

What is checked (docs/dataset.md describes the layout and the publish protocol):

* ``current`` names a complete generation: its manifest reads, names itself, and every batch
  it lists is there, file by file, with the checksum the manifest recorded when it was
  written (a flipped bit is found and named), a readable Parquet footer, and as many games
  as the manifest says;
* nothing is left over: a generation built but never published, one half built, a temporary
  link, staged batches with no writer at work, a stored batch no kept generation names, an
  old generation the sweep missed.

``repair`` (under the writers' lock) rolls back an interrupted publish and removes the
left-overs; a dangling ``current`` is pointed at the newest complete generation.  It never
removes a batch the published generation names: a damaged file is reported, not deleted.
"""

from __future__ import annotations

import fcntl
import json
import os
import shutil
import uuid
from dataclasses import dataclass, field
from pathlib import Path

import pyarrow.parquet as pq

from .dataset import KEEP_GENERATIONS, DatasetError, _fsync_dir, file_checksum, generation_of, locked
from .tables import SCHEMA_VERSION, TABLES


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
    """What the check found, and what a repair did."""

    root: Path
    generation: int | None = None
    batches: int = 0
    files: int = 0
    problems: list[Problem] = field(default_factory=list)
    repaired: list[str] = field(default_factory=list)

    def add(self, path: Path | str, what: str, detail: str = "", repairable: bool = False) -> None:
        self.problems.append(Problem(str(path), what, detail, repairable))


def _writer_active(root: Path) -> bool:
    """Whether a writer holds the dataset's lock right now (its staging folder is then in use)."""
    lock = root / ".lock"
    if not lock.exists():
        return False
    with open(lock, "a") as f:
        try:
            fcntl.flock(f, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            return True
        fcntl.flock(f, fcntl.LOCK_UN)
    return False


def _check_generation(root: Path, n: int, report: Report) -> set[str]:
    """Check generation ``n`` file by file; returns the batches it names."""
    gen = root / "gens" / str(n)
    try:
        manifest = json.loads((gen / "manifest.json").read_text("utf-8"))
        batches: dict = manifest["batches"]
    except (OSError, ValueError, KeyError, TypeError) as e:
        report.add(gen / "manifest.json", "an unreadable manifest", str(e))
        return set()
    if manifest.get("generation") != n:
        report.add(gen / "manifest.json", "a manifest that names another generation",
                   f"it says {manifest.get('generation')!r}, its folder is {n}")
    if int(manifest.get("schema_version", 1)) > SCHEMA_VERSION:
        report.add(gen / "manifest.json", "a schema version newer than this auditor's",
                   f"{manifest.get('schema_version')} > {SCHEMA_VERSION}: upgrade auditor")
    on_disk = {p.name.removeprefix("batch=") for p in gen.glob("batch=*")}
    for extra in sorted(on_disk - set(batches)):
        report.add(gen / f"batch={extra}", "a batch folder the manifest does not name")
    for batch, entry in batches.items():
        part = gen / f"batch={batch}"
        if not part.is_dir():
            report.add(part, "a batch the manifest names is missing")
            continue
        report.batches += 1
        sums: dict = entry.get("checksums") or {}
        names = {p.name for p in part.iterdir()}
        for name in sorted(names - set(sums)) if sums else ():
            report.add(part / name, "a file the manifest does not name")
        for name in sorted(set(sums) - names):
            report.add(part / name, "a file the manifest names is missing")
        for name in sorted(names):
            f = part / name
            report.files += 1
            now = file_checksum(f) if name in sums else None
            if now is not None and now != sums[name]:
                report.add(f, "a damaged file: its checksum differs from the one recorded when it was written",
                           f"recorded {sums[name]}, now {now}")
                continue
            if name.removesuffix(".parquet") not in TABLES:
                report.add(f, "a file that is no table of the dataset")
                continue
            try:
                meta = pq.read_metadata(f)
            except Exception as e:  # noqa: BLE001 - any failure to read the footer is the finding
                report.add(f, "not a readable Parquet file", str(e))
                continue
            if name == "games.parquet" and "games" in entry and meta.num_rows != entry["games"]:
                report.add(f, "a games count that differs from the manifest's",
                           f"{meta.num_rows} rows, the manifest says {entry['games']}")
            stored = root / "store" / batch / name
            if not stored.exists():
                report.add(stored, "the store's copy of a published file is missing", repairable=True)
    return set(batches)


def _require_dataset(root: Path) -> None:
    if not root.is_dir() or not any((root / p).exists() or (root / p).is_symlink()
                                    for p in ("current", "gens", "store")):
        raise CheckError(f"{root} is not a dataset (no current, gens or store): give a folder made by "
                         "`auditor import`")


def check_dataset(root: str | Path, *, holding_lock: bool = False) -> Report:
    """Verify the dataset at ``root``; raises :class:`CheckError` when there is none.

    ``holding_lock``: the caller is the writer (a repair), so ``staging`` is nobody's work in progress.
    """
    root = Path(root)
    _require_dataset(root)
    report = Report(root)
    published = generation_of(root)
    report.generation = published
    gens = root / "gens"
    numbers = sorted(int(p.name) for p in gens.iterdir() if p.name.isdigit()) if gens.is_dir() else []
    if published is None:
        target = os.readlink(root / "current") if (root / "current").is_symlink() else "?"
        report.add(root / "current", "a `current` link that names no complete generation", f"it names {target}",
                   repairable=any(_complete(root, n) for n in numbers))
    elif published == 0 and numbers:
        report.add(root / "current", "no `current` link, though the dataset has generations",
                   repairable=any(_complete(root, n) for n in numbers))
    used: set[str] = set()
    if published:
        used |= _check_generation(root, published, report)
    for n in numbers:
        if published is not None and n > published:
            report.add(gens / str(n), "a generation never published", "an interrupted publish: "
                       "`current` still names the one before", repairable=True)
        elif published and n < published and n not in _kept(numbers, published):
            report.add(gens / str(n), "an old generation the sweep did not remove", repairable=True)
        elif published and n < published:
            used |= _batches_of(root, n)
    for p in sorted(gens.iterdir()) if gens.is_dir() else ():
        if p.name.startswith("."):
            report.add(p, "a generation half built", "an interrupted publish", repairable=True)
    for p in sorted(root.glob(".current.*")):
        report.add(p, "a temporary link left by an interrupted publish", repairable=True)
    if (root / "staging").exists() and (holding_lock or not _writer_active(root)):
        report.add(root / "staging", "staged batches left by an interrupted write", repairable=True)
    store = root / "store"
    for p in sorted(store.iterdir()) if store.is_dir() and published else ():
        if p.name not in used:
            report.add(p, "a stored batch no kept generation names", repairable=True)
    return report


def _kept(numbers: list[int], published: int) -> list[int]:
    return [n for n in numbers if n <= published][-KEEP_GENERATIONS:]


def _batches_of(root: Path, n: int) -> set[str]:
    try:
        return set(json.loads((root / "gens" / str(n) / "manifest.json").read_text("utf-8"))["batches"])
    except (OSError, ValueError, KeyError):
        return set()


def _complete(root: Path, n: int) -> bool:
    """Whether generation ``n`` is whole: its manifest reads and every file it names is there, as written."""
    probe = Report(root)
    _check_generation(root, n, probe)
    return (root / "gens" / str(n) / "manifest.json").is_file() and not probe.problems


def repair_dataset(root: str | Path) -> Report:
    """Roll back an interrupted publish and remove the left-overs, under the writers' lock; then check again.

    A dangling ``current`` (a generation lost to something other than the auditor) is
    pointed at the newest complete generation; the stored batches only the lost one named
    are then kept and reported, since they may be the last copy of its games.
    """
    root = Path(root)
    _require_dataset(root)
    done: list[str] = []
    try:
        with locked(root):
            published = generation_of(root)
            gens = root / "gens"
            numbers = sorted(int(p.name) for p in gens.iterdir() if p.name.isdigit()) if gens.is_dir() else []
            lost = not published and bool(numbers)
            if lost:  # dangling or missing: the newest complete generation becomes current
                whole = [n for n in numbers if _complete(root, n)]
                if whole:
                    link = root / f".current.{uuid.uuid4().hex}"
                    os.symlink(Path("gens") / str(whole[-1]), link)
                    os.replace(link, root / "current")
                    _fsync_dir(root)
                    done.append(f"current now names generation {whole[-1]}, the newest complete one")
                    published = whole[-1]
            for p in check_dataset(root, holding_lock=True).problems:
                path = Path(p.path)
                if not p.repairable or (lost and p.what == "a stored batch no kept generation names"):
                    continue
                if p.what == "the store's copy of a published file is missing":
                    gen_copy = gens / str(published) / f"batch={path.parent.name}" / path.name
                    if gen_copy.exists():
                        path.parent.mkdir(parents=True, exist_ok=True)
                        os.link(gen_copy, path)
                        done.append(f"relinked {path} from generation {published}")
                    continue
                if path.is_symlink() or path.is_file():
                    path.unlink()
                elif path.exists():
                    shutil.rmtree(path)
                done.append(f"removed {path} ({p.what})")
            if gens.is_dir():
                _fsync_dir(gens)
    except DatasetError as e:
        raise CheckError(str(e)) from None
    after = check_dataset(root)
    after.repaired = done
    return after
