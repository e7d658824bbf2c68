"""`/reload`: the user's files read again without a restart: settings (and with them the keys), themes,
skills, prompt templates, context files, SYSTEM.md / APPEND_SYSTEM.md and models.json.

It says in one line what it read and what it found wrong. Like Pi it waits for a quiet agent: the
system prompt it rebuilds must not change under a running request.
"""

from __future__ import annotations

from condense.plural import counted
from pi_tui.ai.models import parse_model_ref
from pi_tui.ai.models_json import catalog
from pi_tui.commands.context import CommandContext, idle_or_warn
from pi_tui.commands.registry import Command
from pi_tui.runtime.build import reload_resources


def _refresh_model(context: CommandContext) -> None:
    """A models.json model in use takes what the file now says of it (URL, key, limits, prices)."""
    runtime = context.runtime
    current = runtime.host.config.model
    if current.ref not in catalog().models:
        return
    fresh = parse_model_ref(current.ref, models=context.settings.models)
    if fresh != current:
        runtime.host.config.model = runtime.model = fresh
        context.status_changed()


async def reload(context: CommandContext, _: str) -> None:
    if not idle_or_warn(context, "/reload"):
        return
    problems = context.reload_themes() + context.reload_settings()
    resources = reload_resources(context.runtime)
    table = catalog()
    _refresh_model(context)
    problems += [*resources.problems, *table.problems]
    line = f"reloaded settings, keys, themes, {resources.counts()}, {table.counts()}"
    if problems:
        line += f" · {counted(len(problems), 'problem')}: " + "; ".join(problems)
    await context.note(line, "warning" if problems else "info")


COMMANDS = (
    Command("reload", "read settings, keys, themes, skills, prompts, context files and models.json again", reload),
)

