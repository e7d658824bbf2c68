"""The footer's numbers and lines (Pi's layout), and the small formatting the transcript relies on."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from pi_tui.commands.shell import shell_message
from pi_tui.conversation.call_subject import key_argument
from pi_tui.screens.picker import Choice, filter_choices
from pi_tui.widgets.footer import (
    FooterState,
    PiFooter,
    UsageTotals,
    context_style,
    display_path,
    format_tokens,
    git_branch,
)


@pytest.mark.parametrize(("count", "text"), [
    (0, "0"), (999, "999"), (1000, "1.0k"), (1250, "1.3k"), (9949, "9.9k"), (9999, "10.0k"), (10_000, "10k"),
    (12_499, "12k"), (999_499, "999k"), (1_000_000, "1.0M"), (1_250_000, "1.3M"), (12_500_000, "13M"),
])
def test_tokens_are_formatted_like_pi(count: int, text: str) -> None:
    assert format_tokens(count) == text


def test_totals_count_every_assistant_entry_of_the_file_and_skip_zeros() -> None:
    def entry(role: str, **usage: object) -> dict[str, Any]:
        return {"type": "message", "message": {"role": role, "usage": usage}}

    entries = [entry("assistant", input=1200, output=80, cacheRead=0, cacheWrite=0, cost={"total": 0.01}),
               entry("user", input=99),
               entry("assistant", input=800, output=20, cacheRead=5000, cacheWrite=0),
               {"type": "model_change"}]
    totals = UsageTotals.of_entries(entries)
    assert totals.text() == "↑2.0k ↓100 R5.0k $0.010"
    assert UsageTotals().text() == ""


def test_context_colours_change_past_70_and_90_percent() -> None:
    assert [context_style(p) for p in (None, 12.0, 70.0, 70.1, 90.0, 90.5)] == [
        "$muted", "$muted", "$muted", "$warning", "$warning", "$error"]


def test_the_footer_lines() -> None:
    footer = PiFooter()
    footer.state = FooterState(cwd="~/src/app", branch="main", session_name="fix",
                               totals=UsageTotals(1200, 80),
                               context_percent=42.35, context_window=200_000, model="claude-sonnet-4-5",
                               thinking="high", statuses={"zz": "│ last", "condense": "│ prune: 2\n pending"})
    first, second, third = (line.plain for line in footer.lines(60))
    assert first == "~/src/app (main) • fix"
    assert second.startswith("↑1.2k ↓80  42.4%/200k") and second.endswith("claude-sonnet-4-5 • high")
    assert len(second) == 60
    assert third == "prune: 2 pending │ last"  # bars between statuses, none leading
    footer.state = FooterState(cwd="/tmp", context_percent=None, context_window=128_000, model="demo")
    assert [line.plain.split()[0] for line in footer.lines(40)] == ["/tmp", "?%/128k"]


def test_paths_show_home_as_a_tilde(tmp_path: Path) -> None:
    assert display_path(tmp_path / "a", home=tmp_path) == "~/a"
    assert display_path(tmp_path, home=tmp_path) == "~"
    assert display_path("/elsewhere", home=tmp_path) == "/elsewhere"
    assert display_path(str(tmp_path) + "x", home=tmp_path) == str(tmp_path) + "x"


def test_the_git_branch_is_read_from_head(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)
    (repo / ".git" / "HEAD").write_text("ref: refs/heads/feature/x\n", encoding="utf-8")
    (repo / "src").mkdir()
    assert git_branch(repo / "src") == "feature/x"
    (repo / ".git" / "HEAD").write_text("0123456789abcdef\n", encoding="utf-8")
    assert git_branch(repo) == "0123456"
    worktree = tmp_path / "wt"
    worktree.mkdir()
    (worktree / ".git").write_text("gitdir: ../repo/.git\n", encoding="utf-8")
    assert git_branch(worktree) == "0123456"


def test_key_arguments_say_what_a_call_is_about() -> None:
    assert key_argument("read", {"path": "a.py", "offset": 3}) == "a.py"
    assert key_argument("bash", {"command": "ls\n  -la"}) == "ls -la"
    assert key_argument("context_tree_query", {"toolCallIds": ["t1", "t2"]}) == "t1, t2"
    assert key_argument("custom", {"n": 1, "what": "x"}) == "x"
    assert key_argument("custom", {"n": 1}) == '{"n": 1}'


def test_pickers_rank_prefix_then_substring_then_letters() -> None:
    choices = [Choice(v, v) for v in ("gemini/x", "openai/gpt-5.1", "demo", "xai/grok-4", "groq/llama")]
    assert [c.value for c in filter_choices(choices, "g")] == ["gemini/x", "groq/llama", "openai/gpt-5.1",
                                                               "xai/grok-4"]
    assert [c.value for c in filter_choices(choices, "gpt")] == ["openai/gpt-5.1"]
    assert [c.value for c in filter_choices(choices, "dmo")] == ["demo"]


def test_shell_outcomes_become_bash_execution_messages() -> None:
    ok = shell_message("ls", "a\nb", False, {"truncation": {"x": 1}}, False)
    assert (ok["exitCode"], ok["output"], ok["truncated"]) == (0, "a\nb", True)
    failed = shell_message("false", "oops\n\nCommand exited with code 2", True, None, True)
    assert (failed["exitCode"], failed["output"], failed["excludeFromContext"]) == (2, "oops", True)
    stopped = shell_message("sleep 9", "Command aborted", True, None, False)
    assert (stopped["exitCode"], stopped["cancelled"], stopped["output"]) == (None, True, "")
