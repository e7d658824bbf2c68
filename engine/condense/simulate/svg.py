"""A hand-written SVG line chart: context tokens per request, one line per strategy, busts marked.

No plotting library is available, and a chart this plain needs none: one panel per session, axes
with round ticks, a legend, a small cross wherever a request rewrote its cached prefix, and a dashed
line at the model's context window when a strategy climbs past it.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from pathlib import Path
from xml.sax.saxutils import escape

from condense.simulate.report import SessionReport
from condense.simulate.simulation import StrategyResult

WIDTH = 960
PANEL_HEIGHT = 420
MARGIN_LEFT, MARGIN_RIGHT, MARGIN_TOP, MARGIN_BOTTOM = 80, 220, 40, 50
COLORS = ("#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#17becf", "#8c564b", "#e377c2",
          "#7f7f7f", "#bcbd22")
DASHES = ("", "6 3", "", "2 2", "", "8 3 2 3", "", "4 4")


def nice_step(span: float, ticks: int = 5) -> float:
    """A round tick step (1, 2 or 5 times a power of ten) giving about `ticks` intervals."""
    if span <= 0:
        return 1.0
    raw = span / ticks
    power: float = 10 ** math.floor(math.log10(raw))  # an int from 1 up, exact for the labels
    return next(m * power for m in (1, 2, 5, 10) if m * power >= raw)


def _tick_label(value: float) -> str:
    if value >= 1000:
        return f"{value / 1000:g}k"
    return f"{value:g}"


class _Panel:
    def __init__(self, report: SessionReport, top: float) -> None:
        self.report = report
        self.top = top
        self.x0, self.x1 = MARGIN_LEFT, WIDTH - MARGIN_RIGHT
        self.y0, self.y1 = top + PANEL_HEIGHT - MARGIN_BOTTOM, top + MARGIN_TOP
        self.count = max((len(s.context_tokens) for s in report.strategies), default=1)
        peak = max((max(s.context_tokens, default=0.0) for s in report.strategies), default=0.0)
        self.y_step = nice_step(peak or 1.0)
        self.y_max = math.ceil((peak or 1.0) / self.y_step) * self.y_step
        self.x_step = nice_step(max(self.count - 1, 1))

    def x(self, index: float) -> float:
        return self.x0 + (self.x1 - self.x0) * index / max(self.count - 1, 1)

    def y(self, tokens: float) -> float:
        return self.y0 - (self.y0 - self.y1) * tokens / self.y_max

    def x_ticks(self) -> list[float]:
        """Request numbers (1-based) to label: the first one, then round multiples of the step."""
        ticks = [1.0]
        value = self.x_step
        while value <= self.count + 1e-9:
            if value > 1:
                ticks.append(value)
            value += self.x_step
        return ticks

    def axes(self) -> list[str]:
        name = escape(Path(self.report.session).name)
        out = [f'<text x="{self.x0}" y="{self.top + 22}" class="title">'
               f"{name}: context tokens per request</text>"]
        value = 0.0
        while value <= self.y_max + 1e-9:
            y = self.y(value)
            out.append(f'<line x1="{self.x0}" y1="{y:.1f}" x2="{self.x1}" y2="{y:.1f}" class="grid"/>')
            out.append(f'<text x="{self.x0 - 6}" y="{y + 4:.1f}" text-anchor="end">'
                       f"{_tick_label(value)}</text>")
            value += self.y_step
        for number in self.x_ticks():
            x = self.x(number - 1)
            out.append(f'<line x1="{x:.1f}" y1="{self.y0}" x2="{x:.1f}" y2="{self.y0 + 5}" class="axis"/>')
            out.append(f'<text x="{x:.1f}" y="{self.y0 + 18}" text-anchor="middle">{number:g}</text>')
        window = self.report.context_window
        if 0 < window <= self.y_max:
            y = self.y(window)
            out.append(f'<line x1="{self.x0}" y1="{y:.1f}" x2="{self.x1}" y2="{y:.1f}" class="window"/>')
            out.append(f'<text x="{self.x1 - 4}" y="{y - 4:.1f}" text-anchor="end" class="window-label">'
                       f"context window</text>")
        out.append(f'<line x1="{self.x0}" y1="{self.y0}" x2="{self.x1}" y2="{self.y0}" class="axis"/>')
        out.append(f'<line x1="{self.x0}" y1="{self.y0}" x2="{self.x0}" y2="{self.y1}" class="axis"/>')
        middle = (self.x0 + self.x1) / 2
        out.append(f'<text x="{middle:.1f}" y="{self.y0 + 38}" text-anchor="middle">model request</text>')
        ymid = (self.y0 + self.y1) / 2
        out.append(f'<text x="{self.x0 - 58}" y="{ymid:.1f}" text-anchor="middle" '
                   f'transform="rotate(-90 {self.x0 - 58} {ymid:.1f})">prompt tokens</text>')
        return out

    def line(self, result: StrategyResult, number: int) -> list[str]:
        color, dash = COLORS[number % len(COLORS)], DASHES[number % len(DASHES)]
        points = " ".join(f"{self.x(i):.1f},{self.y(t):.1f}" for i, t in enumerate(result.context_tokens))
        dashed = f' stroke-dasharray="{dash}"' if dash else ""
        out = [f'<polyline points="{points}" fill="none" stroke="{color}" stroke-width="1.4"{dashed}>'
               f"<title>{escape(result.name)}</title></polyline>"]
        for i in result.bust_requests:
            x, y = self.x(i), self.y(result.context_tokens[i])
            out.append(f'<path d="M{x - 3:.1f},{y - 3:.1f}l6,6m0,-6l-6,6" stroke="{color}" '
                       'stroke-width="1.2"/>')
        return out

    def legend(self) -> list[str]:
        left = self.x1 + 16
        out = [f'<text x="{left}" y="{self.y1 + 4}" class="legend-title">strategy</text>']
        for number, result in enumerate(self.report.strategies):
            y = self.y1 + 22 + number * 20
            color, dash = COLORS[number % len(COLORS)], DASHES[number % len(DASHES)]
            dashed = f' stroke-dasharray="{dash}"' if dash else ""
            out.append(f'<line x1="{left}" y1="{y - 4}" x2="{left + 24}" y2="{y - 4}" stroke="{color}" '
                       f'stroke-width="2"{dashed}/>')
            out.append(f'<text x="{left + 30}" y="{y}">{escape(result.name)}</text>')
        y = self.y1 + 22 + len(self.report.strategies) * 20 + 6
        out.append(f'<path d="M{left + 9},{y - 7}l6,6m0,-6l-6,6" stroke="#333" stroke-width="1.2"/>')
        out.append(f'<text x="{left + 30}" y="{y}">cache bust</text>')
        return out


def plot_svg(reports: Sequence[SessionReport]) -> str:
    height = PANEL_HEIGHT * max(len(reports), 1)
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{height}" '
             f'viewBox="0 0 {WIDTH} {height}" font-family="sans-serif" font-size="11">',
             "<style>.grid{stroke:#e4e4e4;stroke-width:1}.axis{stroke:#333;stroke-width:1}"
             ".title{font-size:14px;font-weight:bold}.legend-title{font-weight:bold}"
             ".window{stroke:#999;stroke-width:1;stroke-dasharray:5 4}.window-label{fill:#777}</style>",
             f'<rect width="{WIDTH}" height="{height}" fill="white"/>']
    for position, report in enumerate(reports):
        panel = _Panel(report, position * PANEL_HEIGHT)
        parts += panel.axes()
        for number, result in enumerate(report.strategies):
            parts += panel.line(result, number)
        parts += panel.legend()
    parts.append("</svg>")
    return "\n".join(parts) + "\n"
