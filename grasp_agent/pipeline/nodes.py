"""The pipeline's nodes: one small function per stage, each timed.

A branch is a failure boundary: whatever one graph stage raises (the LLM endpoint is down, Neo4j times out
or is gone, a bug) is recorded as `graph_failure` and the later graph stages pass; the text branch likewise
records `text_failure`. Fusion treats a missing ranking as empty, so the caller always gets the other
branch's answer and the reason, never the exception. The same holds for reranking and document lookup,
which fall back to the fused order.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from typing import Any, Protocol, cast

from grasp_agent.errors import describe
from grasp_agent.fusion.answer_type import asked_type_first, of_asked_type
from grasp_agent.fusion.policies import (
    FusionResult,
    dynamic_fusion,
    graph_lead_first,
    graph_ties_in_graph_order,
    keyword_lead_first,
    named_first,
    static_fusion,
)
from grasp_agent.fusion.rrf import rerank_fusion
from grasp_agent.graph_branch.branch import GraphBranch
from grasp_agent.graph_branch.ranking import holds_name_terms
from grasp_agent.graph_branch.schema_paths import target_type
from grasp_agent.pipeline.options import SearchOptions
from grasp_agent.pipeline.parts import PipelineParts
from grasp_agent.pipeline.state import FinalRanking, GraphBranchState, PipelineState, StageSpan
from grasp_agent.ranking import NodeId
from grasp_agent.rerank.budget import RerankBudgetExceeded
from grasp_agent.rerank.documents import CandidateDocument, candidate_documents

logger = logging.getLogger(__name__)

GraphWork = Callable[[GraphBranchState, GraphBranch], dict[str, Any]]


class GraphNode(Protocol):  # LangGraph's node protocol names the parameter `state`
    def __call__(self, state: GraphBranchState) -> dict[str, Any]: ...


class PipelineNode(Protocol):
    def __call__(self, state: PipelineState) -> dict[str, Any]: ...


def graph_stage(parts: PipelineParts, name: str, work: GraphWork) -> GraphNode:
    """A graph-branch node: skipped after an earlier failure, its own failure recorded, its span kept."""

    def node(state: GraphBranchState) -> dict[str, Any]:
        if state.get("graph_failure"):
            return {}
        start = time.perf_counter()
        if skip := parts.availability.skip_reason():
            return {
                "graph_failure": f"{name} skipped: {skip}",
                "graph_spans": {name: StageSpan(start, time.perf_counter())},
            }
        try:
            update = work(state, parts.graph_branch(state["options"].planner))
        except Exception as error:  # the branch boundary: see the module docstring
            parts.availability.record_failure(error)
            logger.warning("graph branch failed at %s", name, exc_info=True)
            update = {"graph_failure": f"{name} failed: {describe(error)}"}
        return {**update, "graph_spans": {name: StageSpan(start, time.perf_counter())}}

    node.__name__ = name
    return node


def extract(state: GraphBranchState, branch: GraphBranch) -> dict[str, Any]:
    notes: list[str] = []
    mentions = branch.extract(state["question"], notes)
    return {"mentions": mentions, "graph_notes": notes}


def link(state: GraphBranchState, branch: GraphBranch) -> dict[str, Any]:
    return {"entity_table": branch.link(state["mentions"])}


def plan(state: GraphBranchState, branch: GraphBranch) -> dict[str, Any]:
    return {
        "planning": branch.plan(
            state["question"], state["entity_table"], exclude_examples=state["options"].exclude_examples
        )
    }


def execute(state: GraphBranchState, branch: GraphBranch) -> dict[str, Any]:
    ranking = branch.execute(state["planning"], question=state["question"], with_cypher=state["options"].with_cypher)
    return {"graph_ranking": ranking, "graph_notes": [ranking.note] if ranking.note else []}


def text_node(parts: PipelineParts) -> PipelineNode:
    def text(state: PipelineState) -> dict[str, Any]:
        start = time.perf_counter()
        update: dict[str, Any]
        if parts.text_branch is None:
            update = {"text_failure": parts.text_unavailable or "no text branch"}
        else:
            try:
                update = {"text_ranking": parts.text_branch.search(state["question"], parts.settings.text_top_k)}
            except Exception as error:  # the branch boundary
                logger.warning("text branch failed", exc_info=True)
                update = {"text_failure": f"text search failed: {describe(error)}"}
        return {**update, "spans": {"text": StageSpan(start, time.perf_counter())}}

    return text


def fuse_node(parts: PipelineParts) -> PipelineNode:
    def fuse(state: PipelineState) -> dict[str, Any]:
        start = time.perf_counter()
        result = fuse_rankings(parts, state)
        notes = [result.note] if result.note else []
        policy = "dynamic" if result.bucket is not None else "static"
        return {
            "fusion": result,
            "fusion_policy": policy,
            "notes": notes,
            "spans": {"fuse": StageSpan(start, time.perf_counter())},
        }

    return fuse


def fuse_rankings(parts: PipelineParts, state: PipelineState) -> FusionResult:
    graph = state.get("graph_ranking")
    text = state.get("text_ranking")
    graph_ids = graph.node_ids if graph is not None else []
    text_ids = list(text.ids) if text is not None else []
    settings = parts.settings
    planning = state.get("planning")
    policy = state["options"].type_policy or settings.type_policy
    asked = asked_type(parts, state) if policy != "none" else None
    if asked is not None and policy == "filter":
        text_ids = of_asked_type(text_ids, node_labels(parts, state, text_ids), asked)
    mode = state["options"].fusion or parts.configuration.fusion_policy.value
    order = planning.plan.order if planning is not None and planning.plan is not None else None
    if order is not None and graph is not None and graph.nodes and not graph.partial:
        # "the most populous city of X": the text branch cannot rank by a quantity, and any weight it gets moves
        # a smaller target above the largest (generated superlatives: graph Hit@1 0.835, fused 0.500)
        result = replace(
            static_fusion(graph_ids, text_ids, 1.0, settings.fusion_k),
            note=f"the plan ranks by {order.property}, which the text cannot: the graph's order kept",
        )
    elif mode == "dynamic" and planning is not None and planning.plan is not None:
        risk = graph.fusion_risk(planning.plan.risk) if graph is not None else planning.plan.risk
        result = dynamic_fusion(graph_ids, text_ids, planning.plan.n_cand, risk, parts.fusion_tables)
    else:
        result = static_fusion(graph_ids, text_ids, parts.static_graph_weight, settings.fusion_k)
    if graph is not None and (parts.configuration.graph_ties.value or graph.ties_settled):
        # settled: the question's words beyond the plan are in no target's text, so the text ranking's order
        # among the targets the graph scores alike follows the wording alone
        result = graph_ties_in_graph_order(result, graph_ids, [node.score for node in graph.nodes])
    lead = parts.configuration.graph_lead.value
    if graph is not None and lead is not None:
        result = graph_lead_first(result, graph_ids, [node.score for node in graph.nodes], lead)
    if graph is not None and parts.configuration.keyword_lead.value:
        result = keyword_lead_first(result, graph_ids, [node.lexical_score for node in graph.nodes])
    keywords = planning.plan.name_contains if planning is not None and planning.plan is not None else ()
    if graph is not None and keywords:
        result = named_first(result, [node.node_id for node in graph.nodes if holds_name_terms(node.name, keywords)])
    if asked is None or policy != "prior":
        return result
    labels = node_labels(parts, state, cast(list[NodeId], result.ids))
    return replace(
        result,
        items=tuple(asked_type_first(result.items, lambda item: labels.get(cast(NodeId, item.id)), asked)),
        asked_type=asked,
    )


def asked_type(parts: PipelineParts, state: PipelineState) -> str | None:
    """The plan's target type, else the type the question's words ask for ("Which diseases ..."), else None."""
    planning = state.get("planning")
    if planning is not None and planning.plan is not None:
        return planning.plan.target.type
    return target_type(state["question"], parts.schema)


def node_labels(parts: PipelineParts, state: PipelineState, ids: Sequence[NodeId]) -> dict[NodeId, str]:
    """The type of each id: the text index knows every node; graph targets have the plan's type."""
    labels: dict[NodeId, str] = dict(parts.text_branch.labels_of(ids)) if parts.text_branch is not None else {}
    planning = state.get("planning")
    graph = state.get("graph_ranking")
    if planning is not None and planning.plan is not None and graph is not None:
        labels.update({node_id: planning.plan.target.type for node_id in graph.node_ids})
    return labels


def rerank_node(parts: PipelineParts) -> PipelineNode:
    def rerank_stage(state: PipelineState) -> dict[str, Any]:
        start = time.perf_counter()
        final, notes = final_ranking(parts, state)
        return {"final": final, "notes": notes, "spans": {"rerank": StageSpan(start, time.perf_counter())}}

    rerank_stage.__name__ = "rerank"
    return rerank_stage


def final_ranking(parts: PipelineParts, state: PipelineState) -> tuple[FinalRanking, list[str]]:
    """The reranked order (or the fused one when reranking is off or fails), with the documents read."""
    options: SearchOptions = state["options"]
    fusion = state["fusion"]
    fused_ids = cast(list[NodeId], fusion.ids)
    fused_scores = tuple(item.score for item in fusion.items)
    settings = parts.settings
    wanted = options.rerank if options.rerank is not None else parts.configuration.rerank_by_default.value
    reranker = parts.reranker if wanted else None
    depth = options.rerank_k or settings.rerank_k
    shown = options.k or settings.result_k
    notes: list[str] = []
    if not fused_ids:
        return FinalRanking((), (), False, None), notes
    if skip := parts.availability.skip_reason():
        notes.append(f"documents unavailable: {skip}; fused order kept")
        return FinalRanking(tuple(fused_ids), fused_scores, False, None), notes
    try:
        documents = _documents(parts, state, fused_ids[: max(shown, depth if reranker else 0)])
    except Exception as error:  # documents are a nicety for display, but the reranker needs them
        parts.availability.record_failure(error)
        logger.warning("document lookup failed", exc_info=True)
        notes.append(f"documents unavailable: {describe(error)}; fused order kept")
        return FinalRanking(tuple(fused_ids), fused_scores, False, None), notes
    if reranker is None:
        return FinalRanking(tuple(fused_ids), fused_scores, False, None, (), documents), notes
    try:
        head = [(node_id, documents[node_id].text) for node_id in fused_ids[:depth] if node_id in documents]
        order = parts.rerank_gate.rerank(state["question"], head, reranker, depth, options.rerank_budget_s)
        items = rerank_fusion(order, fused_ids, parts.rerank_weight, settings.rerank_rrf_k)
        if (asked := fusion.asked_type) is not None:  # the reranker's order must not undo the type prior
            labels = node_labels(parts, state, fused_ids)
            items = asked_type_first(items, lambda item: labels.get(cast(NodeId, item.id)), asked)
    except RerankBudgetExceeded as error:  # under load: the fused order is a correct answer, given in time
        notes.append(f"reranker {reranker.model_id} skipped: {error}; fused order kept")
        return FinalRanking(tuple(fused_ids), fused_scores, False, None, (), documents), notes
    except Exception as error:  # a reranker failure must not cost the answer
        logger.warning("reranker failed", exc_info=True)
        notes.append(f"reranker {reranker.model_id} failed: {describe(error)}; fused order kept")
        return FinalRanking(tuple(fused_ids), fused_scores, False, None, (), documents), notes
    return FinalRanking(
        tuple(cast(NodeId, item.id) for item in items),
        tuple(item.score for item in items),
        True,
        reranker.model_id,
        tuple(order),
        documents,
    ), notes


def _documents(parts: PipelineParts, state: PipelineState, ids: Sequence[NodeId]) -> Mapping[NodeId, CandidateDocument]:
    vector = parts.embedder.embed_query(state["question"])
    return candidate_documents(
        parts.driver,
        parts.settings.neo4j_database,
        parts.schema,
        ids_by_label(parts, state, ids),
        vector,
        parts.embedder.count_tokens,
    )


def ids_by_label(parts: PipelineParts, state: PipelineState, ids: Sequence[NodeId]) -> dict[str, list[NodeId]]:
    """Group ids by node type: graph targets have the plan's type, text hits the index's; any other id is
    looked up under every type."""
    known = node_labels(parts, state, ids)
    grouped: dict[str, list[NodeId]] = {label: [] for label in (t.label for t in parts.schema.node_types)}
    for node_id in ids:
        labels = [known[node_id]] if node_id in known else list(grouped)
        for label in labels:
            grouped.setdefault(label, []).append(node_id)
    return grouped
