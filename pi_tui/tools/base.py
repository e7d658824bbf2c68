"""What a tool is to the agent loop.

A tool validates its arguments with a pydantic model (whose JSON schema is what the model sees),
runs, and returns content blocks. Failure is signalled by raising `ToolError` with the text the model
should read, as Pi's tools throw; the loop turns it into an `isError: true` result.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar

from condense.arguments import ToolArguments
from condense.messages import ImageContent, TextContent
from pi_tui.abort import AbortSignal


class ToolError(Exception):
    """The tool failed; the message is the result text the model reads."""


class ToolParams(ToolArguments):
    """A tool's arguments: JSON as the model wrote it, `true` never taken for a number (condense.arguments)."""


@dataclass
class ToolOutput:
    content: list[TextContent | ImageContent]
    details: dict[str, Any] | None = None

    @classmethod
    def text(cls, text: str, details: dict[str, Any] | None = None) -> ToolOutput:
        return cls([{"type": "text", "text": text}], details)


UpdateCallback = Callable[[ToolOutput], None]


@dataclass
class ToolContext:
    """What a running tool may know about its surroundings."""

    cwd: Path
    signal: AbortSignal = field(default_factory=AbortSignal)
    on_update: UpdateCallback | None = None


class Tool:
    """Base class: subclasses set the class attributes and implement `run`."""

    name: ClassVar[str]
    label: ClassVar[str]
    description: ClassVar[str]
    Params: ClassVar[type[ToolParams]]

    @classmethod
    def schema(cls) -> dict[str, Any]:
        """The JSON schema of the parameters, as sent to the model."""
        schema = cls.Params.model_json_schema()
        schema.pop("title", None)
        for prop in schema.get("properties", {}).values():
            prop.pop("title", None)
        return schema

    async def run(self, params: Any, ctx: ToolContext) -> ToolOutput:
        raise NotImplementedError
