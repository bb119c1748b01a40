"""Runs a validated plan: embeds its anchors and relevance text, calls grasp.plan.execute, keeps the reason
when there is nothing to rank.

A described entity (a doc-mode anchor) is linked here when a `FieldSimilarity` is given: its document-index
candidates are rescored by the better of their document cosine and their cosine with their own text fields
(a phenotype's definition), and passed to grasp.plan.execute as bindings. A description is closest to what a
definition says, while the document also holds the name, synonyms and neighbour lists that dilute it: among
the top 10 documents of the benchmark's implicit train questions, the document cosine ranks the described term
first for 41 of 89, the better of document and definition for 83 (docs/benchmarks.md).
"""

from __future__ import annotations

import copy
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

import numpy as np
from neo4j.exceptions import ClientError

from grasp_agent.embed.base import GraspEmbedder
from grasp_agent.graph_branch.name_dictionary import NameDictionary
from grasp_agent.graph_branch.plan import MatchMode, Plan
from grasp_agent.graph_branch.procedure_calls import CompiledPlan, GraphProcedures, NodeLink, RankedNode
from grasp_agent.ranking import Risk

# grasp.link's doc-mode defaults: 10 candidates per anchor, kept within 0.90 of the best score
DOC_LINKS = 10
DOC_TAU = 0.90


class FieldSimilarity(Protocol):
    """The best cosine of a vector with each node's own text fields (a definition); None for a node without."""

    def best_field_cosine(self, query_vector: np.ndarray, ids: Sequence[Any]) -> list[float | None]: ...


def rescored_bindings(
    links: Sequence[NodeLink], field_cosines: Sequence[float | None], tau: float = DOC_TAU
) -> list[dict[str, Any]]:
    """A described entity's candidates as grasp.plan.execute bindings: each scored by the better of its document
    cosine and its best own-field cosine, best first (ties by id), kept within `tau` of the best."""
    scored = [
        (link.node_id, link.score if cosine is None else max(link.score, cosine))
        for link, cosine in zip(links, field_cosines, strict=True)
    ]
    if not scored:
        return []
    best = max(score for _, score in scored)
    kept = sorted(
        ((node_id, score) for node_id, score in scored if score >= tau * best), key=lambda s: (-s[1], str(s[0]))
    )
    return [{"id": node_id, "score": score} for node_id, score in kept]


@dataclass(frozen=True)
class GraphRanking:
    nodes: tuple[RankedNode, ...] = ()
    reason: str | None = None  # why the ranking is empty (invalid plan, no match, budget exceeded)
    compiled: CompiledPlan | None = None  # the Cypher a user can paste into Neo4j Browser

    @property
    def node_ids(self) -> list[Any]:
        return [node.node_id for node in self.nodes]

    @property
    def partial(self) -> bool:
        """True when no node matched the whole plan and these are ranked by the share of it they match."""
        return bool(self.nodes) and not any(node.exact for node in self.nodes)

    def fusion_risk(self, planned: Risk) -> Risk:
        """The risk dynamic fusion weighs this ranking by: the plan's own, or high when only part of the plan
        matched (the planner could not know its conjunction would find nobody)."""
        return Risk.HIGH if self.partial else planned


@dataclass(frozen=True)
class ExecutionSettings:
    """grasp.plan.execute's knobs (see its description); names as the procedure's config map spells them."""

    limit: int = 100
    timeout_ms: int = 5000
    max_rows: int = 200_000
    dense_weight: float = 1.0
    relax_below: int = 1  # soft constraints (grasp.plan.execute's relaxBelow, hierarchyDiscount)
    hierarchy_discount: float = 0.8
    # GRASP rescores by the question when the plan has no relevance_text; off by default (Settings says why)
    question_fallback: bool = False
    extra: dict[str, Any] = field(default_factory=dict)

    def config(self) -> dict[str, Any]:
        return {
            "timeoutMs": self.timeout_ms,
            "maxRows": self.max_rows,
            "denseWeight": self.dense_weight,
            "relaxBelow": self.relax_below,
            "hierarchyDiscount": self.hierarchy_discount,
            **self.extra,
        }


class PlanRunner:
    def __init__(
        self,
        procedures: GraphProcedures,
        name_embedder: GraspEmbedder,
        doc_embedder: GraspEmbedder,
        settings: ExecutionSettings | None = None,
        field_similarity: FieldSimilarity | None = None,
        dictionary: NameDictionary | None = None,
    ) -> None:
        self._procedures = procedures
        self._name_embedder = name_embedder
        self._doc_embedder = doc_embedder
        self._settings = settings or ExecutionSettings()
        self._field_similarity = field_similarity
        self._dictionary = dictionary

    def with_field_similarity(self, similarity: FieldSimilarity | None) -> PlanRunner:
        """The same runner, binding described entities by their own text fields too (None: by documents)."""
        runner = copy.copy(self)
        runner._field_similarity = similarity
        return runner

    def anchor_vectors(self, plan: Plan) -> dict[str, list[float]]:
        """Each anchor's vector: a described entity's text by the document encoder; a name by the name encoder,
        as the node name it writes when the name dictionary knows it (a synonym, plural or lower-case symbol
        then links as its node's own name does)."""
        vectors = {}
        for anchor in plan.anchors:
            if anchor.match_mode is MatchMode.DOC:
                vectors[anchor.var] = self._doc_embedder.embed_query(anchor.text)
                continue
            known = self._dictionary.canonical_name(anchor.text, anchor.type) if self._dictionary else None
            vectors[anchor.var] = self._name_embedder.embed_query(known or anchor.text)
        return vectors

    def anchor_inputs(self, plan: Plan) -> dict[str, Any]:
        """What grasp.plan.execute links each anchor by: its vector, or (a described entity, with a field
        similarity) its rescored candidates."""
        inputs: dict[str, Any] = dict(self.anchor_vectors(plan))
        if self._field_similarity is None:
            return inputs
        for anchor in plan.anchors:
            if anchor.match_mode is not MatchMode.DOC:
                continue
            vector = inputs[anchor.var]
            links = self._procedures.link_many({anchor.var: vector}, [anchor.type], "doc", DOC_LINKS, 0.0)[anchor.var]
            if links:  # none: the vector, which links none either, keeps the server's message
                cosines = self._field_similarity.best_field_cosine(np.asarray(vector), [link.node_id for link in links])
                inputs[anchor.var] = rescored_bindings(links, cosines)
        return inputs

    def relevance_text(self, plan: Plan, question: str | None = None) -> str:
        """What the targets are rescored by: the plan's relevance text, else the question (when given and the
        fallback is on), else nothing."""
        if plan.relevance_text.strip() or not self._settings.question_fallback:
            return plan.relevance_text.strip()
        return (question or "").strip()

    def relevance_vector(self, plan: Plan, question: str | None = None) -> list[float] | None:
        text = self.relevance_text(plan, question)
        return self._doc_embedder.embed_query(text) if text else None

    def run(self, plan: Plan, *, question: str | None = None, with_cypher: bool = False) -> GraphRanking:
        """Top `limit` targets by anchor + dense score (dense: cosine with the relevance text, or with `question`
        when the plan has none); an empty ranking with the server's reason when the plan fails at execution
        (budget exceeded, no binding)."""
        plan_json = plan.to_json()
        anchors = self.anchor_inputs(plan)
        try:
            nodes = self._procedures.execute(
                plan_json, anchors, self.relevance_vector(plan, question), self._settings.limit, self._settings.config()
            )
        except ClientError as error:  # the procedure's own message: budget, bad input
            return GraphRanking(reason=_procedure_message(error))
        compiled = self.compile(plan, anchors) if with_cypher else None
        kept = without_loops(nodes)
        reason = None if kept else "the plan matches no node: no path joins the linked anchors to a target"
        return GraphRanking(tuple(kept), reason, compiled)

    def compile(self, plan: Plan, anchors: dict[str, Any]) -> CompiledPlan:
        """The query execute ran, with the bindings it was given or grasp.link gives under the same defaults."""
        bindings = {}
        for anchor in plan.anchors:
            given = anchors[anchor.var]
            if given and isinstance(given[0], dict):
                bindings[anchor.var] = given
                continue
            links = self._procedures.link_many(
                {anchor.var: anchors[anchor.var]}, [anchor.type], anchor.match_mode.value, -1, -1.0
            )[anchor.var]
            bindings[anchor.var] = [{"id": link.node_id, "score": link.score} for link in links]
        return self._procedures.compile(plan.to_json(), bindings)


def _procedure_message(error: ClientError) -> str:
    """Neo4j wraps a procedure's exception as 'Failed to invoke procedure ...: Caused by: <Class>: <msg>'."""
    message = error.message or str(error)
    return message.rsplit("Exception: ", 1)[-1].strip()


def without_loops(nodes: Sequence[RankedNode]) -> list[RankedNode]:
    """The ranking without targets whose witness leads from the target back to itself (an anchor of the
    target's type, reached through a neighbour: a disease "shares a gene" with itself, but is not its own
    answer)."""
    return [
        node
        for node in nodes
        if not any(len(path) > 1 and path[0].get("id") == node.node_id for path in witness_paths(node.witness))
    ]


def witness_paths(witness: tuple[dict[str, Any], ...] | list[dict[str, Any]]) -> list[list[dict[str, Any]]]:
    """The witness split into one path per anchor: node, relationship, node, ...; a node right after a node
    starts the next anchor's path."""
    paths: list[list[dict[str, Any]]] = []
    for step in witness:
        is_node = "type" not in step
        if not paths or (is_node and paths[-1] and "type" not in paths[-1][-1]):
            paths.append([])
        paths[-1].append(step)
    return paths


def format_path(path: list[dict[str, Any]]) -> str:
    """'Epileptic spasm (Phenotype) <-[HAS_PHENOTYPE]- Developmental ... 96 (Disease)'."""
    parts = []
    for step in path:
        if "type" in step:
            arrow = step.get("direction", "->")
            parts.append(f"-[{step['type']}]->" if arrow == "->" else f"<-[{step['type']}]-")
        else:
            parts.append(f"{step.get('name') or step.get('id')} ({step.get('label', '?')})")
    return " ".join(parts)
