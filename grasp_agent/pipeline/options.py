"""Per-call knobs of a search; anything left None takes the value from `Settings`."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

FusionName = Literal["static", "dynamic"]
TypePolicyName = Literal["prior", "filter", "none"]
PlannerName = Literal["llm", "heuristic", "pathbank"]


class SearchOptions(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    k: int | None = Field(default=None, ge=1, le=1000, description="Results to return (default: result_k)")
    fusion: FusionName | None = Field(default=None, description="static or dynamic RRF (default: the configuration's)")
    type_policy: TypePolicyName | None = Field(
        default=None,
        description="Answers of the asked type: prior (first), filter (only) or none; default: GRASP_TYPE_POLICY",
    )
    rerank: bool | None = Field(
        default=None,
        description="Rerank the fused head (when a reranker is configured); "
        "default: only when the reranker measured a gain on valid (see pipeline.configuration)",
    )
    rerank_k: int | None = Field(default=None, ge=1, le=1000, description="Fused candidates the reranker reads")
    rerank_budget_s: float | None = Field(
        default=None,
        ge=0.0,
        le=3600.0,
        description="Seconds the reranker may score (0: unbounded); default: rerank_budget_s",
    )
    planner: PlannerName | None = Field(
        default=None,
        description="llm (the configured LLM), heuristic or pathbank (the Path-Bank's meta-paths); "
        "default: GRASP_PLANNER",
    )
    exclude_examples: tuple[str, ...] = Field(
        default=(),
        description="Training questions (Path-Bank ids) the planner must not use: leave-template-out evaluation",
    )
    with_cypher: bool = Field(default=True, description="Keep the compiled Cypher of the plan in the result")
