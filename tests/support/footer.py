"""Reading the TUI footer's figures as a user reads them: the pruning line and the context figure."""

from __future__ import annotations

import re
from typing import Any

FIGURE = re.compile(r"│ prune: ON · reads (\S+) · saves (\S+) \(-(\d+)%\)")


def tokens(text: str) -> tuple[int, int]:
    """A footer figure back to a count, with how far the rounding may be off."""
    if text.endswith("k"):
        return round(float(text[:-1]) * 1000), 50 if "." in text else 500
    return int(text), 0


def footer_figures(app: Any) -> tuple[str, str]:
    """The footer's context figure and its pruning line, as a user reads them."""
    lines = [line.plain for line in app.main.footer.lines(118)]
    return lines[1].split()[-2], lines[-1]
