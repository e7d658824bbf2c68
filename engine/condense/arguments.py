"""The arguments a model passes to a tool, validated as the JSON they are.

pydantic's lax mode reads `true` as 1 where a number is asked for, so `{"offset": true}` quietly meant
line 1: a model that wrote nonsense was answered as if it had asked for something. In JSON a boolean is
no number; a number field is refused one, in one line the model can act on. Everything else lax mode
does stays (a number written as a string is still read), and keys nobody asked for are ignored, as
Pi's tools ignore them.
"""

from __future__ import annotations

import types
from typing import Any, Union, get_args, get_origin

from pydantic import BaseModel, ConfigDict, ValidationInfo, field_validator
from pydantic_core import PydanticCustomError


def _admits(annotation: Any, kind: type) -> bool:
    """Whether a field of this type takes a `kind` (`int | None` takes an int, `list[int]` does not)."""
    if get_origin(annotation) in (Union, types.UnionType):
        return any(_admits(part, kind) for part in get_args(annotation))
    return annotation is kind


class ToolArguments(BaseModel):
    """The base of every tool's arguments: pi-tui's tools and `context_tree_query`."""

    model_config = ConfigDict(extra="ignore")

    @field_validator("*", mode="before")
    @classmethod
    def _no_boolean_for_a_number(cls, value: Any, info: ValidationInfo) -> Any:
        if isinstance(value, bool) and info.field_name is not None:
            annotation = cls.model_fields[info.field_name].annotation
            if (_admits(annotation, int) or _admits(annotation, float)) and not _admits(annotation, bool):
                raise PydanticCustomError("number_not_boolean", "Input should be a number, not true or false")
        return value
