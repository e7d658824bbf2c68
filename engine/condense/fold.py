"""History folding: the oldest requests of a long session and their work, out of view behind one ref.

Stubs and compressed chains shrink tool output, but every user message, every reply and every chain
placeholder stays in the context for good: over a long session that floor grows past what a
summarising condenser keeps in all (measured on the corpus: about 40k tokens after 70 requests, where
OpenHands' condenser holds 10-17k). A fold replaces everything before the `fold_keep_turns`-th newest
user message with one block: the folded requests, one line each, and the refs of the work behind them.
Nothing is lost: `context_tree_query` returns the folded stretch as a transcript under the fold's ref
(`fN`), and every output in it under its own ref or id (a fold indexes the outputs no flush had).

A fold rewrites the start of the prompt, so it moves only where the prompt is rewritten anyway: right
after a flush, or where the cache has gone cold; and only when the stretch it folds holds at least
`fold_min_chars`. Its block is persisted with the fold (`context-prune-fold`), so every later render,
and a reopened session, shows the same bytes and the cache keeps hitting on it.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from condense.measure import model_chars
from condense.messages import content_text, tool_calls
from condense.occurrence import message_key
from condense.record_bursts import Read, records_of

FOLD = "context-prune-fold"
FOLD_REF = re.compile(r"f(\d+)")
MAX_REQUESTS = 40  # the newest requests a block lists with their outputs; older ones are counted
REQUEST_LINE_CHARS = 100
SUBJECT_CHARS = 32
IsProtected = Callable[[str, dict[str, Any]], bool]


def user_identity(message: Mapping[str, Any]) -> str:
    """A user message's identity across renders and reloads: its time and a hash of its text."""
    text = content_text(message.get("content") or [])
    digest = hashlib.sha1(text.encode("utf-8", "replace")).hexdigest()[:12]
    return f"{message.get('timestamp')}:{digest}"


@dataclass(frozen=True)
class Fold:
    """One fold: everything before the user message `boundary` names is shown as `text`."""

    ref: str
    boundary: str  # user_identity of the first message kept in view
    start: str | None  # user_identity of the first message this fold's own transcript covers
    requests: tuple[str, ...]  # the newest `MAX_REQUESTS` folded requests, oldest first: line and outputs' refs
    text: str
    timestamp: int
    refs: tuple[dict[str, Any], ...] = ()  # refs minted for the outputs no flush had indexed (SummaryRef JSON)
    count: int = 0  # every request folded, by this fold and the ones before it (`requests` when 0)

    @property
    def folded(self) -> int:
        return self.count or len(self.requests)

    def to_json(self, copy: bool = True) -> dict[str, Any]:
        """Only the requests the next fold's block can list: every fold listing every request before it
        made a long session's file grow with the square of its folds. With `copy` False, without the
        block where it is made again from those requests (the folds before it being f1 to this one's)."""
        data = {"ref": self.ref, "boundary": self.boundary, "start": self.start, "requests": list(self.requests),
                "requestCount": self.folded, "text": self.text, "timestamp": self.timestamp,
                "toolCallRefs": list(self.refs)}
        if not copy and fold_text(self.ref, self.requests, self.folded, _before(self.ref)) == self.text:
            del data["text"]
        return data

    @classmethod
    def from_json(cls, data: object) -> Fold | None:
        if not isinstance(data, dict):
            return None
        ref, boundary, text, stamp = data.get("ref"), data.get("boundary"), data.get("text"), data.get("timestamp")
        requests, start = data.get("requests"), data.get("start")
        if not (isinstance(ref, str) and FOLD_REF.fullmatch(ref) and isinstance(boundary, str)
                and isinstance(text, str | None) and isinstance(stamp, int)):
            return None
        lines = tuple(r for r in requests if isinstance(r, str)) if isinstance(requests, list) else ()
        refs, count = data.get("toolCallRefs"), data.get("requestCount")
        minted = tuple(r for r in refs if isinstance(r, dict)) if isinstance(refs, list) else ()
        folded = count if isinstance(count, int) and count >= len(lines) else len(lines)
        if text is None:  # compact: the block is made again
            text = fold_text(ref, lines[-MAX_REQUESTS:], folded, _before(ref))
        return cls(ref, boundary, start if isinstance(start, str) else None, lines[-MAX_REQUESTS:], text, stamp,
                   minted, folded)

    def message(self) -> dict[str, Any]:
        return {"role": "user", "content": [{"type": "text", "text": self.text}], "timestamp": self.timestamp}


def _before(ref: str) -> list[str]:
    """f1 to the fold before `ref`: the earlier folds of a branch that folded in order."""
    match = FOLD_REF.fullmatch(ref)
    return [f"f{n}" for n in range(1, int(match.group(1)))] if match else []


def reconstruct_folds(branch: Sequence[Mapping[str, Any]], read: Read | None = None) -> list[Fold]:
    """The branch's folds, oldest first (invalid entries are skipped); `read`: the host's way to the
    records a carried record names."""
    return [fold for data in records_of(branch, FOLD, read) if (fold := Fold.from_json(data)) is not None]


# ----- planning a fold ---------------------------------------------------------------------------

def request_line(message: Mapping[str, Any]) -> str:
    text = " ".join(content_text(message.get("content") or []).split())
    return text if len(text) <= REQUEST_LINE_CHARS else text[: REQUEST_LINE_CHARS - 1] + "…"


def call_subject(name: str, arguments: Mapping[str, Any]) -> str:
    """What a call was about, in a few words: its file (the last two parts of the path), its command,
    its pattern; the words a model looks for when it wants that output back."""
    for key in ("path", "file_path", "command", "pattern", "query", "url"):
        value = arguments.get(key)
        if isinstance(value, str) and value.strip():
            text = " ".join(value.split())
            if key in ("path", "file_path"):
                text = "/".join(text.rstrip("/").split("/")[-2:])
            return f"{name} {_clip_words(text, SUBJECT_CHARS)}"
    return name


def _clip_words(text: str, limit: int) -> str:
    """Cut at the last space that fits, so a subject never ends in half a word or half a flag; a single
    word longer than the limit is cut and marked."""
    if len(text) <= limit:
        return text
    space = text.rfind(" ", 0, limit)
    return (text[:space] if space > 0 else text[: limit - 1]) + "…"


RefOf = Callable[[str], str | None]  # occurrence key -> the short ref the index gave it
Chars = Callable[[Sequence[Any]], int]  # characters the model reads of these messages


def _entries(stretch: Sequence[Mapping[str, Any]], ref_of: RefOf) -> list[str]:
    """One entry per request of the stretch: its line, then each of its outputs by ref and subject."""
    entries: list[str] = []
    outputs: list[str] = []
    calls: dict[str, str] = {}

    def close() -> None:
        if entries and outputs:
            entries[-1] += "\n  " + " · ".join(outputs)
        outputs.clear()

    for message in stretch:
        role = message.get("role")
        if role == "user":
            close()
            entries.append(f"- {request_line(message)}")
        elif role == "assistant":
            for call in tool_calls(message):
                arguments = call.get("arguments")
                calls[str(call.get("id"))] = call_subject(str(call.get("name")),
                                                          arguments if isinstance(arguments, dict) else {})
        elif role == "toolResult":
            call_id = str(message.get("toolCallId"))
            outputs.append(f"{ref_of(message_key(message)) or call_id} {calls.get(call_id, message.get('toolName'))}")
    close()
    return entries


def fold_text(ref: str, entries: Sequence[str], count: int, earlier: Sequence[str]) -> str:
    """The block of a fold of `count` requests, listing the newest of `entries` (the last ones folded)."""
    shown = list(entries[-MAX_REQUESTS:])
    lines = [f'<folded-history id="{ref}" requests="{count}">',
             f"The first {count} requests of this session and their work are folded out of view."
             f' context_tree_query({{"toolCallIds": ["{ref}"]}}) returns their transcript'
             + (f" (earlier parts: {', '.join(earlier)})" if earlier else "")
             + "; the ref before an output returns it whole.",
             "Requests, oldest first, each with its outputs:"]
    if count > len(shown):
        lines.append(f"- ({count - len(shown)} earlier requests: see the transcript)")
    lines += shown
    lines.append("</folded-history>")
    return "\n".join(lines)


@dataclass(frozen=True)
class FoldPlan:
    ref: str
    boundary: str
    start: str | None
    previous: tuple[str, ...]  # the newest entries of the fold in force
    previous_count: int  # and how many requests it folded
    earlier: list[str]  # the refs of the folds before this one
    timestamp: int
    folded_inputs: list[Any]  # the host's messages this fold takes out of view (those before are folded already)

    def fold(self, ref_of: RefOf, minted: Sequence[dict[str, Any]] = ()) -> Fold:
        """The fold, once every output of the stretch has a ref (`minted`: those made for it)."""
        new = _entries(self.folded_inputs, ref_of)
        entries, count = (*self.previous, *new)[-MAX_REQUESTS:], self.previous_count + len(new)
        text = fold_text(self.ref, entries, count, self.earlier)
        return Fold(self.ref, self.boundary, self.start, entries, text, self.timestamp, tuple(minted), count)


def _protected_from(out: Sequence[Mapping[str, Any]], is_protected: IsProtected) -> int:
    """Position of the first output that must stay verbatim (len(out) when none)."""
    calls: dict[str, tuple[str, dict[str, Any]]] = {}
    for position, message in enumerate(out):
        if message.get("role") == "assistant":
            for call in tool_calls(message):
                arguments = call.get("arguments")
                calls[str(call.get("id"))] = (str(call.get("name")), arguments if isinstance(arguments, dict) else {})
        elif message.get("role") == "toolResult":
            name, args = calls.get(str(message.get("toolCallId")), (str(message.get("toolName")), {}))
            if is_protected(name, args):
                return position
    return len(out)


def plan_fold(inputs: Sequence[Any], out: Sequence[Any], current: list[Fold], keep_turns: int, min_chars: int,
              is_protected: IsProtected) -> FoldPlan | None:
    """A new fold of `out` (the render of `inputs` before folding), or None when none is due: fewer
    than `keep_turns` + 1 requests, a foldable stretch under `min_chars`, or nothing past the fold in
    force. Protected outputs are never folded: the cut stops before the request that holds the first."""
    stamp = out[0].get("timestamp") if out else None
    return _plan(inputs, out, current, keep_turns, min_chars, is_protected, stamp if isinstance(stamp, int) else 0)


def _plan(inputs: Sequence[Any], out: Sequence[Any], current: list[Fold], keep_turns: int, min_chars: int,
          is_protected: IsProtected, stamp: int) -> FoldPlan | None:
    """`plan_fold` of `out`, the whole render or what follows the fold in force (`stamp`: the time of the
    render's first message, which the block takes)."""
    if keep_turns <= 0:
        return None
    real = {id(m) for m in inputs if m.get("role") == "user"}
    users = [i for i, m in enumerate(out) if m.get("role") == "user" and id(m) in real]
    limit = _protected_from(out, is_protected)
    cuts = [i for i in users[:-keep_turns] if i <= limit] if len(users) > keep_turns else []
    if not cuts or cuts[-1] == 0:
        return None
    cut = cuts[-1]
    last = current[-1] if current else None
    start = next((i for i in users if last is not None and user_identity(out[i]) == last.boundary), 0)
    if cut <= start or model_chars(out[start:cut]) < min_chars:
        return None
    boundary = user_identity(out[cut])
    position = next((i for i, m in enumerate(inputs) if m is out[cut]), None)
    if position is None:
        return None
    first = next((i for i, m in enumerate(inputs) if last is not None and m.get("role") == "user"
                  and user_identity(m) == last.boundary), 0)
    return FoldPlan(f"f{len(current) + 1}", boundary, last.boundary if last else None,
                    last.requests if last else (), last.folded if last else 0, [f.ref for f in current], stamp,
                    list(inputs[first:position]))


# ----- rendering ----------------------------------------------------------------------------------

class HistoryFold:
    """The fold in force on the branch, applied to every render: one block in place of what it folds.
    The block is one object for good, and the boundary's position is remembered, so a render costs a
    lookup while the conversation only grows."""

    def __init__(self) -> None:
        self.reset([])

    def reset(self, folds: list[Fold]) -> None:
        self.folds = folds
        self._block: dict[str, Any] | None = folds[-1].message() if folds else None
        self._found: tuple[int, Any] | None = None  # (position in the last output, the boundary message)
        self._in_inputs: tuple[int, Any] | None = None  # (its position in the last inputs, the same message)
        # `_clean`'s answer, under which rules, and (when clean) the identities of the users folded
        self._checked: tuple[object, bool, set[str]] | None = None
        self._made: tuple[FoldPlan, Any] | None = None  # the last plan made from a clean boundary, its new one

    def add(self, fold: Fold) -> None:
        """Put `fold` in force. Made from the plan of a clean boundary, its own boundary is clean too
        unless a user message it folds has the same identity: the first-found boundary would move."""
        checked, made = self._checked, self._made
        self.reset([*self.folds, fold])
        if checked is not None and checked[1] and made is not None and made[0].ref == fold.ref:
            users = {user_identity(m) for m in made[0].folded_inputs if m.get("role") == "user"}
            if fold.boundary not in checked[2] | users:
                self._checked = (checked[0], True, checked[2] | users)
                self._found = (0, made[1])

    def _cut(self, out: Sequence[Any]) -> int | None:
        if self._found is not None:
            position, message = self._found
            found = _position(out, message, position)
            if found is not None:
                self._found = (found, message)
                return found
        boundary = self.folds[-1].boundary
        for index, candidate in enumerate(out):
            if candidate.get("role") == "user" and user_identity(candidate) == boundary:
                self._found = (index, candidate)
                return index
        return None

    def plan(self, inputs: Sequence[Any], out: Sequence[Any], keep_turns: int, min_chars: int,
             is_protected: IsProtected, chars: Chars, rules: object) -> FoldPlan | None:
        """`plan_fold`'s answer for the fold in force, walking only what follows its boundary: the stretch
        a fold would take is bounded from above (every user message a cut candidate, the first protected
        output after the boundary a limit), and most of the time that bound is under `min_chars`; when
        it is not, the plan is made from the boundary on. That holds while nothing before the boundary
        is protected, which a walk of everything checks once per fold and `rules` (the protection rules'
        version); `chars` measures messages (a cache of their sizes)."""
        start = (self._cut(out) or 0) if self.folds else 0
        if keep_turns <= 0 or not self._may_fold(out, start, keep_turns, min_chars, is_protected, chars):
            return None
        first = self._first(inputs, out[start]) if start else 0
        if first is None or not self._clean(inputs, out, start, first, is_protected, rules):
            return plan_fold(inputs, out, self.folds, keep_turns, min_chars, is_protected)
        stamp = out[0].get("timestamp")
        plan = _plan(inputs[first:], out[start:], self.folds, keep_turns, min_chars, is_protected,
                     stamp if isinstance(stamp, int) else 0)
        if plan is not None:
            self._made = (plan, inputs[first + len(plan.folded_inputs)])
        return plan

    def _first(self, inputs: Sequence[Any], boundary: Any) -> int | None:
        """Where the boundary message is in `inputs`: where it was last time while nothing before it moved."""
        hint = self._in_inputs[0] if self._in_inputs is not None and self._in_inputs[1] is boundary else 0
        found = _position(inputs, boundary, hint)
        self._in_inputs = None if found is None else (found, boundary)
        return found

    def _clean(self, inputs: Sequence[Any], out: Sequence[Any], start: int, first: int, is_protected: IsProtected,
               rules: object) -> bool:
        """Whether `plan_fold` starts at the boundary where `start` and `first` find it (in `out` and in
        `inputs`), with nothing protected before it: then its plan is the plan of what follows. Walks
        everything once per fold (unless `add` could tell) and protection rules."""
        if not self.folds:
            return True
        if self._checked is None or self._checked[0] != rules:
            boundary = self.folds[-1].boundary
            clean = (_first_user(out, boundary) == start and _first_user(inputs, boundary) == first
                     and _protected_from(out[:start], is_protected) == start)
            users = {user_identity(m) for m in inputs[:first] if m.get("role") == "user"} if clean else set()
            self._checked = (rules, clean, users)
        return self._checked[1]

    @staticmethod
    def _may_fold(out: Sequence[Any], start: int, keep_turns: int, min_chars: int, is_protected: IsProtected,
                  chars: Chars) -> bool:
        """False when no fold can be due: `start` is where `plan_fold`'s stretch starts (the boundary of the
        fold in force, found first in `out`; 0 without one), and a protected output before it leaves
        `plan_fold` nothing to fold either."""
        users = []
        for position in range(len(out) - 1, start, -1):
            if out[position].get("role") == "user":
                users.append(position)
                if len(users) > keep_turns:
                    break
        if len(users) <= keep_turns:
            return False
        upper = start + _protected_from(out[start:users[-1]], is_protected)
        return upper > start and chars(out[start:upper]) >= min_chars

    def apply(self, out: list[Any]) -> list[Any]:
        """`out` with the folded stretch replaced; `out` itself when no fold applies to it (a branch
        without the boundary message, `/tree` to an earlier point). Pi's compaction summary, first in a
        compacted context, stays in view before the block: it is the only account of what it replaced."""
        if self._block is None:
            return out
        cut = self._cut(out)
        if not cut:
            return out
        kept = out[:1] if out[0].get("role") == "compactionSummary" else []
        return [*kept, self._block, *out[cut:]]

    def unlisted(self, key: str, ref: str, messages: Sequence[Mapping[str, Any]]) -> str | None:
        """The ref of the fold holding output `key` when the block in view does not name `ref` (its
        list stops at the newest `MAX_REQUESTS` requests); None when the block lists it or no fold holds it."""
        if self._block is None or re.search(rf"(?<!\w){re.escape(ref)}(?!\w)", self.folds[-1].text):
            return None
        return self.covering(key, messages)

    def covering(self, key: str, messages: Sequence[Mapping[str, Any]]) -> str | None:
        """The ref of the fold whose stretch of `messages` holds the output with occurrence key `key`."""
        for fold in self.folds:
            stretch = self._stretch(fold, messages)
            if stretch is not None and any(m.get("role") == "toolResult" and message_key(m) == key
                                           for m in messages[stretch[0]:stretch[1]]):
                return fold.ref
        return None

    @staticmethod
    def _stretch(fold: Fold, messages: Sequence[Mapping[str, Any]]) -> tuple[int, int] | None:
        """Where the stretch `fold` took out of view lies in the host's `messages`, if it still does."""
        identities = [(i, user_identity(m)) for i, m in enumerate(messages) if m.get("role") == "user"]
        end = next((i for i, identity in identities if identity == fold.boundary), None)
        begin = 0 if fold.start is None else next((i for i, identity in identities if identity == fold.start), None)
        return None if end is None or begin is None else (begin, end)

    def transcript(self, ref: str, messages: Sequence[Mapping[str, Any]]) -> str | None:
        """The stretch fold `ref` took out of view, as a transcript, from the host's messages; None when
        `ref` names no fold of the branch or its stretch is no longer in the messages."""
        fold = next((f for f in self.folds if f.ref == ref), None)
        stretch = None if fold is None else self._stretch(fold, messages)
        if stretch is None:
            return None
        return "\n\n".join(filter(None, map(_transcript_line, messages[stretch[0]:stretch[1]])))


def _transcript_line(message: Mapping[str, Any]) -> str:
    role = message.get("role")
    text = content_text(message.get("content") or [])
    if role == "user":
        return f"[user]\n{text}"
    if role == "assistant":
        calls = [f"-> {call.get('name')}({json.dumps(call.get('arguments'), ensure_ascii=False)[:300]})"
                 f" id={call.get('id')}" for call in tool_calls(message)]
        return "\n".join(filter(None, [f"[assistant]\n{text}" if text else "", *calls]))
    if role == "toolResult":
        more = f"… ({len(text)} chars; ask for id {message.get('toolCallId')})"
        body = text if len(text) <= 300 else text[:300] + more
        return f"[result of {message.get('toolCallId')}]\n{body}"
    summary = message.get("summary")
    return f"[{role}]\n{summary if isinstance(summary, str) else text}" if (text or summary) else ""


def _first_user(messages: Sequence[Any], identity: str) -> int:
    """Where the first user message with this identity is (0 when none is)."""
    return next((i for i, m in enumerate(messages) if m.get("role") == "user" and user_identity(m) == identity), 0)


def _position(out: Sequence[Any], message: Any, hint: int) -> int | None:
    """Where `message` itself is in `out`: at `hint` while nothing before it moved, else found by the list's
    own search (which takes an equal message for it only after comparing identity)."""
    if hint < len(out) and out[hint] is message:
        return hint
    start = 0
    while True:
        try:
            position = out.index(message, start)
        except ValueError:
            return None
        if out[position] is message:
            return position
        start = position + 1
