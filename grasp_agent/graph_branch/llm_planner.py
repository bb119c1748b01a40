"""The single-call LLM planner: greedy first, then up to two samples at temperature 0.7 when the answer
fails to parse or to validate. The JSON Schema is narrowed per question (this SKB's types and relations, the
entity table's anchors, the asked type) and mechanical slips are repaired (see plan_repair) before validation."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

from grasp_agent.graph_branch.entity_table import EntityTable
from grasp_agent.graph_branch.plan import PlanError, parse_plan, plan_json_schema
from grasp_agent.graph_branch.plan_repair import repair_plan
from grasp_agent.graph_branch.planning import PlanAttempt, PlanChecker, PlanningOutcome
from grasp_agent.graph_branch.prompts import planner_messages, student_messages
from grasp_agent.llm.base import GraspLLM
from grasp_agent.llm.errors import LLMError
from grasp_agent.skb.context import SkbContext

RETRY_TEMPERATURE = 0.7
RETRY_SAMPLES = 2
# A compact plan with 6 anchors and 14 hops is about 450 tokens; beyond that a small model is looping.
PLAN_MAX_TOKENS = 480


PlannerPrompt = Literal["full", "student"]


class LLMPlanner:
    """`prompt`: "full" (schema with counts, rules, fusion control, a worked example: for untrained models) or
    "student" (types and relations in a line each: for planners fine-tuned on it, `grasp train planner`)."""

    def __init__(
        self,
        llm: GraspLLM,
        context: SkbContext,
        retry_samples: int = RETRY_SAMPLES,
        retry_temperature: float = RETRY_TEMPERATURE,
        max_tokens: int = PLAN_MAX_TOKENS,
        prompt: PlannerPrompt = "full",
    ) -> None:
        self._llm = llm
        self._prompt = prompt
        self._context = context
        self._retries = retry_samples
        self._retry_temperature = retry_temperature
        self._max_tokens = max_tokens
        self.name = f"llm:{llm.model_id}"

    def plan(
        self, question: str, table: EntityTable, check: PlanChecker, *, exclude_examples: Sequence[str] = ()
    ) -> PlanningOutcome:
        compose = student_messages if self._prompt == "student" else planner_messages
        messages = compose(question, table, self._context)
        asked = [label for label in table.target_types() if label in self._context.labels]
        schema = plan_json_schema(
            self._context.labels,
            self._context.relations,
            table.anchor_choices(),
            asked or None,
            quantities=sorted({p for props in self._context.quantity_properties.values() for p in props}),
        )
        attempts: list[PlanAttempt] = []
        schedule = [0.0] + [self._retry_temperature] * self._retries
        for seed, temperature in enumerate(schedule):
            try:
                raw = self._llm.complete_json(
                    messages, schema, temperature=temperature, seed=seed, max_tokens=self._max_tokens
                )
            except LLMError as error:  # a dead endpoint will not recover within this question
                attempts.append(PlanAttempt("", temperature, None, (str(error),)))
                return PlanningOutcome(self.name, None, tuple(attempts), f"the planner LLM failed: {error}")
            try:
                plan = parse_plan(raw)
            except PlanError as error:
                attempts.append(PlanAttempt(raw, temperature, None, tuple(error.errors)))
                continue
            plan, repairs = repair_plan(plan, self._context.pattern_counts)
            verdict = check(plan)
            attempts.append(PlanAttempt(raw, temperature, plan, verdict.errors, tuple(repairs)))
            if verdict.valid:
                return PlanningOutcome(self.name, plan, tuple(attempts))
        last = attempts[-1]
        what = "validate" if last.plan is not None else "parse"
        return PlanningOutcome(
            self.name,
            None,
            tuple(attempts),
            f"no plan after {len(attempts)} attempts; the last did not {what}: " + "; ".join(last.errors),
        )
