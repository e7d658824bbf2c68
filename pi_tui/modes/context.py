"""`pi-tui context`: the messages the next model request would carry, as JSON (`--raw`: the whole branch).

It answers "what does the model see now?" from the file alone, with the engine rendering the branch as it
would at the next request; a script can diff it against `--raw` to see what pruning did.
"""

from __future__ import annotations

from collections.abc import Sequence

from condense.config import CondenseConfig
from condense.messages import AgentMessage
from pi_tui.modes.offline import next_request
from pi_tui.session.store import Session
from pi_tui.terminal import terminal_json


def context_json(session: Session, config: CondenseConfig, raw: bool) -> str:
    messages: Sequence[AgentMessage] = session.messages() if raw else next_request(session, config)
    return terminal_json(messages, indent=1) + "\n"
