"""A conversation as one self-contained HTML page (`/export`): readable in any browser, offline, forever.

Everything is in the file: the style inline, images as `data:` URIs, no script and no link to load
(Markdown images become plain links). Every text from the session is escaped; the replies' Markdown is
rendered with raw HTML turned off, so a message can never add markup of its own.
"""

from __future__ import annotations

import html
import json
from collections.abc import Iterator, Mapping, Sequence
from datetime import UTC, datetime
from typing import Any

from markdown_it import MarkdownIt

from condense.messages import AgentMessage, content_text
from condense.plural import counted
from pi_tui.conversation.call_subject import key_argument
from pi_tui.conversation.diff import diff_kind, diff_lines
from pi_tui.conversation.folds import fold_body, fold_label
from pi_tui.conversation.model import Call, Conversation, Item, ending_line, user_text

GENERATOR = "pi-tui session export"  # in every page: an earlier export may be replaced, another file never
OPEN_LINES = 20  # a tool output up to this long shows unfolded

STYLE = """
body { margin: 0 auto; max-width: 60rem; padding: 1.5rem; font: 15px/1.5 system-ui, sans-serif;
       color: #1f2328; background: #fff; }
@media (prefers-color-scheme: dark) { body { color: #e6edf3; background: #0d1117; }
  .msg { border-color: #30363d; } pre, code { background: #161b22; } .user { background: #10243e; } }
header dl { display: grid; grid-template-columns: max-content 1fr; gap: .1rem 1rem; font-size: 13px; }
header dt { opacity: .7; }
.msg { border: 1px solid #d0d7de; border-radius: 8px; padding: .5rem 1rem; margin: .8rem 0; }
.user { background: #ddf4ff; } .summary, .custom { border-style: dashed; } .summary > details > summary { opacity: .8; }
.role { font-size: 12px; font-weight: 600; opacity: .7; text-transform: uppercase; letter-spacing: .04em; }
pre { white-space: pre-wrap; word-break: break-word; padding: .5rem; border-radius: 6px; background: #f6f8fa;
      font: 13px/1.4 ui-monospace, monospace; }
code { font: 13px ui-monospace, monospace; }
.call { margin: .4rem 0; font-family: ui-monospace, monospace; font-size: 13px; }
.error { color: #cf222e; } .aborted { color: #9a6700; } .missing, .thinking { opacity: .7; }
details > summary { cursor: pointer; } .result { margin: .2rem 0 .5rem 1rem; font-family: system-ui, sans-serif; }
.unseen { opacity: .75; border-style: dotted; } .unseen .role { font-style: italic; }
pre { tab-size: 4; } .diff-added { color: #1a7f37; } .diff-removed { color: #cf222e; }
.diff-hunk { color: #8250df; } .diff-context { opacity: .75; }
img { max-width: 100%; }
"""


def _markdown() -> MarkdownIt:
    """CommonMark and tables, raw HTML escaped, images as links (a page must load nothing)."""
    return MarkdownIt("commonmark", {"html": False}).enable("table").disable("image")


def _e(text: object) -> str:
    return html.escape(str(text), quote=True)


def _pre(text: str) -> str:
    return f"<pre>{_e(text)}</pre>"


def _images(content: Any) -> Iterator[str]:
    for block in content if isinstance(content, list) else []:
        mime = str(block.get("mimeType", ""))
        if block.get("type") == "image" and mime.startswith("image/") and isinstance(block.get("data"), str):
            yield f'<img alt="image" src="data:{_e(mime)};base64,{_e(block["data"])}">'


class _Page:
    """The blocks of one page, one per item the transcript shows (pi_tui/conversation/model.py): each call
    with its result under it, condense's summaries beside the turns they cover, hidden messages left out."""

    def __init__(self) -> None:
        self.markdown = _markdown()

    def block(self, item: Item) -> str:
        message = item.message
        if item.kind == "user":
            body = _pre(user_text(message)) + "".join(_images(message.get("content")))
            return _section("user", "You", body)
        if item.kind == "assistant":
            return self.assistant(item)
        if item.kind == "result":  # a result whose call the branch does not hold
            return _section("orphan", "Tool output", _result(str(message.get("toolName", "tool")), message))
        if item.kind == "bash":
            return _bash(message)
        if item.kind == "custom":
            body = self.markdown.render(user_text(message))
            return _section("custom", str(message.get("customType") or "custom"), body)
        if item.kind in ("summary", "compaction", "branch"):  # folded, as the transcript folds them
            body = self.markdown.render(fold_body(item))
            return f'<section class="msg summary"><details><summary>{_e(fold_label(item))}</summary>{body}' \
                   "</details></section>\n"
        return ""

    def assistant(self, item: Item) -> str:
        parts = []
        for block in item.message.get("content") or []:
            kind = block.get("type")
            if kind == "thinking" and block.get("redacted"):
                parts.append('<p class="thinking">thinking (redacted)</p>')
            elif kind == "thinking" and str(block.get("thinking", "")).strip():
                parts.append(f"<details><summary>thinking</summary>{_pre(block['thinking'])}</details>")
            elif kind == "text" and str(block.get("text", "")).strip():
                parts.append(self.markdown.render(block["text"]))
            elif kind == "toolCall" and (call := item.calls.get(str(block.get("id", "")))) is not None:
                parts.append(_call(call))
        ending = ending_line(item.message)
        if ending is not None:
            parts.append(f'<p class="{ending[1]}">{_e(ending[0])}</p>')
        label = f"Assistant · {item.message.get('model', '?')}"
        return _section("assistant", label, "".join(parts))


def _call(call: Call) -> str:
    """A call as its card shows it: name and subject, then its arguments folded, then its result."""
    subject = key_argument(call.name, call.args)
    arguments = _pre(json.dumps(call.args, ensure_ascii=False, indent=2))
    outcome = _result(f"{call.name} {subject}", call.result) if call.result is not None \
        else '<p class="missing">no result</p>'
    return (f'<div class="call">→ {_e(call.name)} <code>{_e(subject)}</code>'
            f"<details><summary>arguments</summary>{arguments}</details>{outcome}</div>")


def _result(title: str, message: Mapping[str, Any]) -> str:
    """A tool's output, open when short; an `edit`'s diff, always open, as the transcript's card shows it."""
    text = content_text(message.get("content") or "")
    failed = bool(message.get("isError"))
    diff = _diff(message) if not failed else []
    if diff:
        kinds = [diff_kind(line) for line in diff]
        count = f"+{kinds.count('added')} −{kinds.count('removed')}"
        body, opened = _diff_pre(diff), " open"
    else:
        lines = len(text.splitlines())
        count = counted(lines, "line")
        body = _pre(text) + "".join(_images(message.get("content")))
        opened = " open" if lines <= OPEN_LINES else ""
    summary = f"<summary>{_e(title)} · {count}{' · failed' if failed else ''}</summary>"
    kind = "result error" if failed else "result"
    return f'<details class="{kind}"{opened}>{summary}{body}</details>'


def _diff(message: Mapping[str, Any]) -> list[str]:
    """The lines of the diff an `edit` result carries in its details (Pi's and pi-tui's); none for others."""
    details = message.get("details")
    diff = details.get("diff") if isinstance(details, Mapping) else None
    return diff_lines(diff) if isinstance(diff, str) and diff.strip() else []


def _diff_pre(lines: list[str]) -> str:
    spans = "\n".join(f'<span class="diff-{diff_kind(line)}">{_e(line)}</span>' for line in lines)
    return f'<pre class="diff">{spans}</pre>'


def _bash(message: Mapping[str, Any]) -> str:
    """A user's `!` run as the transcript shows it: the command, how it ended, its output; a `!!` run,
    whose output the model never saw, is marked so (the transcript's words: not in context)."""
    code = message.get("exitCode")
    status = "cancelled" if message.get("cancelled") else f"exit {code}" if code is not None else ""
    ended = f" {_e(status)}" if code == 0 else f' <span class="error">{_e(status)}</span>' if status else ""
    output = str(message.get("output") or "").rstrip("\n")
    if message.get("truncated") and message.get("fullOutputPath"):
        output += f"\n[output truncated; full output: {message['fullOutputPath']}]"
    body = f'<div class="call">$ <code>{_e(message.get("command", ""))}</code>{ended}</div>'
    body += _pre(output) if output else ""
    if message.get("excludeFromContext"):
        return _section("bash unseen", "You ran · not in context", body)
    return _section("bash", "You ran", body)


def _section(kind: str, label: str, body: str) -> str:
    return f'<section class="msg {kind}"><div class="role">{_e(label)}</div>{body}</section>\n'


def session_page(title: str, facts: Sequence[tuple[str, str]], messages: Sequence[AgentMessage]) -> str:
    """The page: a heading, the session's facts (file, folder, model, ...), then what the transcript shows."""
    page = _Page()
    blocks = "".join(page.block(item) for item in Conversation.from_messages(messages).items)
    rows = "".join(f"<dt>{_e(name)}</dt><dd>{_e(value)}</dd>" for name, value in facts)
    exported = datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC")
    return (f'<!doctype html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n'
            f'<meta name="generator" content="{GENERATOR}">\n'
            f'<meta name="viewport" content="width=device-width, initial-scale=1">\n'
            f"<title>{_e(title)}</title>\n<style>{STYLE}</style>\n</head>\n<body>\n"
            f"<header><h1>{_e(title)}</h1><dl>{rows}<dt>exported</dt><dd>{exported}</dd></dl></header>\n"
            f"<main>\n{blocks}</main>\n</body>\n</html>\n")
