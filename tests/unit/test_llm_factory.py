"""make_llm: Settings -> the configured LLM (or None for the heuristic planner)."""

from __future__ import annotations

from pathlib import Path

import pytest

from grasp_agent.config import Settings
from grasp_agent.errors import ConfigError
from grasp_agent.llm.errors import ModelFileError
from grasp_agent.llm.factory import make_llm
from grasp_agent.llm.openai_compatible import OpenAICompatibleLLM


def test_llm_settings_default_to_the_heuristic_planner() -> None:
    settings = Settings()  # no ambient GRASP_* (tests/unit/conftest.py)
    assert (settings.llm, settings.llm_gguf, settings.llm_context_tokens, settings.llm_timeout_s) == (
        "none",
        "qwen2.5-0.5b",
        4096,
        120.0,
    )
    assert make_llm(settings) is None


def test_environment_selects_an_openai_server(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GRASP_LLM", "openai")
    monkeypatch.setenv("GRASP_LLM_URL", "http://127.0.0.1:8000/v1")
    monkeypatch.setenv("GRASP_LLM_MODEL", "Qwen/Qwen2.5-7B-Instruct")
    monkeypatch.setenv("GRASP_LLM_API_KEY", "sk-x")
    llm = make_llm(Settings())
    assert isinstance(llm, OpenAICompatibleLLM) and llm.model_id == "openai:Qwen/Qwen2.5-7B-Instruct"
    llm.close()


def test_openai_without_url_or_model_is_a_config_error() -> None:
    with pytest.raises(ConfigError, match="GRASP_LLM_URL and GRASP_LLM_MODEL; got url None"):
        make_llm(Settings(llm="openai", llm_model="m"))


def test_llama_cpp_with_an_unknown_gguf_names_what_is_allowed(tmp_path: Path) -> None:
    settings = Settings(llm="llama-cpp", llm_gguf=str(tmp_path / "nope.gguf"), models_cache_dir=tmp_path)
    with pytest.raises(ModelFileError, match="allowed: \\['qwen2.5-0.5b', 'qwen2.5-coder-1.5b', 'smollm2-135m'\\]"):
        make_llm(settings)
