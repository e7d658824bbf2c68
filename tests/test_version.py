"""Each distribution's version has one source: pi-tui's in pi_tui/__init__.py, the engine's (condense-engine)
in condense/__init__.py; the installed metadata and the CLI agree, and pi-tui accepts the engine beside it.
tests/condense/test_distribution.py checks the engine's in its wheel."""

from __future__ import annotations

from importlib.metadata import requires, version

import pytest
from packaging.requirements import Requirement

import condense
import pi_tui
from pi_tui.cli import main


def test_the_distribution_and_cli_report_the_one_version(capsys: pytest.CaptureFixture[str]) -> None:
    assert version("pi-tui") == pi_tui.__version__
    try:
        main(["--version"])
    except SystemExit as exit_:
        assert exit_.code == 0
    assert capsys.readouterr().out.strip() == f"pi-tui {pi_tui.__version__}"


def test_pi_tui_requires_the_engine_of_this_tree() -> None:
    assert version("condense-engine") == condense.__version__
    (engine,) = [r for r in map(Requirement, requires("pi-tui") or []) if r.name == "condense-engine"]
    assert engine.specifier.contains(condense.__version__)
