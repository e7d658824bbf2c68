"""History folding (condense/fold.py): the oldest requests of a long session leave the context for one
block behind a ref, only where the prompt is rewritten anyway, and nothing in them is lost."""

from __future__ import annotations

import json
from typing import Any

import pytest

from condense.chains import branch_messages
from condense.config import CondenseConfig
from condense.engine import CondenseEngine
from condense.fold import (
    FOLD,
    MAX_REQUESTS,
    REQUEST_LINE_CHARS,
    SUBJECT_CHARS,
    Fold,
    HistoryFold,
    call_subject,
    plan_fold,
    reconstruct_folds,
    request_line,
)
from condense.measure import model_chars
from condense.occurrence import message_key
from condense.simulate import check_recovery
from pi_tui.session.store import Session
from tests.conftest import corpus_path
from tests.support.memory_host import Driver, make, user

BIG = "line of output\n" * 200  # 3,000 characters: every batch is summarised
FOLDING = {"fold_keep_turns": 2, "fold_min_chars": 300}  # the stubbed turns are small
DEFERRED = {"min_flush_chars": 10_000_000}  # final replies leave their work pending
MINUTE = 60_000


async def play(drive: Driver, requests: int, start: int = 0) -> None:
    """`requests` user turns, each one read and a reply, a second apart."""
    for n in range(start, start + requests):
        ts = 1_000_000 + n * 1_000
        await drive.prompt(f"request {n}: look at module_{n}.py", ts)
        await drive.tool_turn(ts + 100, [(f"c{n}", f"module_{n}\n" + BIG)])
        await drive.final(ts + 500, f"reply {n}")


def texts(messages: list[dict[str, Any]]) -> list[str]:
    return [json.dumps(m["content"]) for m in messages]


def block(messages: list[dict[str, Any]]) -> str:
    first = messages[0]["content"][0]["text"]
    assert first.startswith("<folded-history"), first[:80]
    return str(first)


async def test_old_requests_fold_into_one_block_after_a_flush_and_the_newest_stay() -> None:
    host, _, drive = make(FOLDING)
    await play(drive, 5)
    rendered = drive.render()
    text = block(rendered)
    assert 'id="f' in text and "request 0: look at module_0.py" in text
    users = [m["content"][0]["text"] for m in rendered[1:] if m["role"] == "user"]
    assert users[-2:] == ["request 3: look at module_3.py", "request 4: look at module_4.py"]
    assert not any("request 0" in t for t in texts(rendered[1:])), "folded requests left the context"
    assert host.custom(FOLD), "the fold is persisted with the session"


async def test_every_folded_output_and_request_comes_back_through_the_query() -> None:
    _, engine, drive = make(FOLDING)
    await play(drive, 5)
    rendered = drive.render()
    history = drive.host.messages()
    recovery = check_recovery(history, rendered, lambda key: engine.query([key])[0])
    assert recovery.pruned > 0 and recovery.recoverable == recovery.pruned
    ref = block(rendered).split('id="', 1)[1].split('"', 1)[0]
    transcript = engine.query([ref])[0]
    assert "request 0: look at module_0.py" in transcript and "reply 0" in transcript
    keys = {m["toolCallId"]: message_key(m) for m in history if m["role"] == "toolResult"}
    assert engine.history_fold.covering(keys["c0"], history) == ref, "whatif prices its transcript first"
    assert engine.history_fold.covering(keys["c4"], history) is None, "the newest work is not folded"


async def test_a_reopened_session_renders_the_same_bytes() -> None:
    host, _, drive = make(FOLDING)
    await play(drive, 5)
    before = json.dumps(drive.render())
    again = CondenseEngine(host, CondenseConfig.model_validate({"min_batch_chars": 1000, **FOLDING}))
    again.on_session_start()
    assert json.dumps(again.render(host.messages())) == before


async def test_the_fold_moves_only_where_the_prompt_is_rewritten_anyway() -> None:
    host, engine, drive = make({**FOLDING, **DEFERRED})
    await play(drive, 5)
    assert host.custom(FOLD) == [], "no flush yet, and the cache is warm: nothing is rewritten"
    await engine.before_request(1_000_000 + 5_000 + 6 * MINUTE)  # the user came back after six minutes
    assert [f["ref"] for f in host.custom(FOLD)] == ["f1"]
    await play(drive, 4, start=5)
    assert [f["ref"] for f in host.custom(FOLD)] == ["f1"], "warm and nothing flushed: the fold stays put"
    await engine.before_request(1_000_000 + 9_000 + 20 * MINUTE)
    folds = host.custom(FOLD)
    assert [f["ref"] for f in folds] == ["f1", "f2"]
    assert "earlier parts: f1" in engine.history_fold.folds[-1].text
    assert "request 5: look at module_5.py" in engine.query(["f2"])[0]
    assert "request 5" not in engine.query(["f1"])[0], "each fold's transcript is its own stretch"


async def test_a_protected_output_is_never_folded() -> None:
    host, _, drive = make({**FOLDING, "protected_tools": ["bash"]})
    await drive.prompt("request 0: run it", 1_000)
    await drive.tool_turn(1_100, [("p0", "kept verbatim " + BIG)], name="bash")
    await drive.final(1_500, "ran it")
    await play(drive, 5, start=1)
    rendered = drive.render()
    assert any("kept verbatim" in t for t in texts(rendered)), "the protected output is still in view"
    assert host.custom(FOLD) == [], "the only cut would have folded the protected output"


async def test_no_fold_when_off_or_when_the_stretch_is_small() -> None:
    for settings in ({"fold_keep_turns": 0}, {"fold_keep_turns": 2, "fold_min_chars": 10_000_000}):
        host, _, drive = make(settings)
        await play(drive, 6)
        assert host.custom(FOLD) == [] and not drive.render()[0]["content"][0]["text"].startswith("<folded")


async def test_a_branch_without_the_boundary_renders_unfolded() -> None:
    host, engine, drive = make(FOLDING)
    await play(drive, 5)
    fold = reconstruct_folds(host.entries)[-1]
    engine.history_fold.reset([fold])
    other = [user("a different start", 1)]
    assert engine.history_fold.apply(other) is other


def test_a_damaged_fold_entry_is_skipped() -> None:
    good = Fold("f1", "1:abc", None, ("x",), "<folded-history>", 1).to_json()
    entries = [{"type": "custom", "customType": FOLD, "data": bad} for bad in ({"ref": "../1"}, "x", {})]
    entries.append({"type": "custom", "customType": FOLD, "data": good})
    assert [f.ref for f in reconstruct_folds(entries)] == ["f1"]


def test_a_request_line_is_one_short_line() -> None:
    line = request_line(user("fix\n\n  the   bug " + "x" * 500, 1))
    assert line.startswith("fix the bug ") and len(line) == REQUEST_LINE_CHARS and line.endswith("…")



def test_a_call_subject_ends_on_a_whole_word() -> None:
    command = "cd /work/project && python -m pytest tests/test_engine.py -x --maxfail=1"
    subject = call_subject("bash", {"command": command})
    assert subject == "bash cd /work/project && python -m…", subject
    assert call_subject("read", {"path": "src/app.ts"}) == "read src/app.ts"
    long_word = call_subject("bash", {"command": "x" * 80})
    assert long_word == "bash " + "x" * (SUBJECT_CHARS - 1) + "…"



async def test_a_fold_persists_only_the_requests_its_block_can_list() -> None:
    """Each fold used to persist every request folded before it: a long session's file grew with the
    square of its folds. It keeps the newest the next block lists, and how many there were."""
    host, engine, drive = make(FOLDING)
    await play(drive, 50)
    folds = host.custom(FOLD)
    assert len(folds) > 2
    assert all(len(fold["requests"]) <= MAX_REQUESTS for fold in folds)
    assert folds[-1]["requestCount"] == 46 and 'requests="46"' in engine.history_fold.folds[-1].text
    assert "(6 earlier requests: see the transcript)" in engine.history_fold.folds[-1].text


def test_a_fold_written_with_every_request_reads_back_with_its_count() -> None:
    written = Fold("f1", "1:abc", None, tuple(f"- request {n}" for n in range(50)), "<folded-history>", 1).to_json()
    del written["requestCount"]
    fold = Fold.from_json(written)
    assert fold is not None and fold.folded == 50 and fold.requests[0] == "- request 10"


@pytest.mark.parametrize("name", ["pi-large-session.jsonl", "pi-before-compaction.jsonl", "pi-compact-hooks.jsonl",
                                  "pi-compaction-check.jsonl"])
def test_a_fold_planned_from_its_boundary_is_the_one_a_walk_of_everything_plans(name: str) -> None:
    """At every message of a corpus session (folding as it goes), and after the protection rules change
    so that work before the fold in force is protected: the same plan as `plan_fold` over the whole."""
    messages = branch_messages(Session.open(corpus_path(name)).branch_entries())
    fold = HistoryFold()
    planned = 0
    for end in range(1, len(messages) + 1):
        inputs = messages[:end]
        later = end > len(messages) // 2  # from here on every read is protected
        protected = _reads_protected if later else _nothing_protected
        expected = plan_fold(inputs, inputs, fold.folds, 2, 2_000, protected)
        assert fold.plan(inputs, inputs, 2, 2_000, protected, model_chars, later) == expected
        if expected is not None:
            fold.add(expected.fold(lambda key: None))
            planned += 1
    assert planned > 1


def _nothing_protected(name: str, args: dict[str, Any]) -> bool:
    return False


def _reads_protected(name: str, args: dict[str, Any]) -> bool:
    return name == "read"


async def test_a_fold_keeps_pi_s_compaction_summary_in_view() -> None:
    host, engine, drive = make(FOLDING)
    await play(drive, 5)
    summary: dict[str, Any] = {"role": "compactionSummary", "summary": "what came before", "tokensBefore": 9,
                               "timestamp": 1}
    rendered = engine.history_fold.apply([summary, *host.messages()])
    assert rendered[0] is summary, "the only account of what the compaction replaced stays"
    assert block(rendered[1:]) and len(rendered) < len(host.messages())
