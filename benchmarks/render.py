"""Render cost of condense per model request, against serialising that request (which the host pays anyway).

Run: .venv/bin/python benchmarks/render.py [--length 16000]

Replays both corpus sessions with condense active (extractive summaries) and times every
`IncrementalRender.render` the engine makes, side by side with `json.dumps` of the request that render
becomes (folded as the model gets it): those of the recorded model requests, and those a flush makes on
its way (the fold decision's and the re-measure after it), which a request-only timing never saw. Each
render is filed under the kind it was (a nested render no longer hides it): incremental (only the new
messages rendered), refresh (after a flush: only what it changed, phases 2 to 4 from a checkpoint) and
full (everything, the first render for one). Both are timed in CPU time of this thread: on a shared
machine, wall time puts every preemption into whichever render it lands in (a 5 µs render read as 12 ms).
Printed: the median and 95th percentile of the per-render ratio render / json.dumps, over every render and
apart by kind; the goal is a refresh's p95 at most 0.2x.
The no-op row is the whole session rendered again with nothing changed. The floor row is what no render
after a flush can skip, timed alone: walking each chain range the flush compressed (what it drops) and
building its `<compressed-chain>` message, re-run with the arguments that render gave them; no stub, no
position, no size. It bounds from below any design that renders Pi's messages in Python. `--length N`
adds a session of N messages built from pi-large-session (`longsession.py`), where a render that walked
the whole history would show it.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from longsession import build  # noqa: E402

from condense.chains import render as chain_render  # noqa: E402
from condense.config import CondenseConfig  # noqa: E402
from condense.engine import CondenseEngine  # noqa: E402
from condense.render.pipeline import IncrementalRender  # noqa: E402
from pi_tui.modes.replay import Replayer, output_session  # noqa: E402
from pi_tui.session.store import Session  # noqa: E402

CORPUS = ROOT.parent / "shared" / "corpus"
Sample = tuple[float, float]  # (render seconds, json.dumps seconds)
KINDS = ("every render", "incremental", "refresh", "full")
FLOOR = "refresh floor"
FLOOR_PARTS = ("_range_content", "synthetic_chain_message")  # phase 3's range walk and its chain message


class Timing:
    """Every render of one engine, timed where it happens (a class-level wrapper of the renderer's
    `render`, so the renders inside a flush are timed too, each under its own kind)."""

    def __init__(self) -> None:
        self.samples: dict[str, list[Sample]] = {kind: [] for kind in (*KINDS, FLOOR)}
        self.engine: CondenseEngine | None = None
        self.calls: list[tuple[Callable[..., Any], tuple[Any, ...]]] = []  # the floor's parts, as called

    def wrap(self, render: Callable[..., list[Any]]) -> Callable[..., list[Any]]:
        def timed(renderer: IncrementalRender, *args: Any, **kwargs: Any) -> list[Any]:
            first = len(self.calls)
            start = time.thread_time()
            out = render(renderer, *args, **kwargs)
            render_s = time.thread_time() - start
            calls, self.calls[first:] = self.calls[first:], []
            request = self.engine.history_fold.apply(out) if self.engine is not None else out
            start = time.thread_time()
            json.dumps(request)
            dumps_s = time.thread_time() - start
            self.samples["every render"].append((render_s, dumps_s))
            self.samples[renderer.kind].append((render_s, dumps_s))
            if renderer.kind == "refresh":
                self.samples[FLOOR].append((again(calls), dumps_s))
            return out
        return timed

    def record(self, part: Callable[..., Any]) -> Callable[..., Any]:
        def recorded(*args: Any) -> Any:
            self.calls.append((part, args))
            return part(*args)
        return recorded


def again(calls: list[tuple[Callable[..., Any], tuple[Any, ...]]]) -> float:
    """CPU seconds of these calls made once more (pure functions: the same work, nothing kept)."""
    start = time.thread_time()
    for part, args in calls:
        part(*args)
    return time.thread_time() - start


def measure(path: Path) -> dict[str, list[Sample]]:
    timing = Timing()
    with tempfile.TemporaryDirectory() as tmp:
        source = Session.open(path)
        config = CondenseConfig(summarizer_model="extractive")
        replayer = Replayer(source, output_session(source, Path(tmp) / "out.jsonl"), config, 200_000)
        timing.engine = replayer.engine
        original = IncrementalRender.render
        parts = {name: getattr(chain_render, name) for name in FLOOR_PARTS}
        IncrementalRender.render = timing.wrap(original)  # type: ignore[method-assign]  # measuring only
        for name, part in parts.items():
            setattr(chain_render, name, timing.record(part))
        try:
            asyncio.run(replayer.run())
        finally:
            IncrementalRender.render = original  # type: ignore[method-assign]
            for name, part in parts.items():
                setattr(chain_render, name, part)
        timing.samples["no-op (whole session again)"] = noop_samples(replayer)
    return timing.samples


def noop_samples(replayer: Replayer, repeats: int = 20) -> list[Sample]:
    """The whole replayed session rendered again and again: nothing changed since the last render."""
    messages = replayer.out.messages()
    replayer.engine.render(messages)
    samples = []
    for _ in range(repeats):
        messages = replayer.out.messages()
        start = time.thread_time()
        rendered = replayer.engine.render(messages)
        render_s = time.thread_time() - start
        start = time.thread_time()
        json.dumps(rendered)
        samples.append((render_s, time.thread_time() - start))
    return samples


def p95(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--length", type=int, action="append", default=[],
                        help="also replay a session of this many messages built from pi-large-session")
    lengths = parser.parse_args().length
    print(f"{'session':<28} {'render kind':<28} {'renders':>8} {'render ms':>10} {'dumps ms':>9}"
          f" {'median':>8} {'p95':>8}")
    with tempfile.TemporaryDirectory() as tmp:
        built = [build(length, Path(tmp) / f"built-{length}.jsonl") for length in lengths]
        for path in [CORPUS / "pi-large-session.jsonl", CORPUS / "pi-before-compaction.jsonl", *built]:
            report(path)
    print("ratio = render time / json.dumps time of the request it becomes, per render (median, 95th percentile)")


def report(path: Path) -> None:
    if not path.exists():
        print(f"{path.name}: corpus file missing")
        return
    for kind, samples in measure(path).items():
        if not samples:
            continue
        ratios = [s[0] / s[1] for s in samples if s[1] > 0]
        render_ms = statistics.median(s[0] for s in samples) * 1000
        dumps_ms = statistics.median(s[1] for s in samples) * 1000
        print(f"{path.name:<28} {kind:<28} {len(samples):>8} {render_ms:>10.3f} {dumps_ms:>9.3f}"
              f" {statistics.median(ratios):>7.3f}x {p95(ratios):>7.3f}x")


if __name__ == "__main__":
    main()
