"""Skills: instructions the model reads when a task matches, found, checked and offered as Pi does.

A Pi user's skills must work unchanged, so discovery, validation and the two texts the model sees
follow Pi (0.58): the `<available_skills>` block in the system prompt and the `<skill ...>` block a
`/skill:name` message becomes (Pi's TUI recognises that block in a session file, so it is kept
byte for byte). Discovery in each skills folder: its direct `.md` files, and every `SKILL.md` below
it, skipping dot-names and `node_modules` and what `.gitignore`, `.ignore` and `.fdignore` say. Folders
are searched in `places` order; the first skill of a name wins and each later one is reported.
A problem with a file (no description, a name that breaks the Agent Skills rules) is reported in one
line; only a missing description keeps the skill out, as in Pi.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from xml.sax.saxutils import escape

from pi_tui.errors import UserError
from pi_tui.resources.frontmatter import FrontmatterError, parse_document
from pi_tui.resources.ignore_files import ignore_rules
from pi_tui.resources.places import project_dirs, user_dirs
from pi_tui.tools.walk import GitIgnore, is_ignored

COMMAND_PREFIX = "skill:"
MAX_NAME_LENGTH = 64
MAX_DESCRIPTION_LENGTH = 1024
_NAME = re.compile(r"[a-z0-9-]+")
_XML_QUOTES = {'"': "&quot;", "'": "&apos;"}


@dataclass(frozen=True)
class Skill:
    name: str
    description: str
    path: Path  # the SKILL.md (or a skills folder's own .md file)
    disable_model_invocation: bool = False  # only `/skill:name` brings it in; the prompt leaves it out

    @property
    def base_dir(self) -> Path:
        return self.path.parent


class SkillReadError(UserError):
    """A skill that was listed can no longer be read when `/skill:name` asks for it."""


def _agents_dirs(cwd: Path) -> list[Path]:
    """`.agents/skills` in the cwd and each folder above it, up to the git repository's root (or `/`)."""
    start = cwd.resolve()
    chain = [start, *start.parents]
    top = next((folder for folder in chain if (folder / ".git").exists()), None)
    found = []
    for folder in chain:
        found.append(folder / ".agents" / "skills")
        if folder == top:
            break
    return found


def skill_folders(cwd: Path) -> list[Path]:
    """Where skills are searched, the winning one first: the project's, then the user's."""
    user_agents = Path.home() / ".agents" / "skills"
    ancestors = [folder for folder in _agents_dirs(cwd) if folder.resolve() != user_agents.resolve()]
    return [*(folder / "skills" for folder in project_dirs(cwd)), *ancestors,
            *(folder / "skills" for folder in user_dirs()), user_agents]


def skill_files(root: Path) -> list[Path]:
    """The skill files under one skills folder, in name order (the system prompt must not change
    with the order a file system lists a folder in). Symlinks are followed, each folder once."""
    found: list[Path] = []
    seen: set[Path] = set()

    def visit(folder: Path, rel: str, rules: list[GitIgnore]) -> None:
        try:
            real = folder.resolve(strict=True)
            entries = sorted(os.scandir(folder), key=lambda entry: entry.name)
        except OSError:
            return
        if real in seen:
            return
        seen.add(real)
        rules = [*rules, *ignore_rules(folder, rel)]
        for entry in entries:
            if entry.name.startswith(".") or entry.name == "node_modules":
                continue
            child = f"{rel}/{entry.name}" if rel else entry.name
            is_dir = entry.is_dir()
            if is_ignored(rules, child, is_dir):
                continue
            if is_dir:
                visit(Path(entry.path), child, rules)
            elif entry.is_file() and (entry.name == "SKILL.md" if rel else entry.name.endswith(".md")):
                found.append(Path(entry.path))

    visit(root, "", [])
    return found


def _name_problems(name: str, folder: str) -> list[str]:
    problems = []
    if name != folder:
        problems.append(f'name "{name}" does not match its folder "{folder}"')
    if len(name) > MAX_NAME_LENGTH:
        problems.append(f"name is longer than {MAX_NAME_LENGTH} characters ({len(name)})")
    if not _NAME.fullmatch(name):
        problems.append("name may hold only lowercase a-z, 0-9 and hyphens")
    if name.startswith("-") or name.endswith("-"):
        problems.append("name must not start or end with a hyphen")
    if "--" in name:
        problems.append("name must not hold two hyphens in a row")
    return problems


def _description_problem(description: object) -> str | None:
    if not isinstance(description, str) or not description.strip():
        return "description is required: the skill is left out"
    if len(description) > MAX_DESCRIPTION_LENGTH:
        return f"description is longer than {MAX_DESCRIPTION_LENGTH} characters ({len(description)})"
    return None


def read_skill(path: Path) -> tuple[Skill | None, list[str]]:
    """The skill in `path` and one line per problem with it (`skill <path>: <problem>`)."""
    try:
        fields = parse_document(path.read_text(encoding="utf-8", errors="replace")).fields
    except (OSError, FrontmatterError) as exc:
        reason = exc.strerror if isinstance(exc, OSError) else str(exc)
        return None, [f"skill {path}: {reason}"]
    description = fields.get("description")
    name = str(fields.get("name") or path.parent.name)
    problem = _description_problem(description)
    problems = [f"skill {path}: {text}" for text in
                [*([problem] if problem else []), *_name_problems(name, path.parent.name)]]
    if not isinstance(description, str) or not description.strip():
        return None, problems
    return Skill(name, description, path, fields.get("disable-model-invocation") is True), problems


def load_skills(folders: Iterable[Path]) -> tuple[list[Skill], list[str]]:
    """Every skill in `folders` (the first of a name wins) and the problems found, collisions last.
    A file reached twice through a symlink counts once, silently."""
    skills: dict[str, Skill] = {}
    real_paths: set[Path] = set()
    problems: list[str] = []
    collisions: list[str] = []
    for folder in folders:
        for path in skill_files(folder):
            skill, found = read_skill(path)
            problems += found
            if skill is None or path.resolve() in real_paths:
                continue
            if skill.name in skills:
                collisions.append(f'skill "{skill.name}": {path} is skipped, {skills[skill.name].path} has that name')
                continue
            skills[skill.name] = skill
            real_paths.add(path.resolve())
    return list(skills.values()), problems + collisions


def skills_prompt(skills: Iterable[Skill]) -> str:
    """The system prompt's part listing the skills (Pi's `<available_skills>` block), or ""."""
    visible = [skill for skill in skills if not skill.disable_model_invocation]
    if not visible:
        return ""
    lines = ["\n\nSkills below hold instructions for particular kinds of task.",
             "When a task fits a skill's description, read its file with the read tool first.",
             "A relative path inside a skill file is relative to the skill's folder (where its file is):"
             " turn it into an absolute path before using it in a tool call.",
             "", "<available_skills>"]
    for skill in visible:
        lines += ["  <skill>", f"    <name>{escape(skill.name, _XML_QUOTES)}</name>",
                  f"    <description>{escape(skill.description, _XML_QUOTES)}</description>",
                  f"    <location>{escape(str(skill.path), _XML_QUOTES)}</location>", "  </skill>"]
    lines.append("</available_skills>")
    return "\n".join(lines)


def expand_skill_command(text: str, skills: Iterable[Skill]) -> str:
    """`/skill:name args` as the message Pi sends for it (the skill's body in a `<skill>` block, then
    the arguments); any other text, or an unknown skill's name, unchanged."""
    if not text.startswith("/" + COMMAND_PREFIX):
        return text
    name, _, args = text[len(COMMAND_PREFIX) + 1:].partition(" ")
    skill = next((skill for skill in skills if skill.name == name), None)
    if skill is None:
        return text
    try:
        body = parse_document(skill.path.read_text(encoding="utf-8", errors="replace")).body.strip()
    except (OSError, FrontmatterError) as exc:
        reason = exc.strerror if isinstance(exc, OSError) else str(exc)
        raise SkillReadError(f"skill {name}: cannot read {skill.path} ({reason}); fix it, then /reload") from None
    block = (f'<skill name="{skill.name}" location="{skill.path}">\n'
             f"References are relative to {skill.base_dir}.\n\n{body}\n</skill>")
    args = args.strip()
    return f"{block}\n\n{args}" if args else block
