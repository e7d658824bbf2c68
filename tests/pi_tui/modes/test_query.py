"""`pi-tui query` pages through an output as the model does: from a line, from a character of a line too
long for one page, a range of lines, or the lines holding a text."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from condense import OpenAICondenser
from condense.record_bursts import records_of
from pi_tui.cli import main
from pi_tui.session.store import Session

LOG = "\n".join(f"{n:05d} INFO served in {n % 97:2d}s" for n in range(1, 10_001))  # 250,000 bytes
ONE_LINE = "".join(f'{{"id": {n}}},' for n in range(30_000))  # 408,890 bytes, no line break


@pytest.fixture
def session(tmp_path: Path) -> Path:
    """A library store whose two outputs were spilled and indexed as the turn ended."""
    with OpenAICondenser(tmp_path / "store", config={"spill_threshold": 2000}) as condenser:
        calls = [{"id": name, "type": "function", "function": {"name": "bash", "arguments": "{}"}}
                 for name in ("log", "json")]
        condenser.add_sync([{"role": "user", "content": "run them"},
                            {"role": "assistant", "content": None, "tool_calls": calls},
                            {"role": "tool", "tool_call_id": "log", "content": LOG},
                            {"role": "tool", "tool_call_id": "json", "content": ONE_LINE}])
    [path] = (tmp_path / "store").glob("*.jsonl")
    return path


def body(printed: str) -> str:
    return printed.split("\n\n", 1)[1]


def test_a_range_of_lines_and_the_lines_holding_a_text(session: Path, capsys: pytest.CaptureFixture[str]) -> None:
    lines = LOG.split("\n")
    assert main(["query", str(session), "log", "--lines", "9999-10000"]) == 0
    assert body(capsys.readouterr().out) == "\n".join(
        [*lines[9998:], "[Lines 9999-10000 of 10000 shown: the end of the output]", ""])
    assert main(["query", str(session), "log", "--grep", "09999 INFO"]) == 0
    assert body(capsys.readouterr().out) == f'9999: {lines[9998]}\n[1 of 10000 lines contains "09999 INFO"]\n'
    assert main(["query", str(session), "log", "--offset", "9001"]) == 0
    assert body(capsys.readouterr().out).startswith(f"{lines[9000]}\n")


def test_a_search_looks_only_within_the_range_of_lines(session: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """`--grep X --lines A-B` searched the whole output from A on (`--lines` was taken for a count)."""
    lines = LOG.split("\n")
    assert main(["query", str(session), "log", "--lines", "100-199", "--grep", "in  5s"]) == 0
    assert body(capsys.readouterr().out) == (f"102: {lines[101]}\n199: {lines[198]}\n"
                                             '[2 of lines 100-199 contain "in  5s"]\n')
    assert main(["query", str(session), "log", "--lines", "9990-", "--grep", "in  5s"]) == 0
    assert body(capsys.readouterr().out) == f'9996: {lines[9995]}\n[1 of lines 9990-10000 contains "in  5s"]\n'


def test_a_line_longer_than_a_page_is_read_from_the_column_its_notice_gives(
        session: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["query", str(session), "json"]) == 0
    first = body(capsys.readouterr().out)
    assert first.startswith(ONE_LINE[:51_200] + "\n[Output truncated: line 1 of 1, characters 1-51200 of 408890")
    notice = json.loads(first[first.index("({") + 1 : first.rindex(")]")])
    assert notice == {"toolCallIds": ["json"], "offset": 1, "column": 51_201}
    assert main(["query", str(session), "json", "--offset", "1", "--column", "51201"]) == 0
    assert body(capsys.readouterr().out).startswith(ONE_LINE[51_200:102_400] + "\n[Output truncated: ")


@pytest.mark.parametrize(("options", "said"), [
    (["--lines", "20-10"], "--lines '20-10': give line numbers from 1"),
    (["--lines", "ten"], "--lines 'ten': give line numbers from 1"),
    (["--offset", "0"], "--offset 0: give a number from 1"),
    (["--column", "-3"], "--column -3: give a number from 1"),
    (["--lines", "5", "--offset", "2"], "--lines and --offset both say where to start"),
    (["--grep", ""], "--grep: the text is empty"),
])
def test_a_bad_option_is_said_in_one_line(session: Path, options: list[str], said: str,
                                          capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["query", str(session), "log", *options]) == 2
    printed = capsys.readouterr()
    assert printed.out == "" and printed.err.startswith(f"pi-tui: error: {said}") and printed.err.count("\n") == 1


def test_a_fold_ref_is_answered_and_the_command_succeeds(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with OpenAICondenser(tmp_path / "store",
                         config={"fold_keep_turns": 1, "fold_min_chars": 10, "min_batch_chars": 0}) as condenser:
        for n in range(4):
            call = {"id": f"c{n}", "type": "function", "function": {"name": "bash", "arguments": "{}"}}
            condenser.add_sync([{"role": "user", "content": f"request {n}"},
                                {"role": "assistant", "content": None, "tool_calls": [call]},
                                {"role": "tool", "tool_call_id": f"c{n}", "content": f"output {n}\n" * 300},
                                {"role": "assistant", "content": f"reply {n}"}])
            condenser.flush_sync()
    [path] = (tmp_path / "store").glob("*.jsonl")
    assert list(records_of(Session.open(path).entries, "context-prune-fold"))
    assert main(["query", str(path), "f1"]) == 0
    printed = capsys.readouterr()
    assert printed.out.startswith("## toolRef: f1\nFolded history") and printed.err == ""
