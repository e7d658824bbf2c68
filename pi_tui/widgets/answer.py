"""An answer's text in the transcript: Markdown, streamed.

Its own module because Textual's Markdown widget brings markdown-it and pygments: the assistant block
imports it when it shows its first text, so the first frame does not wait for them.
"""

from __future__ import annotations

from typing import Any

from textual.widgets import Markdown


class AssistantText(Markdown):
    """An answer's text. Streamed through one MarkdownStream: appending per token re-parses too much."""

    DEFAULT_CSS = """
    AssistantText { margin: 1 0 0 0; padding: 0 1; background: transparent; }
    """

    def __init__(self, markdown: str = "") -> None:
        super().__init__(markdown)
        self._stream: Any = None

    async def write(self, fragment: str) -> None:
        if self._stream is None:
            self._stream = Markdown.get_stream(self)
        await self._stream.write(fragment)

    async def stop(self) -> None:
        if self._stream is not None:
            stream, self._stream = self._stream, None
            await stream.stop()
