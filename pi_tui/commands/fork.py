"""`/fork`: Pi's fork. Choose one of the session's user messages; a new session file continues from just
before it (the original stays as it was, named as the new file's `parentSession`), and the message goes
back into the editor to be edited and sent again."""

from __future__ import annotations

import time

from condense.messages import content_text
from condense.timefmt import iso_to_ms
from pi_tui.commands.context import CommandContext, idle_or_warn, model_ref
from pi_tui.commands.registry import Command
from pi_tui.commands.session import rebuild
from pi_tui.paths import sessions_dir_for
from pi_tui.runtime.launch import LaunchOptions
from pi_tui.screens.picker import Choice, PickerScreen


def user_messages(context: CommandContext) -> list[Choice]:
    """Every user message in the file, on any branch, in the order written (as Pi lists them)."""
    choices = []
    for entry in context.runtime.host.session.entries:
        message = entry.get("message")
        if entry.get("type") != "message" or not isinstance(message, dict) or message.get("role") != "user":
            continue
        text = content_text(message.get("content") or "")
        if text.strip():
            when = time.strftime("%m-%d %H:%M", time.localtime(iso_to_ms(entry.get("timestamp")) / 1000))
            choices.append(Choice(entry["id"], " ".join(text.split())[:120], when))
    return choices


async def fork(context: CommandContext, args: str) -> None:
    if not idle_or_warn(context, "/fork"):
        return
    choices = user_messages(context)
    if not choices:
        context.notify("no message to fork from yet", "warning")
        return
    chosen = await context.ask(PickerScreen(
        "Fork from a message: a new session continues from before it, the message goes to the editor",
        choices, query=args, current=choices[-1].value))
    session = context.runtime.host.session
    entry = session.get(chosen) if chosen is not None else None
    if entry is None:
        return
    model = context.runtime.host.config.model
    options = LaunchOptions(model=model_ref(context.runtime), base_url=model.base_url, launch_dir=context.launch_dir)
    branched = session.branched(session.parent_id(entry), sessions_dir_for(context.launch_dir))
    if await rebuild(context, "fork", options, branched) is None:
        return
    context.set_editor_text(content_text(entry["message"].get("content") or ""))
    context.notify(f"forked into a new session ({branched.path.name if branched.path else 'in memory'}): "
                   "edit the message and send it")


COMMANDS = (Command("fork", "a new session from one of your messages (it goes back to the editor)", fork),)
