"""Assembling a working agent from the command line and the settings: model, folder, session, tools.

Print mode and the TUI both start here, so both pick the same model, the same session and the same
working folder for the same flags.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

from condense.config import CondenseConfig
from condense.engine import CondenseEngine
from pi_tui.agent.condense_host import install
from pi_tui.agent.host import AgentHost, HostUI
from pi_tui.agent.loop import AgentConfig, RetryPolicy
from pi_tui.agent.system_prompt import build_system_prompt
from pi_tui.ai.models import choose_model, restore_problem
from pi_tui.ai.models_json import catalog
from pi_tui.ai.types import ModelClient, ModelSpec
from pi_tui.demo.project import is_demo_copy
from pi_tui.errors import UserError
from pi_tui.paths import sessions_dir_for
from pi_tui.resources import Resources, load_resources
from pi_tui.runtime.launch import LaunchOptions as LaunchOptions  # re-exported: what build_runtime takes
from pi_tui.session.listing import newest_session, resolve_session_arg, session_files
from pi_tui.session.store import Session, SessionError
from pi_tui.settings import LiveSettings, RetrySettings, Settings
from pi_tui.tools import ALL_TOOLS, make_tools


@dataclass
class Runtime:
    host: AgentHost
    model: ModelSpec
    notices: list[str]
    engine: CondenseEngine
    prompt_tools: list[tuple[str, str]] = field(default_factory=list)  # the tools the system prompt lists

    @property
    def is_quiet(self) -> bool:
        """Neither the agent nor a flush is running: what aborting, quitting and session commands ask."""
        return self.host.is_idle and not self.engine.flushing


DEMO_SPILL_THRESHOLD = 32 * 1024  # the demo's 46 KB report then shows the spill path
# What the demo's engine runs with instead of the file's `[condense]`, in memory only.
DEMO_CONDENSE: dict[str, object] = {"spill_threshold": DEMO_SPILL_THRESHOLD, "summarizer_model": "extractive"}


def client_for(model: ModelSpec) -> ModelClient:
    if model.provider == "demo":
        from pi_tui.demo.client import DemoModelClient

        return DemoModelClient()
    from pi_tui.ai.litellm_client import LiteLLMClient

    return LiteLLMClient()


def _open_session(options: LaunchOptions) -> Session | None:
    if options.no_session:  # Pi's --no-session wins over --session and --continue
        return None
    if options.session:
        path = Path(options.session).expanduser()
        if not path.exists() and (path.suffix == ".jsonl" or os.sep in options.session):
            session = Session.create(options.launch_dir, path.parent)
            session.path = path
            return session
        return Session.open(resolve_session_arg(options.session, options.launch_dir))
    if options.continue_recent:
        newest = newest_session(options.launch_dir)
        if newest is None:
            raise SessionError("no earlier session in this folder to continue; run without --continue")
        return Session.open(newest)
    return None


def _work_dir(model: ModelSpec, session: Session | None, options: LaunchOptions, notices: list[str]) -> Path:
    """The demo works on its own copy of the sample project, never on the user's files, whatever folder
    it starts in and whatever session it opens (a session recorded in the user's project included)."""
    if model.provider != "demo":
        return options.launch_dir
    from pi_tui.demo.project import mark_used, prepare_demo_project

    if session is not None and session.entries and is_demo_copy(Path(session.cwd)):
        mark_used(Path(session.cwd))
        return Path(session.cwd)

    folder = prepare_demo_project()
    notices.append("demo: working on a copy of the sample project, never on your files")
    return folder


def _made_by_demo(session: Session) -> bool:
    """A session the demo wrote: in a demo copy, or with no model but the demo's (Pi never records it)."""
    if is_demo_copy(Path(session.cwd)):
        return True
    models = {e.get("provider") for e in session.entries if e.get("type") == "model_change"}
    models |= {e["message"].get("provider") for e in session.entries
               if e.get("type") == "message" and e["message"].get("role") == "assistant"}
    return models == {"demo"}


def _newest_not_the_demos(options: LaunchOptions, notices: list[str]) -> Session | None:
    """`--continue` for a real model: the newest session of the folder the demo did not write (Pi, which
    has no demo, would see no other), or None (a new session), said in one line."""
    for path in session_files(sessions_dir_for(options.launch_dir)):
        session = Session.open(path)
        if not _made_by_demo(session):
            notices.append(f"--continue: continuing {path.name}; the demo's newer sessions are never continued by "
                           "a real model")
            return session
    notices.append("--continue: this folder's sessions are the demo's, which a real model never continues: "
                   "starting a new session")
    return None


def _keep_users_session(session: Session, cwd: Path, options: LaunchOptions, notices: list[str]) -> None:
    """The demo never writes a session file it did not create: it continues someone else's in a copy."""
    if not session.entries or _made_by_demo(session):
        return
    original = session.fork_into(sessions_dir_for(options.launch_dir), cwd)
    name = original.name if original is not None else "the session"
    notices.append(f"demo: continuing {name} in a new session file; the demo never writes the original")


def retry_policy(retry: RetrySettings) -> RetryPolicy:
    return RetryPolicy(retry.enabled, retry.max_retries, retry.base_delay_ms, retry.max_delay_ms,
                       retry.max_retry_after_ms, retry.stream_idle_timeout_ms)


def condense_config_for(model: ModelSpec, settings: Settings) -> CondenseConfig:
    """`[condense]` as this model's engine runs it."""
    if model.provider != "demo":
        return settings.condense
    # in memory only: a `/pruner` change saves what it changed, never these
    return settings.condense.model_copy(update=DEMO_CONDENSE)


def apply_settings(runtime: Runtime, settings: Settings) -> None:
    """Settings changed while `runtime` runs: its agent and its engine take them from the next turn on."""
    config = runtime.host.config
    config.steering_mode, config.follow_up_mode = settings.steering_mode, settings.follow_up_mode
    config.retry = retry_policy(settings.retry)
    condense = condense_config_for(runtime.model, settings)
    if condense != runtime.engine.config:
        runtime.engine.set_config(condense)


def reload_resources(runtime: Runtime) -> Resources:
    """`/reload`: the user's skills, prompt templates, context files and SYSTEM.md read again; the next
    request carries the system prompt they make (the provider's prompt cache starts over once)."""
    host = runtime.host
    resources = load_resources(host.cwd)
    host.resources = resources
    host.config.system_prompt = build_system_prompt(host.cwd, runtime.prompt_tools, resources)
    return resources


def build_runtime(options: LaunchOptions, live: LiveSettings, ui: HostUI | None = None,
                  client: ModelClient | None = None, session: Session | None = None, *,
                  import_early: bool = False) -> Runtime:
    """A runtime on the live settings as they are now, following every later change of them until its
    host shuts down; its `/pruner` changes are saved through them. `import_early` (`-p`): litellm's
    import starts in a thread once the model is a real one (the TUI warms it up after its first frame).
    `session`, an open session, is
    continued as it is in memory (`/model`): entries a failed write left unsaved stay in it, where
    reopening its file would drop them."""
    settings = live.current
    session = session or _open_session(options)
    recorded = session.model_ref() if session is not None else None  # kept unless --model says otherwise
    model, notices = choose_model(options.model, settings.default_model, options.base_url, settings.models,
                                  recorded=recorded)
    if import_early and model.provider != "demo" and client is None:
        from pi_tui.ai.litellm_client import import_in_background

        import_in_background()  # seconds of import, while the rest of the runtime is built
    if options.continue_recent and model.provider != "demo" and session is not None and _made_by_demo(session):
        session = _newest_not_the_demos(options, notices)
    notices += catalog().problems
    if (model.provider == "demo" and not options.model and recorded not in (None, "demo")
            and not options.demo_forks_sessions):
        # print mode writes where --session says: a recorded conversation never gets the demo's turns
        problem = restore_problem(recorded, options.base_url, settings.models)
        raise UserError(f"this session's model {recorded} cannot be used ({problem}), and print mode does not "
                        "continue a recorded session on the demo: set the key or give --model")
    cwd = _work_dir(model, session, options, notices)
    if session is None:
        folder = sessions_dir_for(options.launch_dir)
        session = Session.in_memory(cwd) if options.no_session else Session.create(cwd, folder)
    elif model.provider == "demo" and options.demo_forks_sessions:
        _keep_users_session(session, cwd, options, notices)
    if not session.entries:
        session.header["cwd"] = str(cwd)
        session.append_model_change(model.provider, model.id)
        session.append_thinking_level_change(settings.default_thinking_level)
    # The demo's script uses every built-in tool; a real model gets the ones the settings activate.
    names = list(ALL_TOOLS) if model.provider == "demo" else list(settings.tools)
    try:
        tools = make_tools(names, shell=settings.shell_path, shell_prefix=settings.shell_command_prefix)
    except ValueError as exc:
        raise UserError(f"settings: tools: {exc}") from exc
    prompt_tools = [(t.name, t.description) for t in tools]
    resources = load_resources(cwd)
    notices += resources.problems
    prompt = build_system_prompt(cwd, prompt_tools, resources)
    retry = retry_policy(settings.retry)
    config = AgentConfig(model=model, system_prompt=prompt, cwd=cwd,
                         thinking_level=session.build_context().thinking_level,
                         steering_mode=settings.steering_mode, follow_up_mode=settings.follow_up_mode,
                         retry=retry)
    host = AgentHost(session, client or client_for(model), config, tools, ui, resources)
    engine = install(host, condense_config_for(model, settings), client_for, live)
    runtime = Runtime(host, model, notices, engine, prompt_tools)
    stop = live.listen(lambda old, new: apply_settings(runtime, new))
    host.bus.on("session_shutdown", lambda event: stop())
    return runtime
