"""The slash commands the TUI runs itself, as records in one registry.

A command is a name, a one-line help, an argument completer and a handler; the editor completes
from the registry and the app hands every `/` line to `dispatch`. A name the registry does not know
goes on to the host's commands (extensions' commands, which also work in print mode).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass

from pi_tui.commands.context import CommandContext

Handler = Callable[[CommandContext, str], Awaitable[None]]
Completer = Callable[[CommandContext], dict[str, str]]


def no_arguments(_: CommandContext) -> dict[str, str]:
    return {}


@dataclass(frozen=True)
class Command:
    name: str
    help: str  # one line, shown beside the name in the completion menu
    handler: Handler  # (context, the arguments after the name, stripped)
    arguments: Completer = no_arguments  # argument -> what it does, for the completion menu


class Registry:
    """The app's commands, bound to the context their handlers act through."""

    def __init__(self, context: CommandContext, commands: Iterable[Command] = ()) -> None:
        self.context = context
        self._commands: dict[str, Command] = {}
        for command in commands:
            self.register(command)

    def register(self, command: Command) -> None:
        self._commands[command.name] = command

    def lookup(self, name: str) -> Command | None:
        return self._commands.get(name)

    def names(self) -> dict[str, str]:
        """Every command the editor completes: the host's (extensions', prompt templates, skills) and the
        app's own."""
        names = self.context.runtime.host.command_names()
        names.update({name: command.help for name, command in self._commands.items()})
        return names

    def arguments(self, name: str) -> dict[str, str]:
        command = self.lookup(name)
        return command.arguments(self.context) if command is not None else {}

    async def dispatch(self, text: str) -> bool:
        """Run `/name args` if the command is the app's own; False hands it to the host."""
        name, _, args = text.strip()[1:].partition(" ")
        command = self.lookup(name)
        if command is None:
            return False
        await command.handler(self.context, args.strip())
        return True
