"""How `pi-tui whatif` grows with session length: CPU time per priced request against 1,000 messages.

Run: .venv/bin/python benchmarks/whatif_growth.py [--strategies condense,none] [--lengths 1000,2000,4000,8000]

Sessions of each length are built from pi-large-session (`longsession.py`) and priced by `run_whatif`
one strategy at a time, in this process, one after the other (a strategy runs in the process that asks
for it alone). Printed per strategy and length: CPU seconds, priced requests, milliseconds of CPU per
priced request and its ratio to the 1,000-message session's. The goal: flat within 1.5x from 1,000 to
8,000 messages. A strategy that sends the whole history (none, recorded) converts and measures every
message of every request, so its cost per request grows with the session.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from longsession import SOURCE, build  # noqa: E402

from pi_tui.modes.whatif import WhatifOptions, run_whatif  # noqa: E402
from pi_tui.session.store import Session  # noqa: E402


def per_request_ms(path: Path, strategy: str) -> tuple[float, int]:
    """CPU seconds of pricing one strategy over the session, and the requests it priced."""
    session = Session.open(path)
    start = time.process_time()
    report = run_whatif(session, WhatifOptions([strategy]))
    return time.process_time() - start, report.strategies[0].requests


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--strategies", default="condense,none")
    parser.add_argument("--lengths", default="1000,2000,4000,8000")
    args = parser.parse_args()
    if not SOURCE.exists():
        print(f"{SOURCE}: corpus file missing")
        return
    lengths = [int(n) for n in args.lengths.split(",")]
    with tempfile.TemporaryDirectory() as tmp:
        sessions = {n: build(n, Path(tmp) / f"session-{n}.jsonl") for n in lengths}
        print(f"{'strategy':<12} {'messages':>8} {'CPU s':>7} {'requests':>8} {'ms/request':>10} {'ratio':>6}")
        for strategy in args.strategies.split(","):
            base = None
            for n, path in sessions.items():
                seconds, requests = per_request_ms(path, strategy)
                ms = seconds / requests * 1000
                base = base or ms
                print(f"{strategy:<12} {n:>8} {seconds:>7.2f} {requests:>8} {ms:>10.2f} {ms / base:>5.2f}x",
                      flush=True)
    print("CPU time of this process per priced request; ratios against the first length")


if __name__ == "__main__":
    main()
