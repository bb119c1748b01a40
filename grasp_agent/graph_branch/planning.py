"""What a planner returns, whichever planner it is: the plan (or none, with the reason) and every attempt."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Protocol

from grasp_agent.graph_branch.entity_table import EntityTable
from grasp_agent.graph_branch.plan import Plan
from grasp_agent.graph_branch.procedure_calls import PlanCheck

PlanChecker = Callable[[Plan], PlanCheck]  # e.g. GraphProcedures.validate on the plan's JSON


@dataclass(frozen=True)
class PlanAttempt:
    """One try: the raw answer (LLM text or the heuristic's JSON), the sampling temperature, what was wrong."""

    raw: str
    temperature: float
    plan: Plan | None  # as validated: after the mechanical repairs
    errors: tuple[str, ...] = ()
    repairs: tuple[str, ...] = ()  # what plan_repair changed in the answer

    @property
    def valid_as_written(self) -> bool:
        return self.plan is not None and not self.errors and not self.repairs


@dataclass(frozen=True)
class PlanningOutcome:
    planner: str
    plan: Plan | None  # the first attempt that parsed and validated; None when all failed
    attempts: tuple[PlanAttempt, ...] = field(default=())
    reason: str | None = None  # why there is no plan (for the UI)
    notes: tuple[str, ...] = ()  # what the planner fell back on, e.g. the Path-Bank planner without a bank
    # the plan to run when `plan` matches no target whole: its anchors named only around the sentence that asks
    # set aside ("Leaving X aside for now. Which ...?"), validated
    fallback: Plan | None = None
    # the anchor (var) of `plan` that walks a route learned from training questions, not said by the question's
    # words: the fallback (the plan leaving it to the text) runs, too, when the node it names matches the rest of
    # the question itself ("the Rabin-Pappas disorders with P" asks for Rabin-Pappas syndrome, not its gene's others)
    looped_anchor: str | None = None
    # the plan to run when no target of `plan` holds its name keyword: the anchors the keyword holds set aside ("Which
    # Myopia disorders ...": Myopia is a phenotype and a word of the answer's name; "Myopia 6" is annotated with a
    # more specific term only, so the anchor kept out every target so named), validated
    keyword_fallback: Plan | None = None

    @property
    def parsed(self) -> bool:
        """Whether any attempt gave a well-formed plan."""
        return any(attempt.plan is not None for attempt in self.attempts)


class Planner(Protocol):
    name: str

    def plan(
        self, question: str, table: EntityTable, check: PlanChecker, *, exclude_examples: Sequence[str] = ()
    ) -> PlanningOutcome:
        """`exclude_examples`: ids of training questions the planner must not learn from for this question
        (leave-template-out evaluation of planners that retrieve examples, such as the Path-Bank planner)."""
