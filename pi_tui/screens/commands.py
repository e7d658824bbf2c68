"""The TUI's own slash commands, and the `/pruner` subcommands that need a screen.

The host's commands (`/pruner status`, `/pruner on`, ...) answer through notifications and work the
same in print mode; these are the ones that need the terminal: pickers, overlays, the live flush
progress, switching model or session. Each handler runs in a worker (pickers wait for the user).
"""

from __future__ import annotations

import re
import time
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

from pydantic import ValidationError

from condense.commands import HELP as PRUNER_HELP
from condense.config import CondenseConfig, one_line_error
from condense.messages import content_text
from pi_tui.abort import AbortSignal
from pi_tui.agent.branch_summary import abandoned_entries, summarize_branch, summary_prompt
from pi_tui.ai.models import DEMO_REF, PROVIDERS, available_providers, missing_key, parse_model_ref
from pi_tui.errors import UserError
from pi_tui.keymap import hotkeys_text
from pi_tui.paths import sessions_dir_for
from pi_tui.runtime import DEMO_CONDENSE, LaunchOptions, Runtime, build_runtime
from pi_tui.screens.form import SettingsFormScreen, field_specs
from pi_tui.screens.picker import Choice, PickerScreen
from pi_tui.screens.pruner_tree import PrunerTreeScreen
from pi_tui.screens.session_tree import SessionTreeScreen, is_user_message
from pi_tui.screens.text_view import TextViewScreen
from pi_tui.session.listing import describe, session_files
from pi_tui.session.store import Session
from pi_tui.session.timefmt import now_ms
from pi_tui.settings import Settings, SettingsError
from pi_tui.settings.keys import set_dotted
from pi_tui.tools.base import ToolContext, ToolError
from pi_tui.tools.bash import BashParams, BashTool
from pi_tui.widgets.footer import UsageTotals, format_tokens

if TYPE_CHECKING:
    from pi_tui.app import PiApp

Handler = Callable[[str], Awaitable[None]]

PRUNER_SCREENS = {"settings": "every pruning setting, saved as you change it",
                  "tree": "browse summaries, chains and the original outputs"}
PRUNER_NEEDS_ARGUMENT = {"model", "thinking", "prune-on", "batching", "protected-tools", "protected-paths",
                         "min-batch-chars", "recovery-grace"}
_EXIT_STATUS = re.compile(r"\n*\s*Command exited with code (\d+)\s*$")
_ABORTED = re.compile(r"\n*\s*Command aborted\s*$")


def shell_message(command: str, output: str, failed: bool, details: dict[str, Any] | None,
                  exclude: bool) -> dict[str, Any]:
    """A `bashExecution` message from the bash tool's outcome (its status line becomes `exitCode`)."""
    code: int | None = 0
    cancelled = False
    if failed:
        match = _EXIT_STATUS.search(output)
        aborted = _ABORTED.search(output)
        code = int(match[1]) if match else None
        cancelled = aborted is not None
        output = output[: (match or aborted).start()] if (match or aborted) else output
    message: dict[str, Any] = {"role": "bashExecution", "command": command, "output": output,
                               "exitCode": code, "cancelled": cancelled,
                               "truncated": bool(details and details.get("truncation")),
                               "timestamp": now_ms()}
    if details and details.get("fullOutputPath"):
        message["fullOutputPath"] = details["fullOutputPath"]
    if exclude:
        message["excludeFromContext"] = True
    return message


class AppCommands:
    def __init__(self, app: PiApp) -> None:
        self.app = app
        self.shell_signal: AbortSignal | None = None
        self.table: dict[str, tuple[str, Handler]] = {
            "model": ("choose the model (searchable)", self.model),
            "settings": ("settings overlay (saved to settings.toml)", self.settings),
            "session": ("this session: file, id, message counts, cost", self.session),
            "new": ("start a new session", self.new),
            "resume": ("open an earlier session of this folder", self.resume),
            "name": ("name this session: /name <name>", self.name),
            "theme": ("choose the colour theme", self.theme),
            "hotkeys": ("list the keys", self.hotkeys),
            "tree": ("the session tree: continue from any entry, on a new branch", self.tree),
            "quit": ("quit pi-tui", self.quit),
            "exit": ("quit pi-tui", self.quit),
        }

    # ----- registry -----------------------------------------------------------------------------

    @property
    def runtime(self) -> Runtime:
        return self.app.runtime

    def names(self) -> dict[str, str]:
        """Every command the editor completes: the app's and the host's (extensions')."""
        names = {name: description for name, (description, _) in self.table.items()}
        names.update({name: command.description for name, command in self.runtime.host.commands.items()})
        return names

    def arguments(self, name: str) -> dict[str, str]:
        if name == "pruner":
            return {**PRUNER_SCREENS, **PRUNER_HELP}
        if name == "theme":
            return {theme: "" for theme in sorted(self.app.available_themes)}
        if name == "model":
            return {choice.label: choice.description for choice in self._model_choices()}
        return {}

    async def dispatch(self, text: str) -> bool:
        """Run `/name args` if it is the app's own; False hands it to the host."""
        name, _, args = text[1:].partition(" ")
        args = args.strip()
        if name == "pruner":
            return await self.pruner(args)
        entry = self.table.get(name)
        if entry is None:
            return False
        await entry[1](args)
        return True

    def user_texts(self) -> list[str]:
        """The session's user messages in file order (the editor's history)."""
        texts = []
        for entry in self.runtime.host.session.entries:
            message = entry.get("message")
            if entry.get("type") == "message" and isinstance(message, dict) and message.get("role") == "user":
                texts.append(content_text(message.get("content") or ""))
        return texts

    # ----- helpers ------------------------------------------------------------------------------

    def _idle_or_warn(self, what: str) -> bool:
        if self.runtime.is_quiet:
            return True
        self.app.show_notice(f"{what}: the agent is working; wait for it or press Esc first", "warning")
        return False

    async def _rebuild(self, reason: str, options: LaunchOptions, session: Session | None = None) -> Runtime | None:
        try:
            runtime = build_runtime(options, self.app.settings, self.app.bridge, self.app.client,
                                    on_settings_saved=self.app.bridge.settings_saved, session=session)
        except UserError as exc:
            self.app.show_notice(str(exc), "error")
            return None
        await self.app.attach(runtime, reason)
        if reason in ("new", "resume"):
            await self.app.show_first_screen([])  # it holds the runtime's notices
        else:
            for notice in runtime.notices:
                self.app.show_notice(notice)
        return runtime

    def _options(self, **changes: Any) -> LaunchOptions:
        return LaunchOptions(launch_dir=self.app.launch.launch_dir, **changes)

    async def _note(self, text: str) -> None:
        await self.app.main.transcript.add_note(text)

    # ----- /model -------------------------------------------------------------------------------

    def _model_choices(self) -> list[Choice]:
        current = self.runtime.host.config.model
        refs = [DEMO_REF, *(f"{p}/{PROVIDERS[p][1]}" for p in available_providers())]
        current_ref = DEMO_REF if current.provider == "demo" else current.ref
        if current_ref not in refs:
            refs.append(current_ref)
        models = self.app.settings.models
        return [Choice(ref, ref, "offline scripted demo" if ref == DEMO_REF else
                       f"{format_tokens(parse_model_ref(ref, models=models).context_window)} context") for ref in refs]

    async def model(self, args: str) -> None:
        current = self.runtime.host.config.model
        current_ref = DEMO_REF if current.provider == "demo" else current.ref
        ref = args if "/" in args or args == DEMO_REF else await self.app.push_screen_wait(PickerScreen(
            "Model · Enter on a typed provider/id uses it", self._model_choices(), query=args,
            current=current_ref, custom=lambda text: text))
        if ref and ref != current_ref:
            await self.switch_model(ref)

    async def switch_model(self, ref: str) -> None:
        if not self._idle_or_warn("/model"):
            return
        try:
            spec = parse_model_ref(ref)
        except UserError as exc:
            self.app.show_notice(str(exc), "error")
            return
        if problem := missing_key(spec):  # said now, not after the next prompt fails
            self.app.show_notice(problem, "error")
            return
        session = self.runtime.host.session
        if spec.provider == "demo" and self.runtime.model.provider != "demo":
            # the demo edits files: it gets its own copy of the sample project, never this folder
            await self._rebuild("new", self._options(model=DEMO_REF))
            self.app.show_notice("demo: started a new session on a copy of the sample project")
            return
        runtime = await self._rebuild("reload", self._options(model=ref), session)
        if runtime is None:
            return
        if runtime.host.session.build_context().model != (spec.provider, spec.id):
            runtime.host.session.append_model_change(spec.provider, spec.id)
        self.app.show_notice(f"model: {ref}")
        self.app.status_changed()

    # ----- sessions -----------------------------------------------------------------------------

    async def new(self, _: str) -> None:
        if self._idle_or_warn("/new"):
            model = self.runtime.host.config.model
            ref = DEMO_REF if model.provider == "demo" else model.ref
            await self._rebuild("new", self._options(model=ref, base_url=model.base_url))

    async def resume(self, args: str) -> None:
        if not self._idle_or_warn("/resume"):
            return
        current = self.runtime.host.session.path
        choices = []
        for path in session_files(sessions_dir_for(self.app.launch.launch_dir)):
            info = describe(path)
            when = time.strftime("%Y-%m-%d %H:%M", time.localtime(info.modified))
            title = info.name or " ".join(info.first_message.split())[:80] or "(no message)"
            choices.append(Choice(path, title, f"{when} · {info.entries} entries"))
        if not choices:
            self.app.show_notice("no saved sessions for this folder yet", "warning")
            return
        path = await self.app.push_screen_wait(PickerScreen("Resume a session", choices, query=args,
                                                            current=current))
        if path is not None and path != current:
            await self._rebuild("resume", self._options(session=str(path)))

    async def session(self, _: str) -> None:
        session = self.runtime.host.session
        roles: dict[str, int] = {}
        for message in session.messages():
            role = str(message.get("role"))
            kind = message.get("customType") if role == "custom" else role
            roles[str(kind)] = roles.get(str(kind), 0) + 1
        totals = UsageTotals.of_entries(session.entries)
        counts = ", ".join(f"{count} {role}" for role, count in sorted(roles.items())) or "none yet"
        saved = session.path is not None and session.is_persisted
        lines = [f"session: {session.name or '(unnamed)'}",
                 f"file:    {session.path if saved else '(none yet: written with the first reply)'}",
                 f"id:      {session.session_id}",
                 f"entries: {len(session.entries)} in the {'file' if saved else 'session'}, "
                 f"{len(session.branch_entries())} on this branch",
                 f"messages on this branch: {counts}",
                 f"tokens:  {totals.text() or '0'}",
                 f"model:   {self._model_name()}"]
        await self._note("\n".join(lines))

    def _model_name(self) -> str:
        """The model as a person names it: `demo`, not the demo's provider/id."""
        model = self.runtime.host.config.model
        return DEMO_REF if model.provider == "demo" else model.ref

    async def name(self, args: str) -> None:
        session = self.runtime.host.session
        if not args:
            self.app.show_notice(f"session name: {session.name or '(none)'} · set it with /name <name>")
            return
        session.append_session_info(args)
        self.app.show_notice(f"session named {args!r}")
        self.app.status_changed()

    async def tree(self, _: str) -> None:
        """Pi's /tree: choose any entry of the session tree and continue from there on a new branch.

        A user message goes back to the editor and the session continues from before it; any other entry
        becomes the point the next message follows. Leaving a branch offers Pi's branch summary."""
        if not self._idle_or_warn("/tree"):
            return
        session = self.runtime.host.session
        if not session.entries:
            self.app.show_notice("nothing in this session yet", "warning")
            return
        chosen = await self.app.push_screen_wait(SessionTreeScreen(session))
        entry = session.get(chosen) if chosen else None
        if entry is None:
            return
        to_editor = is_user_message(entry) or entry.get("type") == "custom_message"
        target = entry.get("parentId") if to_editor else entry["id"]
        if target == session.leaf_id and not to_editor:
            self.app.show_notice("already there: this is where the session is")
            return
        go, summary = await self._branch_summary(target)
        if not go:
            return
        await self.runtime.host.navigate(target, summary)
        if to_editor:
            message = entry.get("message") or entry
            self.app.main.editor.set_text(content_text(message.get("content") or ""))
        where = "edit the message and send it" if to_editor else "the next message continues from there"
        kept = " (the branch you left is summarised)" if summary else ""
        self.app.show_notice(f"on a new branch: {where}{kept}")

    async def _branch_summary(self, target: str | None) -> tuple[bool, str | None]:
        """Ask whether to summarise the branch being left, and write the summary: (go on, summary)."""
        host = self.runtime.host
        entries = abandoned_entries(host.session, target)
        if summary_prompt(entries) is None:
            return True, None
        answer = await self.app.push_screen_wait(PickerScreen("Summarise the branch you are leaving?", [
            Choice("none", "No summary", "switch at once"),
            Choice("summarize", "Summarize", f"{self._model_name()} writes what the branch did"),
            Choice("focus", "Summarize with a focus", "say what the summary should dwell on")]))
        if answer not in ("summarize", "focus"):
            return answer == "none", None
        focus = "" if answer == "summarize" else await self.app.push_screen_wait(PickerScreen(
            "What should the summary dwell on? (type it, Enter)", [], custom=lambda text: text))
        if focus is None:
            return False, None
        prompt = summary_prompt(entries, focus) or ""
        working = self.app.main.status.working
        working.show("Summarizing the branch you are leaving… (esc to abort)")
        self.shell_signal = AbortSignal()  # Esc stops it, as it stops a shell command
        try:
            return True, await summarize_branch(host.agent.client, host.config.model, prompt, self.shell_signal)
        except UserError as exc:
            self.app.show_notice(str(exc), "error")
            return False, None
        finally:
            self.shell_signal = None
            working.show(None)

    # ----- settings, theme, keys ----------------------------------------------------------------

    async def settings(self, _: str) -> None:
        specs = field_specs(Settings, skip=frozenset({"condense", "keymap"}),
                            choices={"theme": sorted(self.app.available_themes)})
        self.app.push_screen(SettingsFormScreen(
            "Settings (settings.toml) · pruning has its own: /pruner settings", specs,
            lambda: self.app.settings.model_dump(mode="json"), self._save_setting))

    def _save_setting(self, path: tuple[str, ...], value: Any) -> str | None:
        try:
            self.app.settings_store.save(".".join(path), value)
        except SettingsError as exc:
            return str(exc)
        return None

    async def theme(self, args: str) -> None:
        choices = [Choice(name, name) for name in sorted(self.app.available_themes)]
        name = args or await self.app.push_screen_wait(PickerScreen("Theme", choices, current=self.app.theme))
        if not name:
            return
        if self.app.apply_theme(name):
            error = self._save_setting(("theme",), name)
            if error:
                self.app.show_notice(error, "error")

    async def hotkeys(self, _: str) -> None:
        self.app.push_screen(TextViewScreen("Keys", hotkeys_text(self.app.settings.keymap)))

    async def quit(self, _: str) -> None:
        await self.app.action_quit()

    # ----- /pruner ------------------------------------------------------------------------------

    async def pruner(self, args: str) -> bool:
        sub = args.split(" ")[0] if args else ""
        if sub == "":
            await self._pruner_picker()
        elif sub == "tree":
            branch = self.runtime.host.session.branch_entries()
            self.app.push_screen(PrunerTreeScreen(self.runtime.engine, branch))
        elif sub == "settings":
            self._pruner_settings()
        elif sub == "now":
            await self.flush_now()
        else:
            return False
        return True

    async def _pruner_picker(self) -> None:
        options = {**PRUNER_SCREENS, **PRUNER_HELP}
        sub = await self.app.push_screen_wait(PickerScreen(
            "/pruner", [Choice(name, name, description) for name, description in options.items()]))
        if not sub:
            return
        if sub in PRUNER_NEEDS_ARGUMENT:
            self.app.main.editor.set_text(f"/pruner {sub} ")
            return
        if not await self.pruner(sub):
            await self.runtime.host.prompt(f"/pruner {sub}")

    def _pruner_settings(self) -> None:
        engine = self.runtime.engine

        def change(path: tuple[str, ...], value: Any) -> str | None:
            data = set_dotted(engine.config.model_dump(), path, value)
            try:
                config = CondenseConfig.model_validate(data)
            except ValidationError as exc:
                return one_line_error(exc, CondenseConfig)
            engine.set_config(config)
            return None

        title = "Pruning settings ([condense] in settings.toml)"
        if self.runtime.model.provider == "demo":
            overrides = ", ".join(f"{key} {value}" for key, value in DEMO_CONDENSE.items())
            title += f"\nthe demo uses {overrides}"  # in memory, while it runs
        # the file's values, not the engine's: those are the demo's while it runs
        self.app.push_screen(SettingsFormScreen(
            title, field_specs(CondenseConfig), lambda: self.app.settings.condense.model_dump(mode="json"), change))

    async def flush_now(self) -> None:
        """`/pruner now` with live rows above the editor, one per batch."""
        if not self._idle_or_warn("/pruner now"):
            return
        engine = self.runtime.engine
        status = self.app.main.status
        status.progress.clear()
        status.working.show("Summarizing pending tool work… (esc to abort)")
        try:
            result = await engine.flush("manual", sequential=True, progress=status.progress.report)
        finally:
            status.working.show(None)
            self.app.set_timer(self.app.progress_linger, status.progress.clear)
        if result.outcome == "empty":
            self.app.show_notice("pruner: nothing pending — no batches to summarize")
        elif not result.halted:  # a halted flush has said why, once
            self.app.show_notice(f"pruner: {result.outcome}: {result.summarized} of {result.captured} batches"
                                 " summarized")
        self.app.status_changed()

    # ----- !shell -------------------------------------------------------------------------------

    async def shell(self, text: str) -> None:
        """`!cmd` runs a command and puts its output in the context; `!!cmd` keeps it out."""
        exclude = text.startswith("!!")
        command = text[2 if exclude else 1:].strip()
        if not command:
            self.app.show_notice("type a command after ! (or !! to keep its output out of the context)",
                                 "warning")
            return
        host = self.runtime.host
        if not self._idle_or_warn("!"):
            return
        settings = self.app.settings
        tool = BashTool(shell=settings.shell_path, prefix=settings.shell_command_prefix)
        self.shell_signal = AbortSignal()
        working = self.app.main.status.working
        working.show(f"$ {command} (esc to stop)")
        try:
            context = ToolContext(cwd=host.cwd, signal=self.shell_signal)
            output = await tool.run(BashParams(command=command), context)
            text, failed, details = content_text(output.content), False, output.details
        except ToolError as exc:
            text, failed, details = str(exc), True, None
        finally:
            self.shell_signal = None
            working.show(None)
        # through the host, as a message: the session stores it and the agent's context holds it
        await host.insert_message(shell_message(command, text, failed, details, exclude))  # type: ignore[arg-type]

    def abort_shell(self) -> bool:
        if self.shell_signal is None:
            return False
        self.shell_signal.abort()
        return True
