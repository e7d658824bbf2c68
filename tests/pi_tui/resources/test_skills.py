"""Skills are found, checked and sent as Pi finds, checks and sends them, in Pi's folders and pi-tui's."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from pi_tui.resources.skills import (
    SkillReadError,
    expand_skill_command,
    load_skills,
    skill_files,
    skill_folders,
    skills_prompt,
)
from tests.support.pi_home import SKILL, SKILL_BODY, pi_agent_dir, write_skill


def names(cwd: Path) -> list[str]:
    return [skill.name for skill in load_skills(skill_folders(cwd))[0]]


def test_every_place_pi_and_pi_tui_keep_skills_is_searched(tmp_path: Path) -> None:
    project = tmp_path / "repo" / "app"
    (tmp_path / "repo" / ".git").mkdir(parents=True)
    project.mkdir()
    write_skill(pi_agent_dir() / "skills", "pi-global")
    write_skill(Path.home() / ".agents" / "skills", "agents-global")
    write_skill(Path(os.environ["PI_TUI_HOME"]) / "skills", "pi-tui-global")
    write_skill(project / ".pi" / "skills", "pi-project")
    write_skill(project / ".pi-tui" / "skills", "pi-tui-project")
    write_skill(tmp_path / "repo" / ".agents" / "skills", "agents-repo-root")
    write_skill(tmp_path / ".agents" / "skills", "above-the-repo")  # past the git root: not searched
    assert sorted(names(project)) == ["agents-global", "agents-repo-root", "pi-global", "pi-project",
                                      "pi-tui-global", "pi-tui-project"]


def test_a_skills_folder_holds_root_md_files_and_skill_md_files_at_any_depth(tmp_path: Path) -> None:
    root = tmp_path / "skills"
    write_skill(root, "deep", folder="group/deep")
    (root / "flat.md").write_text("---\ndescription: a file at the root is a skill\n---\nbody")
    (root / "group" / "notes.md").write_text("---\ndescription: below the root only SKILL.md counts\n---\n")
    write_skill(root, "hidden", folder=".hidden/hidden")
    write_skill(root, "vendored", folder="node_modules/vendored")
    write_skill(root, "ignored", folder="ignored")
    (root / ".gitignore").write_text("ignored/\n")
    assert [path.relative_to(root).as_posix() for path in skill_files(root)] == ["flat.md", "group/deep/SKILL.md"]


def test_a_problem_is_one_line_and_only_a_missing_description_leaves_the_skill_out(tmp_path: Path) -> None:
    root = tmp_path / "skills"
    write_skill(root, "Bad_Name", folder="bad-name")
    (root / "nodesc").mkdir(parents=True)
    (root / "nodesc" / "SKILL.md").write_text("---\nname: nodesc\n---\nbody")
    (root / "broken").mkdir()
    (root / "broken" / "SKILL.md").write_text("---\ndescription: [unclosed\n---\n")
    skills, problems = load_skills([root])
    assert [skill.name for skill in skills] == ["Bad_Name"]
    assert problems == [
        f'skill {root / "bad-name" / "SKILL.md"}: name "Bad_Name" does not match its folder "bad-name"',
        f"skill {root / 'bad-name' / 'SKILL.md'}: name may hold only lowercase a-z, 0-9 and hyphens",
        f"skill {root / 'broken' / 'SKILL.md'}: frontmatter at line 2: expected ',' or ']', but got '<stream end>'",
        f"skill {root / 'nodesc' / 'SKILL.md'}: description is required: the skill is left out",
    ]
    assert all("\n" not in line for line in problems)


def test_the_first_skill_of_a_name_wins_and_the_project_comes_first(tmp_path: Path) -> None:
    mine = write_skill(tmp_path / ".pi" / "skills", SKILL, description="the project's")
    theirs = write_skill(pi_agent_dir() / "skills", SKILL, description="the global one")
    (tmp_path / ".agents" / "skills").mkdir(parents=True)
    (tmp_path / ".agents" / "skills" / SKILL).symlink_to(mine.parent)  # the same file twice: said nowhere
    skills, problems = load_skills(skill_folders(tmp_path))
    assert [skill.description for skill in skills] == ["the project's"]
    assert problems == [f'skill "{SKILL}": {theirs} is skipped, {mine} has that name']


def test_the_prompt_block_lists_skills_the_model_may_pick_and_leaves_out_the_command_only_ones(
        tmp_path: Path) -> None:
    write_skill(tmp_path / "skills", "manual", folder="manual",
                body="x").write_text("---\ndescription: only by hand\ndisable-model-invocation: true\n---\nx")
    path = write_skill(tmp_path / "skills", SKILL)
    skills, _ = load_skills([tmp_path / "skills"])
    block = skills_prompt(skills)
    assert block.startswith("\n\n") and block.count("<skill>") == 1
    assert block.endswith(f"  <skill>\n    <name>{SKILL}</name>\n    <description>Write release notes from"
                          f" CHANGELOG.md. Use when asked for release notes.</description>\n"
                          f"    <location>{path}</location>\n  </skill>\n</available_skills>")
    assert skills_prompt([skill for skill in skills if skill.disable_model_invocation]) == ""


def test_skill_command_sends_the_body_in_pis_skill_block_then_the_arguments(tmp_path: Path) -> None:
    path = write_skill(tmp_path / "skills", SKILL)
    skills, _ = load_skills([tmp_path / "skills"])
    block = (f'<skill name="{SKILL}" location="{path}">\nReferences are relative to {path.parent}.\n\n'
             f"{SKILL_BODY}\n</skill>")
    assert expand_skill_command(f"/skill:{SKILL}", skills) == block
    assert expand_skill_command(f"/skill:{SKILL}  for 2.0 ", skills) == f"{block}\n\nfor 2.0"
    assert expand_skill_command("/skill:nope x", skills) == "/skill:nope x"
    path.unlink()
    with pytest.raises(SkillReadError, match=f"skill {SKILL}: cannot read .*then /reload"):
        expand_skill_command(f"/skill:{SKILL}", skills)
