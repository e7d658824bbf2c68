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
    enabled: bool = True
    max_retries: int = Field(3, ge=0)
    base_delay_ms: int = Field(2000, ge=0)
    max_delay_ms: int = Field(60000, ge=0)


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
    default_model: ModelRef | None = Field(None, json_schema_extra={"x-expected": '"provider/model-id" or "demo"'})
    default_thinking_level: ThinkingLevel = "off"
    hide_thinking_block: bool = False
    theme: str = "dark"
    quiet_startup: bool = False
    steering_mode: QueueMode = "one-at-a-time"
    follow_up_mode: QueueMode = "one-at-a-time"
    shell_path: str | None = None
    shell_command_prefix: str | None = None
    retry: RetrySettings = Field(default_factory=RetrySettings)
    double_escape_action: DoubleEscapeAction = "tree"
    keymap: dict[str, str] = Field(default_factory=dict)  # binding id -> keys, e.g. "submit" = "ctrl+j"
    tools: list[str] = Field(default_factory=lambda: ["read", "bash", "edit", "write"])
    condense: CondenseSection = Field(default_factory=_condense_defaults)
    models: dict[ModelRef, ModelSettings] = Field(default_factory=dict)  # "provider/id" -> its limits
