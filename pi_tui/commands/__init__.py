"""The TUI's own slash commands and `!` shell runs, as a registry of command records.

Each module holds one group of commands (model, session, tree, look, pruner, reload, and Pi's compact, fork,
export, copy, scoped models and changelog) and lists them in its `COMMANDS`; handlers act through
`CommandContext` (context.py), never through the App. The host's commands (extensions', working in print
mode too) stay on the host; `Registry.dispatch` hands them on.
"""

from __future__ import annotations

from pi_tui.commands import (
    changelog,
    clipboard,
    compact,
    export,
    fork,
    look,
    model,
    pruner,
    reload,
    scoped_models,
    session,
    tree,
)
from pi_tui.commands.context import CommandContext
from pi_tui.commands.registry import Command, Registry
from pi_tui.commands.shell import run_shell

__all__ = ["COMMANDS", "Command", "CommandContext", "Registry", "app_registry", "run_shell"]

COMMANDS = (*model.COMMANDS, *look.COMMANDS, *session.COMMANDS, *tree.COMMANDS, *pruner.COMMANDS, *compact.COMMANDS,
            *fork.COMMANDS, *export.COMMANDS, *clipboard.COMMANDS, *scoped_models.COMMANDS, *changelog.COMMANDS,
            *reload.COMMANDS)


def app_registry(context: CommandContext) -> Registry:
    """Every command the TUI runs itself, bound to `context`."""
    return Registry(context, COMMANDS)
