"""One `grasp eval`, end to end: systems run on a query set (or saved runs re-scored), the report built and
written as results.json, report.md and the Hit@1 plots, the runs saved for `grasp eval score`.

`prepare_evaluation` checks what can be checked without a database (the systems, the query file);
`run_evaluation` runs the systems on the loaded SKB and writes everything; `rescore_runs` re-scores saved
runs without a database. The CLI only parses options and prints what these return.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from grasp_agent.api import Grasp
from grasp_agent.config import Settings
from grasp_agent.evaluation.gold_names import gold_names
from grasp_agent.evaluation.plots import hit1_bar_chart
from grasp_agent.evaluation.query_sets import EvalQuery, read_queries, template_exclusions
from grasp_agent.evaluation.report import EvaluationReport, build_report, to_json_dict, to_markdown
from grasp_agent.evaluation.run_files import RUNS_DIR, read_runs, write_runs
from grasp_agent.evaluation.runner import (
    ADAPATH_SYSTEMS,
    EvaluationError,
    SystemRuns,
    check_systems,
    missing_answers,
    run_systems,
)
from grasp_agent.pipeline.options import FusionName, PlannerName, SearchOptions
from grasp_agent.ranking import NodeId

PLOT_GROUPINGS = ("hops", "level", "template")  # one Hit@1 bar chart each, when the queries carry it
NO_LLM_ANSWERER = "best path's end (no LLM)"


@dataclass(frozen=True)
class EvaluationRequest:
    """What `grasp eval` is asked to run: the query file and its slice, the systems, the search options."""

    queries_file: Path
    systems: tuple[str, ...]
    split: str | None = None
    limit: int | None = None  # only the first N queries (after `split`)
    fusion: FusionName | None = None  # None: the configuration's policy
    planner: PlannerName | None = None  # None: GRASP_PLANNER
    leave_template_out: bool = False  # hide each query's own template from the Path-Bank
    allow_missing: bool = False  # run the queries whose answers are in the SKB, drop the others


@dataclass(frozen=True)
class PreparedEvaluation:
    """A request whose systems passed `check_systems` (duplicates dropped) and whose queries were read."""

    request: EvaluationRequest
    systems: list[str]
    queries: list[EvalQuery]


@dataclass(frozen=True)
class WrittenReport:
    document: dict[str, object]  # what results.json holds, as JSON reads it back
    files: tuple[Path, ...]  # results.json, report.md, then the plots that had data


@dataclass(frozen=True)
class EvaluationOutcome:
    """A scored evaluation and where it went."""

    report: EvaluationReport
    queries: int  # queries scored
    wall_s: float  # running the systems; 0 when saved runs were re-scored
    written: WrittenReport
    runs_dir: Path | None  # the saved runs; None when re-scored (they were read, not written)


def prepare_evaluation(request: EvaluationRequest) -> PreparedEvaluation:
    """The systems checked (before the query file is read) and the queries of the split, the first `limit`."""
    systems = check_systems(request.systems)
    queries = read_queries(request.queries_file, request.split)
    return PreparedEvaluation(request, systems, queries[: request.limit] if request.limit else queries)


def answerable(
    queries: Sequence[EvalQuery], node_ids: Iterable[NodeId], skb_name: str, allow_missing: bool = False
) -> list[EvalQuery]:
    """The queries with an answer node in the loaded SKB. Queries without one are an error, unless
    `allow_missing` and at least one query has an answer there: then they are dropped."""
    absent = missing_answers(queries, node_ids)
    if absent and (len(absent) == len(queries) or not allow_missing):
        example = ", ".join(f"{q.id} -> {list(q.answer_ids)[:3]}" for q in absent[:3])
        raise EvaluationError(
            f"{len(absent)} of {len(queries)} queries have no answer node in the loaded SKB '{skb_name}' (e.g. "
            f"{example}): these queries were written for another knowledge base"
            + ("" if len(absent) == len(queries) else "; --allow-missing runs the rest")
        )
    return [query for query in queries if query not in absent]


def run_evaluation(
    prepared: PreparedEvaluation, settings: Settings, out: Path, progress: bool = False
) -> EvaluationOutcome:
    """Every system on the queries against the configured Neo4j; the runs saved in `out/runs/` and the
    report written to `out` (see `write_report`)."""
    request, systems = prepared.request, prepared.systems
    with Grasp.from_config(settings, progress=progress) as grasp:
        queries = prepared.queries
        if grasp.parts.text_branch is not None:
            queries = answerable(
                queries, grasp.parts.text_branch.node_ids, grasp.parts.schema.name, request.allow_missing
            )
        options = SearchOptions(fusion=request.fusion, planner=request.planner)
        start = time.perf_counter()
        exclusions = (
            template_exclusions(read_queries(request.queries_file, None), queries)
            if request.leave_template_out
            else None
        )
        results = run_systems(grasp, queries, systems, options=options, progress=progress, bank_exclusions=exclusions)
        wall = time.perf_counter() - start
        planner_used = grasp.parts.graph_branch(options.planner).planner_name
        configuration = grasp.configuration
        names = (
            gold_names(
                grasp.parts.driver, settings.neo4j_database, grasp.parts.graph_branch(None).context.labels, queries
            )
            if any(name in ADAPATH_SYSTEMS for name in systems)
            else None
        )
        answerer = grasp.path_parts.llm.model_id if grasp.path_parts.llm is not None else NO_LLM_ANSWERER
    report = build_report(results, queries, names)
    meta: dict[str, object] = {
        "queries_file": str(request.queries_file),
        "split": request.split,
        "queries": len(queries),
        "systems": systems,
        "wall_s": round(wall, 1),
        "planner": planner_used,
        "fusion": request.fusion or configuration.fusion_policy.value,
        "reranker": settings.reranker,
        "embedder": settings.embedder,
        "configuration": configuration.as_dict(),
        "path_answerer": answerer,
        "leave_template_out": request.leave_template_out,
    }
    runs_dir = write_runs(results, out, names)
    header = (
        f"{len(queries)} queries from `{request.queries_file}` (split {request.split or 'all'}), planner "
        f"{planner_used}, {wall:.0f} s wall"
    )
    return EvaluationOutcome(report, len(queries), wall, write_report(report, out, meta, header), runs_dir)


def report_folder(runs: Path, out: Path | None = None) -> Path:
    """Where a re-scored report goes: `out`, else the folder `grasp eval --out` wrote (`runs` or its parent
    when `runs` is its runs/ folder)."""
    return out or (runs.parent if runs.name == RUNS_DIR else runs)


def rescore_runs(
    runs: Path, queries_file: Path, split: str | None = None, out: Path | None = None
) -> EvaluationOutcome:
    """The report of saved runs on the queries of `queries_file` (its `split`) that they ran, written to
    `report_folder(runs, out)`. A query file that is a subset of what ran (say the first 100) re-scores those
    queries only; one that shares no query with the runs is an error."""
    results, names = read_runs(runs)
    query_set = read_queries(queries_file, split)
    ran = {run.query_id for system in results.values() for run in system.runs}
    scored = [query for query in query_set if query.id in ran]
    if not scored:
        raise EvaluationError(
            f"none of the {len(query_set)} queries of {queries_file} (split {split or 'all'}) was "
            f"run in {runs}: re-score with the query file and split the runs came from"
        )
    report = build_report(_only(results, {query.id for query in scored}), scored, names)
    meta: dict[str, object] = {
        "queries_file": str(queries_file),
        "split": split,
        "queries": len(scored),
        "systems": list(results),
        "rescored_from": str(runs),
    }
    header = (
        f"{len(scored)} queries from `{queries_file}` (split {split or 'all'}), re-scored from saved runs in `{runs}`"
    )
    return EvaluationOutcome(
        report, len(scored), 0.0, write_report(report, report_folder(runs, out), meta, header), None
    )


def _only(results: dict[str, SystemRuns], wanted: set[str]) -> dict[str, SystemRuns]:
    return {
        name: replace(system, runs=[run for run in system.runs if run.query_id in wanted])
        for name, system in results.items()
    }


def write_report(report: EvaluationReport, out: Path, meta: dict[str, object], header: str) -> WrittenReport:
    """results.json (`meta` and the report), report.md (`header`, then the tables) and the Hit@1 plots by
    hops, level and template (those the queries carry) in `out`."""
    out.mkdir(parents=True, exist_ok=True)
    document = {"meta": meta, **to_json_dict(report)}
    (out / "results.json").write_text(json.dumps(document, indent=1))
    (out / "report.md").write_text(header + "\n\n" + to_markdown(report))
    plots = [hit1_bar_chart(report, grouping, out / f"hit1_by_{grouping}.png") for grouping in PLOT_GROUPINGS]
    return WrittenReport(
        json.loads(json.dumps(document)),
        (out / "results.json", out / "report.md", *(plot for plot in plots if plot is not None)),
    )
