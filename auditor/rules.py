"""Rule presets as data: one frozen rule set, named presets, overrides by key.

The presets are declared once, in ``auditor/presets.toml``; the keys (type, range, choices,
meaning) once, in the core (``core/src/rules/keys.rs``), which reads the presets, resolves a
game's ``[Rules "partnership game=11"]`` tag (or ``--rules`` on the command line) and answers
everything asked of a rule set here.  The engine never asks which preset it is running, only
what a key says.  A club's house presets (``auditor.toml``) are presets of their own: a base
preset and the keys it changes (:func:`define_house_presets`).

>>> r = parse_rules("auction game=11")
>>> r.preset, r.game, r.low, r.dealer_steal
('auction', 11, 'holder', True)
>>> parse_rules("setback").max_bid, parse_rules("partnership").max_bid
(4, 5)
>>> parse_rules("bridge")
Traceback (most recent call last):
...
auditor.rules.RulesError: unknown preset 'bridge' (known: auction, sell, setback, partnership, cutthroat, tenpoint, tenpoint52, smear)
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from difflib import get_close_matches
from typing import Any

from . import _core


class RulesError(ValueError):
    """A ``Rules`` text that names an unknown preset, key or value.

    ``offset`` is the 0-based position in the text of the offending word.
    """

    def __init__(self, message: str, offset: int = 0):
        super().__init__(message)
        self.offset = offset


@dataclass(frozen=True)
class Key:
    """One rule key, as the core declares it: its name, meaning, and the values it accepts."""

    name: str
    meaning: str
    kind: str  # "int", "bool", "choice", "range", "bid", "words" or "by-players"
    choices: tuple[str, ...] = ()
    bounds: tuple[int, int] | None = None  # the range of every number in the value


#: The range of the number a bid word may be: a bigger one is no bid (A304), never a contract.
BID_NUMBER_MAX = 99

#: Every rule key, in the order the docs list them: the core's declarations.
KEYS: tuple[Key, ...] = tuple(Key(d["name"], d["meaning"], d["kind"], tuple(d["choices"]),
                                  tuple(d["bounds"]) if d["bounds"] else None) for d in _core.rule_keys())
KEY_BY_NAME = {k.name: k for k in KEYS}

#: One complete rule set: every key reads as an attribute (``rules.game``), beside what follows
#: from them (``partnership``, ``deck_kind``, ``point_names``, ``top_bid`` ...).
Rules = _core.Rules


def _core_call(f, *args):
    try:
        return f(*args)
    except _core.RulesProblem as e:
        raise RulesError(*e.args) from None


def preset(name: str) -> Rules:
    """The named preset (built in, or a house preset), unchanged."""
    return _core_call(_core.preset, name)


def parse_rules(text: str) -> Rules:
    """Read a ``Rules`` tag value: a preset name, then ``key=value`` overrides."""
    return _core_call(_core.Rules, text)


def with_overrides(rules: Rules, text: str, base_offset: int = 0) -> Rules:
    """``rules`` with the ``key=value`` words of ``text`` applied, in order."""
    return _core_call(_core.with_overrides, rules, text, base_offset)


def resolve_rules(tag: str | None, override: str = "") -> Rules:
    """The rule set of a game: its ``Rules`` tag, then the run's ``--rules`` overrides.

    ``override`` may be a preset name (replacing the tag's) followed by ``key=value`` words.
    """
    return _core_call(_core.resolve_rules, tag, override)


class _Presets(Mapping):
    """Every preset by name, built in then house presets, as the core knows them now."""

    def __getitem__(self, name: str) -> Rules:
        if name not in _core.preset_names():
            raise KeyError(name)
        return preset(name)

    def __iter__(self) -> Iterator[str]:
        return iter(_core.preset_names())

    def __len__(self) -> int:
        return len(_core.preset_names())


PRESETS: Mapping[str, Rules] = _Presets()


def define_house_presets(presets: Mapping[str, Mapping[str, Any]]) -> None:
    """Make a club's presets known by name: each ``{"base": "auction", "game": 11, ...}``.

    Raises :class:`RulesError` naming the preset and what is wrong (an unknown base or key,
    a value out of range, a name taken by a built-in preset), with a did-you-mean.
    """
    entries = []
    for name, body in presets.items():
        body = dict(body)
        base = body.pop("base", None)
        if not isinstance(base, str):
            raise RulesError(f"house preset {name!r}: it needs a base preset (base = \"auction\")")
        entries.append((name, base, [(k, format_setting(v)) for k, v in body.items()]))
    try:
        _core.define_house_presets(entries)
    except ValueError as e:
        raise RulesError(str(e)) from None


def format_setting(value: Any) -> str:
    """A value of a configuration file as a ``Rules`` tag writes it (``on``, ``11``, ``a,b``)."""
    if isinstance(value, bool):
        return "on" if value else "off"
    if isinstance(value, (list, tuple)):
        return ",".join(format_setting(v) for v in value)
    return str(value)


def format_value(key: Key, rules: Rules) -> str:
    """``key``'s value in ``rules`` as a ``Rules`` tag writes it."""
    return rules.as_dict()[key.name]


def max_seats(rules: Rules) -> int:
    """The most players a rule set can deal to: each needs ``deal_size`` cards from the deck.

    >>> max_seats(preset("cutthroat")), max_seats(preset("tenpoint"))
    (8, 6)
    """
    return rules.max_seats


def bid_number(word: str) -> int | None:
    """The number a bid word is, when it is one within range (ASCII digits, 0 to 99).

    >>> bid_number("3"), bid_number("100"), bid_number("²"), bid_number("pass")
    (3, None, None, None)
    """
    if not (word.isascii() and word.isdigit()) or len(word) > 3:
        return None
    n = int(word)
    return n if n <= BID_NUMBER_MAX else None


def _did_you_mean(word: str, known: Iterable[str]) -> str:
    """`` (did you mean 'pass'?)`` when a known word is close to ``word``, else nothing.

    >>> _did_you_mean("partnersip", PRESETS), _did_you_mean("zzz", PRESETS)
    (" (did you mean 'partnership'?)", '')
    """
    close = get_close_matches(word, list(known), n=1, cutoff=0.75)
    return f" (did you mean {close[0]!r}?)" if close else ""


RULE_FIELDS = ("preset", *(k.name for k in KEYS))


def presets_markdown() -> str:
    """The value of every key in every built-in preset, as a Markdown table (docs/rules.md quotes it)."""
    names = [n for n in _core.preset_names() if _core.preset_info(n)["base"] is None]
    values = {n: _core.preset_info(n)["values"] for n in names}
    out = ["| key | " + " | ".join(f"`{n}`" for n in names) + " |", "|---|" + "---|" * len(names)]
    for k in KEYS:
        out.append(f"| `{k.name}` | " + " | ".join(values[n][k.name] for n in names) + " |")
    return "\n".join(out) + "\n"
