"""What reranking may cost one search: a few searches rerank at once, each within a time budget.

A cross-encoder reads every (question, candidate document) pair: about 1.6 s for 50 candidates on two
cores. Eight searches reranking at once share the same cores, so each takes eight times as long, and a
search's latency grows with the load instead of staying near its own cost. The gate admits `slots` searches
at a time (more would only share the cores); a search that finds every slot taken does not queue (waiting
would add the others' reranking to its latency) but keeps its fused order at once, a correct ranking one
step less refined. An admitted search gets `budget_s` seconds: scoring goes in chunks, the deadline checked
between them, so it stops at most one chunk past the deadline and keeps its fused order too.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from grasp_agent.rerank.base import Id, Reranker, RerankError, check_scores, rerank

SCORE_CHUNK = 16  # documents scored between two deadline checks: one encoder batch


class RerankBudgetExceeded(RerankError):
    """The budget ran out before every candidate was scored; the caller keeps the fused order."""


@dataclass
class RerankGate:
    """`slots` concurrent reranks, `budget_s` seconds of scoring each (0: no budget, as evaluation wants: it
    measures the model, not the machine's load; evaluation runs one search at a time, so a slot is free)."""

    budget_s: float
    slots: int = 1
    clock: Callable[[], float] = time.monotonic
    _semaphore: threading.BoundedSemaphore = field(init=False, repr=False)

    def __post_init__(self) -> None:
        if self.budget_s < 0 or self.slots < 1:
            raise RerankError(
                f"rerank gate budget_s={self.budget_s}, slots={self.slots}; allowed: budget_s >= 0 "
                "(0: unbounded) and slots >= 1"
            )
        self._semaphore = threading.BoundedSemaphore(self.slots)

    def rerank(
        self,
        query: str,
        candidates: Sequence[tuple[Id, str]],
        reranker: Reranker,
        k: int,
        budget_s: float | None = None,
    ) -> list[Id]:
        """`rerank` of the first `k` candidates within `budget_s` (default: the gate's); RerankBudgetExceeded
        when every slot is taken or the scoring runs past the budget."""
        budget = self.budget_s if budget_s is None else budget_s
        if budget < 0:
            raise RerankError(f"rerank budget {budget} s refused; allowed: >= 0 (0: unbounded)")
        started = self.clock()
        if not self._semaphore.acquire(blocking=False):
            raise RerankBudgetExceeded(
                f"all {self.slots} reranking slot(s) busy with other searches (GRASP_RERANK_SLOTS)"
            )
        try:
            if not budget:
                return rerank(query, candidates, reranker, k)
            return rerank(query, candidates, _ScoredUntil(reranker, started + budget, self.clock, budget), k)
        finally:
            self._semaphore.release()


@dataclass(frozen=True)
class _ScoredUntil(Reranker):
    """The reranker scoring in chunks, stopping with RerankBudgetExceeded once the deadline has passed. Scores
    are pointwise, so chunking does not change them."""

    inner: Reranker
    deadline: float
    clock: Callable[[], float]
    budget: float

    @property
    def model_id(self) -> str:
        return self.inner.model_id

    def score(self, query: str, docs: Sequence[str]) -> list[float]:
        scores: list[float] = []
        for start in range(0, len(docs), SCORE_CHUNK):
            if self.clock() > self.deadline:
                raise RerankBudgetExceeded(
                    f"the {self.budget:g} s budget ran out after scoring {start} of {len(docs)} candidates"
                )
            chunk = docs[start : start + SCORE_CHUNK]
            scores.extend(check_scores(self.inner.score(query, chunk), len(chunk), self.inner.model_id))
        return scores


__all__ = ["SCORE_CHUNK", "RerankBudgetExceeded", "RerankGate"]
