"""How `pi-tui replay` grows with session length: CPU time, wall time and peak memory against 1,000 messages.

Run: .venv/bin/python benchmarks/replay_growth.py [--with-16k] [--repeats 3]

Sessions of 1,000, 2,000, 4,000 and 5,000 messages (and 16,000 with --with-16k, which takes a few minutes
more) are built from pi-large-session (`longsession.py`: renumbered ids, shifted timestamps, distinct
outputs) and each is replayed by `pi-tui replay` in its own process, one after the other, with extractive
summaries. Printed per length: CPU seconds (user + system of the process, what the machine's other work
does not add to) and wall seconds, each as a ratio to the 1,000-message run, the growth exponent of CPU
time (ratio = length ratio ** exponent; 1 is linear), peak resident memory and its ratio; then the CPU
ratio of 4,000 to 1,000 and of 16,000 to 4,000. Goals: both CPU ratios at most 4.5x, 5,000 messages
within 2x the memory of 1,000.

Two runs: with the default settings, and with the budget triggers off. With the defaults a session this
long folds its oldest requests and flushes at every final reply; without the triggers it flushes less.
"""

from __future__ import annotations

import argparse
import math
import os
import resource
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(Path(__file__).resolve().parent))

from longsession import SOURCE  # noqa: E402

LENGTHS = (1000, 2000, 4000, 5000)
LONG = 16000
RUNS = {"default settings": [], "budget triggers off": ["--set", "auto_budget_threshold=0", "--set",
                                                         "budget_turn_delta=0"]}


@dataclass(frozen=True)
class Run:
    cpu_s: float
    wall_s: float
    peak_kb: int


def replay(session: Path, out: Path, home: Path, options: list[str]) -> Run:
    """CPU seconds, wall seconds and peak RSS (KB) of one `pi-tui replay` process."""
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
    peak = usage.ru_maxrss if sys.platform != "darwin" else usage.ru_maxrss // 1024
    return Run(usage.ru_utime + usage.ru_stime, seconds, peak)


def build_apart(sessions: dict[int, Path]) -> None:
    """Build the sessions in a process of their own: a replay is started from this one, and a child's peak
    memory counts what its parent held when it was started."""
    calls = "; ".join(f"build({length}, Path({str(path)!r}))" for length, path in sessions.items())
    subprocess.run([sys.executable, "-c", f"from pathlib import Path; from longsession import build; {calls}"],
                   cwd=Path(__file__).resolve().parent, check=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--with-16k", action="store_true", help="also replay 16,000 messages (a few minutes)")
    parser.add_argument("--repeats", type=int, default=3, help="runs per length; the fastest counts (default 3)")
    args = parser.parse_args()
    if not SOURCE.exists():
        print(f"{SOURCE}: corpus file missing")
        return
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    lengths = (*LENGTHS, LONG) if args.with_16k else LENGTHS
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        sessions = {length: folder / f"session-{length}.jsonl" for length in lengths}
        build_apart(sessions)
        for name, options in RUNS.items():
            runs: dict[int, list[Run]] = {length: [] for length in sessions}
            for repeat in range(args.repeats):  # interleaved, so a burst of load elsewhere hits every length
                for length, session in sessions.items():
                    out = folder / f"out-{length}-{len(options)}-{repeat}.jsonl"
                    runs[length].append(replay(session, out, folder, options))
                    out.unlink()
            print_rows(name, {length: Run(min(r.cpu_s for r in done), min(r.wall_s for r in done),
                                          max(r.peak_kb for r in done)) for length, done in runs.items()})
    print(f"fastest of {args.repeats} runs each (CPU and wall apart); ratios against 1,000 messages, same settings")


def print_rows(name: str, rows: dict[int, Run]) -> None:
    base = rows[LENGTHS[0]]
    print(f"{name}:")
    print(f"{'messages':>8} {'CPU s':>7} {'CPU ratio':>9} {'exponent':>8} {'wall s':>7} {'wall ratio':>10}"
          f" {'peak MB':>8} {'memory ratio':>12}")
    for length, run in rows.items():
        ratio = run.cpu_s / base.cpu_s
        exponent = f"{math.log(ratio) / math.log(length / LENGTHS[0]):.2f}" if length != LENGTHS[0] else "-"
        print(f"{length:>8} {run.cpu_s:>7.2f} {ratio:>8.2f}x {exponent:>8} {run.wall_s:>7.2f}"
              f" {run.wall_s / base.wall_s:>9.2f}x {run.peak_kb / 1024:>8.1f} {run.peak_kb / base.peak_kb:>11.2f}x")
    steps = [(4000, LENGTHS[0]), (LONG, 4000)]
    print("  CPU ratio " + ", ".join(f"{a // 1000}k/{b // 1000}k = {rows[a].cpu_s / rows[b].cpu_s:.2f}x"
                                     for a, b in steps if a in rows and b in rows))


if __name__ == "__main__":
    main()
