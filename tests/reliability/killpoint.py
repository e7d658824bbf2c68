"""Kill-point runner: run `pi-tui` commands and SIGKILL the process at its Nth session write.

The crash tests launch this file as a script (`python killpoint.py '<json plan>'`), so the kill hook
lives only here, in the child process: it wraps the session store's two write paths
(`Session._append_lines`, `Session._write_whole`), counts every call, and at call `at` kills the
process with SIGKILL, which no handler, `finally` or atexit can soften:

- `before`: the write never starts (the state a crash between two writes leaves);
- `torn`: half of the write's bytes reach the file, then the kill (a torn last line, or for a
  whole-file write a half-written temporary file beside an untouched session);
- `after`: the write completes, then the kill.

Plan keys: `at` (1-based write number, 0 = never kill), `mode`, `runs` (a list of argv lists, each
passed to `pi_tui.cli.main` in turn, so one process can play several demo tasks), `report` (a file
that receives the write count and exit codes when the plan finishes without being killed), and
`fast_demo` (the demo model streams without its pacing delay, to keep the tests quick).
"""

from __future__ import annotations

import json
import os
import signal
import sys
from pathlib import Path
from typing import Any

MODES = ("before", "torn", "after")


def _die() -> None:
    os.kill(os.getpid(), signal.SIGKILL)


def _torn_append(session: Any, entries: list[dict[str, Any]]) -> None:
    from condense.entry_log import dump_line

    data = "".join(dump_line(e) for e in entries).encode("utf-8")
    fd = os.open(session.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
    os.write(fd, data[: max(1, len(data) // 2)])
    os.close(fd)


def _torn_whole(session: Any, target: Path) -> None:
    from condense.entry_log import dump_line

    lines = [dump_line(session.header), *(dump_line(e) for e in session.entries)]
    data = "".join(lines).encode("utf-8")
    target.parent.mkdir(parents=True, exist_ok=True)
    tmp = target.with_name(f".{target.name}.killed.tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    os.write(fd, data[: max(1, len(data) // 2)])
    os.close(fd)


def install(at: int, mode: str) -> dict[str, int]:
    """Wrap the store's writes; returns the live counter."""
    from pi_tui.session.store import Session

    counter = {"writes": 0}
    append, whole = Session._append_lines, Session._write_whole

    def wrap(original: Any, torn: Any) -> Any:
        def write(self: Any, *args: Any, **kwargs: Any) -> Any:
            counter["writes"] += 1
            if counter["writes"] != at:
                return original(self, *args, **kwargs)
            if mode == "torn":
                torn(self, *args)
                _die()
            if mode == "before":
                _die()
            result = original(self, *args, **kwargs)
            _die()
            return result

        return write

    Session._append_lines = wrap(append, lambda s, fd, entries: _torn_append(s, list(entries)))  # type: ignore
    Session._write_whole = wrap(whole, lambda s, target, fd: _torn_whole(s, target))  # type: ignore
    return counter


def quiet_demo() -> None:
    from pi_tui.demo.client import DemoModelClient

    defaults = DemoModelClient.__init__.__defaults__ or (0.01,)
    DemoModelClient.__init__.__defaults__ = (0.0, *defaults[1:])


def run(plan: dict[str, Any]) -> int:
    mode = plan.get("mode", "before")
    if mode not in MODES:
        raise SystemExit(f"killpoint: unknown mode {mode!r}")
    counter = install(int(plan.get("at", 0)), mode)
    if plan.get("fast_demo", True):
        quiet_demo()
    from pi_tui.cli import main

    codes = [main(list(argv)) for argv in plan["runs"]]
    if plan.get("report"):
        Path(plan["report"]).write_text(json.dumps({"writes": counter["writes"], "codes": codes}))
    return max(codes, default=0)


if __name__ == "__main__":
    sys.exit(run(json.loads(sys.argv[1])))
