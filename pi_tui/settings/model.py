"""The shape of `settings.toml`: pydantic models with snake_case keys and a default for every value."""

from __future__ import annotations

from typing import Annotated, Literal, TypeAlias

from pydantic import BaseModel, ConfigDict, Field, StringConstraints, TypeAdapter

from condense.config import CondenseConfig
from pi_tui.errors import UserError

ThinkingLevel = Literal["off", "minimal", "low", "medium", "high", "xhigh"]
QueueMode = Literal["one-at-a-time", "all"]
DoubleEscapeAction = Literal["tree", "fork", "none"]
ModelRef = Annotated[str, StringConstraints(pattern=r"^([^/\s]+/\S+|demo)$")]

# The one place that decides what `[condense]` holds: the engine's own model, so its defaults, camelCase
# keys and error lines follow with no other change here.
CondenseSection: TypeAlias = CondenseConfig


class SettingsError(UserError):
    """A save was refused; the message is one line meant for the user."""


class _Table(BaseModel):
    # strict: TOML has real types, so `max_retries = "3"` is a mistake worth pointing out, not coercing.
    model_config = ConfigDict(extra="forbid", strict=True, validate_assignment=True)


class RetrySettings(_Table):
    enabled: bool = Field(True, description="Retry a model request that failed for a passing reason "
                          "(rate limit, overload, timeout, lost connection).")
    max_retries: int = Field(3, ge=0, description="How many times to retry before giving up.")
    base_delay_ms: int = Field(2000, ge=0, description="The first wait, in milliseconds; it doubles each time.")
    max_delay_ms: int = Field(60000, ge=0, description="The longest wait between two tries, in milliseconds.")
    max_retry_after_ms: int = Field(
        120000, ge=0, description="The longest wait a provider's Retry-After is honoured for, in milliseconds; "
        "a longer one is cut to this (the retry line says so).")
    stream_idle_timeout_ms: int = Field(
        300000, gt=0, description="How long a model's reply may send nothing before it is given up as a "
        "passing failure, in milliseconds.")


class ModelSettings(_Table):
    """Limits and prices of one model, for a model litellm's map does not know (a custom
    OpenAI-compatible server) or to correct the map. Unset values come from the map, else defaults."""

    context_window: int | None = Field(None, gt=0)
    max_tokens: int | None = Field(None, gt=0)
    reasoning: bool | None = None
    # dollars per million tokens, as providers list them (and as Pi's models.json writes them)
    input_cost: float | None = Field(None, ge=0)
    output_cost: float | None = Field(None, ge=0)
    cache_read_cost: float | None = Field(None, ge=0)
    cache_write_cost: float | None = Field(None, ge=0)


def _condense_defaults() -> CondenseSection:
    return TypeAdapter(CondenseSection).validate_python({})


class Settings(_Table):
    # `x-expected` words the error line: a regex is no help to someone editing a TOML file.
    default_model: ModelRef | None = Field(
        None, json_schema_extra={"x-expected": '"provider/model-id" or "demo"'},
        description='The model a new session starts with, as `provider/model-id`, or `demo` (offline).')
    default_thinking_level: ThinkingLevel = Field(
        "off", description="How much a reasoning model thinks in a new session (Shift+Tab cycles it).")
    hide_thinking_block: bool = Field(False, description="Pi's setting, kept for Pi: pi-tui always folds "
                                      "thinking away (Ctrl+T shows it).")
    theme: str = Field("dark", description="Colour theme: `dark`, `light`, or one of yours in "
                       "`~/.pi-tui/themes/` (see `/theme`).")
    quiet_startup: bool = Field(
        False, description="Leave out the first screen's header (model, folder, session, how to get help).")
    steering_mode: QueueMode = Field(
        "one-at-a-time", description="Messages typed while the agent works: delivered **one at a time**, "
        "or **all** at the next turn.")
    follow_up_mode: QueueMode = Field(
        "one-at-a-time", description="Follow-ups queued with Alt+Enter: **one at a time**, or **all** at once.")
    shell_path: str | None = Field(None, description="The shell `bash` and `!cmd` run in (empty: the default).")
    shell_command_prefix: str | None = Field(
        None, description="Text put before every shell command, e.g. `source .venv/bin/activate &&`.")
    retry: RetrySettings = Field(default_factory=RetrySettings,
                                 description="Retrying model requests that failed for a passing reason.")
    double_escape_action: DoubleEscapeAction = Field(
        "tree", description="Esc twice on an empty editor: `tree` opens /tree, `fork` opens /fork, `none` nothing.")
    keymap: dict[str, str] = Field(  # binding id -> keys, e.g. "submit" = "ctrl+j"
        default_factory=dict, description="Your keys by binding id (`/hotkeys` lists them).")
    tools: list[str] = Field(default_factory=lambda: ["read", "bash", "edit", "write"],
                             description="The tools a real model may use: read, bash, edit, write, grep, find, ls.")
    condense: CondenseSection = Field(default_factory=_condense_defaults,
                                      description="Context pruning (`/pruner settings`).")
    enabled_models: list[ModelRef] = Field(  # Pi's enabledModels, as provider/id
        default_factory=list, description="The models Ctrl+P and Shift+Ctrl+P cycle through, as `provider/id` "
        "(`/scoped-models` chooses them); none: every model with a key.")
    models: dict[ModelRef, ModelSettings] = Field(  # "provider/id" -> its limits
        default_factory=dict, description="Context window, output limit and prices of models litellm does not "
        "know (or to override what it says), by `provider/id`.")
