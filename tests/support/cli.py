"""Running `pi-tui` in a child process, for tests whose subject is the command itself (exit codes,
stderr, signals) rather than what `pi_tui.cli.main` returns in-process."""

from __future__ import annotations

import os
import resource
import subprocess
import sys
from pathlib import Path


def run_cli(*args: str, cwd: Path, timeout: float = 120, env: dict[str, str] | None = None,
            unset: tuple[str, ...] = (), max_memory: int | None = None,
            stdin: str = "") -> subprocess.CompletedProcess[str]:
    """The real console entry point in a fresh process, as a person at a shell would run it; `env` adds
    to the environment and `unset` takes variables out of it. `max_memory` (bytes of address space) keeps
    a command that would fill memory from taking the machine's. `stdin` is what a pipe gives it (by
    default nothing, never the test runner's own stdin, which pi-tui would read to its end)."""
    full_env = {name: value for name, value in {**os.environ, **(env or {})}.items() if name not in unset}

    def limit() -> None:
        if max_memory is not None:
            resource.setrlimit(resource.RLIMIT_AS, (max_memory, max_memory))

    return subprocess.run([sys.executable, "-m", "pi_tui", *args], cwd=cwd, env=full_env, capture_output=True,
                          input=stdin, text=True, timeout=timeout, preexec_fn=limit)
