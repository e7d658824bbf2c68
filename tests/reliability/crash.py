"""Driving kill-point runs: launch `killpoint.py` children, find what they left, resume the work.

A scenario is the list of `pi-tui` invocations one child process plays (demo print-mode tasks, or a
replay). An unkilled reference run counts its session writes and maps them to file lines, so kill
points can be chosen on purpose (just after a summary, just before its index records) as well as
spread over the whole run.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from collections.abc import Iterable, Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from condense.record_bursts import expanded
from condense.records import CHAIN, INDEX, SUMMARY
from pi_tui.modes.offline import offline_engine
from pi_tui.runtime.build import LaunchOptions, build_runtime
from pi_tui.session.store import Session
from pi_tui.settings import LiveSettings, Settings
from tests.reliability.consistency import (
    EXTRACTIVE,
    Verdict,
    check_session,
    outputs_on_branch,
    torn_tail_line,
)
from tests.reliability.killpoint import MODES

RUNNER = Path(__file__).with_name("killpoint.py")
REPO = Path(__file__).resolve().parents[2]
DEMO_TASKS = ("fix the failing test", "task 2", "task 3", "task 4", "task 5", "task 6")


def demo_runs(tasks: int) -> list[list[str]]:
    first = ["-p", DEMO_TASKS[0], "--model", "demo"]
    return [first, *(["-p", text, "--continue"] for text in DEMO_TASKS[1:tasks])]


@dataclass
class Sandbox:
    """One child's world: its home (sessions, settings), launch folder and temp folder."""

    root: Path

    @property
    def home(self) -> Path:
        return self.root / "home"

    @property
    def cwd(self) -> Path:
        return self.root / "work"

    @property
    def tmp(self) -> Path:
        return self.root / "tmp"

    def make(self, home: bool = True) -> Sandbox:
        """`home=False` leaves the home folder for pi-tui to create (as on a first run)."""
        for folder in (self.home, self.cwd, self.tmp) if home else (self.cwd, self.tmp):
            folder.mkdir(parents=True, exist_ok=True)
        return self

    def env(self, extra: dict[str, str] | None = None) -> dict[str, str]:
        base = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY")}
        return {**base, "PI_TUI_HOME": str(self.home), "TMPDIR": str(self.tmp), "PYTHONPATH": str(REPO),
                "LITELLM_LOCAL_MODEL_COST_MAP": "True", **(extra or {})}

    def sessions(self) -> list[Path]:
        return sorted(self.home.rglob("*.jsonl"))


def launch(box: Sandbox, runs: list[list[str]], at: int = 0, mode: str = "before",
           env: dict[str, str] | None = None, timeout: float = 300) -> subprocess.CompletedProcess[str]:
    plan = {"at": at, "mode": mode, "runs": runs, "report": str(box.root / "report.json")}
    return subprocess.run([sys.executable, str(RUNNER), json.dumps(plan)], cwd=box.cwd, env=box.env(env),
                          capture_output=True, text=True, timeout=timeout)


def report(box: Sandbox) -> dict[str, Any]:
    found: dict[str, Any] = json.loads((box.root / "report.json").read_text())
    return found


def was_killed(result: subprocess.CompletedProcess[str]) -> bool:
    return result.returncode == -signal.SIGKILL


@dataclass
class Reference:
    """An unkilled run: how many writes it makes and which write put each pruner entry on disk."""

    writes: int
    summary_writes: list[int] = field(default_factory=list)
    index_writes: list[int] = field(default_factory=list)
    summaries: int = 0


def reference(path: Path, writes: int) -> Reference:
    """Every write after the first is one appended line; the first wrote all lines before them."""
    lines = path.read_bytes().splitlines()
    offset = len(lines) - writes  # lines the first (whole-file) write held, minus one
    ref = Reference(writes)
    for number, raw in enumerate(lines, start=1):
        entry = json.loads(raw)
        write = max(1, number - offset)
        if entry.get("customType") == SUMMARY:
            ref.summary_writes.append(write)
            ref.summaries += 1
        if any(_indexes(record) for record in expanded([entry])):
            ref.index_writes.append(write)
    return ref


def _indexes(record: dict[str, Any]) -> bool:
    """Does the record index outputs: an index record, or a summary or chain that stands for theirs?"""
    data, details = record.get("data"), record.get("details")
    return (record.get("customType") == INDEX
            or (record.get("customType") == SUMMARY and isinstance(details, dict) and details.get("indexed") is True)
            or (record.get("customType") == CHAIN and isinstance(data, dict) and bool(data.get("backfilled"))))


def spread(total: int, count: int) -> list[int]:
    """`count` write numbers spread evenly over 1..total."""
    if count >= total:
        return list(range(1, total + 1))
    return sorted({1 + round(i * (total - 1) / max(1, count - 1)) for i in range(count)})


def points(writes: Iterable[int]) -> list[tuple[int, str]]:
    """Kill points with the three modes taken in turn."""
    return [(at, MODES[i % len(MODES)]) for i, at in enumerate(sorted(set(writes)))]


def run_points(boxes: list[tuple[Sandbox, int, str]], runs_for: Any, workers: int = 2,
               ) -> Iterator[tuple[Sandbox, int, str, subprocess.CompletedProcess[str]]]:
    """Launch the kill runs two at a time (the children are independent); yield them in order."""
    with ThreadPoolExecutor(max_workers=workers) as pool:
        futures = [(box, at, mode, pool.submit(launch, box.make(), runs_for(box), at, mode))
                   for box, at, mode in boxes]
        for box, at, mode, future in futures:
            yield box, at, mode, future.result()


def torn_set(path: Path) -> set[int]:
    line = torn_tail_line(path)
    return set() if line is None else {line}


async def resume_demo(path: Path, launch_dir: Path) -> None:
    """Reopen a killed demo session the way the app does (an AgentHost with condense) and flush."""
    runtime = build_runtime(LaunchOptions(session=str(path), launch_dir=launch_dir), LiveSettings(Settings()))
    await runtime.host.start()
    await runtime.engine.flush("manual")
    second = await runtime.engine.flush("manual")
    assert second.outcome == "empty", f"work left after the resumed flush: {second}"


async def resume_replay(path: Path) -> None:
    """Finish a killed replay's pending work with a persisting offline engine."""
    engine, _ = offline_engine(Session.open(path), EXTRACTIVE, persist=True)
    await engine.flush("manual")
    second = await engine.flush("manual")
    assert second.outcome == "empty", f"work left after the resumed flush: {second}"


@dataclass
class Tally:
    """The figures of a crash run (they go in docs/RELIABILITY.md)."""

    kills: int = 0
    no_file: int = 0
    torn: int = 0
    outputs: int = 0
    recovered: int = 0
    refs: int = 0

    def add(self, verdict: Verdict) -> None:
        self.outputs += verdict.outputs
        self.recovered += verdict.recovered
        self.refs += verdict.refs

    def line(self, name: str) -> str:
        """Printed once every check passed (each one asserts), hence `lost: 0`."""
        return (f"{name}: {self.kills} kill points survived ({self.torn} torn lines, {self.no_file}"
                f" before the file existed); {self.outputs} outputs checked, {self.recovered} via"
                f" context_tree_query, {self.refs} refs resolved, lost: 0")


def check_after_kill(path: Path, tally: Tally) -> set[int]:
    torn = torn_set(path)
    tally.torn += bool(torn)
    tally.add(check_session(path, torn_lines=torn))
    return torn


def after_resume(path: Path, torn: set[int], before: dict[str, str]) -> Verdict:
    """The resumed file: still consistent, and every output the killed file held is still there."""
    verdict = check_session(path, torn_lines=torn)
    now = outputs_on_branch(Session.open(path))
    missing = [key for key, text in before.items() if now.get(key) != text]
    assert not missing, f"outputs lost by resuming: {missing[:5]}"
    return verdict
