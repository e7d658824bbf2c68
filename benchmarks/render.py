"""Render cost of condense per model request, against serialising that request (which the host pays anyway).

Run: .venv/bin/python benchmarks/render.py

Replays both corpus sessions with condense active (extractive summaries); at every recorded model request
it times the `context` render and `json.dumps` of the rendered messages, side by side in the same run,
and reports the median and 95th percentile of the per-request ratio render / json.dumps: over every
request, then apart by kind: incremental (only the new messages rendered), refresh (after a flush: only
the results whose index records changed, then the later phases over the ranges and the request) and full
(everything, the first render for one). The no-op row is the whole session rendered again with nothing
changed.
"""

from __future__ import annotations

import asyncio
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from condense.config import CondenseConfig  # noqa: E402
from pi_tui.modes.replay import Replayer, output_session  # noqa: E402
from pi_tui.session.store import Session  # noqa: E402

CORPUS = ROOT.parent / "shared" / "corpus"
Sample = tuple[float, float]  # (render seconds, json.dumps seconds)


class TimedReplayer(Replayer):
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.samples: dict[str, list[Sample]] = {"every request": [], "incremental": [], "refresh": [], "full": []}

    def _render(self) -> None:
        messages = self.out.messages()
        start = time.perf_counter()
        rendered = self.engine.render(messages)
        render_s = time.perf_counter() - start
        start = time.perf_counter()
        json.dumps(rendered)
        dumps_s = time.perf_counter() - start
        self.samples["every request"].append((render_s, dumps_s))
        self.samples[self.engine.last_render_kind].append((render_s, dumps_s))
        self.requests += 1


def measure(path: Path) -> dict[str, list[Sample]]:
    with tempfile.TemporaryDirectory() as tmp:
        source = Session.open(path)
        config = CondenseConfig(summarizer_model="extractive")
        replayer = TimedReplayer(source, output_session(source, Path(tmp) / "out.jsonl"), config, 200_000)
        asyncio.run(replayer.run())
        replayer.samples["no-op (whole session again)"] = noop_samples(replayer)
        return replayer.samples


def noop_samples(replayer: Replayer, repeats: int = 20) -> list[Sample]:
    """The whole replayed session rendered again and again: nothing changed since the last render."""
    messages = replayer.out.messages()
    replayer.engine.render(messages)
    samples = []
    for _ in range(repeats):
        messages = replayer.out.messages()
        start = time.perf_counter()
        rendered = replayer.engine.render(messages)
        render_s = time.perf_counter() - start
        start = time.perf_counter()
        json.dumps(rendered)
        samples.append((render_s, time.perf_counter() - start))
    return samples


def p95(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))]


def main() -> None:
    print(f"{'session':<28} {'render kind':<28} {'requests':>8} {'render ms':>10} {'dumps ms':>9}"
          f" {'median':>8} {'p95':>8}")
    for name in ("pi-large-session.jsonl", "pi-before-compaction.jsonl"):
        path = CORPUS / name
        if not path.exists():
            print(f"{name}: corpus file missing")
            continue
        for kind, samples in measure(path).items():
            if not samples:
                continue
            ratios = [s[0] / s[1] for s in samples if s[1] > 0]
            render_ms = statistics.median(s[0] for s in samples) * 1000
            dumps_ms = statistics.median(s[1] for s in samples) * 1000
            print(f"{name:<28} {kind:<28} {len(samples):>8} {render_ms:>10.3f} {dumps_ms:>9.3f}"
                  f" {statistics.median(ratios):>7.3f}x {p95(ratios):>7.3f}x")
    print("ratio = render time / json.dumps time of the rendered request, per request (median, 95th percentile)")


if __name__ == "__main__":
    main()
