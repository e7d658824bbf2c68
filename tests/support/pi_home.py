"""A Pi user's files in a test's home folder: `~/.pi/agent` with a skill, a prompt template and a
models.json provider, written as a Pi user writes them (the suite's `isolated_home` already points HOME
at an empty folder, so these are the only ones a test sees)."""

from __future__ import annotations

import json
from pathlib import Path

SKILL = "release-notes"
SKILL_DESCRIPTION = "Write release notes from CHANGELOG.md. Use when asked for release notes."
SKILL_BODY = "# Release notes\n\n1. Read CHANGELOG.md.\n2. Group the entries under Added, Fixed."
TEMPLATE = "review"
TEMPLATE_TEXT = "---\ndescription: Review a file for bugs\n---\nReview $1 for bugs. Focus: ${@:2}"
PROVIDER = "local"
MODEL = "qwen-coder"
KEY_VARIABLE = "LOCAL_LLM_KEY"


def pi_agent_dir() -> Path:
    return Path.home() / ".pi" / "agent"


def write_skill(skills: Path, name: str, description: str = SKILL_DESCRIPTION, body: str = SKILL_BODY,
                folder: str | None = None) -> Path:
    """`skills/<folder or name>/SKILL.md` with Pi's frontmatter."""
    path = skills / (folder or name) / "SKILL.md"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(f"---\nname: {name}\ndescription: {description}\n---\n\n{body}\n", encoding="utf-8")
    return path


def write_template(prompts: Path, name: str, text: str) -> Path:
    prompts.mkdir(parents=True, exist_ok=True)
    path = prompts / f"{name}.md"
    path.write_text(text, encoding="utf-8")
    return path


def write_models_json(folder: Path, base_url: str, api_key: str = KEY_VARIABLE,
                      context_window: int = 32_768) -> Path:
    """A custom OpenAI-compatible provider with one model, its key named by an environment variable."""
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "models.json"
    path.write_text(json.dumps({"providers": {PROVIDER: {
        "baseUrl": base_url, "api": "openai-completions", "apiKey": api_key,
        "models": [{"id": MODEL, "contextWindow": context_window, "maxTokens": 4096,
                    "cost": {"input": 0.5, "output": 1.5, "cacheRead": 0.05, "cacheWrite": 0}}]}}}),
        encoding="utf-8")
    return path


def pi_user_files(base_url: str) -> Path:
    """`~/.pi/agent` holding a skill, a prompt template and a models.json provider at `base_url`."""
    agent = pi_agent_dir()
    write_skill(agent / "skills", SKILL)
    write_template(agent / "prompts", TEMPLATE, TEMPLATE_TEXT)
    write_models_json(agent, base_url)
    return agent
