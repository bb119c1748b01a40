"""`grasp bench extraction`: how well mention extractors find what a labelled question is about, linked through
the entity table as the graph branch links them: the share of gold topic nodes that some anchor row's best link
is, the share of questions with all of them, and the share whose target mention has the answers' type."""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from neo4j import Driver
from tqdm import tqdm

from grasp_agent.adapath.statements import AdaPathCypher
from grasp_agent.config import Settings
from grasp_agent.db.connection import open_driver
from grasp_agent.embed.factory import make_embedder
from grasp_agent.errors import ConfigError
from grasp_agent.evaluation.query_sets import EvalQuery
from grasp_agent.graph_branch.branch import GraphBranch
from grasp_agent.graph_branch.entity_table import EntityTable
from grasp_agent.graph_branch.extraction_demos import DemoSelector, read_demos
from grasp_agent.graph_branch.llm_mentions import LLMMentionExtractor
from grasp_agent.graph_branch.mentions import Mention, MentionRole
from grasp_agent.llm.errors import LLMError
from grasp_agent.llm.factory import make_llm


@dataclass(frozen=True)
class ExtractionScore:
    extractor: str
    questions: int
    topic_recall: float  # gold topic nodes that are an anchor row's best link / all gold topic nodes
    all_topics: float  # questions with every gold topic so linked
    target_type: float  # questions whose first target mention has the answers' type
    failures: int  # extractions that raised (unparsable or refused answers): nothing linked for them
    p50_ms: float


@dataclass(frozen=True)
class _Outcome:
    found: int
    topics: int
    typed: bool
    failed: bool
    ms: float


def score_extractor(
    name: str,
    extract: Callable[[str], list[Mention]],
    link: Callable[[list[Mention]], EntityTable],
    queries: Sequence[EvalQuery],
    answer_types: Mapping[str, str],
    progress: bool = False,
) -> ExtractionScore:
    """Runs `extract` then `link` on each query with topic ids; `answer_types`: query id -> its answers' type."""
    outcomes = []
    for query in tqdm(queries, desc=name, unit="q", disable=not progress):
        start = time.perf_counter()
        try:
            mentions = extract(query.text)
        except LLMError:
            mentions, failed = [], True
        else:
            failed = False
        ms = (time.perf_counter() - start) * 1000
        outcomes.append(_judge(query, link(mentions) if mentions else EntityTable(()), answer_types, failed, ms))
    return _summarise(name, outcomes)


def _judge(query: EvalQuery, table: EntityTable, answer_types: Mapping[str, str], failed: bool, ms: float) -> _Outcome:
    linked = {row.best.node_id for row in table.rows if row.mention.role is MentionRole.ANCHOR and row.best is not None}
    targets = [row.mention for row in table.rows if row.mention.role is MentionRole.TARGET]
    wanted = answer_types.get(query.id)
    typed = bool(targets) and wanted is not None and bool(targets[0].types) and targets[0].types[0] == wanted
    found = sum(str(topic) in linked for topic in query.topic_ids)
    return _Outcome(found, len(query.topic_ids), typed, failed, ms)


def _summarise(name: str, outcomes: Sequence[_Outcome]) -> ExtractionScore:
    count = len(outcomes)
    topics = sum(o.topics for o in outcomes)
    return ExtractionScore(
        extractor=name,
        questions=count,
        topic_recall=sum(o.found for o in outcomes) / topics if topics else 0.0,
        all_topics=sum(o.found == o.topics for o in outcomes) / count if count else 0.0,
        target_type=sum(o.typed for o in outcomes) / count if count else 0.0,
        failures=sum(o.failed for o in outcomes),
        p50_ms=statistics.median(o.ms for o in outcomes) if outcomes else 0.0,
    )


def run_extraction_bench(
    settings: Settings, queries: Sequence[EvalQuery], demos_path: Path | None = None, progress: bool = False
) -> list[ExtractionScore]:
    """Side by side in one run, on the queries with topic ids: the name-span finder, the LLM extractor with the
    fixed demonstrations only, and with this SKB's training demonstrations too (`demos_path`, default where
    LLM extraction reads them). Needs GRASP_LLM and a loaded SKB."""
    asked = [query for query in queries if query.topic_ids]
    if not asked:
        raise ValueError("no query has topic ids: nothing to score extraction against")
    llm = make_llm(settings)
    if llm is None:
        raise ConfigError("extraction benchmark needs an LLM: set GRASP_LLM=llama-cpp or GRASP_LLM=openai")
    try:
        with open_driver(settings) as driver:
            embedder = make_embedder(settings)
            branch = GraphBranch.build(driver, settings, embedder)
            context = branch.context
            path = demos_path or settings.extraction_demos_path(context.schema.name)
            if not path.is_file():
                raise ConfigError(f"no extraction demonstrations at {path}: run `grasp train demos --queries F` first")
            selector = DemoSelector(read_demos(path), embedder, max(1, settings.extraction_demo_count))
            answer_types = _answer_types(driver, settings.neo4j_database, context.labels, asked)
            extractors: list[tuple[str, Callable[[str], list[Mention]]]] = [
                ("name spans", branch.extractor.extract),
                (f"llm:{llm.model_id}", LLMMentionExtractor(llm, context).extract),
                (f"llm:{llm.model_id} + {len(selector)} demos", LLMMentionExtractor(llm, context, selector).extract),
            ]
            return [
                score_extractor(name, extract, branch.link, asked, answer_types, progress)
                for name, extract in extractors
            ]
    finally:
        llm.close()


def _answer_types(driver: Driver, database: str, labels: Sequence[str], queries: Sequence[EvalQuery]) -> dict[str, str]:
    """query id -> the one type all its answers have (queries whose answers differ in type are left out)."""
    ids = sorted({answer for query in queries for answer in query.answer_ids})
    label_of = {str(node_id): label for node_id, _, label in AdaPathCypher(driver, database).named_nodes(labels, ids)}
    types: dict[str, str] = {}
    for query in queries:
        kinds = {label_of.get(answer, "") for answer in query.answer_ids}
        if len(kinds) == 1 and "" not in kinds:
            types[query.id] = kinds.pop()
    return types
