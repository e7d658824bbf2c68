"""`/compact [instructions]`: Pi's compaction, now. The session's model summarises the older part of the
conversation (with the instructions as its focus), the newest part stays as it is, and the session gets
the `compaction` entry Pi reads; Esc cancels and leaves the conversation as it was.

Pi compacts at once. Here condense may have pruned the conversation to less than what compaction keeps,
so the summary would make the next request bigger: that is asked about before the summary is paid for,
and the line after says what the next request is against what it was."""

from __future__ import annotations

from condense.plural import counted
from condense.stats import format_tokens
from pi_tui.agent.compaction import NothingToCompact
from pi_tui.commands.context import CommandContext, idle_or_warn
from pi_tui.commands.registry import Command
from pi_tui.errors import UserError
from pi_tui.screens.confirm import ConfirmScreen


async def compact(context: CommandContext, args: str) -> None:
    if not idle_or_warn(context, "/compact"):
        return
    host = context.runtime.host
    try:
        expected = await host.compaction_outlook()
    except NothingToCompact as exc:
        await context.note(f"/compact: {exc}", "warning")
        return
    if expected.grows and not await context.ask(ConfirmScreen(
            "Compact anyway?", f"compacting would make the next request bigger, not smaller: {expected.describe()}"
            " (condense has pruned it already)")):
        await context.note("/compact: not compacted; the conversation is as it was")
        return
    with context.working("Compacting the conversation… (esc to cancel)") as signal:
        try:
            entry = await host.compact(args, signal)
        except UserError as exc:
            await context.note(f"/compact: {exc}", "warning" if isinstance(exc, NothingToCompact) else "error")
            return
    kept = sum(1 for message in host.agent.messages if message.get("role") != "compactionSummary")
    before = format_tokens(int(entry.get("tokensBefore") or 0))
    now = format_tokens(await host.next_request_tokens())
    await context.note(f"compacted: the next request is {now} tokens, was {format_tokens(expected.before)}; "
                       f"{before} tokens of conversation became the summary the transcript now starts with (click "
                       f"it, or Ctrl+O, to read it); the last {counted(kept, 'message')} stay as they were")
    context.status_changed()


COMMANDS = (Command("compact", "summarise older messages to free context: /compact [what to focus on]", compact),)
