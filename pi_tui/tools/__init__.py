"""The built-in coding tools and the one place that knows them all by name (`--tools`, settings)."""

from __future__ import annotations

from collections.abc import Iterable

from pi_tui.tools.base import Tool
from pi_tui.tools.bash import BashTool
from pi_tui.tools.edit import EditTool
from pi_tui.tools.find import FindTool
from pi_tui.tools.grep import GrepTool
from pi_tui.tools.ls import LsTool
from pi_tui.tools.read import ReadTool
from pi_tui.tools.write import WriteTool

ALL_TOOLS: dict[str, type[Tool]] = {
    tool.name: tool for tool in (ReadTool, BashTool, EditTool, WriteTool, GrepTool, FindTool, LsTool)
}
DEFAULT_TOOL_NAMES = ("read", "bash", "edit", "write")


def make_tools(
    names: Iterable[str], *, shell: str | None = None, shell_prefix: str | None = None
) -> list[Tool]:
    """Instances of the named tools, in the order given; `shell`/`shell_prefix` configure `bash`."""
    names = list(names)
    unknown = [name for name in names if name not in ALL_TOOLS]
    if unknown:
        raise ValueError(f"Unknown tool name(s): {', '.join(unknown)}. Available: {', '.join(ALL_TOOLS)}")
    return [
        BashTool(shell=shell, prefix=shell_prefix) if name == "bash" else ALL_TOOLS[name]()
        for name in names
    ]
