"""Load scenarios shared by tests/reliability/test_load.py (which checks them) and
benchmarks/reliability.py (which prints their timings): a 10 MB tool output in a live agent, and a
generated session of thousands of messages loaded, rendered and replayed.

Every time is reported as a ratio to a baseline measured in the same run on the same data (json.dumps
of the request, json.loads of the file), never as seconds, so the figures mean something on a busy
machine.
"""

from __future__ import annotations

import asyncio
import json
import statistics
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

from condense.config import CondenseConfig
from pi_tui.agent.condense_host import install
from pi_tui.agent.host import AgentHost
from pi_tui.agent.loop import AgentConfig
from pi_tui.ai.models import DEMO_MODEL
from pi_tui.demo.client import DemoModelClient
from pi_tui.demo.script import Call, Step, Task
from pi_tui.modes.offline import offline_engine
from pi_tui.modes.replay import Replayer, output_session
from pi_tui.session.store import Session
from pi_tui.tools.base import Tool, ToolContext, ToolOutput, ToolParams
from tests.reliability.histories import write_history

T = TypeVar("T")
TEN_MB = 10 * 1024 * 1024
EXTRACTIVE = CondenseConfig(summarizer_model="extractive")


def timed(func: Callable[[], T]) -> tuple[T, float]:
    start = time.perf_counter()
    value = func()
    return value, time.perf_counter() - start


def median_time(func: Callable[[], Any], runs: int = 5) -> float:
    return statistics.median(timed(func)[1] for _ in range(runs))


# ----- one 10 MB tool output ----------------------------------------------------------------------

def big_output() -> str:
    line = "0123456789 a line of a very large tool output, the kind a fetch or a log dump returns\n"
    return (line * (TEN_MB // len(line) + 1))[:TEN_MB]


class DumpParams(ToolParams):
    pass


class DumpTool(Tool):
    """A tool whose output is 10 MB (the built-in tools cut theirs to 50 KB; extension tools do not)."""

    name = "dump"
    label = "Dump"
    description = "Print a very large output."
    Params = DumpParams

    async def run(self, params: DumpParams, ctx: ToolContext) -> ToolOutput:
        return ToolOutput.text(big_output())


@dataclass
class SpillRun:
    session: Path
    host: AgentHost
    session_bytes: int
    request_chars: int  # the next request, as JSON
    first_render_ratio: float  # the render right after the output was indexed / json.dumps(request)
    first_vs_unpruned: float  # that render / json.dumps of the unpruned messages
    render_ratio: float  # a steady-state render / json.dumps(request), medians


async def spill_ten_megabytes(folder: Path) -> SpillRun:
    """A live agent turn whose tool prints 10 MB, then the final reply (which flushes)."""
    task = Task("dump", (Step("Dumping.", (Call("dump", {}),)),), "Dumped.")
    session = Session.create(folder, folder / "sessions")
    host = AgentHost(session, DemoModelClient(delay=0.0, tasks=(task,)), AgentConfig(DEMO_MODEL, "", folder),
                     [DumpTool()])
    install(host, EXTRACTIVE, lambda spec: None)  # type: ignore[arg-type, return-value]  # extractive: no client asked for
    await host.start()
    await host.prompt("dump it")
    assert session.path is not None
    messages = session.messages()
    engine, _ = offline_engine(Session.open(session.path), EXTRACTIVE)
    rendered, first = timed(lambda: engine.render(messages))
    request = json.dumps(rendered)
    dumps = median_time(lambda: json.dumps(rendered))
    unpruned = median_time(lambda: json.dumps(messages), 3)
    steady = median_time(lambda: engine.render(messages))
    return SpillRun(session.path, host, session.path.stat().st_size, len(request), first / dumps,
                    first / unpruned, steady / dumps)


# ----- a generated session of thousands of messages -----------------------------------------------

@dataclass
class HistoryRun:
    source: Path
    replayed: Path
    messages: int
    file_bytes: int
    open_ratio: float  # Session.open / json.loads of every line
    render_ratio: float  # offline engine start + render / json.loads
    replay_ratio: float  # `pi-tui replay` of the whole session / json.loads
    summaries: int


def generated_history(folder: Path, messages: int) -> HistoryRun:
    """Tasks of 3 tool turns x 2 calls (11 messages each) until `messages` is reached."""
    source = folder / "generated.jsonl"
    write_history(source, tasks=max(1, round(messages / 11)), turns=3, calls_per_turn=2, output_chars=1500)
    raw = source.read_bytes()
    baseline = median_time(lambda: [json.loads(line) for line in raw.splitlines()], 3)
    session, open_s = timed(lambda: Session.open(source))

    def render() -> list[Any]:
        engine, _ = offline_engine(session, EXTRACTIVE)
        return engine.render(session.messages())

    _, render_s = timed(render)
    replayed = folder / "replayed.jsonl"
    replayer = Replayer(session, output_session(session, replayed), EXTRACTIVE, 200_000)
    report, replay_s = timed(lambda: _run(replayer))
    return HistoryRun(source, replayed, len(session.messages()), len(raw), open_s / baseline,
                      render_s / baseline, replay_s / baseline, report.summaries)


def _run(replayer: Replayer) -> Any:
    return asyncio.run(replayer.run())
