"""The rerank gate: chunked scoring gives the unbounded order, the budget stops scoring between chunks, and a
search that finds every slot taken keeps its fused order at once instead of queueing behind the others."""

from __future__ import annotations

import threading
import time
from collections.abc import Sequence

import pytest

from grasp_agent.rerank import Reranker, RerankError, rerank
from grasp_agent.rerank.budget import SCORE_CHUNK, RerankBudgetExceeded, RerankGate


class TickingReranker(Reranker):
    """Scores a document by its number; each call advances a fake clock by `cost` seconds."""

    def __init__(self, clock: list[float], cost: float) -> None:
        self.clock, self.cost = clock, cost
        self.calls: list[int] = []

    @property
    def model_id(self) -> str:
        return "ticking"

    def score(self, query: str, docs: Sequence[str]) -> list[float]:
        self.calls.append(len(docs))
        self.clock[0] += self.cost
        return [float(int(doc) % 7) for doc in docs]


def _candidates(count: int) -> list[tuple[int, str]]:
    return [(index, str(index)) for index in range(count)]


def test_chunked_scoring_within_budget_gives_the_unbounded_order() -> None:
    clock = [0.0]
    reranker = TickingReranker(clock, cost=0.1)
    gate = RerankGate(budget_s=10.0, clock=lambda: clock[0])
    bounded = gate.rerank("q", _candidates(50), reranker, k=40)
    assert reranker.calls == [SCORE_CHUNK, SCORE_CHUNK, 40 - 2 * SCORE_CHUNK]
    assert bounded == rerank("q", _candidates(50), TickingReranker([0.0], 0.0), k=40)


def test_the_budget_stops_scoring_between_chunks() -> None:
    clock = [0.0]
    reranker = TickingReranker(clock, cost=1.0)
    gate = RerankGate(budget_s=1.5, clock=lambda: clock[0])
    with pytest.raises(RerankBudgetExceeded, match=f"after scoring {2 * SCORE_CHUNK} of 50"):
        gate.rerank("q", _candidates(50), reranker, k=50)
    assert reranker.calls == [SCORE_CHUNK, SCORE_CHUNK]  # the check before the third chunk stopped it
    # The slot was given back: the next search reranks.
    clock[0] = 0.0
    assert gate.rerank("q", _candidates(3), TickingReranker(clock, 0.0), k=3) == [2, 1, 0]


def test_zero_budget_means_unbounded() -> None:
    clock = [0.0]
    gate = RerankGate(budget_s=0.0, clock=lambda: clock[0])
    assert gate.rerank("q", _candidates(50), TickingReranker(clock, cost=100.0), k=50)[:2] == [6, 13]
    # and a per-call budget overrides the gate's
    with pytest.raises(RerankBudgetExceeded):
        gate.rerank("q", _candidates(50), TickingReranker(clock, cost=100.0), k=50, budget_s=1.0)


def test_a_search_that_finds_every_slot_taken_is_refused_not_queued() -> None:
    gate = RerankGate(budget_s=60.0, slots=1)
    inside, release = threading.Event(), threading.Event()

    class Blocking(TickingReranker):
        def score(self, query: str, docs: Sequence[str]) -> list[float]:
            inside.set()
            release.wait(5)
            return super().score(query, docs)

    worker = threading.Thread(target=gate.rerank, args=("q", _candidates(3), Blocking([0.0], 0.0), 3, 0.0))
    worker.start()
    try:
        assert inside.wait(5)
        started = time.monotonic()
        with pytest.raises(RerankBudgetExceeded, match="all 1 reranking slot"):
            gate.rerank("q", _candidates(3), TickingReranker([0.0], 0.0), k=3)
        assert time.monotonic() - started < 5  # at once, not after the 60 s budget
    finally:
        release.set()
        worker.join(5)
    assert gate.rerank("q", _candidates(3), TickingReranker([0.0], 0.0), k=3) == [2, 1, 0]


@pytest.mark.parametrize(("budget", "slots"), [(-1.0, 1), (1.0, 0)])
def test_bad_gate_settings_are_refused(budget: float, slots: int) -> None:
    with pytest.raises(RerankError, match="allowed"):
        RerankGate(budget_s=budget, slots=slots)
