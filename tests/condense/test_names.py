"""The names line: which identifiers of a pruned output stay in view, and in what order."""

from __future__ import annotations

import json

import pytest
from markdown_it import MarkdownIt

from condense import OpenAICondenser
from condense.names import SCAN_CHARS, carried_names, identifiers, names_line, names_lines, top_names
from condense.records import SummaryRef, ToolCallRecord
from condense.summarize.refs import build_summary_content

HOOKS = """\
export class HookRunner {
  private timeout = this.timeout ?? 30000;
  emit(event: "agent_start" | "agent_end" | "turn_end") {}
  run() { this.emit("agent_start"); HookRunner.count++; }
  stop() { this.emit("agent_end"); }
}
"""


def test_identifiers_are_six_characters_with_a_digit_a_mark_or_a_hump() -> None:
    found = identifiers("see src/a.py, parseConfig, a1b2c3, v1.2, plainword, ------ and $HOME_DIR. Done: x_y_z1:")
    assert found == {"src/a.py", "parseConfig", "a1b2c3", "$HOME_DIR", "x_y_z1"}


def test_the_most_used_names_come_first_ties_in_order_of_first_use() -> None:
    assert top_names(HOOKS, 3) == ["HookRunner", "agent_start", "agent_end"]
    assert top_names(HOOKS, 10)[3:] == ["this.emit", "this.timeout", "turn_end", "HookRunner.count"]


def test_names_already_shown_are_left_out_and_the_limit_holds() -> None:
    assert top_names(HOOKS, 2, shown="- `t3` read hooks.ts: defines HookRunner") == ["agent_start", "agent_end"]
    assert top_names(HOOKS, 0) == []


def test_a_token_too_long_to_be_a_name_is_left_out() -> None:
    blob = "sha256:" + "ab12" * 30
    assert top_names(f"{blob} {blob} fileName", 5) == ["fileName"]


def test_each_name_is_listed_once_under_the_first_output_using_it() -> None:
    lines = names_lines([("t1", HOOKS), ("t2", "HookRunner again, and packageIndex"), ("t3", "nothing here")], 3, "")
    assert lines == ["- Names in `t1`: HookRunner, agent_start, agent_end", "- Names in `t2`: packageIndex"]


def test_a_merge_carries_the_names_lines_of_what_it_merges() -> None:
    names = names_line("t1", ["HookRunner", "agent_end"])
    summary = f"- `t1` read hooks.ts\n{names}\n**Summarized tool refs**: `t1`."
    assert carried_names(["prose only", summary]) == ["- Names in `t1`: HookRunner, agent_end"]


# ----- in the pruned request --------------------------------------------------------------------

SOURCE = ("def checkout(order):\n" + "    total = computeTotalPrice(order.line_items, tax_rate)  # order_2024\n" * 60
          + "    return total\n")


async def pruned_request(config: dict[str, object]) -> str:
    """A task that reads one file and answers, through the library facade (extractive summaries)."""
    condenser = OpenAICondenser(config=config)
    arguments = json.dumps({"path": "shop.py"})
    call = {"id": "call_1", "type": "function", "function": {"name": "read", "arguments": arguments}}
    await condenser.add([{"role": "user", "content": "what does checkout do?"},
                         {"role": "assistant", "content": None, "tool_calls": [call]},
                         {"role": "tool", "tool_call_id": "call_1", "content": SOURCE}])
    await condenser.add([{"role": "assistant", "content": "It prices the order."}])
    request = json.dumps(condenser.messages())
    assert SOURCE[:60] not in request  # the output itself is pruned
    return request


@pytest.mark.parametrize("config", [
    pytest.param({"chain_compression": {"rolling_window": 3}}, id="summary-beside-a-stub"),
    pytest.param({}, id="compressed-task"),
    pytest.param({"min_batch_chars": 100_000}, id="deterministic-chain-body"),
])
async def test_the_names_a_pruned_output_used_most_stay_in_the_request(config: dict[str, object]) -> None:
    request = await pruned_request(config)
    names = "- Names in `t1`: computeTotalPrice, order.line_items, tax_rate, order_2024"
    assert names in request


async def test_no_names_line_when_the_setting_is_zero() -> None:
    request = await pruned_request({"summary_names": 0})
    assert "Names in" not in request and "computeTotalPrice" not in request


def test_the_names_line_stays_a_line_of_its_own_when_the_summary_is_shown_as_markdown() -> None:
    """The transcript renders summaries as Markdown: a plain line under a bullet would join its text."""
    record = ToolCallRecord("call_1", "read", {"path": "shop.py"}, SOURCE, False, 0, 0)
    content = build_summary_content("- [[1:read]] read shop.py: the checkout", [SummaryRef("t1", "call_1")], [record],
                                    names_limit=3)
    items = [token.content for token in MarkdownIt().parse(content) if token.type == "inline"]
    names = "Names in `t1`: computeTotalPrice, order.line_items, tax_rate"
    assert items[:2] == ["`t1` read shop.py: the checkout", names]


def test_a_long_output_is_ranked_by_its_head_and_a_name_only_its_tail_uses_is_not_listed() -> None:
    """Each distinct name is counted through the text: over a multi-megabyte output of distinct words
    that was minutes of CPU on the request path; the head says what the output is about."""
    head = "HookRunner.count and agent_start " * 10
    filler = " ".join(f"word{n:07d}" for n in range(SCAN_CHARS // 12 + 1))
    names = top_names(head + filler + " tailOnlyName" * 50, 3)
    assert names[:2] == ["HookRunner.count", "agent_start"] and "tailOnlyName" not in names
