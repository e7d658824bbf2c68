"""`-p --continue` with a real model never continues a session the demo wrote: it takes the newest session
of the folder the demo did not write, as Pi (which has no demo) would see the folder, or starts a new
one, and says which in one line."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.support.cli import run_cli
from tests.support.fake_openai import FakeOpenAI, text_reply

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")


def sessions(folder: Path) -> list[Path]:
    return [Path(s["file"]) for s in json.loads(run_cli("sessions", "--json", cwd=folder).stdout)]


def real_run(server: FakeOpenAI, folder: Path, prompt: str, *more: str) -> str:
    server.push(text_reply(f"answer to {prompt}"))
    result = run_cli("-p", prompt, *more, "--model", "openai/fake-model", "--base-url", server.base_url, cwd=folder)
    assert result.returncode == 0, result.stderr
    return result.stderr


def test_a_real_model_starts_afresh_beside_the_demos_session(tmp_path: Path, fake_openai: FakeOpenAI) -> None:
    assert run_cli("-p", "fix the failing test", "--model", "demo", cwd=tmp_path).returncode == 0
    (demo,) = sessions(tmp_path)
    before = demo.read_bytes()
    said = real_run(fake_openai, tmp_path, "what now?", "--continue")
    assert said.count("--continue:") == 1 and "starting a new session" in said
    assert [m["role"] for m in fake_openai.requests[-1]["messages"]] == ["system", "user"]
    assert demo.read_bytes() == before and len(sessions(tmp_path)) == 2


def test_a_real_model_continues_the_newest_session_the_demo_did_not_write(tmp_path: Path,
                                                                          fake_openai: FakeOpenAI) -> None:
    real_run(fake_openai, tmp_path, "remember the number 7")
    assert run_cli("-p", "fix the failing test", "--model", "demo", cwd=tmp_path).returncode == 0
    real, demo = sorted(sessions(tmp_path), key=lambda p: p.stat().st_mtime)
    before = demo.read_bytes()
    said = real_run(fake_openai, tmp_path, "which number?", "--continue")
    assert f"--continue: continuing {real.name}" in said
    texts = json.dumps(fake_openai.requests[-1]["messages"])
    assert "remember the number 7" in texts and "fix the failing test" not in texts
    assert len(sessions(tmp_path)) == 2 and demo.read_bytes() == before
