"""condense-engine, the engine's own distribution, as an agent author gets it: its wheel, built from engine/,
installed alone in a fresh virtualenv with pip and without the network. pip resolves the wheel's requirements
against a site-packages holding only the closures of pydantic and filelock (linked from the test virtualenv),
so a requirement beyond them fails the install. There, docs/LIBRARY.md's first example runs as written,
`mypy --strict` reads the wheel's types, and `condense.__version__` is the wheel's version. Nothing here
reaches the package index: the build uses the test virtualenv's setuptools, the install finds every
requirement already in place. The module's tests share one worker, so the wheel is built once per run."""

from __future__ import annotations

import importlib.metadata
import json
import os
import re
import shutil
import subprocess
import sys
import venv
import zipfile
from pathlib import Path

import pytest
from packaging.utils import canonicalize_name

from tests.support.library_doc import DOC, ROOT, check_offline_output, python_blocks, run_block

ENGINE = ROOT / "engine"
pytestmark = pytest.mark.xdist_group("engine-wheel")  # one worker builds the wheel and the virtualenv

UNWANTED = ("pi_tui", "textual", "rich", "litellm", "openai", "anthropic")

TYPED_AGENT = '''"""A typed agent on condense alone: the request it builds and what each turn pruned."""
import json

from condense import OpenAICondenser, PruneResult


def turn(ctx: OpenAICondenser, n: int) -> PruneResult:
    call = {"id": f"call_{n}", "type": "function",
            "function": {"name": "read", "arguments": json.dumps({"path": f"m{n}.py"})}}
    ctx.add_sync([{"role": "user", "content": f"what does m{n}.py do?"}])
    ctx.add_sync([{"role": "assistant", "content": None, "tool_calls": [call]},
                  {"role": "tool", "tool_call_id": f"call_{n}", "content": "x = 1\\n" * 200}])
    return ctx.add_sync([{"role": "assistant", "content": f"m{n}.py sets x."}])


def main() -> int:
    with OpenAICondenser(None) as ctx:
        saved = sum(turn(ctx, n).saved_tokens for n in range(3))
        request = [{"role": "system", "content": "Be brief."}, *ctx.messages()]
        print(len(request), ctx.tool_name, saved)
        return saved
'''
# A wrong use, so that a pass above cannot come from condense's types being unknown (Any)
MISTYPED_AGENT = '''from condense import OpenAICondenser

saved: str = OpenAICondenser(None).add_sync([]).saved_tokens
'''


def offline_env() -> dict[str, str]:
    """pip reading no configuration (this machine's mirrors and links included) and no PYTHONPATH."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("PIP_") and k != "PYTHONPATH"}
    return {**env, "PIP_CONFIG_FILE": os.devnull, "PIP_DISABLE_PIP_VERSION_CHECK": "1"}


def pip(python: Path, *args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    """The test virtualenv's pip, working on `python`'s environment (which has no pip of its own)."""
    return subprocess.run([sys.executable, "-m", "pip", "--python", str(python), *args], env=env,
                          capture_output=True, text=True, timeout=900, check=False)


def fresh_virtualenv(where: Path) -> tuple[Path, Path]:
    """A virtualenv with nothing installed: its python and its site-packages."""
    venv.create(where, with_pip=False)
    python = where / "bin" / "python"
    site = subprocess.run([str(python), "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"],
                          capture_output=True, text=True, timeout=60, check=True).stdout.strip()
    return python, Path(site)


def requirement_closure(name: str, seen: set[str] | None = None) -> set[str]:
    """`name` and every distribution it needs at run time (extras left out), as installed here."""
    seen = set() if seen is None else seen
    if name not in seen:
        seen.add(name)
        for requirement in importlib.metadata.requires(name) or []:
            if "extra ==" not in requirement:
                requirement_closure(re.split(r"[^A-Za-z0-9_.-]", requirement, maxsplit=1)[0], seen)
    return seen


def installed_paths(name: str) -> set[Path]:
    """A distribution's top-level packages and modules, and its .dist-info folder (so pip sees it installed)."""
    dist = importlib.metadata.distribution(name)
    tops = {f.parts[0] for f in dist.files or [] if f.parts[0] not in ("..", "__pycache__")
            and (len(f.parts) > 1 or f.suffix in (".py", ".so"))}
    return {Path(str(dist.locate_file(top))) for top in tops}


def installed(python: Path) -> set[str]:
    listed = pip(python, "list", "--format", "json", env=offline_env())
    assert listed.returncode == 0, listed.stderr
    return {canonicalize_name(row["name"]) for row in json.loads(listed.stdout)}


def documented_install() -> tuple[int, set[str]]:
    """What LIBRARY.md says `pip install condense-engine` installs: how many packages, and which."""
    found = re.search(r"installs (\d+) packages: ([^()]*?) \(", DOC.read_text(encoding="utf-8"))
    assert found, "LIBRARY.md no longer says what the engine installs"
    names = re.split(r",\s*|\s+and\s+", found[2].replace("`", ""))
    return int(found[1]), {canonicalize_name(name) for name in names}


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The engine's wheel, built offline by the test virtualenv's setuptools from a clean copy of engine/."""
    source = tmp_path_factory.mktemp("source") / "engine"
    shutil.copytree(ENGINE, source, ignore=shutil.ignore_patterns("build", "*.egg-info", "__pycache__"))
    out = tmp_path_factory.mktemp("wheel")
    built = subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "--no-index",
                            "--wheel-dir", str(out), str(source)], env=offline_env(), capture_output=True, text=True,
                           timeout=300, check=False)
    assert built.returncode == 0, built.stdout + built.stderr
    (found,) = out.glob("condense_engine-*-py3-none-any.whl")
    return found


@pytest.fixture(scope="module")
def engine_python(wheel: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A fresh virtualenv where pip installed the wheel offline, finding its requirements already there."""
    python, site = fresh_virtualenv(tmp_path_factory.mktemp("venv") / "venv")
    for dist in requirement_closure("pydantic") | requirement_closure("filelock"):
        for path in installed_paths(dist):
            (site / path.name).symlink_to(path)
    done = pip(python, "install", "--no-index", "--no-cache-dir", str(wheel), env=offline_env())
    assert done.returncode == 0, done.stdout + done.stderr
    return python


def test_the_wheel_holds_the_engine_and_its_type_marker_only(wheel: Path) -> None:
    names = zipfile.ZipFile(wheel).namelist()
    assert {name.split("/")[0] for name in names} == {"condense", wheel.name.split("-py3")[0] + ".dist-info"}
    assert "condense/py.typed" in names and "condense/litellm_summary.py" in names


def test_the_engine_installs_alone_and_runs_the_first_example(engine_python: Path, tmp_path: Path) -> None:
    """pip accepted the wheel with pydantic and filelock alone; the packages are the ones LIBRARY.md counts."""
    count, names = documented_install()
    assert installed(engine_python) == names and len(names) == count
    probe = f"import importlib.util as u; print([m for m in {UNWANTED!r} if u.find_spec(m)])"
    assert subprocess.run([str(engine_python), "-c", probe], cwd=tmp_path, capture_output=True, text=True,
                          timeout=60, check=True).stdout.strip() == "[]"
    check_offline_output(run_block(python_blocks()[0], tmp_path, str(engine_python)))


def test_the_litellm_summariser_without_its_extra_says_how_to_install_it(engine_python: Path,
                                                                         tmp_path: Path) -> None:
    """`condense.litellm_summary` imports without litellm; asking it for a summariser names the extra."""
    code = ("from condense import ConfigError\nfrom condense.litellm_summary import litellm_summarizer\n"
            "try:\n    litellm_summarizer('openai/gpt-4o-mini')\nexcept ConfigError as exc:\n    print(exc)")
    said = subprocess.run([str(engine_python), "-c", code], cwd=tmp_path, capture_output=True, text=True,
                          timeout=60, check=True).stdout
    assert said == ("condense: litellm_summarizer('openai/gpt-4o-mini') needs litellm, which is not installed;"
                    " pip install 'condense-engine[litellm]'\n")


def test_mypy_strict_reads_the_types_of_the_installed_wheel(engine_python: Path, tmp_path: Path) -> None:
    """A typed agent passes `mypy --strict` with condense found in site-packages (no "Cannot find
    implementation"), and a wrong use is caught, so the pass is not condense's types read as Any."""
    (tmp_path / "agent.py").write_text(TYPED_AGENT, encoding="utf-8")
    (tmp_path / "mistyped.py").write_text(MISTYPED_AGENT, encoding="utf-8")
    (tmp_path / "mypy.ini").write_text("[mypy]\n", encoding="utf-8")  # no setting of the repository's
    done = subprocess.run([sys.executable, "-m", "mypy", "--strict", "--config-file", "mypy.ini",
                           "--python-executable", str(engine_python), "--cache-dir", str(tmp_path / "cache"),
                           "agent.py", "mistyped.py"], cwd=tmp_path, env=offline_env(), capture_output=True,
                          text=True, timeout=600, check=False)
    errors = [line for line in done.stdout.splitlines() if ": error:" in line]
    assert errors == ['mistyped.py:3: error: Incompatible types in assignment (expression has type "int", variable'
                      ' has type "str")  [assignment]'], done.stdout + done.stderr


def test_the_version_is_the_wheel_s(engine_python: Path, wheel: Path, tmp_path: Path) -> None:
    code = "import condense, importlib.metadata as m; print(condense.__version__, m.version('condense-engine'))"
    reported = subprocess.run([str(engine_python), "-c", code], cwd=tmp_path, capture_output=True, text=True,
                              timeout=60, check=True).stdout.split()
    assert reported == [wheel.name.split("-")[1]] * 2

