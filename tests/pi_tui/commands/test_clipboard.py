"""`/copy`: the last reply goes to the desktop's clipboard tool (a real process here, standing in for
xclip), or, with none, to the terminal as OSC 52; the transcript says which."""

from __future__ import annotations

import base64
import os
from pathlib import Path

import pytest

from pi_tui.commands import app_registry
from pi_tui.commands.clipboard import last_reply
from tests.pi_tui.commands.test_handlers import RecordingContext


def fake_tool(folder: Path, name: str, status: int = 0) -> Path:
    """An executable `name` that keeps its standard input and arguments in `<name>.out` and `<name>.args`."""
    folder.mkdir(exist_ok=True)
    tool = folder / name
    tool.write_text(f'#!/bin/sh\nprintf "%s" "$*" > "{folder}/{name}.args"\ncat > "{folder}/{name}.out"\n'
                    f"exit {status}\n")
    tool.chmod(0o755)
    return tool


@pytest.fixture
def desktop(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """An X11 session; the clipboard tools the test puts in the returned folder come first on PATH."""
    tools = tmp_path / "bin"
    tools.mkdir()
    monkeypatch.setenv("PATH", f"{tools}{os.pathsep}/usr/bin{os.pathsep}/bin")
    monkeypatch.setenv("DISPLAY", ":0")
    monkeypatch.delenv("WAYLAND_DISPLAY", raising=False)  # so an installed wl-copy is not used
    return tools


async def replied(tmp_path: Path) -> tuple[RecordingContext, str]:
    context = RecordingContext(tmp_path)
    await context.runtime.host.prompt("fix the failing test")
    text = last_reply(context.runtime.host.agent.messages)
    assert text is not None and "(demo task 1/6 done)" in text
    return context, text


async def test_copy_hands_the_last_reply_to_the_clipboard_tool(tmp_path: Path, desktop: Path) -> None:
    fake_tool(desktop, "xclip")
    context, text = await replied(tmp_path)
    assert await app_registry(context).dispatch("/copy")
    assert (desktop / "xclip.out").read_text() == text
    assert (desktop / "xclip.args").read_text() == "-selection clipboard"
    assert context.notes[-1] == f"copied the last reply ({len(text)} characters) with xclip"
    assert context.terminal_clipboard is None


async def test_without_a_tool_the_terminal_gets_it_as_osc_52(tmp_path: Path, desktop: Path,
                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("DISPLAY")
    fake_tool(desktop, "xclip")  # there, but no display to serve: not used
    context, text = await replied(tmp_path)
    assert await app_registry(context).dispatch("/copy")
    assert context.terminal_clipboard == text and not (desktop / "xclip.out").exists()
    assert "through the terminal (OSC 52" in context.notes[-1]


async def test_a_failing_tool_falls_back_to_the_terminal_and_says_so(tmp_path: Path, desktop: Path) -> None:
    fake_tool(desktop, "xclip", status=1)
    context, text = await replied(tmp_path)
    assert await app_registry(context).dispatch("/copy")
    assert context.terminal_clipboard == text
    assert context.notes[-1].startswith("xclip failed (it exited with status 1); copied the last reply")


async def test_nothing_to_copy_before_a_reply(tmp_path: Path) -> None:
    context = RecordingContext(tmp_path)
    assert await app_registry(context).dispatch("/copy")
    assert context.notes == ["warning: /copy: no reply to copy yet"]


async def test_the_app_writes_osc_52_to_the_terminal(make_app, send, wait, desktop: Path,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("DISPLAY")
    app = make_app()
    async with app.run_test(size=(100, 30)) as pilot:
        await wait(pilot)
        written: list[str] = []
        driver = app._driver
        assert driver is not None
        monkeypatch.setattr(driver, "write", lambda data: written.append(data))
        await send(pilot, "fix the failing test")
        await send(pilot, "/copy")
        text = last_reply(app.runtime.host.agent.messages)
        assert text is not None
        assert f"\x1b]52;c;{base64.b64encode(text.encode()).decode()}\a" in written
