"""How many tokens a model writes for a summary the offline runs make extractively.

Condense's batch prompt asks for 1-3 short bullets per tool call worth keeping, each starting with
the call's `[[N:tool]]` label; the design's own example shows seven calls in about 200 tokens. Two
bullets of about 25 tokens per call is what a model is priced at here, whatever the extractive
bullet's length. Prompts without call labels (range fusion, compaction) are priced at the length of
the text the run produced, which the strategies already size like a model's.
"""

from __future__ import annotations

import re

MODEL_TOKENS_PER_CALL = 50
_CALL_LABEL = re.compile(r"^\[\[\d+:[^\]\n]*\]\] Tool: ", re.MULTILINE)


def model_summary_tokens(prompt: str, produced_tokens: float) -> float:
    calls = len(_CALL_LABEL.findall(prompt))
    return calls * MODEL_TOKENS_PER_CALL if calls else produced_tokens
