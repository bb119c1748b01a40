"""Runs a validated plan: embeds its anchors and relevance text, calls grasp.plan.execute, keeps the reason
when there is nothing to rank.

A described entity (a doc-mode anchor) is linked here when a `FieldSimilarity` is given: its document-index
candidates are rescored by the better of their document cosine and their cosine with their own text fields
(a phenotype's definition), and passed to grasp.plan.execute as bindings. A description is closest to what a
definition says, while the document also holds the name, synonyms and neighbour lists that dilute it: among
the top 10 documents of the benchmark's implicit train questions, the document cosine ranks the described term
first for 41 of 89, the better of document and definition for 83 (docs/benchmarks.md).

With a `LexicalScorer` (the text branch's BM25 index), the targets are rescored by the relevance text's words
too (`with_lexical`): the procedure's cosine reads what a text is about, but a question asking for "the one whose
description mentions photodysphoria" asks for a word, which a sentence embedding blurs. A relevance text none of
whose words any target's document holds ("what might explain ... in a patient") is dropped and the plan run again
without it (`text_grips`, reading the same word scores `lexical_order` uses): its cosine would order the matches
by the question's wording alone, and two wordings of one request would put different answers first.
"""

from __future__ import annotations

import copy
import dataclasses
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

import numpy as np
from neo4j.exceptions import ClientError

from grasp_agent.embed.base import GraspEmbedder
from grasp_agent.graph_branch.asking_sentence import without_asides
from grasp_agent.graph_branch.described_mentions import OwnTextSearch
from grasp_agent.graph_branch.name_dictionary import NameDictionary
from grasp_agent.graph_branch.phrases import folded_words
from grasp_agent.graph_branch.plan import Anchor, MatchMode, Plan
from grasp_agent.graph_branch.procedure_calls import CompiledPlan, GraphProcedures, NodeId, NodeLink, RankedNode
from grasp_agent.ranking import Risk

_WORD = re.compile(r"[^\W_]+")
# grasp.link's doc-mode defaults: 10 candidates per anchor, kept within 0.90 of the best score
DOC_LINKS = 10
DOC_TAU = 0.90


class LexicalScorer(Protocol):
    """BM25 of a text under each of some nodes' whole documents, divided by the best document's of the whole
    index: 0 for a node without any of its words, 1 for one as good as any."""

    def relative_document_scores(self, query: str, ids: Sequence[Any]) -> np.ndarray: ...


def content_words(text: str, frame_words: frozenset[str]) -> str:
    """The text's words that are not frame words (compared in lower case), joined by spaces (pure)."""
    return " ".join(word for word in _WORD.findall(text) if word.lower() not in frame_words)


def lexically_rescored(
    nodes: Sequence[RankedNode], bm25: Sequence[float] | np.ndarray, weight: float
) -> list[RankedNode]:
    """The nodes re-sorted by score + `weight` * their relative BM25 (pure). Exact matches stay ahead of partial
    ones, ties keep the procedure's order; nothing changes when no node holds a word. Relative to the whole
    index, not to these nodes: targets that share only a common word of the text gain little."""
    if weight <= 0.0 or max(bm25, default=0.0) <= 0.0:
        return list(nodes)
    rescored = [
        dataclasses.replace(node, score=node.score + weight * float(value), lexical_score=weight * float(value))
        for node, value in zip(nodes, bm25, strict=True)
    ]
    order = sorted(range(len(rescored)), key=lambda i: (not rescored[i].exact, -rescored[i].score, i))
    return [rescored[i] for i in order]


class FieldSimilarity(OwnTextSearch, Protocol):
    """The best cosine of a vector with each node's own text fields (a definition); None for a node without. And
    the nodes whose own text is closest to a vector (`OwnTextSearch`)."""

    def best_field_cosine(self, query_vector: np.ndarray, ids: Sequence[Any]) -> list[float | None]: ...


def rescored_bindings(
    links: Sequence[NodeLink],
    field_cosines: Sequence[float | None],
    tau: float = DOC_TAU,
    own_text: Sequence[tuple[Any, float]] = (),
) -> list[dict[str, Any]]:
    """A described entity's candidates as grasp.plan.execute bindings: each scored by the better of its document
    cosine and its best own-field cosine, best first (ties by id), kept within `tau` of the best. `own_text`:
    (id, own-field cosine) of the nodes whose own text is closest, which the document index may have missed."""
    by_id: dict[Any, float] = {}
    for link, cosine in zip(links, field_cosines, strict=True):
        by_id[link.node_id] = link.score if cosine is None else max(link.score, cosine)
    for node_id, cosine in own_text:
        by_id[node_id] = max(cosine, by_id.get(node_id, cosine))
    if not by_id:
        return []
    best = max(by_id.values())
    kept = sorted(
        ((node_id, score) for node_id, score in by_id.items() if score >= tau * best), key=lambda s: (-s[1], str(s[0]))
    )
    return [{"id": node_id, "score": score} for node_id, score in kept]


@dataclass(frozen=True)
class GraphRanking:
    nodes: tuple[RankedNode, ...] = ()
    reason: str | None = None  # why the ranking is empty (invalid plan, no match, budget exceeded)
    compiled: CompiledPlan | None = None  # the Cypher a user can paste into Neo4j Browser
    note: str | None = None  # how the targets were ranked when that differs from the plan (a dropped relevance text)
    # no target's text holds the question's words beyond the plan (its relevance text was dropped for that, or it
    # has none and the other words are in no target): they do not tell the targets apart, so the order `tie_order`
    # gave the targets scored alike is all the question says of them
    ties_settled: bool = False

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
    relax_below: int = 1  # soft constraints (grasp.plan.execute's relaxBelow, hierarchyDiscount, descendantCredit)
    hierarchy_discount: float = 0.8
    descendant_credit: float = 1.0
    # weight of the relevance text's relative BM25 added to the procedure's score (`lexically_rescored`)
    lexical_weight: float = 0.0
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
            "descendantCredit": self.descendant_credit,
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
        lexical: LexicalScorer | None = None,
        frame_words: frozenset[str] = frozenset(),
    ) -> None:
        self._procedures = procedures
        self._name_embedder = name_embedder
        self._doc_embedder = doc_embedder
        self._settings = settings or ExecutionSettings()
        self._field_similarity = field_similarity
        self._dictionary = dictionary
        self._lexical = lexical
        self._frame_words = frame_words

    def with_field_similarity(self, similarity: FieldSimilarity | None) -> PlanRunner:
        """The same runner, binding described entities by their own text fields too (None: by documents)."""
        runner = copy.copy(self)
        runner._field_similarity = similarity
        return runner

    def with_lexical(self, lexical: LexicalScorer | None) -> PlanRunner:
        """The same runner, rescoring targets by the relevance text's BM25 too (None: by the procedure alone)."""
        runner = copy.copy(self)
        runner._lexical = lexical
        return runner

    def anchor_vectors(self, plan: Plan) -> dict[str, list[float]]:
        """Each anchor's vector: a described entity's text by the document encoder; a name by the name encoder,
        as the node name it writes when the name dictionary knows it (a synonym, plural or lower-case symbol
        then links as its node's own name does)."""
        return {anchor.var: self._anchor_vector(anchor) for anchor in plan.anchors}

    def _anchor_vector(self, anchor: Anchor) -> list[float]:
        if anchor.match_mode is MatchMode.DOC:
            return self._doc_embedder.embed_query(anchor.text)
        return self._name_embedder.embed_query(self._anchor_name(anchor))

    def anchor_inputs(self, plan: Plan) -> dict[str, Any]:
        """What grasp.plan.execute links each anchor by: its vector; the nodes a name is the exact name or
        synonym of (the name dictionary's), alone; or (a described entity, with a field similarity) its rescored
        candidates."""
        inputs: dict[str, Any] = {}
        for anchor in plan.anchors:  # an exact name needs no vector: its bindings are known
            exact = self.exact_nodes(anchor.text, anchor.type) if anchor.match_mode is MatchMode.NAME else ()
            inputs[anchor.var] = [{"id": node_id, "score": 1.0} for node_id in exact] or self._anchor_vector(anchor)
        if self._field_similarity is None:
            return inputs
        for anchor in plan.anchors:
            if anchor.match_mode is not MatchMode.DOC:
                continue
            vector = inputs[anchor.var]
            links = self._procedures.link_many({anchor.var: vector}, [anchor.type], "doc", DOC_LINKS, 0.0)[anchor.var]
            if links:  # none: the vector, which links none either, keeps the server's message
                cosines = self._field_similarity.best_field_cosine(np.asarray(vector), [link.node_id for link in links])
                own = self._field_similarity.own_text_matches(
                    np.asarray(vector, dtype=np.float32)[None, :], DOC_LINKS, [anchor.type], texts=[anchor.text]
                )[0]
                inputs[anchor.var] = rescored_bindings(links, cosines, own_text=[(i, score) for i, _, score in own])
        return inputs

    def named_nodes(self, anchor: Anchor) -> tuple[NodeId, ...]:
        """The nodes a name anchor stands for: those it writes exactly (`exact_nodes`), else its best name link;
        () for a described anchor."""
        if anchor.match_mode is not MatchMode.NAME:
            return ()
        exact = self.exact_nodes(anchor.text, anchor.type)
        if exact:
            return exact
        links = self._procedures.link_many({anchor.var: self._anchor_vector(anchor)}, [anchor.type], "name", 1)
        return tuple(link.node_id for link in links[anchor.var])

    def exact_nodes(self, text: str, label: str) -> tuple[NodeId, ...]:
        """The nodes of `label` whose name `text` writes exactly, else those it is a synonym of: "Loeys-Dietz
        syndrome 2" is that node, not also its numbered siblings, whose names embed a hair's breadth away (cosine
        0.99)."""
        if self._dictionary is None:
            return ()
        entries = self._dictionary.lookup(text, label)
        named = [entry for entry in entries if not entry.from_synonym]
        return tuple(dict.fromkeys(entry.node_id for entry in named or entries))

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
        if question is not None:  # its asides ("Thanks a lot!") neither rescore the targets nor unsettle their ties
            question = without_asides(question, [anchor.text for anchor in plan.anchors])
        anchors = self.anchor_inputs(plan)
        relevance = self.relevance_vector(plan, question)
        note = None
        relevance_kept = True
        try:
            nodes = without_loops(
                self._procedures.execute(plan_json, anchors, relevance, self._settings.limit, self._settings.config())
            )
            words = self.word_scores(plan, nodes, question)
            if relevance is not None and nodes and not self.text_grips(plan, words):
                # The cosine with a text none of whose words any target's document holds ("what might explain
                # ... in a patient") ranks the targets by the question's wording: two wordings of one request
                # would put different answers first. Ranked as a plan without relevance text is.
                nodes = without_loops(
                    self._procedures.execute(plan_json, anchors, None, self._settings.limit, self._settings.config())
                )
                note = (
                    f"relevance text {self.relevance_text(plan, question)!r} dropped: no target's text holds its "
                    "words beyond the plan's names"
                )
                relevance_kept = False
        except ClientError as error:  # the procedure's own message: budget, bad input
            return GraphRanking(reason=_procedure_message(error))
        compiled = self.compile(plan, anchors) if with_cypher else None
        if plan.name_contains and nodes and not any(holds_name_terms(n.name, plan.name_contains) for n in nodes):
            # No target's name holds the keyword ("Which genetic conditions ..."): it orders nothing, and the
            # targets are ranked as the plan without it ranks them, so that this wording and a plain one agree.
            dropped = ", ".join(repr(term) for term in plan.name_contains)
            note = "; ".join(filter(None, (note, f"name keyword {dropped} dropped: no target's name holds it")))
            plan = plan.model_copy(update={"name_contains": ()})
        kept = self.lexical_order(plan, nodes, words) if relevance_kept else nodes
        kept = holders_first(self.tie_order(plan, kept), plan.name_contains)
        reason = None if kept else "the plan matches no node: no path joins the linked anchors to a target"
        settled = not relevance_kept or (relevance is None and not self.words_beyond_plan_held(plan, kept, question))
        return GraphRanking(tuple(kept), reason, compiled, note, ties_settled=settled)

    def word_scores(self, plan: Plan, nodes: Sequence[RankedNode], question: str | None = None) -> np.ndarray | None:
        """The relative BM25 of the relevance text's words beyond the plan (`words_beyond_plan`) under each
        target's document; None without a lexical scorer, targets or such words."""
        words = self.words_beyond_plan(plan, self.relevance_text(plan, question))
        if self._lexical is None or not nodes or not words:
            return None
        return self._lexical.relative_document_scores(" ".join(words), [node.node_id for node in nodes])

    def words_beyond_plan(self, plan: Plan, text: str) -> list[str]:
        """The text's content words that the plan does not account for: not frame words (a relation's name or
        "which" matches documents at random), nor words of an anchor's mention or node name. "... temper tantrums
        that occur more frequently compared to the temper tantrums that are seen?" repeats the anchor's name:
        rescored by it, the targets would be ordered by how often their text names the anchor, which the plain
        wording leaves to the anchors' tie order. A name keyword stays: "Which glutathione disorders ..." ranks
        the holders as a reading without the keyword ranks the targets, by that word."""
        named = " ".join(f"{anchor.text} {self._anchor_name(anchor)}" for anchor in plan.anchors)
        planned = {word.lower() for word in _WORD.findall(named)}
        return [word for word in _WORD.findall(content_words(text, self._frame_words)) if word.lower() not in planned]

    def text_grips(self, plan: Plan, word_scores: np.ndarray | None) -> bool:
        """Whether the relevance text's words beyond the plan occur in any of the targets' documents
        (`word_scores` above 0). True without a lexical scorer, or when the plan orders by a quantity (the
        relevance text does not rank then) or has no anchor (it is all that ranks then)."""
        if self._lexical is None or plan.order or not plan.anchors:
            return True
        return word_scores is not None and bool(np.max(word_scores, initial=0.0) > 0.0)

    def words_beyond_plan_held(self, plan: Plan, nodes: Sequence[RankedNode], question: str | None) -> bool:
        """Whether any target's document holds a content word of the question that the plan's anchors do not
        account for (`words_beyond_plan`): a plan without relevance text may have lost one ("... subdivision
        mentioning district?"), and then the text ranking, which reads it, should order what the graph scores
        alike. True when it cannot tell (no lexical scorer, no question)."""
        if self._lexical is None or not question:
            return True
        words = self.words_beyond_plan(plan, question)
        if not words or not nodes:
            return False
        scores = self._lexical.relative_document_scores(" ".join(words), [node.node_id for node in nodes])
        return bool(np.max(scores, initial=0.0) > 0.0)

    def tie_order(self, plan: Plan, nodes: list[RankedNode]) -> list[RankedNode]:
        """The targets with each run of equal scores ordered by how much their documents are about the anchors
        (`ties_by_anchor_text`): without it the procedure's order among them (by node id) is arbitrary, and a
        question's wording, through the text ranking, picks which right answer comes first."""
        if self._lexical is None or plan.order:
            return nodes  # a quantity orders them
        if not any(_same_score(a, b) for a, b in zip(nodes, nodes[1:], strict=False)):
            return nodes  # no tie: no need to score the anchors' text
        names = " ".join(self._tie_name(anchor, nodes) for anchor in plan.anchors).strip()
        if not names:
            return nodes
        return ties_by_anchor_text(nodes, self._lexical.relative_document_scores(names, [n.node_id for n in nodes]))

    def _tie_name(self, anchor: Anchor, nodes: Sequence[RankedNode]) -> str:
        """What an anchor's text counts as when ties are ordered: its node's name. A described anchor's node is
        the one the targets' witnesses bind it to most often: the clause's own words follow the wording ("something
        like supernumerary digits ..." and "postaxial hand polydactyly" would order one set of ties two ways)."""
        if anchor.match_mode is MatchMode.NAME:
            return self._anchor_name(anchor)
        return bound_name(anchor.var, nodes) or anchor.text

    def _anchor_name(self, anchor: Anchor) -> str:
        """The anchor's node name as the SKB writes it when the name dictionary knows it, else its text."""
        known = (
            self._dictionary.canonical_name(anchor.text, anchor.type)
            if self._dictionary is not None and anchor.match_mode is MatchMode.NAME
            else None
        )
        return known or anchor.text

    def lexical_order(self, plan: Plan, nodes: list[RankedNode], word_scores: np.ndarray | None) -> list[RankedNode]:
        """The targets rescored by their `word_scores` (`lexically_rescored`), unless the plan orders them by a
        quantity or there are no scores or no weight (a plan's name keywords still put their holders first:
        `holders_first`, after)."""
        weight = self._settings.lexical_weight
        if word_scores is None or weight <= 0.0 or plan.order:
            return nodes
        return lexically_rescored(nodes, word_scores, weight)

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


def ties_by_anchor_text(nodes: Sequence[RankedNode], anchor_bm25: Sequence[float] | np.ndarray) -> list[RankedNode]:
    """The nodes in the given order, except that each run of neighbours with equal scores (both exact or both
    not; scores rounded to 9 decimals) is ordered by `anchor_bm25` descending (the anchors' names under each
    node's document), ties kept in the given order (pure). "Which diseases does AXIN2 cause?": the disease named
    after the gene, and those with few genes besides, come before colorectal cancer, whatever the wording."""
    ordered: list[RankedNode] = []
    start = 0
    for end in range(1, len(nodes) + 1):
        if end < len(nodes) and _same_score(nodes[end], nodes[start]):
            continue
        run = sorted(range(start, end), key=lambda i: (-float(anchor_bm25[i]), i))
        ordered.extend(nodes[i] for i in run)
        start = end
    return ordered


def bound_name(var: str, nodes: Sequence[RankedNode]) -> str | None:
    """The name of the node the targets' witnesses bind `var` to most often (the first such in rank order on a
    tie), None when no witness binds it (pure)."""
    counts: dict[str, int] = {}
    for node in nodes:
        for step in node.witness:
            if step.get("var") == var and isinstance(name := step.get("name"), str) and name:
                counts[name] = counts.get(name, 0) + 1
                break
    return max(counts, key=lambda name: counts[name]) if counts else None


def holders_first(nodes: Sequence[RankedNode], terms: Sequence[str]) -> list[RankedNode]:
    """The nodes whose name holds every term (`holds_name_terms`) first, each group in the given order (pure):
    grasp.plan.execute returns them so, and a rescoring by the relevance text's words or a tie order must not
    undo it."""
    if not terms:
        return list(nodes)
    return sorted(nodes, key=lambda node: not holds_name_terms(node.name, terms))


def holds_name_terms(name: str | None, terms: Sequence[str]) -> bool:
    """Whether `name` holds every term at a word start, as grasp.plan.execute reads a plan's name_contains
    (NameTerms.holds): case- and accent-insensitive, punctuation read as spaces, "spastic" in "X-linked
    spastic ..." but not in "Nonspastic" (pure)."""
    if not terms:
        return True
    if name is None:
        return False
    folded = f" {folded_words(name)} "
    return all((word := folded_words(term)) and f" {word}" in folded for term in terms)


def _same_score(a: RankedNode, b: RankedNode) -> bool:
    return a.exact == b.exact and round(a.score, 9) == round(b.score, 9)


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
