"""`grasp search "question"`: the full pipeline (graph + text branches, fusion, reranking) on one question."""

from __future__ import annotations

import typer
from rich.table import Table

from grasp_agent.cli._common import (
    PLANNER_HELP,
    FusionChoice,
    PlannerChoice,
    console,
    echo_json,
    friendly_errors,
    load_settings,
    planner_name,
)
from grasp_agent.pipeline.options import SearchOptions
from grasp_agent.pipeline.results import SearchResult


@friendly_errors
def search(
    question: str = typer.Argument(..., help="The question, in quotes."),
    k: int = typer.Option(10, "--k", "-k", min=1, max=1000, help="How many results."),
    rerank: bool = typer.Option(
        None,
        "--rerank/--no-rerank",
        help="Rerank the fused head, or not; default: only when the reranker helped on the "
        "valid split (the configuration printed below says which and why).",
    ),
    rerank_k: int = typer.Option(None, "--rerank-k", min=1, max=1000, help="Fused candidates the reranker reads."),
    fusion: FusionChoice = typer.Option(None, "--fusion", help="Static or dynamic RRF (default: GRASP_FUSION)."),
    planner: PlannerChoice = typer.Option(None, "--planner", help=PLANNER_HELP),
    heuristic: bool = typer.Option(False, "--heuristic", hidden=True),
    as_json: bool = typer.Option(False, "--json", help="Print the whole result as one JSON object (for scripts)."),
) -> None:
    """Ranked nodes with the branch each came from, per-stage times and any branch failure."""
    from grasp_agent.api import Grasp  # imports LangGraph; kept off the other commands' start-up

    options = SearchOptions(
        k=k,
        rerank=rerank,
        rerank_k=rerank_k,
        fusion=fusion.value if fusion else None,
        planner=planner_name(planner, heuristic),
    )
    with Grasp.from_config(load_settings(), progress=not as_json) as grasp:
        if as_json:
            *_, result = grasp.stream(question, options)
        else:
            with console.status("searching") as status:
                for event in grasp.stream(question, options):
                    if isinstance(event, SearchResult):
                        result = event
                    else:
                        status.update(f"searching: {event.stage} done ({event.ms:.0f} ms)")
    assert isinstance(result, SearchResult)
    if as_json:
        echo_json(result.model_dump_json(indent=1))
    else:
        show(result)


def show(result: SearchResult) -> None:
    for branch, reason in result.failures.items():
        console.print(f"[yellow]{branch} branch gave nothing:[/] {reason}", highlight=False)
    for note in result.notes:
        console.print(f"[dim]note: {note}[/]", highlight=False)
    table = Table("rank", "id", "type", "name", "score", "graph", "text", "fused", "rerank", title=f"{result.question}")
    for hit in result.hits:
        table.add_row(
            str(hit.rank),
            str(hit.node_id),
            hit.label or "?",
            hit.name,
            f"{hit.score:.4f}",
            *(
                str(rank) if rank is not None else "-"
                for rank in (hit.graph_rank, hit.text_rank, hit.fused_rank, hit.rerank_rank)
            ),
        )
    console.print(table)
    if result.plan is not None:
        console.print(
            f"plan ({result.planner}): target {result.plan['target']['type']}, "
            f"{len(result.plan['anchors'])} anchor(s), {len(result.plan['hops'])} hop(s)",
            highlight=False,
        )
    fusion = result.fusion
    if fusion:
        console.print(
            f"fusion: {fusion.get('policy')} RRF, graph weight {fusion['graph_weight']:g}, k {fusion['k']:g}"
            + (f"; reranked by {result.reranker}" if result.reranker else "; not reranked"),
            highlight=False,
        )
    console.print(
        "stages (ms): " + ", ".join(f"{name} {ms:.0f}" for name, ms in result.stages_ms.items()), highlight=False
    )
    if result.parallel is not None:
        p = result.parallel
        console.print(
            f"branches: graph {p.graph_ms:.0f} ms and text {p.text_ms:.0f} ms ran in {p.wall_ms:.0f} ms "
            f"(overlap {p.overlap_ms:.0f} ms)",
            highlight=False,
        )
    if result.configuration:
        console.print("configuration in force (value: where it came from):", highlight=False)
        for name, item in result.configuration.items():
            value = "off" if item["value"] is None else item["value"]  # no reranker, no graph lead
            console.print(f"  {name.replace('_', ' ')}: {value}  [dim]({item['source']})[/]", highlight=False)
