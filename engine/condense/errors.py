"""The root of condense's exceptions, so a library user catches everything the engine raises on purpose
with one `except CondenseError`, while each kind keeps the built-in base callers already catch.

    CondenseError
    ├── MessageError        (also ValueError)    a message the engine cannot hold without losing part of it
    ├── StoreInUseError     (also RuntimeError)  the store folder is open for writing elsewhere
    ├── StoreWriteError     (also OSError)       the store could not be written (a full disk): kept in memory
    ├── StoreFormatError    (also ValueError)    the store's session file is not one condense can continue
    ├── ConfigError         (also ValueError)    a setting or summariser condense cannot run with
    └── SummarizerAborted                        the caller's signal aborted the summariser
"""

from __future__ import annotations


class CondenseError(Exception):
    """Anything condense raises deliberately; an exception of another type is a bug."""


class MessageError(CondenseError, ValueError):
    """A message the engine cannot hold without losing part of it, or one that is malformed; the one line
    says which message, which field, and what to change."""


class ConfigError(CondenseError, ValueError):
    """A setting or a summariser the engine cannot run with; the text names the key and what it expects."""


class StoreFormatError(CondenseError, ValueError):
    """The store folder's session file is not a Pi session condense can continue (no header, an old version)."""


class StoreInUseError(CondenseError, RuntimeError):
    """The store folder is already open for writing, in this process or another."""


class StoreWriteError(CondenseError, OSError):
    """Entries could not be written to the store folder (a full disk, a read-only folder). They are kept
    in memory and written with the next entry, before it; the text says what is not saved yet."""
