"""Pi's /tree: choose any entry of the session tree and continue from there on a new branch."""

from __future__ import annotations

from condense.messages import content_text
from pi_tui.agent.branch_summary import abandoned_entries, summarize_branch, summary_prompt
from pi_tui.commands.context import CommandContext, idle_or_warn, model_ref
from pi_tui.commands.registry import Command
from pi_tui.errors import UserError
from pi_tui.screens.picker import Choice, PickerScreen
from pi_tui.screens.session_tree import SessionTreeScreen, is_user_message


async def tree(context: CommandContext, _: str) -> None:
    """A user message goes back to the editor and the session continues from before it; any other entry
    becomes the point the next message follows. Leaving a branch offers Pi's branch summary."""
    if not idle_or_warn(context, "/tree"):
        return
    session = context.runtime.host.session
    if not session.entries:
        context.notify("nothing in this session yet", "warning")
        return
    def label(entry_id: str, text: str | None) -> None:
        session.append_label(entry_id, text)

    chosen = await context.ask(SessionTreeScreen(session, label))
    entry = session.get(chosen) if chosen else None
    if entry is None:
        return
    to_editor = is_user_message(entry) or entry.get("type") == "custom_message"
    target = entry.get("parentId") if to_editor else entry["id"]
    if target == session.leaf_id and not to_editor:
        context.notify("already there: this is where the session is")
        return
    go, summary = await branch_summary(context, target)
    if not go:
        return
    await context.runtime.host.navigate(target, summary)
    if to_editor:
        message = entry.get("message") or entry
        context.set_editor_text(content_text(message.get("content") or ""))
    where = "edit the message and send it" if to_editor else "the next message continues from there"
    kept = " (the branch you left is summarised)" if summary else ""
    context.notify(f"on a new branch: {where}{kept}")


async def branch_summary(context: CommandContext, target: str | None) -> tuple[bool, str | None]:
    """Ask whether to summarise the branch being left, and write the summary: (go on, summary)."""
    host = context.runtime.host
    entries = abandoned_entries(host.session, target)
    if summary_prompt(entries) is None:
        return True, None
    answer = await context.ask(PickerScreen("Summarise the branch you are leaving?", [
        Choice("none", "No summary", "switch at once"),
        Choice("summarize", "Summarize", f"{model_ref(context.runtime)} writes what the branch did"),
        Choice("focus", "Summarize with a focus", "say what the summary should dwell on")]))
    if answer not in ("summarize", "focus"):
        return answer == "none", None
    focus = "" if answer == "summarize" else await context.ask(PickerScreen(
        "What should the summary dwell on? (type it, Enter)", [], custom=lambda text: text, placeholder="focus…"))
    if focus is None:
        return False, None
    prompt = summary_prompt(entries, focus) or ""
    with context.working("Summarizing the branch you are leaving… (esc to abort)") as signal:
        try:  # Esc stops it, as it stops a shell command
            return True, await summarize_branch(host.agent.client, host.config.model, prompt, signal)
        except UserError as exc:
            context.notify(str(exc), "error")
            return False, None


COMMANDS = (Command("tree", "the session tree: continue from any entry, on a new branch", tree),)
