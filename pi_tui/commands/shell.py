"""`!cmd` and `!!cmd`: a shell command the user runs, its output a `bashExecution` message.

`!` puts the output in the agent's context; `!!` keeps it out. It runs through the bash tool (the same
shell, prefix, truncation and abort as the agent's) and goes into the session through the host. As in Pi,
a command typed while the agent works runs at once, and its message waits for the agent to finish: put
between a tool call and its result it would break the conversation the provider is sent.
"""

from __future__ import annotations

import asyncio
import re
from typing import Any

from condense.messages import BashExecutionMessage, content_text
from condense.timefmt import now_ms
from pi_tui.commands.context import CommandContext
from pi_tui.tools.base import ToolContext, ToolError
from pi_tui.tools.bash import BashParams, BashTool

_EXIT_STATUS = re.compile(r"\n*\s*Command exited with code (\d+)\s*$")
_ABORTED = re.compile(r"\n*\s*Command aborted\s*$")
QUIET_POLL_S = 0.05  # how often a finished command looks whether the agent has finished too


def shell_message(command: str, output: str, failed: bool, details: dict[str, Any] | None,
                  exclude: bool) -> BashExecutionMessage:
    """A `bashExecution` message from the bash tool's outcome (its status line becomes `exitCode`)."""
    code: int | None = 0
    cancelled = False
    if failed:
        match = _EXIT_STATUS.search(output)
        aborted = _ABORTED.search(output)
        code = int(match[1]) if match else None
        cancelled = aborted is not None
        status = match or aborted
        if status is not None:
            output = output[: status.start()]
    message: BashExecutionMessage = {"role": "bashExecution", "command": command, "output": output,
                                     "exitCode": code, "cancelled": cancelled,
                                     "truncated": bool(details and details.get("truncation")),
                                     "timestamp": now_ms()}
    if exclude:
        message["excludeFromContext"] = True
    return message


async def run_shell(context: CommandContext, text: str) -> None:
    """Run `text` (`!cmd` or `!!cmd`) and insert its outcome as a message; Esc stops the command."""
    exclude = text.startswith("!!")
    command = text[2 if exclude else 1:].strip()
    if not command:
        context.notify("type a command after ! (or !! to keep its output out of the context)", "warning")
        return
    runtime = context.runtime
    host = runtime.host
    settings = context.settings
    tool = BashTool(shell=settings.shell_path, prefix=settings.shell_command_prefix)
    with context.working(f"$ {command} (esc to stop)") as signal:
        try:
            output = await tool.run(BashParams(command=command), ToolContext(cwd=host.cwd, signal=signal))
            text, failed, details = content_text(output.content), False, output.details
        except ToolError as exc:
            text, failed, details = str(exc), True, None
    message = shell_message(command, text, failed, details, exclude)
    if not runtime.is_quiet:
        context.notify(f"$ {command}: done; its output joins the conversation when the agent has finished")
    while not runtime.is_quiet:
        await asyncio.sleep(QUIET_POLL_S)
    # through the host, as a message: the session stores it and the agent's context holds it
    await host.insert_message(message)
