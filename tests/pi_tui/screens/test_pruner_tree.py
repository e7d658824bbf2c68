"""`/pruner tree` (what condense did, as a foldable tree) and the generated settings forms."""

from __future__ import annotations

import json
from pathlib import Path
from types import MappingProxyType
from typing import Literal

import pytest
from pydantic import BaseModel, Field
from textual.widgets import Static

from condense import CallView, ChainView, PruneTree, SummaryView, prune_tree
from condense.config import CondenseConfig
from pi_tui.modes.offline import offline_engine
from pi_tui.screens.form import field_specs, parse_value, to_text
from pi_tui.screens.pruner_tree import HINT, PrunerTreeScreen, condense_tree, filter_nodes
from pi_tui.screens.text_view import TextViewScreen
from pi_tui.session.store import Session
from pi_tui.settings import Settings
from tests.conftest import corpus_copy

CHAIN = {"type": "custom", "id": "000000aa", "parentId": "0000000b", "timestamp": "2026-01-02T03:04:05.000Z",
         "customType": "context-prune-chain",
         "data": {"blockId": "b1", "startUserTimestamp": 1_000, "finalAssistantTimestamp": 6_000,
                  "toolRefs": ["t1", "t3"], "rangeSummaryText": "Fixed the tax bug.", "compressedAt": 7_000}}
ALIAS = {"type": "custom", "id": "000000ab", "parentId": "000000aa", "timestamp": "2026-01-02T03:04:05.000Z",
         "customType": "context-prune-dedup-alias",
         "data": {"newToolCallId": "call_9", "newResultTimestamp": 9_000, "originalToolCallId": "call_2",
                  "originalResultTimestamp": 3_001}}


def engine_for(path: Path, *extra: dict) -> tuple:  # type: ignore[type-arg]
    with path.open("a", encoding="utf-8") as handle:
        for entry in extra:
            handle.write(json.dumps(entry) + "\n")
    session = Session.open(path)
    engine, _ = offline_engine(session, CondenseConfig())
    return engine, session.branch_entries()


def test_the_tree_holds_summaries_with_their_calls(fixed_session) -> None:
    engine, branch = engine_for(fixed_session())
    [summary] = condense_tree(prune_tree(engine, branch))
    assert summary.label.plain == "Turn 1 summary (3 tools)"  # turns counted from 1, as users count them
    assert [child.label.plain for child in summary.children] == [
        "t1 bash python3 -m unittest  92 chars  ERROR",
        "t2 read invoicer/pricing.py  1.7k chars  OK",
        "t3 edit invoicer/pricing.py  27 chars  OK",
    ]
    assert summary.body.startswith("- `t1` bash python3 -m unittest")


def test_chains_and_deduplicated_outputs_get_their_own_nodes(fixed_session) -> None:
    engine, branch = engine_for(fixed_session(), CHAIN, ALIAS)
    nodes = condense_tree(prune_tree(engine, branch))
    assert [node.kind for node in nodes] == ["chain", "summary", "group"]
    chain, _, aliases = nodes
    assert chain.label.plain == "b1 compressed chain (2 tools)  Fix the failing test", "its task: the user prompt"
    assert chain.body == "Fixed the tax bug."
    assert [child.key for child in chain.children] == ["t1", "t3"]
    assert aliases.label.plain == "Deduplicated outputs (1)"
    assert aliases.children[0].label.plain.endswith("[same as t2, deduped]")


def test_calls_on_long_paths_show_the_end_that_tells_them_apart_and_filter_by_the_whole_path() -> None:
    head = "/Users/badlogic/workspaces/pi-mono/packages/coding-agent/src/"
    calls = tuple(CallView(f"c{n}@{n}", f"t{n}", "read", MappingProxyType({"path": head + name}), 1200)
                  for n, name in enumerate(("theme/dark.json", "theme/light.json", "tui/theme-selector.ts"), 1))
    [node] = condense_tree(PruneTree((), (SummaryView(3, "Read the themes.", calls),), (), ()))
    assert [child.label.plain for child in node.children] == [
        "t1 read …/coding-agent/src/theme/dark.json  1.2k chars  OK",
        "t2 read …/coding-agent/src/theme/light.json  1.2k chars  OK",
        "t3 read …/src/tui/theme-selector.ts  1.2k chars  OK"]  # 36 characters at most
    assert [child.key for child in filter_nodes([node], "badlogic/workspaces")[0].children] == ["t1", "t2", "t3"]


def test_a_long_task_is_shown_on_one_line() -> None:
    chain = ChainView("b4", (), 1_000, "", (), "fix the tui tests:\n" + "the sources moved " * 10)
    [node] = condense_tree(PruneTree((chain,), (), (), ()))
    assert node.label.plain.startswith("b4 compressed chain (0 tools)  fix the tui tests: the sources moved")
    assert "\n" not in node.label.plain and node.label.plain.endswith("…")


def test_protected_outputs_are_marked(fixed_session) -> None:
    path = fixed_session()
    session = Session.open(path)
    engine, _ = offline_engine(session, CondenseConfig(protected_tools=["bash"]))
    labels = [child.label.plain for child in condense_tree(prune_tree(engine, session.branch_entries()))[0].children]
    assert labels[0].endswith("[protected]") and not labels[1].endswith("]")


def test_the_filter_keeps_matching_calls_under_their_summary(fixed_session) -> None:
    engine, branch = engine_for(fixed_session(), CHAIN)
    filtered = filter_nodes(condense_tree(prune_tree(engine, branch)), "edit")
    assert [(node.kind, [child.key for child in node.children]) for node in filtered] == [
        ("chain", ["t3"]), ("summary", ["t3"])]
    whole = filter_nodes(condense_tree(prune_tree(engine, branch)), "b1")[0]  # a node that matches keeps all its calls
    assert [child.key for child in whole.children] == ["t1", "t3"]


async def test_slash_filters_the_tree_and_enter_shows_the_original(make_app, fixed_session, wait) -> None:
    app = make_app(session=fixed_session(), model=None)
    async with app.run_test(size=(110, 32)) as pilot:
        await wait(pilot)
        app.push_screen(PrunerTreeScreen(app.runtime.engine, app.runtime.host.session.branch_entries()))
        await pilot.pause()
        screen = app.screen
        await pilot.press("slash", *"read", "enter")
        await pilot.pause()
        tree = screen.tree_view
        shown = [node.data.key for node in tree.root.children[0].children]
        assert shown == ["t2"]
        await pilot.press("down", "enter")
        await pilot.pause()
        assert isinstance(app.screen, TextViewScreen)
        assert "line 40: total = subtotal - discount + tax" in app.screen.text



async def test_ctrl_o_on_a_row_without_text_says_so_in_the_hint_line_not_a_toast(make_app, fixed_session, wait) -> None:
    path = fixed_session()
    engine_for(path, CHAIN, ALIAS)
    app = make_app(session=path, model=None)
    async with app.run_test(size=(110, 32)) as pilot:
        await wait(pilot)
        app.push_screen(PrunerTreeScreen(app.runtime.engine, app.runtime.host.session.branch_entries()))
        await pilot.pause()
        hint = app.screen.query_one(".tree-hint", Static)
        await pilot.press("end", "ctrl+o")  # the deduplicated outputs: no summary of their own
        await pilot.pause()
        assert "move to a summary, a chain or a fold first" in str(hint.render())
        assert hint.has_class("-refused") and not app._notifications
        await pilot.press("home")
        await pilot.pause()
        assert str(hint.render()) == HINT and not hint.has_class("-refused")

class Sample(BaseModel):
    flag: bool = Field(True, description="A switch.")
    mode: Literal["a", "b"] = "a"
    count: int = Field(3, ge=0)
    share: float | None = None
    names: list[str] = Field(default_factory=list)
    table: dict[str, str] = Field(default_factory=dict)


class Outer(BaseModel):
    inner: Sample = Field(default_factory=Sample, description="A group.")
    label: str | None = None


def test_field_specs_follow_the_types() -> None:
    specs = field_specs(Outer)
    group = specs[0]
    assert (group.kind, group.description) == ("group", "A group.")
    assert [(s.dotted, s.kind, s.optional) for s in group.children] == [
        ("inner.flag", "bool", False), ("inner.mode", "choice", False), ("inner.count", "int", False),
        ("inner.share", "float", True), ("inner.names", "list", False), ("inner.table", "readonly", False)]
    assert group.children[1].choices == ["a", "b"]
    assert (specs[1].kind, specs[1].optional) == ("text", True)
    assert specs[0].children[0].dom_id == "field-inner-flag"


def test_every_condense_and_host_setting_gets_a_control() -> None:
    condense = field_specs(CondenseConfig)
    kinds = {spec.dotted: spec.kind for group in condense for spec in (group.children or [group])}
    assert kinds["enabled"] == "bool" and kinds["prune_on"] == "choice" and kinds["protected_paths"] == "list"
    assert kinds["auto_budget_threshold"] == "float" and kinds["chain_compression.rolling_window"] == "int"
    host = field_specs(Settings, skip=frozenset({"condense", "keymap"}), choices={"theme": ["dark", "light"]})
    names = {spec.dotted: spec for group in host for spec in (group.children or [group])}
    assert "condense.enabled" not in names and "keymap" not in names
    assert names["theme"].choices == ["dark", "light"] and names["retry.max_retries"].kind == "int"
    assert names["default_model"].kind == "text" and names["default_model"].optional


def test_typed_values_are_parsed_or_refused_in_words() -> None:
    count, share, names = field_specs(Sample)[2:5]
    assert parse_value(count, " 12 ") == 12
    with pytest.raises(ValueError, match="count: expected a whole number, got 'x'"):
        parse_value(count, "x")
    assert parse_value(share, "") is None and parse_value(share, "0.5") == 0.5
    assert parse_value(names, "a, b,,c ") == ["a", "b", "c"]
    assert to_text(names, ["a", "b"]) == "a, b" and to_text(share, None) == ""


async def test_a_history_fold_is_a_row_of_its_own_with_its_block(make_app, send, wait, wait_for, tmp_path) -> None:
    """`/pruner now` on the long corpus session folds its oldest requests: the tree shows the fold (its ref,
    the requests it took out of view) beside the chains and summaries, and Ctrl+O shows its block."""
    copy = corpus_copy("pi-large-session.jsonl", tmp_path)
    app = make_app(session=copy)
    async with app.run_test(size=(110, 32)) as pilot:
        await wait(pilot)
        await send(pilot, "/pruner now")
        [fold] = app.runtime.engine.history_fold.folds
        await send(pilot, "/pruner tree", opens=PrunerTreeScreen)
        screen = app.screen
        assert isinstance(screen, PrunerTreeScreen)
        first = screen.tree_view.root.children[0].data
        assert first is not None and first.kind == "fold"
        assert first.label.plain.startswith(f"{fold.ref} folded history ({fold.folded} requests")
        assert "/pruner tree · 1 fold · " in str(screen.query_one(".tree-title", Static).render())
        await pilot.press("ctrl+o")
        await wait_for(pilot, lambda: isinstance(app.screen, TextViewScreen))
        assert isinstance(app.screen, TextViewScreen) and app.screen.text == fold.text
