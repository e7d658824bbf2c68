"""The render pipeline, in the order the design fixes: stubs (and, opt-in, the stubbed calls' arguments),
error purge, chain ranges, orphan sweep."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from condense.grace import in_grace_recovery_keys
from condense.render.args_purge import ArgsPurgeMemo, purge_summarized_args
from condense.render.orphans import sweep_orphans
from condense.render.purge import purge_errored_args
from condense.render.stub import StubIndex, StubMemo, replace_stubs

IsProtected = Callable[[str, dict[str, Any]], bool]
OrphanReporter = Callable[[list[str]], None]
Phase = Callable[[list[Any]], list[Any]]


@dataclass
class RenderOptions:
    is_protected: IsProtected
    grace_turns: int
    purge_enabled: bool
    purge_cooldown_turns: int
    purge_min_arg_chars: int
    report_orphans: OrphanReporter
    chains: Phase | None = None  # phase 3, when chain compression has entries to apply
    memo: StubMemo | None = None  # phase 1 decisions kept between renders while `version` holds
    version: object = None
    args_memo: ArgsPurgeMemo | None = None  # set when stubbed calls' arguments are purged too


def prune_messages(messages: list[Any], index: StubIndex, options: RenderOptions) -> list[Any]:
    """What the model sees; the very same list when nothing changes."""
    grace = in_grace_recovery_keys(messages, options.grace_turns) if options.grace_turns > 0 else set()
    out = replace_stubs(messages, index, options.is_protected, grace, options.memo, options.version)
    if options.args_memo is not None:
        out = purge_summarized_args(messages, out, options.args_memo)
    out = purge_errored_args(out, enabled=options.purge_enabled, cooldown_turns=options.purge_cooldown_turns,
                             min_arg_chars=options.purge_min_arg_chars)
    if options.chains is not None:
        out = options.chains(out)
    out, swept = sweep_orphans(out)
    if swept:
        options.report_orphans(swept)
    return out
