"""`pi-tui -p`: a finished demo task says what to run next; a Pi user's prompt templates and skills expand
for a models.json provider; a `/word` nobody knows is refused before anything is sent, a TUI command is named
interactive, and `/compact` compacts headless."""

from __future__ import annotations

import io
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from pi_tui.commands import COMMANDS
from pi_tui.demo.client import NEXT_TASK_HINT
from pi_tui.modes.print_mode import EXIT_OK, INTERACTIVE, run_print
from pi_tui.paths import sessions_root
from pi_tui.runtime.build import LaunchOptions, build_runtime
from pi_tui.settings import LiveSettings, load_settings
from tests.conftest import corpus_copy
from tests.support.cli import run_cli
from tests.support.fake_openai import FakeOpenAI, Reply, text_reply
from tests.support.pi_home import KEY_VARIABLE, MODEL, PROVIDER, SKILL, pi_user_files


async def test_a_demo_task_in_print_mode_ends_with_what_to_run_next(tmp_path: Path) -> None:
    runtime = build_runtime(LaunchOptions(model="demo", launch_dir=tmp_path), LiveSettings(load_settings().settings))
    runtime.host.agent.client.delay = 0  # type: ignore[attr-defined]
    out, err = io.StringIO(), io.StringIO()
    assert await run_print(runtime.host, ["fix the failing test"], out, err) == EXIT_OK
    last = out.getvalue().rstrip().splitlines()[-1]
    assert NEXT_TASK_HINT not in out.getvalue()
    assert last.startswith("(demo task 1/") and 'pi-tui -p "next task" --continue' in last
    assert str(runtime.host.cwd) in last


def test_a_pi_users_template_and_skill_reach_the_models_json_provider_expanded(
        tmp_path: Path, fake_openai: FakeOpenAI) -> None:
    pi_user_files(fake_openai.base_url)
    fake_openai.push(text_reply("Looks fine."), text_reply("Notes written."))
    model = ("--model", f"{PROVIDER}/{MODEL}")
    key = {KEY_VARIABLE: "sk-local"}
    done = run_cli("-p", "/review src/app.py off-by-one errors", *model, cwd=tmp_path, env=key)
    assert (done.returncode, done.stdout.strip()) == (0, "Looks fine."), done.stderr
    system, user = fake_openai.requests[0]["messages"]
    assert user["content"] == [{"type": "text", "text": "Review src/app.py for bugs. Focus: off-by-one errors"}]
    assert f"<name>{SKILL}</name>" in system["content"]
    assert fake_openai.authorizations == ["Bearer sk-local"]
    done = run_cli("-p", f"/skill:{SKILL} for 2.0", *model, cwd=tmp_path, env=key)
    assert done.returncode == 0, done.stderr
    sent = fake_openai.requests[1]["messages"][1]["content"][0]["text"]
    assert sent.startswith(f'<skill name="{SKILL}" location="') and sent.endswith("</skill>\n\nfor 2.0")


@pytest.mark.parametrize(("prompt", "said"), [
    ("/compcat now", "unknown command /compcat: no command, prompt template or skill has that name; nothing was sent"),
    ("/tree", "/tree is an interactive command: run pi-tui and type it there; nothing was sent"),
])
def test_a_slash_word_print_mode_cannot_run_is_refused_with_exit_2_and_nothing_is_sent(
        tmp_path: Path, fake_openai: FakeOpenAI, prompt: str, said: str) -> None:
    """A mistyped command was a paid request; a TUI command has nothing to do headless."""
    done = run_cli("-p", prompt, "--model", "openai/fake", "--base-url", fake_openai.base_url, cwd=tmp_path)
    assert done.returncode == 2
    assert done.stderr.splitlines()[-1] == f"pi-tui: error: {said}"
    assert fake_openai.requests == [] and not sessions_root().exists()


def _run_into_a_closed_pipe(tmp_path: Path, server: FakeOpenAI) -> int:
    """`pi-tui -p ... 2>&1 | head -0`: both streams go to a reader that left before the first line."""
    read_end, write_end = os.pipe()
    os.close(read_end)
    try:
        done = subprocess.run([sys.executable, "-m", "pi_tui", "-p", "hello", "--model", "openai/fake-model",
                               "--base-url", server.base_url], cwd=tmp_path, stdout=write_end, stderr=write_end,
                              timeout=120, env={**os.environ, "OPENAI_API_KEY": "sk-closed-pipe-key"})
    finally:
        os.close(write_end)
    return done.returncode


def test_a_reader_that_left_changes_no_exit_status(tmp_path: Path, fake_openai: FakeOpenAI) -> None:
    """After an HTTP 401 the run exited 0 when its output went to `head -0` (1 when run normally)."""
    unauthorised = {"error": {"message": "Incorrect API key provided", "type": "invalid_request_error",
                              "code": "invalid_api_key"}}
    fake_openai.push(Reply(status=401, error=unauthorised))
    assert _run_into_a_closed_pipe(tmp_path, fake_openai) == 1
    fake_openai.push(text_reply("fine"))
    assert _run_into_a_closed_pipe(tmp_path, fake_openai) == 0
    assert len(fake_openai.requests) == 2, "the task ran to its end all the same"


async def test_compact_in_print_mode_compacts_the_session_and_says_so_in_one_line(tmp_path: Path) -> None:
    """Pi's RPC mode compacts headless; `-p "/compact"` said "unknown command /compact"."""
    copy = corpus_copy("pi-before-compaction.jsonl", tmp_path)
    options = LaunchOptions(model="demo", session=str(copy), launch_dir=tmp_path)
    runtime = build_runtime(options, LiveSettings(load_settings().settings))
    out, err = io.StringIO(), io.StringIO()
    assert await run_print(runtime.host, ["/compact the theme work"], out, err) == EXIT_OK
    entry = runtime.host.session.entries[-1]
    assert entry["type"] == "compaction" and entry["summary"].startswith("## Goal")
    assert out.getvalue() == ""
    [line] = err.getvalue().splitlines()[-1:]
    assert re.fullmatch(r"pi-tui: compacted [\d.]+k tokens of conversation into a summary; the session continues "
                        r"from it \(pi-tui show prints it\); the next request is [\d.]+k tokens, was [\d.]+k",
                        line), line



async def test_compact_with_nothing_to_compact_is_no_failure(tmp_path: Path) -> None:
    """A script that compacts routinely: a session already compact is not a failed run (it exited 1, as a
    provider error does)."""
    copy = corpus_copy("pi-before-compaction.jsonl", tmp_path)
    options = LaunchOptions(model="demo", session=str(copy), launch_dir=tmp_path)
    runtime = build_runtime(options, LiveSettings(load_settings().settings))
    assert await run_print(runtime.host, ["/compact"], io.StringIO(), io.StringIO()) == EXIT_OK
    size = copy.stat().st_size
    err = io.StringIO()
    assert await run_print(runtime.host, ["/compact"], io.StringIO(), err) == EXIT_OK
    assert copy.stat().st_size == size
    [line] = err.getvalue().splitlines()[-1:]
    assert line.startswith("pi-tui: /compact: already compacted") and line.endswith("the session is left as it was")

def test_print_mode_knows_every_command_of_the_tui() -> None:
    assert {command.name for command in COMMANDS} - {"compact"} == INTERACTIVE
