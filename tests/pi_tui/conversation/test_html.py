"""The exported page: everything from the session escaped, nothing a browser would fetch, every tool call
with its output."""

from __future__ import annotations

from html.parser import HTMLParser
from pathlib import Path

from condense.messages import AgentMessage, typed_messages
from pi_tui.abort import AbortSignal
from pi_tui.conversation.html import session_page
from pi_tui.tools.base import ToolContext
from pi_tui.tools.edit import EditTool
from tests.support.chains import call, calls, result, summary_message
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


VOID = ("img", "meta", "br", "hr", "link", "input")


class Classed(HTMLParser):
    """The page's text, each piece with the classes of the elements around it (a diff's lines, a label)."""

    def __init__(self) -> None:
        super().__init__()
        self.open: list[str] = []
        self.pieces: list[tuple[list[str], str]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag not in VOID:
            self.open.append(dict(attrs).get("class") or "")

    def handle_endtag(self, tag: str) -> None:
        if tag not in VOID:  # Markdown's `<hr />` ends as it starts
            self.open.pop()

    def handle_data(self, data: str) -> None:
        self.pieces.append((list(self.open), data))

    def of(self, css_class: str) -> list[str]:
        """The texts right inside an element of this class."""
        return [text for classes, text in self.pieces if classes and classes[-1] == css_class]

    def text(self) -> str:
        return "".join(text for _, text in self.pieces)

    def within(self, css_class: str) -> str:
        """All the text inside elements of this class."""
        return "".join(text for classes, text in self.pieces if css_class in classes)


def classed(page: str) -> Classed:
    parser = Classed()
    parser.feed(page)
    return parser


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


async def test_an_edit_shows_its_diff_its_removed_and_added_lines_marked(tmp_path: Path) -> None:
    (tmp_path / "tax.py").write_text("def tax(x):\n    return x * 0.2\n", encoding="utf-8")
    tool = EditTool()
    params = tool.Params(path="tax.py", oldText="x * 0.2", newText="round(x * 0.2, 2)")
    output = await tool.run(params, ToolContext(cwd=tmp_path, signal=AbortSignal()))
    edited = {**result(3, "c1", "Successfully replaced text in tax.py.", "edit"), "details": output.details}
    messages = typed_messages([said("round the tax", 1), calls(2, call("c1", "edit", params.model_dump())),
                               edited, reply("done", 4)])
    page = classed(session_page("s", [], messages))
    assert page.of("diff-removed") == ["-    return x * 0.2"]
    assert page.of("diff-added") == ["+    return round(x * 0.2, 2)"]
    assert page.of("diff-context") == [" def tax(x):", " "] and page.of("diff-hunk") == ["@@ -1,3 +1,3 @@"]
    assert "edit tax.py · +1 −1" in page.within("result"), "the summary counts what changed"


def test_pis_numbered_diff_reads_the_same_and_a_failed_edit_shows_its_error() -> None:
    pis = {**result(3, "c1", "Successfully replaced text in a.ts.", "edit"),
           "details": {"diff": "     ...\n 516 \tkeep();\n-517 \told();\n+517 \tnew();\n     ..."}}
    failed = {**result(5, "c2", "Could not find the exact text in a.ts.", "edit"), "isError": True}
    messages = typed_messages([said("edit", 1), calls(2, call("c1", "edit", {"path": "a.ts"})), pis,
                               calls(4, call("c2", "edit", {"path": "a.ts"})), failed])
    page = classed(session_page("s", [], messages))
    assert page.of("diff-removed") == ["-517 \told();"] and page.of("diff-added") == ["+517 \tnew();"]
    assert "Could not find the exact text in a.ts." in page.within("result error")


def test_a_run_kept_out_of_the_context_is_marked_so_and_a_sent_one_is_not() -> None:
    sent = {"role": "bashExecution", "command": "git status", "output": "clean\n", "exitCode": 0,
            "cancelled": False, "truncated": False, "timestamp": 1}
    kept = {**sent, "command": "cat .env", "output": "SECRET=x\n", "exitCode": 1, "excludeFromContext": True,
            "timestamp": 2}
    page = classed(session_page("s", [], typed_messages([sent, kept])))
    assert page.of("role") == ["You ran", "You ran · not in context"]
    assert page.within("msg bash").startswith("You ran$ git status exit 0clean")
    assert page.within("msg bash unseen") == "You ran · not in context$ cat .env exit 1SECRET=x"
    assert page.of("error") == ["exit 1"], "a failed run's status shows as an error"


def test_the_page_shows_what_the_transcript_shows_and_leaves_out_what_it_hides() -> None:
    condensed = summary_message(7, [("c1", 3)], "- `t1` listed a.py")
    aborted = {"role": "assistant", "content": [{"type": "thinking", "thinking": "", "redacted": True}],
               "stopReason": "aborted", "errorMessage": "Request was aborted", "model": "m", "timestamp": 5}
    messages = typed_messages([
        said("go", 1), calls(2, call("c1", "bash", {"command": "ls"})), result(3, "c1", "a.py"),
        calls(4, call("c2", "read", {"path": "a.py"})), aborted,
        {"role": "custom", "customType": "extension-state", "content": "internal", "display": False, "timestamp": 6},
        {**condensed, "details": {**condensed["details"], "turnIndex": 0}},
        {"role": "compactionSummary", "summary": "## Goal\nfix it", "tokensBefore": 50000, "timestamp": 8},
    ])
    html = session_page("s", [], messages)
    page = classed(html)
    folds = page.within("msg summary")
    assert folds.startswith("[pruner] Turn 1 summary (1 tool)")
    assert "compaction: earlier conversation summarised (50000 tokens before)" in folds and "fix it" in folds
    assert html.count('<section class="msg summary"><details><summary>') == 2, "folded, as the transcript folds them"
    text = page.text()
    assert text.index("[pruner] Turn 1") < text.index("→ read"), "a summary stands beside the turn it covers"
    assert "internal" not in text and "extension-state" not in text, "a hidden custom message stays hidden"
    assert page.of("missing") == ["no result"] and page.of("thinking") == ["thinking (redacted)"]
    assert page.of("aborted") == ["Aborted"]
