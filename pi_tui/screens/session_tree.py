"""`/tree` as Pi has it: the whole session as a foldable tree, to continue from any entry on a new branch.

One line per entry in a line-based list, so a session of thousands of entries opens at once. A chain of
entries stays at one indentation; a branch point opens one `├─`/`└─` arm per child. Roots and the first
entries of arms fold (`⊟` open, `⊞` folded); `•` marks the current branch and a leading `▶` its leaf;
labels show inline as `[label]`. By default settings changes, labels and extension records are left
out (Ctrl+O shows everything, Ctrl+U only user messages); a hidden entry's children hang on its nearest
shown ancestor. Typing searches (the rows whose whole entry, tool calls and arguments included, or label
holds what was typed; Backspace erases). Shift+L labels the highlighted entry (Pi's `label` entry; an
empty label removes it) and Shift+T shows when each label was set, as Pi's keys do (capitals: the small
letters go to the search). Choosing an entry dismisses with its id; what that means is the caller's
(`/tree`).
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any, ClassVar, Literal

from textual import events
from textual.binding import BindingType
from textual.containers import Vertical
from textual.content import Content
from textual.screen import ModalScreen
from textual.widget import Widget
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from condense.messages import content_text, tool_calls
from condense.plural import counted
from condense.timefmt import iso_to_ms
from pi_tui.screens.form import inline_markdown
from pi_tui.screens.picker import PickerScreen
from pi_tui.session.store import Session
from pi_tui.widgets import keymap
from pi_tui.widgets.option_rows import fitted, row_width

Mode = Literal["default", "user", "all"]
HIDDEN_BY_DEFAULT = frozenset({"custom", "label", "session_info", "model_change", "thinking_level_change"})
TEXT_CAP = 400  # characters of an entry's text kept for its row: wider than any terminal, and a row
# never flattens a megabyte tool output whole


@dataclass(frozen=True)
class Row:
    entry_id: str
    prefix: str
    text: str
    style: str
    foldable: bool = False
    folded: bool = False
    on_path: bool = False
    active: bool = False
    label: str | None = None
    labelled_at: str = ""  # the label entry's timestamp (ISO)


def _one_line(text: str, cap: int = TEXT_CAP) -> str:
    flat = " ".join(text[: cap * 4].split())
    return flat if len(flat) <= cap else flat[: cap - 1] + "…"


def _message_text(message: dict[str, Any]) -> tuple[str, str]:
    role = message.get("role")
    body = _one_line(content_text(message.get("content") or ""))
    if role == "user":
        return f'user: "{body}"', "$accent"
    if role == "assistant":
        calls = [block.get("name", "?") for block in message.get("content") or [] if block.get("type") == "toolCall"]
        tools = f" → {', '.join(calls)}" if calls else ""
        return (f'assistant: "{body}"{tools}' if body else f"assistant:{tools or ' (no text)'}"), ""
    if role == "toolResult":
        mark = " ✗" if message.get("isError") else ""
        return f"{message.get('toolName', 'tool')} result{mark}", "$muted"
    if role == "bashExecution":
        return f"! {_one_line(str(message.get('command', '')))}", "$muted"
    return f"{role}: {body}", "$muted"


def describe(entry: dict[str, Any]) -> tuple[str, str]:
    """One line saying what an entry is, and the style it shows in."""
    kind = entry.get("type")
    if kind == "message":
        return _message_text(entry.get("message") or {})
    if kind == "custom_message":
        return f"[{entry.get('customType')}] {_one_line(content_text(entry.get('content') or ''))}", "$muted"
    if kind == "compaction":
        return f"[compaction: {entry.get('tokensBefore', '?')} tokens]", "$warning"
    if kind == "branch_summary":
        return f"[branch summary] {_one_line(str(entry.get('summary', '')))}", "$warning"
    if kind == "model_change":
        return f"[model: {entry.get('provider')}/{entry.get('modelId')}]", "$muted"
    if kind == "thinking_level_change":
        return f"[thinking: {entry.get('thinkingLevel')}]", "$muted"
    if kind == "label":
        return f"[label {entry.get('label') or '(removed)'} on {entry.get('targetId')}]", "$muted"
    if kind == "session_info":
        return f"[name: {entry.get('name')}]", "$muted"
    return f"[{entry.get('customType') or kind}]", "$muted"


def search_text(entry: dict[str, Any]) -> str:
    """What a search looks in: the entry's whole text (past the shortened line), its tool calls' names and
    arguments, a result's tool name, a shell command."""
    message = entry.get("message") if entry.get("type") == "message" else None
    if not isinstance(message, dict):
        return " ".join(str(entry.get(key) or "") for key in ("customType", "summary", "name", "label")) + (
            " " + content_text(entry.get("content") or ""))
    calls = [f"{call.get('name', '')} {json.dumps(call.get('arguments'), ensure_ascii=False)}"
             for call in tool_calls(message)]
    fields = [str(message.get(key) or "") for key in ("toolName", "command")]
    return " ".join([content_text(message.get("content") or ""), *calls, *fields])


def is_user_message(entry: dict[str, Any]) -> bool:
    message = entry.get("message")
    return entry.get("type") == "message" and isinstance(message, dict) and message.get("role") == "user"


def _shown(entry: dict[str, Any], mode: Mode) -> bool:
    if mode == "user":
        return is_user_message(entry)
    return mode == "all" or entry.get("type") not in HIDDEN_BY_DEFAULT


def _labels(entries: list[dict[str, Any]]) -> dict[str, tuple[str, str]]:
    """Every entry's label and when it was set: the newest `label` entry for it wins, an empty one removes."""
    labels: dict[str, tuple[str, str]] = {}
    for entry in entries:
        if entry.get("type") == "label" and entry.get("targetId"):
            if entry.get("label"):
                labels[entry["targetId"]] = str(entry["label"]), str(entry.get("timestamp", ""))
            else:
                labels.pop(entry["targetId"], None)
    return labels


def label_time(iso: str, now: float | None = None) -> str:
    """When a label was set, as Pi's tree says it: `14:03` today, `3/9 14:03` this year, else `25/3/9 14:03`."""
    ms = iso_to_ms(iso)
    if not ms:
        return ""
    then, today = time.localtime(ms / 1000), time.localtime(now)
    clock = f"{then.tm_hour:02d}:{then.tm_min:02d}"
    if then[:3] == today[:3]:
        return clock
    day = f"{then.tm_mon}/{then.tm_mday}"
    return f"{day} {clock}" if then.tm_year == today.tm_year else f"{then.tm_year % 100:02d}/{day} {clock}"


def _children(session: Session, mode: Mode) -> tuple[dict[str | None, list[str]], dict[str | None, str | None]]:
    """Shown entries by shown parent (file order), and the shown stand-in of every entry."""
    stand_in: dict[str | None, str | None] = {None: None}
    kids: dict[str | None, list[str]] = {}
    for entry in session.entries:
        parent = stand_in.get(entry.get("parentId"))
        if _shown(entry, mode):
            stand_in[entry["id"]] = entry["id"]
            kids.setdefault(parent, []).append(entry["id"])
        else:
            stand_in[entry["id"]] = parent
    return kids, stand_in


def tree_rows(session: Session, folded: set[str], mode: Mode = "default") -> list[Row]:
    """The rows of the tree, depth first (iteratively: a linear session is thousands of levels deep)."""
    kids, stand_in = _children(session, mode)
    labels = _labels(session.entries)
    on_path = {entry["id"] for entry in session.branch_entries()}
    active = stand_in.get(session.leaf_id)
    roots = kids.get(None, [])
    stack = _arms(roots, "")
    rows: list[Row] = []
    while stack:
        entry_id, prefix, child_prefix, starts_arm = stack.pop()
        below = kids.get(entry_id, [])
        foldable = bool(below) and (starts_arm or len(below) > 1)
        is_folded = foldable and entry_id in folded
        text, style = describe(session.by_id[entry_id])
        label, labelled_at = labels.get(entry_id, (None, ""))
        rows.append(Row(entry_id, prefix, text, style, foldable, is_folded, entry_id in on_path,
                        entry_id == active, label, labelled_at))
        if is_folded:
            continue
        stack += [(below[0], child_prefix, child_prefix, False)] if len(below) == 1 else _arms(below, child_prefix)
    return rows


def _arms(ids: list[str], prefix: str) -> list[tuple[str, str, str, bool]]:
    """Stack items for the children of a branch point (reversed: the first is popped first)."""
    if len(ids) == 1:
        return [(ids[0], prefix, prefix, True)]
    items = []
    for index, entry_id in enumerate(ids):
        last = index == len(ids) - 1
        items.append((entry_id, prefix + ("└─ " if last else "├─ "), prefix + ("   " if last else "│  "), True))
    return items[::-1]


def row_content(row: Row, width: int, times: bool = False) -> Content:
    """The row in `width` cells: its text gives way, never its label and label time (a cut at the line's
    end hid them at 80 columns). The leaf's mark leads the row for the same reason."""
    leaf = ("▶ ", "bold $success") if row.active else ("  ", "")
    fold = ("⊞ " if row.folded else "⊟ ") if row.foldable else "  "  # a slot on every row keeps them aligned
    when = label_time(row.labelled_at) if times and row.label else ""
    head = Content.assemble(leaf, (row.prefix + fold, "$muted"), ("• " if row.on_path else "", "$success"))
    tail = Content.assemble((f" [{row.label}]" if row.label else "", "$warning"),
                            (f" {when}" if when else "", "$muted"))
    return fitted(head, inline_markdown(row.text, row.style), tail, width)


class SessionTreeScreen(ModalScreen[str | None]):
    BINDINGS: ClassVar[list[BindingType]] = [*keymap.SESSION_TREE]
    DEFAULT_CSS = """
    SessionTreeScreen { align: center middle; }
    SessionTreeScreen > #session-tree {
        width: 96%; height: 90%; border: round $primary; background: $surface; padding: 0 1;
    }
    SessionTreeScreen .tree-title {
        color: $accent; text-style: bold; height: 1; text-wrap: nowrap; text-overflow: ellipsis;
    }
    SessionTreeScreen .tree-hint { color: $muted; }
    SessionTreeScreen #tree-search { color: $accent; }
    SessionTreeScreen #tree-rows {
        height: 1fr; border: none; background: $surface; text-wrap: nowrap; text-overflow: ellipsis;
    }
    """

    def __init__(self, session: Session, label: Callable[[str, str | None], None] | None = None) -> None:
        """`label(entry id, label or None)` records a label (None removes it); without it, Shift+L is off."""
        super().__init__()
        self.session = session
        self.label = label
        self.show_times = False
        self.mode: Mode = "default"
        self.folded: set[str] = set()
        self.rows: list[Row] = []
        self.search = ""
        self._search_texts: dict[str, str] = {}
        self.list = OptionList(id="tree-rows")
        self.title_line = Static("", classes="tree-title")
        self.search_line = Static("", id="tree-search")

    def compose(self) -> Iterator[Widget]:
        with Vertical(id="session-tree"):
            yield self.title_line
            yield self.search_line
            yield self.list
            yield Static(Content("▶ current leaf · ↑↓ move · ←→ page · Ctrl+←→ fold/unfold · Ctrl+U user only"
                                 " · Ctrl+O all · Shift+L label · Shift+T label times · Enter continue from"
                                 " there · Esc close"), classes="tree-hint")

    def on_mount(self) -> None:
        self.fill(keep=self.session.leaf_id)
        self.list.focus()

    def fill(self, keep: str | None) -> None:
        """Lay the tree out again, keeping the highlight on `keep` (or the active row)."""
        self.rows = tree_rows(self.session, self.folded, self.mode)
        if self.search:
            needle = self.search.lower()
            self.rows = [row for row in self.rows if needle in self._haystack(row)]
        self.search_line.update(Content(self._search_text()))
        width = row_width(self.list, len(self.rows), self.app.size.width)
        self.list.clear_options()
        self.list.add_options([Option(row_content(row, width, self.show_times), id=row.entry_id)
                               for row in self.rows])
        shown = {"default": "", "user": " · user messages only", "all": " · every entry"}[self.mode]
        shown += " · label times" if self.show_times else ""
        self.title_line.update(Content(f"Session tree ({counted(len(self.rows), 'entry')}{shown}) · continue from any"
                                       " entry on a new branch"))
        ids = [row.entry_id for row in self.rows]
        if keep in ids:
            self.list.highlighted = ids.index(keep)
        elif self.rows:
            self.list.highlighted = next((i for i, row in enumerate(self.rows) if row.active), len(ids) - 1)

    def on_resize(self, _: events.Resize) -> None:
        row = self.current
        self.fill(row.entry_id if row else None)

    def _search_text(self) -> str:
        """The line under the header: the search typed, else what to type. With label times on and no label
        in the tree it says how to set one (a toast there covered the header's end)."""
        if self.search:
            return f"search: {self.search}▏"
        if self.show_times and not any(row.label for row in self.rows):
            return "no labels yet: Shift+L labels the highlighted entry · type to search"
        return "type to search"

    def _haystack(self, row: Row) -> str:
        """The lowercased text a search matches against, made once per entry (results can be megabytes)."""
        if row.entry_id not in self._search_texts:
            entry = self.session.by_id[row.entry_id]
            self._search_texts[row.entry_id] = f"{row.text} {row.label or ''} {search_text(entry)}".lower()
        return self._search_texts[row.entry_id]

    @property
    def current(self) -> Row | None:
        index = self.list.highlighted
        return self.rows[index] if index is not None and 0 <= index < len(self.rows) else None

    def action_fold(self) -> None:
        """Fold the current arm; on one that cannot fold (or is folded), go up to the previous arm start."""
        row = self.current
        if row is None:
            return
        if row.foldable and not row.folded:
            self.folded.add(row.entry_id)
            self.fill(row.entry_id)
            return
        index = self.rows.index(row)
        earlier = [i for i in range(index) if self.rows[i].foldable]
        if earlier:
            self.list.highlighted = earlier[-1]

    def action_unfold(self) -> None:
        """Unfold a folded arm; otherwise go down to the next arm start (or the end)."""
        row = self.current
        if row is None:
            return
        if row.folded:
            self.folded.discard(row.entry_id)
            self.fill(row.entry_id)
            return
        index = self.rows.index(row)
        later = [i for i in range(index + 1, len(self.rows)) if self.rows[i].foldable]
        self.list.highlighted = later[0] if later else len(self.rows) - 1

    def action_mode(self, mode: Mode) -> None:
        row = self.current
        self.mode = "default" if self.mode == mode else mode
        self.folded.clear()  # a new filter lays out a new tree, as in Pi
        self.fill(row.entry_id if row else None)

    def action_toggle_times(self) -> None:
        self.show_times = not self.show_times
        row = self.current
        self.fill(row.entry_id if row else None)

    def action_set_label(self) -> None:
        """Shift+L: type the highlighted entry's label (the current one is there to edit); an empty one
        takes it off."""
        row = self.current
        if row is None or self.label is None:
            return
        # the title names the entry in one line: a row's text is as long as the widest terminal
        picker = PickerScreen(f"Label for: {_one_line(row.text, 60)}", [], query=row.label or "",
                              custom=lambda text: text, empty_custom=True,
                              hint="type the label · Enter saves (empty: no label) · Esc cancels",
                              placeholder="label…")
        self.app.push_screen(picker, lambda label: self._labelled(row.entry_id, label))

    def _labelled(self, entry_id: str, label: str | None) -> None:
        if label is None or self.label is None:
            return  # Esc: nothing changes
        self.label(entry_id, label.strip() or None)
        self.fill(keep=entry_id)

    def on_key(self, event: events.Key) -> None:
        if event.key == "backspace" and self.search:
            self.search = self.search[:-1]
        elif event.is_printable and event.character:
            self.search += event.character
        else:
            return
        event.stop()
        row = self.current
        self.folded.clear()  # a search lays out a new tree, as in Pi
        self.fill(row.entry_id if row else None)

    def action_page(self, direction: int) -> None:
        # Textual leaves OptionList.action_page_down unannotated.
        (self.list.action_page_down if direction > 0 else self.list.action_page_up)()  # type: ignore[no-untyped-call]

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        self.dismiss(event.option.id)

    def action_close(self) -> None:
        self.dismiss(None)
