"""Latency of the text branch's pieces, and the dense-index choice: an in-process matrix vs Neo4j's vector index.

For the document field (the one both hold) each query asks for the top k over every node type: the matrix
answers with one product over all rows; Neo4j with one `db.index.vector.queryNodes` per label's document
index, merged. Both are exact here only for the matrix (HNSW is approximate), so overlap@k is reported too.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from statistics import median

import numpy as np
from neo4j import Driver

from grasp_agent.embed.cache import CachedEmbedder
from grasp_agent.skb.schema import SkbSchema
from grasp_agent.text_branch.retriever import TextBranch

VECTOR_QUERY = "CALL db.index.vector.queryNodes($index, $k, $vector) YIELD node, score RETURN node.id AS id, score"


@dataclass(frozen=True)
class TimedMethod:
    name: str
    median_ms: float
    p90_ms: float


@dataclass(frozen=True)
class TextBenchReport:
    queries: int
    k: int
    methods: list[TimedMethod]
    document_overlap: float  # mean |matrix top k ∩ Neo4j top k| / k


def _timed(run: Callable[[str], object], questions: Sequence[str], repeats: int) -> list[float]:
    run(questions[0])  # warm-up: page-ins and first-call allocations stay out of the numbers
    times = []
    for question in questions:
        best = float("inf")
        for _ in range(repeats):
            start = time.perf_counter()
            run(question)
            best = min(best, (time.perf_counter() - start) * 1000.0)
        times.append(best)
    return times


def neo4j_document_top(driver: Driver, database: str, schema: SkbSchema, vector: np.ndarray, k: int) -> list[str]:
    found: list[tuple[float, str]] = []
    for node_type in schema.node_types:
        index = f"grasp_{node_type.label.lower()}_doc"
        records, _, _ = driver.execute_query(
            VECTOR_QUERY, index=index, k=k, vector=[float(x) for x in vector], database_=database, routing_="r"
        )
        found.extend((float(record["score"]), str(record["id"])) for record in records)
    return [node_id for _, node_id in sorted(found, key=lambda pair: -pair[0])[:k]]


def run_text_bench(
    branch: TextBranch,
    driver: Driver,
    database: str,
    schema: SkbSchema,
    questions: Sequence[str],
    k: int = 100,
    repeats: int = 3,
) -> TextBenchReport:
    embedder = branch.embedder
    encoder = embedder.inner if isinstance(embedder, CachedEmbedder) else embedder  # time the model, not the cache
    vectors = {question: np.asarray(embedder.embed_query(question), dtype=np.float32) for question in questions}
    dense = branch.dense
    assert dense is not None
    methods: dict[str, Callable[[str], object]] = {
        "query embedding (uncached)": lambda q: encoder.embed_texts([q]),
        "document top-k, matrix": lambda q: dense.search_document(vectors[q], k, relative=False),
        "document top-k, Neo4j vector indexes": lambda q: neo4j_document_top(driver, database, schema, vectors[q], k),
        "all dense fields, matrix": lambda q: dense.search(vectors[q], k),
        "BM25 document": lambda q: branch.bm25(q, k),
        "mFAR text branch, all keys (query vector cached)": lambda q: branch.search(q, k),
    }
    timed = [
        TimedMethod(name, median(times), float(np.percentile(times, 90)))
        for name, run in methods.items()
        for times in [_timed(run, questions, repeats)]
    ]
    overlaps = []
    for question in questions:
        matrix = set(map(str, dense.search_document(vectors[question], k, relative=False).ids))
        overlaps.append(len(matrix & set(neo4j_document_top(driver, database, schema, vectors[question], k))) / k)
    return TextBenchReport(len(questions), k, timed, float(np.mean(overlaps)))
