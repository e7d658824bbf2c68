"""`pi-tui` as a run, the way Pi's users start it: piped stdin, messages and `@file` arguments beside the
commands, `--no-session`, `--resume`, a folder deleted under the shell, a stream that breaks mid-reply.
Real processes where the subject is the process (what reaches stdout and stderr, the exit status)."""

from __future__ import annotations

import argparse
import os
import pty
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from pi_tui import cli
from pi_tui.cli import main
from pi_tui.runtime.launch import LaunchOptions
from tests.support.cli import run_cli
from tests.support.fake_openai import FakeOpenAI, Reply, text_reply

CUT = "half an answer that breaks"


def fake(server: FakeOpenAI) -> tuple[str, ...]:
    return "--model", "openai/fake-model", "--base-url", server.base_url


def user_texts(request: dict[str, Any]) -> list[str]:
    return [m["content"] if isinstance(m["content"], str) else m["content"][0]["text"]
            for m in request["messages"] if m["role"] == "user"]


def saved_sessions() -> list[Path]:
    return list((Path(os.environ["PI_TUI_HOME"]) / "sessions").rglob("*.jsonl"))


def test_piped_stdin_is_the_task_of_a_print_run(tmp_path: Path, fake_openai: FakeOpenAI) -> None:
    """`echo hello | pi-tui` drew the TUI into the pipe and never ended."""
    fake_openai.push(text_reply("Hello back."))
    result = run_cli(*fake(fake_openai), cwd=tmp_path, stdin="hello\n", timeout=60)
    assert (result.returncode, result.stdout) == (0, "Hello back.\n"), result.stderr
    assert user_texts(fake_openai.requests[0]) == ["hello"]


def test_empty_stdin_and_no_task_is_one_line_and_nothing_is_written(tmp_path: Path) -> None:
    result = run_cli("--model", "demo", cwd=tmp_path, stdin="  \n", timeout=60)
    assert (result.returncode, result.stdout) == (2, "")
    assert result.stderr == ('pi-tui: error: stdin is no terminal and held no task: pipe one in (echo "fix the'
                             ' test" | pi-tui) or give it as an argument (pi-tui -p "fix the test")\n')
    assert saved_sessions() == []


def test_a_message_with_stdout_into_a_pipe_is_answered_there_not_drawn_as_the_tui(
        tmp_path: Path, fake_openai: FakeOpenAI) -> None:
    """stdin is a terminal, stdout a pipe: Pi runs print mode; pi-tui drew its screen into the pipe."""
    fake_openai.push(text_reply("Answered."))
    leader, follower = pty.openpty()
    try:
        done = subprocess.run([sys.executable, "-m", "pi_tui", "explain this", *fake(fake_openai)], cwd=tmp_path,
                              stdin=follower, capture_output=True, text=True, timeout=60)
    finally:
        os.close(leader)
        os.close(follower)
    assert (done.returncode, done.stdout) == (0, "Answered.\n"), done.stderr
    assert user_texts(fake_openai.requests[0]) == ["explain this"]


def test_piped_text_goes_into_the_message_before_the_task(tmp_path: Path, fake_openai: FakeOpenAI) -> None:
    """`echo "text" | pi-tui -p "summarize stdin"` sent the task alone."""
    fake_openai.push(text_reply("A summary."))
    result = run_cli("-p", "summarize stdin", *fake(fake_openai), cwd=tmp_path, stdin="some text\nmore\n")
    assert (result.returncode, result.stdout) == (0, "A summary.\n"), result.stderr
    assert user_texts(fake_openai.requests[0]) == ["some text\nmore\n\nsummarize stdin"]


@pytest.mark.parametrize("argv", [["-p", "hi"], ["sessions"], []], ids=["print", "sessions", "bare"])
def test_a_deleted_current_folder_is_one_line_and_exit_2(tmp_path: Path, argv: list[str]) -> None:
    folder = tmp_path / "gone"
    folder.mkdir()
    # the child changes into the folder first, then it goes, as `cd gone; rm -r ../gone; pi-tui` does
    done = subprocess.run([sys.executable, "-m", "pi_tui", "--model", "demo", *argv], cwd=folder,
                          preexec_fn=folder.rmdir, stdin=subprocess.DEVNULL, capture_output=True, text=True,
                          timeout=60)
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr == ("pi-tui: error: the current folder no longer exists (it was deleted or moved): cd to a"
                           " folder that exists and run pi-tui again\n")


def test_a_broken_stream_that_is_retried_prints_only_the_answer(tmp_path: Path, fake_openai: FakeOpenAI,
                                                                 isolated_home: Path) -> None:
    """The partial text of each broken attempt was printed before the answer, once per retry."""
    (isolated_home / "settings.toml").write_text("[retry]\nmax_retries = 3\nbase_delay_ms = 1\n")
    fake_openai.push(*(Reply(text=CUT, cut_after=3) for _ in range(2)), text_reply("The whole answer."))
    result = run_cli("-p", "hi", *fake(fake_openai), cwd=tmp_path)
    assert (result.returncode, result.stdout) == (0, "The whole answer.\n"), result.stderr
    assert len(fake_openai.requests) == 3


def test_a_stream_that_keeps_breaking_prints_nothing_on_stdout_and_one_error(
        tmp_path: Path, fake_openai: FakeOpenAI, isolated_home: Path) -> None:
    (isolated_home / "settings.toml").write_text("[retry]\nmax_retries = 3\nbase_delay_ms = 1\n")
    fake_openai.push(*(Reply(text=CUT, cut_after=3) for _ in range(4)))
    result = run_cli("-p", "hi", *fake(fake_openai), cwd=tmp_path)
    assert (result.returncode, result.stdout) == (1, "")
    errors = [line for line in result.stderr.splitlines() if line.startswith("pi-tui: error:")]
    assert len(errors) == 1 and "Traceback" not in result.stderr
    assert len(fake_openai.requests) == 4


def test_messages_are_sent_in_turn_as_pi_sends_them(tmp_path: Path, fake_openai: FakeOpenAI) -> None:
    """`pi-tui -p "a" "b"`: argparse refused "b" as an unrecognized argument."""
    fake_openai.push(text_reply("First."), text_reply("Second."))
    result = run_cli("-p", "read the notes", "now list them", *fake(fake_openai), cwd=tmp_path)
    assert (result.returncode, result.stdout) == (0, "First.\n\nSecond.\n"), result.stderr
    assert user_texts(fake_openai.requests[0]) == ["read the notes"]
    assert user_texts(fake_openai.requests[1]) == ["read the notes", "now list them"]


def test_a_first_word_that_names_no_command_is_a_message(tmp_path: Path, fake_openai: FakeOpenAI) -> None:
    """`pi-tui "explain this"` was argparse's "invalid choice"; `show`, a command, stays one."""
    fake_openai.push(text_reply("Explained."))
    result = run_cli("explain this", *fake(fake_openai), cwd=tmp_path)
    assert (result.returncode, result.stdout) == (0, "Explained.\n"), result.stderr
    shown = run_cli("show", str(saved_sessions()[0]), cwd=tmp_path)
    assert shown.returncode == 0 and "explain this" in shown.stdout


def test_an_at_file_attaches_the_files_text_as_pi_does(tmp_path: Path, fake_openai: FakeOpenAI) -> None:
    (tmp_path / "calc.py").write_text("def add(a, b):\n    return a + b\n")
    fake_openai.push(text_reply("It adds."))
    result = run_cli("-p", "explain", "@calc.py", *fake(fake_openai), cwd=tmp_path)
    assert (result.returncode, result.stdout) == (0, "It adds.\n"), result.stderr
    expected = f'<file name="{tmp_path / "calc.py"}">\ndef add(a, b):\n    return a + b\n\n</file>\nexplain'
    assert user_texts(fake_openai.requests[0]) == [expected]


def test_a_missing_at_file_is_one_line_before_anything_is_sent(tmp_path: Path, fake_openai: FakeOpenAI) -> None:
    result = run_cli("-p", "explain", "@nope.py", *fake(fake_openai), cwd=tmp_path)
    assert (result.returncode, result.stdout) == (2, "")
    assert result.stderr == (f"pi-tui: error: @nope.py: no such file {tmp_path / 'nope.py'}; check the name (it is"
                             " relative to this folder)\n")
    assert fake_openai.requests == [] and saved_sessions() == []


def test_no_session_answers_and_saves_nothing(tmp_path: Path, fake_openai: FakeOpenAI) -> None:
    fake_openai.push(text_reply("Nothing kept."))
    result = run_cli("-p", "hi", "--no-session", *fake(fake_openai), cwd=tmp_path)
    assert (result.returncode, result.stdout) == (0, "Nothing kept.\n"), result.stderr
    assert saved_sessions() == []


def test_resume_in_print_mode_is_one_line(tmp_path: Path) -> None:
    result = run_cli("-p", "hi", "--resume", "--model", "demo", cwd=tmp_path)
    assert (result.returncode, result.stdout) == (2, "")
    assert result.stderr == ("pi-tui: error: --resume: the session picker is the TUI's; in print mode give --session"
                             " FILE or --continue\n")


def test_the_tui_is_given_the_messages_and_the_flags(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """At a terminal: `pi-tui -r --no-session "a" "b"` opens the TUI with both messages to send."""
    seen: list[LaunchOptions] = []

    def run_tui(options: LaunchOptions) -> int:
        seen.append(options)
        return 0

    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(cli, "has_terminal", lambda: True)
    monkeypatch.setattr("pi_tui.tui.app.run_tui", run_tui)
    assert main(["-r", "--no-session", "read the notes", "now list them", "--model", "demo"]) == 0
    [options] = seen
    assert (options.messages, options.resume, options.no_session) == (["read the notes", "now list them"], True, True)


def test_help_lists_the_commands_the_messages_and_pis_flags(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["--help"])
    out = capsys.readouterr().out
    assert "pi-tui [options] [@files...] [messages...]" in out
    for word in ("--resume", "--no-session", "--continue", "-p, --print", "@calc.py", *cli.COMMANDS):
        assert word in out, word
    commands = next(action for action in cli._parser()._actions if isinstance(action, argparse._SubParsersAction))
    assert tuple(commands.choices) == cli.COMMANDS, "a command not in COMMANDS would be taken for a message"


def test_a_word_after_p_is_a_message_even_when_it_names_a_command() -> None:
    assert cli._command_word(["-p", "show"]) is None and cli._command_word(["--model", "x", "show"]) == "show"
    args: argparse.Namespace = cli._parse(["-p", "show", "me"])
    assert (args.command, args.words) == (None, ["show", "me"])
