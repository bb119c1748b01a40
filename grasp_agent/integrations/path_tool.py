"""AdaPath as a LangChain tool: `Grasp.as_path_tool()` answers from knowledge-graph paths.

Content (for the model): the answer and the numbered paths it rests on, each as `A -[REL]-> B`; artifact (for
the app): the whole `PathResult` as JSON (meta-paths, scores, timings).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Literal

from langchain_core.callbacks import CallbackManagerForToolRun
from langchain_core.tools import BaseTool, ToolException
from pydantic import BaseModel, ConfigDict, Field

from grasp_agent.adapath.result import PathResult
from grasp_agent.errors import QuestionError

if TYPE_CHECKING:
    from grasp_agent.integrations.protocol import GraspLike


class PathQuestionInput(BaseModel):
    question: str = Field(min_length=1, max_length=2000, description="The question, in natural language")


def path_text(result: PathResult, k: int) -> str:
    """The answer line, then up to `k` paths; an empty result says why."""
    if not result.paths:
        why = [*result.failures, *result.notes]
        return "No path found." + (f" ({'; '.join(why)})" if why else "")
    lines = [f"Answer: {result.answer.text} (id={result.answer.node_id})" if result.answer.text else "Answer: -"]
    lines += [f"[{number}] {path.text}" for number, path in enumerate(result.paths[:k], start=1)]
    return "\n".join(lines)


class GraspPathTool(BaseTool):
    model_config = ConfigDict(arbitrary_types_allowed=True)

    name: str = "adapath_paths"
    description: str = ""
    args_schema: type[BaseModel] = PathQuestionInput
    response_format: Literal["content", "content_and_artifact"] = "content_and_artifact"
    grasp: Any = Field(exclude=True)  # a GraspLike (e.g. Grasp); Any keeps pydantic from inspecting it
    handle_tool_error: bool = True  # a refused question comes back as the tool's answer, not a crash
    default_k: int = 10

    def model_post_init(self, context: Any, /) -> None:
        if not self.description:
            grasp: GraspLike = self.grasp
            schema = grasp.schema
            relations = ", ".join(relation.type for relation in schema.relation_types)
            self.description = (
                f"Answers a question about the '{schema.name}' knowledge graph by following relation paths "
                f"({relations}) from the entity it names, the kinds of path similar questions needed. Returns the "
                "answer and the paths that support it."
            )

    def _run(self, question: str, run_manager: CallbackManagerForToolRun | None = None) -> tuple[str, dict[str, Any]]:
        grasp: GraspLike = self.grasp
        try:
            result = grasp.paths(question, k=self.default_k)
        except QuestionError as error:  # the agent reads why and can ask again
            raise ToolException(str(error)) from error
        return path_text(result, self.default_k), result.model_dump(mode="json")
