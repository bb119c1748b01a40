"""Stage outputs as the tables the app shows: pure functions from pipeline objects to pandas DataFrames or
Markdown."""

from __future__ import annotations

from collections.abc import Hashable, Mapping, Sequence

import pandas as pd

from grasp_agent.fusion.policies import FusionResult
from grasp_agent.graph_branch.entity_table import EntityTable
from grasp_agent.graph_branch.ranking import GraphRanking, format_path, witness_paths
from grasp_agent.pipeline.results import SearchHit
from grasp_agent.rerank.documents import CandidateDocument
from grasp_agent.skb.context import SkbContext
from grasp_agent.text_branch.retriever import TextRanking

# node id -> (name, type), gathered from whichever stage saw the node
NodeNames = Mapping[Hashable, tuple[str, str]]

ENTITY_COLUMNS = ["mention", "role", "match", "type", "node id", "name", "cosine", "degree"]
GRAPH_COLUMNS = ["rank", "node id", "name", "score", "anchor", "dense", "words", "witness"]
TEXT_COLUMNS = ["rank", "node id", "name", "type", "score"]
FUSED_COLUMNS = ["rank", "node id", "name", "type", "rrf", "graph rank", "text rank", "from"]
FINAL_COLUMNS = ["rank", "node id", "name", "type", "score", "graph", "text", "fused", "rerank", "from"]


def node_names(
    entity_table: EntityTable | None = None,
    graph: GraphRanking | None = None,
    target_type: str | None = None,
    documents: Mapping[Hashable, CandidateDocument] | None = None,
) -> dict[Hashable, tuple[str, str]]:
    """Names and types known so far; documents (read for the head of the ranking) win."""
    names: dict[Hashable, tuple[str, str]] = {}
    for row in entity_table.rows if entity_table is not None else ():
        for links in row.links.values():
            names.update({link.node_id: (link.name, link.label) for link in links})
    for node in graph.nodes if graph is not None else ():
        names[node.node_id] = (node.name, target_type or "")
    names.update({node_id: (doc.name, doc.label) for node_id, doc in (documents or {}).items()})
    return names


def entity_frame(table: EntityTable) -> pd.DataFrame:
    """One row per (mention, type, candidate node), best candidate first; `match` says whether the mention was
    linked by name or, for an entity described instead of named, by document."""
    rows: list[list[object]] = []
    for row in table.rows:
        types = list(row.links) or list(row.mention.types) or ["-"]
        for label in types:
            links = row.links.get(label, ())
            shown = label + (" (added)" if label == row.added_type else "")
            mention = [row.mention.text, row.mention.role.value, row.mention.match_mode.value, shown]
            if not links:
                rows.append([*mention, "", "(no match)", None, None])
            rows.extend([*mention, str(link.node_id), link.name, round(link.score, 3), link.degree] for link in links)
    return pd.DataFrame(rows, columns=ENTITY_COLUMNS)


def graph_frame(ranking: GraphRanking, limit: int = 20) -> pd.DataFrame:
    rows = [
        [
            rank,
            str(node.node_id),
            node.name,
            round(node.score, 4),
            round(node.anchor_score, 4),
            round(node.dense_score, 4),
            round(node.lexical_score, 4),
            " | ".join(format_path(p) for p in witness_paths(node.witness)),
        ]
        for rank, node in enumerate(ranking.nodes[:limit], start=1)
    ]
    return pd.DataFrame(rows, columns=GRAPH_COLUMNS)


def text_frame(ranking: TextRanking, names: NodeNames, limit: int = 20) -> pd.DataFrame:
    rows = []
    for rank, (node_id, score) in enumerate(zip(ranking.ids[:limit], ranking.scores[:limit], strict=True), start=1):
        name, label = names.get(node_id, ("", ""))
        rows.append([rank, str(node_id), name, label, round(score, 4)])
    return pd.DataFrame(rows, columns=TEXT_COLUMNS)


def branches_of(graph_rank: int | None, text_rank: int | None) -> str:
    """Which branch ranked a node: "graph", "text", "graph+text" (or "" for neither)."""
    return "+".join(name for name, rank in (("graph", graph_rank), ("text", text_rank)) if rank is not None)


def fused_frame(fusion: FusionResult, names: NodeNames, limit: int = 20) -> pd.DataFrame:
    """The fused list; fusion's inputs are (graph, text), so an item's ranks are in that order."""
    rows = []
    for rank, item in enumerate(fusion.items[:limit], start=1):
        graph_rank, text_rank = (tuple(item.ranks) + (None, None))[:2]
        name, label = names.get(item.id, ("", ""))
        rows.append(
            [
                rank,
                str(item.id),
                name,
                label,
                round(item.score, 5),
                graph_rank,
                text_rank,
                branches_of(graph_rank, text_rank),
            ]
        )
    return pd.DataFrame(rows, columns=FUSED_COLUMNS)


def final_frame(hits: Sequence[SearchHit]) -> pd.DataFrame:
    rows = [
        [
            hit.rank,
            str(hit.node_id),
            hit.name,
            hit.label or "",
            round(hit.score, 5),
            hit.graph_rank,
            hit.text_rank,
            hit.fused_rank,
            hit.rerank_rank,
            branches_of(hit.graph_rank, hit.text_rank),
        ]
        for hit in hits
    ]
    return pd.DataFrame(rows, columns=FINAL_COLUMNS)


def stage_progress(stages: Sequence[str], done: Mapping[str, tuple[float, float]], running: bool) -> str:
    """A Markdown table of the stages: done ones with their ms, the others waiting; then the total so far."""
    lines = ["| stage | status | ms |", "|---|---|---:|"]
    for stage in stages:
        shown = "graph (execute)" if stage == "execute" else stage
        if stage in done:
            lines.append(f"| {shown} | done | {done[stage][0]:.0f} |")
        else:
            lines.append(f"| {shown} | {'running' if running else 'not run'} | |")
    if done:
        lines.append(f"| **total** | {'running' if running else 'finished'} | {max(e for _, e in done.values()):.0f} |")
    return "\n".join(lines)


def types_frame(context: SkbContext) -> pd.DataFrame:
    rows = [[t.label, context.label_counts.get(t.label, 0), t.description] for t in context.schema.node_types]
    return pd.DataFrame(rows, columns=["type", "nodes", "description"])


def relations_frame(context: SkbContext) -> pd.DataFrame:
    rows = [
        [source, relation, target, count]
        for (source, relation, target), count in sorted(context.pattern_counts.items())
    ]
    return pd.DataFrame(rows, columns=["source", "relation", "target", "edges"])


def document_markdown(hit: SearchHit) -> str:
    """A ranked node's document (what the reranker read), or why there is none."""
    title = f"**{hit.rank}. {hit.name}** `{hit.node_id}`" + (f" ({hit.label})" if hit.label else "")
    if hit.document is None:
        return f"{title}\n\nNo document was read for this node (it was below the reranked head, or lookup failed)."
    return f"{title}\n\n```text\n{hit.document}\n```"
