"""Builds the configured reranker from Settings (None when reranking is off)."""

from __future__ import annotations

from grasp_agent.config import Settings
from grasp_agent.embed.base import GraspEmbedder
from grasp_agent.errors import ConfigError
from grasp_agent.llm.base import GraspLLM
from grasp_agent.rerank.base import Reranker
from grasp_agent.rerank.bi_encoder import BiEncoderReranker
from grasp_agent.rerank.llm_judge import DEFAULT_INSTRUCTION, LLMJudgeReranker
from grasp_agent.skb.schema import SkbSchema

JUDGE_DOCUMENT_TOKENS = 400  # keeps one judge call (instruction + query + document) well inside 1k tokens


def judge_instruction(schema: SkbSchema) -> str:
    """The per-dataset instruction of the LLM judge: what kind of knowledge base the documents come from."""
    types = ", ".join(node_type.label for node_type in schema.node_types)
    return (f"Given a question about the '{schema.name}' knowledge base (node types: {types}), judge whether the "
            "Document describes an entity that answers it")


def make_reranker(settings: Settings, embedder: GraspEmbedder, llm: GraspLLM | None,
                  schema: SkbSchema | None = None) -> Reranker | None:
    if settings.reranker == "none":
        return None
    if settings.reranker == "bi-encoder":
        return BiEncoderReranker(embedder)
    if settings.reranker == "llm-judge":
        if llm is None:
            raise ConfigError("reranker 'llm-judge' needs an LLM: set GRASP_LLM to llama-cpp or openai")
        instruction = judge_instruction(schema) if schema is not None else DEFAULT_INSTRUCTION
        return LLMJudgeReranker(llm, instruction=instruction, count_tokens=embedder.count_tokens,
                                max_document_tokens=JUDGE_DOCUMENT_TOKENS)
    if settings.reranker_path is None:
        raise ConfigError("reranker 'cross-encoder' needs GRASP_RERANKER_PATH: a local sentence-transformers model")
    from grasp_agent.rerank.cross_encoder import CrossEncoderReranker  # the [train] extra, only when chosen

    return CrossEncoderReranker(settings.reranker_path)
