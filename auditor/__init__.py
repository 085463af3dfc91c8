"""auditor: replay and audit recorded hands of Pitch."""

__version__ = "0.5.0"
