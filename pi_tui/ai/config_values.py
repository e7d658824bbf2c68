"""A models.json value that stands for a secret (an API key, a header), turned into the secret when a
request needs it, by Pi's rule, and never stored or written anywhere.

A value that names a set environment variable is that variable's value; any other value is itself (a
literal key). Pi also runs a value that starts with `!` as a shell command and takes its output; pi-tui
runs no shell outside its bash tool (a models.json copied from elsewhere must not run commands), so such
a value gives no secret and is reported (`command_problem`).
"""

from __future__ import annotations

import os
from collections.abc import Iterable

COMMAND_PREFIX = "!"


def is_command(value: str) -> bool:
    return value.startswith(COMMAND_PREFIX)


def command_problem(provider: str, what: str) -> str:
    """The line said for a `!command` value: what to do instead."""
    return (f"{provider}: models.json's {what} is a command (!...), which pi-tui does not run; put the secret"
            f" in an environment variable and write its name as the {what}")


def resolve_config_value(value: str) -> str | None:
    """The secret `value` stands for; None for a command."""
    if is_command(value):
        return None
    return os.environ.get(value) or value


def resolve_headers(headers: Iterable[tuple[str, str]]) -> dict[str, str]:
    """Each header's value resolved; a header whose value gives no secret is left out."""
    return {name: resolved for name, value in headers if (resolved := resolve_config_value(value))}
