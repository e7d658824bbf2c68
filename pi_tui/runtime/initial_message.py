"""The prompts a run starts with, put together from the command line as Pi puts them together.

Pi sends piped stdin, the text of `@file` arguments and the first message as one first prompt, and every
further message as a prompt of its own once the one before it is answered. pi-tui does the same, but
keeps a line between stdin and what follows it (Pi joins them with nothing, so `alpha` and `Summarize`
reached the model as `alphaSummarize`).
"""

from __future__ import annotations

from pathlib import Path

from pi_tui.errors import UserError
from pi_tui.file_kind import irregular_kind


def file_block(argument: str, cwd: Path) -> str:
    """One `@file`: its text inside `<file name="...">` as Pi attaches it; an empty file adds nothing."""
    path = (cwd / Path(argument).expanduser()).resolve()
    kind = irregular_kind(path)
    if kind is not None:
        raise UserError(f"@{argument}: {path} is {kind}, not a file; give a file to attach")
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        raise UserError(f"@{argument}: no such file {path}; check the name (it is relative to this folder)") from None
    except OSError as exc:
        raise UserError(f"@{argument}: cannot read {path}: {exc.strerror}") from None
    if not data:
        return ""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        raise UserError(f"@{argument}: {path} is not UTF-8 text; only text files can be attached") from None
    return f'<file name="{path}">\n{text}\n</file>\n'


def initial_prompts(stdin: str | None, files: list[str], messages: list[str], cwd: Path) -> list[str]:
    """The prompts to send in order: stdin, the files and the first message as one, then the rest (a
    blank one is no prompt: the caller says so when none is left)."""
    attached = "".join(file_block(argument, cwd) for argument in files)
    first = "".join([f"{stdin}\n\n" if stdin and (attached or messages) else stdin or "", attached,
                     messages[0] if messages else ""])
    return [prompt for prompt in [first, *messages[1:]] if prompt.strip()]
