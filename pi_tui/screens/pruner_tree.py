"""`/pruner tree`: everything condense did on this branch, as a foldable tree.

History folds (`fN`, how many requests each took out of view, the outputs it gave refs), compressed
chains (`bN`, with the user prompt that started each) and summaries (turn, tool count) hold
the calls they cover (`tN`, tool, key argument (a path by the tail that tells it from the tree's other
paths), size, OK/ERROR, and spilled / deduped / protected marks); spilled and deduplicated
outputs that no summary covers get groups of their own. Enter on a call shows its original output
(what `context_tree_query` returns); Ctrl+O on a summary or chain shows the whole summary as Markdown,
on a fold the block the model reads;
`/` filters. The tree is a line widget, so a session with thousands of calls stays quick.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any, ClassVar, Literal

from rich.text import Text
from textual.binding import BindingType
from textual.containers import Vertical
from textual.content import Content
from textual.screen import ModalScreen
from textual.widget import Widget
from textual.widgets import Input, Static, Tree
from textual.widgets.tree import TreeNode

from condense import CallView, ChainView, PruneTree, SummaryView, prune_tree
from condense.engine import CondenseEngine
from condense.inspect import FoldView
from condense.plural import counted
from pi_tui.conversation.call_subject import distinct_tails, key_argument, path_argument
from pi_tui.conversation.folds import turn_number
from pi_tui.screens.text_view import TextViewScreen
from pi_tui.widgets import keymap
from pi_tui.widgets.footer import format_tokens

NodeKind = Literal["fold", "chain", "summary", "call", "group"]
KEY_ARGUMENT_CHARS = 70
TASK_CHARS = 80  # of a chain's user prompt
PATH_CHARS = 36  # a path longer than this shows its end: what fits on an 80-column row beside size and status
EXPAND_UP_TO = 40  # calls; a bigger tree opens folded


@dataclass
class Node:
    kind: NodeKind
    label: Content
    text: str  # what the filter matches
    key: str = ""  # call: the occurrence key (or ref) to query
    body: str = ""  # summary / chain: the whole summary text
    children: list[Node] = field(default_factory=list)


def _call_node(call: CallView, tails: dict[str, str]) -> Node:
    """One call: its ref, tool, what it was about (a path by the tail that tells it from the tree's other
    paths), the size of its output, OK/ERROR and what condense did. The filter matches the whole path."""
    if not call.recorded:
        label = Content.assemble((call.ref or call.key, "bold"), f" {call.tool}  ", ("(no record)", "$muted"))
        return Node("call", label, f"{call.ref} {call.tool}", call.key)
    whole = key_argument(call.tool, dict(call.args))
    path = path_argument(call.tool, dict(call.args))
    argument = tails.get(path, whole) if path is not None else whole
    if len(argument) > KEY_ARGUMENT_CHARS:
        argument = argument[: KEY_ARGUMENT_CHARS - 1] + "…"
    marks = [f"same as {call.same_as or 'an earlier output'}"] if call.same_as is not None else []
    marks += [name for name, on in (("spilled", call.spilled), ("deduped", call.deduped),
                                    ("protected", call.protected)) if on]
    status = ("ERROR", "$error") if call.error else ("OK", "$success")
    label = Content.assemble(
        (call.ref or "·", "bold $accent"), " ", (call.tool, "bold"), " ", argument, "  ",
        (f"{format_tokens(call.size)} chars", "$muted"), "  ", status,
        (f"  [{', '.join(marks)}]" if marks else "", "$custom-message-label"))
    return Node("call", label, f"{call.ref} {call.tool} {whole} {' '.join(marks)}", call.ref or call.key)


def _tools(count: int) -> str:
    return f" ({counted(count, 'tool')})"


def _summary_node(summary: SummaryView, tails: dict[str, str]) -> Node:
    turn = turn_number(summary.turn)
    label = Content.assemble((f"Turn {turn} summary", "bold $custom-message-label"),
                             (_tools(len(summary.calls)), "$muted"))
    text = f"turn {'' if summary.turn is None else turn} summary"
    return Node("summary", label, text, body=summary.text,
                children=[_call_node(c, tails) for c in summary.calls])


def _chain_node(chain: ChainView, tails: dict[str, str]) -> Node:
    """A chain with the task it did: its user prompt, on one line (the row's end is cut to the width)."""
    task = " ".join(chain.task.split())
    if len(task) > TASK_CHARS:
        task = task[: TASK_CHARS - 1] + "…"
    label = Content.assemble((f"{chain.block} compressed chain", "bold $custom-message-label"),
                             (_tools(len(chain.refs)), "$muted"), (f"  {task}" if task else "", "italic"))
    return Node("chain", label, f"{chain.block} chain {task}", body=chain.text,
                children=[_call_node(call, tails) for call in chain.calls])


def _fold_node(fold: FoldView, tails: dict[str, str]) -> Node:
    """A fold with how much of the session it took out of view; its calls are the outputs no flush had."""
    counts = [counted(fold.requests, "request")]
    counts += [counted(len(fold.calls), "tool")] if fold.calls else []
    label = Content.assemble((f"{fold.ref} folded history", "bold $custom-message-label"),
                             (f" ({' · '.join(counts)})", "$muted"))
    return Node("fold", label, f"{fold.ref} fold folded history", body=fold.text,
                children=[_call_node(call, tails) for call in fold.calls])


def condense_tree(tree: PruneTree) -> list[Node]:
    """The top-level nodes: the folds (the oldest part of the session), chains, then summaries in session
    order, then uncovered spills and aliases."""
    calls = [*(c for fold in tree.folds for c in fold.calls), *(c for chain in tree.chains for c in chain.calls),
             *(c for s in tree.summaries for c in s.calls), *tree.spilled, *tree.aliases]
    tails = distinct_tails((path for call in calls if (path := path_argument(call.tool, dict(call.args)))),
                           PATH_CHARS)
    nodes = [*(_fold_node(fold, tails) for fold in tree.folds), *(_chain_node(chain, tails) for chain in tree.chains),
             *(_summary_node(summary, tails) for summary in tree.summaries)]
    if tree.spilled:
        nodes.append(Node("group", Content.styled(f"Spilled outputs ({len(tree.spilled)})", "bold"), "spilled",
                          children=[_call_node(call, tails) for call in tree.spilled]))
    if tree.aliases:
        label = Content.styled(f"Deduplicated outputs ({len(tree.aliases)})", "bold")
        nodes.append(Node("group", label, "deduped", children=[_call_node(call, tails) for call in tree.aliases]))
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


HINT = "Enter: original output / fold · Ctrl+O: whole summary · /: filter · Esc: close"


class PrunerTreeScreen(ModalScreen[None]):
    BINDINGS: ClassVar[list[BindingType]] = [*keymap.TREE]
    DEFAULT_CSS = """
    PrunerTreeScreen { align: center middle; }
    PrunerTreeScreen > #pruner-tree-box {
        width: 95%; height: 90%; border: round $primary; background: $surface; padding: 0 1;
    }
    PrunerTreeScreen .tree-title { color: $accent; text-style: bold; }
    PrunerTreeScreen .tree-hint { color: $muted; }
    PrunerTreeScreen .tree-hint.-refused { color: $warning; }
    PrunerTreeScreen Tree { height: 1fr; background: $surface; }
    PrunerTreeScreen Input { background: $panel; }
    """

    def __init__(self, engine: CondenseEngine, branch: list[dict[str, Any]]) -> None:
        super().__init__()
        self.engine = engine
        self.pruned = prune_tree(engine, branch)
        self.nodes = condense_tree(self.pruned)
        self.tree_view = CondenseTree("condense", id="pruner-tree")
        self.filter_input = Input(placeholder="filter…", id="tree-filter", compact=True)
        self.filter_input.display = False

    def _title(self) -> str:
        summaries = sum(1 for node in self.nodes if node.kind == "summary")
        chains = sum(1 for node in self.nodes if node.kind == "chain")
        count = len(self.pruned.folds)
        folds = f"{counted(count, 'fold')} · " if count else ""
        return (f"/pruner tree · {folds}{counted(summaries, 'summary')} · {counted(chains, 'compressed chain')} · "
                f"{counted(self.pruned.call_count, 'call')}")

    def compose(self) -> Iterator[Widget]:
        with Vertical(id="pruner-tree-box"):
            yield Static(Content(self._title()), classes="tree-title")
            yield self.filter_input
            yield self.tree_view
            yield Static(Content(HINT), classes="tree-hint")

    def on_mount(self) -> None:
        self.tree_view.show_root = False
        self.fill(self.nodes, expand=sum(len(node.children) for node in self.nodes) <= EXPAND_UP_TO)
        self.tree_view.focus()

    def fill(self, nodes: list[Node], expand: bool) -> None:
        # The labels are Content: Textual types them `str | Text`, though its docs invite overriding
        # process_label (CondenseTree's does) to take other kinds, hence the ignores.
        self.tree_view.clear()
        if not nodes:
            empty = Content.styled("nothing pruned on this branch yet", "$muted")
            self.tree_view.root.add_leaf(empty)  # type: ignore[arg-type]
        for node in nodes:
            branch = self.tree_view.root.add(node.label, data=node, expand=expand,  # type: ignore[arg-type]
                                             allow_expand=bool(node.children))
            for child in node.children:
                branch.add_leaf(child.label, data=child)  # type: ignore[arg-type]
        self.tree_view.root.expand()
        self.tree_view.cursor_line = 0

    def on_tree_node_selected(self, event: Tree.NodeSelected[Node]) -> None:
        node = event.node.data
        if node is not None and node.kind == "call":
            text, _ = self.engine.query([node.key])
            self.app.push_screen(TextViewScreen(f"original output · {node.key}", text))

    def _say(self, text: str, refused: bool) -> None:
        """The hint line under the tree, which the reader is looking at (a toast would cover the rows)."""
        hint = self.query_one(".tree-hint", Static)
        hint.update(Content(text))
        hint.set_class(refused, "-refused")

    def on_tree_node_highlighted(self, _: Tree.NodeHighlighted[Node]) -> None:
        self._say(HINT, False)

    def _current(self) -> TreeNode[Node] | None:
        return self.tree_view.cursor_node

    def action_open_summary(self) -> None:
        current = self._current()
        node = current.data if current is not None else None
        if node is not None and node.kind == "call" and current is not None and current.parent is not None:
            node = current.parent.data
        if node is None or node.kind not in ("summary", "chain", "fold"):
            self._say("Ctrl+O: move to a summary, a chain or a fold first, then it shows the whole text", True)
            return
        plain = node.label.plain
        self.app.push_screen(TextViewScreen(plain, node.body or "(no summary text)", markdown=node.kind != "fold"))

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
