"""`/copy`: the last reply's text to the clipboard, as Pi's `/copy`.

The desktop's clipboard tool when there is one (wl-copy under Wayland, xclip or xsel under X11, pbcopy
on macOS); otherwise OSC 52, the escape sequence with which the terminal itself (through ssh too) sets
the clipboard. The line it writes says which, since only the terminal knows whether OSC 52 worked.
"""

from __future__ import annotations

import asyncio
import os
import shutil
import sys
from collections.abc import Sequence

from condense.messages import AgentMessage
from condense.plural import counted
from pi_tui.commands.context import CommandContext
from pi_tui.commands.registry import Command

# (tool and arguments, the environment variable that says its display is there; None: macOS only)
TOOLS: tuple[tuple[tuple[str, ...], str | None], ...] = (
    (("wl-copy",), "WAYLAND_DISPLAY"),
    (("xclip", "-selection", "clipboard"), "DISPLAY"),
    (("xsel", "--clipboard", "--input"), "DISPLAY"),
    (("pbcopy",), None),
)
TOOL_SECONDS = 5.0  # a tool that has not taken the text by then is not coming back


def last_reply(messages: Sequence[AgentMessage]) -> str | None:
    """The text of the newest reply (an aborted one that wrote nothing does not count), as Pi takes it."""
    for message in reversed(messages):
        if message["role"] != "assistant" or (message.get("stopReason") == "aborted" and not message["content"]):
            continue
        text = "".join(block["text"] for block in message["content"] if block["type"] == "text").strip()
        return text or None
    return None


def clipboard_tool() -> list[str] | None:
    """The first clipboard tool installed whose display this session has."""
    for (name, *args), display in TOOLS:
        usable = os.environ.get(display) if display else sys.platform == "darwin"
        path = shutil.which(name) if usable else None
        if path:
            return [path, *args]
    return None


async def run_tool(command: list[str], text: str) -> str | None:
    """Hand `text` to the tool on its standard input; why it failed, or None. Its output is not read: the
    tools that keep serving the clipboard (wl-copy, xclip) would hold a pipe open for as long."""
    try:
        process = await asyncio.create_subprocess_exec(*command, stdin=asyncio.subprocess.PIPE,
                                                       stdout=asyncio.subprocess.DEVNULL,
                                                       stderr=asyncio.subprocess.DEVNULL)
    except OSError as exc:
        return exc.strerror or str(exc)
    try:
        await asyncio.wait_for(process.communicate(text.encode("utf-8")), TOOL_SECONDS)
    except TimeoutError:
        process.kill()
        return f"it did not finish in {TOOL_SECONDS:.0f} s"
    return None if process.returncode == 0 else f"it exited with status {process.returncode}"


async def copy(context: CommandContext, _: str) -> None:
    text = last_reply(context.runtime.host.agent.messages)
    if text is None:
        await context.note("/copy: no reply to copy yet", "warning")
        return
    size = counted(len(text), "character")
    command = clipboard_tool()
    problem = await run_tool(command, text) if command is not None else None
    if command is not None and problem is None:
        await context.note(f"copied the last reply ({size}) with {os.path.basename(command[0])}")
        return
    context.copy_to_terminal(text)
    tried = f"{os.path.basename(command[0])} failed ({problem}); " if command is not None else ""
    await context.note(f"{tried}copied the last reply ({size}) through the terminal (OSC 52; in tmux it needs "
                       "`set -g set-clipboard on`)")


COMMANDS = (Command("copy", "copy the last reply to the clipboard", copy),)
