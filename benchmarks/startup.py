"""Start-up and loading figures: corpus session load times and time to the first streamed token.

Run: .venv/bin/python benchmarks/startup.py [--runs 5]

Prints medians of N runs. Time to first token is measured from process start (Popen) to the first
byte the reply writes to stdout, for the offline demo model and for the local fake OpenAI server
(which goes through the real litellm path, so it includes litellm's import). A bare `python -c pass`
is measured the same way as the baseline, and ratios are against it.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from pi_tui.session.store import Session  # noqa: E402
from tests.support.fake_openai import FakeOpenAI, text_reply  # noqa: E402

CORPUS = ROOT.parent / "shared" / "corpus"


def median_of(runs: int, measure: Callable[[], float]) -> float:
    return statistics.median(measure() for _ in range(runs))


def load_seconds(path: Path) -> float:
    start = time.perf_counter()
    Session.open(path).build_context()
    return time.perf_counter() - start


def first_byte_seconds(args: list[str], cwd: Path, env: dict[str, str]) -> float:
    start = time.perf_counter()
    proc = subprocess.Popen(args, cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    assert proc.stdout is not None
    proc.stdout.read(1)
    elapsed = time.perf_counter() - start
    proc.stdout.read()
    proc.wait()
    return elapsed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    runs = parser.parse_args().runs
    rows: list[tuple[str, float, str]] = []
    for name in ("pi-large-session.jsonl", "pi-before-compaction.jsonl"):
        path = CORPUS / name
        if path.exists():
            rows.append((f"load + build context: {name}", median_of(runs, lambda p=path: load_seconds(p)), ""))
    with tempfile.TemporaryDirectory() as tmp:
        env = {**os.environ, "PI_TUI_HOME": str(Path(tmp) / "home")}
        env = {k: v for k, v in env.items() if not k.endswith("_API_KEY")}
        base = median_of(runs, lambda: first_byte_seconds([sys.executable, "-c", "print('x')"], Path(tmp), env))
        rows.append(("baseline: python -c print (first byte)", base, "1.0x"))
        demo = [sys.executable, "-m", "pi_tui", "-p", "go", "--model", "demo"]
        t = median_of(runs, lambda: first_byte_seconds(demo, Path(tmp), env))
        rows.append(("first token: pi-tui -p --model demo", t, f"{t / base:.1f}x"))
        with FakeOpenAI() as server:
            fake = [sys.executable, "-m", "pi_tui", "-p", "go", "--model", "openai/fake", "--base-url",
                    server.base_url]

            def one() -> float:
                server.push(text_reply("hello there"))
                return first_byte_seconds(fake, Path(tmp), env)

            t = median_of(runs, one)
            rows.append(("first token: pi-tui -p via litellm + fake server", t, f"{t / base:.1f}x"))
    width = max(len(r[0]) for r in rows)
    print(f"{'measurement':<{width}}  {'median (s)':>10}  ratio   (median of {runs})")
    for label, seconds, ratio in rows:
        print(f"{label:<{width}}  {seconds:>10.3f}  {ratio}")


if __name__ == "__main__":
    main()
