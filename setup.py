"""Everything about the package is in pyproject.toml; this only ships CHANGELOG.md inside it, where
`/changelog` reads it in an installed pi-tui (the file itself stays at the top of the repository)."""

from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

CHANGELOG = Path(__file__).resolve().parent / "CHANGELOG.md"


class BuildWithChangelog(build_py):  # type: ignore[misc]  # setuptools ships no types
    def run(self) -> None:
        super().run()
        target = Path(self.build_lib, "pi_tui", "CHANGELOG.md")
        self.mkpath(str(target.parent))  # an editable build copies no package there
        self.copy_file(str(CHANGELOG), str(target))


setup(cmdclass={"build_py": BuildWithChangelog})
