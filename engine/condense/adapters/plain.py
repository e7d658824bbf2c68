"""An agent's messages as plain data, whatever object holds them.

Agents keep their history in the SDKs' own objects (the openai SDK's `ChatCompletionMessage`, the
anthropic SDK's `Message` and content blocks, all pydantic models), in TypedDicts (plain dicts at run
time) or in any other Mapping. The adapters read plain dicts and lists, so everything is turned into
those first, recursively; condense never imports an SDK to do it.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pydantic import BaseModel

MessageLike = Mapping[str, Any] | BaseModel
"""A message as an agent holds it: a dict or TypedDict, any Mapping, or an SDK's pydantic object."""


def plain(value: Any) -> Any:
    """`value` with every pydantic model and Mapping turned into a dict and every tuple into a list.
    A model's unset optional fields (None) are left out, as the SDKs leave them out of a request."""
    if isinstance(value, BaseModel):
        value = value.model_dump(exclude_none=True, by_alias=True)
    if isinstance(value, Mapping):
        return {key: plain(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [plain(item) for item in value]
    return value
