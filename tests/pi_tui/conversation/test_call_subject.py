"""What a call is about, on one line: a path by the part that tells it from the others beside it."""

from __future__ import annotations

from pi_tui.conversation.call_subject import distinct_tails, path_argument

HEAD = "/Users/badlogic/workspaces/pi-mono/packages/"


def test_long_paths_that_share_their_head_show_the_end_that_tells_them_apart() -> None:
    paths = [HEAD + "coding-agent/src/index.ts", HEAD + "ai/src/index.ts", HEAD + "coding-agent/src/theme/dark.json"]
    shown = distinct_tails(paths, 36)
    assert shown == {HEAD + "coding-agent/src/index.ts": "…/packages/coding-agent/src/index.ts",
                     HEAD + "ai/src/index.ts": "…/pi-mono/packages/ai/src/index.ts",
                     HEAD + "coding-agent/src/theme/dark.json": "…/coding-agent/src/theme/dark.json"}


def test_a_path_that_fits_stays_whole_and_one_only_its_end_tells_apart_is_never_cut_shorter() -> None:
    long_twin = "a/" + "x" * 40 + "/same.py"
    shown = distinct_tails(["invoicer/pricing.py", long_twin, "b/" + "x" * 40 + "/same.py"], 20)
    assert shown["invoicer/pricing.py"] == "invoicer/pricing.py"
    assert shown[long_twin] == long_twin, "only its head tells it apart: it stays whole"


def test_only_the_path_of_a_tool_that_works_on_one_is_a_path() -> None:
    assert path_argument("read", {"path": "src/app.py"}) == "src/app.py"
    assert path_argument("bash", {"command": "cat src/app.py"}) is None
    assert path_argument("edit", {"path": "  "}) is None
