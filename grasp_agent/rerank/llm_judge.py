"""Pointwise LLM judge in the style of Qwen3-Reranker: score = P(yes) / (P(yes) + P(no)) for the first token.

Prompt (Zhang et al., "Qwen3 Embedding: Advancing Text Embedding and Reranking Through Foundation Models",
2025): a fixed system instruction that the answer is "yes" or "no", then one user message

    <Instruct>: {instruction}
    <Query>: {query}
    <Document>: {document}

The instruction is per dataset (what counts as relevant there). Qwen-family tokenizers start a one-word
answer with "Yes"/"No" rather than "yes"/"no", so both spellings are asked for and merged (disjoint first
tokens, so their probabilities add). Renormalizing over yes and no alone makes the score independent of the
probability mass the model puts elsewhere ("The", "Based"). When neither word has any probability (a backend
that reports only a top list without them), the score is 0.5 and the `Judgement` says so.

`LLMError` from the backend propagates unchanged: degrading to another reranker is the pipeline's decision.
"""

from __future__ import annotations

import hashlib
import logging
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from neo4j_graphrag.types import LLMMessage

from grasp_agent.llm.base import GraspLLM, logsumexp
from grasp_agent.llm.errors import LLMError
from grasp_agent.rerank.base import Reranker, RerankError
from grasp_agent.skb.documents import TokenCounter, truncate_to_tokens

logger = logging.getLogger(__name__)

DEFAULT_SYSTEM = (
    "Judge whether the Document meets the requirements based on the Query and the Instruct provided. "
    'Note that the answer can only be "yes" or "no".'
)  # Qwen3-Reranker's system prompt
DEFAULT_INSTRUCTION = "Given a question, judge whether the Document describes an entity that answers it"
DEFAULT_MAX_DOCUMENT_CHARS = 2000  # ~500 tokens of English, GRASP's document budget
YES_SPELLINGS = ("yes", "Yes")
NO_SPELLINGS = ("no", "No")
UNDECIDED_SCORE = 0.5


@dataclass(frozen=True)
class Judgement:
    """One document's verdict: log P(yes), log P(no) (spellings merged) and the renormalized P(yes)."""

    score: float
    logprob_yes: float
    logprob_no: float

    @property
    def undecided(self) -> bool:
        """Neither word had any probability, so `score` is the neutral 0.5."""
        return self.logprob_yes == -math.inf and self.logprob_no == -math.inf


def yes_probability(logprob_yes: float, logprob_no: float) -> float:
    """P(yes) / (P(yes) + P(no)) = sigmoid(logprob_yes - logprob_no), without overflow; 0.5 when both are -inf."""
    if logprob_yes == -math.inf and logprob_no == -math.inf:
        return UNDECIDED_SCORE
    margin = logprob_yes - logprob_no  # +inf or -inf when exactly one word is impossible
    if margin >= 0:
        return 1.0 / (1.0 + math.exp(-margin))
    return math.exp(margin) / (1.0 + math.exp(margin))


def judge_messages(
    query: str, document: str, *, system: str = DEFAULT_SYSTEM, instruction: str = DEFAULT_INSTRUCTION
) -> list[LLMMessage]:
    """The system + user messages of one (query, document) judgement."""
    user = f"<Instruct>: {instruction}\n<Query>: {query}\n<Document>: {document}"
    return [{"role": "system", "content": system}, {"role": "user", "content": user}]


def truncate_chars(text: str, max_chars: int) -> str:
    """The longest prefix of `text` within `max_chars` that ends at a word boundary (a hard cut for one long word)."""
    if len(text) <= max_chars:
        return text
    cut = text[:max_chars]
    if not text[max_chars].isspace():
        boundary = cut.rfind(" ")  # drop the word the budget splits
        cut = cut[:boundary] if boundary > 0 else cut
    return cut.rstrip()


def merge_answer(logprobs: Mapping[str, float]) -> tuple[float, float]:
    """(log P(yes), log P(no)) with the spellings merged; an error when the backend's answer is unusable."""
    wanted = (*YES_SPELLINGS, *NO_SPELLINGS)
    missing = [c for c in wanted if c not in logprobs]
    bad = {c: logprobs[c] for c in wanted if c in logprobs and (math.isnan(logprobs[c]) or logprobs[c] == math.inf)}
    if missing or bad:
        raise LLMError(
            f"first_token_logprobs returned {dict(logprobs)!r}: missing {missing}, invalid {bad}; "
            f"allowed: a log-probability (<= 0 or -inf) for each of {list(wanted)}"
        )
    return (logsumexp(logprobs[c] for c in YES_SPELLINGS), logsumexp(logprobs[c] for c in NO_SPELLINGS))


class LLMJudgeReranker(Reranker):
    """Scores each document with one first-token call to a `GraspLLM` (a prompt prefix cache makes the shared
    system message cheap on llama.cpp)."""

    def __init__(
        self,
        llm: GraspLLM,
        *,
        instruction: str = DEFAULT_INSTRUCTION,
        system: str = DEFAULT_SYSTEM,
        max_document_chars: int = DEFAULT_MAX_DOCUMENT_CHARS,
        count_tokens: TokenCounter | None = None,
        max_document_tokens: int | None = None,
    ) -> None:
        """Documents are cut to `max_document_chars` and, when `count_tokens` is given, to `max_document_tokens`
        tokens as it counts them (e.g. an embedder's `count_tokens`)."""
        if not instruction.strip() or not system.strip():
            raise RerankError(f"instruction {instruction!r} or system {system!r} refused; allowed: non-blank text")
        if max_document_chars < 1:
            raise RerankError(f"max_document_chars {max_document_chars} refused; allowed: >= 1")
        if (count_tokens is None) != (max_document_tokens is None) or (max_document_tokens or 1) < 1:
            raise RerankError(
                f"max_document_tokens {max_document_tokens} with count_tokens {count_tokens!r} refused; "
                "allowed: both None, or a token counter and an int >= 1"
            )
        self._llm = llm
        self._instruction = instruction
        self._system = system
        self._max_chars = max_document_chars
        self._count_tokens = count_tokens
        self._max_tokens = max_document_tokens

    @property
    def model_id(self) -> str:
        """The LLM's id plus a digest of the prompt and budgets, which change scores too."""
        settings = f"{self._system}\x00{self._instruction}\x00{self._max_chars}\x00{self._max_tokens}"
        digest = hashlib.sha256(settings.encode("utf-8")).hexdigest()[:8]
        return f"llm-judge:{self._llm.model_id}:{digest}"

    def fit_document(self, document: str) -> str:
        """`document` cut to the character and (when configured) token budgets."""
        text = truncate_chars(document, self._max_chars)
        if self._count_tokens is not None and self._max_tokens is not None:
            text = truncate_to_tokens(text, self._max_tokens, self._count_tokens)
        return text

    def judge(self, query: str, docs: Sequence[str]) -> list[Judgement]:
        """One `Judgement` per document, in input order."""
        judgements = []
        for document in docs:
            messages = judge_messages(
                query, self.fit_document(document), system=self._system, instruction=self._instruction
            )
            answer = self._llm.first_token_logprobs(messages, [*YES_SPELLINGS, *NO_SPELLINGS])
            logprob_yes, logprob_no = merge_answer(answer)
            judgements.append(Judgement(yes_probability(logprob_yes, logprob_no), logprob_yes, logprob_no))
        undecided = sum(j.undecided for j in judgements)
        if undecided:
            logger.warning(
                "LLM judge %s gave %d of %d documents no yes/no probability; scored them %s",
                self._llm.model_id,
                undecided,
                len(judgements),
                UNDECIDED_SCORE,
            )
        return judgements

    def score(self, query: str, docs: Sequence[str]) -> list[float]:
        return [judgement.score for judgement in self.judge(query, docs)]


__all__ = [
    "DEFAULT_INSTRUCTION",
    "DEFAULT_MAX_DOCUMENT_CHARS",
    "DEFAULT_SYSTEM",
    "NO_SPELLINGS",
    "UNDECIDED_SCORE",
    "YES_SPELLINGS",
    "Judgement",
    "LLMJudgeReranker",
    "judge_messages",
    "merge_answer",
    "truncate_chars",
    "yes_probability",
]
