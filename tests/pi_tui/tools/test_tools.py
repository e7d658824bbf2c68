"""The tool registry: names, defaults, construction and unknown names."""

from pathlib import Path
from typing import cast

import pytest
from pydantic import ValidationError

from pi_tui.tools import ALL_TOOLS, DEFAULT_TOOL_NAMES, make_tools
from pi_tui.tools.base import ToolContext
from pi_tui.tools.bash import BashTool
from tests.support.typed import text_at

SPEC_PARAMS = {
    "read": ({"path"}, {"offset", "limit"}),
    "bash": ({"command"}, {"timeout"}),
    "edit": ({"path", "oldText", "newText"}, set()),
    "write": ({"path", "content"}, set()),
    "grep": ({"pattern"}, {"path", "glob", "ignoreCase", "literal", "context", "limit"}),
    "find": ({"pattern"}, {"path", "limit"}),
    "ls": (set(), {"path", "limit"}),
}


def test_all_tools_by_name() -> None:
    assert set(ALL_TOOLS) == set(SPEC_PARAMS)
    assert DEFAULT_TOOL_NAMES == ("read", "bash", "edit", "write")
    for name, tool in ALL_TOOLS.items():
        assert tool.name == name and tool.label and len(tool.description) > 40


@pytest.mark.parametrize("name", sorted(SPEC_PARAMS))
def test_parameter_names_follow_the_spec(name: str) -> None:
    required, optional = SPEC_PARAMS[name]
    schema = ALL_TOOLS[name].schema()
    assert set(schema.get("required", [])) == required
    assert set(schema["properties"]) == required | optional
    assert "title" not in schema
    assert all("description" in prop for prop in schema["properties"].values())


def test_make_tools_keeps_order_and_configures_bash(tmp_path: Path) -> None:
    tools = make_tools(["ls", "bash", "read"], shell="/bin/sh", shell_prefix="X=1")
    assert [tool.name for tool in tools] == ["ls", "bash", "read"]
    assert isinstance(tools[1], BashTool)


async def test_shell_settings_reach_the_bash_tool(tmp_path: Path) -> None:
    (tool,) = make_tools(["bash"], shell="/bin/sh", shell_prefix="GREETING=hi")
    bash = cast(BashTool, tool)
    out = await bash.run(bash.Params(command='echo "$0 $GREETING"'), ToolContext(cwd=tmp_path))
    assert text_at(out.content) == "/bin/sh hi\n"


def test_unknown_names_are_one_line_error() -> None:
    with pytest.raises(ValueError) as info:
        make_tools(["read", "grpe", "shell"])
    message = str(info.value)
    assert "\n" not in message and "grpe" in message and "shell" in message and "read," in message


@pytest.mark.parametrize(("name", "field"), [("read", "offset"), ("read", "limit"), ("bash", "timeout"),
                                             ("grep", "context"), ("find", "limit"), ("ls", "limit")])
def test_true_or_false_is_refused_where_a_number_is_asked(name: str, field: str) -> None:
    """pydantic read `true` as 1; a boolean field (grep's ignoreCase) still takes one."""
    arguments = {"path": "a.txt", "command": "ls", "pattern": "x", field: True}
    with pytest.raises(ValidationError) as refused:
        ALL_TOOLS[name].Params.model_validate(arguments)
    assert refused.value.errors()[0]["msg"] == "Input should be a number, not true or false"
    assert ALL_TOOLS["grep"].Params.model_validate({"pattern": "x", "ignoreCase": True})
