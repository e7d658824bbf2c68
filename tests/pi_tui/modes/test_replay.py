"""`pi-tui replay` of a real recorded session: the pruned context is small, valid, stable, and loses nothing."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from condense.config import CondenseConfig
from condense.local_host import context_estimate
from condense.measure import estimate_tokens
from condense.record_bursts import expanded, records_of
from condense.ref_ranges import unpacked
from pi_tui.ai.models import parse_model_ref
from pi_tui.cli import main
from pi_tui.modes.offline import next_request, offline_engine, session_model
from pi_tui.session.store import Session
from tests.conftest import corpus_path
from tests.support.fake_openai import FakeOpenAI, error_reply
from tests.support.full_disk import inject
from tests.support.reference import sweep_orphans, tool_result_chars
from tests.support.typed import plain, present

# Whole corpus sessions replayed through condense: these share one worker under xdist, not the CPU.
pytestmark = pytest.mark.xdist_group("serial")


@pytest.fixture(scope="module")
def replayed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("replay") / "out.jsonl"
    source = corpus_path("pi-large-session.jsonl")
    assert main(["replay", str(source), "-o", str(out), "--summarizer", "extractive"]) == 0
    return out


def originals(path: Path) -> dict[tuple[str, int | None], str]:
    found: dict[tuple[str, int | None], str] = {}
    for message in Session.open(path).messages():
        if message["role"] == "toolResult":
            text = "\n".join(b["text"] for b in plain(message["content"]) if b.get("type") == "text")
            found[(message["toolCallId"], message["timestamp"])] = text
    return found


def test_replay_output_holds_the_recording_and_what_condense_persisted(replayed: Path) -> None:
    source = Session.open(corpus_path("pi-large-session.jsonl"))
    out = Session.open(replayed)
    recorded = [m for m in source.messages()]
    kept = [m for m in out.messages() if m.get("role") != "custom"]
    assert kept == recorded, "every recorded message, in order, unchanged"
    kinds = {e.get("customType") for e in expanded(out.entries) if e["type"] in ("custom", "custom_message")}
    assert {"context-prune-summary", "context-prune-index", "context-prune-frontier"} <= kinds


def test_pruned_context_is_at_most_a_quarter_of_the_tool_output_and_has_no_orphan(replayed: Path) -> None:
    config = CondenseConfig()
    pruned = next_request(Session.open(replayed), config)
    unpruned = next_request(Session.open(corpus_path("pi-large-session.jsonl")), config.model_copy(
        update={"enabled": False}))
    ratio = tool_result_chars(pruned) / tool_result_chars(unpruned)
    assert ratio <= 0.25, f"tool-result text kept: {ratio:.1%}"
    engine, _ = offline_engine(Session.open(replayed), config)
    rendered = engine.render(Session.open(replayed).messages())
    again, swept = sweep_orphans(rendered)
    assert swept == [] and again is rendered
    assert engine.diagnostics.counts()["orphan-sweep"] == 0


def test_every_ref_in_the_context_returns_its_original_output(replayed: Path) -> None:
    session = Session.open(replayed)
    pruned = json.dumps(next_request(session, CondenseConfig()))
    # a stub names its ref in backticks; a history fold names the refs of the work it folded
    folded = "".join(re.findall(r"<folded-history.*?</folded-history>", pruned))
    listed = re.findall(r"(?<!\w)t\d+(?!\w)", folded)
    refs = sorted({*re.findall(r"`(t\d+)`", pruned), *listed}, key=lambda r: int(r[1:]))
    assert len(refs) > 20
    engine, _ = offline_engine(session, CondenseConfig())
    recorded = originals(corpus_path("pi-large-session.jsonl"))
    for ref in refs:
        record = engine.index.get_record(ref)
        assert record is not None, ref
        original = recorded[(record.tool_call_id, record.result_timestamp)]
        text, _ = engine.query([ref])
        if "[Output truncated:" in text:
            head = text.split("\n\n", 1)[1].rsplit("\n[Output truncated:", 1)[0]
            assert original.startswith(head), ref
        else:
            assert text.endswith("\n\n" + original), ref


def test_every_compressed_chain_lists_its_refs_in_the_order_its_calls_ran(replayed: Path) -> None:
    chains = list(records_of(Session.open(replayed).entries, "context-prune-chain"))
    assert len(chains) > 20
    for chain in chains:  # `toolRefs` are in call order; stale reads and backfills took numbers out of it
        numbers = [int(ref[1:]) for ref in unpacked(chain["toolRefs"])]
        assert numbers == sorted(numbers), (chain["blockId"], chain["toolRefs"])


def _condense_share(path: Path) -> tuple[float, list[dict[str, Any]]]:
    """What condense's entries add to the recorded ones (a share of their bytes), and its index records."""
    recorded = ours = 0
    records: list[dict[str, Any]] = []
    for line in path.read_bytes().splitlines():
        entry = json.loads(line)
        mine = str(entry.get("customType", "")).startswith("context-prune")
        if mine:
            ours += len(line)
        else:
            recorded += len(line)
        if entry.get("customType") == "context-prune-index":
            records += entry["data"]["toolCalls"]
    return ours / recorded, records


def test_index_records_point_at_their_outputs_and_a_file_with_copies_recovers_the_same(
        replayed: Path, tmp_path: Path) -> None:
    copied = tmp_path / "copies.jsonl"  # what pi-tui wrote before (pi-condense's own records): an old file
    source = str(corpus_path("pi-large-session.jsonl"))
    assert main(["replay", source, "-o", str(copied), "--summarizer", "extractive", "--set", "index_copies=true"]) == 0
    growth, records = _condense_share(replayed)
    old_growth, old_records = _condense_share(copied)
    assert all("resultText" not in r and "args" not in r for r in records)
    assert all("resultText" in r for r in old_records)
    assert old_growth > 0.6 and growth < old_growth / 2, (growth, old_growth)
    engine, _ = offline_engine(Session.open(replayed), CondenseConfig())
    old, _ = offline_engine(Session.open(copied), CondenseConfig())
    refs = [f"t{n}" for n in range(1, engine.index.next_ref_number)]
    assert len(refs) > 100
    for ref in refs:
        assert engine.query([ref]) == old.query([ref]), ref


def test_two_renders_of_the_same_file_are_byte_identical(replayed: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["context", str(replayed), "--json"]) == 0
    first = capsys.readouterr().out
    assert main(["context", str(replayed), "--json"]) == 0
    assert capsys.readouterr().out == first


def test_replay_never_overwrites_and_rejects_bad_settings(replayed: Path, tmp_path: Path,
                                                          capsys: pytest.CaptureFixture[str]) -> None:
    source = str(corpus_path("pi-large-session.jsonl"))
    assert main(["replay", source, "-o", str(replayed)]) == 2
    assert "already exists" in capsys.readouterr().err
    assert main(["replay", source, "-o", str(tmp_path / "x.jsonl"), "--set", "min_batch_chars=-5"]) == 2
    assert "min_batch_chars" in capsys.readouterr().err
    assert not (tmp_path / "x.jsonl").exists()


def test_query_command_prints_the_original(replayed: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["query", str(replayed), "t1", "t2"]) == 0
    assert capsys.readouterr().out.startswith("## toolRef: t1\n")


def test_query_exits_1_when_a_ref_is_not_found_and_still_prints_the_others(
        replayed: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["query", str(replayed), "t1", "nope"]) == 1
    printed = capsys.readouterr()
    assert printed.out.startswith("## toolRef: t1\n")
    assert "## toolRef: nope\n(not found in index" in printed.out
    assert printed.err.count("\n") == 1 and printed.err.endswith(": nope\n")


@pytest.mark.parametrize("name", ["pi-large-session.jsonl", "pi-before-compaction.jsonl"])
def test_replay_with_defaults_compresses_chains_and_halves_what_the_model_reads(
        name: str, tmp_path: Path) -> None:
    from condense.measure import model_chars

    out = tmp_path / "out.jsonl"
    assert main(["replay", str(corpus_path(name)), "-o", str(out)]) == 0
    config = CondenseConfig()
    session = Session.open(out)
    pruned = next_request(session, config)
    unpruned = next_request(Session.open(corpus_path(name)), config.model_copy(update={"enabled": False}))
    text = json.dumps(pruned)
    assert "<compressed-chain" in text
    assert model_chars(pruned) <= 0.5 * model_chars(unpruned)
    engine, _ = offline_engine(session, config)
    rendered = engine.render(session.messages())
    assert sweep_orphans(rendered)[1] == [] and engine.diagnostics.counts()["orphan-sweep"] == 0
    refs = set(re.findall(r"`(t\d+)`", text)) | set(re.findall(r"context_tree_query\((t\d+)\)", text))
    for tools in re.findall(r'tools=\\"([^"\\]*)\\"', text):
        refs.update(r for r in tools.split(",") if r)
    assert len(refs) > 20
    for ref in refs:
        assert engine.index.get_record(ref) is not None, ref
    for block in set(re.findall(r'<compressed-chain id="(b\d+)"', text)) | set(re.findall(r"\{(b\d+)\}", text)):
        assert engine.chains.find_by_block_id(block) is not None, block


def test_a_full_disk_leaves_no_output_behind_and_says_so_in_one_line(tmp_path: Path,
                                                                     capsys: pytest.CaptureFixture[str]) -> None:
    source, out = str(corpus_path("pi-compaction-check.jsonl")), tmp_path / "out.jsonl"
    undo = inject(tmp_path)
    try:
        assert main(["replay", source, "-o", str(out)]) == 2
    finally:
        undo()
    assert capsys.readouterr().err == f"pi-tui: error: replay not written: {out}: no space left on the disk\n"
    assert list(tmp_path.iterdir()) == [], "no truncated OUT, temp file or spill folder is left"
    assert main(["replay", source, "-o", str(out)]) == 0, "the same OUT works once there is space"
    assert Session.open(out).warnings == []
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".")] == []


def test_replay_into_a_folder_says_it_is_a_folder(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["replay", str(corpus_path("pi-compaction-check.jsonl")), "-o", str(tmp_path)]) == 2
    assert f"{tmp_path} is a folder" in capsys.readouterr().err


@pytest.mark.parametrize(("model", "window"), [("openai/gpt-4o", 128_000), ("anthropic/claude-opus-4-1", 200_000),
                                               ("gemini/gemini-2.5-pro", 1_048_576)])
def test_replay_assumes_the_session_models_own_window(tmp_path: Path, model: str, window: int) -> None:
    session = Session.create(tmp_path, tmp_path)
    provider, model_id = model.split("/")
    session.append_model_change(provider, model_id)
    spec = session_model(session)
    assert (spec.ref, spec.context_window) == (model, window)  # as the live agent resolves it, from the map
    assert spec.prices == parse_model_ref(model).prices


def test_offline_context_use_is_what_the_pruned_request_holds_not_the_recorded_usage(replayed: Path) -> None:
    """The recorded usage predates pruning: `context`, `replay` and `whatif` reckon the context from the
    request condense renders now, so the budget triggers see the pruned history."""
    session = Session.open(replayed)
    engine, host = offline_engine(session, CondenseConfig(summarizer_model="extractive"))
    messages = session.messages()
    pruned = estimate_tokens(engine.render(messages))
    recorded = context_estimate(messages)
    assert recorded is not None and recorded.reported  # the recording has usage to be misled by
    assert present(host.context_usage()).tokens == pruned < estimate_tokens(messages)


@pytest.mark.parametrize(("summarizer", "named"), [
    ("openai/gpt-4o", "openai/gpt-4o: no API key for openai: set OPENAI_API_KEY"),
    ("foo/bar", "unknown provider 'foo' in foo/bar"),
    ("default", "anthropic/claude-opus-4-5: no API key for anthropic: set ANTHROPIC_API_KEY"),
])
def test_a_summarizer_that_cannot_be_used_is_refused_before_anything_is_written(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch,
        summarizer: str, named: str) -> None:
    for name in ("OPENAI_API_KEY", "ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN"):
        monkeypatch.delenv(name, raising=False)
    out = tmp_path / "out.jsonl"
    source = str(corpus_path("pi-compaction-check.jsonl"))
    assert main(["replay", source, "-o", str(out), "--summarizer", summarizer]) == 2
    err = capsys.readouterr().err
    assert named in err and len(err.splitlines()) == 1, err
    assert list(tmp_path.iterdir()) == []


def test_a_bad_summarizer_name_is_blamed_on_its_flag_in_words(tmp_path: Path,
                                                               capsys: pytest.CaptureFixture[str]) -> None:
    source = str(corpus_path("pi-compaction-check.jsonl"))
    assert main(["replay", source, "-o", str(tmp_path / "o.jsonl"), "--summarizer", "bogus"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("pi-tui: error: --summarizer bogus:") and "--set" not in err
    assert '"default", "extractive" or "provider/model-id"' in err and "pattern" not in err


def test_replay_exits_1_when_summaries_were_due_and_none_could_be_written(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-rejected")
    out = tmp_path / "out.jsonl"
    with FakeOpenAI() as server:
        monkeypatch.setenv("OPENAI_API_BASE", server.base_url)
        server.push(*[error_reply(401, "Incorrect API key provided", kind="invalid_request_error",
                                  code="invalid_api_key") for _ in range(200)])
        code = main(["replay", str(corpus_path("pi-compaction-check.jsonl")), "-o", str(out),
                     "--summarizer", "openai/gpt-4o-mini"])
    assert code == 1
    captured = capsys.readouterr()
    assert "wrote 0 summaries" in captured.out
    stops = [line for line in captured.err.splitlines() if "summarization stopped" in line]
    assert len(stops) == 1 and "openai/gpt-4o-mini" in stops[0], captured.err
    assert captured.err.rstrip().endswith("summaries were due and none could be written (see above)")
