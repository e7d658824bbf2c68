"""Out-of-band reports of degraded pruning (a chain range that did not resolve, a swept orphan...).

They go to `context-prune-diagnostic` session entries, never into the model's context, once per
`(kind, dedup_key)` so a condition that persists writes one entry rather than one per render. The
render path calls `report`, so a failing write must never raise: it is logged, and the key is not
marked seen, so the next render tries again.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping
from typing import Any, Literal

from condense.plural import counted
from condense.records import DIAGNOSTIC

DiagnosticKind = Literal["unresolved-range", "range-id-mismatch", "orphan-sweep", "backfill-empty"]

KINDS: tuple[DiagnosticKind, ...] = ("unresolved-range", "range-id-mismatch", "orphan-sweep", "backfill-empty")

_log = logging.getLogger("condense")


class DiagnosticSink:
    def __init__(self, append: Callable[[str, Any], None]) -> None:
        self._append = append
        self._seen: set[tuple[str, str]] = set()
        self._counts: dict[DiagnosticKind, int] = dict.fromkeys(KINDS, 0)

    def report(self, kind: DiagnosticKind, dedup_key: str, detail: str) -> None:
        """Persist `{kind, detail}` unless this `(kind, dedup_key)` was already persisted."""
        if (kind, dedup_key) in self._seen:
            return
        try:
            self._append(DIAGNOSTIC, {"kind": kind, "detail": detail})
        except Exception as exc:  # any failure of the host's write: never into the render path
            _log.exception("condense: could not record a %s diagnostic (%s): %s", kind, dedup_key, exc)
            return
        self._seen.add((kind, dedup_key))
        self._counts[kind] += 1

    def counts(self) -> dict[DiagnosticKind, int]:
        return dict(self._counts)

    def reset(self) -> None:
        """On session start and tree navigation, like every other in-memory piece of prune state."""
        self._seen.clear()
        self._counts = dict.fromkeys(KINDS, 0)


def status_suffix(counts: Mapping[DiagnosticKind, int]) -> str:
    """` · 3 warnings (/pruner status)` for the footer, "" while there are none: pi-condense's `diag u2/o1`
    meant nothing to a user, and `/pruner status` names each kind."""
    total = sum(counts.values())
    return f" · {counted(total, 'warning')} (/pruner status)" if total else ""
