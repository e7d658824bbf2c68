"""Reliability under load: a 10 MB tool output and generated sessions of 1,000 and 5,000 messages.

Run: .venv/bin/python benchmarks/reliability.py [--messages 1000 5000]

Every figure is a ratio to a baseline measured in the same run on the same data: the render of the
request against `json.dumps` of that request (which the host pays anyway), and loading, rendering and
replaying a session against `json.loads` of its lines. tests/reliability/test_load.py checks the same
scenarios for correctness (nothing lost, one copy of the big output, a small request).
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.reliability.load import TEN_MB, generated_history, spill_ten_megabytes  # noqa: E402


def row(name: str, value: str, baseline: str) -> str:
    return f"{name:<44} {value:>12}  {baseline}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--messages", type=int, nargs="+", default=[1000, 5000])
    args = parser.parse_args()
    print(row("scenario", "ratio", "against"))
    print("-" * 96)
    with tempfile.TemporaryDirectory() as tmp:
        spill = asyncio.run(spill_ten_megabytes(Path(tmp)))
        size = f"{spill.session_bytes / TEN_MB:.2f}x"
        print(row("10 MB output: session size", size, "the output (one copy)"))
        print(row("10 MB output: steady render", f"{spill.render_ratio:.2f}x", "json.dumps(request)"))
        print(row("10 MB output: first render after indexing", f"{spill.first_render_ratio:.0f}x",
                  "json.dumps(request)"))
        print(row("10 MB output: first render after indexing", f"{spill.first_vs_unpruned:.2f}x",
                  "json.dumps(unpruned messages)"))
    for count in args.messages:
        with tempfile.TemporaryDirectory() as tmp:
            run = generated_history(Path(tmp), count)
            label = f"{run.messages} messages ({run.file_bytes / 1e6:.1f} MB)"
            print(row(f"{label}: Session.open", f"{run.open_ratio:.2f}x", "json.loads of every line"))
            print(row(f"{label}: engine start + render", f"{run.render_ratio:.2f}x",
                      "json.loads of every line"))
            print(row(f"{label}: replay ({run.summaries} summaries)", f"{run.replay_ratio:.0f}x",
                      "json.loads of every line"))
            sys.stdout.flush()


if __name__ == "__main__":
    main()
