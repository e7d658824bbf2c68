"""A models.json value that stands for a secret (an API key, a header), turned into the secret when a
request needs it, by Pi's rule, and never stored or written anywhere.

`"!command"` runs the command with the shell and takes its output, once per process (a password
manager is asked once), at most 10 seconds; otherwise a value that names a set environment variable
is that variable's value, and any other value is itself (a literal key).
"""

from __future__ import annotations

import os
import subprocess
from collections.abc import Iterable

COMMAND_PREFIX = "!"
COMMAND_TIMEOUT = 10.0
_command_output: dict[str, str | None] = {}


def _run(command: str) -> str | None:
    try:
        done = subprocess.run(command, shell=True, capture_output=True, text=True, timeout=COMMAND_TIMEOUT,
                              stdin=subprocess.DEVNULL, check=False)
    except (OSError, subprocess.SubprocessError):
        return None
    return (done.stdout.strip() or None) if done.returncode == 0 else None


def _pending(values: Iterable[str | None]) -> list[str]:
    return [value for value in values if value and value.startswith(COMMAND_PREFIX) and value not in _command_output]


def needs_command(values: Iterable[str | None]) -> bool:
    """Whether resolving `values` would run a command not run yet (the caller may do it in a thread)."""
    return bool(_pending(values))


def run_commands(values: Iterable[str | None]) -> None:
    """Run the commands among `values` not run yet, so resolving them later costs nothing."""
    for value in _pending(values):
        resolve_config_value(value)


def resolve_config_value(value: str) -> str | None:
    """The secret `value` stands for; None when its command failed or printed nothing."""
    if value.startswith(COMMAND_PREFIX):
        if value not in _command_output:
            _command_output[value] = _run(value[len(COMMAND_PREFIX):])
        return _command_output[value]
    return os.environ.get(value) or value


def resolve_headers(headers: Iterable[tuple[str, str]]) -> dict[str, str]:
    """Each header's value resolved; a header whose value resolves to nothing is left out."""
    return {name: resolved for name, value in headers if (resolved := resolve_config_value(value))}
