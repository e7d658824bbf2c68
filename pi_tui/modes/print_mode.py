"""`pi-tui -p "task"`: prompts sent in turn, headless. Each reply goes to stdout once it is complete (a
reply that failed, was retried or was interrupted writes nothing there), tool activity to stderr.

What a model or a tool wrote reaches the terminal with its control characters escaped (a reply holding
`ESC]52` would set the clipboard): always on stderr, and on stdout unless `--raw` asks for the bytes.

Scripts rely on the exit code: 0 when the model finished its reply, 1 when the provider failed, 130
when the user interrupted, 143 and 129 when SIGTERM or SIGHUP (a closed terminal) ended the run, 3 when
the session could not be saved (a full disk, a read-only file), 2 when the task is a `/word` no command,
prompt template or skill answers to, or one of the TUI's own commands, which need its screens (nothing is
sent: the TUI would have asked first). The session is written either way, so `pi-tui show` can explain a
failure.

`/compact [focus]` is the one TUI command that runs here, as Pi's RPC mode runs it headless: the
session's model writes the `compaction` entry and one line on stderr says what it compacted.
"""

from __future__ import annotations

import json
import signal
import sys
from typing import TextIO

from condense.messages import AgentMessage, content_text
from condense.stats import format_tokens
from pi_tui.abort import AbortSignal
from pi_tui.agent.compaction import NothingToCompact
from pi_tui.agent.events import (
    AutoRetryStartEvent,
    MessageEndEvent,
    ToolExecutionEndEvent,
    ToolExecutionStartEvent,
)
from pi_tui.agent.host import AgentHost
from pi_tui.agent.slash_words import unknown_command
from pi_tui.ai.models import MissingKeyError
from pi_tui.demo.client import DemoModelClient
from pi_tui.errors import UserError
from pi_tui.terminal import visible_controls
from pi_tui.termination import ENDING, exit_status, leave_a_closed_terminal, listen, said

EXIT_OK, EXIT_FAILED, EXIT_UNKNOWN_COMMAND, EXIT_NOT_SAVED = 0, 1, 2, 3
DEMO_NEXT = 'Run pi-tui -p "next task" --continue here to play the next one (the demo works in {folder}).'
# The TUI's own commands (a test keeps this its registry's list, but /compact, which runs here)
INTERACTIVE = frozenset({"changelog", "copy", "exit", "export", "fork", "hotkeys", "model", "name", "new", "pruner",
                         "quit", "reload", "resume", "scoped-models", "session", "settings", "theme", "tree"})


class PrintRenderer:
    """Subscribes to the host's events and writes what a person at a terminal wants to see."""

    def __init__(self, out: TextIO, err: TextIO, raw: bool = False) -> None:
        self.out = out
        self.err = err
        self.raw = raw
        self._at_line_start = True
        self._wrote_text = False

    def attach(self, host: AgentHost) -> None:
        host.bus.on("message_end", self._on_message_end)
        host.bus.on("tool_execution_start", self._on_tool_start)
        host.bus.on("tool_execution_end", self._on_tool_end)
        host.bus.on("auto_retry_start", self._on_retry)

    def _write(self, text: str) -> None:
        self.out.write(text if self.raw else visible_controls(text))
        self.out.flush()
        if text:
            self._at_line_start = text.endswith("\n")

    def _on_message_end(self, event: MessageEndEvent) -> None:
        """A reply's text once it is whole: streamed, an attempt the loop retries would be printed again
        (and a failed one would leave half an answer where a script reads the answer)."""
        message = event["message"]
        if message["role"] != "assistant" or message.get("stopReason") in ("error", "aborted"):
            return
        text = content_text(message["content"])
        if not text:
            return
        if self._wrote_text:
            self._end_line()
            self._write("\n")
        self._write(text)
        self._wrote_text = True

    def _end_line(self) -> None:
        if not self._at_line_start:
            self._write("\n")

    def _on_tool_start(self, event: ToolExecutionStartEvent) -> None:
        self._end_line()
        args = json.dumps(event.get("args") or {}, ensure_ascii=False)
        _say(f"→ {event['toolName']} {args[:160]}", self.err)

    def _on_tool_end(self, event: ToolExecutionEndEvent) -> None:
        if event.get("isError"):
            content = event["result"]["content"]
            text = next((str(b.get("text", "")) for b in content if b.get("type") == "text"), "")
            last = text.strip().splitlines()[-1] if text.strip() else "error"
            _say(f"  ✗ {event['toolName']}: {last[:200]}", self.err)

    def _on_retry(self, event: AutoRetryStartEvent) -> None:
        seconds = event["delayMs"] / 1000
        note = f", {event['delayNote']}" if "delayNote" in event else ""
        _say(f"pi-tui: {event['errorMessage']} (retry {event['attempt']}/{event['maxAttempts']} in"
             f" {seconds:g}s{note})", self.err)

    def finish(self) -> None:
        self._end_line()


def _say(line: str, err: TextIO) -> None:
    """One line on stderr, for a person: whatever a model or a tool put in it is shown, never obeyed."""
    print(visible_controls(line), file=err, flush=True)


async def run_print(host: AgentHost, prompts: list[str], out: TextIO | None = None, err: TextIO | None = None,
                    raw: bool = False) -> int:
    """Each prompt once the one before it is answered, as Pi sends a run's messages; the first that fails
    ends the run. `raw`: the reply's bytes on stdout as the model wrote them (stderr is escaped all the same)."""
    # the streams are looked up now, not at import: a test harness or a redirect may have replaced them
    out = out or sys.stdout
    err = err or sys.stderr
    words = [unknown_command(text, host.command_names()) for text in prompts]
    if words == ["compact"]:
        return await run_compact(host, prompts[0].strip().removeprefix("/compact").strip(), err)
    refused = _refusal(next((word for word in words if word), None), len(prompts))
    if refused:
        _say(f"pi-tui: error: {refused}; nothing was sent", err)
        return EXIT_UNKNOWN_COMMAND
    for warning in host.session.warnings:  # lines of the continued session that could not be loaded
        _say(f"pi-tui: warning: {warning}", err)
    renderer = PrintRenderer(out, err, raw)
    renderer.attach(host)
    if isinstance(host.agent.client, DemoModelClient):  # "send any message" means nothing to `-p`
        host.agent.client.next_hint = DEMO_NEXT.format(folder=host.cwd)
    ended_by: list[int] = []

    def end(number: int) -> None:
        """Ctrl+C, SIGTERM or SIGHUP: stop the run as Esc does (the bash tool ends its processes)."""
        ended_by.append(number)
        if number == signal.SIGHUP:
            leave_a_closed_terminal()
        host.abort()

    stop_listening = listen((signal.SIGINT, *ENDING), end)
    await host.start("startup")
    last: AgentMessage | None = None
    try:
        for text in prompts:
            added = await host.prompt(text)
            last = next((m for m in reversed(added) if m.get("role") == "assistant"), None)
            if ended_by or (last is not None and last.get("stopReason") in ("error", "aborted")):
                break
    except MissingKeyError as exc:
        _say(f"pi-tui: error: {exc}", err)
        return EXIT_FAILED
    finally:
        renderer.finish()
        await host.shutdown()
        stop_listening()
    saved = host.session.write_error is None  # when not, the host has said once what is missing
    code = _outcome(last, saved, err, ended_by[0] if ended_by else signal.SIGINT)
    return code if saved else EXIT_NOT_SAVED


def _refusal(word: str | None, count: int) -> str | None:
    """Why a `/word` among the prompts cannot run here, or None when none is one."""
    if word is None:
        return None
    if word == "compact" and count > 1:
        return "/compact runs alone in print mode: give it as the only message"
    if word in INTERACTIVE:
        return f"/{word} is an interactive command: run pi-tui and type it there"
    return f"unknown command /{word}: no command, prompt template or skill has that name"


async def run_compact(host: AgentHost, focus: str, err: TextIO) -> int:
    """`-p "/compact [focus]"`: Pi's compaction of the session's branch, then one line saying what it did
    (Ctrl+C cancels it and leaves the session as it was)."""
    cancel = AbortSignal()
    stop_listening = listen((signal.SIGINT, *ENDING), lambda _: cancel.abort())
    await host.start("startup")
    try:
        expected = await host.compaction_outlook()
        if expected.grows:  # asked for all the same: said, then done
            _say(f"pi-tui: warning: /compact: compacting makes the next request bigger, not smaller "
                 f"({expected.describe()}; condense has pruned it already); compacting as asked", err)
        entry = await host.compact(focus, cancel)
        now = format_tokens(await host.next_request_tokens())
    except NothingToCompact as exc:  # the session is as compact as it gets: what was asked holds, no failure
        _say(f"pi-tui: /compact: {exc}; the session is left as it was", err)
        return EXIT_OK
    except UserError as exc:
        _say(f"pi-tui: error: /compact: {exc}", err)
        return EXIT_FAILED
    finally:
        await host.shutdown()
        stop_listening()
    before = format_tokens(int(entry.get("tokensBefore") or 0))
    _say(f"pi-tui: compacted {before} tokens of conversation into a summary; the session continues from it"
         f" (pi-tui show prints it); the next request is {now} tokens, was {format_tokens(expected.before)}", err)
    return EXIT_OK if host.session.write_error is None else EXIT_NOT_SAVED


def _outcome(last: AgentMessage | None, saved: bool, err: TextIO, ended_by: int) -> int:
    if last is None:
        return EXIT_OK
    reason = last.get("stopReason")
    if reason == "aborted":
        print(f"pi-tui: {said(ended_by)}" + ("; the session was saved" if saved else ""), file=err)
        return exit_status(ended_by)
    if reason == "error":
        _say(f"pi-tui: error: {last.get('errorMessage', 'the model request failed')}", err)
        return EXIT_FAILED
    return EXIT_OK
