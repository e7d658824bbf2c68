"""The rules a theme file follows, checked with pydantic for files the user wrote.

Its own module so that the shipped themes, which the first frame needs, load without pydantic.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, ValidationError, field_validator
from textual.color import Color, ColorParseError

from condense.config import one_line_error


def _check_colour(value: str) -> str:
    try:
        Color.parse(value)
    except ColorParseError:
        raise ValueError(f"not a colour: {value!r} (use e.g. \"#88c0d0\" or \"rgb(136,192,208)\")") from None
    return value


class _Colors(BaseModel):
    model_config = ConfigDict(extra="forbid")
    primary: str
    secondary: str | None = None
    accent: str | None = None
    foreground: str | None = None
    background: str | None = None
    surface: str | None = None
    panel: str | None = None
    boost: str | None = None
    success: str | None = None
    warning: str | None = None
    error: str | None = None

    @field_validator("*")
    @classmethod
    def _colour(cls, value: str | None) -> str | None:
        return None if value is None else _check_colour(value)


class _ThemeFile(BaseModel):
    model_config = ConfigDict(extra="forbid")
    name: str | None = None
    dark: bool = True
    colors: _Colors
    variables: dict[str, str] = {}

    @field_validator("variables")
    @classmethod
    def _colours(cls, value: dict[str, str]) -> dict[str, str]:
        for key, colour in value.items():
            try:
                _check_colour(colour)
            except ValueError as exc:
                raise ValueError(f"{key}: {exc}") from None
        return value


def checked(data: dict[str, Any]) -> dict[str, Any]:
    """The file's table with its colours checked; ValueError says the first problem in one line."""
    try:
        spec = _ThemeFile.model_validate(data)
    except ValidationError as exc:
        raise ValueError(one_line_error(exc, _ThemeFile)) from None
    return spec.model_dump(exclude_none=True)
