"""Benchmarks of the graph branch: latency per stage, and plan parse/valid rates with ranking quality.

Stages (named as in GraphBranchResult.timings_ms and the pipeline): extract (mentions), link (entity table),
plan (LLM or heuristic, validation included), execute (grasp.plan.execute without a relevance vector: linking
of anchors, the compiled query, witnesses) and rescore (embedding relevance_text plus the extra time execute
takes with it). Execute and rescore are measured `repeats` times per question after one warm-up run, median
taken.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from statistics import median

from tqdm import tqdm

from grasp_agent.evaluation.query_sets import EvalQuery
from grasp_agent.graph_branch.branch import STAGES as GRAPH_STAGES
from grasp_agent.graph_branch.branch import GraphBranch, GraphBranchResult
from grasp_agent.ranking import RankingQuality, ranking_quality

STAGES = (*GRAPH_STAGES, "rescore")


@dataclass(frozen=True)
class StageStats:
    stage: str
    samples: int
    median_ms: float
    p90_ms: float
    max_ms: float


@dataclass(frozen=True)
class PlannerReport:
    planner: str
    questions: int
    parsed_first: float  # share of questions whose greedy answer parsed as a plan
    valid_as_written: float  # ... and validated without repairs
    valid_first: float  # ... and validated after the mechanical repairs
    valid: float  # share with a valid plan after the retries
    mean_attempts: float
    quality: RankingQuality
    stages: list[StageStats] = field(default_factory=list)
    by_template: dict[str, RankingQuality] = field(default_factory=dict)
    failures: list[tuple[str, str]] = field(default_factory=list)  # (question, reason), for reading


def percentile(values: Sequence[float], share: float) -> float:
    """Nearest-rank percentile (share in (0, 1]); pure."""
    ordered = sorted(values)
    index = max(0, min(len(ordered) - 1, int(-(-share * len(ordered) // 1)) - 1))
    return ordered[index]


def stage_stats(samples: dict[str, list[float]]) -> list[StageStats]:
    return [
        StageStats(stage, len(values), median(values), percentile(values, 0.9), max(values))
        for stage in STAGES
        if (values := samples.get(stage))
    ]


def _ms(start: float) -> float:
    return (time.perf_counter() - start) * 1000.0


def time_execution(branch: GraphBranch, result: GraphBranchResult, repeats: int) -> tuple[float, float] | None:
    """(execute ms, rescore ms) for a planned question: execute without, then with the relevance vector."""
    plan = result.planning.plan
    if plan is None:
        return None
    runner, procedures = branch.runner, branch.procedures
    anchors = runner.anchor_inputs(plan)  # as a search passes them (bindings for described entities)
    start = time.perf_counter()
    relevance = runner.relevance_vector(plan, result.question)
    embed_ms = _ms(start)
    plan_json = plan.to_json()

    def run(vector: list[float] | None) -> float:
        start = time.perf_counter()
        procedures.execute(plan_json, anchors, vector, 100, {})
        return _ms(start)

    run(None)  # warm-up: page cache and query plan
    bare = median(run(None) for _ in range(repeats))
    if relevance is None:
        return bare, 0.0
    with_text = median(run(relevance) for _ in range(repeats))
    return bare, embed_ms + max(0.0, with_text - bare)


def run_benchmark(
    branch: GraphBranch, questions: Sequence[EvalQuery], repeats: int = 3, progress: bool = True
) -> PlannerReport:
    samples: dict[str, list[float]] = {stage: [] for stage in STAGES}
    runs = []
    parsed_first = as_written = valid_first = valid = attempts = 0
    failures = []
    templates: list[str] = []
    for question in tqdm(questions, desc=branch.planner_name, disable=not progress, unit="q"):
        result = branch.run(question.text)
        for stage in ("extract", "link", "plan"):
            samples[stage].append(result.timings_ms[stage])
        outcome = result.planning
        first = outcome.attempts[0] if outcome.attempts else None
        parsed_first += first is not None and first.plan is not None
        valid_first += first is not None and first.plan is not None and not first.errors
        as_written += first is not None and first.valid_as_written
        valid += outcome.plan is not None
        attempts += len(outcome.attempts)
        if outcome.plan is None or not result.ranking.nodes:
            failures.append((question.text, outcome.reason or result.ranking.reason or ""))
        timed = time_execution(branch, result, repeats) if repeats > 0 else None
        if timed is not None:
            samples["execute"].append(timed[0])
            samples["rescore"].append(timed[1])
        runs.append(([str(node_id) for node_id in result.ranking.node_ids], set(question.answer_ids)))
        templates.append(question.template or "(none)")
    count = max(1, len(questions))
    return PlannerReport(
        branch.planner_name,
        len(questions),
        parsed_first / count,
        as_written / count,
        valid_first / count,
        valid / count,
        attempts / count,
        ranking_quality(runs),
        stage_stats(samples),
        {
            name: ranking_quality([run for run, t in zip(runs, templates, strict=True) if t == name])
            for name in sorted(set(templates))
        },
        failures,
    )
