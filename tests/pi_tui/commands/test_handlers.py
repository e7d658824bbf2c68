"""The TUI's slash commands driven through a recording `CommandContext`, without the App.

The runtime is the real one (demo model, real session, real condense engine, real bash tool); only the
screen side is recorded: what a command says, shows, asks and puts in the editor. The Pilot tests beside
this file drive the same commands through the real app.
"""

from __future__ import annotations

import tomllib
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from textual.screen import Screen

from pi_tui.abort import AbortSignal
from pi_tui.agent.host import Level
from pi_tui.commands import CommandContext, Registry, app_registry, run_shell
from pi_tui.demo.client import DemoModelClient
from pi_tui.paths import settings_file
from pi_tui.runtime.build import Runtime, build_runtime
from pi_tui.runtime.launch import LaunchOptions
from pi_tui.screens.picker import PickerScreen
from pi_tui.session.store import Session
from pi_tui.settings import LiveSettings, Settings, load_settings
from pi_tui.settings import save as save_module


class RecordingContext:
    """A `CommandContext` that records what a command does to the screen; it is the host's UI too, so
    the engine's answers (`/pruner status`) land in the same `notices`."""

    def __init__(self, launch_dir: Path, answers: list[Any] | None = None) -> None:
        self.store = LiveSettings(load_settings().settings)
        self.launch = launch_dir
        self.answers = list(answers or [])
        self.notices: list[tuple[str, str]] = []
        self.notes: list[str] = []
        self.shown: list[Screen[Any]] = []
        self.asked: list[Screen[Any]] = []
        self.editor = ""
        self.terminal_clipboard: str | None = None
        self.working_lines: list[str] = []
        self.attached: list[str] = []
        self.first_screens = 0
        self.status_changes = 0
        self.quit_called = False
        self.current_theme = "dark"
        self.scoped_models: list[str] | None = None
        self.typed = ""
        self._runtime = self.build_runtime(LaunchOptions(model="demo", launch_dir=launch_dir))

    # the host's UI
    def notify(self, text: str, level: Level = "info") -> None:
        self.notices.append((level, text))

    def set_status(self, key: str, text: str | None) -> None:
        return None

    def set_widget(self, key: str, lines: list[str] | None) -> None:
        return None

    # the command context
    @property
    def runtime(self) -> Runtime:
        return self._runtime

    @property
    def settings(self) -> Settings:
        return self.store.current

    @property
    def launch_dir(self) -> Path:
        return self.launch

    @property
    def theme(self) -> str:
        return self.current_theme

    def theme_names(self) -> list[str]:
        return ["dark", "light"]

    def apply_theme(self, name: str) -> bool:
        if name not in self.theme_names():
            self.notify(f"theme {name!r} not found", "error")
            return False
        self.current_theme = name
        return True

    def save_setting(self, key: str, value: Any) -> None:
        self.store.save(key, value)

    def reload_settings(self) -> list[str]:
        result = load_settings()
        self.store.reload(result.settings)
        return result.errors

    def reload_themes(self) -> list[str]:
        return []

    async def note(self, text: str, level: Level = "info") -> None:
        self.notes.append(text if level == "info" else f"{level}: {text}")

    def show(self, screen: Screen[Any]) -> None:
        self.shown.append(screen)

    async def ask(self, screen: Screen[Any]) -> Any:
        self.asked.append(screen)
        return self.answers.pop(0) if self.answers else None

    def set_editor_text(self, text: str) -> None:
        self.editor = text

    def copy_to_terminal(self, text: str) -> None:
        self.terminal_clipboard = text

    def status_changed(self) -> None:
        self.status_changes += 1

    def build_runtime(self, options: LaunchOptions, session: Session | None = None) -> Runtime:
        return build_runtime(options, self.store, ui=self, client=DemoModelClient(), session=session)

    async def attach(self, runtime: Runtime, reason: str) -> None:
        self._runtime = runtime
        self.attached.append(reason)
        await runtime.host.start(reason)

    async def show_first_screen(self) -> None:
        self.first_screens += 1

    async def quit(self) -> None:
        self.quit_called = True

    @contextmanager
    def working(self, text: str) -> Iterator[AbortSignal]:
        self.working_lines.append(text)
        yield AbortSignal()

    def show_progress(self, batch: int, state: str, chars: int) -> None:
        return None

    def clear_progress(self, later: bool = False) -> None:
        return None


@pytest.fixture
def context(tmp_path: Path) -> RecordingContext:
    launch = tmp_path / "launch"
    launch.mkdir()
    return RecordingContext(launch)


@pytest.fixture
def registry(context: RecordingContext) -> Registry:
    checked: CommandContext = context  # the recording context is a full CommandContext
    return app_registry(checked)


async def test_name_names_the_session_and_says_so(context: RecordingContext, registry: Registry) -> None:
    assert await registry.dispatch("/name  invoice fix ")
    assert context.runtime.host.session.name == "invoice fix"
    assert context.notices == [("info", "session named 'invoice fix'")]
    assert context.status_changes == 1


async def test_name_without_a_name_tells_the_current_one(context: RecordingContext, registry: Registry) -> None:
    await registry.dispatch("/name")
    assert context.notices == [("info", "session name: (none) · set it with /name <name>")]
    assert context.runtime.host.session.name is None


async def test_session_writes_a_note_with_the_model_and_counts(context: RecordingContext,
                                                               registry: Registry) -> None:
    await registry.dispatch("/session")
    lines = context.notes[-1].splitlines()
    assert lines[0] == "session: (unnamed)"
    assert "model:   demo" in lines
    assert "messages on this branch: none yet" in lines


async def test_an_unknown_pruner_subcommand_goes_to_the_engine_which_says_so(context: RecordingContext,
                                                                             registry: Registry) -> None:
    assert await registry.dispatch("/pruner bogus")
    assert context.notices == [("warning", "pruner: unknown subcommand 'bogus'; try /pruner help")]
    assert context.shown == [] and context.asked == []


async def test_the_pruner_picker_puts_a_subcommand_that_needs_an_argument_in_the_editor(
        context: RecordingContext) -> None:
    context.answers = ["model", "off"]
    registry = app_registry(context)
    await registry.dispatch("/pruner")
    assert isinstance(context.asked[0], PickerScreen)
    assert context.editor == "/pruner model "
    await registry.dispatch("/pruner")  # one that needs none runs at once, in the engine
    assert context.runtime.engine.config.enabled is False
    assert context.notices[-1] == ("info", "pruner: enabled = False")


async def test_a_pruner_change_goes_through_the_live_settings_once(context: RecordingContext, registry: Registry,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    """No watcher runs here: what the live settings hold comes from the command itself, at once."""
    writes: list[bytes] = []
    write = save_module._write_atomic
    monkeypatch.setattr(save_module, "_write_atomic", lambda path, data: (writes.append(data), write(path, data)))  # type: ignore[func-returns-value]  # record, write
    heard: list[bool] = []
    context.store.listen(lambda old, new: heard.append(new.condense.enabled))
    await registry.dispatch("/pruner off")
    assert context.settings.condense.enabled is False and heard == [False]
    assert len(writes) == 1 and tomllib.loads(settings_file().read_text(encoding="utf-8"))["condense"] == {
        "enabled": False}  # only what the command changed: the demo's own values stay in memory
    assert context.runtime.engine.config.enabled is False
    assert context.notices == [("info", "pruner: enabled = False")]
    await registry.dispatch("/new")
    assert context.runtime.engine.config.enabled is False


async def test_a_pruner_change_the_file_cannot_take_changes_nothing(context: RecordingContext,
                                                                    registry: Registry) -> None:
    path = settings_file()
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("[condense\nenabled = true\n", encoding="utf-8")  # the user's file, half edited
    await registry.dispatch("/pruner off")
    assert path.read_text(encoding="utf-8") == "[condense\nenabled = true\n"
    assert context.settings.condense.enabled and context.runtime.engine.config.enabled
    [(level, text)] = context.notices
    assert level == "error" and text.startswith("Settings not saved:")


async def test_an_outside_edit_reaches_the_running_engine_until_its_session_ends(context: RecordingContext,
                                                                                  registry: Registry) -> None:
    first = context.runtime
    context.store.reload(Settings.model_validate({"condense": {"min_batch_chars": 300}}))  # the watcher's door
    assert first.engine.config.min_batch_chars == 300
    await first.host.shutdown()
    context.store.reload(Settings.model_validate({"condense": {"min_batch_chars": 400}}))
    assert first.engine.config.min_batch_chars == 300  # a runtime that has ended follows nothing


async def test_pruner_now_with_nothing_pending_says_so(context: RecordingContext, registry: Registry) -> None:
    await registry.dispatch("/pruner now")
    assert context.working_lines == ["Summarizing pending tool work… (esc to abort)"]
    assert context.notes == ["/pruner now: nothing to do: the conversation has no tool output yet"]
    assert context.notices == []


async def test_a_bang_without_a_command_asks_for_one(context: RecordingContext) -> None:
    await run_shell(context, "!  ")
    assert context.notices == [("warning", "type a command after ! (or !! to keep its output out of the context)")]
    assert context.working_lines == []
    assert context.runtime.host.session.messages() == []


async def test_a_bang_runs_the_command_into_the_session(context: RecordingContext) -> None:
    await run_shell(context, "!!echo hello")
    assert context.working_lines == ["$ echo hello (esc to stop)"]
    [message] = context.runtime.host.session.messages()
    assert message["role"] == "bashExecution" and message["output"].strip() == "hello"
    assert message["exitCode"] == 0 and message["excludeFromContext"] is True


async def test_a_bang_that_prints_a_key_keeps_it_out_of_the_session_and_the_context(
        context: RecordingContext, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-live-0123456789abcdef")
    await run_shell(context, "!printenv OPENAI_API_KEY")
    [message] = context.runtime.host.session.messages()
    assert message["role"] == "bashExecution" and message["output"].strip() == "[redacted:OPENAI_API_KEY]"
    assert context.runtime.host.agent.messages == [message], "what the next request carries"


async def test_an_unknown_theme_is_refused_and_never_saved(context: RecordingContext, registry: Registry) -> None:
    await registry.dispatch("/theme nosuch")
    assert context.notices == [("error", "theme 'nosuch' not found; kept 'dark' (/theme lists them)")]
    assert not settings_file().exists()
    await registry.dispatch("/theme light")
    assert tomllib.loads(settings_file().read_text(encoding="utf-8"))["theme"] == "light"
    assert context.settings.theme == "light"


async def test_new_attaches_a_fresh_session_and_shows_the_first_screen(context: RecordingContext,
                                                                      registry: Registry) -> None:
    before = context.runtime.host.session.session_id
    await registry.dispatch("/new")
    assert context.attached == ["new"] and context.first_screens == 1
    assert context.runtime.host.session.session_id != before
    assert context.runtime.model.provider == "demo"


async def test_quit_and_exit_quit(context: RecordingContext, registry: Registry) -> None:
    await registry.dispatch("/exit")
    assert context.quit_called


async def test_the_registry_completes_its_own_commands_and_the_hosts(context: RecordingContext,
                                                                     registry: Registry) -> None:
    names = registry.names()
    assert {"model", "session", "new", "resume", "name", "theme", "hotkeys", "tree", "settings", "quit",
            "exit", "pruner"} <= set(names)
    assert names["pruner"] == context.runtime.host.commands["pruner"].description
    pruner = registry.arguments("pruner")
    assert {"tree", "settings", "now", "status", "model", "dedup"} <= set(pruner)  # the screens' and the engine's
    assert registry.arguments("theme") == {"dark": "", "light": ""}
    assert "demo" in registry.arguments("model")
    assert registry.arguments("session") == {}


async def test_a_name_the_registry_does_not_know_is_handed_on(context: RecordingContext,
                                                             registry: Registry) -> None:
    context.runtime.host.register_command("hello", "an extension's command", lambda args: None)
    assert "hello" in registry.names()
    assert not await registry.dispatch("/hello there")
    assert registry.lookup("hello") is None and registry.lookup("tree") is not None


async def test_model_keeps_the_base_url_for_its_provider_and_drops_it_for_another(
        context: RecordingContext, registry: Registry) -> None:
    server = "http://127.0.0.1:9/v1"
    local = context.build_runtime(LaunchOptions(model="openai/local-a", base_url=server, launch_dir=context.launch))
    await context.attach(local, "startup")
    await registry.dispatch("/model openai/local-b")  # the same server's other model: no key needed
    assert (context.runtime.model.ref, context.runtime.model.base_url) == ("openai/local-b", server)
    assert context.notices[-1] == ("info", "model: openai/local-b")
    await registry.dispatch("/model anthropic/claude-sonnet-4-5")  # not that server's: its own key is needed
    assert context.runtime.model.ref == "openai/local-b"
    assert context.notices[-1] == ("error", "/model anthropic/claude-sonnet-4-5: not switched, still on"
                                            " openai/local-b: no API key for anthropic: set ANTHROPIC_API_KEY")
