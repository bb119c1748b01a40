"""LLM clients for the planner and the LLM-judge reranker: an OpenAI-compatible server or in-process llama.cpp.

Every client is a neo4j-graphrag `LLMInterfaceV2` plus `GraspLLM`'s JSON-schema and first-token-logprob calls.
Build one from Settings with `grasp_agent.llm.factory.make_llm`.
"""

from grasp_agent.llm.base import ChatResult, GraspLLM, OutputConstraint
from grasp_agent.llm.errors import LLMError, LLMUnavailableError, ModelFileError

__all__ = ["ChatResult", "GraspLLM", "LLMError", "LLMUnavailableError", "ModelFileError", "OutputConstraint"]
