"""The Paths tab (AdaPath): the question's topics, the meta-paths offered, the paths found drawn as one graph,
and the answer. Pure functions from a `PathResult` to panel values, plus the handler that never raises."""

from __future__ import annotations

import html
import logging
from collections.abc import Sequence
from typing import Any

import pandas as pd

from grasp_agent.adapath.result import PathOut, PathResult
from grasp_agent.api import Grasp
from grasp_agent.errors import QuestionError, describe
from grasp_agent.ui.graphs import ROLE_COLORS, iframe, network_html, new_network, placeholder

logger = logging.getLogger(__name__)
DRAWN_PATHS = 8  # more paths than this make the drawing unreadable; the table lists them all
PANELS = ("path_answer", "path_meta", "path_graph_all", "path_table", "path_notes")


def paths_graph_html(paths: Sequence[PathOut], limit: int = DRAWN_PATHS) -> str:
    """The best `limit` paths as one graph: topics blue, ends orange, nodes on the way grey; relations in
    their stored direction; a node shared by several paths drawn once."""
    net = new_network()
    shown = list(paths[:limit])
    starts = {path.node_ids[0] for path in shown}
    ends = {path.node_ids[-1] for path in shown}
    for path in shown:
        for node_id, name, label in zip(path.node_ids, path.names, path.labels, strict=True):
            role = "anchor" if node_id in starts else "target" if node_id in ends else "hop"
            net.add_node(
                str(node_id), label=f"{name}\n({label})", title=str(node_id), color=ROLE_COLORS[role], shape="box"
            )
    edges: set[tuple[str, str, str]] = set()
    for path in shown:
        for index, (relation, out) in enumerate(zip(path.relations, path.outgoing, strict=True)):
            left, right = str(path.node_ids[index]), str(path.node_ids[index + 1])
            source, target = (left, right) if out else (right, left)
            if (source, target, relation) not in edges:
                edges.add((source, target, relation))
                net.add_edge(source, target, label=relation, arrows="to")
    return network_html(net)


def meta_paths_frame(result: PathResult) -> pd.DataFrame:
    return pd.DataFrame(
        [
            {
                "meta-path": m.signature,
                "hops": m.hops,
                "vote": round(m.vote, 3),
                "similar queries": m.voters,
                "support": m.support,
            }
            for m in result.meta_paths
        ],
        columns=["meta-path", "hops", "vote", "similar queries", "support"],
    )


def paths_frame(result: PathResult) -> pd.DataFrame:
    return pd.DataFrame(
        [
            {"#": number, "path": path.text, "score": round(path.score, 3), "meta-path": path.meta_path}
            for number, path in enumerate(result.paths, start=1)
        ],
        columns=["#", "path", "score", "meta-path"],
    )


def answer_markdown(result: PathResult) -> str:
    topics = ", ".join(f"{t.name} ({t.label or t.node_id})" for t in result.topics) or "none found"
    answer = result.answer
    head = (
        f"### Answer: {answer.text}" + (f" `{answer.node_id}`" if answer.node_id is not None else "")
        if answer.text
        else "### No answer"
    )
    how = {
        "llm": "named by the LLM from the paths",
        "best-path": "the end of the best path (no LLM answered)",
        "none": "no path was found",
    }.get(answer.source, answer.source)
    return (
        f"{head}\n{how}. Topics ({result.topic_source}): {topics}; hops {result.hops or '?'}; answer type "
        f"{result.answer_type or '?'}; meta-paths from {result.meta_path_source}; {result.scorer} scorer."
    )


def notes_markdown(result: PathResult) -> str:
    lines = [
        *(f"failed: {failure}" for failure in result.failures),
        *result.notes,
        *([result.answer.failure] if result.answer.failure else []),
    ]
    if result.truncated:
        lines.append("a search budget stopped the search early; paths may be incomplete")
    return "\n".join(f"- {html.escape(line)}" for line in lines)


def result_panels(result: PathResult) -> dict[str, Any]:
    graph = iframe(paths_graph_html(result.paths), title="paths") if result.paths else placeholder("no path found")
    return {
        "path_answer": answer_markdown(result),
        "path_meta": meta_paths_frame(result),
        "path_graph_all": graph,
        "path_table": paths_frame(result),
        "path_notes": notes_markdown(result),
    }


def path_updates(grasp: Grasp, text: str, meta_paths: str, scorer: str) -> dict[str, Any]:
    """The Paths tab's panels for one question; errors become a message, never a stack trace."""
    question = (text or "").strip()
    if not question:
        return {"path_answer": "**Type a question first.**"}
    if meta_paths not in ("bank", "planner", "none") or scorer not in ("embedding", "llm"):
        return {"path_answer": f"**Invalid settings:** meta-paths {meta_paths!r}, scorer {scorer!r}"}
    try:
        result = grasp.paths(question, meta_paths=meta_paths, scorer=scorer)  # type: ignore[arg-type]
    except QuestionError as error:
        return {"path_answer": f"**Question not accepted:** {error}"}
    except Exception as error:  # the page's boundary
        logger.warning("path search failed", exc_info=True)
        return {"path_answer": f"**Path search failed:** {describe(error)}"}
    return result_panels(result)
