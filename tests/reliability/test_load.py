"""Load: a 10 MB tool output, a generated history of thousands of messages, and the engine's property
suite at benchmark scale. The tests check what must hold at that size (the output spilled and
recoverable, one copy in the session, a small request, nothing lost after a replay) and print the
timing ratios; benchmarks/reliability.py prints the same ratios as a table. No wall-clock assertion.
"""

from __future__ import annotations

import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from condense.blobs import read_sidecar
from pi_tui.modes.offline import offline_engine
from pi_tui.session.store import Session
from tests.reliability.consistency import EXTRACTIVE, check_session
from tests.reliability.crash import REPO
from tests.reliability.load import TEN_MB, big_output, generated_history, spill_ten_megabytes

PROPERTY_EXAMPLES = 20_000


async def test_a_ten_megabyte_tool_output_is_spilled_and_the_request_stays_small(tmp_path: Path) -> None:
    run = await spill_ten_megabytes(tmp_path)
    assert run.session_bytes < TEN_MB * 1.1, "the session holds the output once (the index keeps a path)"
    assert run.request_chars < 64 * 1024, "the model is sent a spill stub, not 10 MB"
    session = Session.open(run.session)
    engine, _ = offline_engine(session, EXTRACTIVE)
    (record,) = [r for r in engine.index.records() if r.spill_path]
    sidecar = Path(record.spill_path or "")
    assert read_sidecar(sidecar) == big_output() and record.result_text == ""
    assert stat.S_IMODE(sidecar.stat().st_mode) == 0o600
    text, _ = engine.query([record.key])
    head = text.split("\n\n", 1)[1].split("\n[Output truncated:")[0]
    assert head != text and big_output().startswith(head), "the query shows the head, the sidecar the rest"
    verdict = check_session(run.session)
    assert verdict.recovered == 1
    print(f"\n10 MB output: session {run.session_bytes / TEN_MB:.2f}x the output, request {run.request_chars}"
          f" chars; render / json.dumps(request): first {run.first_render_ratio:.0f}x"
          f" ({run.first_vs_unpruned:.2f}x json.dumps of the unpruned messages),"
          f" steady {run.render_ratio:.2f}x")


def _history(tmp_path: Path, messages: int) -> None:
    run = generated_history(tmp_path, messages)
    assert run.messages >= messages * 0.99
    assert run.summaries > 0
    verdict = check_session(run.replayed)  # every output verbatim or recoverable after the replay
    assert verdict.outputs == sum(1 for m in Session.open(run.source).messages() if m["role"] == "toolResult")
    print(f"\n{run.messages} generated messages ({run.file_bytes / 1e6:.1f} MB), ratios to json.loads of the"
          f" file: open {run.open_ratio:.1f}x, render {run.render_ratio:.1f}x,"
          f" replay {run.replay_ratio:.0f}x;"
          f" {run.summaries} summaries, {verdict.recovered} outputs recoverable only by query, lost 0")


def test_a_generated_thousand_message_session_loads_renders_and_replays(tmp_path: Path) -> None:
    _history(tmp_path, 1000)


@pytest.mark.slow
def test_a_generated_five_thousand_message_session_loads_renders_and_replays(tmp_path: Path) -> None:
    _history(tmp_path, 5000)


@pytest.mark.slow
def test_the_engine_property_suite_at_benchmark_scale() -> None:
    """tests/condense/test_engine_properties.py with CONDENSE_PROPERTY_EXAMPLES=20000 random histories."""
    env = {**os.environ, "CONDENSE_PROPERTY_EXAMPLES": str(PROPERTY_EXAMPLES)}
    args = ["tests/condense/test_engine_properties.py", "-m", "slow", "-q", "-p", "no:cacheprovider"]
    done = subprocess.run([sys.executable, "-m", "pytest", *args], cwd=REPO, env=env, capture_output=True,
                          text=True, timeout=3600)
    assert done.returncode == 0 and "1 passed" in done.stdout, done.stdout[-3000:]
    print(f"\nproperty suite: {PROPERTY_EXAMPLES} generated histories passed")
