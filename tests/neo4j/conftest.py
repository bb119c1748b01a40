"""Live tests are hermetic too: none reads the GRASP_* settings of the shell that runs the suite. Settings come
from `settings_for(env)` and subprocesses get `cli_env(env)` (tests/conftest.py), which drop the shell's
GRASP_*; this removes them for the test bodies as well, so a stray `Settings()` cannot pick them up."""

from __future__ import annotations

import os

import pytest


@pytest.fixture(autouse=True)
def _no_ambient_settings(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in [name for name in os.environ if name.startswith("GRASP_")]:
        monkeypatch.delenv(name)
