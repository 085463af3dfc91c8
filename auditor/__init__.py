"""auditor: replay and audit recorded hands of Pitch."""

__version__ = "0.4.0"
