"""A flush costs its batch: in a long session, a flush and the request after it read only what is new
since the last flush (and the turn that flush ended at, where chain detection and capture pick up),
never the history before it: it used to walk every message several times over (the superseded-reads
check, the re-measure render's later phases, the fold decision)."""

from __future__ import annotations

from typing import Any, ClassVar

from condense.messages import AgentMessage
from tests.support.memory_host import Driver, MemoryHost, assistant, call, make, result, user

OUTPUT = "line of a file\n" * 100  # 1,500 characters: every batch is summarised


class Watched(dict[str, Any]):
    """A message that notes the reads of its fields once `armed`, by the task it belongs to."""

    armed = False
    read: ClassVar[set[int]] = set()  # the tasks whose messages were read

    def __init__(self, message: Any, task: int) -> None:
        super().__init__(message)
        self.task = task

    def get(self, key: str, default: Any = None) -> Any:
        if Watched.armed:
            Watched.read.add(self.task)
        return super().get(key, default)

    def __getitem__(self, key: str) -> Any:
        if Watched.armed:
            Watched.read.add(self.task)
        return super().__getitem__(key)


def add(host: MemoryHost, message: Any, watched: int | None) -> AgentMessage:
    kept: AgentMessage = message if watched is None else Watched(message, watched)  # type: ignore[assignment]
    host.add_message(kept)
    return kept


async def task(drive: Driver, n: int, watched: bool) -> None:
    await _task(drive, n, n if watched else None)


async def _task(drive: Driver, n: int, watched: int | None) -> None:
    """A user request, a read of its own file, a final reply (which flushes), as the agent loop plays them."""
    host, engine, ts = drive.host, drive.engine, 1_000 * (n + 1)
    add(host, user(f"look at module {n}", ts), watched)
    await engine.before_request(ts + 1)
    engine.render(host.messages())
    message = add(host, assistant(ts + 2, call(f"c{n}", path=f"module_{n}.py")), watched)
    output = add(host, result(f"c{n}", f"module {n}\n{OUTPUT}", ts + 3), watched)
    await engine.on_turn_end(message, [output], drive.turn)  # type: ignore[list-item]  # a result still
    drive.turn += 1
    await engine.before_request(ts + 4)
    engine.render(host.messages())
    final = add(host, assistant(ts + 5, text=f"module {n} is fine"), watched)
    await engine.on_message_end(final)
    await engine.on_turn_end(final, [], drive.turn)
    drive.turn += 1


async def test_a_flush_in_a_long_session_reads_nothing_of_the_history_before_it() -> None:
    _host, engine, drive = make({"min_batch_chars": 0, "fold_keep_turns": 0,
                                 "chain_compression": {"rolling_window": 0}})
    for n in range(60):
        await task(drive, n, watched=True)
    flushes = engine.stats.to_json()
    Watched.armed, Watched.read = True, set()
    try:
        await task(drive, 60, watched=False)  # a request, a flush at its final reply, its re-measure
        engine.render(drive.host.messages())  # and the next request
    finally:
        Watched.armed = False
    assert engine.stats.to_json() != flushes, "the last task was flushed"
    assert Watched.read <= {59}, f"tasks read: {sorted(Watched.read)}"
