"""PiApp: the interactive TUI over one runtime (host, model, session, condense engine).

The first frame (editor, footer, the header as far as it is known) needs only Textual and the
widgets: this module imports the runtime's parts (session store, engine, agent, tools, commands) only
under TYPE_CHECKING or where they are used. After that frame a thread builds the runtime; keys typed
meanwhile wait for it (`ready`), and a runtime that cannot be built (a bad `--session`, an unknown
`--model`) ends the app and is raised again by `run_tui`, so the CLI says it in the same one line with
the same exit status as before the app started. litellm never sits on the path to the first frame:
the demo never imports it, and for a real model the app imports it in a thread worker later.

Errors end in one place: worker failures (`on_worker_state_changed`) and anything else Textual
would print as a traceback (`_handle_exception`) become one line in the transcript (`show_notice`:
errors and warnings are never toasts); the traceback goes to the log file (`~/.pi-tui/logs/pi-tui.log`),
scrubbed of keys.
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import os
import re
import signal
import time
from collections.abc import Awaitable, Callable, Coroutine, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

from rich.text import Text
from textual import work
from textual.app import App, SuspendNotSupported
from textual.binding import BindingType
from textual.driver import Driver
from textual.screen import Screen
from textual.worker import Worker, WorkerState

from condense.messages import ImageContent, content_text
from condense.plural import counted
from pi_tui.abort import AbortSignal
from pi_tui.errors import UserError
from pi_tui.logs import write_crash_report
from pi_tui.screens.main import MainScreen
from pi_tui.terminal import safe_message
from pi_tui.termination import ENDING, exit_status, leave_a_closed_terminal, listen
from pi_tui.themes import DEFAULT_THEME, ThemeError, load_theme_file, load_user_themes, shipped_themes
from pi_tui.themes import variable_defaults as theme_variable_defaults
from pi_tui.tui.first_screen import first_screen, starting
from pi_tui.widgets import keymap
from pi_tui.widgets.completion import Completer
from pi_tui.widgets.footer import FooterState, display_path, git_branch

if TYPE_CHECKING:
    from pi_tui.agent.host import Level
    from pi_tui.ai.types import ModelClient
    from pi_tui.commands import Registry
    from pi_tui.runtime.build import Runtime
    from pi_tui.runtime.launch import LaunchOptions
    from pi_tui.session.store import Session
    from pi_tui.settings import LiveSettings, Settings
    from pi_tui.tui.live import LiveView

Started = tuple["Runtime", "LiveSettings", list[str]]  # a built runtime, the settings it follows, their problems

# Nothing above imports litellm; whatever imports it later (the warm-up, a real model's client) must
# find the local price map, never the network.
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

DOUBLE_PRESS_SECONDS = 0.5
STOP_WAIT_SECONDS = 5.0  # what a stopped turn gets to reach the session before the app exits anyway
THINKING_LEVELS = ("off", "minimal", "low", "medium", "high", "xhigh")
# Pi's `supportsXhigh`: the model ids whose providers take a level above high; any other stops at high
XHIGH_MODELS = re.compile(r"gpt-5\.[234]|opus-4[-.]6")


def thinking_levels(model_id: str) -> tuple[str, ...]:
    """The levels Shift+Tab goes through for a reasoning model."""
    return THINKING_LEVELS if XHIGH_MODELS.search(model_id) else THINKING_LEVELS[:-1]


class TuiBridge:
    """The host's view of the UI (`HostUI`). It exists before the app does, so notices the runtime
    gives while it is built wait here until the app can show them."""

    def __init__(self) -> None:
        self.app: PiApp | None = None
        self.statuses: dict[str, str] = {}
        self.widgets: dict[str, list[str]] = {}
        self.pending: list[tuple[str, Level]] = []

    def notify(self, text: str, level: Level = "info") -> None:
        if self.app is None:
            self.pending.append((text, level))
        else:
            self.app.show_notice(text, level)

    def set_status(self, key: str, text: str | None) -> None:
        if text:
            self.statuses[key] = text
        else:
            self.statuses.pop(key, None)
        if self.app is not None:
            self.app.status_changed()

    def set_widget(self, key: str, lines: list[str] | None) -> None:
        if lines:
            self.widgets[key] = list(lines)
        else:
            self.widgets.pop(key, None)
        if self.app is not None:
            self.app.main.status.lines.set(key, lines)


class AppCommandContext:
    """The app as its slash commands see it (`pi_tui.commands.CommandContext`): these operations and
    no widget. It also holds the abort signal of a command's own work (a shell run, a branch summary)."""

    def __init__(self, app: PiApp) -> None:
        self.app = app
        self.signal: AbortSignal | None = None
        self.scoped_models: list[str] | None = None
        self.typed = ""

    @property
    def runtime(self) -> Runtime:
        return self.app.runtime

    @property
    def settings(self) -> Settings:
        return self.app.settings

    @property
    def launch_dir(self) -> Path:
        return self.app.launch.launch_dir

    @property
    def theme(self) -> str:
        return self.app.theme

    def theme_names(self) -> list[str]:
        return self.app.theme_names()

    def apply_theme(self, name: str) -> bool:
        return self.app.apply_theme(name)

    def save_setting(self, key: str, value: Any) -> None:
        self.app.settings_store.save(key, value)

    def reload_settings(self) -> list[str]:
        from pi_tui.settings import load_settings

        result = load_settings()
        self.app.settings_store.reload(result.settings)
        return [f"settings: {line}" for line in result.errors] + self.app.keymap_problems

    def reload_themes(self) -> list[str]:
        return self.app.reload_user_themes()

    def notify(self, text: str, level: Level = "info") -> None:
        self.app.show_notice(text, level)

    async def note(self, text: str, level: Level = "info") -> None:
        await self.app.main.transcript.add_note(text, level)

    def show(self, screen: Screen[Any]) -> None:
        self.app.push_screen(screen)

    async def ask(self, screen: Screen[Any]) -> Any:
        return await self.app.push_screen_wait(screen)

    def set_editor_text(self, text: str) -> None:
        self.app.main.editor.set_text(text)

    def copy_to_terminal(self, text: str) -> None:
        self.app.copy_to_clipboard(text)  # Textual writes OSC 52

    def status_changed(self) -> None:
        self.app.status_changed()

    def build_runtime(self, options: LaunchOptions, session: Session | None = None) -> Runtime:
        from pi_tui.runtime.build import build_runtime

        app = self.app
        return build_runtime(options, app.settings_store, app.bridge, app.client, session=session)

    async def attach(self, runtime: Runtime, reason: str) -> None:
        await self.app.attach(runtime, reason)

    async def show_first_screen(self) -> None:
        await self.app.show_first_screen([])

    async def quit(self) -> None:
        await self.app.action_quit()

    @contextmanager
    def working(self, text: str) -> Iterator[AbortSignal]:
        """`text` stands in the working line while the block runs, then what it replaced comes back (a
        `!cmd` typed while the agent works), unless the agent changed the line meanwhile."""
        working = self.app.main.status.working
        before, retry = working.text, working.has_class("-retry")
        self.signal = AbortSignal()
        working.show(text)
        try:
            yield self.signal
        finally:
            self.signal = None
            if working.text == text:
                working.show(before or None, retry=retry)

    def abort_work(self) -> bool:
        """Esc while a command's own work runs: stop it."""
        if self.signal is None:
            return False
        self.signal.abort()
        return True

    def show_progress(self, batch: int, state: str, chars: int) -> None:
        self.app.main.status.progress.report(batch, state, chars)

    def clear_progress(self, later: bool = False) -> None:
        progress = self.app.main.status.progress
        if later:
            self.app.set_timer(self.app.progress_linger, progress.clear)
        else:
            progress.clear()


def editor_history(session: Session) -> list[str]:
    """The session's user messages in file order (the editor's history)."""
    texts = []
    for entry in session.entries:
        message = entry.get("message")
        if entry.get("type") == "message" and isinstance(message, dict) and message.get("role") == "user":
            texts.append(content_text(message.get("content") or ""))
    return texts


class PiApp(App[int]):
    CSS_PATH = Path(__file__).with_name("app.tcss")  # absolute: subclasses elsewhere find it too
    BINDINGS: ClassVar[list[BindingType]] = [*keymap.APP]
    PAUSE_GC_ON_SCROLL = True
    ENABLE_COMMAND_PALETTE = False
    TITLE = "pi-tui"

    def __init__(self, runtime: Runtime | None, settings: LiveSettings | None, bridge: TuiBridge,
                 launch: LaunchOptions, *, build: Callable[[], Started] | None = None,
                 client: ModelClient | None = None, clock: Callable[[], float] = time.monotonic,
                 cwd_display: str | None = None, watch: bool = True, startup_errors: list[str] | None = None,
                 progress_linger: float = 1.5) -> None:
        """Either `runtime` and `settings`, built already (tests), or `build`, which loads the settings
        and builds the runtime in a thread after the first frame."""
        super().__init__()
        self.runtime: Runtime
        self.settings_store: LiveSettings
        self._build = build
        self.ready = asyncio.Event()  # the runtime is attached and shown: input may use it
        self.startup_failure: BaseException | None = None  # why the runtime could not be built
        if runtime is not None and settings is not None:
            self.runtime = runtime
            self._use_settings(settings)
        self.bridge = bridge
        self.launch = launch
        self.client = client  # tests: the model client every rebuilt runtime uses
        self.clock = clock
        self.cwd_display = cwd_display  # tests and snapshots: a fixed folder name instead of a temp path
        self.watch_files = watch
        self.startup_errors = list(startup_errors or [])
        self.progress_linger = progress_linger
        self.key_remaps: dict[str, str] = {}  # the user's [keymap] entries that can work
        self.keymap_problems: list[str] = []  # one line per entry that cannot
        keymap.read_escape_enter_as_alt_enter()
        self.command_context = AppCommandContext(self)
        self.commands: Registry
        completer = Completer(lambda: self.commands.names() if self.ready.is_set() else {},
                              lambda name: self.commands.arguments(name) if self.ready.is_set() else {},
                              lambda: self.runtime.host.cwd if self.ready.is_set() else launch.launch_dir)
        self.main = MainScreen(clock, completer, self.editor_bindings)
        self.live: LiveView | None = None
        self._last_ctrl_c = -1.0
        self._last_escape = -1.0
        self._stop_watching = asyncio.Event()
        self._stop_listening: Callable[[], None] = lambda: None

    def _use_settings(self, settings: LiveSettings) -> None:
        self.settings_store = settings
        settings.listen(self._settings_applied)

    @property
    def settings(self) -> Settings:
        return self.settings_store.current

    # ----- screens and themes -------------------------------------------------------------------

    def get_default_screen(self) -> Screen[Any]:
        return self.main

    def get_driver_class(self) -> type[Driver]:
        """Textual's driver for this platform; on POSIX one that survives its terminal closing."""
        driver = super().get_driver_class()
        if os.name == "posix":
            from textual.drivers.linux_driver import LinuxDriver

            from pi_tui.tui.driver import TerminalDriver

            if driver is LinuxDriver:
                return TerminalDriver
        return driver

    def get_theme_variable_defaults(self) -> dict[str, str]:
        return theme_variable_defaults(self.current_theme)

    def _install_shipped_themes(self) -> None:
        for theme in shipped_themes():
            self.register_theme(theme)

    def _install_themes(self) -> None:
        self._install_shipped_themes()
        for error in self.reload_user_themes():
            self.show_notice(error, "error")
        self.apply_theme(self.settings.theme)

    def reload_user_themes(self) -> list[str]:
        """Register the user's theme files (again), repainting if the theme in use is one of them; one
        line per file that could not be read."""
        themes, errors = load_user_themes()
        for theme in themes:
            self.register_theme(theme)
        if self.theme in {theme.name for theme in themes}:
            self._repaint()
        return [f"theme {error}" for error in errors]

    def theme_names(self) -> list[str]:
        """The themes to offer, with the user's folder as it is now: a file copied in while pi-tui runs is
        offered without /reload (the watcher only sees it when it runs, and tests and some file systems
        have none). Its broken files are said at start-up and by /reload, not at each listing."""
        themes, _ = load_user_themes()
        for theme in themes:
            if theme.name not in self.available_themes:
                self.register_theme(theme)
        return sorted(self.available_themes)

    def apply_theme(self, name: str) -> bool:
        if name not in self.available_themes:
            self.show_notice(f"theme {name!r} not found; using {DEFAULT_THEME!r} (see /theme)", "error")
            self.theme = DEFAULT_THEME
            return False
        self.theme = name
        return True

    def reload_theme_file(self, path: Path) -> None:
        """A user theme file changed: register it again and repaint if it is the one in use."""
        try:
            theme = load_theme_file(path)
        except ThemeError as exc:
            self.show_notice(f"theme {exc}", "error")
            return
        self.register_theme(theme)
        if theme.name == self.theme:
            self._repaint()

    def _repaint(self) -> None:
        """The theme in use changed its colours: apply them now."""
        self.refresh_css(animate=False)
        self.screen.refresh(layout=True)

    # ----- lifecycle ----------------------------------------------------------------------------

    def on_mount(self) -> None:
        self._stop_listening = listen(ENDING, self._ended_by)
        # back from Ctrl+Z (`fg`): the shell drew over the terminal, so all of it is drawn again
        self.app_resume_signal.subscribe(self, lambda _: self.refresh(layout=True))
        if self._build is None:
            self._configure()
        else:  # the first frame in the shipped default theme; the user's settings come with the runtime
            self._install_shipped_themes()
            self.theme = DEFAULT_THEME

    def _configure(self) -> None:
        """Apply the settings the app starts with: themes, key remaps."""
        self._install_themes()
        self.startup_errors += self.apply_keymap(self.settings.keymap)

    async def on_ready(self) -> None:
        """After the first frame: the runtime is built (or, given built, attached) while the user
        already sees the app."""
        if self._build is None:
            await self._start(self.runtime)
            return
        folder = self.cwd_display or display_path(self.launch.launch_dir)
        await self.main.transcript.add_note(starting(folder))  # replaced once the session is shown
        self.main.footer.show(FooterState(cwd=folder, branch=git_branch(self.launch.launch_dir)))
        self._build_runtime()

    @work(thread=True, exit_on_error=False, group="startup")
    def _build_runtime(self) -> None:
        """Opening the session, importing and building the engine, agent and tools block: a thread."""
        assert self._build is not None
        try:
            runtime, settings, errors = self._build()
        except Exception as exc:
            self.call_from_thread(self._startup_failed, exc)
            return
        # Textual's call_from_thread infers its result type Never when the result is discarded
        self.call_from_thread(self._started, runtime, settings, errors)  # type: ignore[arg-type]

    async def _started(self, runtime: Runtime, settings: LiveSettings, errors: list[str]) -> None:
        self._use_settings(settings)
        self.startup_errors += errors
        self._configure()
        await self._start(runtime)

    def _startup_failed(self, exc: Exception) -> None:
        self.startup_failure = exc
        self.exit(1)

    async def _start(self, runtime: Runtime) -> None:
        """Show the built runtime, then the first screen's notices, then let queued input run."""
        from pi_tui.commands import app_registry

        self.runtime = runtime
        self.commands = app_registry(self.command_context)
        self.bridge.app = self
        await self.attach(runtime, "startup")
        await self.show_first_screen(self.startup_errors)
        self.ready.set()
        pending, self.bridge.pending = self.bridge.pending, []
        for text, level in pending:
            self.show_notice(text, level)
        self.call_after_refresh(self._settle)
        if self.launch.resume or self.launch.messages:
            self.spawn(self._send_launch_input())

    async def _send_launch_input(self) -> None:
        """`pi-tui -r "a" "b"`: the picker first, then each message once the one before is answered."""
        if self.launch.resume:
            await self.run_input("/resume")
        for text in self.launch.messages:
            await self.run_input(text)

    def _settle(self) -> None:
        """Once the session is on screen: the file watchers (watchfiles' import) would only delay it."""
        if self.watch_files:
            self._watch_settings()
            self._watch_themes()
        if not self.is_headless:
            gc.freeze()  # the loaded session is long-lived: keep it out of every collection

    async def attach(self, runtime: Runtime, reason: str) -> None:
        """Show `runtime` (at start, or after /model, /new, /resume) and let its extensions start."""
        from pi_tui.tui.live import LiveView

        if self.live is not None:
            self.live.detach()
            await self.live.host.shutdown()
        self.runtime = runtime
        runtime.host.ui = self.bridge
        self.bridge.statuses.clear()  # the new runtime's extensions set their own on start
        for key in list(self.bridge.widgets):
            self.bridge.set_widget(key, None)
        self.live = LiveView(self, self.main, runtime)
        self.live.attach()
        await runtime.host.start(reason)
        await self.live.show_session()
        self.main.editor.load_history(editor_history(runtime.host.session))
        if runtime.model.provider != "demo":
            self._warm_up()  # a real model: pay litellm's import now, in a thread, not at the first prompt

    async def show_first_screen(self, errors: list[str]) -> None:
        """Where the user is (model, folder, session) and the runtime's notices: at launch, and after
        /new or /resume. After the session's conversation, so on a long one they are in view, not pages up."""
        folder = self.cwd_display or display_path(self.runtime.host.cwd)
        for text, level in first_screen(self.runtime, folder, errors, self.settings.quiet_startup):
            await self.main.transcript.add_note(text, level)

    @work(thread=True, exit_on_error=False, group="warm-up")
    def _warm_up(self) -> None:
        from pi_tui.ai.litellm_client import warm_up

        warm_up()

    @work(exclusive=True, group="settings-watch", exit_on_error=False)
    async def _watch_settings(self) -> None:
        from pi_tui.settings import watch_settings

        await watch_settings(self._settings_changed, self._stop_watching)

    def _settings_changed(self, result: Any) -> None:
        """An outside edit: its problems, and its keymap's when that changed, said as they come (`/reload`
        says the keymap's in its own line, changed or not)."""
        keymap = self.settings.keymap
        for line in result.errors:
            self.show_notice(f"settings: {line}", "error")
        self.settings_store.reload(result.settings)
        if self.settings.keymap != keymap:
            for line in self.keymap_problems:
                self.show_notice(line, "error")

    def _settings_applied(self, old: Settings, new: Settings) -> None:
        """The app's part of a settings change (the running agent and engine follow it themselves)."""
        from pi_tui.screens.form import SettingsFormScreen

        if new.theme != self.theme:
            self.apply_theme(new.theme)
        if new.keymap != old.keymap:
            self.apply_keymap(new.keymap)
        if isinstance(self.screen, SettingsFormScreen):
            self.screen.reload()

    def apply_keymap(self, entries: dict[str, str]) -> list[str]:
        """Remap keys; returns one line per entry that cannot work (its binding keeps its default key)."""
        self.key_remaps, self.keymap_problems = keymap.check_keymap(entries)
        self.set_keymap(self.key_remaps)
        return self.keymap_problems

    @work(exclusive=True, group="theme-watch", exit_on_error=False)
    async def _watch_themes(self) -> None:
        from pi_tui.themes import watch_themes

        await watch_themes(self.reload_theme_file, self._stop_watching)

    async def on_unmount(self) -> None:
        self._stop_watching.set()
        self._stop_listening()

    def _ended_by(self, number: int) -> None:
        """SIGTERM, or SIGHUP from a closed terminal: end as quitting does, so the bash tool's processes
        end too and the session takes the stopped turn, then exit with the shell's status for the signal."""
        if number == signal.SIGHUP:
            leave_a_closed_terminal()
        self.run_worker(self._stop_and_exit(exit_status(number)), group="ending", exit_on_error=False)

    # ----- notices and errors -------------------------------------------------------------------

    def show_notice(self, text: str, level: Level = "info") -> None:
        """Errors and warnings (a refusal, a failure) go into the transcript, where the work is, as Pi
        shows them: a toast vanishes before anyone reads it. So does a block of lines (`/pruner status`);
        only one line of information is a toast. Before the session is shown they wait for the first
        screen, which shows them after the session."""
        if level == "info" and "\n" not in text.strip():
            self.notify(text, markup=False, timeout=4)
        elif self.ready.is_set():
            self.call_later(self.main.transcript.add_note, text.strip(), level)
        else:
            self.startup_errors.append(text.strip())

    def report_error(self, exc: BaseException) -> None:
        if isinstance(exc, UserError):
            self.show_notice(safe_message(str(exc)), "error")
            return
        log = write_crash_report(exc)
        self.show_notice(f"internal error: {type(exc).__name__}: {safe_message(str(exc))} (details in {log})", "error")

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        if event.state == WorkerState.ERROR and event.worker.error is not None:
            self.report_error(event.worker.error)

    def _handle_exception(self, error: Exception) -> None:
        if self.is_headless or os.environ.get("PI_TUI_DEBUG"):
            super()._handle_exception(error)  # tests see the real failure
            return
        log = write_crash_report(error)
        line = f"pi-tui: internal error: {type(error).__name__}: {safe_message(str(error))} (details in {log})"
        self.exit(1, return_code=1, message=Text(line))  # Text: `[redacted:KEY]` read as markup would vanish

    def status_changed(self) -> None:
        if self.live is not None:
            self.live.refresh_footer()
            self.live.refresh_marks()

    def spawn(self, job: Coroutine[Any, Any, Any] | Callable[[], Awaitable[Any]],
              group: str = "input") -> None:
        """Run user-started work in a worker; its failure becomes one notification."""
        self.run_worker(job, group=group, exit_on_error=False)

    # ----- input --------------------------------------------------------------------------------

    def on_prompt_editor_problem(self, event: Any) -> None:
        self.show_notice(event.text, "warning")

    def on_prompt_editor_submitted(self, event: Any) -> None:
        self.main.transcript.follow()  # whatever was sent, its answer shows
        self.spawn(self.run_input(event.text, event.follow_up, event.images))

    async def _typed_command(self, text: str) -> bool:
        """The app's command `text`, run as typed (a refusal puts it back in the editor); False: not ours."""
        self.command_context.typed = text
        try:
            return await self.commands.dispatch(text)
        finally:
            self.command_context.typed = ""

    async def run_input(self, text: str, follow_up: bool = False, images: Sequence[ImageContent] = ()) -> None:
        """Input sent before the runtime is ready waits for it, in the order it was sent."""
        await self.ready.wait()
        stripped = text.strip()
        if stripped.startswith("!"):
            await self._run_shell(stripped)
            return
        if stripped.startswith("/") and await self._typed_command(stripped):
            return
        from pi_tui.commands.unknown import may_send

        if not await may_send(self.command_context, text):
            return
        from pi_tui.ai.models import MissingKeyError  # here, not at the top: kept off the first frame's path

        host = self.runtime.host
        is_command = stripped.startswith("/") and stripped[1:].split(" ")[0] in host.commands
        if host.is_idle or is_command:
            try:
                await host.prompt(text, images)
            except MissingKeyError as exc:  # nothing was written: said where the reply would have been
                await self.main.transcript.add_note(str(exc), "error")
            return
        assert self.live is not None
        if follow_up:
            host.follow_up(text, images)
        else:
            await host.prompt(text, images)  # steers the running agent
        self.live.queue("follow-up" if follow_up else "steer", text)

    async def _run_shell(self, text: str) -> None:
        """`!cmd`, also while the agent works (as in Pi); one at a time: a second is refused and stays in
        the editor, as Pi keeps it."""
        from pi_tui.commands import run_shell

        if self.command_context.signal is not None:
            self.show_notice("a command is already running; press Esc to stop it first", "warning")
            if not self.main.editor.text.strip():
                self.main.editor.set_text(text)
            return
        await run_shell(self.command_context, text)

    # ----- keys ---------------------------------------------------------------------------------

    async def _check_bindings(self, key: str, priority: bool = False) -> bool:
        """Textual runs a priority binding as its key reaches the app, and any other once the key comes back
        from the focused widget unused: both before the keys queued ahead of (or after) it at the editor are
        handled (`hello wor` and Ctrl+D in one burst quit on an editor still empty). So while the editor
        has focus, it runs every key's bindings itself, at the key's turn (`editor_bindings`)."""
        if self.focused is self.main.editor:
            return False
        return await super()._check_bindings(key, priority)

    async def editor_bindings(self, key: str, priority: bool) -> bool:
        """Run `key`'s bindings as Textual finds them (priority: the app's first; else from the editor up),
        for the editor, at the key's turn; none while another screen is on top (the key was typed before
        it opened, so it stays the editor's)."""
        if self.screen is not self.main:
            return False
        return await super()._check_bindings(key, priority)

    # ----- actions ------------------------------------------------------------------------------

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        on_main = self.screen is self.main
        if action in ("abort", "pick_model", "cycle_thinking", "cycle_model") and not self.ready.is_set():
            return False  # they act on the runtime, which is still being built
        if action == "quit_if_empty":
            return on_main and not self.main.editor.text
        if action in ("toggle_thinking", "toggle_tools", "scroll_transcript", "cycle_thinking", "pick_model",
                      "jump_to_bottom", "cycle_model", "jump_to_top", "dequeue", "external_editor"):
            return on_main
        return True

    async def action_clear_or_quit(self) -> None:
        now = self.clock()
        if now - self._last_ctrl_c < DOUBLE_PRESS_SECONDS:
            await self.action_quit()
            return
        self._last_ctrl_c = now
        editor = self.main.editor
        if editor.text or editor.images:
            editor.discard()
        else:
            self.notify("press Ctrl+C again to quit", timeout=1.5)
        self.main.menu.hide()

    async def action_quit_if_empty(self) -> None:
        await self.action_quit()

    async def action_quit(self) -> None:
        await self._stop_and_exit(0)

    async def _stop_and_exit(self, code: int) -> None:
        """Stop the agent, a flush and a command's own work (`!cmd`), give the stopped turn a moment to
        reach the session, then exit. Before the runtime is ready there is nothing to stop (the build
        thread ends on its own)."""
        if self.ready.is_set():
            host = self.runtime.host
            self.command_context.abort_work()
            if not self.runtime.is_quiet:
                host.abort()
            deadline = time.monotonic() + STOP_WAIT_SECONDS
            while self._busy() and time.monotonic() < deadline:
                await asyncio.sleep(0.05)
            with contextlib.suppress(Exception):
                await host.shutdown()
        self._stop_watching.set()
        self.exit(code)

    def _busy(self) -> bool:
        return not self.runtime.is_quiet or self.command_context.signal is not None

    def action_abort(self) -> None:
        if self.main.menu.is_open:
            self.main.menu.hide()
            return
        host = self.runtime.host
        if not self.runtime.is_quiet:
            if self.live is not None:
                self.live.restore_queue()  # first: the loop must not take a queued message as it stops
            host.abort()
            return
        if self.command_context.abort_work():
            return
        now = self.clock()
        double = now - self._last_escape < DOUBLE_PRESS_SECONDS
        self._last_escape = now
        action = self.settings.double_escape_action
        if double and not self.main.editor.text and action != "none":
            self.spawn(self.commands.dispatch(f"/{action}"))

    async def action_toggle_tools(self) -> None:
        transcript = self.main.transcript
        await transcript.set_tools_expanded(not transcript.tools_expanded)

    def action_toggle_thinking(self) -> None:
        transcript = self.main.transcript
        transcript.set_thinking_shown(not transcript.show_thinking)

    def action_pick_model(self) -> None:
        self.spawn(self.commands.dispatch("/model"))

    def action_cycle_model(self, step: int) -> None:
        from pi_tui.commands.scoped_models import cycle_model

        self.spawn(cycle_model(self.command_context, step))

    def action_cycle_thinking(self) -> None:
        host = self.runtime.host
        if not host.config.model.reasoning:
            self.show_notice(f"{host.config.model.ref} has no thinking levels", "warning")
            return
        current = host.config.thinking_level
        levels = thinking_levels(host.config.model.id)
        level = levels[(levels.index(current) + 1) % len(levels)] if current in levels else "off"
        host.config.thinking_level = level
        host.session.append_thinking_level_change(level)
        self.show_notice(f"thinking: {level}")
        self.status_changed()

    async def action_scroll_transcript(self, direction: int) -> None:
        await self.main.transcript.page(direction)

    def action_jump_to_bottom(self) -> None:
        self.main.transcript.follow()

    def action_jump_to_top(self) -> None:
        self.main.transcript.home()

    def action_dequeue(self) -> None:
        """Alt+Up: the queued steers and follow-ups back into the editor; the agent works on."""
        count = self.live.restore_queue() if self.live is not None else 0
        self.show_notice(f"{counted(count, 'queued message')} back in the editor" if count
                         else "no queued messages to take back")

    async def action_external_editor(self) -> None:
        """Ctrl+G: edit the message in $VISUAL / $EDITOR, the terminal handed over meanwhile."""
        from pi_tui.tui.external_editor import NO_EDITOR, edit_text, editor_command

        command = editor_command()
        if command is None:
            await self.main.transcript.add_note(NO_EDITOR, "warning")
            return
        editor = self.main.editor
        try:
            with self.suspend():
                text = edit_text(command, editor.full_text)
        except SuspendNotSupported:
            await self.main.transcript.add_note("Ctrl+G: this terminal cannot be handed to an editor", "warning")
            return
        except OSError as exc:
            await self.main.transcript.add_note(f"Ctrl+G: could not start {command[0]}: {exc.strerror or exc};"
                                                " check $VISUAL / $EDITOR", "error")
            return
        if text is not None:
            editor.set_text(text)


def run_tui(options: LaunchOptions) -> int:
    """The CLI's entry point for the interactive mode. A runtime that could not be built is raised
    here, once the terminal is restored, for the CLI to say as it says every start-up error; settings
    problems become notices in the app."""

    def build() -> Started:
        from pi_tui.runtime.build import build_runtime
        from pi_tui.settings import LiveSettings, load_settings

        result = load_settings()
        settings = LiveSettings(result.settings)
        runtime = build_runtime(options, settings, ui=bridge)
        return runtime, settings, [f"settings: {line}" for line in result.errors]

    bridge = TuiBridge()
    app = PiApp(None, None, bridge, options, build=build)
    app.run()
    if app.startup_failure is not None:
        raise app.startup_failure
    return app.return_code or 0
