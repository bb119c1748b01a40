"""Builds the configured LLM from Settings, or None when the heuristic planner is configured."""

from __future__ import annotations

from grasp_agent.config import Settings
from grasp_agent.errors import ConfigError
from grasp_agent.llm.base import GraspLLM
from grasp_agent.llm.openai_compatible import OpenAICompatibleLLM
from grasp_agent.llm.packaged_models import resolve_gguf


def make_llm(settings: Settings) -> GraspLLM | None:
    """The LLM that `settings.llm` names; None for 'none' (callers then use the heuristic planner).

    'llama-cpp' resolves `settings.llm_gguf` first (joining a packaged model into the models cache on first
    use) and loads it in-process; that needs the `local-llm` extra.
    """
    if settings.llm == "none":
        return None
    if settings.llm == "openai":
        if not settings.llm_url or not settings.llm_model:
            raise ConfigError(
                f"llm 'openai' needs GRASP_LLM_URL and GRASP_LLM_MODEL; got url {settings.llm_url!r}, "
                f"model {settings.llm_model!r}"
            )
        return OpenAICompatibleLLM(
            settings.llm_url, settings.llm_model, api_key=settings.llm_api_key, timeout_s=settings.llm_timeout_s
        )
    # Imported here: the module itself is light, but keeping the local backend off the openai path
    # means a broken llama-cpp-python install can never affect a server-backed setup.
    from grasp_agent.llm.llama_cpp import LlamaCppLLM

    gguf = resolve_gguf(settings.llm_gguf, settings.resolved_models_cache_dir)
    return LlamaCppLLM(gguf, context_tokens=settings.llm_context_tokens, threads=settings.llm_threads)
