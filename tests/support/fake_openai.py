"""A local OpenAI-compatible chat-completions server for tests.

Tests must reach litellm's real HTTP path (request building, SSE parsing, error mapping) without a
network or an API key, so this server speaks `POST /v1/chat/completions` on 127.0.0.1 and replays
replies the test scripted. It validates every request the way a real provider does (a tool result
without its call, a call without its result, a malformed body all get a 400 with OpenAI's error
shape), because the bugs worth catching are exactly the requests a provider would refuse.

Streaming uses HTTP/1.1 chunked encoding like real providers, so a connection dropped mid-stream is
a protocol error on the client side rather than a quietly short body.
"""

from __future__ import annotations

import json
import select
import socket
import threading
import time
from collections import deque
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

CREATED = 1_700_000_000
INVALID_CHUNK = '{"id": "chatcmpl-broken", "choices": [{"delta": {"content": "oops'
DONE = "[DONE]"


@dataclass
class ScriptedCall:
    """One tool call the fake model makes. `arguments` is raw text so tests can script invalid JSON."""

    name: str
    arguments: str = "{}"
    id: str = ""


@dataclass
class Reply:
    """One scripted response. A non-200 `status` answers with `error` as the JSON body instead.

    Faults, counted in SSE events (the role chunk is event 0, `[DONE]` the last): `cut_after` closes
    the connection before that event, `stall_after` stops sending before it until the client leaves
    (or the server's stall timeout), `invalid_json_at` sends broken JSON in place of that event, and
    `delay` sleeps before every event.
    """

    text: str = ""
    reasoning: str = ""
    tool_calls: list[ScriptedCall] = field(default_factory=list)
    finish_reason: str | None = None
    usage: dict[str, Any] | None = None
    chunk_size: int = 4
    status: int = 200
    error: dict[str, Any] | None = None
    headers: dict[str, str] = field(default_factory=dict)
    cut_after: int | None = None
    stall_after: int | None = None
    invalid_json_at: int | None = None
    delay: float = 0.0


def error_body(message: str, kind: str, *, param: str | None = None, code: str | None = None) -> dict[str, Any]:
    """OpenAI's error JSON."""
    return {"error": {"message": message, "type": kind, "param": param, "code": code}}


def usage(prompt: int, completion: int, *, cached: int = 0, reasoning: int = 0) -> dict[str, Any]:
    """OpenAI's usage object; `prompt` includes the `cached` tokens, as OpenAI reports it."""
    return {
        "prompt_tokens": prompt,
        "completion_tokens": completion,
        "total_tokens": prompt + completion,
        "prompt_tokens_details": {"cached_tokens": cached},
        "completion_tokens_details": {"reasoning_tokens": reasoning},
    }


def text_reply(text: str, **options: Any) -> Reply:
    return Reply(text=text, **options)


def call(name: str, arguments: dict[str, Any] | str, call_id: str = "") -> ScriptedCall:
    raw = arguments if isinstance(arguments, str) else json.dumps(arguments)
    return ScriptedCall(name=name, arguments=raw, id=call_id)


def tool_reply(*calls: ScriptedCall, **options: Any) -> Reply:
    return Reply(tool_calls=list(calls), **options)


def error_reply(status: int, message: str, *, kind: str, code: str | None = None, **options: Any) -> Reply:
    return Reply(status=status, error=error_body(message, kind, code=code), **options)


def rate_limited(headers: dict[str, str] | None = None) -> Reply:
    """OpenAI's 429; `headers` replace its `retry-after: 1` (e.g. `retry-after-ms`, an HTTP date)."""
    return error_reply(
        429, "Rate limit reached for requests. Please try again in 1s.",
        kind="requests", code="rate_limit_exceeded", headers={"retry-after": "1"} if headers is None else headers,
    )


def server_error(status: int = 500) -> Reply:
    message = "The server had an error while processing your request."
    if status == 503:
        message = "Service unavailable"
    return error_reply(status, message, kind="server_error")


def overflow_body(limit: int, requested: int) -> dict[str, Any]:
    """OpenAI's refusal of a request longer than the model's window."""
    message = (
        f"This model's maximum context length is {limit} tokens. However, your messages resulted in "
        f"{requested} tokens. Please reduce the length of the messages."
    )
    return error_body(message, "invalid_request_error", code="context_length_exceeded")


def context_overflow(limit: int = 128_000, requested: int = 130_512) -> Reply:
    return Reply(status=400, error=overflow_body(limit, requested))


class RequestRejected(Exception):
    """A request a real provider would refuse with 400."""

    def __init__(self, message: str, param: str | None = None) -> None:
        super().__init__(message)
        self.body = error_body(message, "invalid_request_error", param=param)


# --- request validation ---------------------------------------------------------------------------

ROLES = {"system", "developer", "user", "assistant", "tool"}


def validate_request(body: Any) -> None:
    """Raise RequestRejected for anything OpenAI's chat-completions endpoint would reject."""
    if not isinstance(body, dict):
        raise RequestRejected("The request body must be a JSON object.")
    if not isinstance(body.get("model"), str) or not body["model"]:
        raise RequestRejected("you must provide a model parameter", "model")
    messages = body.get("messages")
    if not isinstance(messages, list) or not messages:
        raise RequestRejected("'messages' must be a non-empty array.", "messages")
    if body.get("stream_options") is not None and not body.get("stream"):
        raise RequestRejected("The 'stream_options' parameter is only allowed when 'stream' is enabled.",
                              "stream_options")
    _validate_tools(body.get("tools"))
    for index, message in enumerate(messages):
        _validate_message(index, message)
    _validate_tool_pairing(messages)


def _validate_tools(tools: Any) -> None:
    if tools is None:
        return
    if not isinstance(tools, list):
        raise RequestRejected("'tools' must be an array.", "tools")
    for i, tool in enumerate(tools):
        function = tool.get("function") if isinstance(tool, dict) else None
        if not isinstance(function, dict) or tool.get("type") != "function":
            raise RequestRejected(f"Invalid tool definition at tools[{i}].", f"tools[{i}]")
        if not isinstance(function.get("name"), str) or not function["name"]:
            raise RequestRejected(f"Missing required parameter: 'tools[{i}].function.name'.", f"tools[{i}]")
        if "parameters" in function and not isinstance(function["parameters"], dict):
            raise RequestRejected(f"Invalid 'tools[{i}].function.parameters': not an object.", f"tools[{i}]")


def _validate_parts(where: str, content: Any, allowed: set[str]) -> None:
    if isinstance(content, str):
        return
    if not isinstance(content, list):
        raise RequestRejected(f"Invalid type for '{where}.content'.", f"{where}.content")
    for part in content:
        kind = part.get("type") if isinstance(part, dict) else None
        if kind not in allowed:
            raise RequestRejected(f"Invalid content part type {kind!r} in '{where}'.", f"{where}.content")
        if kind == "text" and not isinstance(part.get("text"), str):
            raise RequestRejected(f"Missing text in a content part of '{where}'.", f"{where}.content")
        if kind == "image_url" and not isinstance((part.get("image_url") or {}).get("url"), str):
            raise RequestRejected(f"Missing image_url.url in '{where}'.", f"{where}.content")


def _validate_message(index: int, message: Any) -> None:
    where = f"messages[{index}]"
    if not isinstance(message, dict) or message.get("role") not in ROLES:
        raise RequestRejected(f"Invalid value for '{where}.role'.", f"{where}.role")
    role = message["role"]
    if role in ("system", "developer", "user"):
        if "content" not in message:
            raise RequestRejected(f"Missing required parameter: '{where}.content'.", f"{where}.content")
        _validate_parts(where, message["content"], {"text", "image_url"} if role == "user" else {"text"})
    elif role == "tool":
        if not isinstance(message.get("tool_call_id"), str) or not message["tool_call_id"]:
            param = f"{where}.tool_call_id"
            raise RequestRejected(f"Missing required parameter: '{param}'.", param)
        _validate_parts(where, message.get("content"), {"text"})
    else:
        _validate_assistant(where, message)


def _validate_assistant(where: str, message: dict[str, Any]) -> None:
    calls = message.get("tool_calls")
    if message.get("content") is None and not calls:
        raise RequestRejected(f"'{where}' must have either content or tool_calls.", f"{where}.content")
    if message.get("content") is not None:
        _validate_parts(where, message["content"], {"text"})
    if calls is None:
        return
    if not isinstance(calls, list):
        raise RequestRejected(f"Invalid type for '{where}.tool_calls'.", f"{where}.tool_calls")
    for i, tool_call in enumerate(calls):
        function = tool_call.get("function") if isinstance(tool_call, dict) else None
        valid = (
            isinstance(function, dict)
            and isinstance(tool_call.get("id"), str) and tool_call["id"]
            and tool_call.get("type") == "function"
            and isinstance(function.get("name"), str) and function["name"]
            and isinstance(function.get("arguments"), str)
        )
        if not valid:
            raise RequestRejected(f"Invalid '{where}.tool_calls[{i}]'.", f"{where}.tool_calls[{i}]")


def _validate_tool_pairing(messages: list[dict[str, Any]]) -> None:
    """Each tool message answers a call of the assistant right before it; each call gets an answer."""
    expecting: dict[str, None] = {}
    asked_at = -1
    for index, message in enumerate(messages):
        if message["role"] == "tool":
            if message["tool_call_id"] not in expecting:
                raise RequestRejected(
                    "Invalid parameter: messages with role 'tool' must be a response to a preceeding "
                    "message with 'tool_calls'.", f"messages.[{index}].role",
                )
            del expecting[message["tool_call_id"]]
            continue
        _reject_unanswered(expecting, asked_at)
        expecting = {c["id"]: None for c in message.get("tool_calls") or []}
        asked_at = index
    _reject_unanswered(expecting, asked_at)


def _reject_unanswered(expecting: dict[str, None], asked_at: int) -> None:
    if expecting:
        raise RequestRejected(
            "An assistant message with 'tool_calls' must be followed by tool messages responding to each "
            "'tool_call_id'. The following tool_call_ids did not have response messages: "
            + ", ".join(expecting),
            f"messages.[{asked_at}].role",
        )


# --- response building ----------------------------------------------------------------------------


def _fragments(text: str, size: int) -> list[str]:
    return [text[i : i + size] for i in range(0, len(text), max(1, size))]


def _call_id(reply_call: ScriptedCall, seq: int, index: int) -> str:
    return reply_call.id or f"call_{seq}_{index}"


def _finish_reason(reply: Reply) -> str:
    return reply.finish_reason or ("tool_calls" if reply.tool_calls else "stop")


def _usage_for(reply: Reply, body: dict[str, Any]) -> dict[str, Any]:
    if reply.usage is not None:
        return reply.usage
    produced = reply.text + reply.reasoning + "".join(c.arguments for c in reply.tool_calls)
    return usage(max(1, len(json.dumps(body["messages"])) // 4), max(1, len(produced) // 4))


def stream_events(reply: Reply, body: dict[str, Any], seq: int) -> list[str]:
    """The `data:` payloads of one streamed reply, `[DONE]` included."""
    base = {"id": f"chatcmpl-fake-{seq}", "object": "chat.completion.chunk", "created": CREATED,
            "model": body["model"]}

    def chunk(delta: dict[str, Any], finish: str | None = None) -> str:
        return json.dumps({**base, "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]})

    events = [chunk({"role": "assistant", "content": ""})]
    events += [chunk({"reasoning_content": f}) for f in _fragments(reply.reasoning, reply.chunk_size)]
    events += [chunk({"content": f}) for f in _fragments(reply.text, reply.chunk_size)]
    for index, scripted in enumerate(reply.tool_calls):
        head = {"index": index, "id": _call_id(scripted, seq, index), "type": "function",
                "function": {"name": scripted.name, "arguments": ""}}
        events.append(chunk({"tool_calls": [head]}))
        events += [
            chunk({"tool_calls": [{"index": index, "function": {"arguments": f}}]})
            for f in _fragments(scripted.arguments, reply.chunk_size)
        ]
    events.append(chunk({}, _finish_reason(reply)))
    if (body.get("stream_options") or {}).get("include_usage"):
        events.append(json.dumps({**base, "choices": [], "usage": _usage_for(reply, body)}))
    events.append(DONE)
    return events


def completion_body(reply: Reply, body: dict[str, Any], seq: int) -> dict[str, Any]:
    """The non-streaming response for one reply."""
    message: dict[str, Any] = {"role": "assistant", "content": reply.text or None}
    if reply.reasoning:
        message["reasoning_content"] = reply.reasoning
    if reply.tool_calls:
        message["tool_calls"] = [
            {"id": _call_id(c, seq, i), "type": "function",
             "function": {"name": c.name, "arguments": c.arguments}}
            for i, c in enumerate(reply.tool_calls)
        ]
    return {
        "id": f"chatcmpl-fake-{seq}", "object": "chat.completion", "created": CREATED, "model": body["model"],
        "choices": [{"index": 0, "message": message, "finish_reason": _finish_reason(reply)}],
        "usage": _usage_for(reply, body),
    }


# --- the server -----------------------------------------------------------------------------------


class FakeOpenAI:
    """The server. `push()` scripts replies; `requests` holds every request body it parsed, and
    `authorizations` the Authorization header each came with (a key a test must see arrive). With
    `max_request_chars`, a body longer than that is refused as too long for the model (a small window),
    before any scripted reply is taken."""

    def __init__(self, stall_timeout: float = 30.0, max_request_chars: int | None = None) -> None:
        self.stall_timeout = stall_timeout
        self.max_request_chars = max_request_chars
        self.requests: list[dict[str, Any]] = []
        # time.monotonic() as each request arrived: how long a client waited between two, seen by the server
        self.request_times: list[float] = []
        self.authorizations: list[str] = []
        self.rejections: list[dict[str, Any]] = []
        self.chunks_sent = 0  # stream chunks written so far: a test can act while a reply is mid-stream
        self._replies: deque[Reply] = deque()
        self._lock = threading.Lock()
        self._stopping = threading.Event()
        self._httpd: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    @property
    def port(self) -> int:
        if self._httpd is None:
            raise RuntimeError("the fake server is not running")
        return self._httpd.server_address[1]

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    @property
    def pending(self) -> int:
        """Scripted replies not served yet."""
        with self._lock:
            return len(self._replies)

    def push(self, *replies: Reply) -> None:
        with self._lock:
            self._replies.extend(replies)

    def start(self) -> FakeOpenAI:
        httpd = ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
        httpd.daemon_threads = True
        httpd.fake = self  # type: ignore[attr-defined]
        self._httpd = httpd
        self._stopping.clear()
        self._thread = threading.Thread(
            target=httpd.serve_forever, kwargs={"poll_interval": 0.05}, name="fake-openai", daemon=True
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        if self._httpd is None:
            return
        self._stopping.set()
        self._httpd.shutdown()
        self._httpd.server_close()
        if self._thread is not None:
            self._thread.join(timeout=5)
        self._httpd = None

    def __enter__(self) -> FakeOpenAI:
        return self.start()

    def __exit__(self, *exc_info: object) -> None:
        self.stop()

    # Called from handler threads.

    def _record(self, body: dict[str, Any], authorization: str) -> int:
        with self._lock:
            self.requests.append(body)
            self.request_times.append(time.monotonic())
            self.authorizations.append(authorization)
            return len(self.requests)

    def _reject(self, error: dict[str, Any]) -> None:
        with self._lock:
            self.rejections.append(error)

    def _next_reply(self) -> Reply | None:
        with self._lock:
            return self._replies.popleft() if self._replies else None


class _ClientGone(Exception):
    pass


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server_version = "FakeOpenAI/1.0"

    @property
    def fake(self) -> FakeOpenAI:
        return self.server.fake  # type: ignore[attr-defined, no-any-return]  # FakeOpenAI sets it on its server

    def log_message(self, format: str, *args: Any) -> None:
        """Stay quiet: pytest output is for the tests."""

    def do_POST(self) -> None:
        self.close_connection = True
        raw = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        if self.path.rstrip("/") not in ("/v1/chat/completions", "/chat/completions"):
            body = error_body(f"Unknown URL {self.path}", "invalid_request_error", code="unknown_url")
            self._send_json(404, body)
            return
        try:
            body = json.loads(raw)
        except (ValueError, UnicodeDecodeError):
            self._send_rejection(RequestRejected("We could not parse the JSON body of your request."))
            return
        seq = self.fake._record(body, self.headers.get("Authorization", "")) if isinstance(body, dict) else 0
        try:
            validate_request(body)
        except RequestRejected as rejected:
            self._send_rejection(rejected)
            return
        limit = self.fake.max_request_chars
        if limit is not None and len(raw) > limit:
            self.fake._reject(overflow_body(limit // 4, len(raw) // 4))
            self._send_json(400, overflow_body(limit // 4, len(raw) // 4))
            return
        reply = self.fake._next_reply()
        if reply is None:
            self._send_json(500, error_body("fake server: no scripted reply left", "server_error"))
            return
        try:
            self._serve(reply, body, seq)
        except (_ClientGone, OSError):
            self.close_connection = True

    def _send_rejection(self, rejected: RequestRejected) -> None:
        self.fake._reject(rejected.body)
        self._send_json(400, rejected.body)

    def _send_json(self, status: int, payload: dict[str, Any], headers: dict[str, str] | None = None) -> None:
        data = json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.send_header("Connection", "close")
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(data)

    def _serve(self, reply: Reply, body: dict[str, Any], seq: int) -> None:
        if reply.status != 200:
            self._send_json(reply.status, reply.error or {}, reply.headers)
            return
        if not body.get("stream"):
            self._send_json(200, completion_body(reply, body, seq), reply.headers)
            return
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Transfer-Encoding", "chunked")
        self.send_header("Connection", "close")
        self.end_headers()
        for index, payload in enumerate(stream_events(reply, body, seq)):
            if index == reply.cut_after:
                self._cut()
                return
            if index == reply.stall_after:
                self._wait_for_client_to_leave()
                return
            if reply.delay and self.fake._stopping.wait(reply.delay):
                return
            self._send_chunk(f"data: {INVALID_CHUNK if index == reply.invalid_json_at else payload}\n\n")
        self.wfile.write(b"0\r\n\r\n")
        self.wfile.flush()

    def _send_chunk(self, text: str) -> None:
        data = text.encode()
        self.wfile.write(f"{len(data):x}\r\n".encode() + data + b"\r\n")
        self.wfile.flush()
        with self.fake._lock:
            self.fake.chunks_sent += 1

    def _cut(self) -> None:
        """Drop the connection mid-body: no terminating chunk, no `[DONE]`."""
        self.wfile.flush()
        self.connection.shutdown(socket.SHUT_RDWR)

    def _wait_for_client_to_leave(self) -> None:
        deadline = time.monotonic() + self.fake.stall_timeout
        while time.monotonic() < deadline and not self.fake._stopping.is_set():
            readable, _, _ = select.select([self.connection], [], [], 0.05)
            if readable and not self.connection.recv(4096):
                return
