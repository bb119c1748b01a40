"""The LangGraph state of a search: every stage's output and its wall-clock span.

Two schemas, because the graph branch is a subgraph that runs beside the text branch: its own keys (with
their own reducers) live in `GraphBranchState`; the parent receives them once, when the subgraph ends, as
plain values. Keys written by both branches in the same step (`spans`, `failures`) merge by reducer.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Annotated, TypedDict

from grasp_agent.fusion.policies import FusionResult
from grasp_agent.graph_branch.entity_table import EntityTable
from grasp_agent.graph_branch.mentions import Mention
from grasp_agent.graph_branch.planning import PlanningOutcome
from grasp_agent.graph_branch.ranking import GraphRanking
from grasp_agent.pipeline.options import SearchOptions
from grasp_agent.ranking import NodeId
from grasp_agent.rerank.documents import CandidateDocument
from grasp_agent.text_branch.retriever import TextRanking


@dataclass(frozen=True)
class StageSpan:
    """When a stage ran, in `time.perf_counter()` seconds (comparable within one process only)."""

    start: float
    end: float

    @property
    def ms(self) -> float:
        return (self.end - self.start) * 1000.0


@dataclass(frozen=True)
class FinalRanking:
    """The answer list: ids in final order, where each came from, and the documents read or shown."""

    ids: tuple[NodeId, ...]
    scores: tuple[float, ...]
    reranked: bool
    reranker: str | None  # model id, when the reranker ran
    rerank_order: tuple[NodeId, ...] = ()  # the reranker's own order of the fused head
    documents: Mapping[NodeId, CandidateDocument] | None = None


def merge(left: Mapping[str, object] | None, right: Mapping[str, object] | None) -> dict[str, object]:
    """Reducer for dicts written by parallel nodes: keys of the right update win."""
    return {**(left or {}), **(right or {})}


def append(left: list[str] | None, right: list[str] | None) -> list[str]:
    return [*(left or []), *(right or [])]


class GraphBranchState(TypedDict, total=False):
    question: str
    options: SearchOptions
    mentions: list[Mention]
    entity_table: EntityTable
    planning: PlanningOutcome
    graph_ranking: GraphRanking
    graph_notes: Annotated[list[str], append]
    graph_spans: Annotated[dict[str, StageSpan], merge]
    graph_failure: str  # set by the first graph stage that fails; later graph stages then do nothing


class PipelineState(TypedDict, total=False):
    question: str
    options: SearchOptions
    # graph branch (written once, by the subgraph)
    mentions: list[Mention]
    entity_table: EntityTable
    planning: PlanningOutcome
    graph_ranking: GraphRanking
    graph_notes: list[str]
    graph_spans: dict[str, StageSpan]
    graph_failure: str
    # text branch
    text_ranking: TextRanking
    text_failure: str
    # fusion and reranking
    fusion: FusionResult
    fusion_policy: str  # static or dynamic, as resolved for this call
    final: FinalRanking
    notes: Annotated[list[str], append]
    spans: Annotated[dict[str, StageSpan], merge]  # text, fuse, rerank (graph stages are in graph_spans)
