"""Rerankers of the fused head: LLM judge (yes/no first token), cross-encoder, and the bi-encoder fallback.

`rerank(query, candidates, reranker, k)` gives the reranked head order that `fusion.rerank_fusion` fuses back.
`CrossEncoderReranker` imports sentence-transformers (the [train] extra) only when built.
"""

from grasp_agent.rerank.base import Reranker, RerankError, check_scores, rerank
from grasp_agent.rerank.bi_encoder import BiEncoderReranker
from grasp_agent.rerank.cross_encoder import CrossEncoderReranker
from grasp_agent.rerank.llm_judge import Judgement, LLMJudgeReranker, judge_messages, yes_probability

__all__ = [
    "BiEncoderReranker",
    "CrossEncoderReranker",
    "Judgement",
    "LLMJudgeReranker",
    "RerankError",
    "Reranker",
    "check_scores",
    "judge_messages",
    "rerank",
    "yes_probability",
]
