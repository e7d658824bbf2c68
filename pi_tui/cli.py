"""The `pi-tui` command.

Errors a user can fix (a missing session, a bad model name, an unreadable settings file) end the
program with one line on stderr and exit status 2; nothing prints a traceback unless PI_TUI_DEBUG=1.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import re
import shutil
import sys
import urllib.parse
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from pi_tui import __version__
from pi_tui.broken_pipe import guard_standard_streams
from pi_tui.errors import UserError
from pi_tui.logs import install_log_file
from pi_tui.redaction import remember_base_url, url_with_credentials_hidden
from pi_tui.terminal import safe_message, visible_controls

if TYPE_CHECKING:  # imported lazily at run time: `pi-tui --version` and the TUI's start stay fast
    from pi_tui.runtime.launch import LaunchOptions
    from pi_tui.session.store import Session
    from pi_tui.settings import Settings

EXIT_USAGE = 2
_RAW_HELP = "write control characters (terminal escapes) as they are, for a pipe; by default they are shown escaped"
COMMANDS = ("sessions", "show", "context", "query", "replay", "whatif")
_VALUED = ("--model", "--base-url", "--session")  # the run's options that take the next word as their value
_USAGE = ("pi-tui [options] [@files...] [messages...]\n"
          "       pi-tui [options] {sessions,show,context,query,replay,whatif} ...")
_RUN_HELP = """\
messages and @files:
  pi-tui "explain this"          open the TUI and send it (more messages: each once the last is answered)
  pi-tui -p "a" "b"              print mode: send "a", then "b", print the replies, exit
  pi-tui -p "explain" @calc.py   attach calc.py's text to the first message, as Pi does
  echo "text" | pi-tui -p "summarize stdin"
                                 piped stdin goes first in the first message; with stdin or stdout not a
                                 terminal pi-tui always runs print mode (the TUI needs both)

With no API key configured, the offline demo model plays a scripted session on a sample project."""


def _run_options(parser: argparse.ArgumentParser) -> None:
    """The options of a run (the TUI or print mode), before a command's name as after none."""
    parser.add_argument("--version", action="version", version=f"pi-tui {__version__}")
    parser.add_argument("-p", "--print", dest="print_mode", action="store_true",
                        help="run headless: send the messages, print the replies to stdout, then exit")
    parser.add_argument("--model", help="provider/id (e.g. anthropic/claude-sonnet-4-5) or 'demo'")
    parser.add_argument("--base-url", help="API base URL for an OpenAI-compatible server")
    parser.add_argument("--session", metavar="FILE", help="open (or create) this session file")
    parser.add_argument("-c", "--continue", dest="continue_recent", action="store_true",
                        help="continue the newest session of this folder")
    parser.add_argument("-r", "--resume", action="store_true",
                        help="pick the session to continue from this folder's sessions (the TUI's /resume)")
    parser.add_argument("--no-session", action="store_true",
                        help="save no session file: the run is forgotten when it ends")
    parser.add_argument("--raw", dest="raw_output", action="store_true",
                        help="with -p: write the reply's control characters as they are (for a pipe), not escaped")


def _run_parser() -> argparse.ArgumentParser:
    """A run: what is not a command's name is a message, and `@path` attaches a file."""
    parser = argparse.ArgumentParser(prog="pi-tui", usage=_USAGE, add_help=False)
    _run_options(parser)
    parser.add_argument("words", nargs="*")
    return parser


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="pi-tui", usage=_USAGE, formatter_class=argparse.RawDescriptionHelpFormatter,
        description="A terminal coding agent whose context is kept small by the condense pruning engine.",
        epilog=_RUN_HELP,
    )
    _run_options(parser)
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")

    sessions = sub.add_parser("sessions", help="list the sessions of this folder, newest first",
                              description="List the sessions of the current folder, pi-tui's and Pi's"
                                          " (marked pi), newest first.")
    sessions.add_argument("--json", action="store_true", help="print JSON instead of a table")
    sessions.add_argument("--all", action="store_true", dest="everywhere",
                          help="list the sessions of every folder, by full path and the folder each ran in")

    show = sub.add_parser("show", help="print a session's current branch as readable text",
                          description="Print the current branch of a session as readable text.")
    show.add_argument("session", metavar="SESSION", help="a session file, or part of a name from `pi-tui sessions`")
    show.add_argument("--full", action="store_true", help="print tool outputs whole instead of their first lines")
    show.add_argument("--raw", action="store_true", help=_RAW_HELP)

    context = sub.add_parser("context", help="print the messages the next model request would carry",
                             description="Print the messages the next model request would carry.")
    context.add_argument("session", metavar="SESSION", help="a session file, or part of a name from `pi-tui sessions`")
    context.add_argument("--json", action="store_true", help="a JSON array of Pi-shaped messages (the default)")
    context.add_argument("--raw", action="store_true",
                         help="the branch's messages as recorded, before pruning and conversion")

    query = sub.add_parser("query", help="print what context_tree_query returns for refs of a session",
                           description="Print what context_tree_query returns for short refs (t12), occurrence"
                                       " keys or tool call ids of a session.")
    query.add_argument("session", metavar="SESSION", help="a session file, or part of a name from `pi-tui sessions`")
    query.add_argument("refs", metavar="REF", nargs="+", help="t12, call_1@1700000000000 or a raw tool call id")
    query.add_argument("--raw", action="store_true", help=_RAW_HELP)
    query.add_argument("--offset", type=int, metavar="LINE",
                       help="start each output at this line (1-based); pages hold 2000 lines or 50KB, and a"
                            " page that stops short says where the next one starts")
    query.add_argument("--column", type=int, metavar="CHAR",
                       help="start at this character of the first line, for a line longer than a page")
    query.add_argument("--lines", metavar="A-B", help="only lines A to B of each output (or A-, or A)")
    query.add_argument("--grep", metavar="TEXT",
                       help="only the lines containing TEXT (any case), each with its line number")

    replay = sub.add_parser("replay", help="re-enact a recorded session with condense active, into a new file",
                            description="Re-enact a recorded session turn by turn through condense (no tool runs,"
                                        " no main model call) and write the recorded entries plus everything"
                                        " condense persisted to OUT.")
    replay.add_argument("session", metavar="SESSION", help="a session file, or part of a name from `pi-tui sessions`")
    replay.add_argument("-o", "--output", required=True, metavar="OUT", help="the new session file to write")
    replay.add_argument("--summarizer", metavar="NAME",
                        help="extractive (default: offline, deterministic), default (the session's model),"
                             " or provider/id")
    _condense_arguments(replay)
    replay.add_argument("--context-window", type=int, metavar="TOKENS",
                        help="context window the budget triggers assume (default: the session model's, from"
                             " litellm's model map)")

    whatif = sub.add_parser("whatif", help="replay a session under each pruning strategy and compare costs",
                            description="Rebuild every model request of a recorded session under each pruning"
                                        " strategy, price it with a prompt-cache model and print what each"
                                        " strategy would have cost. Offline: summaries are extractive.")
    whatif.add_argument("sessions", metavar="SESSION", nargs="+",
                        help="session files, or parts of names from `pi-tui sessions` (a table each)")
    whatif.add_argument("--strategies", action="append", metavar="NAMES",
                        help="strategies to run, comma-separated, repeatable (default: all): recorded,"
                             " none, pi-compaction, masking, anthropic-clear-tool-uses,"
                             " anthropic-clear-at-least, anthropic-clear-tool-inputs,"
                             " anthropic-clear-tool-uses-sticky, anthropic-clear-tool-inputs-sticky,"
                             " anthropic-compaction, openai-compaction, openhands-condenser, openhands-sdk-agent,"
                             " openhands-sdk, every-turn, condense, condense-no-chains, condense-group-batches,"
                             " condense-purge-args")
    whatif.add_argument("--pricing", metavar="NAME",
                        help="price every request with this model's table: claude-opus-4-5, claude-sonnet-4-5"
                             " or gpt-5.1-codex (default: the model that answered each request)")
    whatif.add_argument("--cache-model", default="anthropic", metavar="MODEL",
                        help="anthropic (default: entries at breakpoints, 20-block lookback) or prefix"
                             " (any common prefix with the previous request)")
    whatif.add_argument("--cache-ttl", default="5m", metavar="DURATION",
                        help="prompt-cache lifetime: 5m (default) or 1h, priced at its write price")
    _condense_arguments(whatif)
    whatif.add_argument("--json", action="store_true", help="print JSON instead of tables")
    whatif.add_argument("--plot", metavar="FILE",
                        help="also write an SVG chart of context tokens per request")
    return parser


def _check_base_url(url: str | None) -> None:
    """Say a bad `--base-url` now, not as a provider error after the first prompt."""
    if url is None:
        return
    shown = url_with_credentials_hidden(url)
    if shown is not None:
        raise UserError(f"--base-url {shown}: a user name or password in the URL cannot be sent beside the"
                        " provider's key; give the URL without it and the key in the provider's variable"
                        " (OPENAI_API_KEY for openai/...)")
    parts = urllib.parse.urlsplit(url.strip())
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise UserError(f"--base-url {url!r}: give an http(s) URL, e.g. http://127.0.0.1:8000/v1")


def _check_paths(args: argparse.Namespace) -> None:
    """An empty path would quietly mean the current folder (or no file at all): name it instead."""
    session = "--session" if args.command is None else "SESSION"
    paths = [(session, getattr(args, "session", None)), ("-o", getattr(args, "output", None)),
             ("--settings", getattr(args, "settings", None)), ("--plot", getattr(args, "plot", None)),
             *(("SESSION", value) for value in getattr(args, "sessions", None) or [])]
    for flag, value in paths:
        if isinstance(value, str) and not value.strip():
            raise UserError(f"{flag}: the path is empty; give a file name")


def _positive(flag: str, value: int | None) -> int | None:
    """A count given on the command line: zero or less means nothing sensible, so it is refused."""
    if value is not None and value <= 0:
        raise UserError(f"{flag} {value}: give a positive whole number")
    return value


def _condense_arguments(command: argparse.ArgumentParser) -> None:
    """replay and whatif: the design's defaults unless these say otherwise (never ~/.pi-tui implicitly)."""
    command.add_argument("--settings", metavar="FILE",
                         help="take condense settings from this settings.toml's [condense] table")
    command.add_argument("--set", dest="overrides", action="append", default=[], metavar="KEY=VALUE",
                         help="override a condense setting, e.g. --set min_batch_chars=0 (repeatable, after"
                              " --settings)")


def _load_settings() -> Settings:
    from pi_tui.settings import load_settings

    result = load_settings()
    for line in result.errors:
        _say(f"pi-tui: settings: {line}")
    return result.settings


def _open(arg: str) -> Session:
    """A Pi session file, or a Claude Code transcript or Codex rollout read as one."""
    from pi_tui.session.listing import resolve_session_arg
    from pi_tui.session.sources import open_session

    session = open_session(resolve_session_arg(arg, os.getcwd()))
    for warning in session.warnings:
        _say(f"pi-tui: warning: {warning}")
    return session


def cmd_sessions(args: argparse.Namespace) -> int:
    from pi_tui.modes.sessions import list_sessions

    print(list_sessions(os.getcwd(), args.json, args.everywhere), end="")
    return 0


def cmd_show(args: argparse.Namespace) -> int:
    from pi_tui.modes.show import show_session

    print(_terminal(show_session(_open(args.session), args.full), args.raw), end="")
    return 0


def cmd_context(args: argparse.Namespace) -> int:
    from pi_tui.modes.context import context_json

    session = _open(args.session)
    sys.stdout.write(context_json(session, _load_settings().condense, args.raw))
    return 0


def cmd_query(args: argparse.Namespace) -> int:
    from pi_tui.modes.query import query_page, query_refs

    page = query_page(args.offset, args.column, args.lines, args.grep)
    answer = query_refs(_open(args.session), _load_settings().condense, args.refs, page)
    print(_terminal(answer.text, args.raw))
    if answer.missing:
        _say(f"pi-tui: not found in {args.session}: {', '.join(answer.missing)}")
        return 1
    return 0


def cmd_replay(args: argparse.Namespace) -> int:
    from condense.config import CondenseConfig
    from pi_tui.ai.summarizer_check import summarizer_problem
    from pi_tui.modes.offline import session_model
    from pi_tui.modes.offline_config import offline_condense_config, summarizer_pair
    from pi_tui.modes.replay import Replayer, ReplayOutput

    summarizer = [summarizer_pair(args.summarizer)] if args.summarizer is not None else []
    config = offline_condense_config(args.settings, [*summarizer, *args.overrides],
                                     CondenseConfig(summarizer_model="extractive"))
    source = _open(args.session)
    model = session_model(source)
    problem = summarizer_problem(config.summarizer_model, model)
    if problem:  # before OUT exists: the engine would fall back, fail at every flush and write no summary
        raise UserError(f"summarizer: {problem}")
    if config.summarizer_model != "extractive":
        # a model summariser's first call would import litellm (seconds, more on a busy machine) inside its idle
        # timer, and a timeout there moves the flush to the session's model: import it before any flush
        from pi_tui.ai.litellm_client import warm_up

        warm_up()
    out = ReplayOutput(source, Path(args.output))
    window = _positive("--context-window", args.context_window) or model.context_window
    replayer = Replayer(source, out.session, config, window)
    interactive = sys.stderr.isatty()

    def progress(done: int, total: int) -> None:
        if interactive and (done % 25 == 0 or done == total):
            print(f"\rreplaying: {done}/{total} entries", end="", file=sys.stderr, flush=True)

    with out.writing():
        report = asyncio.run(replayer.run(progress))
    if interactive:
        print(file=sys.stderr)
    # once each, the last time: the same failure repeats at every flush, with the count then pending
    problems = {(level, re.sub(r"\d+", "#", text)): (level, text)
                for level, text in replayer.host.notices if level != "info"}
    for level, text in sorted(problems.values(), key=replayer.host.notices.index):
        _say(f"pi-tui: {level}: {text}")
    print(f"replayed {report.entries} entries, {report.requests} model requests; {report.flushes} flushes wrote"
          f" {report.summaries} summaries -> {args.output}")
    if report.summaries == 0 and any(level == "error" for level, _ in problems.values()):
        print("pi-tui: error: summaries were due and none could be written (see above)", file=sys.stderr)
        return 1
    return 0


def _whatif_progress(name: str, interactive: bool) -> Callable[[int, int, str], None]:
    """One line rewritten in place on a terminal: the session, strategies done of all, the latest one."""
    def progress(done: int, total: int, strategy: str) -> None:
        if interactive:  # cut to the width: a wrapped line is not rewritten in place
            line = f"whatif: {name}: {done}/{total} strategies done {strategy}"
            width = shutil.get_terminal_size().columns - 1
            print(f"\r\x1b[K{line[:width]}", end="", file=sys.stderr, flush=True)
    return progress


def cmd_whatif(args: argparse.Namespace) -> int:
    from condense.simulate import format_report, plot_svg
    from pi_tui.modes.offline_config import offline_condense_config
    from pi_tui.modes.whatif import run_whatif, whatif_options

    condense = offline_condense_config(args.settings, args.overrides)
    options = whatif_options(args.strategies, args.pricing, args.cache_ttl, args.cache_model, condense)
    interactive = sys.stderr.isatty()
    reports = []
    for arg in args.sessions:
        session = _open(arg)
        name = Path(arg).name
        if not interactive:  # a log: one line a session, not a line a strategy
            print(f"whatif: {name}: {len(options.strategies)} strategies", file=sys.stderr, flush=True)
        reports.append(run_whatif(session, options, progress=_whatif_progress(name, interactive)))
    if interactive:
        print("\r\x1b[K", end="", file=sys.stderr, flush=True)
    if args.plot:
        try:
            Path(args.plot).write_text(plot_svg(reports), encoding="utf-8")
        except OSError as exc:
            raise UserError(f"--plot {args.plot}: cannot write: {exc.strerror}") from None
    if args.json:
        print(json.dumps({"sessions": [r.model_dump(mode="json") for r in reports]}, indent=1))
    else:
        print(visible_controls("\n".join(format_report(r) for r in reports)), end="")  # model names from the file
    return 0


def cmd_run(args: argparse.Namespace, cwd: Path) -> int:
    """No command: the TUI, or print mode when asked for or when stdin or stdout is no terminal (the TUI
    reads keys from one and draws on the other), as Pi decides."""
    from pi_tui.runtime.initial_message import initial_prompts

    stdin = _piped_stdin()
    files = [word[1:] for word in args.words if word.startswith("@") and len(word) > 1]
    messages = [word for word in args.words if not (word.startswith("@") and len(word) > 1)]
    prompts = initial_prompts(stdin, files, messages, cwd)
    if args.print_mode or not has_terminal():
        return cmd_print(args, prompts, cwd)
    return cmd_tui(args, prompts, cwd)


def _piped_stdin() -> str | None:
    """What a pipe or a file gave on stdin (Pi reads it whole, then starts); None from a terminal, or
    where there is nothing to read (a closed or unreadable stdin holds no task; the messages may)."""
    if sys.stdin is None or sys.stdin.isatty():
        return None
    try:
        return sys.stdin.read().strip() or None
    except OSError:
        return None
    except UnicodeDecodeError:
        raise UserError("stdin: the piped text is not UTF-8; convert it (iconv -t utf-8) or attach the file"
                        " with @FILE") from None


def has_terminal() -> bool:
    """Both ends the TUI needs: keys from stdin, its screen on stdout."""
    return bool(sys.stdin and sys.stdin.isatty() and sys.stdout and sys.stdout.isatty())


def _no_task(args: argparse.Namespace) -> UserError:
    """A print run with nothing to send, said before any session file is written."""
    if args.words:
        return UserError('-p: the task is empty; give the task to run, e.g. pi-tui -p "fix the failing test"')
    if sys.stdin is not None and not sys.stdin.isatty():
        return UserError('stdin is no terminal and held no task: pipe one in (echo "fix the test" | pi-tui) or'
                         ' give it as an argument (pi-tui -p "fix the test")')
    if args.print_mode:
        return UserError('-p: no task given; give it after the options, e.g. pi-tui -p "fix the failing test"')
    return UserError('stdout is no terminal, so the TUI cannot start: give a task to print its answer, e.g.'
                     ' pi-tui -p "fix the failing test" > answer.txt')


def _launch(args: argparse.Namespace, cwd: Path) -> LaunchOptions:
    from pi_tui.runtime.launch import LaunchOptions

    return LaunchOptions(model=args.model, base_url=args.base_url, session=args.session,
                         continue_recent=args.continue_recent, launch_dir=cwd, no_session=args.no_session)


def cmd_print(args: argparse.Namespace, prompts: list[str], cwd: Path) -> int:
    from pi_tui.modes.print_mode import run_print
    from pi_tui.runtime.build import build_runtime
    from pi_tui.settings import LiveSettings

    if not prompts:  # before any session file is written
        raise _no_task(args)
    if args.resume:
        raise UserError("--resume: the session picker is the TUI's; in print mode give --session FILE or --continue")
    settings = _load_settings()
    options = _launch(args, cwd)
    options.demo_forks_sessions = False
    runtime = build_runtime(options, LiveSettings(settings), import_early=True)  # a `/pruner` change is saved
    for notice in runtime.notices:
        _say(f"pi-tui: {notice}")
    return asyncio.run(run_print(runtime.host, prompts, raw=args.raw_output))


def cmd_tui(args: argparse.Namespace, prompts: list[str], cwd: Path) -> int:
    """The interactive TUI (settings problems become notifications there); `prompts` are sent once it
    is up, each after the one before is answered, and `--resume` opens the picker first."""
    from pi_tui.tui.app import run_tui

    options = _launch(args, cwd)
    options.messages = prompts
    options.resume = args.resume
    return run_tui(options)


def _say(line: str) -> None:
    """A line on stderr: a warning or a notice may quote what a session file holds, so it is shown escaped."""
    print(visible_controls(line), file=sys.stderr)


def _terminal(text: str, raw: bool) -> str:
    """What a tool or a model wrote, as `show` and `query` print it: see pi_tui.terminal."""
    return text if raw else visible_controls(text)


def _current_folder() -> Path:
    """Every command starts from the current folder: one deleted under the shell is said, not a traceback."""
    try:
        return Path(os.getcwd())
    except FileNotFoundError:
        raise UserError("the current folder no longer exists (it was deleted or moved): cd to a folder that"
                        " exists and run pi-tui again") from None


def _dispatch(args: argparse.Namespace) -> int:
    cwd = _current_folder()
    _check_paths(args)
    remember_base_url(args.base_url)  # before anything could quote it: its `?key=` is a key
    if args.command == "sessions":
        return cmd_sessions(args)
    if args.command == "show":
        return cmd_show(args)
    if args.command == "context":
        return cmd_context(args)
    if args.command == "query":
        return cmd_query(args)
    if args.command == "replay":
        return cmd_replay(args)
    if args.command == "whatif":
        return cmd_whatif(args)
    _check_base_url(args.base_url)
    install_log_file()  # the agent runs from here on: its failures need a place a person can read
    return cmd_run(args, cwd)


def _command_word(argv: Sequence[str]) -> str | None:
    """The first word that is neither an option nor an option's value: a command's name, or the first
    message; none after `-p` or `--` (`pi-tui -p show` sends the word "show")."""
    value_next = False
    for word in argv:
        if value_next:
            value_next = False
        elif word in ("--", "-p", "--print"):
            return None
        elif word.startswith("-") and word != "-":
            value_next = word in _VALUED
        else:
            return word
    return None


def _parse(argv: Sequence[str]) -> argparse.Namespace:
    """Commands keep their names; any other first word is a message (argparse alone would call it an
    invalid command), and `--help` shows both."""
    if _command_word(argv) in COMMANDS or "-h" in argv or "--help" in argv:
        args = _parser().parse_args(argv)
    else:
        args = _run_parser().parse_intermixed_args(argv)
        args.command = None
    return args


def _tolerant_stdout() -> None:
    """Session text may hold lone surrogates (JavaScript strings can, and Pi's files keep them): print
    them as `\\udXXX`, which is also their JSON escape, instead of failing halfway through the output."""
    reconfigure = getattr(sys.stdout, "reconfigure", None)
    if callable(reconfigure):
        reconfigure(errors="backslashreplace")


def main(argv: Sequence[str] | None = None) -> int:
    args = _parse(sys.argv[1:] if argv is None else list(argv))
    _tolerant_stdout()
    if args.command is not None or args.print_mode or not has_terminal():  # the TUI draws on the terminal itself
        guard_standard_streams()
    try:
        return _dispatch(args)
    except UserError as exc:
        print(f"pi-tui: error: {safe_message(str(exc))}", file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt:
        return 130
    except Exception as exc:
        if os.environ.get("PI_TUI_DEBUG"):
            raise
        print(f"pi-tui: internal error: {type(exc).__name__}: {safe_message(str(exc))} (run with PI_TUI_DEBUG=1 for"
              " details)",
              file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
