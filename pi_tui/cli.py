"""The `pi-tui` command.

Errors a user can fix (a missing session, a bad model name, an unreadable settings file) end the
program with one line on stderr and exit status 2; nothing prints a traceback unless PI_TUI_DEBUG=1.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
import time
from collections.abc import Sequence
from pathlib import Path

from pi_tui import __version__
from pi_tui.errors import UserError

EXIT_USAGE = 2


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="pi-tui",
        description="A terminal coding agent whose context is kept small by the condense pruning engine.",
        epilog="With no API key configured, the offline demo model plays a scripted session on a sample project.",
    )
    parser.add_argument("--version", action="version", version=f"pi-tui {__version__}")
    parser.add_argument("-p", "--print", dest="print_prompt", metavar="TASK",
                        help="run one task headless: stream the reply to stdout, then exit")
    parser.add_argument("--model", help="provider/id (e.g. anthropic/claude-sonnet-4-5) or 'demo'")
    parser.add_argument("--base-url", help="API base URL for an OpenAI-compatible server")
    parser.add_argument("--session", metavar="FILE", help="open (or create) this session file")
    parser.add_argument("-c", "--continue", dest="continue_recent", action="store_true",
                        help="continue the newest session of this folder")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")

    sessions = sub.add_parser("sessions", help="list the sessions of this folder, newest first",
                              description="List the sessions of the current folder, newest first.")
    sessions.add_argument("--json", action="store_true", help="print JSON instead of a table")

    show = sub.add_parser("show", help="print a session's current branch as readable text",
                          description="Print the current branch of a session as readable text.")
    show.add_argument("session", metavar="SESSION", help="a session file, or part of a name from `pi-tui sessions`")
    show.add_argument("--full", action="store_true", help="print tool outputs whole instead of their first lines")

    context = sub.add_parser("context", help="print the messages the next model request would carry",
                             description="Print the messages the next model request would carry.")
    context.add_argument("session", metavar="SESSION", help="a session file, or part of a name from `pi-tui sessions`")
    context.add_argument("--json", action="store_true", help="a JSON array of Pi-shaped messages (the default)")
    return parser


def _load_settings():  # type: ignore[no-untyped-def]
    from pi_tui.settings import load_settings

    result = load_settings()
    for line in result.errors:
        print(f"pi-tui: settings: {line}", file=sys.stderr)
    return result.settings


def _open(arg: str):  # type: ignore[no-untyped-def]
    from pi_tui.session.listing import resolve_session_arg
    from pi_tui.session.store import Session

    session = Session.open(resolve_session_arg(arg, os.getcwd()))
    for warning in session.warnings:
        print(f"pi-tui: warning: {warning}", file=sys.stderr)
    return session


def cmd_sessions(args: argparse.Namespace) -> int:
    from pi_tui.paths import sessions_dir_for
    from pi_tui.session.listing import describe, session_files

    infos = [describe(p) for p in session_files(sessions_dir_for(os.getcwd()))]
    if args.json:
        print(json.dumps([{"file": str(i.path), "modified": i.modified, "entries": i.entries,
                           "firstMessage": i.first_message, "name": i.name} for i in infos], indent=2))
        return 0
    if not infos:
        print("no sessions in this folder yet (they are saved under "
              f"{sessions_dir_for(os.getcwd())})")
        return 0
    for info in infos:
        when = time.strftime("%Y-%m-%d %H:%M", time.localtime(info.modified))
        title = info.name or info.first_message or "(no message)"
        print(f"{when}  {info.entries:5d} entries  {info.path.name}\n    {title[:100]}")
    return 0


def cmd_show(args: argparse.Namespace) -> int:
    from pi_tui.transcript_text import format_conversation

    session = _open(args.session)
    print(format_conversation(session.messages(), None if args.full else 12), end="")
    return 0


def cmd_context(args: argparse.Namespace) -> int:
    session = _open(args.session)
    json.dump(session.messages(), sys.stdout, ensure_ascii=False, indent=1)
    sys.stdout.write("\n")
    return 0


def cmd_print(args: argparse.Namespace) -> int:
    from pi_tui.print_mode import run_print
    from pi_tui.runtime import LaunchOptions, build_runtime

    settings = _load_settings()
    options = LaunchOptions(model=args.model, base_url=args.base_url, session=args.session,
                            continue_recent=args.continue_recent, launch_dir=Path(os.getcwd()))
    runtime = build_runtime(options, settings)
    for notice in runtime.notices:
        print(f"pi-tui: {notice}", file=sys.stderr)
    return asyncio.run(run_print(runtime.host, args.print_prompt))


def _dispatch(args: argparse.Namespace, parser: argparse.ArgumentParser) -> int:
    if args.command == "sessions":
        return cmd_sessions(args)
    if args.command == "show":
        return cmd_show(args)
    if args.command == "context":
        return cmd_context(args)
    if args.print_prompt is not None:
        return cmd_print(args)
    parser.print_help()
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    parser = _parser()
    args = parser.parse_args(argv)
    try:
        return _dispatch(args, parser)
    except UserError as exc:
        print(f"pi-tui: error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        return 0
    except Exception as exc:
        if os.environ.get("PI_TUI_DEBUG"):
            raise
        print(f"pi-tui: internal error: {type(exc).__name__}: {exc} (run with PI_TUI_DEBUG=1 for details)",
              file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
