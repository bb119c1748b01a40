"""The LangChain tools need only the GraspLike protocol: a stand-in with a schema and a search serves them."""

from __future__ import annotations

from typing import Any

from grasp_agent.errors import QuestionError
from grasp_agent.integrations.langchain_tool import GraspSearchTool
from grasp_agent.integrations.protocol import GraspLike
from grasp_agent.pipeline.results import SearchHit, SearchResult
from grasp_agent.skb.hpo import HPO_SCHEMA
from grasp_agent.skb.schema import SkbSchema


class StandIn:
    """A search over nothing but one scripted hit; no Neo4j, no pipeline."""

    schema: SkbSchema = HPO_SCHEMA
    driver: Any = None
    database = "neo4j"

    def search(self, question: str, k: int | None = None) -> SearchResult:
        if not question.strip():
            raise QuestionError("the question is empty")
        hit = SearchHit(
            rank=1,
            node_id="OMIM:619340",
            name="DEE96",
            label="Disease",
            score=1.0,
            text_rank=1,
            document="Disease: DEE96",
        )
        return SearchResult(question=question, hits=[hit][: k or 1])

    def paths(self, question: str, *, k: int | None = None) -> Any:
        raise NotImplementedError


def test_the_search_tool_reads_the_schema_and_searches_through_the_protocol() -> None:
    grasp: GraspLike = StandIn()
    tool = GraspSearchTool(grasp=grasp, default_k=3)
    assert "'hpo'" in tool.description and "Disease" in tool.description
    content, artifact = tool._run("Which disease?")
    assert content.startswith("[1] id=OMIM:619340 (text)") and artifact["hits"][0]["node_id"] == "OMIM:619340"
    assert "empty" in str(tool.invoke({"query": " "}))  # a refused question is the tool's answer, not a crash
