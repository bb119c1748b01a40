"""`grasp bench load`: many searches from several threads at once, as a shared demo or a RAG app sees them.

Two passes over the same questions: the first is cold (nothing of these questions cached: query embeddings,
documents, Cypher plans of new shapes), the second warm. Each pass reports latency percentiles, errors,
how many searches reranked and how many kept the fused order (the reranker busy or its budget spent), and the
resident memory of this process and of the Neo4j JVM after it, so growth across passes shows. Bounded in
count (the question list) and in time (searches not started before the deadline are counted as not run).
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from statistics import median

from grasp_agent.evaluation.graph_bench import percentile
from grasp_agent.pipeline.results import SearchResult

Search = Callable[[str], SearchResult]


@dataclass(frozen=True)
class SearchOutcome:
    seconds: float
    error: str | None = None  # an exception: the search gave no answer at all
    reranked: bool = False
    rerank_skipped: bool = False  # the reranker was busy or its budget ran out: fused order kept
    failures: tuple[str, ...] = ()  # branches that gave nothing (the answer came from the others)


@dataclass(frozen=True)
class PassReport:
    name: str
    planned: int
    outcomes: list[SearchOutcome]
    wall_s: float
    python_rss_mib: float | None
    jvm_rss_mib: float | None

    @property
    def latencies(self) -> list[float]:
        return [outcome.seconds for outcome in self.outcomes if outcome.error is None]

    @property
    def errors(self) -> list[str]:
        return [outcome.error for outcome in self.outcomes if outcome.error is not None]

    def latency(self, share: float) -> float | None:
        return percentile(self.latencies, share) if self.latencies else None

    @property
    def p50_s(self) -> float | None:
        return median(self.latencies) if self.latencies else None

    def count(self, predicate: Callable[[SearchOutcome], bool]) -> int:
        return sum(1 for outcome in self.outcomes if predicate(outcome))


@dataclass(frozen=True)
class LoadReport:
    threads: int
    questions: int
    rerank: bool
    budget_s: float
    python_rss_before_mib: float | None
    jvm_rss_before_mib: float | None
    passes: list[PassReport] = field(default_factory=list)


def rss_mib(pid: int | None = None) -> float | None:
    """Resident memory now (VmRSS, not the peak) of `pid` (default: this process); None when unreadable."""
    try:
        status = Path(f"/proc/{pid or os.getpid()}/status").read_text()
    except OSError:
        return None
    for line in status.splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024  # kB
    return None


def timed_search(search: Search, question: str, clock: Callable[[], float] = time.perf_counter) -> SearchOutcome:
    started = clock()
    try:
        result = search(question)
    except Exception as error:  # counted, not raised: one failing search must not end the benchmark
        return SearchOutcome(clock() - started, f"{type(error).__name__}: {error}")
    skipped = any(note.startswith("reranker") and " skipped: " in note for note in result.notes)
    return SearchOutcome(clock() - started, None, result.reranker is not None, skipped, tuple(sorted(result.failures)))


def run_pass(
    name: str, search: Search, questions: Sequence[str], threads: int, deadline: float, jvm_pid: int | None = None
) -> PassReport:
    """Every question once, `threads` at a time; questions whose turn comes after `deadline` (monotonic) do
    not run."""

    def job(question: str) -> SearchOutcome | None:
        return timed_search(search, question) if time.monotonic() < deadline else None

    started = time.perf_counter()
    with ThreadPoolExecutor(max_workers=threads, thread_name_prefix=f"load-{name}") as pool:
        outcomes = [outcome for outcome in pool.map(job, questions) if outcome is not None]
    return PassReport(
        name, len(questions), outcomes, time.perf_counter() - started, rss_mib(), rss_mib(jvm_pid) if jvm_pid else None
    )


def run_load(
    search: Search,
    questions: Sequence[str],
    threads: int,
    *,
    rerank: bool,
    budget_s: float,
    time_limit_s: float,
    jvm_pid: int | None = None,
    progress: Callable[[PassReport], None] | None = None,
) -> LoadReport:
    """The cold pass, then the warm pass, within `time_limit_s` in all."""
    deadline = time.monotonic() + time_limit_s
    report = LoadReport(threads, len(questions), rerank, budget_s, rss_mib(), rss_mib(jvm_pid) if jvm_pid else None)
    for name in ("cold", "warm"):
        done = run_pass(name, search, questions, threads, deadline, jvm_pid)
        report.passes.append(done)
        if progress is not None:
            progress(done)
    return report


__all__ = ["LoadReport", "PassReport", "SearchOutcome", "rss_mib", "run_load", "run_pass", "timed_search"]
