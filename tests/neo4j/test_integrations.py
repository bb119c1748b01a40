"""How RAG apps call us: a LangGraph ReAct agent with our LangChain tool, and GraphRAG with our Retriever."""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from typing import Any

import pytest
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage, ToolMessage
from neo4j_graphrag.generation import GraphRAG
from neo4j_graphrag.llm.base import LLMInterfaceV2
from neo4j_graphrag.llm.types import LLMResponse
from neo4j_graphrag.types import LLMMessage

from grasp_agent.api import Grasp

pytestmark = pytest.mark.neo4j

QUESTION = "Which diseases present with epileptic spasms and are associated with the gene NSF?"
DEE96 = "OMIM:619340"


class ScriptedChatModel(GenericFakeChatModel):
    """langchain-core's fake chat model, plus the `bind_tools` a ReAct agent calls (it has nothing to bind)."""

    def bind_tools(self, tools: Sequence[Any], **kwargs: Any) -> ScriptedChatModel:
        return self


def test_a_react_agent_calls_the_tool_and_reads_the_ranking(grasp: Grasp) -> None:
    with warnings.catch_warnings():  # moved to langchain.agents in LangGraph 1.0; still the documented entry
        warnings.simplefilter("ignore", DeprecationWarning)
        from langgraph.prebuilt import create_react_agent

    tool = grasp.as_tool(k=3)
    assert tool.name == "grasp_search" and "Disease" in tool.description
    assert set(tool.args_schema.model_json_schema()["properties"]) == {"query", "k"}  # type: ignore[union-attr]
    model = ScriptedChatModel(
        messages=iter(
            [
                AIMessage(
                    content="",
                    tool_calls=[
                        {
                            "name": "grasp_search",
                            "args": {"query": QUESTION, "k": 3},
                            "id": "call-1",
                            "type": "tool_call",
                        }
                    ],
                ),
                AIMessage(content="Developmental and epileptic encephalopathy 96."),
            ]
        )
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        agent = create_react_agent(model, [tool])
    messages = agent.invoke({"messages": [("user", QUESTION)]})["messages"]
    tool_messages = [message for message in messages if isinstance(message, ToolMessage)]
    assert len(tool_messages) == 1 and tool_messages[0].status == "success"
    reply = tool_messages[0]
    assert str(reply.content).startswith(f"[1] id={DEE96}")
    assert reply.artifact["hits"][0]["node_id"] == DEE96 and len(reply.artifact["hits"]) == 3
    assert messages[-1].content == "Developmental and epileptic encephalopathy 96."


def test_a_bad_tool_call_is_refused_by_the_schema(grasp: Grasp) -> None:
    tool = grasp.as_tool()
    with pytest.raises(Exception, match="k"):
        tool.invoke({"query": QUESTION, "k": 0})


class RecordingLLM(LLMInterfaceV2):
    """A neo4j-graphrag LLM that answers from what it was given and keeps the prompt."""

    def __init__(self) -> None:
        super().__init__(model_name="recording")
        self.prompts: list[str] = []

    def invoke(self, input: list[LLMMessage], *, response_format: Any = None, **kwargs: Any) -> LLMResponse:
        prompt = "\n".join(message["content"] for message in input)
        self.prompts.append(prompt)
        return LLMResponse(content=f"answer from {prompt.count('Disease:')} disease documents")

    async def ainvoke(self, input: list[LLMMessage], *, response_format: Any = None, **kwargs: Any) -> LLMResponse:
        return self.invoke(input, response_format=response_format, **kwargs)


def test_the_retriever_works_inside_graphrag(grasp: Grasp) -> None:
    llm = RecordingLLM()
    rag = GraphRAG(retriever=grasp.as_retriever(), llm=llm)
    answer = rag.search(QUESTION, retriever_config={"top_k": 3}, return_context=True)
    items = answer.retriever_result.items
    assert len(items) == 3 and items[0].metadata["node_id"] == DEE96 and items[0].metadata["rank"] == 1
    assert items[0].content.startswith("Disease: Developmental and epileptic encephalopathy 96")
    assert answer.retriever_result.metadata["plan"]["target"]["type"] == "Disease"
    assert "Developmental and epileptic encephalopathy 96" in llm.prompts[0]
    assert answer.answer.startswith("answer from") and answer.answer != "answer from 0 disease documents"
