"""The render pipeline, in the order the design fixes: stubs (and, opt-in, the stubbed calls' arguments),
error purge, chain ranges, orphan sweep.

`prune_messages` is the full render, the reference. `IncrementalRender` gives the same bytes for a
conversation that grew since its previous render by rendering only the new messages; whatever could
change the rendering of earlier messages sends it back to the full render. The opt-in argument purge
(phase 1b) follows phase 1: an incremental render purges again only the turns of the results phase 1
decided differently.
"""

from __future__ import annotations

import bisect
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field, replace
from operator import is_
from typing import Any

from condense.chains.render import Boundaries, ChainLayout, ChainPhase, ChainScan
from condense.grace import RecoveryAges
from condense.measure import Sizes, message_chars
from condense.occurrence import bare_id, message_key
from condense.prefix import Following
from condense.render.args_purge import ArgsPurgeMemo, purged_calls, purged_turn
from condense.render.orphans import OrphanScan, without_positions
from condense.render.purge import ErroredCalls, purge_message
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


@dataclass
class _Pass:
    """One render and the state its phases end in, from which the next messages continue."""

    size: int  # messages rendered
    out: list[Any] | None  # None: the messages themselves, nothing changed
    ages: RecoveryAges
    grace: set[str]
    errored: ErroredCalls
    cooled: int  # phase 2 shrank the failed calls of assistant messages up to this count
    purges: dict[int, Any]  # phase 2: the messages it shrank, by position
    chains: ChainLayout | None  # None: a phase 3 that cannot say what holds for later messages
    orphans: OrphanScan
    swept: list[str] = field(default_factory=list)
    swept_at: list[int] = field(default_factory=list)  # where the swept results were in phase 3's output
    stubbed: list[Any] = field(default_factory=list)  # phase 2's output, grown and patched in place
    args: dict[int, Any] = field(default_factory=dict)  # phase 1b: the assistant messages it rendered, by position


def _purges(stubbed: Callable[[int], Any], errored: ErroredCalls, positions: Iterable[int],
            options: RenderOptions) -> dict[int, Any]:
    """Phase 2 of these failed calls' assistant messages (`stubbed`: phase 1b's message at a position):
    those it shrinks, by position."""
    purges = {}
    for position in positions:
        message = stubbed(position)
        purged = purge_message(message, errored.errored[position][1], options.purge_min_arg_chars)
        if purged is not message:
            purges[position] = purged
    return purges


def _cooled(errored: ErroredCalls, options: RenderOptions) -> int:
    """Up to which assistant message (by count) failed calls have cooled down."""
    return errored.turns - options.purge_cooldown_turns if options.purge_enabled else 0


def _repurged(last: _Pass, changed: set[int], cooled: int) -> list[int]:
    """The failed calls whose phase 2 may differ from `last`'s: cooled down since, or cooled already with
    `changed` failed ids (more of them now, or fewer where a stub replaced a failure)."""
    errored = last.errored.errored
    again = (p for p in changed if p in errored and errored[p][0] <= last.cooled)
    return [*last.errored.cooled(last.cooled, cooled), *again]


def _turn_args(messages: list[Any], rendered_at: Callable[[int], Any], results: Iterable[int],
               errored: ErroredCalls, memo: ArgsPurgeMemo) -> dict[int, Any]:
    """Phase 1b of the turns of these results (whose phase 1 changed): each turn's assistant message, by
    position (`errored` fed with all of `messages` knows the turns)."""
    turns = {found[1:] for result in results if (found := errored.turn(result, len(messages))) is not None}
    return {start: purged_turn(messages, rendered_at, start, end, memo) for start, end in turns}


def _with(messages: list[Any], replaced: dict[int, Any]) -> list[Any]:
    """`messages` with these positions replaced; the very same list when there are none."""
    if not replaced:
        return messages
    out = list(messages)
    for position, message in replaced.items():
        out[position] = message
    return out


def _full_pass(messages: list[Any], index: StubIndex, options: RenderOptions, scan: ChainScan | None = None,
               ages: RecoveryAges | None = None) -> _Pass:
    """Every phase over every message; `scan` and `ages` may come from a pass over fewer of them."""
    ages = ages or RecoveryAges()
    ages.feed(messages[ages.fed:])
    grace = ages.in_grace(options.grace_turns)
    stubbed = replace_stubs(messages, index, options.is_protected, grace, options.memo, options.version)
    args = purged_calls(messages, stubbed, options.args_memo) if options.args_memo is not None else {}
    stubbed = _with(stubbed, args)
    errored = ErroredCalls()
    errored.feed(stubbed)
    cooled = _cooled(errored, options)
    purges = _purges(stubbed.__getitem__, errored, errored.cooled(0, cooled), options)
    out = purged = _with(stubbed, purges)
    layout = None
    if isinstance(options.chains, ChainPhase):
        out, layout = options.chains.run(out, scan)
    elif options.chains is not None:
        out = options.chains(out)
    else:
        layout = ChainLayout(size=len(messages))
    orphans = OrphanScan()
    swept_at = orphans.feed(out)
    swept = [str(out[i].get("toolCallId")) for i in swept_at]
    if swept:
        out = without_positions(out, swept_at)
        options.report_orphans(swept)
    if out is purged and out is not messages:
        out = list(out)  # the output grows in place later; phase 2's piece must not
    return _Pass(len(messages), None if out is messages else out, ages, grace, errored, cooled, purges, layout,
                 orphans, swept, swept_at, purged, args)


def prune_messages(messages: list[Any], index: StubIndex, options: RenderOptions) -> list[Any]:
    """What the model sees; the very same list when nothing changes."""
    out = _full_pass(messages, index, options).out
    return messages if out is None else out


class IncrementalRender:
    """Renders request n from request n-1's pass when the conversation only grew in between and the
    index, settings and chain registry are the same (`key`): the earlier messages render as before, so
    only the new ones go through the phases, carrying each phase's state from where the last pass
    ended. A grace window that closed, a failed call whose cool-down just ended with arguments to
    shrink, or a new message at a chain boundary could change earlier messages: one full render then."""

    def __init__(self) -> None:
        self._last: _Pass | None = None
        self._seen = Following()  # the messages of the last render (a caller may grow its own list in place)
        self._chains = ChainScan()  # phase 3's tables, grown with the conversation
        self._key: object = None
        self._chars_in: int | None = None  # model_chars of the last inputs, when known
        self._at_key: dict[str, list[int]] = {}  # positions of the results with this occurrence key
        self._at_id: dict[str, list[int]] = {}  # and with this tool call id
        self._changes_seen = 0  # of the index's changed keys, as of the last render
        self._options: RenderOptions | None = None
        self.kind = "full"  # how the last render was made: "incremental", "refresh" or "full"
        self._chars_out: int | None = None  # and of the last output
        self._sizes = Sizes(message_chars)

    def reset(self) -> None:
        self._last = None

    def render(self, messages: list[Any], index: StubIndex, options: RenderOptions, key: object, *,
               copy: bool = True) -> list[Any]:
        """The render of `messages`: they themselves when it changes nothing, else a new list; with `copy`
        False, the render's own list, which the next render changes in place (for a caller that reads it
        now and keeps nothing of it, as the engine does before folding)."""
        out = self._render(messages, index, options, key)
        return out if out is messages or not copy else list(out)

    def _render(self, messages: list[Any], index: StubIndex, options: RenderOptions, key: object) -> list[Any]:
        last = self._last
        held = self._seen.follow(messages)
        grew = last is not None and held == last.size and (held > 0 or not messages)
        if grew and last is not None and key == self._key and held == len(messages):  # the same conversation again
            self.kind = "incremental"
            return messages if last.out is None else last.out
        grown = None
        self.kind = "full"
        if grew and last is not None:
            self._chains.boundaries.extend(messages[self._chains.boundaries.size:])
            if self._chars_in is not None:
                self._chars_in += self._sizes.total(messages[held:])
            if key == self._key:
                grown, self.kind = self._extend(last, messages, index, options), "incremental"
            elif _settings(options) == _settings(self._options):
                grown, self.kind = self._refresh(last, messages, index, options), "refresh"
            ages = last.ages
        else:
            self._chains = ChainScan(Boundaries(messages))
            self._chars_in = None
            self._at_key, self._at_id = {}, {}
            ages, held = None, 0
        self._index_results(messages, held)
        if grown is None:
            self.kind = "full"
            last = _full_pass(messages, index, options, self._chains, ages)
            self._chars_out = None
        else:
            last = grown
        self._changes_seen = len(getattr(index, "changed_keys", ()))
        self._options = options
        if last.stubbed is messages:  # the caller's list may grow in place later: never keep it
            last.stubbed = list(messages)
        self._last, self._key = last, key
        return messages if last.out is None else last.out

    def _index_results(self, messages: list[Any], start: int) -> None:
        for position in range(start, len(messages)):
            message = messages[position]
            if message.get("role") == "toolResult":
                self._at_key.setdefault(message_key(message), []).append(position)
                self._at_id.setdefault(str(message.get("toolCallId", "")), []).append(position)

    def chars(self, messages: Iterable[Any]) -> int:
        """Characters the model reads of `messages`, from the sizes kept for the renders' messages."""
        return self._sizes.total(messages)

    def model_chars(self) -> tuple[int, int]:
        """Characters the model would read of the last inputs unpruned, and of the last render."""
        last = self._last
        if last is None:
            return 0, 0
        inputs = self._seen.items
        out = inputs if last.out is None else last.out
        if self._chars_in is None:
            self._chars_in = self._sizes.total(inputs)
        if self._chars_out is None:
            self._chars_out = self._sizes.total(out)
        if self._sizes.count > 2 * (len(inputs) + len(out)) + 64:  # stubs of earlier flushes
            self._sizes.forget_all_but(inputs, out)
        return self._chars_in, self._chars_out

    def _extend(self, last: _Pass, messages: list[Any], index: StubIndex, options: RenderOptions,
                ) -> _Pass | None:
        start = last.size
        if start == len(messages):
            return last
        suffix = messages[start:]
        last.ages.feed(suffix)
        grace = last.ages.in_grace(options.grace_turns)
        if grace != last.grace:
            return None
        new = stubbed = replace_stubs(suffix, index, options.is_protected, grace, options.memo, options.version)
        grown = last.errored.feed(new, start)
        if options.args_memo is not None and new is not suffix:
            stubbed_at = [start + i for i, (after, before) in enumerate(zip(new, suffix, strict=True))
                          if after is not before]
            args = _turn_args(messages, lambda p: new[p - start], stubbed_at, last.errored, options.args_memo)
            if any(position < start for position in args):
                return None  # a new result stubbed at once, in an earlier turn: an earlier message changes
            new = stubbed = _with(new, {position - start: message for position, message in args.items()})
            last.args.update(args)
        cooled = _cooled(last.errored, options)
        if _purges(lambda p: last.args.get(p, messages[p]), last.errored, _repurged(last, grown, cooled), options):
            return None  # a failed call cooled down with arguments to shrink: an earlier message changes
        if last.chains is not None:
            rendered = last.chains.extend(new)
            if rendered is None:
                return None
            new = rendered
        elif options.chains is not None:
            return None  # a phase 3 that cannot say what holds for later messages
        swept_at = last.orphans.feed(new)
        if swept_at:
            last.swept = last.swept + [str(new[i].get("toolCallId")) for i in swept_at]
            shift = start if last.out is None else len(last.out) + len(last.swept_at)  # phase 3's output so far
            last.swept_at = last.swept_at + [shift + i for i in swept_at]
            new = without_positions(new, swept_at)
            options.report_orphans(last.swept)
        if self._chars_out is not None:
            self._chars_out += self._sizes.total(new)
        out = last.out
        if out is not None:
            out.extend(new)  # never handed out: a render returns a copy
        elif len(new) != len(suffix) or not all(map(is_, new, suffix)):
            out = messages[:start] + new
        last.stubbed.extend(stubbed)
        return replace(last, size=len(messages), out=out, grace=grace, cooled=cooled)

    def _refresh(self, last: _Pass, messages: list[Any], index: StubIndex, options: RenderOptions,
                 ) -> _Pass | None:
        """After a flush (new index records, new compressed chains), settings unchanged: phase 1 is
        decided again only for the results whose keys the index changed, and for the new messages;
        phase 2 only for the turns that changes; phases 3 and 4 patch the earlier output where those
        changed it and run again from the first message they may render differently (a stubbed failure
        pairs its turn's failed calls again first). Phase 2's output is `last`'s, patched in place. None
        when that cannot be told (a chain that may move an earlier range): a full render."""
        changed = getattr(index, "changed_keys", None)
        if changed is None or len(changed) < self._changes_seen:
            return None
        keys = set(changed[self._changes_seen:])
        start = last.size
        last.ages.feed(messages[last.ages.fed:])
        grace = last.ages.in_grace(options.grace_turns)
        if grace != last.grace:
            return None
        stubbed = last.stubbed
        was: dict[int, Any] = {}  # phase 2's earlier output where this pass decides again
        failed = self._restub(stubbed, messages, keys, index, options, grace, was)
        new = replace_stubs(messages[start:], index, options.is_protected, grace, options.memo, options.version)
        grown = last.errored.feed(new, start)
        stubbed += new
        args = self._args_again(last, messages, stubbed, list(was), options.args_memo)
        paired = {p for p in (last.errored.redecide(stubbed, q) for q in failed) if p is not None}
        cooled = _cooled(last.errored, options)
        again = paired | args.keys()
        purges, at = last.purges, last.args  # superseded by this pass, or by a full one
        for position in again:
            purges.pop(position, None)
        repurged = _repurged(last, grown | again, cooled)
        at.update(args)
        purges.update(_purges(lambda p: at.get(p, messages[p]), last.errored, repurged, options))
        for position in {*repurged, *again}:
            was.setdefault(position, stubbed[position])
            stubbed[position] = purges.get(position, at.get(position, messages[position]))
        changes = sorted(p for p, before in was.items() if p < start and stubbed[p] is not before)
        return self._splice(last, messages, changes, keys, options,
                            replace(last, size=len(messages), grace=grace, cooled=cooled))

    def _restub(self, stubbed: list[Any], messages: list[Any], keys: set[str], index: StubIndex,
                options: RenderOptions, grace: set[str], was: dict[int, Any]) -> list[int]:
        """Phase 1 again, into `stubbed`, for the results of these keys (and of their ids, for the legacy
        bare-id lookup); `was` takes what `stubbed` held where it changed. Returns where a failure was."""
        ids = keys | {bare_id(key) for key in keys}
        positions = sorted({p for key in keys for p in self._at_key.get(key, ())}
                           | {p for i in ids for p in self._at_id.get(i, ())})
        redecided = replace_stubs([messages[p] for p in positions], index, options.is_protected, grace,
                                  options.memo, options.version)
        failed = []  # a stub is no failure: phase 2 pairs that turn's failed calls again
        for position, message in zip(positions, redecided, strict=True):
            if message is not stubbed[position]:
                if stubbed[position].get("isError") is True:
                    failed.append(position)
                was[position] = stubbed[position]
                stubbed[position] = message
        return failed

    @staticmethod
    def _args_again(last: _Pass, messages: list[Any], stubbed: list[Any], flipped: list[int],
                    memo: ArgsPurgeMemo | None) -> dict[int, Any]:
        """Phase 1b of the turns whose results phase 1 now renders differently: those it decided again
        (`flipped`) and the new ones it stubbed; `stubbed` holds phase 1's output for every result."""
        if memo is None:
            return {}
        start = last.size
        flipped = flipped + [p for p in range(start, len(messages)) if stubbed[p] is not messages[p]]
        return _turn_args(messages, stubbed.__getitem__, flipped, last.errored, memo)

    def _splice(self, last: _Pass, messages: list[Any], changes: list[int], keys: set[str],
                options: RenderOptions, new: _Pass) -> _Pass | None:
        """Phases 3 and 4 of phase 2's output (`new.stubbed`) after a flush: the output `last` had, patched
        where `changes` (earlier positions phase 2 renders differently) show, and run again from the new
        messages on (or from where phase 3 says it may differ): the checkpoint a flush resumes from."""
        layout, purged, begin = last.chains, new.stubbed, last.size
        if isinstance(options.chains, ChainPhase) and layout is not None:
            resumed = options.chains.resume(purged, begin, changes, layout, self._chains, keys)
            if resumed is None:
                return None
            begin, at, tail, placed = resumed  # `at`: where `begin` was in phase 3's output
        elif options.chains is None and layout is not None and not layout.entries:
            at, tail, placed = begin, purged[begin:], [(p, purged[p]) for p in changes]
            layout.size = len(messages)
        else:
            return None
        kept = bisect.bisect_left(last.swept_at, at)
        end = at - kept  # in the output, as it was
        new.orphans = OrphanScan.after(messages if last.out is None else last.out, end)
        swept_at = new.orphans.feed(tail)
        new.swept = last.swept[:kept] + [str(tail[i].get("toolCallId")) for i in swept_at]
        new.swept_at = last.swept_at[:kept] + [at + i for i in swept_at]
        if new.swept:
            options.report_orphans(new.swept)
        tail = without_positions(tail, swept_at) if swept_at else tail
        new.out = self._patched(last, messages, placed, end, tail)
        return new

    def _patched(self, last: _Pass, messages: list[Any], placed: list[tuple[int, Any]], end: int,
                 tail: list[Any]) -> list[Any] | None:
        """`last`'s output with the messages `placed` in phase 3's output put in, and `tail` after its
        first `end`: patched in place, its size counted by the difference; None while that is still
        the messages themselves."""
        out, swept_at = last.out, last.swept_at
        if out is None:
            if not placed and len(tail) == len(messages) - end and all(map(is_, tail, messages[end:])):
                return None
            out = messages[:last.size]
        sizes, chars = self._sizes, 0
        for position, message in placed:
            before = bisect.bisect_left(swept_at, position)
            if before < len(swept_at) and swept_at[before] == position:
                continue  # an orphan, swept still
            chars += sizes.of(message) - sizes.of(out[position - before])
            out[position - before] = message
        chars += sizes.total(tail) - sizes.total(out[end:])
        del out[end:]
        out += tail
        if self._chars_out is not None:
            self._chars_out += chars
        return out



def _settings(options: RenderOptions | None) -> object:
    """The settings part of a render's version (the engine puts it last), or the options themselves."""
    if options is None:
        return None
    version = options.version
    return version[-1] if isinstance(version, tuple) and version else options
