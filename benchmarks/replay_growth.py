"""How `pi-tui replay` grows with session length: time and peak memory against a 1,000-message session.

Run: .venv/bin/python benchmarks/replay_growth.py

Sessions of 1,000, 2,000, 4,000 and 5,000 messages are built from pi-large-session (`longsession.py`:
renumbered ids, shifted timestamps, distinct outputs) and each is replayed by `pi-tui replay` in its own
process, one after the other, with extractive summaries. Printed: wall time, peak resident memory, both as
ratios to the 1,000-message run, and the growth exponent of time (ratio = length ratio ** exponent; 1 is
linear). Goals: 4,000 messages within 4.5x the time of 1,000 (exponent <= 1.1), 5,000 within 2x the memory.

Two runs: with the default settings, and with the budget triggers off. With the defaults, a session this
long passes 73.5% of the 200k window, and from there every tool-using turn flushes: the number of flushes
grows faster than the session (70 at 1,000 messages, 563 at 4,000), so that run measures the engine doing
more work, not only doing it slower. Without the triggers, flushes grow with the session (68 -> 269).
"""

from __future__ import annotations

import math
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(Path(__file__).resolve().parent))

from longsession import SOURCE, build  # noqa: E402

LENGTHS = (1000, 2000, 4000, 5000)
REPEATS = 3  # the fastest of three: the machine is shared, and other work only ever adds time


RUNS = {"default settings": [], "budget triggers off": ["--set", "auto_budget_threshold=0", "--set",
                                                         "budget_turn_delta=0"]}


def replay(session: Path, out: Path, home: Path, options: list[str]) -> tuple[float, int]:
    """Wall seconds and peak RSS (KB) of one `pi-tui replay` process."""
    env = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY")}
    env["PI_TUI_HOME"] = str(home)
    command = [sys.executable, "-m", "pi_tui", "replay", str(session), "-o", str(out), "--summarizer", "extractive",
               *options]
    start = time.perf_counter()
    process = subprocess.Popen(command, cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(process.pid, 0)
    seconds = time.perf_counter() - start
    process.returncode = os.waitstatus_to_exitcode(status)
    if process.returncode != 0:
        raise SystemExit(f"replay of {session.name} failed: {process.stderr.read().decode().strip()}")
    return seconds, usage.ru_maxrss if sys.platform != "darwin" else usage.ru_maxrss // 1024


def main() -> None:
    if not SOURCE.exists():
        print(f"{SOURCE}: corpus file missing")
        return
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        sessions = {length: build(length, folder / f"session-{length}.jsonl") for length in LENGTHS}
        for name, options in RUNS.items():
            runs: dict[int, list[tuple[float, int]]] = {length: [] for length in sessions}
            for repeat in range(REPEATS):  # interleaved, so a burst of load elsewhere hits every length
                for length, session in sessions.items():
                    out = folder / f"out-{length}-{len(options)}-{repeat}.jsonl"
                    runs[length].append(replay(session, out, folder, options))
            print_rows(name, [(length, min(r[0] for r in done), max(r[1] for r in done))
                              for length, done in runs.items()])
    print(f"fastest of {REPEATS} runs each; ratios against the 1,000-message replay of the same settings")


def print_rows(name: str, rows: list[tuple[int, float, int]]) -> None:
    base_s, base_kb = rows[0][1], rows[0][2]
    print(f"{name}:")
    print(f"{'messages':>8} {'replay s':>9} {'time ratio':>10} {'exponent':>8} {'peak MB':>8} {'memory ratio':>12}")
    for length, seconds, peak_kb in rows:
        ratio = seconds / base_s
        exponent = f"{math.log(ratio) / math.log(length / LENGTHS[0]):.2f}" if length != LENGTHS[0] else "-"
        print(f"{length:>8} {seconds:>9.2f} {ratio:>9.2f}x {exponent:>8} {peak_kb / 1024:>8.1f}"
              f" {peak_kb / base_kb:>11.2f}x")


if __name__ == "__main__":
    main()
