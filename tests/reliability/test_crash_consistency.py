"""Crash consistency: SIGKILL at many distinct session writes, then reload, check, and finish the work.

Each kill point is a real child process (`killpoint.py`) killed with SIGKILL before, halfway through
(a torn line) or right after its Nth session write, while it plays demo tasks in print mode (each
ending in a flush) or replays a corpus session through condense. After every kill the file must load
(a torn last line is the only acceptable warning), give a request a strict provider accepts, keep
every recorded tool output verbatim or recoverable, and show no ref without its record. Then the work
is finished (a reopened AgentHost flush, `pi-tui -p --continue`, or a persisting offline flush of the
replay output) without summarising anything twice or giving one ref to two outputs.
"""

from __future__ import annotations

import asyncio
import random
from pathlib import Path

import pytest

from pi_tui.session.store import Session
from tests.conftest import corpus_path
from tests.reliability.consistency import check_session, outputs_on_branch
from tests.reliability.crash import (
    Reference,
    Sandbox,
    Tally,
    after_resume,
    check_after_kill,
    demo_runs,
    launch,
    points,
    reference,
    report,
    resume_demo,
    resume_replay,
    run_points,
    spread,
    was_killed,
)

pytestmark = [pytest.mark.filterwarnings("ignore::DeprecationWarning"),
              pytest.mark.xdist_group("serial")]  # processes killed mid-write, corpus replays: one at a time


def _reference_run(root: Path, runs: list[list[str]],
                   output: Path | None = None) -> tuple[Sandbox, Reference]:
    box = Sandbox(root).make()
    result = launch(box, runs)
    assert result.returncode == 0, result.stderr
    path = output or box.sessions()[0]
    return box, reference(path, report(box)["writes"])


def _demo_crashes(tmp: Path, tasks: int, chosen: list[tuple[int, str]], continue_every: int) -> Tally:
    tally = Tally()
    runs = demo_runs(tasks)
    boxes = [(Sandbox(tmp / f"kill-{at}-{mode}"), at, mode) for at, mode in chosen]
    for number, (box, at, mode, result) in enumerate(run_points(boxes, lambda b: runs)):
        assert was_killed(result), f"write {at} ({mode}) was never reached: {result.stderr[-500:]}"
        assert "Traceback" not in result.stderr
        tally.kills += 1
        files = box.sessions()
        if not files:  # killed in the first (whole-file) write: nothing half-written may exist
            assert at == 1 and mode != "after"
            tally.no_file += 1
            continue
        (path,) = files
        torn = check_after_kill(path, tally)
        before = outputs_on_branch(Session.open(path))
        asyncio.run(resume_demo(path, box.cwd))
        after_resume(path, torn, before)
        if continue_every and number % continue_every == 0:
            again = launch(box, [["-p", "go on", "--continue"]])
            assert again.returncode == 0, again.stderr
            assert box.sessions() == [path], "--continue reopened the killed session"
            after_resume(path, torn, before)
    return tally


def test_kill_during_the_first_demo_task_at_every_write(tmp_path: Path) -> None:
    """Fast variant: every write of one demo task (its summary, the index records, the frontier)."""
    _, ref = _reference_run(tmp_path / "reference", demo_runs(1))
    assert ref.summaries >= 1 and len(ref.index_writes) >= 2 and ref.writes >= 15
    tally = _demo_crashes(tmp_path, 1, points(range(1, ref.writes + 1)), continue_every=10)
    print(tally.line("demo, 1 task"))
    assert tally.kills == ref.writes


def recorded_messages(session: Session) -> list[dict[str, object]]:
    """The message entries of the branch, compactions notwithstanding."""
    return [e["message"] for e in session.branch_entries() if e.get("type") == "message"]


def _replay_crashes(tmp: Path, source: Path, chosen: list[tuple[int, str]], expected: int) -> Tally:
    tally = Tally()
    recorded = recorded_messages(Session.open(source))
    boxes = [(Sandbox(tmp / f"kill-{at}-{mode}"), at, mode) for at, mode in chosen]

    def runs(box: Sandbox) -> list[list[str]]:
        return [["replay", str(source), "-o", str(box.root / "out.jsonl")]]

    for box, at, mode, result in run_points(boxes, runs):
        assert was_killed(result), f"write {at} ({mode}) was never reached: {result.stderr[-500:]}"
        tally.kills += 1
        out = box.root / "out.jsonl"
        assert not out.exists(), "only a finished replay is renamed to OUT"
        partials = list(box.root.glob(".out.jsonl.*.tmp"))  # what the killed replay had written
        if not partials:
            assert at == 1 and mode != "after"
            tally.no_file += 1
            continue
        (partial,) = partials
        torn = check_after_kill(partial, tally)
        kept = recorded_messages(Session.open(partial))
        assert kept == recorded[: len(kept)], "the killed replay holds the recording's prefix, unchanged"
        before = outputs_on_branch(Session.open(partial))
        asyncio.run(resume_replay(partial))
        after_resume(partial, torn, before)
    again = boxes[-1][0]  # a killed replay's leftovers never block the next try at the same OUT
    result = launch(again, [["replay", str(source), "-o", str(again.root / "out.jsonl")]])
    assert result.returncode == 0, result.stderr
    assert check_session(again.root / "out.jsonl").summaries == expected, "a replay after the kills differs"
    return tally


def _replay_points(ref: Reference, extra: int, seed: int) -> list[tuple[int, str]]:
    """Just after summaries (before their index records), on index records, and spread over the run."""
    rng = random.Random(seed)
    risky = sorted(set(ref.summary_writes) | set(ref.index_writes))  # a summary can be its outputs' index record
    chosen = rng.sample(risky, min(len(risky), extra // 2))
    chosen += [w for w in spread(ref.writes, extra) if w not in chosen][: extra - len(chosen)]
    found = points(chosen)
    after_summary = [(w, "after") for w in ref.summary_writes[:3]]
    return sorted(set(found) | set(after_summary))


def _prefix_source(tmp: Path, name: str, lines: int) -> Path:
    """The first `lines` lines of a corpus session: a real recording, short enough for the fast run."""
    data = corpus_path(name).read_bytes().splitlines(keepends=True)[:lines]
    path = tmp / f"prefix-{name}"
    path.write_bytes(b"".join(data))
    return path


def test_kill_during_replay_of_a_corpus_prefix(tmp_path: Path) -> None:
    """Fast variant: a replay killed right after summaries (before their index records) and on index
    writes, resumed by a flush of the killed output, then replayed again."""
    source = _prefix_source(tmp_path, "pi-before-compaction.jsonl", 260)
    out = tmp_path / "reference" / "out.jsonl"
    _, ref = _reference_run(tmp_path / "reference", [["replay", str(source), "-o", str(out)]], out)
    assert ref.summaries >= 2
    chosen = sorted({(ref.summary_writes[0], "after"), (ref.index_writes[-1], "torn"), (1, "before")})
    tally = _replay_crashes(tmp_path, source, chosen, ref.summaries)
    print(tally.line("replay of a corpus prefix"))
    assert tally.kills == len(chosen)


@pytest.mark.slow
def test_kill_at_every_write_of_six_demo_tasks(tmp_path: Path) -> None:
    _, ref = _reference_run(tmp_path / "reference", demo_runs(6))
    tally = _demo_crashes(tmp_path, 6, points(range(1, ref.writes + 1)), continue_every=8)
    print(tally.line("demo, 6 tasks"))
    assert tally.kills == ref.writes


@pytest.mark.slow
@pytest.mark.parametrize(("name", "count"),
                         [("pi-large-session.jsonl", 50), ("pi-before-compaction.jsonl", 40)])
def test_kill_during_replay_of_a_corpus_session(tmp_path: Path, name: str, count: int) -> None:
    source = corpus_path(name)
    out = tmp_path / "reference" / "out.jsonl"
    _, ref = _reference_run(tmp_path / "reference", [["replay", str(source), "-o", str(out)]], out)
    chosen = _replay_points(ref, count, seed=len(name))
    tally = _replay_crashes(tmp_path, source, chosen, ref.summaries)
    print(tally.line(f"replay of {name}"))
    assert tally.kills == len(chosen) >= count
