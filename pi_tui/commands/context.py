"""What a slash command may do to the app: the narrow `CommandContext` its handler receives.

Handlers never see the App or its widgets, only these operations, so a command can be driven by a
small recording implementation in a test, and the app's widgets can change without touching a
command. PiApp's adapter (pi_tui/tui/app.py) is the real implementation.
"""

from __future__ import annotations

from contextlib import AbstractContextManager
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol, TypeVar

from pi_tui.ai.models import DEMO_REF

if TYPE_CHECKING:
    from textual.screen import Screen

    from pi_tui.abort import AbortSignal
    from pi_tui.agent.host import Level
    from pi_tui.runtime.build import Runtime
    from pi_tui.runtime.launch import LaunchOptions
    from pi_tui.session.store import Session
    from pi_tui.settings import Settings

T = TypeVar("T")


class CommandContext(Protocol):
    """Exactly what the app's commands use; anything a new command needs is added here, by name."""

    scoped_models: list[str] | None
    """The models `/scoped-models` chose for this run of pi-tui and did not save (Pi's session-only scope:
    a toggle applies at once, saving is a step of its own); None: the saved `enabled_models` hold."""

    typed: str
    """The command line the user typed that runs now ("" for one a key started): what a command refused
    while the agent works puts back in the editor, so nothing typed is lost."""

    @property
    def runtime(self) -> Runtime:
        """The runtime in use (host, session, model, engine); a rebuild replaces it."""

    @property
    def settings(self) -> Settings:
        """The live settings: what `settings.toml` holds now."""

    @property
    def launch_dir(self) -> Path:
        """The folder pi-tui started in: where its sessions are listed and new ones start."""

    @property
    def theme(self) -> str: ...

    def theme_names(self) -> list[str]: ...

    def apply_theme(self, name: str) -> bool:
        """Use theme `name`; False (having said why) when there is none of that name."""

    def save_setting(self, key: str, value: Any) -> None:
        """Save one dotted setting to `settings.toml`; raises SettingsError, having written nothing."""

    def reload_settings(self) -> list[str]:
        """Read `settings.toml` again and apply it everywhere (theme, keys, the running agent), as an
        outside edit is applied; one line per problem in it."""

    def reload_themes(self) -> list[str]:
        """Read the user's theme files again; one line per file that cannot be used."""

    def notify(self, text: str, level: Level = "info") -> None:
        """A line of information as a toast; an error or a warning (a refusal), or a block of lines, in
        the transcript."""

    async def note(self, text: str, level: Level = "info") -> None:
        """The app's own output in the transcript, where the work is (an error too): shown, never saved."""

    def show(self, screen: Screen[Any]) -> None:
        """Open an overlay that answers nothing (a text view, a settings form)."""

    async def ask(self, screen: Screen[T]) -> T | None:
        """Open a screen and wait for its answer (None: dismissed). Only from a worker."""

    def set_editor_text(self, text: str) -> None: ...

    def copy_to_terminal(self, text: str) -> None:
        """Ask the terminal to put `text` on the clipboard (OSC 52)."""

    def status_changed(self) -> None:
        """The footer and the transcript's marks show something that changed (a name, a flush)."""

    def build_runtime(self, options: LaunchOptions, session: Session | None = None) -> Runtime:
        """A new runtime with the app's settings, UI and client; raises UserError when it cannot be built."""

    async def attach(self, runtime: Runtime, reason: str) -> None:
        """Show `runtime` instead of the current one (its extensions start with `reason`)."""

    async def show_first_screen(self) -> None:
        """Where the user is and the runtime's notices, as at launch (after /new or /resume)."""

    async def quit(self) -> None: ...

    def working(self, text: str) -> AbstractContextManager[AbortSignal]:
        """Show `text` as the working line while the block runs; Esc aborts the signal it gives."""

    def show_progress(self, batch: int, state: str, chars: int) -> None:
        """A flush's progress rows above the editor (condense's progress callback)."""

    def clear_progress(self, later: bool = False) -> None:
        """Remove the progress rows, at once or after a moment (so the last state can be read)."""


def idle_or_warn(context: CommandContext, what: str) -> bool:
    """Commands that change the session or start work wait for a quiet agent; otherwise they say so."""
    if context.runtime.is_quiet:
        return True
    context.notify(f"{what}: the agent is working; wait for it or press Esc first", "warning")
    if context.typed:
        context.set_editor_text(context.typed)
    return False


def model_ref(runtime: Runtime) -> str:
    """The model as a person names it: `demo`, not the demo's provider/id."""
    model = runtime.host.config.model
    return DEMO_REF if model.provider == "demo" else model.ref

