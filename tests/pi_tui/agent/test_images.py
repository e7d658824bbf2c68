"""Which pastes name an image file: one line that is a path; any other paste is text, whatever the file
system makes of it."""

from __future__ import annotations

from pathlib import Path

import pytest

from pi_tui.agent.images import pasted_path


@pytest.mark.parametrize("pasted", [
    "shot.png\rnotes",  # two lines, the CR a terminal pastes between them
    "shot.png\r\nnotes",
    "x" * 300,  # a name part longer than the file system takes
    "/tmp/" + "x/" * 3000,  # longer than any path
    "sh\x00ot.png",  # a NUL byte
    "~nosuchuser/shot.png",
], ids=["cr", "crlf", "long-name", "long-path", "nul", "unknown-user"])
def test_a_paste_that_cannot_be_a_path_names_no_file(tmp_path: Path, pasted: str) -> None:
    (tmp_path / "shot.png").write_bytes(b"\x89PNG")
    assert pasted_path(pasted, tmp_path) is None


def test_a_dropped_path_names_its_file_quoted_escaped_or_as_a_url(tmp_path: Path) -> None:
    picture = tmp_path / "my shot.png"
    picture.write_bytes(b"\x89PNG")
    for pasted in (f"'{picture}'", str(picture).replace(" ", "\\ "), f"file://{tmp_path}/my%20shot.png\r",
                   "my\\ shot.png"):
        assert pasted_path(pasted, tmp_path) == picture
