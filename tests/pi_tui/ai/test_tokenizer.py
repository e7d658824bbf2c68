"""whatif's tokenizer: litellm's Claude tokenizer, read without importing litellm."""

from __future__ import annotations

import subprocess
import sys

from pi_tui.ai.litellm_client import import_litellm
from pi_tui.ai.tokenizer import TOKENIZER_MODEL, BundledEncoder
from tests.conftest import corpus_path


def test_the_bundled_tokenizer_counts_as_litellm_encode_does() -> None:
    litellm = import_litellm()
    theirs = litellm.utils.select_tokenizer(model=TOKENIZER_MODEL)
    ours = BundledEncoder()
    texts = ["hello world", "  x\n\ty", "é 漢字 🙂", corpus_path("pi-large-session.jsonl").read_text()[:100_000]]
    for text in texts:
        assert list(ours.encode(text)) == list(litellm.encode(text=text, custom_tokenizer=theirs))


def test_whatif_s_tokenizer_loads_without_importing_litellm() -> None:
    """litellm's import is seconds of CPU and hundreds of MB: whatif and each of its workers skip it."""
    code = ("import sys; from pi_tui.ai.tokenizer import default_encoder; encoder = default_encoder();"
            " print(type(encoder).__name__, 'litellm' in sys.modules, len(encoder.encode('hello world')))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.split() == ["BundledEncoder", "False", "2"]
