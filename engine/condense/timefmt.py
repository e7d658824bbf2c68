"""Timestamps as Pi writes them: ISO strings with milliseconds on entries, epoch ms inside messages."""

from __future__ import annotations

import time
from datetime import UTC, datetime


def now_ms() -> int:
    return time.time_ns() // 1_000_000


def ms_to_iso(ms: int) -> str:
    """`2026-03-15T10:00:00.000Z`, the shape of JavaScript's `toISOString()`."""
    stamp = datetime.fromtimestamp(ms / 1000, tz=UTC)
    return stamp.strftime("%Y-%m-%dT%H:%M:%S.") + f"{ms % 1000:03d}Z"


def now_iso() -> str:
    return ms_to_iso(now_ms())


def iso_to_ms(text: object) -> int:
    """Epoch ms of an ISO timestamp; 0 for anything unreadable (old files carry odd values)."""
    if not isinstance(text, str):
        return 0
    try:
        return int(datetime.fromisoformat(text.replace("Z", "+00:00")).timestamp() * 1000)
    except ValueError:
        return 0
