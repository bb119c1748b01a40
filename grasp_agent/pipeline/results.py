"""What a search returns: typed, JSON-serializable results with every stage's details and times."""

from __future__ import annotations

from collections.abc import Hashable, Mapping, Sequence
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from grasp_agent.fusion.rrf import rank_map
from grasp_agent.pipeline.configuration import SearchConfiguration
from grasp_agent.pipeline.state import PipelineState, StageSpan
from grasp_agent.ranking import NodeId


class SearchHit(BaseModel):
    model_config = ConfigDict(frozen=True)

    rank: int
    node_id: NodeId
    name: str
    label: str | None
    score: float = Field(description="Final score: the last RRF when reranked, else the fused RRF score")
    graph_rank: int | None = None
    text_rank: int | None = None
    fused_rank: int | None = None
    rerank_rank: int | None = None
    document: str | None = None

    @property
    def branches(self) -> list[str]:
        """Which branches ranked this node ("graph", "text")."""
        return [name for name, rank in (("graph", self.graph_rank), ("text", self.text_rank)) if rank is not None]


class LinkedNode(BaseModel):
    model_config = ConfigDict(frozen=True)

    node_id: NodeId
    name: str
    label: str
    score: float


class EntityTableRow(BaseModel):
    model_config = ConfigDict(frozen=True)

    mention: str
    role: str
    match_mode: str = "name"  # "doc": an entity described, not named, linked through the document index
    types: list[str]
    links: dict[str, list[LinkedNode]]


class ParallelTiming(BaseModel):
    """Both branches' wall times and that of the step running them together (overlap > 0 means parallel)."""

    model_config = ConfigDict(frozen=True)

    graph_ms: float
    text_ms: float
    wall_ms: float
    overlap_ms: float


class SearchResult(BaseModel):
    model_config = ConfigDict(frozen=True)

    question: str
    hits: list[SearchHit]
    planner: str | None = None
    entity_table: list[EntityTableRow] = Field(default_factory=list)
    plan: dict[str, Any] | None = None
    cypher: str | None = None
    cypher_params: dict[str, Any] | None = None
    fusion: dict[str, Any] = Field(default_factory=dict)
    reranker: str | None = None
    stages_ms: dict[str, float] = Field(default_factory=dict)
    parallel: ParallelTiming | None = None
    failures: dict[str, str] = Field(default_factory=dict, description="branch -> why it gave nothing")
    notes: list[str] = Field(default_factory=list)
    configuration: dict[str, dict[str, Any]] = Field(
        default_factory=dict, description="fusion/rerank setting -> {value, source} in force for this search"
    )

    @property
    def node_ids(self) -> list[NodeId]:
        return [hit.node_id for hit in self.hits]


def parallel_timing(graph_spans: Mapping[str, StageSpan], text: StageSpan | None) -> ParallelTiming | None:
    if not graph_spans or text is None:
        return None
    graph = StageSpan(min(s.start for s in graph_spans.values()), max(s.end for s in graph_spans.values()))
    wall = (max(graph.end, text.end) - min(graph.start, text.start)) * 1000.0
    overlap = max(0.0, min(graph.end, text.end) - max(graph.start, text.start)) * 1000.0
    return ParallelTiming(graph_ms=graph.ms, text_ms=text.ms, wall_ms=wall, overlap_ms=overlap)


def _ranks(ids: Sequence[Hashable]) -> dict[Hashable, int]:
    return rank_map(ids)


def search_result(state: PipelineState, k: int, configuration: SearchConfiguration | None = None) -> SearchResult:
    """The first `k` hits of a finished pipeline state, with the details a UI or a log wants."""
    final = state.get("final")
    graph = state.get("graph_ranking")
    text = state.get("text_ranking")
    fusion = state.get("fusion")
    graph_ranks = _ranks(graph.node_ids) if graph is not None else {}
    text_ranks = _ranks(text.ids) if text is not None else {}
    fused_ranks = _ranks(fusion.ids) if fusion is not None else {}
    rerank_ranks = _ranks(final.rerank_order) if final is not None else {}
    graph_names = {node.node_id: node.name for node in graph.nodes} if graph is not None else {}
    documents = (final.documents or {}) if final is not None else {}
    hits = []
    if final is not None:
        for rank, (node_id, score) in enumerate(zip(final.ids[:k], final.scores[:k], strict=True), start=1):
            document = documents.get(node_id)
            hits.append(
                SearchHit(
                    rank=rank,
                    node_id=node_id,
                    score=score,
                    name=document.name if document else graph_names.get(node_id, str(node_id)),
                    label=document.label if document else None,
                    graph_rank=graph_ranks.get(node_id),
                    text_rank=text_ranks.get(node_id),
                    fused_rank=fused_ranks.get(node_id),
                    rerank_rank=rerank_ranks.get(node_id),
                    document=document.text if document else None,
                )
            )
    planning = state.get("planning")
    plan = planning.plan if planning is not None else None
    compiled = graph.compiled if graph is not None else None
    spans = {**state.get("graph_spans", {}), **state.get("spans", {})}
    failures = {
        name: reason
        for name, reason in (("graph", state.get("graph_failure")), ("text", state.get("text_failure")))
        if reason
    }
    if graph is not None and not graph.nodes and graph.reason and "graph" not in failures:
        failures["graph"] = graph.reason
    return SearchResult(
        question=state["question"],
        hits=hits,
        planner=planning.planner if planning is not None else None,
        entity_table=_entity_rows(state),
        plan=plan.model_dump(mode="json") if plan is not None else None,
        cypher=compiled.query if compiled is not None else None,
        cypher_params=_jsonable(compiled.params) if compiled is not None else None,
        fusion=_fusion_summary(state),
        reranker=final.reranker if final is not None else None,
        stages_ms={name: span.ms for name, span in spans.items()},
        parallel=parallel_timing(state.get("graph_spans", {}), state.get("spans", {}).get("text")),
        failures=failures,
        notes=[*state.get("graph_notes", []), *state.get("notes", [])],
        configuration=configuration.as_dict() if configuration is not None else {},
    )


def _entity_rows(state: PipelineState) -> list[EntityTableRow]:
    table = state.get("entity_table")
    if table is None:
        return []
    return [
        EntityTableRow(
            mention=row.mention.text,
            role=row.mention.role.value,
            match_mode=row.mention.match_mode.value,
            types=list(row.mention.types),
            links={
                label: [
                    LinkedNode(node_id=link.node_id, name=link.name, label=link.label, score=link.score)
                    for link in links
                ]
                for label, links in row.links.items()
            },
        )
        for row in table.rows
    ]


def _fusion_summary(state: PipelineState) -> dict[str, Any]:
    fusion = state.get("fusion")
    if fusion is None:
        return {}
    return {
        "mode": fusion.mode.value,
        "graph_weight": fusion.graph_weight,
        "k": fusion.k,
        "note": fusion.note,
        "policy": state.get("fusion_policy"),
    }


def _jsonable(params: Mapping[str, Any]) -> dict[str, Any]:
    """Parameters with long vectors shortened: results are for people and logs, Cypher keeps the full ones."""
    shown: dict[str, Any] = {}
    for key, value in params.items():
        if isinstance(value, list) and len(value) > 8 and all(isinstance(x, float) for x in value):
            shown[key] = f"<vector of {len(value)} floats>"
        elif isinstance(value, dict):
            shown[key] = _jsonable(value)
        else:
            shown[key] = value
    return shown
