"""`pi-tui whatif` reports retention per strategy: a path a tool printed in the first task and used at
the end of the second is visible with nothing pruned, behind a ref under condense without its names
line, lost under masking; and the OpenHands SDK rows run beside them."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from condense.messages import AssistantMessage
from pi_tui.cli import main
from pi_tui.session.store import Session
from tests.support.priced_session import claude_reply, listing

USED = "src/module_0_1/file_007.py"


def _assistant(content: list[dict[str, Any]], ts: int, prompt: int, stop: str) -> AssistantMessage:
    usage = {"input": 0, "output": 200, "cacheRead": prompt - 300, "cacheWrite": 300, "totalTokens": prompt + 200,
             "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "total": 0.01}}
    return claude_reply(content, ts, usage, stop)


def _write(folder: Path) -> Path:
    """Task 0: three listings. Task 1: eleven more, then a reply naming a file from task 0's second."""
    session = Session.create(folder, directory=folder)
    ts, prompt = 1_700_000_000_000, 1_700
    for task, turns in ((0, 3), (1, 11)):
        ts += 120_000
        session.append_message({"role": "user", "content": [{"type": "text", "text": f"task {task}"}],
                                "timestamp": ts})
        for turn in range(turns):
            ts += 10_000
            call: dict[str, Any] = {"type": "toolCall", "id": f"toolu_{task}_{turn}", "name": "bash",
                    "arguments": {"command": f"grep -rn handler module {task} {turn}"}}
            session.append_message(_assistant([call], ts, prompt, "toolUse"))
            ts += 2_000
            session.append_message({"role": "toolResult", "toolCallId": call["id"], "toolName": "bash",
                                    "content": [{"type": "text", "text": listing(task, turn)}], "isError": False,
                                    "timestamp": ts})
            prompt += 1_500
        ts += 10_000
        text = f"Done; the one to change is {USED}." if task else "Task 0 is done."
        session.append_message(_assistant([{"type": "text", "text": text}], ts, prompt, "stop"))
    assert session.path is not None
    return session.path


def test_whatif_reports_visible_recoverable_and_lost_per_strategy(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    names = "none,masking,condense,openhands-sdk-agent,openhands-sdk"
    # without the names line under its summary (which would show the path), condense has it only behind a ref
    assert main(["whatif", str(_write(tmp_path)), "--json", "--strategies", names, "--set", "summary_names=0"]) == 0
    results = {s["name"]: s["retention"] for s in json.loads(capsys.readouterr().out)["sessions"][0]["strategies"]}
    for name, kind in (("none", "visible"), ("condense", "recoverable"), ("masking", "lost")):
        shares = results[name]["earlier_turn"]
        assert shares["uses"] == 1 and shares[kind] == 1 and shares[f"{kind}_share"] == 1.0, name
        assert results[name]["all"]["uses"] >= 1
    assert results["openhands-sdk-agent"]["all"]["uses"] == results["none"]["all"]["uses"]


def test_condense_keeps_a_pruned_outputs_names_in_view(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["whatif", str(_write(tmp_path)), "--json", "--strategies", "condense"]) == 0
    row = json.loads(capsys.readouterr().out)["sessions"][0]["strategies"][0]
    assert row["retention"]["earlier_turn"]["visible"] == 1, "the summary's names line holds the path"
    assert row["recovering"]["fetches"] == 0


def test_the_table_shows_the_retention_columns(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["whatif", str(_write(tmp_path)), "--strategies", "none,masking"]) == 0
    lines = capsys.readouterr().out.splitlines()
    header = next(line for line in lines if line.startswith("strategy"))
    assert "ids vis/rec/lost" in header and "earlier turn" in header and "w/ recovery $" in header
    masking = next(line for line in lines if line.startswith("masking"))
    assert masking.split()[-3:] == ["0/0/100%", "of", "1"], "the earlier-turn use is lost under masking"


def test_each_row_prices_fetching_back_what_its_context_hid(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    names = "none,masking,condense"
    assert main(["whatif", str(_write(tmp_path)), "--json", "--strategies", names, "--set", "summary_names=0"]) == 0
    report = json.loads(capsys.readouterr().out)["sessions"][0]
    rows = {s["name"]: s for s in report["strategies"]}
    assert rows["none"]["cost_with_recovery"] == rows["none"]["total_cost"], "none hides nothing"
    for name in ("masking", "condense"):
        row = rows[name]
        assert row["recovering"]["round_trips"] >= 1 and row["recovering"]["fetches"] >= 1, name
        assert row["cost_with_recovery"] == pytest.approx(row["total_cost"] + row["recovering"]["cost"])
        assert row["cost_with_recovery"] > row["total_cost"], name
    assert report["baseline_with_recovery"] in ("none", "masking")
    base = rows[report["baseline_with_recovery"]]
    assert rows["condense"]["ratio_with_recovery"] == pytest.approx(
        rows["condense"]["cost_with_recovery"] / base["cost_with_recovery"])


def test_condense_pays_for_the_tool_definition_it_adds_to_every_request(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["whatif", str(_write(tmp_path)), "--json", "--strategies", "none,condense"]) == 0
    rows = {s["name"]: s for s in json.loads(capsys.readouterr().out)["sessions"][0]["strategies"]}
    extra = rows["condense"]["context_tokens"][0] - rows["none"]["context_tokens"][0]
    assert 100 < extra < 1_000, "the first requests carry the same messages; condense adds context_tree_query"
