"""The reranker named by settings, and the refusals when its requirements are missing."""

from __future__ import annotations

import pytest

from grasp_agent.config import Settings
from grasp_agent.embed.base import GraspEmbedder
from grasp_agent.errors import ConfigError
from grasp_agent.llm.openai_compatible import OpenAICompatibleLLM
from grasp_agent.rerank.bi_encoder import BiEncoderReranker
from grasp_agent.rerank.factory import judge_instruction, make_reranker
from grasp_agent.rerank.llm_judge import LLMJudgeReranker
from grasp_agent.skb.hpo import HpoSource


def test_each_setting_builds_its_reranker(embedder: GraspEmbedder) -> None:
    base = Settings()
    assert make_reranker(base.model_copy(update={"reranker": "none"}), embedder, None) is None
    assert isinstance(make_reranker(base, embedder, None), BiEncoderReranker)  # the default
    llm = OpenAICompatibleLLM("http://127.0.0.1:9/v1", "judge")  # built, never called here
    schema = HpoSource(subset_roots=("HP:0011097",)).schema()
    judge = make_reranker(base.model_copy(update={"reranker": "llm-judge"}), embedder, llm, schema)
    assert isinstance(judge, LLMJudgeReranker) and judge.model_id.startswith("llm-judge:openai:judge:")
    assert "'hpo' knowledge base (node types: Phenotype, Disease, Gene)" in judge_instruction(schema)


def test_missing_requirements_are_named(embedder: GraspEmbedder) -> None:
    with pytest.raises(ConfigError, match="needs an LLM: set GRASP_LLM"):
        make_reranker(Settings(reranker="llm-judge"), embedder, None)
    with pytest.raises(ConfigError, match="needs GRASP_RERANKER_PATH"):
        make_reranker(Settings(reranker="cross-encoder"), embedder, None)
