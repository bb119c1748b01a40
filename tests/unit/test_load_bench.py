"""The load benchmark's harness: outcomes are classified from what a search returned, errors are counted
rather than raised, both passes run, and nothing starts after the deadline."""

from __future__ import annotations

import threading
import time

from grasp_agent.evaluation.load_bench import rss_mib, run_load, run_pass, timed_search
from grasp_agent.pipeline.results import SearchResult


def _result(
    question: str, *, reranker: str | None = None, notes: tuple[str, ...] = (), failures: dict[str, str] | None = None
) -> SearchResult:
    return SearchResult(question=question, hits=[], reranker=reranker, notes=list(notes), failures=failures or {})


def test_outcomes_say_reranked_skipped_failed_or_error() -> None:
    reranked = timed_search(lambda q: _result(q, reranker="listwise:hpo"), "q")
    assert reranked.reranked and not reranked.rerank_skipped and reranked.error is None
    skipped = timed_search(
        lambda q: _result(
            q,
            notes=(
                "reranker listwise:hpo skipped: the 3 s budget ran out "
                "after scoring 32 of 50 candidates; fused order kept",
            ),
        ),
        "q",
    )
    assert skipped.rerank_skipped and not skipped.reranked
    failed = timed_search(lambda q: _result(q, failures={"graph": "skipped: Neo4j is unavailable"}), "q")
    assert failed.failures == ("graph",) and failed.error is None

    def broken(question: str) -> SearchResult:
        raise RuntimeError("driver closed")

    error = timed_search(broken, "q")
    assert error.error == "RuntimeError: driver closed" and error.seconds >= 0


def test_both_passes_run_every_question_on_several_threads() -> None:
    seen: list[str] = []
    threads: set[str] = set()
    lock = threading.Lock()

    def search(question: str) -> SearchResult:
        with lock:
            seen.append(question)
            threads.add(threading.current_thread().name)
        time.sleep(0.01)
        return _result(question)

    report = run_load(search, [f"q{i}" for i in range(12)], 4, rerank=False, budget_s=0.0, time_limit_s=60.0)
    assert [p.name for p in report.passes] == ["cold", "warm"]
    assert sorted(seen) == sorted([f"q{i}" for i in range(12)] * 2)
    assert len(threads) > 1
    cold = report.passes[0]
    assert len(cold.latencies) == 12 and cold.errors == []
    assert cold.p50_s is not None and cold.latency(0.95) is not None and cold.latency(0.95) >= cold.p50_s


def test_nothing_starts_after_the_deadline() -> None:
    done = run_pass("cold", _result, ["a", "b", "c"], 2, deadline=time.monotonic() - 1.0)
    assert done.outcomes == [] and done.planned == 3 and done.p50_s is None


def test_rss_is_read_for_this_process_and_none_for_a_missing_one() -> None:
    mine = rss_mib()
    assert mine is not None and mine > 1
    assert rss_mib(2**22 + 12345) is None  # above Linux's default pid_max: no such process
