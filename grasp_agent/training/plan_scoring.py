"""Scoring plans against the live graph for planner training: execute a plan, fuse its graph ranking with the
question's text ranking (computed once per question and kept) exactly as searches fuse, and turn the result
into a reward observation (to estimate the reward table on valid) or a reward (for RFT and GRPO)."""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from dataclasses import dataclass, field

from neo4j.exceptions import Neo4jError

from grasp_agent.errors import GraspError
from grasp_agent.evaluation.query_sets import EvalQuery
from grasp_agent.graph_branch.branch import GraphBranch
from grasp_agent.graph_branch.plan import Plan, PlanError, parse_plan
from grasp_agent.graph_branch.planning import PlanningOutcome
from grasp_agent.pipeline.nodes import fuse_rankings
from grasp_agent.pipeline.options import SearchOptions
from grasp_agent.pipeline.parts import PipelineParts
from grasp_agent.pipeline.state import PipelineState
from grasp_agent.ranking import NodeId
from grasp_agent.text_branch.retriever import TextRanking
from grasp_agent.training.plan_reward import LOWEST, RewardObservation, RewardTable


@dataclass(frozen=True)
class ScoredPlan:
    graph: tuple[Hashable, ...] | None  # None: the plan did not parse, validate or execute
    fused: tuple[Hashable, ...]
    text: tuple[Hashable, ...]
    error: str | None = None


@dataclass
class PlanScorer:
    parts: PipelineParts
    branch: GraphBranch  # executes the plans (its planner is not used)
    _text: dict[str, tuple[NodeId, ...]] = field(default_factory=dict, init=False)

    def text_ranking(self, query: EvalQuery) -> tuple[NodeId, ...]:
        if query.id not in self._text:
            if self.parts.text_branch is None:
                raise GraspError(f"plan rewards need the text branch: {self.parts.text_unavailable}")
            self._text[query.id] = tuple(self.parts.text_branch.search(query.text, self.parts.settings.text_top_k).ids)
        return self._text[query.id]

    def score(self, query: EvalQuery, plan: Plan | str) -> ScoredPlan:
        """`plan` as a Plan or as the planner's raw answer (parsed here, like the LLM planner does)."""
        text = self.text_ranking(query)
        try:
            parsed = parse_plan(plan) if isinstance(plan, str) else plan
        except PlanError as error:
            return ScoredPlan(None, text, text, str(error))
        check = self.branch.procedures.validate(parsed.to_json())
        if not check.valid:
            return ScoredPlan(None, text, text, "; ".join(check.errors))
        try:
            ranking = self.branch.runner.run(parsed, question=query.text)
        except (GraspError, Neo4jError) as error:
            return ScoredPlan(None, text, text, str(error))
        state: PipelineState = {
            "question": query.text,
            "options": SearchOptions(),
            "graph_ranking": ranking,
            "text_ranking": TextRanking("cached", text, ()),
            "planning": PlanningOutcome("training", parsed),
        }
        fused = tuple(fuse_rankings(self.parts, state).ids)
        return ScoredPlan(tuple(ranking.node_ids), fused, text)

    def observation(self, query: EvalQuery, plan: Plan | str) -> RewardObservation | None:
        scored = self.score(query, plan)
        if scored.graph is None:
            return None
        return RewardObservation.from_rankings(scored.graph, scored.text, scored.fused, query.answer_ids)

    def reward(self, query: EvalQuery, plan: Plan | str, table: RewardTable) -> float:
        scored = self.score(query, plan)
        return LOWEST if scored.graph is None else table.reward_of_rankings(scored.graph, query.answer_ids)


def observations(
    scorer: PlanScorer, queries: Sequence[EvalQuery], branches: Sequence[GraphBranch], progress: bool = False
) -> list[RewardObservation]:
    """Every branch's plan for every query, scored (plans that fail are left out: the table is about what a
    working plan is worth; failing plans get the lowest reward by definition)."""
    from tqdm import tqdm

    found = []
    for query in tqdm(queries, desc="reward observations", unit="question", disable=not progress):
        table = branches[0].link(branches[0].extract(query.text, []))
        for branch in branches:
            plan = branch.plan(query.text, table).plan
            if plan is not None and (seen := scorer.observation(query, plan)) is not None:
                found.append(seen)
    return found
