"""Reading a session file line by line: a line that cannot be used is named and skipped, never a crash."""

from __future__ import annotations

import json
from pathlib import Path

from condense.session_file import read_lines


def test_a_deeply_nested_line_holding_a_surrogate_escape_is_named_and_the_rest_read(tmp_path: Path) -> None:
    """json reads 800 levels, but making its strings valid walked them one Python call per level: a
    RecursionError ended every reader of the file (`pi-tui show` with an internal error)."""
    deep = "[" * 800 + '"\\ud83d"' + "]" * 800
    good = {"type": "message", "id": "a1", "parentId": None, "message": {"role": "user", "content": "hi"}}
    path = tmp_path / "deep.jsonl"
    path.write_text(f'{{"type":"custom","id":"d1","parentId":"a1","data":{deep}}}\n{json.dumps(good)}\n')
    values, warnings, _ = read_lines(path)
    assert [value for _, value in values] == [good]
    assert [(w.line, "nested too deeply" in str(w)) for w in warnings] == [(1, True)]
