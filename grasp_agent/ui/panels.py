"""What each pipeline event changes on the page: panel name -> new value, from the state gathered so far.

A search streams one `StageEvent` per stage and then the `SearchResult`; each becomes a small dict of the
panels it fills, so the page updates as the stages end and unchanged panels are not re-sent.
"""

from __future__ import annotations

import json
from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from grasp_agent.graph_branch.planning import PlanningOutcome
from grasp_agent.graph_branch.ranking import GraphRanking
from grasp_agent.pipeline.results import SearchHit, SearchResult
from grasp_agent.ui import tables
from grasp_agent.ui.cypher_link import browser_link, param_block
from grasp_agent.ui.graphs import iframe, path_graph_html, placeholder, plan_graph_html

PANELS = (
    "progress",
    "status",
    "entities",
    "plan_json",
    "plan_graph",
    "cypher",
    "browser",
    "params",
    "graph_rank",
    "text_rank",
    "fused_rank",
    "final_rank",
    "path_graph",
    "document",
    "selection",
)
PARAMS_NOTE = (
    "Neo4j Browser cannot take parameters from a link: paste the `:param` lines below into its editor "
    "and run them first, then run the query the link opens."
)


@dataclass(frozen=True)
class Selection:
    """The final ranking as shown, for row clicks: the hits and the graph witness of each graph-ranked node."""

    hits: tuple[SearchHit, ...] = ()
    witnesses: Mapping[Hashable, tuple[dict[str, Any], ...]] = field(default_factory=dict)


def cleared(stages: Sequence[str]) -> dict[str, Any]:
    """Every panel emptied for a new search; all stages shown as running."""
    empty_graph = placeholder("waiting for the plan")
    return {
        "progress": tables.stage_progress(stages, {}, running=True),
        "status": "Searching…",
        "entities": None,
        "plan_json": None,
        "plan_graph": empty_graph,
        "cypher": "",
        "browser": "",
        "params": "",
        "graph_rank": None,
        "text_rank": None,
        "fused_rank": None,
        "final_rank": None,
        "path_graph": placeholder("waiting for the answer"),
        "document": "",
        "selection": Selection(),
    }


def failure_lines(failures: Mapping[str, str], notes: Sequence[str] = ()) -> str:
    """Branch failures and notes as Markdown lines (empty when all went well)."""
    lines = [f"- **{branch} branch gave nothing:** {reason}" for branch, reason in failures.items()]
    lines += [f"- note: {note}" for note in notes]
    return "\n".join(lines)


def stage_panels(stage: str, state: Mapping[str, Any], browser_url: str) -> dict[str, Any]:
    """The panels one finished stage fills, from the state so far (`state` holds every update received)."""
    if stage == "link" and state.get("entity_table") is not None:
        return {"entities": tables.entity_frame(state["entity_table"])}
    if stage == "plan" and state.get("planning") is not None:
        return plan_panels(state["planning"])
    if stage == "execute" and state.get("graph_ranking") is not None:
        return graph_panels(state["graph_ranking"], browser_url)
    if stage == "text" and state.get("text_ranking") is not None:
        return {"text_rank": tables.text_frame(state["text_ranking"], names_so_far(state))}
    if stage == "fuse" and state.get("fusion") is not None:
        return {"fused_rank": tables.fused_frame(state["fusion"], names_so_far(state))}
    return {}


def plan_panels(planning: PlanningOutcome) -> dict[str, Any]:
    if planning.plan is None:
        return {"plan_json": None, "plan_graph": placeholder(f"No plan ({planning.planner}): {planning.reason}")}
    return {
        "plan_json": json.loads(planning.plan.to_json()),
        "plan_graph": iframe(plan_graph_html(planning.plan), title="plan graph"),
    }


def graph_panels(ranking: GraphRanking, browser_url: str) -> dict[str, Any]:
    panels: dict[str, Any] = {"graph_rank": tables.graph_frame(ranking)}
    if ranking.compiled is not None:
        link = browser_link(browser_url, ranking.compiled.query)
        panels.update(
            cypher=ranking.compiled.query,
            params=param_block(ranking.compiled.params),
            browser=f"[Open this query in Neo4j Browser]({link})\n\n{PARAMS_NOTE}",
        )
    return panels


def names_so_far(state: Mapping[str, Any]) -> dict[Hashable, tuple[str, str]]:
    planning = state.get("planning")
    final = state.get("final")
    return tables.node_names(
        state.get("entity_table"),
        state.get("graph_ranking"),
        planning.plan.target.type if planning is not None and planning.plan is not None else None,
        final.documents if final is not None else None,
    )


def result_panels(result: SearchResult, state: Mapping[str, Any]) -> dict[str, Any]:
    """The answer: the final ranking, the top hit's document and witness, the failures, and the text and fused
    lists again now that the documents have named their nodes."""
    graph = state.get("graph_ranking")
    witnesses = {node.node_id: node.witness for node in graph.nodes} if graph is not None else {}
    selection = Selection(tuple(result.hits), witnesses)
    panels: dict[str, Any] = {
        "final_rank": tables.final_frame(result.hits),
        "selection": selection,
        "status": failure_lines(result.failures, result.notes) or "Done.",
    }
    if state.get("text_ranking") is not None:
        panels["text_rank"] = tables.text_frame(state["text_ranking"], names_so_far(state))
    if state.get("fusion") is not None:
        panels["fused_rank"] = tables.fused_frame(state["fusion"], names_so_far(state))
    if result.hits:
        panels.update(hit_panels(selection, 0))
    else:
        panels.update(document="No answer.", path_graph=placeholder("no answer, so no path"))
    return panels


def hit_panels(selection: Selection, row: int) -> dict[str, Any]:
    """The document and witness path of the hit in `row` of the final ranking."""
    if not 0 <= row < len(selection.hits):
        return {}
    hit = selection.hits[row]
    witness = selection.witnesses.get(hit.node_id)
    path = (
        iframe(path_graph_html(witness), title=f"witness path of {hit.node_id}")
        if witness
        else placeholder(f"{hit.name} was not ranked by the graph branch, so it has no witness path")
    )
    return {"document": tables.document_markdown(hit), "path_graph": path}
