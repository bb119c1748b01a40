"""An evaluation's numbers: per-system quality and latency, breakdowns by template/hops/level, significance.

Pure functions over `SystemRuns` and the queries; `to_markdown` and `to_json_dict` render the same report.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field
from statistics import fmean

import numpy as np

from grasp_agent.evaluation.query_sets import EvalQuery
from grasp_agent.evaluation.runner import SystemRuns
from grasp_agent.evaluation.significance import mcnemar, paired_bootstrap
from grasp_agent.ranking import cell_averaged, exact_match, hit_at, recall_at, reciprocal_rank

GROUPINGS = ("template", "hops", "level")


@dataclass(frozen=True)
class SystemScores:
    system: str
    queries: int
    hit_at_1: float
    hit_at_5: float
    recall_at_20: float
    recall_at_50: float
    mrr: float
    latency_mean_ms: float
    latency_p50_ms: float
    latency_p95_ms: float
    failures: int


@dataclass(frozen=True)
class Comparison:
    """System `a` against system `b` on the same queries: McNemar on Hit@1, paired bootstrap on MRR."""

    a: str
    b: str
    hit1_a: float
    hit1_b: float
    mcnemar_p: float
    mrr_delta: float
    mrr_ci: tuple[float, float]
    bootstrap_p: float


@dataclass(frozen=True)
class AnswerScores:
    """Exact match of a system's worded answers (AdaPath) against the gold answers' names."""

    system: str
    questions: int
    em_overall: float  # the mean of the (level, hops) cells, as the AdaPath paper averages
    em_micro: float  # over all questions
    cells: dict[str, float]  # "level/hops" -> EM of that cell


@dataclass(frozen=True)
class EvaluationReport:
    scores: list[SystemScores]
    breakdowns: dict[str, dict[str, dict[str, dict[str, float]]]]  # grouping -> group -> system -> metric
    comparisons: list[Comparison]
    answers: list[AnswerScores] = field(default_factory=list)
    stage_p50_ms: dict[str, dict[str, float]] = field(default_factory=dict)  # system -> stage -> median ms


def per_query(runs: SystemRuns, gold: Mapping[str, set[str]]) -> dict[str, list[float]]:
    """Hit@1, Hit@5, R@20, R@50 and RR of each query, in run order."""
    metrics: dict[str, list[float]] = {"Hit@1": [], "Hit@5": [], "R@20": [], "R@50": [], "MRR": []}
    for run in runs.runs:
        answers: set[object] = set(gold[run.query_id])
        ranked = [str(node_id) for node_id in run.ranked]
        metrics["Hit@1"].append(hit_at(ranked, answers, 1))
        metrics["Hit@5"].append(hit_at(ranked, answers, 5))
        metrics["R@20"].append(recall_at(ranked, answers, 20))
        metrics["R@50"].append(recall_at(ranked, answers, 50))
        metrics["MRR"].append(reciprocal_rank(ranked, answers))
    return metrics


def system_scores(runs: SystemRuns, gold: Mapping[str, set[str]]) -> SystemScores:
    metrics = per_query(runs, gold)
    latencies = np.asarray([run.latency_ms for run in runs.runs], dtype=np.float64)
    means = {name: fmean(values) for name, values in metrics.items()}
    return SystemScores(
        system=runs.system,
        queries=len(runs.runs),
        hit_at_1=means["Hit@1"],
        hit_at_5=means["Hit@5"],
        recall_at_20=means["R@20"],
        recall_at_50=means["R@50"],
        mrr=means["MRR"],
        latency_mean_ms=float(latencies.mean()),
        latency_p50_ms=float(np.percentile(latencies, 50)),
        latency_p95_ms=float(np.percentile(latencies, 95)),
        failures=runs.failures,
    )


def breakdown(
    results: Mapping[str, SystemRuns], queries: Sequence[EvalQuery], grouping: str
) -> dict[str, dict[str, dict[str, float]]]:
    """group value -> system -> {queries, Hit@1, MRR}, for queries that carry the grouping's metadata."""
    gold = {query.id: set(query.answer_ids) for query in queries}
    group_of = {query.id: getattr(query, grouping) for query in queries}
    table: dict[str, dict[str, dict[str, float]]] = {}
    for system, runs in results.items():
        metrics = per_query(runs, gold)
        for index, run in enumerate(runs.runs):
            group = group_of[run.query_id]
            if group is None:
                continue
            cell = table.setdefault(str(group), {}).setdefault(system, {"queries": 0, "Hit@1": 0.0, "MRR": 0.0})
            cell["queries"] += 1
            cell["Hit@1"] += metrics["Hit@1"][index]
            cell["MRR"] += metrics["MRR"][index]
    for systems in table.values():
        for cell in systems.values():
            cell["Hit@1"] /= cell["queries"]
            cell["MRR"] /= cell["queries"]
    return dict(sorted(table.items()))


def compare(
    results: Mapping[str, SystemRuns], queries: Sequence[EvalQuery], a: str, b: str, seed: int = 0
) -> Comparison:
    gold = {query.id: set(query.answer_ids) for query in queries}
    first, second = per_query(results[a], gold), per_query(results[b], gold)
    test = mcnemar([x > 0 for x in first["Hit@1"]], [x > 0 for x in second["Hit@1"]])
    boot = paired_bootstrap(first["MRR"], second["MRR"], seed=seed)
    return Comparison(
        a,
        b,
        fmean(first["Hit@1"]),
        fmean(second["Hit@1"]),
        test.p_value,
        boot.delta,
        (boot.ci_low, boot.ci_high),
        boot.p_value,
    )


def answer_scores(runs: SystemRuns, queries: Sequence[EvalQuery], gold_names: Mapping[str, set[str]]) -> AnswerScores:
    """EM per (level, hops) cell and overall; a query without a recorded answer scores 0."""
    by_id = {query.id: query for query in queries}
    scored = []
    for run in runs.runs:
        query = by_id[run.query_id]
        cell = (str(query.level or "-"), str(query.hops or "-"))
        scored.append((cell, exact_match(run.answer or "", gold_names.get(run.query_id, set()))))
    cells, overall = cell_averaged(scored)
    micro = fmean(score for _, score in scored) if scored else 0.0
    return AnswerScores(runs.system, len(scored), overall, micro, {"/".join(cell): em for cell, em in cells.items()})


def stage_medians(results: Mapping[str, SystemRuns]) -> dict[str, dict[str, float]]:
    """Median milliseconds of each stage, for the systems whose runs report stages."""
    medians: dict[str, dict[str, float]] = {}
    for system, runs in results.items():
        stages = dict.fromkeys(stage for run in runs.runs for stage in run.stages_ms)
        if stages:
            medians[system] = {
                stage: float(np.median([run.stages_ms[stage] for run in runs.runs if stage in run.stages_ms]))
                for stage in stages
            }
    return medians


def build_report(
    results: Mapping[str, SystemRuns], queries: Sequence[EvalQuery], gold_names: Mapping[str, set[str]] | None = None
) -> EvaluationReport:
    """Scores of every system; GRASP systems compared with the best single branch and the hybrid baseline.
    With `gold_names` (query id -> the gold answers' names), systems that answer in words also get EM."""
    gold = {query.id: set(query.answer_ids) for query in queries}
    scores = [system_scores(runs, gold) for runs in results.values()]
    breakdowns = {grouping: breakdown(results, queries, grouping) for grouping in GROUPINGS}
    by_name = {score.system: score for score in scores}
    singles = [name for name in ("text", "graph") if name in by_name]
    rivals = ([max(singles, key=lambda name: by_name[name].mrr)] if singles else []) + (
        ["hybrid"] if "hybrid" in by_name else []
    )
    comparisons = [
        compare(results, queries, system, rival)
        for system in ("grasp", "grasp+rerank")
        if system in by_name
        for rival in dict.fromkeys(rivals)
    ]
    answers = [
        answer_scores(runs, queries, gold_names)
        for runs in results.values()
        if gold_names is not None and any(run.answer is not None for run in runs.runs)
    ]
    return EvaluationReport(scores, breakdowns, comparisons, answers, stage_medians(results))


def to_json_dict(report: EvaluationReport) -> dict[str, object]:
    return {
        "scores": [asdict(score) for score in report.scores],
        "breakdowns": report.breakdowns,
        "comparisons": [asdict(comparison) for comparison in report.comparisons],
        "answers": [asdict(answer) for answer in report.answers],
        "stage_p50_ms": report.stage_p50_ms,
    }


def to_markdown(report: EvaluationReport) -> str:
    lines = [
        "| system | queries | Hit@1 | Hit@5 | R@20 | R@50 | MRR | mean ms | p50 ms | p95 ms | failures |",
        "|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    lines += [
        f"| {s.system} | {s.queries} | {s.hit_at_1:.3f} | {s.hit_at_5:.3f} | {s.recall_at_20:.3f} | "
        f"{s.recall_at_50:.3f} | {s.mrr:.3f} | {s.latency_mean_ms:.0f} | {s.latency_p50_ms:.0f} | "
        f"{s.latency_p95_ms:.0f} | {s.failures} |"
        for s in report.scores
    ]
    if report.comparisons:
        lines += [
            "",
            "| A vs B | Hit@1 A / B | McNemar p | MRR delta (95% CI) | bootstrap p |",
            "|---|---|---|---|---|",
        ]
        lines += [
            f"| {c.a} vs {c.b} | {c.hit1_a:.3f} / {c.hit1_b:.3f} | {c.mcnemar_p:.4f} | "
            f"{c.mrr_delta:+.3f} ({c.mrr_ci[0]:+.3f}, {c.mrr_ci[1]:+.3f}) | {c.bootstrap_p:.4f} |"
            for c in report.comparisons
        ]
    if report.answers:
        em_cells = sorted({cell for answer in report.answers for cell in answer.cells})
        lines += [
            "",
            "Answer exact match (EM; Overall = mean of the level/hops cells)",
            "",
            "| system | n | Overall | micro | " + " | ".join(em_cells) + " |",
            "|---|---|---|---|" + "---|" * len(em_cells),
        ]
        lines += [
            f"| {a.system} | {a.questions} | {a.em_overall:.3f} | {a.em_micro:.3f} | "
            + " | ".join(f"{a.cells[cell]:.3f}" if cell in a.cells else "-" for cell in em_cells)
            + " |"
            for a in report.answers
        ]
    for system, stages in report.stage_p50_ms.items():
        lines += ["", f"{system}: stage p50 ms: " + ", ".join(f"{stage} {ms:.0f}" for stage, ms in stages.items())]
    systems = [score.system for score in report.scores]
    for grouping, table in report.breakdowns.items():
        if not table:
            continue
        lines += [
            "",
            f"Hit@1 by {grouping} (queries)",
            "",
            "| " + grouping + " | n | " + " | ".join(systems) + " |",
            "|---|---|" + "---|" * len(systems),
        ]
        for group, cells in table.items():
            count = int(next(iter(cells.values()))["queries"])
            lines.append(
                f"| {group} | {count} | "
                + " | ".join(f"{cells[system]['Hit@1']:.3f}" if system in cells else "-" for system in systems)
                + " |"
            )
    return "\n".join(lines) + "\n"
