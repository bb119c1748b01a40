"""`grasp plan "question"`: the graph branch on one question, every intermediate result shown."""

from __future__ import annotations

import json

import typer
from rich.syntax import Syntax
from rich.table import Table

from grasp_agent.cli._common import PLANNER_HELP, PlannerChoice, console, friendly_errors, load_settings, planner_name
from grasp_agent.db.connection import open_driver
from grasp_agent.embed.factory import make_embedder
from grasp_agent.errors import GraspError
from grasp_agent.graph_branch.branch import GraphBranch, GraphBranchResult
from grasp_agent.graph_branch.ranking import format_path, witness_paths
from grasp_agent.llm.factory import make_llm
from grasp_agent.question_text import checked_question


@friendly_errors
def plan(
    question: str = typer.Argument(..., help="The question, in quotes."),
    top: int = typer.Option(10, "--top", min=1, max=100, help="How many ranked targets to print."),
    planner: PlannerChoice = typer.Option(None, "--planner", help=PLANNER_HELP),
    heuristic: bool = typer.Option(False, "--heuristic", hidden=True),
) -> None:
    """Entity table, plan JSON, compiled Cypher and the top targets with scores and witness paths."""
    settings = load_settings()
    question = checked_question(question, settings.max_question_chars)
    chosen = planner_name(planner, heuristic) or settings.planner
    if chosen == "llm" and settings.llm == "none":
        raise GraspError("--planner llm needs an LLM backend (GRASP_LLM)")
    llm = make_llm(settings) if chosen in ("llm", "auto") else None
    try:
        with open_driver(settings) as driver:
            embedder = make_embedder(settings)
            branch = GraphBranch.build(driver, settings, embedder, llm)
            if chosen == "pathbank":
                from grasp_agent.adapath.bank_planner import PathBankPlanner

                branch = branch.with_planner(PathBankPlanner(driver, settings.neo4j_database, embedder, branch.context,
                                                             bank_queries=settings.adapath_bank_queries))
            result = branch.run(question, with_cypher=True)
    finally:
        if llm is not None:
            llm.close()
    show_result(result, top)


def show_result(result: GraphBranchResult, top: int) -> None:
    for note in result.notes:
        console.print(f"[yellow]note:[/] {note}", highlight=False)
    table = Table("#", "mention", "role", "type", "candidates (cosine, degree)", title="Entity table")
    for index, row in enumerate(result.entity_table.rows):
        types = list(row.links) or list(row.mention.types) or ["-"]
        for number, label in enumerate(types):
            links = row.links.get(label, ())
            shown = "\n".join(f"{link.name} [{link.node_id}] {link.score:.3f}, {link.degree}" for link in links)
            added = " (added)" if label == row.added_type else ""
            table.add_row(str(index) if number == 0 else "", row.mention.text if number == 0 else "",
                          row.mention.role.value if number == 0 else "", label + added, shown or "-")
    console.print(table)
    planning = result.planning
    console.print(f"[bold]Plan[/] ({planning.planner}, {len(planning.attempts)} attempt(s))")
    for note in planning.notes:
        console.print(f"[yellow]planner note:[/] {note}", highlight=False)
    if planning.plan is None:
        console.print(f"[red]no plan:[/] {planning.reason}", highlight=False)
    else:
        console.print_json(planning.plan.to_json())
    ranking = result.ranking
    if ranking.compiled is not None:
        console.print("[bold]Compiled Cypher[/] (paste into Neo4j Browser with these parameters)")
        console.print(Syntax(ranking.compiled.query, "cypher", word_wrap=True))
        console.print(Syntax(json.dumps(_short_params(ranking.compiled.params), indent=1), "json", word_wrap=True))
    if not ranking.nodes:
        console.print(f"[red]empty ranking:[/] {ranking.reason}", highlight=False)
    else:
        ranked = Table("rank", "id", "name", "score", "anchor", "dense", "witness", title="Graph ranking")
        for rank, node in enumerate(ranking.nodes[:top], start=1):
            paths = "\n".join(format_path(path) for path in witness_paths(node.witness))
            ranked.add_row(str(rank), str(node.node_id), node.name, f"{node.score:.3f}", f"{node.anchor_score:.3f}",
                           f"{node.dense_score:.3f}", paths)
        console.print(ranked)
        console.print(f"{len(ranking.nodes)} targets ranked")
    console.print("timings (ms): " + ", ".join(f"{k} {v:.0f}" for k, v in result.timings_ms.items()), highlight=False)


def _short_params(params: dict[str, object]) -> dict[str, object]:
    """Vectors are long; show their size instead (the bindings and ids are what a reader wants)."""
    def shorten(value: object) -> object:
        if isinstance(value, list) and len(value) > 16 and all(isinstance(x, float) for x in value):
            return f"<{len(value)} floats>"
        return value
    return {key: shorten(value) for key, value in params.items()}
