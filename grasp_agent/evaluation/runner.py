"""Runs retrieval systems side by side on the same queries, in one process, and keeps every ranking.

Systems (names as `grasp eval --systems` takes them):
- `bm25`, `vss`, `hybrid` (BM25+VSS RRF): the text baselines on the whole node document;
- `text`: the mFAR multi-field text branch;
- `graph`: the graph branch alone (extract, link, plan, execute);
- `grasp`: both branches fused; `grasp+rerank`: fused, then reranked;
- `adapath`: AdaPath (Path-Bank meta-paths, guided beam search from the query's topic ids, or from its
  best-linked anchors when the file has none; end nodes ranked by their best path), `adapath-unguided`: the
  same search without meta-paths, `adapath-nobank`: meta-paths read off the GRASP planner's plan instead of the
  bank. `adapath` needs a Path-Bank (`grasp adapath build-bank`). Each also records its answer (the LLM's
  choice among the paths' ends, or the best path's end without an LLM) for exact match.

`graph`, `grasp` and `grasp+rerank` come from ONE pipeline run per query (they are its stages), timed by
the stages they include: graph = the graph branch's wall time, grasp = the parallel step plus fusion,
grasp+rerank = the whole run. A failure (planner error, timeout, a dead endpoint) is counted per system and
its ranking is empty: it is scored as a miss, never dropped.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from neo4j.exceptions import Neo4jError
from tqdm import tqdm

from grasp_agent.adapath.bank_store import BankStore
from grasp_agent.adapath.graph import MetaPathMode
from grasp_agent.api import Grasp
from grasp_agent.errors import GraspError
from grasp_agent.evaluation.query_sets import EvalQuery
from grasp_agent.pipeline.options import SearchOptions
from grasp_agent.pipeline.results import parallel_timing
from grasp_agent.pipeline.state import PipelineState
from grasp_agent.ranking import NodeId
from grasp_agent.text_branch.retriever import TextBranch, TextRanking

TEXT_BASELINES = ("bm25", "vss", "hybrid", "text")
PIPELINE_SYSTEMS = ("graph", "grasp", "grasp+rerank")
ADAPATH_SYSTEMS: dict[str, MetaPathMode] = {"adapath": "bank", "adapath-unguided": "none", "adapath-nobank": "planner"}
SYSTEMS = (*TEXT_BASELINES, *PIPELINE_SYSTEMS, *ADAPATH_SYSTEMS)
DEPTH = 100  # ranks kept per query: enough for R@50 and MRR


class EvaluationError(GraspError):
    """An evaluation cannot run as asked (unknown system, no queries, answers absent from the SKB)."""


@dataclass(frozen=True)
class QueryRun:
    """One system's answer to one query."""

    query_id: str
    ranked: tuple[NodeId, ...]
    latency_ms: float
    failure: str | None = None
    answer: str | None = None  # systems that answer in words (AdaPath): the answer's text
    stages_ms: dict[str, float] = field(default_factory=dict)  # per stage, where the system reports them


@dataclass
class SystemRuns:
    system: str
    runs: list[QueryRun] = field(default_factory=list)

    @property
    def failures(self) -> int:
        return sum(1 for run in self.runs if run.failure)


def check_systems(names: Sequence[str]) -> list[str]:
    unknown = [name for name in names if name not in SYSTEMS]
    if unknown or not names:
        raise EvaluationError(f"systems {list(names)} refused (unknown: {unknown}); allowed: {', '.join(SYSTEMS)}")
    return list(dict.fromkeys(names))


def missing_answers(queries: Sequence[EvalQuery], node_ids: Iterable[NodeId]) -> list[EvalQuery]:
    """Queries none of whose answer ids is a node of the loaded SKB (ids compare as text: STaRK's are ints)."""
    present = {str(node_id) for node_id in node_ids}
    return [query for query in queries if not present.intersection(query.answer_ids)]


def run_systems(
    grasp: Grasp,
    queries: Sequence[EvalQuery],
    systems: Sequence[str],
    *,
    options: SearchOptions | None = None,
    progress: bool = False,
    bank_exclusions: Mapping[str, Sequence[str]] | None = None,
) -> dict[str, SystemRuns]:
    """Every system's ranking (top `DEPTH`) of every query, in query order."""
    chosen = check_systems(systems)
    if not queries:
        raise EvaluationError("no queries to evaluate")
    text_branch = grasp.parts.text_branch
    if text_branch is None and any(name in TEXT_BASELINES for name in chosen):
        raise EvaluationError(f"text systems need the text branch: {grasp.parts.text_unavailable}")
    if "grasp+rerank" in chosen and grasp.parts.reranker is None:
        raise EvaluationError("grasp+rerank needs a reranker; GRASP_RERANKER is 'none'")
    if "adapath" in chosen and BankStore(grasp.parts.driver, grasp.parts.settings.neo4j_database).identity() is None:
        raise EvaluationError("adapath needs a Path-Bank in the database: run `grasp adapath build-bank --queries F`")
    results = {name: SystemRuns(name) for name in chosen}
    pipeline_options = (options or SearchOptions()).model_copy(
        update={
            "k": DEPTH,
            "with_cypher": False,
            "rerank": "grasp+rerank" in chosen,
            # scores must not depend on the load
            "rerank_budget_s": 0.0,
        }
    )
    for query in tqdm(queries, desc="evaluating", unit="query", disable=not progress):
        for name in chosen:
            if name in TEXT_BASELINES:
                assert text_branch is not None
                results[name].runs.append(_run_text(name, text_branch, query))
        for name in chosen:
            if name in ADAPATH_SYSTEMS:
                results[name].runs.append(_run_adapath(name, grasp, query, (bank_exclusions or {}).get(query.id, ())))
        if any(name in PIPELINE_SYSTEMS for name in chosen):
            hidden = tuple((bank_exclusions or {}).get(query.id, ()))
            query_options = (
                pipeline_options.model_copy(update={"exclude_examples": hidden}) if hidden else pipeline_options
            )
            for name, run in _run_pipeline(grasp, query, query_options).items():
                if name in results:
                    results[name].runs.append(run)
    return results


def _run_text(name: str, branch: TextBranch, query: EvalQuery) -> QueryRun:
    search: Callable[[str, int], TextRanking] = {
        "bm25": branch.bm25,
        "vss": branch.vss,
        "hybrid": branch.bm25_vss,
        "text": branch.search,
    }[name]
    start = time.perf_counter()
    try:
        ranking = search(query.text, DEPTH)
    except GraspError as error:
        return QueryRun(query.id, (), _since(start), f"{type(error).__name__}: {error}")
    return QueryRun(query.id, ranking.ids, _since(start))


def _run_adapath(name: str, grasp: Grasp, query: EvalQuery, hidden: Sequence[str]) -> QueryRun:
    start = time.perf_counter()
    try:
        result = grasp.paths(
            query.text,
            topic_ids=list(query.topic_ids) or None,
            meta_paths=ADAPATH_SYSTEMS[name],
            k=DEPTH,
            exclude_bank_queries=list(hidden),
        )
    except (GraspError, Neo4jError) as error:
        return QueryRun(query.id, (), _since(start), f"{type(error).__name__}: {error}")
    failure = "; ".join(result.failures) or (
        None if result.topics else "no topic node (" + "; ".join(result.notes) + ")"
    )
    return QueryRun(
        query.id,
        tuple(result.ranked_end_nodes)[:DEPTH],
        _since(start),
        failure,
        result.answer.text,
        dict(result.timings_ms),
    )


def _run_pipeline(grasp: Grasp, query: EvalQuery, options: SearchOptions) -> dict[str, QueryRun]:
    start = time.perf_counter()
    state: PipelineState = grasp.run(query.text, options)
    total = _since(start)
    graph_spans = state.get("graph_spans", {})
    spans = state.get("spans", {})
    graph = state.get("graph_ranking")
    graph_failure = state.get("graph_failure") or (graph.reason if graph is not None and not graph.nodes else None)
    branches = parallel_timing(graph_spans, spans.get("text"))
    graph_ms = branches.graph_ms if branches else sum(span.ms for span in graph_spans.values())
    fused_ms = (branches.wall_ms if branches else graph_ms) + (spans["fuse"].ms if "fuse" in spans else 0.0)
    fusion = state.get("fusion")
    final = state.get("final")
    fused = tuple(fusion.ids[:DEPTH]) if fusion is not None else ()
    reranked = tuple(final.ids[:DEPTH]) if final is not None else ()
    rerank_failure = _rerank_failure(state)
    return {
        "graph": QueryRun(
            query.id, tuple(graph.node_ids[:DEPTH]) if graph is not None else (), graph_ms, graph_failure
        ),
        "grasp": QueryRun(query.id, fused, fused_ms),  # type: ignore[arg-type]
        "grasp+rerank": QueryRun(query.id, reranked, total, rerank_failure),
    }


def _rerank_failure(state: PipelineState) -> str | None:
    notes = [note for note in state.get("notes", []) if note.startswith(("reranker", "documents unavailable"))]
    return notes[0] if notes else None


def _since(start: float) -> float:
    return (time.perf_counter() - start) * 1000.0
