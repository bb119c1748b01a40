"""Fitting fusion weights on validation queries by grid search (pure, deterministic).

The objective is the mean of a per-query metric (MRR by default, `evaluation.metrics.reciprocal_rank`) of the
fused ranking against the gold ids. Among grid values whose mean differs by at most 1e-12 from the best, the
SMALLER one wins: it leans on the text branch, which always answers, so a tie never buys graph-branch risk.

- `fit_static`: one graph weight for all queries.
- `fit_dynamic`: per n_cand bucket, the w that is best on that bucket's queries, with the risk and agreement
  multipliers held at the prior tables' values; then, only when a `risk_grid` is given, per risk level the
  multiplier that is best on that level's queries with the fitted buckets held; then, only when an `agree_grid`
  is given, the same per agreement of the branches (agree / disagree) with buckets and risks held. One round of
  coordinate ascent, not a joint optimum: validation sets are a few hundred queries, and a joint 5 x 3 x 2 grid
  would overfit them. A bucket or level with fewer than `min_examples` queries (MIN_FIT_EXAMPLES) keeps its
  prior. Queries with an empty graph ranking are text-only whatever the weight, so they are left out of every
  choice (they still count in `score`).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Hashable, Sequence
from collections.abc import Set as AbstractSet
from dataclasses import dataclass
from statistics import fmean
from typing import TypeVar

from grasp_agent.fusion.policies import dynamic_fusion, static_fusion
from grasp_agent.fusion.rrf import RRF_K, FusionError, check_k, rerank_fusion
from grasp_agent.fusion.tables import DynamicFusionTables, branches_agree, bucket_of
from grasp_agent.ranking import RankingQuality, Risk, ranking_quality, reciprocal_rank

Metric = Callable[[Sequence[Hashable], set[Hashable]], float]
Level = TypeVar("Level", int, Risk, bool)
DEFAULT_GRID: tuple[float, ...] = tuple(step / 20 for step in range(21))  # 0.0, 0.05, ..., 1.0
# A bucket or level fitted on fewer valid questions keeps its prior: on 41 generated geo questions, weights fitted
# on buckets of 5 and 1 questions (0.1 and 0.0) ranked the train and test splits below the untouched priors.
MIN_FIT_EXAMPLES = 10
_TIE = 1e-12


@dataclass(frozen=True)
class FusionExample:
    """One validation query: both branches' rankings (best first), the plan's n_cand and risk, the answers."""

    graph: Sequence[Hashable]
    text: Sequence[Hashable]
    gold: AbstractSet[Hashable]
    n_cand: int = 50  # Plan's default
    risk: Risk = Risk.LOW


@dataclass(frozen=True)
class GridChoice:
    value: float  # the chosen grid value (or the prior, when `examples` is 0)
    score: float | None  # mean metric at `value` on the examples it was chosen on; None without examples
    examples: int
    curve: tuple[tuple[float, float], ...] = ()  # (grid value, mean metric), grid ascending


@dataclass(frozen=True)
class StaticFit:
    graph_weight: float
    k: float
    choice: GridChoice
    quality: RankingQuality  # of the fused rankings at `graph_weight`


@dataclass(frozen=True)
class DynamicFit:
    tables: DynamicFusionTables
    buckets: tuple[GridChoice, ...]  # one per BUCKET_LABELS entry
    risks: dict[Risk, GridChoice]  # empty when the multipliers were held at the prior's
    agreement: dict[bool, GridChoice]  # True: the branches agree; empty when held at the prior's
    score: float  # mean metric over all examples with `tables`
    quality: RankingQuality


def _check_grid(name: str, grid: Sequence[float], upper: float | None) -> tuple[float, ...]:
    if not grid:
        raise FusionError(f"{name} is empty; give at least one value")
    for value in grid:
        if not math.isfinite(value) or value < 0 or (upper is not None and value > upper):
            allowed = f"in [0, {upper:g}]" if upper is not None else ">= 0"
            raise FusionError(f"{name} values must be {allowed} (and finite); got {value!r}")
    return tuple(sorted(set(grid)))


def _choose(grid: tuple[float, ...], objective: Callable[[float], float], examples: int) -> GridChoice:
    """Best grid value by `objective`; ascending scan with a strict improvement keeps the smaller on ties."""
    curve = tuple((value, objective(value)) for value in grid)
    best_value, best_score = curve[0]
    for value, score in curve[1:]:
        if score > best_score + _TIE:
            best_value, best_score = value, score
    return GridChoice(best_value, best_score, examples, curve)


def _mean_metric(
    examples: Sequence[FusionExample], weight_of: Callable[[FusionExample], float], k: float, metric: Metric
) -> float:
    return fmean(metric(static_fusion(ex.graph, ex.text, weight_of(ex), k).ids, set(ex.gold)) for ex in examples)


def _clip(value: float) -> float:
    return min(1.0, max(0.0, value))


def fit_static(
    examples: Sequence[FusionExample],
    grid: Sequence[float] = DEFAULT_GRID,
    k: float = RRF_K,
    metric: Metric = reciprocal_rank,
) -> StaticFit:
    """The global graph weight from `grid` with the best mean `metric` on `examples`."""
    if not examples:
        raise FusionError("fit_static needs at least one validation example; got none")
    check_k(k)
    weights = _check_grid("graph weight grid", grid, 1.0)
    choice = _choose(weights, lambda w: _mean_metric(examples, lambda _ex: w, k, metric), len(examples))
    runs = [(static_fusion(ex.graph, ex.text, choice.value, k).ids, set(ex.gold)) for ex in examples]
    return StaticFit(choice.value, k, choice, ranking_quality(runs))


def _fit_buckets(
    usable: Sequence[FusionExample],
    grid: tuple[float, ...],
    prior: DynamicFusionTables,
    metric: Metric,
    min_examples: int,
) -> tuple[GridChoice, ...]:
    buckets = range(len(prior.w_bucket))
    choices = _fit_levels(
        usable,
        grid,
        buckets,
        lambda ex: bucket_of(ex.n_cand),
        lambda bucket: prior.w_bucket[bucket],
        lambda ex, w: w * prior.m_risk.of(ex.risk) * _agreement(prior, ex),
        prior.k,
        metric,
        min_examples,
    )
    return tuple(choices[bucket] for bucket in buckets)


def _fit_levels(
    usable: Sequence[FusionExample],
    grid: tuple[float, ...],
    levels: Sequence[Level],
    level_of: Callable[[FusionExample], Level],
    prior_of: Callable[[Level], float],
    weight_of: Callable[[FusionExample, float], float],
    k: float,
    metric: Metric,
    min_examples: int,
) -> dict[Level, GridChoice]:
    """Per level (an n_cand bucket, a risk, an agreement), the value m from `grid` best on that level's questions,
    where `weight_of(example, m)` is the graph weight with every other table value held; the prior below
    `min_examples` questions."""
    choices: dict[Level, GridChoice] = {}
    for level in levels:
        at_level: list[FusionExample] = [example for example in usable if level_of(example) == level]
        if len(at_level) < min_examples:
            choices[level] = GridChoice(prior_of(level), None, len(at_level))
            continue

        def objective(m: float, members: list[FusionExample] = at_level) -> float:
            return _mean_metric(members, lambda ex: _clip(weight_of(ex, m)), k, metric)

        choices[level] = _choose(grid, objective, len(at_level))
    return choices


def _agreed(example: FusionExample) -> bool:
    return branches_agree(example.graph, example.text)


def _agreement(tables: DynamicFusionTables, example: FusionExample) -> float:
    return tables.m_agree.of(_agreed(example))


def _fit_risks(
    usable: Sequence[FusionExample],
    grid: tuple[float, ...],
    tables: DynamicFusionTables,
    metric: Metric,
    min_examples: int,
) -> dict[Risk, GridChoice]:
    return _fit_levels(
        usable,
        grid,
        list(Risk),
        lambda ex: ex.risk,
        tables.m_risk.of,
        lambda ex, m: tables.w_bucket[bucket_of(ex.n_cand)] * m * _agreement(tables, ex),
        tables.k,
        metric,
        min_examples,
    )


def _fit_agreement(
    usable: Sequence[FusionExample],
    grid: tuple[float, ...],
    tables: DynamicFusionTables,
    metric: Metric,
    min_examples: int,
) -> dict[bool, GridChoice]:
    return _fit_levels(
        usable,
        grid,
        (True, False),
        _agreed,
        tables.m_agree.of,
        lambda ex, m: tables.w_bucket[bucket_of(ex.n_cand)] * tables.m_risk.of(ex.risk) * m,
        tables.k,
        metric,
        min_examples,
    )


def fit_dynamic(
    examples: Sequence[FusionExample],
    grid: Sequence[float] = DEFAULT_GRID,
    prior: DynamicFusionTables | None = None,
    risk_grid: Sequence[float] | None = None,
    metric: Metric = reciprocal_rank,
    agree_grid: Sequence[float] | None = None,
    min_examples: int = MIN_FIT_EXAMPLES,
) -> DynamicFit:
    """Dynamic fusion tables fitted on `examples` (see the module docstring); k stays the prior's."""
    if not examples:
        raise FusionError("fit_dynamic needs at least one validation example; got none")
    prior = prior or DynamicFusionTables()
    weights = _check_grid("graph weight grid", grid, 1.0)
    for ex in examples:
        bucket_of(ex.n_cand)  # rejects a negative n_cand before any work
    usable = [ex for ex in examples if ex.graph]
    buckets = _fit_buckets(usable, weights, prior, metric, min_examples)
    tables = DynamicFusionTables.model_validate(
        {
            "w_bucket": [choice.value for choice in buckets],
            "m_risk": prior.m_risk,
            "m_agree": prior.m_agree,
            "k": prior.k,
            "fitted_on": len(examples),
        }
    )
    risks: dict[Risk, GridChoice] = {}
    if risk_grid is not None:
        risks = _fit_risks(usable, _check_grid("risk multiplier grid", risk_grid, None), tables, metric, min_examples)
        multipliers = tables.m_risk
        for risk, choice in risks.items():
            multipliers = multipliers.replaced(risk, choice.value)
        tables = DynamicFusionTables.model_validate({**dict(tables), "m_risk": multipliers})
    agreement: dict[bool, GridChoice] = {}
    if agree_grid is not None:
        multipliers_grid = _check_grid("agreement multiplier grid", agree_grid, None)
        agreement = _fit_agreement(usable, multipliers_grid, tables, metric, min_examples)
        by_agreement = tables.m_agree
        for agreed, choice in agreement.items():
            by_agreement = by_agreement.replaced(agreed, choice.value)
        tables = DynamicFusionTables.model_validate({**dict(tables), "m_agree": by_agreement})
    runs = [(dynamic_fusion(ex.graph, ex.text, ex.n_cand, ex.risk, tables).ids, set(ex.gold)) for ex in examples]
    return DynamicFit(
        tables, buckets, risks, agreement, fmean(metric(ids, gold) for ids, gold in runs), ranking_quality(runs)
    )


@dataclass(frozen=True)
class RerankExample:
    """One validation query after reranking: the reranker's order of the fused head, the fused order, gold."""

    reranker: Sequence[Hashable]
    fused: Sequence[Hashable]
    gold: AbstractSet[Hashable]


def fit_rerank_weight(
    examples: Sequence[RerankExample],
    grid: Sequence[float] = DEFAULT_GRID,
    k: float = RRF_K,
    metric: Metric = reciprocal_rank,
) -> GridChoice:
    """The reranker's weight w in the last RRF (reranker order w, fused order 1 - w) with the best mean metric;
    ties keep the smaller w, i.e. trust the fused order."""
    if not examples:
        raise FusionError("fit_rerank_weight needs at least one validation example; got none")
    check_k(k)
    weights = _check_grid("rerank weight grid", grid, 1.0)
    return _choose(
        weights,
        lambda w: fmean(
            metric([item.id for item in rerank_fusion(ex.reranker, ex.fused, w, k)], set(ex.gold)) for ex in examples
        ),
        len(examples),
    )


__all__ = [
    "DEFAULT_GRID",
    "MIN_FIT_EXAMPLES",
    "DynamicFit",
    "FusionExample",
    "GridChoice",
    "Metric",
    "RerankExample",
    "StaticFit",
    "fit_dynamic",
    "fit_rerank_weight",
    "fit_static",
]
