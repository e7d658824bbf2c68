"""Render cost of condense per model request, against serialising that request (which the host pays anyway).

Run: .venv/bin/python benchmarks/render.py

Replays both corpus sessions with condense active (extractive summaries); at every recorded model request
it times the `context` render and `json.dumps` of the rendered messages, side by side in the same run.
No-op renders (nothing to change: same list back) and pruning renders (stubs written) are reported apart,
as medians of the per-request ratio render / json.dumps.
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
from pi_tui.replay import Replayer, output_session  # noqa: E402
from pi_tui.session.store import Session  # noqa: E402

CORPUS = ROOT.parent / "shared" / "corpus"


class TimedReplayer(Replayer):
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.samples: dict[str, list[tuple[float, float]]] = {"no-op": [], "pruning": []}

    def _render(self) -> None:
        messages = self.out.messages()
        start = time.perf_counter()
        rendered = self.engine.render(messages)
        render_s = time.perf_counter() - start
        start = time.perf_counter()
        json.dumps(rendered)
        dumps_s = time.perf_counter() - start
        self.samples["no-op" if rendered is messages else "pruning"].append((render_s, dumps_s))
        self.requests += 1


def measure(path: Path) -> dict[str, list[tuple[float, float]]]:
    with tempfile.TemporaryDirectory() as tmp:
        source = Session.open(path)
        config = CondenseConfig(summarizer_model="extractive")
        replayer = TimedReplayer(source, output_session(source, Path(tmp) / "out.jsonl"), config, 200_000)
        asyncio.run(replayer.run())
        replayer.samples["no-op, full session, nothing indexed"] = noop_samples(source, config)
        return replayer.samples


def noop_samples(source: Session, config: CondenseConfig, repeats: int = 20) -> list[tuple[float, float]]:
    """The render of a whole session whose index is empty: only the scan, the same list comes back."""
    from condense.engine import CondenseEngine
    from pi_tui.offline import SessionHost

    engine = CondenseEngine(SessionHost(source, persist=False), config)
    messages = source.messages()
    samples = []
    for _ in range(repeats):
        start = time.perf_counter()
        rendered = engine.render(messages)
        render_s = time.perf_counter() - start
        assert rendered is messages
        start = time.perf_counter()
        json.dumps(rendered)
        samples.append((render_s, time.perf_counter() - start))
    return samples


def main() -> None:
    print(f"{'session':<28} {'render kind':<38} {'requests':>8} {'render ms':>10} {'dumps ms':>9} {'ratio':>7}")
    for name in ("pi-large-session.jsonl", "pi-before-compaction.jsonl"):
        path = CORPUS / name
        if not path.exists():
            print(f"{name}: corpus file missing")
            continue
        for kind, samples in measure(path).items():
            if not samples:
                continue
            render_ms = statistics.median(s[0] for s in samples) * 1000
            dumps_ms = statistics.median(s[1] for s in samples) * 1000
            ratio = statistics.median(s[0] / s[1] for s in samples if s[1] > 0)
            print(f"{name:<28} {kind:<38} {len(samples):>8} {render_ms:>10.3f} {dumps_ms:>9.3f} {ratio:>6.3f}x")
    print("ratio = median over requests of (render time / json.dumps time of the rendered request)")


if __name__ == "__main__":
    main()
