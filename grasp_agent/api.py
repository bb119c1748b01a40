"""The Python API: `Grasp.from_config().search("question")`, plus the LangChain tool and graphrag Retriever.

from grasp_agent import Grasp

with Grasp.from_config() as grasp:           # Settings from GRASP_* environment variables
    result = grasp.search("Which diseases present with epileptic spasms?", k=5)
    for hit in result.hits:
        print(hit.rank, hit.node_id, hit.name, hit.branches)
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Annotated, Any, Self

from neo4j import Driver
from pydantic import BaseModel, ConfigDict, Field, StrictInt, StrictStr

from grasp_agent.adapath.graph import MetaPathMode, assemble_path_parts, build_path_graph, run_path_graph
from grasp_agent.adapath.path_search import PathSearchOptions, Scorer
from grasp_agent.adapath.result import PathResult
from grasp_agent.config import Settings
from grasp_agent.db.connection import open_driver
from grasp_agent.embed.factory import make_embedder
from grasp_agent.llm.base import GraspLLM
from grasp_agent.llm.factory import make_llm
from grasp_agent.pipeline.configuration import SearchConfiguration
from grasp_agent.pipeline.graph import build_pipeline
from grasp_agent.pipeline.options import FusionName, PlannerName, SearchOptions
from grasp_agent.pipeline.parts import PipelineParts, assemble_parts
from grasp_agent.pipeline.results import SearchResult, search_result
from grasp_agent.pipeline.state import PipelineState
from grasp_agent.question_text import checked_question
from grasp_agent.skb.schema import SkbSchema

if TYPE_CHECKING:
    from grasp_agent.integrations.graphrag_retriever import GraspRetriever
    from grasp_agent.integrations.langchain_tool import GraspSearchTool
    from grasp_agent.integrations.path_tool import GraspPathTool


@dataclass(frozen=True)
class StageEvent:
    """One stage finished: its name, its wall time, and the state keys it wrote."""

    stage: str
    ms: float
    elapsed_ms: float  # since the search started
    update: dict[str, Any]


# An SKB id as the loader stores it: a non-empty string, or an integer Neo4j can hold (64 bits).
TopicId = (
    Annotated[StrictStr, Field(min_length=1, max_length=1000)] | Annotated[StrictInt, Field(ge=-(2**63), le=2**63 - 1)]
)
MAX_TOPIC_IDS = 1000  # far above any question's topics; a longer list is a caller's mistake


class PathArguments(BaseModel):
    """`Grasp.paths()`'s arguments, checked before any work as `SearchOptions` checks `search()`'s: a wrong type,
    an out-of-range k or an unknown mode is a ValidationError naming the argument, never a TypeError or an
    OverflowError from deep inside, nor a value silently read as something else (a string of ids as its letters)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    topic_ids: list[TopicId] | None = Field(default=None, max_length=MAX_TOPIC_IDS)
    meta_paths: MetaPathMode = "bank"
    scorer: Scorer | None = None
    k: StrictInt | None = Field(default=None, ge=1, le=1000, description="Paths to return (default: 100)")
    exclude_bank_queries: list[StrictStr] | None = None


class Grasp:
    """A GRASP search over one loaded SKB. Thread-safe for concurrent `search` calls on the same instance."""

    def __init__(self, parts: PipelineParts, *, driver: Driver | None = None, llm: GraspLLM | None = None) -> None:
        """Prefer `from_config`; `driver` and `llm`, when given, are closed by `close()`."""
        self.parts = parts
        self.pipeline = build_pipeline(parts)
        self.path_parts = assemble_path_parts(
            parts.driver, parts.settings, parts.embedder, llm, parts.graph_branch(None)
        )
        self.path_pipeline = build_path_graph(self.path_parts)
        self._driver = driver
        self._llm = llm

    @classmethod
    def from_config(
        cls, settings: Settings | None = None, *, skb_name: str | None = None, progress: bool = False, **overrides: Any
    ) -> Grasp:
        """Connects to the configured Neo4j (never starts one: `grasp db start` or `make demo` does), opens the
        SKB's indexes (building the text indexes on first use) and the configured models.

        `overrides` replace settings fields, e.g. `Grasp.from_config(llm="none", reranker="none")`.
        """
        settings = settings or Settings()
        if overrides:  # validated like any other value; only what was set explicitly is carried over
            explicit = {name: getattr(settings, name) for name in settings.model_fields_set}
            settings = Settings.model_validate({**explicit, **overrides})
        driver = open_driver(settings)
        llm = None
        try:
            llm = make_llm(settings)
            parts = assemble_parts(driver, settings, make_embedder(settings), llm, skb_name=skb_name, progress=progress)
        except BaseException:
            driver.close()
            if llm is not None:
                llm.close()
            raise
        return cls(parts, driver=driver, llm=llm)

    def options(
        self,
        k: int | None = None,
        *,
        fusion: FusionName | None = None,
        rerank: bool | None = None,
        rerank_k: int | None = None,
        planner: PlannerName | None = None,
    ) -> SearchOptions:
        return SearchOptions(k=k, fusion=fusion, rerank=rerank, rerank_k=rerank_k, planner=planner)

    def run(self, question: str, options: SearchOptions | None = None) -> PipelineState:
        """The finished pipeline state: every stage's raw output (what the UI draws from). An empty, over-long or
        non-Unicode question raises QuestionError before any work."""
        state: PipelineState = {"question": self._checked(question), "options": options or SearchOptions()}
        return self.pipeline.invoke(state)  # type: ignore[return-value]

    def search(
        self,
        question: str,
        k: int | None = None,
        *,
        fusion: FusionName | None = None,
        rerank: bool | None = None,
        rerank_k: int | None = None,
        planner: PlannerName | None = None,
    ) -> SearchResult:
        """The top `k` nodes for `question`. Branch, reranker and lookup failures are reported in
        `result.failures` / `result.notes`; they do not raise (a bad question raises QuestionError). `fusion`
        and `rerank` default to the configuration in force (`self.configuration`: fitted or packaged values,
        see pipeline.configuration)."""
        options = self.options(k, fusion=fusion, rerank=rerank, rerank_k=rerank_k, planner=planner)
        return search_result(self.run(question, options), options.k or self.parts.settings.result_k, self.configuration)

    def stream(self, question: str, options: SearchOptions | None = None) -> Iterator[StageEvent | SearchResult]:
        """A `StageEvent` as each stage ends (graph stages included), then the `SearchResult`."""
        options = options or SearchOptions()
        state: PipelineState = {"question": self._checked(question), "options": options}
        final: Any = dict(state)
        start = time.perf_counter()
        chunk: Any
        for namespace, mode, chunk in self.pipeline.stream(state, stream_mode=["updates", "values"], subgraphs=True):
            if mode == "values":
                if not namespace:
                    final = chunk  # the whole state after each top-level step; the last one is the answer
                continue
            for node, update in chunk.items():
                if node == "graph_branch":
                    continue  # the subgraph's output; each of its stages was reported as it ended
                span = ((update or {}).get("graph_spans") or (update or {}).get("spans") or {}).get(node)
                yield StageEvent(
                    node, span.ms if span else 0.0, (time.perf_counter() - start) * 1000.0, dict(update or {})
                )
        yield search_result(final, options.k or self.parts.settings.result_k, self.configuration)

    def paths(
        self,
        question: str,
        *,
        topic_ids: list[str | int] | None = None,
        meta_paths: MetaPathMode = "bank",
        scorer: Scorer | None = None,
        k: int | None = None,
        exclude_bank_queries: list[str] | None = None,
    ) -> PathResult:
        """AdaPath: paths from the question's topic nodes (`topic_ids`, else its best-linked anchors) that follow
        the meta-paths of similar training queries (the Path-Bank; `meta_paths="planner"` reads them off the GRASP
        plan instead, `"none"` searches unguided), and the answer the LLM reads off them. `scorer="llm"` lets the
        LLM pick each depth's frontier (the embedding scorer stands in, with a note, when no LLM is configured);
        `exclude_bank_queries` hides those bank queries (leave-template-out evaluation); an empty `topic_ids` is
        the same as None. Broken stages are in `result.failures`, shortfalls in `result.notes`; only bad arguments
        raise: a bad question QuestionError, the others pydantic's ValidationError (see PathArguments)."""
        arguments = PathArguments(
            topic_ids=topic_ids,
            meta_paths=meta_paths,
            scorer=scorer,
            k=k,
            exclude_bank_queries=exclude_bank_queries,
        )
        question = self._checked(question)
        notes = []
        wanted: Scorer = arguments.scorer or self.parts.settings.adapath_scorer
        if wanted == "llm" and self._llm is None:
            wanted = "embedding"
            notes.append("no LLM configured (GRASP_LLM): the embedding scorer chose the frontier")
        options = PathSearchOptions.from_settings(self.parts.settings, scorer=wanted, limit=arguments.k)
        result = run_path_graph(
            self.path_pipeline,
            question,
            topic_ids=arguments.topic_ids,
            mode=arguments.meta_paths,
            options=options,
            exclude_bank_queries=arguments.exclude_bank_queries or (),
        )
        return result.model_copy(update={"notes": [*notes, *result.notes]}) if notes else result

    def _checked(self, question: str) -> str:
        return checked_question(question, self.parts.settings.max_question_chars)

    @property
    def schema(self) -> SkbSchema:
        """The loaded SKB's schema (node and relation types)."""
        return self.parts.schema

    @property
    def driver(self) -> Driver:
        """The Neo4j driver searches run on."""
        return self.parts.driver

    @property
    def database(self) -> str:
        """The Neo4j database holding the SKB."""
        return self.parts.settings.neo4j_database

    @property
    def configuration(self) -> SearchConfiguration:
        """The fusion and reranking values searches use unless a call overrides them, each with its source."""
        return self.parts.configuration

    def as_tool(self, *, name: str = "grasp_search", k: int = 5) -> GraspSearchTool:
        """A LangChain `BaseTool` (args: query, k) for agents such as `langgraph.prebuilt.create_react_agent`."""
        from grasp_agent.integrations.langchain_tool import GraspSearchTool

        return GraspSearchTool(grasp=self, name=name, default_k=k)

    def as_path_tool(self, *, name: str = "adapath_paths", k: int = 10) -> GraspPathTool:
        """A LangChain `BaseTool` (args: question) answering from knowledge-graph paths (AdaPath)."""
        from grasp_agent.integrations.path_tool import GraspPathTool

        return GraspPathTool(grasp=self, name=name, default_k=k)

    def as_retriever(self) -> GraspRetriever:
        """A neo4j-graphrag `Retriever`, e.g. for `neo4j_graphrag.generation.GraphRAG(retriever, llm)`."""
        from grasp_agent.integrations.graphrag_retriever import GraspRetriever

        return GraspRetriever(self)

    def close(self) -> None:
        if self._llm is not None:
            self._llm.close()
        if self._driver is not None:
            self._driver.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
