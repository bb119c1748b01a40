"""The graph branch end to end: mentions -> entity table -> plan -> ranking, each stage timed."""

from __future__ import annotations

import copy
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Protocol

from neo4j import Driver

from grasp_agent.config import Settings
from grasp_agent.embed.base import GraspEmbedder
from grasp_agent.graph_branch.answer_types import find_prior
from grasp_agent.graph_branch.asked_type import find_model
from grasp_agent.graph_branch.described_mentions import DescribedMentionFinder, clause_frame
from grasp_agent.graph_branch.entity_table import EntityTable, build_entity_table
from grasp_agent.graph_branch.extraction_demos import DemoSelector, read_demos
from grasp_agent.graph_branch.heuristic_planner import HeuristicPlanner, frame_words
from grasp_agent.graph_branch.learned_loops import read_learned_loops
from grasp_agent.graph_branch.llm_mentions import LLMMentionExtractor
from grasp_agent.graph_branch.llm_planner import LLMPlanner, PlannerPrompt
from grasp_agent.graph_branch.mentions import Mention
from grasp_agent.graph_branch.name_dictionary import NameDictionary, read_name_dictionary
from grasp_agent.graph_branch.planning import Planner, PlanningOutcome
from grasp_agent.graph_branch.procedure_calls import GraphProcedures
from grasp_agent.graph_branch.ranking import (
    ExecutionSettings,
    FieldSimilarity,
    GraphRanking,
    LexicalScorer,
    PlanRunner,
    holds_name_terms,
)
from grasp_agent.graph_branch.route_reading import RouteReader
from grasp_agent.graph_branch.span_mentions import SpanMentionFinder
from grasp_agent.llm.base import GraspLLM
from grasp_agent.llm.errors import LLMError
from grasp_agent.skb.context import SkbContext, read_skb_context

# One name per stage everywhere: these timings keys, the pipeline's LangGraph nodes, SearchResult.stages_ms.
STAGES = ("extract", "link", "plan", "execute")
NAME_TOKENS = 64  # names are embedded at the truncation the loader used for name_embedding
PROMPT_KEY = "grasp.planner.prompt"  # GGUF metadata written by training.gguf_export


def extraction_demos(settings: Settings, context: SkbContext, embedder: GraspEmbedder) -> DemoSelector | None:
    """The LLM extractor's demonstrations of this SKB: from GRASP_EXTRACTION_DEMOS (which must exist), else from
    where `grasp train demos` writes them when it has; None when there are none or the count is 0."""
    path = settings.extraction_demos_path(context.schema.name)
    if settings.extraction_demo_count == 0 or (settings.extraction_demos is None and not path.is_file()):
        return None
    return DemoSelector(read_demos(path), embedder, settings.extraction_demo_count)


class MentionExtractor(Protocol):
    name: str

    def extract(self, question: str) -> list[Mention]: ...


@dataclass(frozen=True)
class GraphBranchResult:
    question: str
    mentions: tuple[Mention, ...]
    entity_table: EntityTable
    planning: PlanningOutcome
    ranking: GraphRanking
    timings_ms: dict[str, float] = field(default_factory=dict)
    notes: tuple[str, ...] = ()  # e.g. "LLM extraction failed; used name spans"


class GraphBranch:
    def __init__(
        self,
        procedures: GraphProcedures,
        context: SkbContext,
        doc_embedder: GraspEmbedder,
        extractor: MentionExtractor,
        planner: Planner,
        execution: ExecutionSettings | None = None,
        fallback_extractor: MentionExtractor | None = None,
        described: DescribedMentionFinder | None = None,
        dictionary: NameDictionary | None = None,
    ) -> None:
        self._procedures = procedures
        self._context = context
        self._doc_embedder = doc_embedder
        self._name_embedder = doc_embedder.with_max_tokens(NAME_TOKENS)
        self._extractor = extractor
        self._fallback = fallback_extractor
        self._described = described
        self._planner = planner
        self._dictionary = dictionary
        self._runner = PlanRunner(
            procedures,
            self._name_embedder,
            doc_embedder,
            execution,
            dictionary=dictionary,
            # the relevance text's keywords without the words that frame them ("whose *definition mentions* Y")
            frame_words=frame_words(context) | clause_frame(context.schema),
        )

    @property
    def context(self) -> SkbContext:
        return self._context

    @property
    def extractor(self) -> MentionExtractor:
        """What finds the question's mentions (the LLM extractor or the name-span finder)."""
        return self._extractor

    @property
    def dictionary(self) -> NameDictionary | None:
        """The loaded SKB's names and synonyms the extractor, entity table and runner read (None: off)."""
        return self._dictionary

    @property
    def planner(self) -> Planner:
        return self._planner

    @property
    def planner_name(self) -> str:
        return self._planner.name

    @property
    def procedures(self) -> GraphProcedures:
        return self._procedures

    @property
    def runner(self) -> PlanRunner:
        return self._runner

    @classmethod
    def build(
        cls,
        driver: Driver,
        settings: Settings,
        embedder: GraspEmbedder,
        llm: GraspLLM | None = None,
        skb_name: str | None = None,
        llm_extraction: bool = True,
        dictionary: NameDictionary | None = None,
    ) -> GraphBranch:
        """LLM planning when `llm` is given (with LLM extraction unless `llm_extraction` is off), else the
        name-span finder and the heuristic planner. `dictionary`: another branch's name dictionary of the same SKB,
        so it is read once (seconds for a large SKB); read here when GRASP_NAME_DICTIONARY is on and none is given."""
        procedures = GraphProcedures(driver, settings.neo4j_database)
        context = read_skb_context(driver, settings.neo4j_database, skb_name)
        if dictionary is None and settings.name_dictionary:
            dictionary = read_name_dictionary(procedures, context.schema, context.key_properties)
        spans = SpanMentionFinder(
            procedures,
            embedder.with_max_tokens(NAME_TOKENS),
            context.schema,
            dictionary=dictionary,
            max_spans=settings.mention_max_spans,
            budget_s=settings.mention_budget_s,
        )
        execution = ExecutionSettings(
            limit=settings.graph_top_k,
            timeout_ms=settings.graph_timeout_ms,
            max_rows=settings.graph_max_rows,
            dense_weight=settings.graph_dense_weight,
            relax_below=settings.graph_relax_below,
            hierarchy_discount=settings.graph_hierarchy_discount,
            descendant_credit=settings.graph_descendant_credit,
            question_fallback=settings.graph_relevance_fallback,
            lexical_weight=settings.graph_lexical_weight,
        )
        described = (
            DescribedMentionFinder(
                procedures,
                embedder,
                context.schema,
                settings.doc_anchor_min_score,
                quantities=[p for props in context.quantity_properties.values() for p in props],
                keys=[p for props in context.key_properties.values() for p in props],
                name_vocabulary=dictionary.vocabulary if dictionary is not None else None,
            )
            if settings.doc_anchors
            else None
        )
        if llm is None:
            answer_types = (
                find_prior(settings.answer_types_path(context.schema.name), context.schema.name)
                if settings.answer_type_prior
                else None
            )
            asked_type = (
                find_model(settings.asked_type_path(context.schema.name), context.schema.name)
                if settings.asked_type_model
                else None
            )
            planner: Planner = HeuristicPlanner(
                context,
                min_doc_anchor_score=settings.doc_anchor_min_score,
                answer_types=answer_types,
                name_vocabulary=dictionary.vocabulary if dictionary is not None else None,
                name_shares=dictionary.name_shares if dictionary is not None else None,
                asked_type=asked_type,
                learned_loops=read_learned_loops(procedures, context.schema.name) if settings.bank_loops else None,
                route_reader=(
                    RouteReader(context.schema, list(context.pattern_counts), embedder)
                    if settings.route_reading
                    else None
                ),
            )
            return cls(
                procedures, context, embedder, spans, planner, execution, described=described, dictionary=dictionary
            )
        prompt = planner_prompt(settings.llm_planner_prompt, llm)
        planner = LLMPlanner(llm, context, prompt=prompt)
        # A trained student learned on the span finder's entity tables: serve it the same kind.
        if not llm_extraction or prompt == "student":
            return cls(
                procedures, context, embedder, spans, planner, execution, described=described, dictionary=dictionary
            )
        return cls(
            procedures,
            context,
            embedder,
            LLMMentionExtractor(llm, context, extraction_demos(settings, context, embedder)),
            planner,
            execution,
            fallback_extractor=spans,
            described=described,
            dictionary=dictionary,
        )

    def run(self, question: str, *, with_cypher: bool = False) -> GraphBranchResult:
        timings: dict[str, float] = {}
        notes: list[str] = []
        with _timed(timings, "extract"):
            mentions = self.extract(question, notes)
        with _timed(timings, "link"):
            table = self.link(mentions)
        with _timed(timings, "plan"):
            outcome = self.plan(question, table)
        with _timed(timings, "execute"):
            ranking = self.execute(outcome, question=question, with_cypher=with_cypher)
        return GraphBranchResult(question, tuple(mentions), table, outcome, ranking, timings, tuple(notes))

    # The four stages, public so that the LangGraph pipeline can run (and time, and stream) each as a node.

    def extract(self, question: str, notes: list[str]) -> list[Mention]:
        """Typed mentions, plus doc-mode anchors for entities the question describes without naming; an LLM
        failure falls back to the name-span finder, with a note saying so."""
        try:
            mentions = self._extractor.extract(question)
        except LLMError as error:
            if self._fallback is None:
                raise
            notes.append(f"{self._extractor.name} extraction failed ({error}); used {self._fallback.name}")
            mentions = self._fallback.extract(question)
        return self._described.add(question, mentions) if self._described is not None else mentions

    def link(self, mentions: list[Mention]) -> EntityTable:
        return build_entity_table(
            mentions,
            self._procedures,
            self._name_embedder,
            self._context.labels,
            doc_embedder=self._doc_embedder,
            dictionary=self._dictionary,
            own_text=self._described.own_text if self._described is not None else None,
        )

    def plan(self, question: str, table: EntityTable, *, exclude_examples: Sequence[str] = ()) -> PlanningOutcome:
        return self._planner.plan(
            question, table, lambda plan: self._procedures.validate(plan.to_json()), exclude_examples=exclude_examples
        )

    def with_planner(self, planner: Planner) -> GraphBranch:
        """The same extraction, linking and execution with another planner."""
        branch = copy.copy(self)
        branch._planner = planner
        return branch

    def with_field_similarity(self, similarity: FieldSimilarity | None) -> GraphBranch:
        """The same branch, finding and binding described entities by their own text fields too (see
        `DescribedMentionFinder` and `PlanRunner`)."""
        branch = copy.copy(self)
        branch._runner = self._runner.with_field_similarity(similarity)
        if self._described is not None:
            branch._described = self._described.with_own_text(similarity)
        return branch

    def with_lexical(self, lexical: LexicalScorer | None) -> GraphBranch:
        """The same branch, rescoring targets by the relevance text's BM25 too (see `PlanRunner`)."""
        branch = copy.copy(self)
        branch._runner = self._runner.with_lexical(lexical)
        return branch

    def execute(
        self, outcome: PlanningOutcome, *, question: str | None = None, with_cypher: bool = False
    ) -> GraphRanking:
        """The plan's ranking; `question` rescores the targets when the plan has no relevance text. When no
        target matches the whole plan and the planner gave a fallback (the plan without the things named only
        around the sentence that asks, or without a route learned from training questions), the fallback's ranking
        when it finds any; for a learned route, also when the node its anchor names matches the fallback itself."""
        if outcome.plan is None:
            return GraphRanking(reason=outcome.reason or "no valid plan")
        ranking = self._runner.run(outcome.plan, question=question, with_cypher=with_cypher)
        if outcome.keyword_fallback is not None and not _holders(ranking, outcome.plan.name_contains):
            named = self._runner.run(outcome.keyword_fallback, question=question, with_cypher=with_cypher)
            if _holders(named, outcome.keyword_fallback.name_contains):
                return named
        matched = any(node.exact for node in ranking.nodes)
        if outcome.fallback is None or matched and outcome.looped_anchor is None:
            return ranking
        narrowed = self._runner.run(outcome.fallback, question=question, with_cypher=with_cypher)
        if not matched:
            return narrowed if narrowed.nodes else ranking
        # the plan matched along a learned route; the node the looped anchor names matching the rest itself is the
        # plainer reading ("the Rabin-Pappas disorders with upslanted palpebral fissures")
        looped = next(anchor for anchor in outcome.plan.anchors if anchor.var == outcome.looped_anchor)
        itself = set(self._runner.named_nodes(looped))
        return narrowed if any(node.exact and node.node_id in itself for node in narrowed.nodes) else ranking


def _holders(ranking: GraphRanking, terms: Sequence[str]) -> bool:
    """Whether a target of the ranking holds the name keywords (grasp.plan.execute ranks such targets first)."""
    return any(holds_name_terms(node.name, terms) for node in ranking.nodes)


def planner_prompt(setting: str, llm: GraspLLM) -> PlannerPrompt:
    """The setting, or for "auto" what the model's metadata says it was trained on (only GGUFs served by
    llama.cpp carry metadata; everything else gets the full prompt)."""
    if setting in ("full", "student"):
        return "student" if setting == "student" else "full"
    metadata = getattr(llm, "metadata", None)
    trained = metadata.get(PROMPT_KEY) if isinstance(metadata, dict) else None
    return "student" if trained == "student" else "full"


@contextmanager
def _timed(timings: dict[str, float], stage: str) -> Iterator[None]:
    start = time.perf_counter()
    try:
        yield
    finally:
        timings[stage] = (time.perf_counter() - start) * 1000.0
