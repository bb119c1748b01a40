"""The packaged 0.5B GGUF for tests: loaded when the [local-llm] extra is installed, else a skip with the reason."""

from __future__ import annotations

import importlib.metadata
import importlib.util
from typing import Any

import pytest

from grasp_agent.config import default_models_cache_dir
from grasp_agent.llm.packaged_models import QWEN_05B, QWEN_05B_GGUF, resolve_gguf

HAVE_LLAMA_CPP = importlib.util.find_spec("llama_cpp") is not None


def parts_installed() -> bool:
    try:
        return all(importlib.metadata.distribution(part.distribution) for part in QWEN_05B_GGUF.parts)
    except importlib.metadata.PackageNotFoundError:
        return False


def open_05b(**options: Any) -> Any:
    """A LlamaCppLLM on the 0.5B model, or pytest.skip naming what to install."""
    if not HAVE_LLAMA_CPP:
        pytest.skip("the [local-llm] extra installs llama-cpp-python")
    if not parts_installed():
        pytest.skip(f"the 0.5B GGUF parts are not installed; run: {QWEN_05B_GGUF.install_hint}")
    from grasp_agent.llm.llama_cpp import LlamaCppLLM

    return LlamaCppLLM(resolve_gguf(QWEN_05B, default_models_cache_dir()), **options)
