"""GRASP as a neo4j-graphrag `Retriever`, so it drops into `neo4j_graphrag.generation.GraphRAG`.

    rag = GraphRAG(retriever=grasp.as_retriever(), llm=llm)
    answer = rag.search("Which diseases present with epileptic spasms?", retriever_config={"top_k": 5})

Each record is one hit (node_id, name, label, score, rank, document); the formatter gives the LLM the
document and keeps the rest as metadata. The search's plan, Cypher, times and failures ride along in the
result's metadata.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import neo4j
from neo4j_graphrag.retrievers.base import Retriever
from neo4j_graphrag.types import RawSearchResult, RetrieverResultItem

if TYPE_CHECKING:
    from grasp_agent.integrations.protocol import GraspLike


class GraspRetriever(Retriever):
    def __init__(self, grasp: GraspLike) -> None:
        super().__init__(grasp.driver, grasp.database)
        self._grasp = grasp

    def get_search_results(self, query_text: str, top_k: int = 5) -> RawSearchResult:
        """The top_k GRASP hits for query_text."""
        result = self._grasp.search(query_text, k=top_k)
        rows = [
            {
                "node_id": hit.node_id,
                "name": hit.name,
                "label": hit.label,
                "score": hit.score,
                "rank": hit.rank,
                "document": hit.document,
            }
            for hit in result.hits
        ]
        records = [neo4j.Record(row) for row in rows]
        metadata = {
            "plan": result.plan,
            "cypher": result.cypher,
            "stages_ms": result.stages_ms,
            "failures": result.failures,
            "notes": result.notes,
        }
        return RawSearchResult(records=records, metadata=metadata)

    def default_record_formatter(self, record: neo4j.Record) -> RetrieverResultItem:
        content = record["document"] or f"{record['label'] or 'Node'}: {record['name']}"
        metadata = {key: record[key] for key in ("node_id", "name", "label", "score", "rank")}
        return RetrieverResultItem(content=content, metadata=metadata)
