"""Start-up and loading figures: corpus session load times and time to the first streamed token.

Run: .venv/bin/python benchmarks/startup.py [--runs 5] [--against /work/main]

Prints medians of N runs. Time to first token is measured from process start (Popen) to the first
byte the reply writes to stdout, for the offline demo model and for the local fake OpenAI server
(which goes through the real litellm path, so it includes litellm's import); beside it, the CPU time
of the whole process (user + system, from its exit status), which a shared machine's load does not
inflate. A bare `python -c print` is measured the same way as the baseline, and ratios are against it.
`--against DIR` runs the first-token rows for the pi-tui checkout in DIR too, interleaved with this
one's in the same run (before/after a change, on the same machine load).
"""

from __future__ import annotations

import argparse
import functools
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


Timing = tuple[float, float]  # (wall seconds to the first byte, CPU seconds of the whole process)


def median_of(runs: int, measure: Callable[[], float]) -> float:
    return statistics.median(measure() for _ in range(runs))


def medians(timings: list[Timing]) -> Timing:
    return statistics.median(t[0] for t in timings), statistics.median(t[1] for t in timings)


def load_seconds(path: Path) -> float:
    start = time.perf_counter()
    Session.open(path).build_context()
    return time.perf_counter() - start


def first_byte(args: list[str], cwd: Path, env: dict[str, str]) -> Timing:
    start = time.perf_counter()
    proc = subprocess.Popen(args, cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    assert proc.stdout is not None
    proc.stdout.read(1)
    elapsed = time.perf_counter() - start
    proc.stdout.read()
    _, status, usage = os.wait4(proc.pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(status)
    return elapsed, usage.ru_utime + usage.ru_stime


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--against", type=Path, help="another pi-tui checkout, measured in the same run")
    args = parser.parse_args()
    runs = args.runs
    print(f"{'load + build context':<50} {'median (s)':>10}  (median of {runs})")
    for name in ("pi-large-session.jsonl", "pi-before-compaction.jsonl"):
        path = CORPUS / name
        if path.exists():
            print(f"{name:<50} {median_of(runs, functools.partial(load_seconds, path)):>10.3f}")
    with tempfile.TemporaryDirectory() as tmp:
        env = {**os.environ, "PI_TUI_HOME": str(Path(tmp) / "home")}
        env = {k: v for k, v in env.items() if not k.endswith("_API_KEY")}
        checkouts = {"this checkout": ROOT, **({f"--against {args.against}": args.against} if args.against else {})}
        with FakeOpenAI() as server:
            baseline = "baseline: python -c print"
            commands = {
                baseline: ([sys.executable, "-c", "print('x')"], None),
                "first token: pi-tui -p --model demo": ([sys.executable, "-m", "pi_tui", "-p", "go", "--model", "demo"],
                                                        None),
                "first token: pi-tui -p via litellm + fake server": (
                    [sys.executable, "-m", "pi_tui", "-p", "go", "--model", "openai/fake", "--base-url",
                     server.base_url], "hello there"),
            }
            timings: dict[tuple[str, str], list[Timing]] = {}
            for _ in range(runs):  # interleaved: every row sees the same machine load
                for label, (command, reply) in commands.items():
                    for checkout, root in list(checkouts.items())[:1 if label == baseline else None]:
                        if reply is not None:
                            server.push(text_reply(reply))
                        # ahead of the editable installs' finders; the engine is in engine/ (at the root before)
                        run_env = {**env, "PYTHONPATH": os.pathsep.join([str(root), str(root / "engine")])}
                        timings.setdefault((label, checkout), []).append(first_byte(command, Path(tmp), run_env))
        base_wall, base_cpu = medians(timings[(baseline, "this checkout")])
        print(f"\n{'process':<50} {'checkout':<28} {'wall (s)':>8} {'ratio':>6} {'CPU (s)':>8} {'ratio':>6}")
        for (label, checkout), measured in timings.items():
            wall, cpu = medians(measured)
            print(f"{label:<50} {checkout:<28} {wall:>8.3f} {wall / base_wall:>5.1f}x"
                  f" {cpu:>8.3f} {cpu / base_cpu:>5.1f}x")
        print("wall: process start to the first byte on stdout; CPU: user + system time of the whole process")


if __name__ == "__main__":
    main()
