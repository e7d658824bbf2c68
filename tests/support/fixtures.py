"""pytest fixtures shared by the suite (registered through `pytest_plugins` in tests/conftest.py)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.support.fake_openai import FakeOpenAI


@pytest.fixture
def fake_openai() -> Iterator[FakeOpenAI]:
    """A running local OpenAI-compatible server; `.base_url` ends in `/v1`. Stopped after the test."""
    with FakeOpenAI() as server:
        yield server
