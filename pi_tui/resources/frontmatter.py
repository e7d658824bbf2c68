"""The YAML block at the top of a skill or prompt template, split off as Pi splits it.

Pi's rule: the file (line endings made `\\n`) starts with `---`; the block ends at the next line that
starts with `---`; the body after it is trimmed. A file without that shape has no frontmatter and its
whole text (untrimmed) is the body. Only the block's YAML can be wrong, and that is said in one line.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import yaml


class FrontmatterError(ValueError):
    """The block is not YAML; the message is one line naming where."""


@dataclass(frozen=True)
class Document:
    body: str
    fields: dict[str, Any] = field(default_factory=dict)


def _split(text: str) -> tuple[str | None, str]:
    normalized = text.replace("\r\n", "\n").replace("\r", "\n")
    if not normalized.startswith("---"):
        return None, normalized
    end = normalized.find("\n---", 3)
    if end == -1:
        return None, normalized
    return normalized[4:end], normalized[end + 4:].strip()


def _yaml(block: str) -> dict[str, Any]:
    try:
        parsed = yaml.safe_load(block)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" at line {mark.line + 2}" if mark is not None else ""  # +2: 0-based, after the `---` line
        problem = getattr(exc, "problem", None) or "not valid YAML"
        raise FrontmatterError(f"frontmatter{where}: {problem}") from None
    return parsed if isinstance(parsed, dict) else {}


def parse_document(text: str) -> Document:
    """The body and the frontmatter's fields (empty when there is none, or when it is not a mapping)."""
    block, body = _split(text)
    return Document(body, _yaml(block) if block else {})
