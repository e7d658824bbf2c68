"""A Pi user's files for one working folder, read together: skills, prompt templates, context files,
SYSTEM.md and APPEND_SYSTEM.md.

They are read once when a runtime is built and again on `/reload`, never in between: the system prompt
they make starts the provider's cached prefix and must not change under a running session.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from condense.plural import counted
from pi_tui.resources.context_files import ContextFile, find_context_files, read_text_file
from pi_tui.resources.places import first_file
from pi_tui.resources.prompt_templates import PromptTemplate, expand_template, load_templates, template_folders
from pi_tui.resources.skills import COMMAND_PREFIX, Skill, expand_skill_command, load_skills, skill_folders

SYSTEM_FILE = "SYSTEM.md"  # replaces pi-tui's own system prompt
APPEND_SYSTEM_FILE = "APPEND_SYSTEM.md"  # added after it


@dataclass(frozen=True)
class Resources:
    skills: tuple[Skill, ...] = ()
    templates: tuple[PromptTemplate, ...] = ()
    context_files: tuple[ContextFile, ...] = ()
    system: ContextFile | None = None
    append_system: ContextFile | None = None
    problems: tuple[str, ...] = ()  # one line each, for the first screen and /reload

    def commands(self) -> dict[str, str]:
        """The slash words they add (`name` per template, `skill:name` per skill) and their descriptions."""
        names = {template.name: template.description for template in self.templates}
        names.update({COMMAND_PREFIX + skill.name: skill.description for skill in self.skills})
        return names

    def expand(self, text: str) -> str:
        """What the model is sent for `text`: a `/skill:name` or `/template` line expanded, as Pi does
        (skill first), anything else unchanged. Raises SkillReadError for a skill file gone bad."""
        return expand_template(expand_skill_command(text, self.skills), self.templates)

    def counts(self) -> str:
        """`2 skills, 1 prompt template, 3 context files`: what /reload says it read."""
        parts = [(len(self.skills), "skill"), (len(self.templates), "prompt template"),
                 (len(self.context_files), "context file")]
        words = [counted(count, noun) for count, noun in parts]
        words += [f"{file.path.name}" for file in (self.system, self.append_system) if file is not None]
        return ", ".join(words)


def load_resources(cwd: Path) -> Resources:
    skills, skill_problems = load_skills(skill_folders(cwd))
    templates, template_problems = load_templates(template_folders(cwd))
    system = first_file(cwd, SYSTEM_FILE)
    append = first_file(cwd, APPEND_SYSTEM_FILE)
    return Resources(tuple(skills), tuple(templates), tuple(find_context_files(cwd)),
                     read_text_file(system) if system else None, read_text_file(append) if append else None,
                     (*skill_problems, *template_problems))
