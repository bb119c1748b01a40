"""Errors of the LLM clients; every message says what failed, the value, and what is allowed."""

from __future__ import annotations

from grasp_agent.errors import GraspError


class LLMError(GraspError):
    """An LLM could not be loaded, did not answer, or answered something unusable."""


class LLMUnavailableError(LLMError):
    """The LLM server could not be reached (or kept failing) after all retries."""


class ModelFileError(LLMError):
    """A GGUF model file is missing, damaged, or its part packages are not installed."""
