"""The root of condense's exceptions, so a library user catches everything the engine raises on purpose
with one `except CondenseError`, while each kind keeps the built-in base callers already catch.

    CondenseError
    ├── MessageError        (also ValueError)    a message the engine cannot hold without losing part of it
    ├── StoreInUseError     (also RuntimeError)  the store folder is open for writing elsewhere
    └── SummarizerAborted                        the caller's signal aborted the summariser
"""

from __future__ import annotations


class CondenseError(Exception):
    """Anything condense raises deliberately; an exception of another type is a bug."""
