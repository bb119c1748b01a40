"""Unit tests are hermetic: none reads the GRASP_* settings of the shell that runs the suite (a developer's
GRASP_RERANKER=none or GRASP_TYPE_POLICY=filter must not change what they check)."""

from __future__ import annotations

import os

import pytest


@pytest.fixture(autouse=True)
def _no_ambient_settings(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in [name for name in os.environ if name.startswith("GRASP_")]:
        monkeypatch.delenv(name)
