"""`grasp eval`: systems side by side on one query set; a table on screen, JSON + Markdown + plots + the runs on
disk. `grasp eval score`: the same report from saved runs, without running any system."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

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

if TYPE_CHECKING:
    from grasp_agent.evaluation.report import EvaluationReport
    from grasp_agent.evaluation.session import EvaluationOutcome

QUERIES_HELP = "JSONL ({id, query, answer_ids}) or STaRK's QA CSV."
JSON_HELP = (
    "Print the report (results.json's content) as one JSON object on stdout; the files are written all the "
    "same, progress and messages go to stderr."
)
app = typer.Typer(
    help="Evaluate systems side by side (`grasp eval --queries F`), or re-score saved runs "
    "(`grasp eval score --runs DIR --queries F`)."
)


@app.callback(invoke_without_command=True)
@friendly_errors
def evaluate(
    ctx: typer.Context,
    queries: Path = typer.Option(None, "--queries", help=QUERIES_HELP + " Required."),
    split: str = typer.Option(None, "--split", help="Only this split (test, valid/val, train)."),
    systems: str = typer.Option(
        "bm25,vss,hybrid,text,graph,grasp,grasp+rerank",
        "--systems",
        help="Comma-separated: bm25, vss, hybrid, text, graph, grasp, grasp+rerank, "
        "adapath, adapath-unguided, adapath-nobank (adapath needs a Path-Bank).",
    ),
    limit: int = typer.Option(None, "--limit", min=1, help="Only the first N queries (after --split)."),
    out: Path = typer.Option(Path("eval-results"), "--out", help="Folder for results.json, report.md and plots."),
    fusion: FusionChoice = typer.Option(
        None, "--fusion", help="Static or dynamic RRF for grasp (default: GRASP_FUSION)."
    ),
    planner: PlannerChoice = typer.Option(None, "--planner", help=PLANNER_HELP),
    heuristic: bool = typer.Option(False, "--heuristic", hidden=True),
    leave_template_out: bool = typer.Option(
        False,
        "--leave-template-out",
        help="Hide each query's own template from the Path-Bank (its training queries "
        "neither vote nor count among the nearest), for AdaPath and the pathbank planner alike, as if the bank had "
        "never seen that kind of question.",
    ),
    allow_missing: bool = typer.Option(
        False, "--allow-missing", help="Run even when some queries have no answer node in the loaded SKB."
    ),
    as_json: bool = typer.Option(False, "--json", help=JSON_HELP),
) -> None:
    """Hit@1, Hit@5, R@20, R@50, MRR and latency per system, with breakdowns and paired significance; the runs
    are saved in OUT/runs/ (TREC run files and JSONL) for `grasp eval score`."""
    if ctx.invoked_subcommand is not None:
        return
    if queries is None:
        raise typer.BadParameter("--queries is required: the query file to evaluate on")
    from grasp_agent.evaluation.session import EvaluationRequest, prepare_evaluation, run_evaluation

    prepared = prepare_evaluation(
        EvaluationRequest(
            queries,
            tuple(name.strip() for name in systems.split(",") if name.strip()),
            split,
            limit,
            fusion.value if fusion else None,
            planner_name(planner, heuristic),
            leave_template_out,
            allow_missing,
        )
    )
    outcome = run_evaluation(prepared, load_settings(), out, progress=True)
    show_outcome(outcome, as_json)
    (errors if as_json else console).print(f"runs: {outcome.runs_dir}", highlight=False)


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
    from grasp_agent.evaluation.session import rescore_runs

    show_outcome(rescore_runs(runs, queries, split, out), as_json)


def show_outcome(outcome: EvaluationOutcome, as_json: bool) -> None:
    """Where the report went (on stderr with --json), then the report: as JSON on stdout, or as a table."""
    (errors if as_json else console).print(
        "written: " + ", ".join(str(path) for path in outcome.written.files), highlight=False
    )
    if as_json:
        print_json(outcome.written.document)
    else:
        show(outcome.report, outcome.wall_s, outcome.queries)


def show(report: EvaluationReport, wall: float, queries: int) -> None:
    table = Table(
        "system", "H@1", "H@5", "R@20", "MRR", "mean ms", "p50", "p95", "fail", title=f"{queries} queries, {wall:.0f} s"
    )
    for s in report.scores:
        table.add_row(
            s.system,
            f"{s.hit_at_1:.3f}",
            f"{s.hit_at_5:.3f}",
            f"{s.recall_at_20:.3f}",
            f"{s.mrr:.3f}",
            f"{s.latency_mean_ms:.0f}",
            f"{s.latency_p50_ms:.0f}",
            f"{s.latency_p95_ms:.0f}",
            str(s.failures),
        )
    console.print(table)
    for c in report.comparisons:
        console.print(
            f"{c.a} vs {c.b}: Hit@1 {c.hit1_a:.3f} vs {c.hit1_b:.3f} (McNemar p {c.mcnemar_p:.4f}); "
            f"MRR {c.mrr_delta:+.3f} [{c.mrr_ci[0]:+.3f}, {c.mrr_ci[1]:+.3f}] (bootstrap p {c.bootstrap_p:.4f})",
            highlight=False,
        )


@app.command()
@friendly_errors
def perturbation(
    runs: Path = typer.Option(..., "--runs", help="A folder `grasp eval --out` wrote for perturbation groups."),
    queries: Path = typer.Option(
        ..., "--queries", help="The groups' query file (docs/eval/novel-wording/perturbation-groups.jsonl)."
    ),
    as_json: bool = typer.Option(False, "--json", help="Print the summary as one JSON object on stdout."),
) -> None:
    """Per system, the share of question groups (one requirement worded several ways) whose members all rank
    the same node first, and the share where that node is also an answer. No database is needed."""
    from grasp_agent.evaluation.perturbation import perturbation_summary
    from grasp_agent.evaluation.query_sets import read_queries
    from grasp_agent.evaluation.run_files import read_runs

    questions = read_queries(queries)
    systems, _ = read_runs(runs)
    summaries = [
        perturbation_summary(name, questions, {run.query_id: run.ranked for run in found.runs})
        for name, found in systems.items()
    ]
    if as_json:
        print_json(
            {
                s.system: {"groups": s.groups, "stable": s.stable_share, "stable_and_right": s.right_share}
                for s in summaries
            }
        )
        return
    table = Table("system", "groups", "one top answer", "... and it is right", title="perturbation check")
    for s in summaries:
        table.add_row(
            s.system, str(s.groups), f"{s.stable} ({s.stable_share:.2f})", f"{s.stable_and_right} ({s.right_share:.2f})"
        )
    console.print(table)
