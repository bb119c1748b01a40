"""GRASP's two fusion policies for a graph ranking and a text ranking (pure).

- static: one global graph weight w (text weight 1 - w) and one k for every query;
- dynamic: a per-query graph weight from the plan's n_cand bucket and risk, and whether the branches agree
  (see `tables`).

Both treat an EMPTY graph ranking as text-only: the graph branch had nothing to say (invalid plan, no anchor
match, budget exceeded), so the result is the text ranking in its order with its RRF scores 1 / (k + rank),
graph weight 0, and a note saying why. Each result item's `ranks` is (graph rank, text rank).

After either, `graph_lead_first` can keep the graph's first target first when its own score leads the graph's
second by a margin (`GRASP_FUSION_GRAPH_LEAD`, off by default): the one graph score rank fusion cannot see; and
`keyword_lead_first` keeps it first when it alone holds the relevance text's words (`GRASP_FUSION_KEYWORD_LEAD`,
on by default). First of all, `graph_ties_in_graph_order` keeps the targets the graph scores alike in the
graph's order among themselves: always with `GRASP_FUSION_GRAPH_TIES` (off by default), else when no target's
text holds the question's words beyond the plan (the graph ranking's `ties_settled`; `pipeline.nodes`).
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Sequence
from dataclasses import dataclass, replace
from enum import Enum

from grasp_agent.fusion.rrf import RRF_K, FusedItem, check_unit_weight, weighted_rrf
from grasp_agent.fusion.tables import AGREEMENT_DEPTH, BUCKET_LABELS, DynamicFusionTables, branches_agree, bucket_of
from grasp_agent.ranking import Risk


class FusionMode(str, Enum):
    HYBRID = "hybrid"
    TEXT_ONLY = "text_only"  # the graph ranking was empty


@dataclass(frozen=True)
class FusionResult:
    items: tuple[FusedItem, ...]
    graph_weight: float  # the weight actually used (0.0 when text-only)
    mode: FusionMode
    k: float
    note: str | None = None  # why the weight is what it is, for explanations and logs
    bucket: int | None = None  # dynamic fusion: index into BUCKET_LABELS
    risk: Risk | None = None  # dynamic fusion: the plan's risk
    asked_type: str | None = None  # the type the question asks for, when a type policy put it first (answer_type)

    @property
    def text_weight(self) -> float:
        return 1.0 - self.graph_weight

    @property
    def ids(self) -> list[Hashable]:
        return [item.id for item in self.items]


def _fuse(
    graph: Sequence[Hashable], text: Sequence[Hashable], graph_weight: float, k: float, limit: int | None
) -> tuple[FusedItem, ...]:
    return tuple(weighted_rrf([graph, text], [graph_weight, 1.0 - graph_weight], k, limit))


def _text_only(
    text: Sequence[Hashable], k: float, limit: int | None, wanted: float
) -> tuple[tuple[FusedItem, ...], str]:
    note = f"graph ranking is empty: text-only (graph weight 0.0 instead of {wanted:g})"
    return _fuse((), text, 0.0, k, limit), note


def static_fusion(
    graph: Sequence[Hashable], text: Sequence[Hashable], graph_weight: float, k: float = RRF_K, limit: int | None = None
) -> FusionResult:
    """RRF of the graph ranking (weight `graph_weight`) and the text ranking (weight 1 - `graph_weight`)."""
    check_unit_weight("graph weight", graph_weight)
    if not graph:
        items, note = _text_only(text, k, limit, graph_weight)
        return FusionResult(items, 0.0, FusionMode.TEXT_ONLY, k, note)
    hybrid_note = None if text else "text ranking is empty: graph order only"
    return FusionResult(_fuse(graph, text, graph_weight, k, limit), graph_weight, FusionMode.HYBRID, k, hybrid_note)


def dynamic_fusion(
    graph: Sequence[Hashable],
    text: Sequence[Hashable],
    n_cand: int,
    risk: Risk,
    tables: DynamicFusionTables | None = None,
    limit: int | None = None,
) -> FusionResult:
    """RRF with graph weight clip(w_bucket[bucket(n_cand)] * m_risk[risk] * m_agree[agreement], 0, 1) and the
    tables' k; agreement: the graph's first answer is among the text's first AGREEMENT_DEPTH."""
    tables = tables or DynamicFusionTables()
    bucket = bucket_of(n_cand)
    agreed = branches_agree(graph, text)
    weight = tables.graph_weight(n_cand, risk, agreed)
    if not graph:
        items, note = _text_only(text, tables.k, limit, weight)
        return FusionResult(items, 0.0, FusionMode.TEXT_ONLY, tables.k, note, bucket, risk)
    agreement = "agree" if agreed else "disagree"
    note = (
        f"n_cand {n_cand} in bucket {BUCKET_LABELS[bucket]}, risk {risk.value}, branches {agreement} (graph's first "
        f"{'in' if agreed else 'not in'} text's first {AGREEMENT_DEPTH}): min(1, {tables.w_bucket[bucket]:g} x "
        f"{tables.m_risk.of(risk):g} x {tables.m_agree.of(agreed):g}) = {weight:g}"
    )
    items = _fuse(graph, text, weight, tables.k, limit)
    return FusionResult(items, weight, FusionMode.HYBRID, tables.k, note, bucket, risk)


def graph_lead_first(
    result: FusionResult, graph: Sequence[Hashable], graph_scores: Sequence[float], lead: float
) -> FusionResult:
    """`result` with the graph's first target moved to the front when its score beats the graph's second by at
    least `lead` (or no second target exists). Rank fusion sees the graph's first two as ranks 1 and 2 however far
    apart their scores are: an exact binding against a near namesake's, a keyword only the first target's text
    holds; a lead that wide is the graph's own evidence, which the text's order should not overturn."""
    if not graph or len(graph_scores) != len(graph) or result.mode is not FusionMode.HYBRID:
        return result
    margin = graph_scores[0] - graph_scores[1] if len(graph_scores) > 1 else math.inf
    if margin < lead:
        return result
    shown = "no second target" if math.isinf(margin) else f"its second by {margin:.3f}"
    return _moved_to_front(result, graph[0], f"the graph's first target leads {shown} (>= {lead:g}): kept first")


def keyword_lead_first(
    result: FusionResult, graph: Sequence[Hashable], keyword_scores: Sequence[float]
) -> FusionResult:
    """`result` with the graph's first target moved to the front when it alone among the graph's targets holds
    the relevance text's words (`keyword_scores`: what those words added to each target's score, 0 where its text
    lacks them). "Which subtype of X has *treatment* in its definition?": every subtype meets the plan, one holds
    the word; the text ranking, which weighs the whole question, may prefer a sibling, and rank fusion sees the
    graph's first two only as ranks 1 and 2."""
    if not graph or len(keyword_scores) != len(graph) or result.mode is not FusionMode.HYBRID:
        return result
    if keyword_scores[0] <= 0.0 or any(score > 0.0 for score in keyword_scores[1:]):
        return result
    return _moved_to_front(
        result, graph[0], "the graph's first target alone holds the relevance text's words: kept first"
    )


def named_first(result: FusionResult, holders: Sequence[Hashable]) -> FusionResult:
    """`result` with the `holders` (the graph's targets whose name holds the plan's name keywords: "Which
    *spastic* diseases ...", 'diseases named "Usher"') ahead of every other target, each group in fused order. The
    question asks that of the answer's name; the text ranking, which cannot, must not put a target without it
    first."""
    wanted = set(holders)
    if not wanted or result.mode is not FusionMode.HYBRID:
        return result
    items = sorted(result.items, key=lambda item: item.id not in wanted)
    if list(items) == list(result.items):
        return result
    return _noted(result, items, "the targets whose name holds the plan's keywords kept first")


def _moved_to_front(result: FusionResult, first: Hashable, note: str) -> FusionResult:
    """`result` with `first` moved to the front and `note` added, unless it is first already or absent."""
    if not result.items or result.items[0].id == first or first not in result.ids:
        return result
    rest = [item for item in result.items if item.id != first]
    return _noted(result, [item for item in result.items if item.id == first] + rest, note)


def _noted(result: FusionResult, items: Sequence[FusedItem], note: str) -> FusionResult:
    """`result` with these items and `note` after any note it had."""
    return replace(result, items=tuple(items), note=f"{result.note}; {note}" if result.note else note)


def graph_ties_in_graph_order(
    result: FusionResult, graph: Sequence[Hashable], graph_scores: Sequence[float], decimals: int = 9
) -> FusionResult:
    """`result` with the targets the graph scores alike kept in the graph's order among themselves: the places
    such a block holds in the fused list stay where fusion put them, but the graph's order fills them. The graph
    branch orders such ties by how much each target's document is about the anchors; the text ranking's order
    among them follows the question's wording, so two wordings of one request would put different right
    answers first."""
    if not graph or len(graph_scores) != len(graph) or result.mode is not FusionMode.HYBRID:
        return result
    blocks: dict[float, list[Hashable]] = {}
    for node_id, score in zip(graph, graph_scores, strict=True):
        blocks.setdefault(round(score, decimals), []).append(node_id)
    block_of = {node_id: key for key, members in blocks.items() if len(members) > 1 for node_id in members}
    if not block_of:
        return result
    present = set(result.ids)
    queues = {key: [n for n in blocks[key] if n in present] for key in set(block_of.values())}
    by_id = {item.id: item for item in result.items}
    items = []
    for item in result.items:
        key = block_of.get(item.id)
        items.append(by_id[queues[key].pop(0)] if key is not None else item)
    if [item.id for item in items] == result.ids:
        return result
    return _noted(result, items, "targets the graph scores alike kept in the graph's order")


__all__ = [
    "FusionMode",
    "FusionResult",
    "dynamic_fusion",
    "graph_lead_first",
    "graph_ties_in_graph_order",
    "keyword_lead_first",
    "named_first",
    "static_fusion",
]
