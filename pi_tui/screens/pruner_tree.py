"""`/pruner tree`: everything condense did on this branch, as a foldable tree.

Compressed chains (`bN`) and summaries (turn, tool count) hold the calls they cover (`tN`, tool,
key argument, size, OK/ERROR, and spilled / deduped / protected marks); spilled and deduplicated
outputs that no summary covers get groups of their own. Enter on a call shows its original output
(what `context_tree_query` returns); Ctrl+O on a summary or chain shows the whole summary as Markdown;
`/` filters. The tree is a line widget, so a session with thousands of calls stays quick.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any, Literal

from rich.text import Text
from textual.containers import Vertical
from textual.content import Content
from textual.screen import ModalScreen
from textual.widget import Widget
from textual.widgets import Input, Static, Tree
from textual.widgets.tree import TreeNode

from condense.engine import CondenseEngine
from condense.messages import content_text
from condense.occurrence import occ_key, result_timestamp_of
from condense.records import DEDUP_ALIAS, SUMMARY, SummaryRef
from pi_tui import keymap
from pi_tui.screens.text_view import TextViewScreen
from pi_tui.widgets.conversation import key_argument
from pi_tui.widgets.footer import format_tokens
from pi_tui.widgets.marks import chain_entries

NodeKind = Literal["chain", "summary", "call", "group"]
KEY_ARGUMENT_CHARS = 70
EXPAND_UP_TO = 40  # calls; a bigger tree opens folded


@dataclass
class Node:
    kind: NodeKind
    label: Content
    text: str  # what the filter matches
    key: str = ""  # call: the occurrence key (or ref) to query
    body: str = ""  # summary / chain: the whole summary text
    children: list[Node] = field(default_factory=list)


def _call_node(engine: CondenseEngine, key: str, ref: str, fallback_tool: str = "", mark: str = "") -> Node:
    record = engine.index.get_record(key)
    if record is None:
        label = Content.assemble((ref or key, "bold"), f" {fallback_tool}  ", ("(no record)", "$muted"))
        return Node("call", label, f"{ref} {fallback_tool}", key)
    argument = key_argument(record.tool_name, record.args)
    if len(argument) > KEY_ARGUMENT_CHARS:
        argument = argument[: KEY_ARGUMENT_CHARS - 1] + "…"
    size = record.spill_bytes if record.spill_bytes is not None else len(record.result_text)
    marks = [mark] if mark else []
    if record.spill_path:
        marks.append("spilled")
    if key not in engine.index and engine.index.is_summarized(key):
        marks.append("deduped")
    if engine.is_protected(record.tool_name, record.args):
        marks.append("protected")
    status = ("ERROR", "$error") if record.is_error else ("OK", "$success")
    label = Content.assemble(
        (ref or "·", "bold $accent"), " ", (record.tool_name, "bold"), " ", argument, "  ",
        (f"{format_tokens(size)} chars", "$muted"), "  ", status,
        (f"  [{', '.join(marks)}]" if marks else "", "$custom-message-label"))
    return Node("call", label, f"{ref} {record.tool_name} {argument} {' '.join(marks)}", ref or key)


def _summary_node(engine: CondenseEngine, entry: dict[str, Any]) -> Node:
    details = entry.get("details") if isinstance(entry.get("details"), dict) else {}
    raw_refs = [r for r in details.get("toolCallRefs") or [] if isinstance(r, dict)]
    refs = [ref for ref in map(SummaryRef.from_json, raw_refs) if ref is not None]
    names = details.get("toolNames") or []
    count = len(refs)
    body = content_text(entry.get("content") or "")
    label = Content.assemble((f"Turn {details.get('turnIndex', '?')} summary", "bold $custom-message-label"),
                             (f" ({count} {'tool' if count == 1 else 'tools'})", "$muted"))
    children = [_call_node(engine, ref.key, ref.short_id, names[i] if i < len(names) else "")
                for i, ref in enumerate(refs)]
    text = f"turn {details.get('turnIndex', '')} summary"
    return Node("summary", label, text, body=body, children=children)


def _chain_node(engine: CondenseEngine, data: dict[str, Any]) -> Node:
    refs = [str(ref) for ref in data.get("toolRefs") or []]
    block = str(data.get("blockId", "?"))
    label = Content.assemble((f"{block} compressed chain", "bold $custom-message-label"),
                             (f" ({len(refs)} {'tool' if len(refs) == 1 else 'tools'})", "$muted"))
    children = [_call_node(engine, ref, ref) for ref in refs]
    body = str(data.get("rangeSummaryText") or "\n\n".join(engine.index.summaries_covering(
        engine.index.resolve_tool_call_id(ref) or ref for ref in refs)))
    return Node("chain", label, f"{block} chain", body=body, children=children)


def _alias_nodes(engine: CondenseEngine, branch: list[dict[str, Any]]) -> list[Node]:
    nodes = []
    for entry in branch:
        data = entry.get("data")
        is_alias = entry.get("type") == "custom" and entry.get("customType") == DEDUP_ALIAS
        if not is_alias or not isinstance(data, dict):
            continue
        key = occ_key(str(data.get("newToolCallId", "")), result_timestamp_of(data.get("newResultTimestamp")))
        original = occ_key(str(data.get("originalToolCallId", "")),
                           result_timestamp_of(data.get("originalResultTimestamp")))
        ref = engine.index.get_short_ref(original) or ""
        nodes.append(_call_node(engine, key, "", mark=f"same as {ref or 'an earlier output'}"))
    return nodes


def condense_tree(engine: CondenseEngine, branch: list[dict[str, Any]]) -> list[Node]:
    """The top-level nodes: chains, then summaries in session order, then uncovered spills and aliases."""
    nodes = [_chain_node(engine, data) for data in chain_entries(branch).values()]
    covered: set[str] = set()
    for entry in branch:
        if entry.get("type") == "custom_message" and entry.get("customType") == SUMMARY:
            node = _summary_node(engine, entry)
            covered.update(child.key for child in node.children)
            nodes.append(node)
    spilled = [_call_node(engine, record.key, "") for record in engine.index.records()
               if record.spill_path and (engine.index.get_short_ref(record.key) or record.key) not in covered]
    if spilled:
        nodes.append(Node("group", Content.styled(f"Spilled outputs ({len(spilled)})", "bold"), "spilled",
                          children=spilled))
    aliases = _alias_nodes(engine, branch)
    if aliases:
        label = Content.styled(f"Deduplicated outputs ({len(aliases)})", "bold")
        nodes.append(Node("group", label, "deduped", children=aliases))
    return nodes


def filter_nodes(nodes: list[Node], query: str) -> list[Node]:
    """Nodes whose own text matches, whole; others with only their matching children."""
    q = query.strip().lower()
    if not q:
        return nodes
    out: list[Node] = []
    for node in nodes:
        if q in node.text.lower():
            out.append(node)
            continue
        children = [child for child in node.children if q in child.text.lower()]
        if children:
            out.append(Node(node.kind, node.label, node.text, node.key, node.body, children))
    return out


class CondenseTree(Tree[Node]):
    """Textual's Tree draws Rich Text labels: ours are Content with theme colours, resolved here."""

    def process_label(self, label: Any) -> Text:
        if not isinstance(label, Content):
            return super().process_label(label)
        text = Text(no_wrap=True, overflow="ellipsis")
        for segment in label.render_segments():
            text.append(segment.text, segment.style)
        return text


class PrunerTreeScreen(ModalScreen[None]):
    BINDINGS = keymap.TREE
    DEFAULT_CSS = """
    PrunerTreeScreen { align: center middle; }
    PrunerTreeScreen > #pruner-tree-box {
        width: 95%; height: 90%; border: round $primary; background: $surface; padding: 0 1;
    }
    PrunerTreeScreen .tree-title { color: $accent; text-style: bold; }
    PrunerTreeScreen .tree-hint { color: $muted; }
    PrunerTreeScreen Tree { height: 1fr; background: $surface; }
    PrunerTreeScreen Input { background: $panel; }
    """

    def __init__(self, engine: CondenseEngine, branch: list[dict[str, Any]]) -> None:
        super().__init__()
        self.engine = engine
        self.nodes = condense_tree(engine, branch)
        self.tree_view = CondenseTree("condense", id="pruner-tree")
        self.filter_input = Input(placeholder="filter…", id="tree-filter", compact=True)
        self.filter_input.display = False

    def _title(self) -> str:
        summaries = sum(1 for node in self.nodes if node.kind == "summary")
        chains = sum(1 for node in self.nodes if node.kind == "chain")
        calls = sum(len(node.children) for node in self.nodes)
        return f"/pruner tree · {summaries} summaries · {chains} compressed chains · {calls} calls"

    def compose(self) -> Iterator[Widget]:
        with Vertical(id="pruner-tree-box"):
            yield Static(Content(self._title()), classes="tree-title")
            yield self.filter_input
            yield self.tree_view
            hint = "Enter: original output / fold · Ctrl+O: whole summary · /: filter · Esc: close"
            yield Static(Content(hint), classes="tree-hint")

    def on_mount(self) -> None:
        self.tree_view.show_root = False
        self.fill(self.nodes, expand=sum(len(node.children) for node in self.nodes) <= EXPAND_UP_TO)
        self.tree_view.focus()

    def fill(self, nodes: list[Node], expand: bool) -> None:
        self.tree_view.clear()
        if not nodes:
            self.tree_view.root.add_leaf(Content.styled("nothing pruned on this branch yet", "$muted"))
        for node in nodes:
            branch = self.tree_view.root.add(node.label, data=node, expand=expand,
                                             allow_expand=bool(node.children))
            for child in node.children:
                branch.add_leaf(child.label, data=child)
        self.tree_view.root.expand()
        self.tree_view.cursor_line = 0

    def on_tree_node_selected(self, event: Tree.NodeSelected[Node]) -> None:
        node = event.node.data
        if node is not None and node.kind == "call":
            text, _ = self.engine.query([node.key])
            self.app.push_screen(TextViewScreen(f"original output · {node.key}", text))

    def _current(self) -> TreeNode[Node] | None:
        return self.tree_view.cursor_node

    def action_open_summary(self) -> None:
        current = self._current()
        node = current.data if current is not None else None
        if node is not None and node.kind == "call" and current is not None and current.parent is not None:
            node = current.parent.data
        if node is None or node.kind not in ("summary", "chain"):
            self.notify("move to a summary or a chain to see its whole text", severity="warning")
            return
        plain = node.label.plain
        self.app.push_screen(TextViewScreen(plain, node.body or "(no summary text)", markdown=True))

    def action_filter(self) -> None:
        self.filter_input.display = True
        self.filter_input.focus()

    def on_input_changed(self, event: Input.Changed) -> None:
        self.fill(filter_nodes(self.nodes, event.value), expand=bool(event.value.strip()))

    def on_input_submitted(self, _: Input.Submitted) -> None:
        self.tree_view.focus()

    def action_close(self) -> None:
        if self.filter_input.has_focus and self.filter_input.value:
            self.filter_input.value = ""
            self.tree_view.focus()
            return
        self.dismiss(None)
