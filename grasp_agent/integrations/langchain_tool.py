"""GRASP as a LangChain tool: `Grasp.as_tool()` for agents (e.g. `langgraph.prebuilt.create_react_agent`).

The tool returns content and artifact: the content is the ranked hits as text for the model; the artifact is
the whole `SearchResult` as JSON (plan, Cypher, per-stage times) for the app, not for the prompt.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Literal

from langchain_core.callbacks import CallbackManagerForToolRun
from langchain_core.tools import BaseTool, ToolException
from pydantic import BaseModel, ConfigDict, Field

from grasp_agent.errors import QuestionError
from grasp_agent.integrations.formatting import result_text

if TYPE_CHECKING:
    from grasp_agent.integrations.protocol import GraspLike


class GraspSearchInput(BaseModel):
    query: str = Field(min_length=1, max_length=2000, description="The question, in natural language")
    k: int | None = Field(default=None, ge=1, le=50, description="How many ranked nodes to return")


class GraspSearchTool(BaseTool):
    model_config = ConfigDict(arbitrary_types_allowed=True)

    name: str = "grasp_search"
    description: str = ""
    args_schema: type[BaseModel] = GraspSearchInput
    response_format: Literal["content", "content_and_artifact"] = "content_and_artifact"
    grasp: Any = Field(exclude=True)  # a GraspLike (e.g. Grasp); Any keeps pydantic from inspecting it
    handle_tool_error: bool = True  # a refused question comes back as the tool's answer, not a crash
    default_k: int = 5

    def model_post_init(self, context: Any, /) -> None:
        if not self.description:
            grasp: GraspLike = self.grasp
            schema = grasp.schema
            types = ", ".join(node_type.label for node_type in schema.node_types)
            self.description = (
                f"Searches the '{schema.name}' knowledge graph (node types: {types}) for the nodes that answer a "
                "question, combining graph traversal from the entities it names with text search. Returns ranked "
                "nodes with their ids and descriptions."
            )

    def _run(
        self, query: str, k: int | None = None, run_manager: CallbackManagerForToolRun | None = None
    ) -> tuple[str, dict[str, Any]]:
        grasp: GraspLike = self.grasp
        try:
            result = grasp.search(query, k=k or self.default_k)
        except QuestionError as error:  # the agent reads why and can ask again
            raise ToolException(str(error)) from error
        return result_text(result), result.model_dump(mode="json")
