"""The session commands: /session, /name, /new, /resume, /quit; and the runtime rebuild they share
with /model."""

from __future__ import annotations

import time
from pathlib import Path

from condense.plural import counted
from pi_tui.commands.context import CommandContext, idle_or_warn, model_ref
from pi_tui.commands.registry import Command
from pi_tui.errors import UserError
from pi_tui.runtime.build import Runtime
from pi_tui.runtime.launch import LaunchOptions
from pi_tui.screens.picker import Choice
from pi_tui.screens.session_picker import SessionPickerScreen
from pi_tui.session.listing import SessionInfo, describe, listed_sessions
from pi_tui.session.store import Session
from pi_tui.widgets.footer import UsageTotals


async def rebuild(context: CommandContext, reason: str, options: LaunchOptions,
                  session: Session | None = None) -> Runtime | None:
    """Build and show a new runtime; None (having said why) when it cannot be built. A new or resumed
    session starts with the first screen, which holds the runtime's notices; a reload shows them in the
    transcript (a model litellm does not know, whose window is a guess)."""
    try:
        runtime = context.build_runtime(options, session)
    except UserError as exc:
        context.notify(str(exc), "error")
        return None
    await context.attach(runtime, reason)
    if reason in ("new", "resume"):
        await context.show_first_screen()
    else:
        for notice in runtime.notices:
            context.notify(notice, "warning")
    return runtime


async def new(context: CommandContext, _: str) -> None:
    if idle_or_warn(context, "/new"):
        model = context.runtime.host.config.model
        options = LaunchOptions(model=model_ref(context.runtime), base_url=model.base_url,
                                launch_dir=context.launch_dir)
        await rebuild(context, "new", options)


def session_choices(context: CommandContext, everywhere: bool = False) -> list[Choice]:
    """This folder's saved sessions (`everywhere`: every folder's), pi-tui's and Pi's, newest first, by
    name or first message."""
    return [session_choice(describe(path), everywhere) for path in listed_sessions(context.launch_dir, everywhere)]


def session_choice(info: SessionInfo, everywhere: bool) -> Choice:
    """A session's row: its date and size, `pi` when Pi wrote it, and, across folders, where it ran."""
    when = time.strftime("%Y-%m-%d %H:%M", time.localtime(info.modified))
    title = info.name or " ".join(info.first_message.split())[:80] or "(no message)"
    parts = [when, counted(info.entries, "entry"), *(["pi"] if info.by_pi else []),
             *([home_relative(info.cwd)] if everywhere and info.cwd else [])]
    return Choice(info.path, title, " · ".join(parts))


def home_relative(folder: str) -> str:
    """A folder as `~/proj` under the home folder: the part that tells sessions apart fits the row."""
    home = str(Path.home())
    return "~" + folder[len(home):] if folder == home or folder.startswith(home + "/") else folder


async def resume(context: CommandContext, args: str) -> None:
    if not idle_or_warn(context, "/resume"):
        return
    if not listed_sessions(context.launch_dir, everywhere=True):
        context.notify("no saved sessions yet", "warning")
        return
    current = context.runtime.host.session.path
    picker = SessionPickerScreen(lambda everywhere: session_choices(context, everywhere), query=args, current=current)
    path = await context.ask(picker)
    if path is not None and path != current:
        await rebuild(context, "resume", LaunchOptions(session=str(path), launch_dir=context.launch_dir))


async def session(context: CommandContext, _: str) -> None:
    """File, id, counts of entries and messages, tokens and model, as a note in the transcript."""
    current = context.runtime.host.session
    roles: dict[str, int] = {}
    for message in current.messages():
        role = str(message.get("role"))
        kind = message.get("customType") if role == "custom" else role
        roles[str(kind)] = roles.get(str(kind), 0) + 1
    totals = UsageTotals.of_entries(current.entries)
    counts = ", ".join(f"{count} {role}" for role, count in sorted(roles.items())) or "none yet"
    saved = current.path is not None and current.is_persisted
    lines = [f"session: {current.name or '(unnamed)'}",
             f"file:    {current.path if saved else '(none yet: written with the first reply)'}",
             f"id:      {current.session_id}",
             f"entries: {len(current.entries)} in the {'file' if saved else 'session'}, "
             f"{len(current.branch_entries())} on this branch",
             f"messages on this branch: {counts}",
             f"tokens:  {totals.text() or '0'}",
             f"model:   {model_ref(context.runtime)}"]
    await context.note("\n".join(lines))


async def name(context: CommandContext, args: str) -> None:
    current = context.runtime.host.session
    if not args:
        context.notify(f"session name: {current.name or '(none)'} · set it with /name <name>")
        return
    current.append_session_info(args)
    context.notify(f"session named {args!r}")
    context.status_changed()


async def quit_app(context: CommandContext, _: str) -> None:
    await context.quit()


COMMANDS = (
    Command("session", "this session: file, id, message counts, cost", session),
    Command("new", "start a new session", new),
    Command("resume", "open an earlier session (Tab: of any folder)", resume),
    Command("name", "name this session: /name <name>", name),
    Command("quit", "quit pi-tui", quit_app),
    Command("exit", "quit pi-tui", quit_app),
)
