"""`/changelog` shows the changelog's newest entries, and an installed pi-tui carries the file."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from pi_tui.commands import app_registry
from pi_tui.commands.changelog import newest_entries
from pi_tui.screens.text_view import TextViewScreen
from tests.pi_tui.commands.test_handlers import RecordingContext

ROOT = Path(__file__).resolve().parents[3]


async def test_changelog_shows_the_newest_entries_first(tmp_path: Path) -> None:
    context = RecordingContext(tmp_path)
    assert await app_registry(context).dispatch("/changelog")
    view = context.shown[-1]
    assert isinstance(view, TextViewScreen) and view.markdown
    assert view.text.startswith("## [Unreleased]\n\n### Added\n- ")
    headings = [line for line in (ROOT / "CHANGELOG.md").read_text(encoding="utf-8").splitlines()
                if line.startswith("## ")]
    assert [line for line in view.text.splitlines() if line.startswith("## ")] == headings[:3]


def test_only_whole_sections_and_no_preamble() -> None:
    text = "# Changelog\n\nintro\n\n## [2.0]\n- b\n\n## [1.0]\n- a\n\n## [0.1]\n- z\n"
    assert newest_entries(text, 2) == "## [2.0]\n- b\n\n## [1.0]\n- a"


def test_the_built_package_carries_the_changelog(tmp_path: Path) -> None:
    """What a wheel holds is what `build_py` put in the build folder."""
    subprocess.run([sys.executable, "setup.py", "-q", "build_py", "--build-lib", str(tmp_path)], cwd=ROOT,
                   check=True, capture_output=True, timeout=120)
    shipped = tmp_path / "pi_tui" / "CHANGELOG.md"
    assert shipped.read_text(encoding="utf-8") == (ROOT / "CHANGELOG.md").read_text(encoding="utf-8")
