"""The version has one source (pi_tui/__init__.py): the installed distribution, the CLI and the engine agree."""

from __future__ import annotations

from importlib.metadata import version

import pytest

import condense
import pi_tui
from pi_tui.cli import main


def test_the_distribution_cli_and_engine_report_the_one_version(capsys: pytest.CaptureFixture[str]) -> None:
    assert version("pi-tui") == pi_tui.__version__ == condense.__version__
    try:
        main(["--version"])
    except SystemExit as exit_:
        assert exit_.code == 0
    assert capsys.readouterr().out.strip() == f"pi-tui {pi_tui.__version__}"
