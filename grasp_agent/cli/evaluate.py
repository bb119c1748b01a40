"""`grasp eval`: systems side by side on one query set; a table on screen, JSON + Markdown + plots + the runs on
disk. `grasp eval score`: the same report from saved runs, without running any system."""

from __future__ import annotations

import json
import time
from pathlib import Path

import typer
from rich.table import Table

from grasp_agent.cli._common import (
    PLANNER_HELP,
    FusionChoice,
    PlannerChoice,
    console,
    errors,
    friendly_errors,
    load_settings,
    planner_name,
    print_json,
)
from grasp_agent.errors import GraspError

QUERIES_HELP = "JSONL ({id, query, answer_ids}) or STaRK's QA CSV."
JSON_HELP = ("Print the report (results.json's content) as one JSON object on stdout; the files are written all the "
             "same, progress and messages go to stderr.")
app = typer.Typer(help="Evaluate systems side by side (`grasp eval --queries F`), or re-score saved runs "
                  "(`grasp eval score --runs DIR --queries F`).")


@app.callback(invoke_without_command=True)
@friendly_errors
def evaluate(
    ctx: typer.Context,
    queries: Path = typer.Option(None, "--queries", help=QUERIES_HELP + " Required."),
    split: str = typer.Option(None, "--split", help="Only this split (test, valid/val, train)."),
    systems: str = typer.Option("bm25,vss,hybrid,text,graph,grasp,grasp+rerank", "--systems",
                                help="Comma-separated: bm25, vss, hybrid, text, graph, grasp, grasp+rerank, "
                                "adapath, adapath-unguided, adapath-nobank (adapath needs a Path-Bank)."),
    limit: int = typer.Option(None, "--limit", min=1, help="Only the first N queries (after --split)."),
    out: Path = typer.Option(Path("eval-results"), "--out", help="Folder for results.json, report.md and plots."),
    fusion: FusionChoice = typer.Option(None, "--fusion", help="Static or dynamic RRF for grasp (default: "
                                        "GRASP_FUSION)."),
    planner: PlannerChoice = typer.Option(None, "--planner", help=PLANNER_HELP),
    heuristic: bool = typer.Option(False, "--heuristic", hidden=True),
    leave_template_out: bool = typer.Option(
        False, "--leave-template-out", help="Hide each query's own template from the Path-Bank (its training queries "
        "neither vote nor count among the nearest), for AdaPath and the pathbank planner alike, as if the bank had "
        "never seen that kind of question."),
    allow_missing: bool = typer.Option(False, "--allow-missing",
                                       help="Run even when some queries have no answer node in the loaded SKB."),
    as_json: bool = typer.Option(False, "--json", help=JSON_HELP),
) -> None:
    """Hit@1, Hit@5, R@20, R@50, MRR and latency per system, with breakdowns and paired significance; the runs
    are saved in OUT/runs/ (TREC run files and JSONL) for `grasp eval score`."""
    if ctx.invoked_subcommand is not None:
        return
    if queries is None:
        raise typer.BadParameter("--queries is required: the query file to evaluate on")
    from grasp_agent.api import Grasp
    from grasp_agent.evaluation.gold_names import gold_names
    from grasp_agent.evaluation.query_sets import read_queries, template_exclusions
    from grasp_agent.evaluation.report import build_report
    from grasp_agent.evaluation.run_files import write_runs
    from grasp_agent.evaluation.runner import ADAPATH_SYSTEMS, check_systems, missing_answers, run_systems
    from grasp_agent.pipeline.options import SearchOptions

    chosen = check_systems([name.strip() for name in systems.split(",") if name.strip()])
    query_set = read_queries(queries, split)[:limit] if limit else read_queries(queries, split)
    settings = load_settings()
    with Grasp.from_config(settings, progress=True) as grasp:
        text_branch = grasp.parts.text_branch
        if text_branch is not None:
            absent = missing_answers(query_set, text_branch.node_ids)
            if absent and (len(absent) == len(query_set) or not allow_missing):
                example = ", ".join(f"{q.id} -> {list(q.answer_ids)[:3]}" for q in absent[:3])
                raise GraspError(
                    f"{len(absent)} of {len(query_set)} queries have no answer node in the loaded SKB "
                    f"'{grasp.parts.schema.name}' (e.g. {example}): these queries were written for another "
                    "knowledge base" + ("" if len(absent) == len(query_set) else "; --allow-missing runs the rest"))
            query_set = [query for query in query_set if query not in absent]
        options = SearchOptions(fusion=fusion.value if fusion else None, planner=planner_name(planner, heuristic))
        start = time.perf_counter()
        exclusions = template_exclusions(read_queries(queries, None), query_set) if leave_template_out else None
        results = run_systems(grasp, query_set, chosen, options=options, progress=True, bank_exclusions=exclusions)
        wall = time.perf_counter() - start
        planner_used = grasp.parts.graph_branch(options.planner).planner_name
        configuration = grasp.configuration
        names = gold_names(grasp.parts.driver, settings.neo4j_database, grasp.parts.graph_branch(None).context.labels,
                           query_set) if any(name in ADAPATH_SYSTEMS for name in chosen) else None
        answerer = grasp.path_parts.llm.model_id if grasp.path_parts.llm is not None else "best path's end (no LLM)"
    report = build_report(results, query_set, names)
    meta = {"queries_file": str(queries), "split": split, "queries": len(query_set), "systems": chosen,
            "wall_s": round(wall, 1), "planner": planner_used,
            "fusion": fusion.value if fusion else configuration.fusion_policy.value,
            "reranker": settings.reranker, "embedder": settings.embedder, "configuration": configuration.as_dict(),
            "path_answerer": answerer, "leave_template_out": leave_template_out}
    runs_dir = write_runs(results, out, names)
    document = write_report(report, out, meta, f"{len(query_set)} queries from `{queries}` (split "
                            f"{split or 'all'}), planner {planner_used}, {wall:.0f} s wall", as_json)
    if as_json:
        print_json(document)
    else:
        show(report, wall, len(query_set))
    (errors if as_json else console).print(f"runs: {runs_dir}", highlight=False)


@app.command()
@friendly_errors
def score(
    runs: Path = typer.Option(..., "--runs", help="A folder `grasp eval --out` wrote (or its runs/ folder)."),
    queries: Path = typer.Option(..., "--queries", help=QUERIES_HELP),
    split: str = typer.Option(None, "--split", help="Only this split (test, valid/val, train)."),
    out: Path = typer.Option(None, "--out", help="Folder for results.json, report.md and plots (default: --runs)."),
    as_json: bool = typer.Option(False, "--json", help=JSON_HELP),
) -> None:
    """The report of saved runs, re-scored: no system runs, no database is needed."""
    from dataclasses import replace

    from grasp_agent.evaluation.query_sets import read_queries
    from grasp_agent.evaluation.report import build_report
    from grasp_agent.evaluation.run_files import read_runs

    results, names = read_runs(runs)
    query_set = read_queries(queries, split)
    ran = {run.query_id for system in results.values() for run in system.runs}
    scored = [query for query in query_set if query.id in ran]
    if not scored:
        raise GraspError(f"none of the {len(query_set)} queries of {queries} (split {split or 'all'}) was run in "
                         f"{runs}: re-score with the query file and split the runs came from")
    # A query file that is a subset of what ran (say the first 100) re-scores those queries only.
    wanted = {query.id for query in scored}
    results = {name: replace(system, runs=[run for run in system.runs if run.query_id in wanted])
               for name, system in results.items()}
    report = build_report(results, scored, names)
    folder = out or (runs.parent if runs.name == "runs" else runs)
    meta = {"queries_file": str(queries), "split": split, "queries": len(scored), "systems": list(results),
            "rescored_from": str(runs)}
    document = write_report(report, folder, meta, f"{len(scored)} queries from `{queries}` (split "
                            f"{split or 'all'}), re-scored from saved runs in `{runs}`", as_json)
    if as_json:
        print_json(document)
    else:
        show(report, 0.0, len(scored))


def write_report(report: object, out: Path, meta: dict[str, object], header: str,
                 quiet: bool = False) -> dict[str, object]:
    """results.json, report.md and the Hit@1 plots in `out`; returns what results.json holds. `quiet` says
    where they went on stderr (stdout is for --json)."""
    from grasp_agent.evaluation.plots import hit1_bar_chart
    from grasp_agent.evaluation.report import EvaluationReport, to_json_dict, to_markdown

    assert isinstance(report, EvaluationReport)
    out.mkdir(parents=True, exist_ok=True)
    document = {"meta": meta, **to_json_dict(report)}
    (out / "results.json").write_text(json.dumps(document, indent=1))
    (out / "report.md").write_text(header + "\n\n" + to_markdown(report))
    plots = [hit1_bar_chart(report, grouping, out / f"hit1_by_{grouping}.png")
             for grouping in ("hops", "level", "template")]
    (errors if quiet else console).print(f"written: {out / 'results.json'}, {out / 'report.md'}"
                                         + "".join(f", {plot}" for plot in plots if plot is not None), highlight=False)
    return json.loads(json.dumps(document))


def show(report: object, wall: float, queries: int) -> None:
    from grasp_agent.evaluation.report import EvaluationReport

    assert isinstance(report, EvaluationReport)
    table = Table("system", "H@1", "H@5", "R@20", "MRR", "mean ms", "p50", "p95", "fail",
                  title=f"{queries} queries, {wall:.0f} s")
    for s in report.scores:
        table.add_row(s.system, f"{s.hit_at_1:.3f}", f"{s.hit_at_5:.3f}", f"{s.recall_at_20:.3f}", f"{s.mrr:.3f}",
                      f"{s.latency_mean_ms:.0f}", f"{s.latency_p50_ms:.0f}", f"{s.latency_p95_ms:.0f}", str(s.failures))
    console.print(table)
    for c in report.comparisons:
        console.print(f"{c.a} vs {c.b}: Hit@1 {c.hit1_a:.3f} vs {c.hit1_b:.3f} (McNemar p {c.mcnemar_p:.4f}); "
                      f"MRR {c.mrr_delta:+.3f} [{c.mrr_ci[0]:+.3f}, {c.mrr_ci[1]:+.3f}] (bootstrap p {c.bootstrap_p:.4f})",
                      highlight=False)
