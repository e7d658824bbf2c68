"""What the command line asked for: the model, the session, the folder.

Its own light module so the TUI can hold it before its first frame, without importing the runtime
(engine, agent, tools) that `pi_tui.runtime.build` builds from it.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path


@dataclass
class LaunchOptions:
    model: str | None = None
    base_url: str | None = None
    session: str | None = None
    continue_recent: bool = False
    launch_dir: Path = field(default_factory=lambda: Path(os.getcwd()))
    # The TUI's demo continues a session it did not create in a copy; print mode, a scripting interface,
    # writes where `--session` says (the reliability suite drives session writes through it).
    demo_forks_sessions: bool = True
    no_session: bool = False  # `--no-session`: the session lives in memory only, as Pi's does
    messages: list[str] = field(default_factory=list)  # the TUI sends these once it is up, in turn
    resume: bool = False  # `--resume`: the TUI opens its session picker first
