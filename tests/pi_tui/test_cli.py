"""The `pi-tui` command as a user runs it: subcommands, print mode, exit codes, one-line errors."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from pi_tui.cli import main
from pi_tui.session.store import Session
from tests.conftest import corpus_path
from tests.support.cli import run_cli
from tests.support.codex_rollout import MODEL, write_rollout
from tests.support.fake_openai import FakeOpenAI, Reply, text_reply
from tests.support.typed import plain
from tests.support.waiting import wait_until

REPO = Path(__file__).resolve().parents[2]


def test_version_and_help(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_info:
        main(["--version"])
    assert exit_info.value.code == 0
    assert capsys.readouterr().out.startswith("pi-tui ")
    for command in ("sessions", "show", "context"):
        with pytest.raises(SystemExit):
            main([command, "--help"])
        assert "usage: pi-tui" in capsys.readouterr().out


def test_context_json_of_large_corpus_holds_every_message_in_order(capsys: pytest.CaptureFixture[str]) -> None:
    path = corpus_path("pi-large-session.jsonl")
    assert main(["context", str(path), "--json", "--raw"]) == 0
    printed = json.loads(capsys.readouterr().out)
    expected = [json.loads(line)["message"] for line in path.read_text().splitlines()
                if json.loads(line)["type"] == "message"]
    assert printed == expected


def test_context_json_of_compacted_corpus_starts_with_its_last_summary(capsys: pytest.CaptureFixture[str]) -> None:
    path = corpus_path("pi-before-compaction.jsonl")
    assert main(["context", str(path), "--json", "--raw"]) == 0
    printed = json.loads(capsys.readouterr().out)
    last_summary = [json.loads(line) for line in path.read_text().splitlines()
                    if json.loads(line)["type"] == "compaction"][-1]["summary"]
    assert printed[0]["role"] == "compactionSummary" and printed[0]["summary"] == last_summary


def test_show_prints_readable_branch(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["show", str(corpus_path("pi-large-session.jsonl"))]) == 0
    out = capsys.readouterr().out
    assert "── assistant (gpt-5.1-codex)" in out
    assert "── bash result ✓" in out or "── bash result ✗ error" in out
    assert "more lines)" in out, "tool outputs are clipped unless --full"


def test_missing_session_is_one_clear_line(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    assert main(["show", str(tmp_path / "nope.jsonl")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "no such session file" in err and "Traceback" not in err


def test_bad_model_is_one_clear_line(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["-p", "hi", "--model", "nonsense"]) == 2
    assert "not of the form provider/id" in capsys.readouterr().err


def test_an_unknown_provider_is_one_line_before_any_request(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["-p", "hi", "--model", "opneai/gpt-4o"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "unknown provider 'opneai'" in err and "did you mean openai?" in err
    assert "anthropic, openai" in err and "--base-url" in err


@pytest.mark.parametrize("model", ["hosted_vllm/my-model", "lm_studio/my-model", "foo/bar"])
def test_any_provider_litellm_knows_or_a_base_url_server_is_accepted(model: str) -> None:
    from pi_tui.ai.models import check_provider, parse_model_ref

    base_url = "http://127.0.0.1:8000/v1" if model == "foo/bar" else None
    check_provider(parse_model_ref(model, base_url))  # no error


@pytest.mark.parametrize("url", ["127.0.0.1:8000/v1", "ftp://example.com/v1", "http://"])
def test_a_base_url_that_is_not_http_is_one_clear_line(capsys: pytest.CaptureFixture[str], url: str) -> None:
    assert main(["-p", "hi", "--model", "openai/m", "--base-url", url]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "--base-url" in err and "http(s) URL" in err


@pytest.mark.parametrize("userinfo", ["user:s3cret-passw0rd", "sk-token-as-user-1234"])
def test_a_base_url_with_credentials_is_refused_before_any_request(tmp_path: Path, fake_openai: FakeOpenAI,
                                                                   userinfo: str) -> None:
    """`http://user:pass@host/v1` was sent, refused by the HTTP client beside the key's own header, reported as a
    provider's "HTTP 500" and retried."""
    fake_openai.push(text_reply("never"))
    url = fake_openai.base_url.replace("://", f"://{userinfo}@")
    result = run_cli("-p", "hi", "--model", "openai/fake-model", "--base-url", url, cwd=tmp_path)
    shown = fake_openai.base_url.replace("://", "://***@")
    assert (result.returncode, result.stderr) == (2, f"pi-tui: error: --base-url {shown}: a user name or password in"
                                                     " the URL cannot be sent beside the provider's key; give the URL"
                                                     " without it and the key in the provider's variable"
                                                     " (OPENAI_API_KEY for openai/...)\n")
    assert fake_openai.requests == [] and not list(tmp_path.iterdir())


def test_print_mode_without_the_models_key_says_so_once_before_any_request(tmp_path: Path) -> None:
    result = run_cli("-p", "hi", "--model", "anthropic/claude-sonnet-4-5", cwd=tmp_path)
    assert result.returncode == 1
    assert result.stderr == "pi-tui: error: no API key for anthropic: set ANTHROPIC_API_KEY\n"


def test_print_mode_without_the_key_leaves_a_continued_session_untouched(tmp_path: Path) -> None:
    assert run_cli("-p", "fix the failing test", "--model", "demo", cwd=tmp_path).returncode == 0
    (path,) = [Path(s["file"]) for s in json.loads(run_cli("sessions", "--json", cwd=tmp_path).stdout)]
    before = path.read_bytes()
    for _ in range(2):
        result = run_cli("-p", "hi", "--continue", "--model", "anthropic/claude-sonnet-4-5", cwd=tmp_path)
        assert result.returncode == 1 and "no API key for anthropic" in result.stderr
    assert path.read_bytes() == before, "no user message, no empty error reply"


def test_print_mode_demo_then_show_context_and_continue(tmp_path: Path) -> None:
    first = run_cli("-p", "fix the failing test", "--model", "demo", cwd=tmp_path)
    assert first.returncode == 0, first.stderr
    assert "Demo task 1/6" in first.stdout and "(demo task 1/6 done)" in first.stdout
    assert "→ bash" in first.stderr, "tool activity goes to stderr"
    listing = run_cli("sessions", "--json", cwd=tmp_path)
    sessions = json.loads(listing.stdout)
    assert len(sessions) == 1 and sessions[0]["firstMessage"] == "fix the failing test"
    path = sessions[0]["file"]
    shown = run_cli("show", path, cwd=tmp_path)
    assert shown.returncode == 0 and "fix the failing test" in shown.stdout
    context = json.loads(run_cli("context", path, "--json", cwd=tmp_path).stdout)
    last_reply = max(i for i, m in enumerate(context) if m["role"] == "assistant")
    assert context[0]["role"] == "user" and "(demo task 1/6 done)" in context[last_reply]["content"][0]["text"]
    # the final reply flushed the task's tool work: the closed task is now one compressed chain of its
    # summaries, just before the reply (rolling_window 0); refs follow the calls (t1-t3 the listings and
    # the first test run), and t4, the read of the file the fix edited, was superseded (no summary of its
    # own), so the chain only lists it among its tools
    chain = context[last_reply - 1]["content"][0]["text"]
    assert chain.startswith('<compressed-chain id="b1" tools="') and "`t5`" in chain
    assert "t4" in chain.split('"')[3].split(",") and "`t4`" not in chain
    for n in range(2, 6):
        more = run_cli("-p", f"task {n}", "--continue", cwd=tmp_path)
        assert more.returncode == 0, more.stderr
        assert f"(demo task {n}/6 done)" in more.stdout
    assert len(json.loads(run_cli("sessions", "--json", cwd=tmp_path).stdout)) == 1
    session = Session.open(path)
    prompts = [m for m in plain(session.messages()) if m["role"] == "user"]
    assert [p["content"][0]["text"] for p in prompts] == ["fix the failing test", "task 2", "task 3", "task 4",
                                                          "task 5"]
    # every task ran on one copy of the sample project, whose tests task 1 fixed
    work = Path(session.cwd)
    tests = subprocess.run([sys.executable, "-m", "unittest"], cwd=work, capture_output=True, text=True)
    assert tests.returncode == 0, tests.stderr


def test_print_mode_against_a_provider_streams_and_saves(tmp_path: Path, fake_openai: FakeOpenAI) -> None:
    fake_openai.push(text_reply("Hello from the fake provider."))
    result = run_cli("-p", "hi", "--model", "openai/fake-model", "--base-url", fake_openai.base_url, cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "Hello from the fake provider."
    request = fake_openai.requests[0]
    assert request["model"] == "fake-model" and request["stream"] is True
    assert "Current working directory:" in request["messages"][0]["content"]


def test_print_mode_provider_failure_exits_1_with_one_line(tmp_path: Path, fake_openai: FakeOpenAI) -> None:
    fake_openai.push(Reply(status=401, error={"error": {"message": "Incorrect API key provided: sk-abcdef123456",
                                                        "type": "invalid_request_error"}}))
    result = run_cli("-p", "hi", "--model", "openai/fake-model", "--base-url", fake_openai.base_url, cwd=tmp_path,
                     env={"OPENAI_API_KEY": "sk-abcdef123456"})
    assert result.returncode == 1
    lines = [line for line in result.stderr.splitlines() if line.startswith("pi-tui: error:")]
    assert len(lines) == 1 and "Traceback" not in result.stderr
    assert "sk-abcdef123456" not in result.stderr
    for file in Path(os.environ["PI_TUI_HOME"]).rglob("*"):
        if file.is_file():
            assert b"sk-abcdef123456" not in file.read_bytes(), f"API key written to {file}"


def test_interrupt_aborts_saves_and_exits_130(tmp_path: Path, fake_openai: FakeOpenAI) -> None:
    fake_openai.push(Reply(text="slow words " * 200, chunk_size=3, delay=0.05))
    proc = subprocess.Popen([sys.executable, "-m", "pi_tui", "-p", "hi", "--model", "openai/fake-model",
                             "--base-url", fake_openai.base_url], cwd=tmp_path, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    # the request reached the server, so the SIGINT handler (set before the run) is in place
    wait_until(lambda: fake_openai.requests, "the model request")
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, err
    assert "interrupted" in err and out == "", "an interrupted reply is in the session, never half on stdout"
    files = list((Path(os.environ["PI_TUI_HOME"]) / "sessions").rglob("*.jsonl"))
    assert len(files) == 1
    last = Session.open(files[0]).messages()[-1]
    assert last["role"] == "assistant" and last["stopReason"] == "aborted"


def test_show_and_whatif_read_a_codex_rollout_and_leave_it_as_it_was(tmp_path: Path) -> None:
    path = write_rollout(tmp_path)
    before = path.read_bytes()
    shown = run_cli("show", str(path), cwd=tmp_path)
    assert shown.returncode == 0 and "The test is in; pytest passes." in shown.stdout, shown.stderr
    judged = run_cli("whatif", str(path), "--json", "--strategies", "none,condense", cwd=tmp_path)
    assert judged.returncode == 0, judged.stderr
    assert json.loads(judged.stdout)["sessions"][0]["pricing"].startswith(MODEL)
    assert path.read_bytes() == before and [p.name for p in tmp_path.iterdir()] == [path.name]
