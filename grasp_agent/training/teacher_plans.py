"""Teacher plans for planner SFT, built and checked automatically from the Path-Bank (GRASP's SFT filter).

For each training question: its entity table (the span finder and linking the served student will see), then
candidate plans in order — one per meta-path the bank found between *this* question's topic and answers
(cheapest first; the heuristic's anchors, routed along that meta-path with its directions), then the heuristic
plan. The first candidate that validates and ranks a gold answer first when executed is kept, as in the paper,
and only for questions with at most `MAX_ANSWERS` answers. Each record is a chat prompt/completion pair (the
student prompt, the plan JSON) with its provenance, ready for `trl`'s SFT trainer.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from tqdm import tqdm

from grasp_agent.adapath.bank_planner import BankRoutes
from grasp_agent.adapath.bank_retrieval import RankedMetaPath, meta_path_from_row
from grasp_agent.adapath.metapath import MetaPath
from grasp_agent.adapath.statements import AdaPathCypher
from grasp_agent.errors import GraspError
from grasp_agent.evaluation.query_sets import EvalQuery
from grasp_agent.graph_branch.branch import GraphBranch
from grasp_agent.graph_branch.entity_table import EntityTable
from grasp_agent.graph_branch.heuristic_planner import HeuristicPlanner, SchemaRoutes
from grasp_agent.graph_branch.plan import Plan
from grasp_agent.graph_branch.prompts import student_messages
from grasp_agent.training.plan_reward import first_gold_rank

MAX_ANSWERS = 20  # the paper keeps teacher plans only for questions with at most 20 answers
MAX_OWN_META_PATHS = 5


@dataclass(frozen=True)
class Provenance:
    teacher: str  # "bank-own" (this question's own bank meta-path) or "heuristic"
    meta_path: str | None  # its signature, for bank-own
    gold_rank: int
    candidates: int  # nodes the plan's graph ranking returned
    answers: int
    tried: int  # candidate plans executed before this one passed (itself included)


@dataclass(frozen=True)
class TeacherExample:
    query_id: str
    question: str
    split: str | None
    messages: list[dict[str, str]]  # the student prompt
    plan: Plan
    provenance: Provenance

    def to_record(self) -> dict[str, Any]:
        """trl's conversational prompt-completion format, plus our fields."""
        return {
            "id": self.query_id,
            "question": self.question,
            "split": self.split,
            "prompt": self.messages,
            "completion": [{"role": "assistant", "content": self.plan.to_json()}],
            "provenance": asdict(self.provenance),
        }


def candidate_plans(
    question: str, table: EntityTable, heuristic: HeuristicPlanner, schema_routes: SchemaRoutes, own: Sequence[MetaPath]
) -> list[tuple[Plan, str, str | None]]:
    """(plan, teacher, meta-path signature): one per own meta-path, then the heuristic's; distinct plans."""
    found: dict[str, tuple[Plan, str, str | None]] = {}
    for meta_path in own[:MAX_OWN_META_PATHS]:
        routes = BankRoutes([RankedMetaPath(meta_path, 1.0, 1, 1, (), 1.0)], schema_routes)
        plan = heuristic.build(question, table, routes)
        if routes.used_bank:  # else no anchor starts where the meta-path does: the heuristic's plan below
            found.setdefault(plan.to_json(), (plan, "bank-own", meta_path.signature))
    plan = heuristic.build(question, table)
    found.setdefault(plan.to_json(), (plan, "heuristic", None))
    return list(found.values())


def student_prompt(branch: GraphBranch, question: str, table: EntityTable | None = None) -> list[dict[str, str]]:
    """The student prompt for `question` with the entity table a served student sees (span finder + linking)."""
    table = table if table is not None else branch.link(branch.extract(question, []))
    return [
        {"role": str(m["role"]), "content": str(m["content"])}
        for m in student_messages(question, table, branch.context)
    ]


class TeacherPlans:
    """Builds teacher examples against the live graph: `branch` links and executes, the bank gives the routes."""

    def __init__(self, branch: GraphBranch, cypher: AdaPathCypher) -> None:
        self._branch = branch
        self._cypher = cypher
        self._heuristic = HeuristicPlanner(branch.context)
        self._schema_routes = SchemaRoutes(branch.context)

    def own_meta_paths(self, query_id: str) -> list[MetaPath]:
        return [meta_path_from_row(row) for row in self._cypher.run("own_meta_paths", id=query_id)]

    def example(self, query: EvalQuery) -> TeacherExample | None:
        """The first candidate plan that validates and ranks a gold answer first; None when none does."""
        table = self._branch.link(self._branch.extract(query.text, []))
        candidates = candidate_plans(
            query.text, table, self._heuristic, self._schema_routes, self.own_meta_paths(query.id)
        )
        for tried, (plan, teacher, signature) in enumerate(candidates, start=1):
            if not self._branch.procedures.validate(plan.to_json()).valid:
                continue
            ranking = self._branch.runner.run(plan, question=query.text)
            if first_gold_rank(ranking.node_ids, query.answer_ids) == 1:
                provenance = Provenance(teacher, signature, 1, len(ranking.nodes), len(query.answer_ids), tried)
                messages = student_prompt(self._branch, query.text, table)
                return TeacherExample(query.id, query.text, query.split, messages, plan, provenance)
        return None

    def build(self, queries: Sequence[EvalQuery], progress: bool = False) -> Iterator[TeacherExample | None]:
        """One result per query, in order (None: more than MAX_ANSWERS answers, or no plan passed)."""
        for query in tqdm(queries, desc="teacher plans", unit="question", disable=not progress):
            yield self.example(query) if len(query.answer_ids) <= MAX_ANSWERS else None


def write_teacher_set(examples: Sequence[TeacherExample], path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w", encoding="utf-8") as out:
        for example in examples:
            out.write(json.dumps(example.to_record(), ensure_ascii=False) + "\n")


def read_teacher_set(path: Path) -> list[dict[str, Any]]:
    """The JSONL records, each checked to hold a prompt and a completion that parses as a plan."""
    records = []
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except OSError as error:
        raise GraspError(f"cannot read the teacher set {path}: {error}") from error
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            record = json.loads(line)
            Plan.model_validate_json(record["completion"][0]["content"])
            if not record["prompt"]:
                raise ValueError("empty prompt")
        except (ValueError, KeyError, IndexError, TypeError) as error:
            raise GraspError(f"{path}:{number}: not a teacher example ({error})") from error
        records.append(record)
    if not records:
        raise GraspError(f"{path} holds no teacher examples")
    return records
