"""`grasp plan "question"`: the graph branch on one question, every intermediate result shown."""

from __future__ import annotations

import json
from dataclasses import asdict
from typing import Any

import typer
from neo4j import Driver
from rich.syntax import Syntax
from rich.table import Table

from grasp_agent.cli._common import (
    PLANNER_HELP,
    PlannerChoice,
    console,
    friendly_errors,
    load_settings,
    planner_name,
    print_json,
    renamed,
)
from grasp_agent.config import Settings
from grasp_agent.db.connection import open_driver
from grasp_agent.embed.base import GraspEmbedder
from grasp_agent.embed.factory import make_embedder
from grasp_agent.errors import GraspError
from grasp_agent.graph_branch.branch import GraphBranch, GraphBranchResult
from grasp_agent.graph_branch.ranking import format_path, witness_paths
from grasp_agent.llm.base import GraspLLM
from grasp_agent.llm.factory import make_llm
from grasp_agent.pipeline.parts import with_text_evidence
from grasp_agent.question_text import checked_question
from grasp_agent.text_branch.fields import TextBranchError
from grasp_agent.text_branch.from_database import open_text_branch


@friendly_errors
def plan(
    question: str = typer.Argument(..., help="The question, in quotes."),
    k: int = typer.Option(10, "--k", "-k", min=1, max=100, help="How many ranked targets to show."),
    top: int = typer.Option(None, "--top", min=1, max=100, hidden=True),  # the old name of -k
    planner: PlannerChoice = typer.Option(None, "--planner", help=PLANNER_HELP),
    heuristic: bool = typer.Option(False, "--heuristic", hidden=True),
    as_json: bool = typer.Option(False, "--json", help="Print the whole result as one JSON object (for scripts)."),
) -> None:
    """Entity table, plan JSON, compiled Cypher and the top targets with scores and witness paths."""
    k = renamed(k, top, "-k", "--top", default=10)
    settings = load_settings()
    question = checked_question(question, settings.max_question_chars)
    chosen = planner_name(planner, heuristic) or settings.planner
    if chosen == "llm" and settings.llm == "none":
        raise GraspError("--planner llm needs an LLM backend (GRASP_LLM)")
    llm = make_llm(settings) if chosen in ("llm", "auto") else None
    try:
        with open_driver(settings) as driver:
            branch = graph_branch_for(driver, settings, make_embedder(settings), llm, chosen)
            result = branch.run(question, with_cypher=True)
    finally:
        if llm is not None:
            llm.close()
    if as_json:
        print_json(result_document(result, k))
    else:
        show_result(result, k)


def graph_branch_for(
    driver: Driver,
    settings: Settings,
    embedder: GraspEmbedder,
    llm: GraspLLM | None,
    planner: str,
    *,
    llm_extraction: bool = True,
) -> GraphBranch:
    """The graph branch with the planner asked for (`pathbank`: the Path-Bank's meta-paths), reading the text
    branch's indexes as a search does (`with_text_evidence`) when they open."""
    branch = GraphBranch.build(driver, settings, embedder, llm, llm_extraction=llm_extraction)
    try:
        text_branch = open_text_branch(driver, settings, embedder, branch.context.schema)
    except TextBranchError as error:
        console.print(f"[yellow]text indexes unavailable, graph ranking without them:[/] {error}", highlight=False)
        text_branch = None
    branch = with_text_evidence(branch, text_branch, settings)
    if planner != "pathbank":
        return branch
    from grasp_agent.adapath.bank_planner import PathBankPlanner

    return branch.with_planner(
        PathBankPlanner(
            driver, settings.neo4j_database, embedder, branch.context, bank_queries=settings.adapath_bank_queries
        )
    )


def result_document(result: GraphBranchResult, top: int) -> dict[str, Any]:
    """What `show_result` prints, as one JSON-ready object (the Cypher parameters in full)."""
    planning, ranking = result.planning, result.ranking
    return {
        "question": result.question,
        "notes": list(result.notes),
        "entity_table": [
            {
                "mention": row.mention.text,
                "role": row.mention.role.value,
                "match_mode": row.mention.match_mode.value,
                "types": list(row.mention.types),
                "added_type": row.added_type,
                "links": {label: [asdict(link) for link in links] for label, links in row.links.items()},
            }
            for row in result.entity_table.rows
        ],
        "planner": planning.planner,
        "attempts": len(planning.attempts),
        "planner_notes": list(planning.notes),
        "plan": json.loads(planning.plan.to_json()) if planning.plan is not None else None,
        "no_plan_reason": planning.reason if planning.plan is None else None,
        "cypher": ranking.compiled.query if ranking.compiled is not None else None,
        "cypher_params": ranking.compiled.params if ranking.compiled is not None else None,
        "ranked": len(ranking.nodes),
        "partial": ranking.partial,
        "empty_reason": ranking.reason if not ranking.nodes else None,
        "ranking_note": ranking.note,
        "targets": [
            {
                "rank": rank,
                "node_id": node.node_id,
                "name": node.name,
                "score": node.score,
                "anchor_score": node.anchor_score,
                "dense_score": node.dense_score,
                "lexical_score": node.lexical_score,
                "witness": [format_path(path) for path in witness_paths(node.witness)],
            }
            for rank, node in enumerate(ranking.nodes[:top], start=1)
        ],
        "timings_ms": result.timings_ms,
    }


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
            role = row.mention.role.value + (" (by doc)" if row.mention.match_mode.value == "doc" else "")
            table.add_row(
                str(index) if number == 0 else "",
                row.mention.text if number == 0 else "",
                role if number == 0 else "",
                label + added,
                shown or "-",
            )
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
        ranked = Table("rank", "id", "name", "score", "anchor", "dense", "words", "witness", title="Graph ranking")
        for rank, node in enumerate(ranking.nodes[:top], start=1):
            paths = "\n".join(format_path(path) for path in witness_paths(node.witness))
            ranked.add_row(
                str(rank),
                str(node.node_id),
                node.name,
                f"{node.score:.3f}",
                f"{node.anchor_score:.3f}",
                f"{node.dense_score:.3f}",
                f"{node.lexical_score:.3f}",
                paths,
            )
        console.print(ranked)
        partial = " by partial match (no node matches the whole plan; soft constraints)" if ranking.partial else ""
        console.print(f"{len(ranking.nodes)} targets ranked{partial}")
        if ranking.note:
            console.print(f"[yellow]ranking note:[/] {ranking.note}", highlight=False)
    console.print("timings (ms): " + ", ".join(f"{k} {v:.0f}" for k, v in result.timings_ms.items()), highlight=False)


def _short_params(params: dict[str, object]) -> dict[str, object]:
    """Vectors are long; show their size instead (the bindings and ids are what a reader wants)."""

    def shorten(value: object) -> object:
        if isinstance(value, list) and len(value) > 16 and all(isinstance(x, float) for x in value):
            return f"<{len(value)} floats>"
        return value

    return {key: shorten(value) for key, value in params.items()}
