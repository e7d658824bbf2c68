"""Codex rollouts (`~/.codex/sessions/YYYY/MM/DD/rollout-<ts>-<uuid>.jsonl`) read as Pi sessions.

Read from openai/codex's source (docs/WHATIF.md names the files and commits). Each line is
`{timestamp, type, payload}`: `session_meta` first, then `response_item` (what the model was sent or
wrote, in the Responses API's shape), `turn_context` (the model of the requests that follow),
`event_msg` (what the UI was told, among it each response's `token_count`) and `compacted` (the history
Codex put in place of the old one). The messages are the ones `codex resume` rebuilds and sends, since
the judge prices what the model read:

- user and developer messages become Pi user messages, Codex's injected context included (AGENTS.md
  instructions, `<environment_context>`, permissions): Codex sends them with every request;
- what one response wrote (reasoning, messages, calls) is one Pi assistant message: a reasoning item's
  summary is its thinking (the encrypted reasoning Codex sends back is not readable); `function_call`,
  `custom_tool_call` and `local_shell_call` are its tool calls; `function_call_output` and
  `custom_tool_call_output` the tool results that follow it;
- the response's `token_count` is its usage (`last_token_usage`; OpenAI counts cached tokens inside
  the input, Pi apart). Codex wrote the count after the response's items, older versions before them
  (and a response's calls and outputs interleaved); both orders give each reply its own count;
- a `compacted` item becomes a Pi compaction that keeps nothing before it and whose summary is all Codex
  sent in place of the history: its replacement history, or the history Codex rebuilds from the summary
  (the session's injected context, the newest user messages up to 20,000 tokens, the summary);
- `thread_rolled_back` undoes the newest user turns as Codex does: what follows starts a new branch.

The model is the `turn_context`'s (e.g. `gpt-5-codex`), which litellm's map prices under that name.
The result lives in memory only: pi-tui never writes to a rollout.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from condense.messages import empty_usage, model_parts
from condense.timefmt import iso_to_ms
from pi_tui.session.foreign import (
    EntryChain,
    ForeignSession,
    Record,
    header,
    parse,
    read_records,
    starts_like,
    stop_reason,
    usage,
)
from pi_tui.session.store import SessionError

KIND, HOME = "Codex rollout", "Codex (`codex resume`)"
API = "openai-responses"
CALLS = ("function_call", "custom_tool_call", "local_shell_call")
OUTPUTS = ("function_call_output", "custom_tool_call_output")
TEXTS = ("input_text", "output_text", "text")
# user messages Codex injects (codex-rs/core: contextual user fragments), never a user's turn
CONTEXT_PREFIXES = ("<user_instructions>", "# agents.md instructions", "<environment_context>", "<skill>",
                    "<user_shell_command>", "<turn_aborted>", "<subagent_notification>")
SUMMARY_PREFIX = "Another language model started to solve this problem"  # templates/compact/summary_prefix.md
USER_MESSAGE_TOKENS = 20_000  # compact.rs: the user messages a rebuilt history keeps
_EXIT_LINE = re.compile(r"Exit code: (-?\d+)")


def _verdict(record: Record) -> bool:
    """A rollout's first line is its `session_meta`."""
    return record.get("type") == "session_meta" and isinstance(record.get("payload"), dict)


def is_codex_rollout(path: str | os.PathLike[str]) -> bool:
    """Does the file start like a Codex rollout? Reads only its first lines."""
    return starts_like(path, _verdict)


def open_codex(path: str | os.PathLike[str]) -> ForeignSession:
    """The history Codex would resume as an in-memory Pi session; broken lines become warnings."""
    file = Path(path)
    lines, warnings = read_records(file)
    meta: Mapping[str, Any] = next((r["payload"] for _, r in lines if _verdict(r)), {})
    reader = _Reader(str(meta.get("model_provider") or "openai"))
    for _, record in lines:
        reader.read(record)
    reader.end_reply()
    if not any(entry["type"] == "message" for entry in reader.chain.entries):
        raise SessionError(f"{file}: a Codex rollout with no messages")
    session = ForeignSession(header(str(meta.get("id") or file.stem), str(meta.get("timestamp") or ""),
                                    str(meta.get("cwd") or "")), reader.chain, file, KIND, HOME)
    session.warnings = warnings
    return session


class _Reader:
    """One pass over a rollout's lines in file order, building the entries of the history Codex sends."""

    def __init__(self, provider: str) -> None:
        self.chain = EntryChain("cx")
        self.provider = provider
        self.model = ""
        self.names: dict[str, str] = {}  # call id -> tool name, for the results
        self.reply: dict[str, Any] | None = None  # the response being read, not in the chain yet
        self.results: list[dict[str, Any]] = []  # its tool results so far, which follow it in the chain
        self.pending: dict[str, Any] | None = None  # a count read before the items of its response
        self.counted: Any = None  # the session total of the newest count: a repeated count is no response
        self.context_tokens = 0
        self.initial: list[str] = []  # the context Codex injected before the first user message
        self.user_texts: list[str] = []  # the user messages Codex's history holds, for a compaction
        self.started = False  # a user turn has been read
        self.turns: list[str | None] = []  # where each user turn since the last compaction starts
        self.quiet_from: str | None = None  # the leaf before the injected context a turn may start with

    def read(self, record: Record) -> None:
        payload, kind = record.get("payload"), record.get("type")
        if not isinstance(payload, dict):
            return
        ms = iso_to_ms(record.get("timestamp"))
        if kind == "response_item":
            self.item(payload, ms)
        elif kind == "turn_context":
            self.end_reply()
            self.pending = None
            self.model = str(payload.get("model") or self.model)
        elif kind == "event_msg" and payload.get("type") == "token_count":
            self.count(payload.get("info"))
        elif kind == "event_msg" and payload.get("type") == "thread_rolled_back":
            self.roll_back(payload.get("num_turns"))
        elif kind == "compacted":
            self.compacted(payload, ms)

    # ----- response items ---------------------------------------------------------------------------

    def item(self, payload: Mapping[str, Any], ms: int) -> None:
        kind, role = payload.get("type"), payload.get("role")
        if kind == "message" and role in ("user", "developer"):
            self.user(payload, ms)
        elif kind == "message" and role == "assistant" and (blocks := _blocks(payload.get("content"))):
            self.reply_at(ms)["content"].extend(blocks)
        elif kind == "reasoning" and (thinking := _reasoning(payload)):
            self.reply_at(ms)["content"].append({"type": "thinking", "thinking": thinking})
        elif kind in CALLS:
            call = _tool_call(payload)
            self.names[call["id"]] = call["name"]
            self.reply_at(ms)["content"].append(call)
        elif kind in OUTPUTS:
            result = _tool_result(payload, self.names, ms)
            if self.reply is not None:
                self.results.append(result)
            else:
                self.add(result)

    def user(self, payload: Mapping[str, Any], ms: int) -> None:
        self.end_reply()
        self.pending = None
        blocks = _blocks(payload.get("content"))
        if not blocks:
            return
        text = "\n".join(block["text"] for block in blocks if block["type"] == "text")
        message = {"role": "user", "content": blocks, "timestamp": ms}
        if payload.get("role") == "developer" or _is_context(blocks):
            if not self.started:
                self.initial.append(text)
            self.chain.add_message(message)
            return
        self.turns.append(self.quiet_from if self.started else self.chain.leaf)
        self.started = True
        if not text.startswith(SUMMARY_PREFIX):
            self.user_texts.append(text)
        self.add(message)

    def reply_at(self, ms: int) -> dict[str, Any]:
        """The reply the response being read writes into, begun at `ms` with the count read before it."""
        if self.reply is None:
            self.reply = {"role": "assistant", "content": [], "api": API, "provider": self.provider,
                          "model": self.model, "usage": self.pending or empty_usage(), "stopReason": "stop",
                          "timestamp": ms}
            self.pending = None
        return self.reply

    def end_reply(self) -> None:
        """The response is over: its reply goes into the chain, then its tool results."""
        if self.reply is None:
            return
        reply, self.reply = self.reply, None
        reply["stopReason"] = stop_reason(reply["content"])
        self.add(reply)
        for result in self.results:
            self.add(result)
        self.results = []

    def add(self, message: dict[str, Any]) -> None:
        self.chain.add_message(message)
        self.quiet_from = self.chain.leaf

    # ----- events -----------------------------------------------------------------------------------

    def count(self, info: Any) -> None:
        """A response's usage: the reply read so far if it has none, else (the older order) the next."""
        if not isinstance(info, dict) or not isinstance(info.get("last_token_usage"), dict):
            return
        total = info.get("total_token_usage")
        if total is not None and total == self.counted:
            return
        self.counted = total
        counted = _usage(info["last_token_usage"])
        self.context_tokens = counted["totalTokens"]
        if self.reply is not None and not self.reply["usage"]["totalTokens"]:
            self.reply["usage"] = counted
            self.end_reply()
            return
        self.end_reply()
        self.pending = counted

    def roll_back(self, turns: Any) -> None:
        """Codex drops the newest `turns` user turns; the next entry hangs from before them."""
        if not isinstance(turns, int) or turns <= 0:
            return
        self.end_reply()
        self.pending = None
        del self.user_texts[max(0, len(self.user_texts) - turns):]
        if not self.turns:
            return  # the turns are inside the newest compaction's summary
        cut = max(0, len(self.turns) - turns)
        self.chain.rewind(self.turns[cut])
        self.quiet_from = self.chain.leaf
        del self.turns[cut:]

    def compacted(self, payload: Mapping[str, Any], ms: int) -> None:
        """A compaction whose summary is everything Codex sent instead of the history before it (the
        summarising request's own count is no reply's)."""
        self.end_reply()
        self.pending = None
        replacement = payload.get("replacement_history")
        texts = self.replaced(replacement, ms) if isinstance(replacement, list) \
            else self.rebuilt(str(payload.get("message") or ""))
        summary = "\n\n".join(text for text in texts if text)
        self.chain.add("compaction", ms, summary=summary, firstKeptEntryId=self.chain.next_id(),
                       tokensBefore=self.context_tokens)
        self.quiet_from = self.chain.leaf
        self.turns = []

    def replaced(self, items: list[Any], ms: int) -> list[str]:
        """What the model reads of a replacement history (an encrypted summary in it is not readable)."""
        inner = _Reader(self.provider)
        for item in items:
            if isinstance(item, dict):
                inner.item(item, ms)
        inner.end_reply()
        self.user_texts = inner.user_texts
        return [part.text for entry in inner.chain.entries for part in model_parts(entry["message"])]

    def rebuilt(self, summary: str) -> list[str]:
        """The history Codex builds from a summary: its injected context, the newest user messages, then
        the summary."""
        self.user_texts = _newest_within(self.user_texts, USER_MESSAGE_TOKENS)
        return [*self.initial, *self.user_texts, summary or "(no summary available)"]


def _blocks(content: Any) -> list[dict[str, Any]]:
    """Pi content blocks of a message's or an output's content items: texts and inline images."""
    blocks: list[dict[str, Any]] = []
    for item in content if isinstance(content, list) else []:
        kind = item.get("type") if isinstance(item, dict) else None
        if kind in TEXTS:
            blocks.append({"type": "text", "text": str(item.get("text") or "")})
        elif kind == "input_image" and (image := _image(item.get("image_url"))) is not None:
            blocks.append(image)
    return blocks


def _image(url: Any) -> dict[str, Any] | None:
    """An image given as a data URL; one given by address is not in the file."""
    if not isinstance(url, str) or not url.startswith("data:"):
        return None
    head, _, data = url.partition(",")
    return {"type": "image", "data": data, "mimeType": head[5:].split(";")[0] or "image/png"}


def _is_context(blocks: list[dict[str, Any]]) -> bool:
    return any(block["type"] == "text" and block["text"].lstrip().lower().startswith(CONTEXT_PREFIXES)
               for block in blocks)


def _reasoning(payload: Mapping[str, Any]) -> str:
    """A reasoning item's readable text: its summary, or the raw reasoning an open model shows."""
    for key in ("summary", "content"):
        parts = payload.get(key)
        texts = [str(p.get("text") or "") for p in parts if isinstance(p, dict)] if isinstance(parts, list) else []
        if any(texts):
            return "\n\n".join(text for text in texts if text)
    return ""


def _tool_call(payload: Mapping[str, Any]) -> dict[str, Any]:
    """A Pi tool call; arguments that are no JSON object (a freeform tool's input) are kept as `input`."""
    if payload.get("type") == "local_shell_call":
        action = payload.get("action")
        arguments = {k: v for k, v in action.items() if k != "type" and v is not None} \
            if isinstance(action, dict) else {}
        return {"type": "toolCall", "id": str(payload.get("call_id") or payload.get("id") or ""),
                "name": "local_shell", "arguments": arguments}
    raw = payload.get("input") if payload.get("type") == "custom_tool_call" else payload.get("arguments")
    parsed = parse(raw) if payload.get("type") == "function_call" and isinstance(raw, str) else None
    return {"type": "toolCall", "id": str(payload.get("call_id") or ""), "name": str(payload.get("name") or ""),
            "arguments": parsed if parsed is not None else {"input": str(raw or "")}}


def _tool_result(payload: Mapping[str, Any], names: Mapping[str, str], ms: int) -> dict[str, Any]:
    call_id = str(payload.get("call_id") or "")
    content, failed = _output(payload.get("output"))
    return {"role": "toolResult", "toolCallId": call_id, "toolName": names.get(call_id, ""), "content": content,
            "isError": failed, "timestamp": ms}


def _output(output: Any) -> tuple[list[dict[str, Any]], bool]:
    """What the model read of a call's output, and whether the call failed. The output is a string (a
    shell's JSON kept as the model read it), content items, or (older Codex) `{content, success}`."""
    if isinstance(output, dict):
        blocks, failed = _output(output.get("content_items") or output.get("content"))
        return blocks, failed or output.get("success") is False
    if isinstance(output, list):
        return _blocks(output) or [{"type": "text", "text": ""}], False
    text = output if isinstance(output, str) else ""
    return [{"type": "text", "text": text}], _exit_failed(text)


def _exit_failed(text: str) -> bool:
    """A shell output says its exit code: as JSON `metadata.exit_code` (older Codex) or a first line
    `Exit code: N`; anything else is taken as a success."""
    value = parse(text) if text.startswith("{") else None
    metadata = value.get("metadata") if value is not None else None
    if isinstance(metadata, dict):
        code = metadata.get("exit_code")
        return isinstance(code, int) and code != 0
    match = _EXIT_LINE.match(text)
    return match is not None and int(match.group(1)) != 0


def _usage(last: Mapping[str, Any]) -> dict[str, Any]:
    """Pi's usage of a response's `last_token_usage`, whose input tokens include the cached ones."""
    counts = [last.get(key) for key in ("input_tokens", "cached_input_tokens", "output_tokens")]
    prompt, cached, output = (count if isinstance(count, int) and count > 0 else 0 for count in counts)
    cached = min(cached, prompt)
    return usage(prompt - cached, output, cached, 0)


def _tokens(text: str) -> int:
    """Codex's estimate: four bytes a token."""
    return (len(text.encode()) + 3) // 4


def _newest_within(texts: list[str], budget: int) -> list[str]:
    """The newest texts that fit `budget` tokens, the first that does not fit cut in the middle to what is
    left, in their order (as compact.rs keeps user messages; its cut marker is approximated)."""
    kept: list[str] = []
    left = budget
    for text in reversed(texts):
        if left <= 0:
            break
        tokens = _tokens(text)
        if tokens > left:
            half = left * 2  # characters, at four a token, on each side
            kept.append(f"{text[:half]}…{tokens - left} tokens truncated…{text[-half:]}")
            break
        kept.append(text)
        left -= tokens
    return kept[::-1]
