"""Fixtures for the tests that drive the TUI (in tui/, widgets/, screens/, commands/ and beside the
headless modules whose effect they check on screen): an app on the offline demo model, a hand-written
session, no blinking. What a test drives the app with (send, wait, read the screen) is tests/support/tui.py.

`make_app` builds the real runtime (real session file, real condense engine, real tools) with the demo
model at full speed, so a Pilot test drives exactly what a user runs. Paths and times that would make
screens differ from run to run are fixed: the footer shows `~/project`, the clock is a counter.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from textual.widgets import Input, TextArea

from pi_tui.demo.client import DemoModelClient
from pi_tui.runtime.build import LaunchOptions, build_runtime
from pi_tui.settings import LiveSettings, Settings, load_settings
from pi_tui.tui.app import PiApp, TuiBridge
from tests.support.tui import change_field, screen_text, settle, type_and_send, type_raw, until

SESSION_ID = "5e55a0d1-0000-4000-8000-000000000001"


class FakeClock:
    """Advances by a fixed step on every reading: elapsed times are the same on every run."""

    def __init__(self, step: float = 0.25) -> None:
        self.now = 100.0
        self.step = step

    def __call__(self) -> float:
        self.now += self.step
        return self.now


@pytest.fixture(autouse=True)
def no_blink(monkeypatch: pytest.MonkeyPatch) -> None:
    """Cursors that blink make screens differ by the millisecond."""
    monkeypatch.setattr(TextArea, "_toggle_cursor_blink_visible", lambda self: None)
    monkeypatch.setattr(Input, "_toggle_cursor", lambda self: None)


AppFactory = Callable[..., PiApp]


@pytest.fixture
def make_app(tmp_path: Path) -> Iterator[AppFactory]:
    def factory(*, session: Path | None = None, model: str | None = "demo", settings: Settings | None = None,
                launch_dir: Path | None = None, delay: float = 0, clock_step: float = 0.25,
                **kwargs: Any) -> PiApp:
        live = LiveSettings(settings or load_settings().settings)
        bridge = TuiBridge()
        client = DemoModelClient(delay=delay)
        options = LaunchOptions(model=model, session=str(session) if session else None,
                                launch_dir=launch_dir or tmp_path / "launch")
        options.launch_dir.mkdir(parents=True, exist_ok=True)
        runtime = build_runtime(options, live, ui=bridge, client=client)
        kwargs.setdefault("watch", False)
        kwargs.setdefault("cwd_display", "~/project")
        kwargs.setdefault("clock", FakeClock(clock_step))
        app = PiApp(runtime, live, bridge, options, client=client, **kwargs)
        app.animation_level = "none"
        return app

    yield factory


# ----- a small, fixed session -------------------------------------------------------------------


def _usage(inp: int, out: int, read: int = 0, write: int = 0, cost: float = 0.0) -> dict[str, Any]:
    return {"input": inp, "output": out, "cacheRead": read, "cacheWrite": write,
            "totalTokens": inp + out + read + write,
            "cost": {"input": 0.0, "output": 0.0, "cacheRead": 0.0, "cacheWrite": 0.0, "total": cost}}


def _assistant(content: list[dict[str, Any]], ts: int, stop: str, usage: dict[str, Any]) -> dict[str, Any]:
    return {"role": "assistant", "content": content, "api": "demo", "provider": "demo", "model": "demo",
            "usage": usage, "stopReason": stop, "timestamp": ts}


def _result(call_id: str, name: str, text: str, ts: int, error: bool = False,
            details: dict[str, Any] | None = None) -> dict[str, Any]:
    message = {"role": "toolResult", "toolCallId": call_id, "toolName": name,
               "content": [{"type": "text", "text": text}], "isError": error, "timestamp": ts}
    if details:
        message["details"] = details
    return message


PRICING = "\n".join(f"line {n}: total = subtotal - discount + tax" for n in range(1, 41))
FAILURE = "F.............\nFAIL: test_tax_is_charged_after_the_discount\nAssertionError: 120.00 != 114.00"
DIFF = ("--- invoicer/pricing.py\n+++ invoicer/pricing.py\n@@ -41,3 +41,3 @@\n"
        "     discount = bulk_discount(s)\n"
        "-    tax = round_money(subtotal * rate)\n+    tax = round_money((subtotal - discount) * rate)\n"
        "     return Totals(subtotal, discount, tax)")
SUMMARY_TEXT = ("- `t1` bash python3 -m unittest: failed; one test expects 114.00 tax and gets 120.00\n"
                "- `t2` read invoicer/pricing.py: tax is computed before the discount\n"
                "- `t3` edit invoicer/pricing.py: tax now after the discount\n\n---\n"
                "**Summarized tool refs**: `t1`, `t2`, `t3`\n"
                "Use `context_tree_query` with these refs to retrieve the original full outputs.")


def session_messages() -> list[dict[str, Any]]:
    bash = {"type": "toolCall", "id": "call_1", "name": "bash",
            "arguments": {"command": "python3 -m unittest"}}
    read = {"type": "toolCall", "id": "call_2", "name": "read", "arguments": {"path": "invoicer/pricing.py"}}
    edit = {"type": "toolCall", "id": "call_3", "name": "edit",
            "arguments": {"path": "invoicer/pricing.py", "oldText": "tax = a", "newText": "tax = b"}}
    reply = ("Fixed: **tax** is now charged after the discount.\n\n```python\n"
             "tax = round_money((subtotal - discount) * rate)\n```\n\nAll 14 tests pass.")
    return [
        {"role": "user", "content": [{"type": "text", "text": "Fix the failing test"}], "timestamp": 1_000},
        _assistant([{"type": "thinking", "thinking": "The tax test fails; run the suite first."},
                    {"type": "text", "text": "Running the tests and reading the pricing code."}, bash, read],
                   2_000, "toolUse", _usage(1_200, 80, 300, 50, 0.0123)),
        _result("call_1", "bash", FAILURE + "\n\nCommand exited with code 1", 3_000, error=True),
        _result("call_2", "read", PRICING, 3_001),
        _assistant([{"type": "text", "text": "Charging tax after the discount:"}, edit], 4_000, "toolUse",
                   _usage(2_400, 60, 1_500, 0, 0.0081)),
        _result("call_3", "edit", "Successfully replaced text in invoicer/pricing.py.", 5_000,
                details={"diff": DIFF, "firstChangedLine": 42}),
        _assistant([{"type": "text", "text": reply}], 6_000, "stop", _usage(2_600, 40, 3_000, 0, 0.0042)),
    ]


def _record(call_id: str, name: str, args: dict[str, Any], text: str, error: bool, ts: int) -> dict[str, Any]:
    return {"toolCallId": call_id, "toolName": name, "args": args, "resultText": text, "isError": error,
            "turnIndex": 0, "timestamp": 2_000, "resultTimestamp": ts}


def session_entries(cwd: Path, pruned: bool = True) -> list[dict[str, Any]]:
    entries: list[dict[str, Any]] = [
        {"type": "model_change", "provider": "demo", "modelId": "demo"},
        {"type": "thinking_level_change", "thinkingLevel": "off"},
        *({"type": "message", "message": message} for message in session_messages()),
    ]
    if pruned:
        refs = [{"shortId": f"t{n}", "toolCallId": f"call_{n}", "resultTimestamp": ts}
                for n, ts in ((1, 3_000), (2, 3_001), (3, 5_000))]
        details = {"toolCallRefs": refs, "toolNames": ["bash", "read", "edit"], "turnIndex": 0,
                   "timestamp": 2_000}
        entries.append({"type": "custom_message", "customType": "context-prune-summary",
                        "content": SUMMARY_TEXT, "display": False, "details": details})
        entries.append({"type": "custom", "customType": "context-prune-index", "data": {"toolCalls": [
            _record("call_1", "bash", {"command": "python3 -m unittest"}, FAILURE, True, 3_000),
            _record("call_2", "read", {"path": "invoicer/pricing.py"}, PRICING, False, 3_001),
            _record("call_3", "edit", {"path": "invoicer/pricing.py"}, "Successfully replaced text.", False,
                    5_000),
        ]}})
    header = {"type": "session", "version": 3, "id": SESSION_ID, "timestamp": "2026-01-02T03:04:05.000Z",
              "cwd": str(cwd)}
    out = [header]
    parent = None
    for number, entry in enumerate(entries, start=1):
        entry_id = f"{number:08x}"
        out.append({**entry, "id": entry_id, "parentId": parent, "timestamp": "2026-01-02T03:04:05.000Z"})
        parent = entry_id
    return out


@pytest.fixture
def fixed_session(tmp_path: Path) -> Callable[..., Path]:
    """Write the fixed session (with condense's summary and index entries, unless pruned=False)."""

    def write(pruned: bool = True, name: str = "fixed.jsonl") -> Path:
        project = tmp_path / "project"
        project.mkdir(exist_ok=True)
        path = tmp_path / "sessions" / name
        path.parent.mkdir(parents=True, exist_ok=True)
        lines = [json.dumps(entry) for entry in session_entries(project, pruned)]
        path.write_text("\n".join(lines) + "\n", encoding="utf-8")
        return path

    return write


@pytest.fixture
def change() -> Callable[..., Any]:
    return change_field


@pytest.fixture
def send() -> Callable[..., Any]:
    return type_and_send


@pytest.fixture
def wait() -> Callable[[Any], Any]:
    return settle


@pytest.fixture
def wait_for() -> Callable[..., Any]:
    return until


@pytest.fixture
def shown() -> Callable[[Any], str]:
    return screen_text


@pytest.fixture
def raw() -> Callable[[Any, str], None]:
    return type_raw
