"""The exported page: everything from the session escaped, nothing a browser would fetch, every tool call
with its output."""

from __future__ import annotations

from html.parser import HTMLParser

from condense.messages import AgentMessage, typed_messages
from pi_tui.conversation.html import session_page
from tests.support.chains import call, calls, result
from tests.support.turns import reply, said

PNG = "iVBORw0KGgo="


class Tags(HTMLParser):
    """Every start tag and its attributes, and the page's visible text."""

    def __init__(self) -> None:
        super().__init__()
        self.tags: list[tuple[str, dict[str, str | None]]] = []
        self.text: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, dict(attrs)))

    def handle_data(self, data: str) -> None:
        self.text.append(data)


def parsed(messages: list[AgentMessage]) -> Tags:
    tags = Tags()
    tags.feed(session_page("a <b>session</b>", [("file", "/tmp/x.jsonl")], messages))
    return tags


def test_session_text_is_escaped_and_nothing_is_loaded_from_anywhere() -> None:
    image = {"type": "image", "mimeType": "image/png", "data": PNG}
    messages: list[AgentMessage] = [
        {"role": "user", "content": [{"type": "text", "text": "<script>alert(1)</script>"}, image],  # type: ignore[list-item]  # an image block
         "timestamp": 1},
        reply("![remote](https://example.com/x.png) and <img src=https://example.com/y.png> **bold**", 2),
    ]
    page = parsed(messages)
    names = [tag for tag, _ in page.tags]
    assert "script" not in names and "link" not in names and "iframe" not in names
    sources = [attrs.get("src") or "" for tag, attrs in page.tags if tag == "img"]
    assert sources == [f"data:image/png;base64,{PNG}"], "only the session's own image, inline"
    text = "".join(page.text)
    assert "<script>alert(1)</script>" in text and "<img src=https://example.com/y.png>" in text  # as text
    assert "a <b>session</b>" in text and "strong" in names  # the reply's Markdown is rendered


def test_every_call_shows_with_its_arguments_and_its_output() -> None:
    messages = typed_messages([
        said("fix it", 1),
        calls(2, call("c1", "bash", {"command": "python3 -m unittest"}), call("c2", "read", {"path": "a.py"})),
        result(3, "c1", "FAILED (failures=1)\nCommand exited with code 1"),
        {**result(4, "c2", "tax = 1", "read"), "isError": True},
        reply("done", 5),
    ])
    text = "".join(parsed(messages).text)
    assert "bash python3 -m unittest · 2 lines" in text and "FAILED (failures=1)" in text
    assert "read a.py · 1 line · failed" in text and '"path": "a.py"' in text
