"""Heavy libraries imported on first use, so that a command that does not need them starts fast.

``auditor audit`` reads a log and prints findings: it needs neither pyarrow, nor DuckDB,
nor NumPy, and importing them costs more than auditing a small log.

>>> json = lazy("json")
>>> json.dumps([1])
'[1]'
"""

from __future__ import annotations

import importlib
from types import ModuleType


class LazyModule:
    """A module imported when one of its attributes is first read."""

    __slots__ = ("_name", "_module")

    def __init__(self, name: str):
        object.__setattr__(self, "_name", name)
        object.__setattr__(self, "_module", None)

    def _load(self) -> ModuleType:
        module = self._module
        if module is None:
            module = importlib.import_module(self._name)
            object.__setattr__(self, "_module", module)
        return module

    def __getattr__(self, attr: str):
        return getattr(self._load(), attr)

    def __repr__(self) -> str:
        return f"<lazy module {self._name}>"


def lazy(name: str) -> LazyModule:
    """``name``, imported on first use."""
    return LazyModule(name)
