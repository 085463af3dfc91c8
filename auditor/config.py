"""The configuration file, as ruff reads ``[tool.ruff]``: defaults for the command line.

``auditor.toml`` (its keys at the top level), or a ``[tool.auditor]`` table in a
``pyproject.toml``, is looked for in the current folder and then in each folder above it;
the nearest wins, and in one folder ``auditor.toml`` before ``pyproject.toml``.  ``--config
FILE`` names the file instead; ``--isolated`` reads none.  An option given on the command
line wins over the file, and the file over the built-in default.

    rules = "game=11"               # every game's rules overridden, as --rules (a preset first replaces the tag's)
    select = ["S6", "R"]            # as --select: only codes starting with these
    ignore = ["S602"]               # as --ignore
    data = "club.parquet"           # the dataset: import's --out, stats' and query's data, check's and compact's
    format = "json"                 # audit's --format

``rules`` may also be a table, ``[rules]`` with ``game = 11`` and ``low = "taker"`` (``true`` and
``false`` for on and off).  A club's house rules are presets of their own, usable by name in a
``[Rules "thursday"]`` tag and in ``--rules``::

    [presets.thursday]
    base = "auction"                # a built-in preset, or a house preset declared above
    game = 11
    low = "taker"

A path is read from the file's folder.  An unknown key, or a value of the wrong kind, is an error
naming the file and the line.
"""

from __future__ import annotations

import os
import re
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .findings import CATALOG
from .rules import RulesError, _did_you_mean, define_house_presets, resolve_rules

#: The keys of the file: what each sets, for `auditor config` and the errors.
KEYS = {
    "rules": "every game's rules overridden, as --rules: a preset and/or key=value words (or a table of keys)",
    "select": "only finding codes starting with these, as --select",
    "ignore": "finding codes starting with these left out, as --ignore",
    "data": "the dataset: import's --out, and what stats, query, check and compact read without one given",
    "format": "audit's --format: text, json, jsonl or csv",
    "presets": "the club's house presets, each a table: a base preset and the keys it changes",
}
AUDIT_FORMATS = ("text", "json", "jsonl", "csv")
NAMES = ("auditor.toml", "pyproject.toml")


class ConfigError(ValueError):
    """A configuration file that cannot be read or holds a bad key or value: the message names the file and line."""


@dataclass(frozen=True)
class Setting:
    """One value in force and where it came from: ``FILE:LINE``, or ``default``."""

    value: Any
    origin: str = "default"


@dataclass(frozen=True)
class Config:
    """The settings in force, each with its origin; ``path`` is the file read (None: none)."""

    path: Path | None = None
    settings: dict[str, Setting] = field(default_factory=lambda: {
        "rules": Setting(""), "select": Setting(()), "ignore": Setting(()), "data": Setting(None),
        "format": Setting("text"), "presets": Setting({})})

    def __getitem__(self, key: str) -> Any:
        return self.settings[key].value


def find(start: Path) -> Path | None:
    """The configuration file for a run in ``start``: the nearest ``auditor.toml``, or ``pyproject.toml``
    with a ``[tool.auditor]`` table, in ``start`` or a folder above it."""
    for folder in (start, *start.parents):
        for name in NAMES:
            path = folder / name
            if path.is_file() and (name == "auditor.toml" or _has_tool_table(path)):
                return path
    return None


def _has_tool_table(path: Path) -> bool:
    try:
        return re.search(r"^\s*\[\s*tool\s*\.\s*auditor\s*[\].]", path.read_text("utf-8"), re.M) is not None
    except (OSError, UnicodeDecodeError):
        return False


def load(path: Path | None = None, isolated: bool = False, cwd: Path | None = None) -> Config:
    """The settings in force: from ``path`` if given, else from the file :func:`find` finds, none if ``isolated``.

    The house presets of the file in force become known to the core by name (none without a file).
    """
    define_house_presets({})
    if isolated:
        return Config()
    if path is None:
        path = find((cwd or Path.cwd()).resolve())
        if path is None:
            return Config()
    try:
        text = Path(path).read_text("utf-8")
    except OSError as e:
        raise ConfigError(f"cannot read the configuration file {path}: {e.strerror or e}") from None
    except UnicodeDecodeError:
        raise ConfigError(f"{path}: the configuration file is not UTF-8 text") from None
    try:
        doc = tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        # the standard library says where in its message: "... (at line 3, column 1)"
        at = re.search(r"\s*\(at line (\d+), column (\d+)\)$", str(e))
        where, why = (f"{path}:{at[1]}:{at[2]}", str(e)[:at.start()]) if at else (str(path), str(e))
        raise ConfigError(f"{where}: not valid TOML: {why}") from None
    section: tuple[str, ...] = ()
    if Path(path).name == "pyproject.toml":
        section = ("tool", "auditor")
        doc = doc.get("tool", {}).get("auditor", {})
        if not isinstance(doc, dict):
            raise ConfigError(f"{path}:{_line(text, section, None)}: [tool.auditor] must be a table")
    settings = dict(Config().settings)
    # the house presets first: the rules setting may name one
    for key, value in sorted(doc.items(), key=lambda kv: kv[0] != "presets"):
        where = f"{path}:{_line(text, section, key)}"
        if key not in KEYS:
            raise ConfigError(f"{where}: unknown key {key!r}{_did_you_mean(key, KEYS)} (known: {', '.join(KEYS)})")
        if key == "presets":
            settings[key] = Setting(_presets(value, text, section, path), where)
            continue
        settings[key] = Setting(_check(key, value, where, Path(path).parent), where)
    return Config(Path(path), settings)


def _presets(value: Any, text: str, section: tuple[str, ...], path: Path) -> dict:
    """The house presets of a file, made known to the core; a bad one is an error at its line."""
    if not isinstance(value, dict) or not all(isinstance(v, dict) for v in value.values()):
        where = f"{path}:{_line(text, section, 'presets')}"
        raise ConfigError(f"{where}: presets takes tables, one a preset: [presets.thursday] with base = \"auction\"")
    names = list(value)
    for i, name in enumerate(names):
        where = f"{path}:{_line(text, (*section, 'presets'), name)}"
        for k, v in value[name].items():
            if not isinstance(v, bool | int | str | list):
                raise ConfigError(f"{where}: presets.{name}.{k} takes a number, a word, true or false, not {v!r}")
        try:  # one at a time, so that an error names its own preset
            define_house_presets({n: value[n] for n in names[:i + 1]})
        except RulesError as e:
            raise ConfigError(f"{where}: {e}") from None
    return value


def _check(key: str, value: Any, where: str, folder: Path) -> Any:
    """``value`` for ``key`` as the command line would take it, or a :class:`ConfigError` saying what is wrong."""
    if key == "rules":
        if isinstance(value, dict):
            words = []
            for k, v in value.items():
                if isinstance(v, bool):
                    v = "on" if v else "off"
                elif isinstance(v, list):
                    v = ",".join(map(str, v))
                elif not isinstance(v, int | str):
                    raise ConfigError(f"{where}: rules.{k} takes a number, a word, true or false, not {v!r}")
                words.append(f"{k}={v}")
            value = " ".join(words)
        if not isinstance(value, str):
            raise ConfigError(f"{where}: rules takes a string (\"setback game=11\") or a table of keys, not {value!r}")
        try:
            resolve_rules("auction", value)
        except RulesError as e:
            raise ConfigError(f"{where}: rules: {e}") from None
        return value
    if key in ("select", "ignore"):
        if isinstance(value, str):
            value = [value]
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            raise ConfigError(f"{where}: {key} takes a list of code prefixes ([\"S6\", \"R501\"]), not {value!r}")
        for prefix in value:
            if not any(c.startswith(prefix.upper()) for c in CATALOG):
                raise ConfigError(f"{where}: {key}: no finding code starts with {prefix!r}"
                                  f"{_did_you_mean(prefix.upper(), CATALOG)} (see `auditor explain --all`)")
        return tuple(value)
    if key == "data":
        if not isinstance(value, str) or not value:
            raise ConfigError(f"{where}: data takes the path of a dataset folder, not {value!r}")
        return str(folder / os.path.expanduser(value))
    if not isinstance(value, str) or value not in AUDIT_FORMATS:
        raise ConfigError(f"{where}: format must be one of {', '.join(AUDIT_FORMATS)}, not {value!r}"
                          + (_did_you_mean(value, AUDIT_FORMATS) if isinstance(value, str) else ""))
    return value


def _line(text: str, section: tuple[str, ...], key: str | None) -> str:
    """``line:column`` of ``key`` (None: of the section's header) in ``section`` of ``text``; 1:1 where not found."""
    current: tuple[str, ...] = ()
    header = re.compile(r"^\s*\[\s*([^\]\[]+?)\s*\]")
    assign = re.compile(r"^\s*(\"[^\"]*\"|'[^']*'|[A-Za-z0-9_-]+)\s*=")
    for n, line in enumerate(text.splitlines(), 1):
        m = header.match(line)
        if m:
            current = tuple(p.strip().strip("\"'") for p in m.group(1).split("."))
            # a section's header, or a key given as a table ([rules]): at its bracket
            if current == section if key is None else current == (*section, key):
                return f"{n}:{line.index('[') + 1}"
            continue
        m = assign.match(line)
        if m and key is not None and current == section and m.group(1).strip("\"'") == key:
            return f"{n}:{m.start(1) + 1}"
    return "1:1"


def describe(cfg: Config) -> list[dict[str, Any]]:
    """Every setting in force, its value and where it came from (``auditor config``)."""
    return [{"key": k, "value": s.value if not isinstance(s.value, tuple) else list(s.value), "origin": s.origin,
             "meaning": KEYS[k]} for k, s in cfg.settings.items()]
