"""The Path-Bank planner (`GRASP_PLANNER=pathbank`): plans whose hops are the meta-paths that the most similar
training questions followed. No LLM call: one question embedding and one vector query over the bank.

It keeps the heuristic planner's anchors (confident entity-table links), relevance text and candidate estimate,
and takes from the bank what the heuristic can only guess:
- the target type, when the question names none: the answer type of the best-voted meta-path that starts at
  an anchor's type;
- each anchor's route to the target: the best-voted meta-path from its type to the target type, with every
  hop's stored direction, so "subtypes of X" walks IS_A the way the training questions' answers lay. An anchor
  type the bank has no meta-path for keeps the schema's shortest path (noted); so does an anchor whose own
  words ask for its hierarchy ("subtypes of X", "X > subtype", as the heuristic reads them) when no voted meta-path walks it;
- risk: low when the target is named, the links are confident and every route comes from the bank (the
  heuristic's low risk also asks for routes of at most two hops; on the valid split trusting bank routes of
  any length took fused Hit@1 to 0.592, requiring half of the voters to agree gave 0.549).

Where it stands (docs/benchmarks.md): better than the heuristic on questions of kinds the bank has seen, worse
on kinds it has not (leave-template-out), because the nearest bank questions then vouch for the wrong route
and nothing in their similarity tells the two cases apart. The default planner therefore stays the heuristic.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace

from neo4j import Driver
from neo4j.exceptions import Neo4jError

from grasp_agent.adapath.bank_retrieval import RankedMetaPath, retrieve_meta_paths
from grasp_agent.adapath.metapath import MetaPath
from grasp_agent.embed.base import GraspEmbedder
from grasp_agent.errors import GraspError
from grasp_agent.graph_branch.entity_table import EntityTable
from grasp_agent.graph_branch.heuristic_planner import HeuristicPlanner, SchemaRoutes, checked_outcome
from grasp_agent.graph_branch.learned_loops import LearnedLoop
from grasp_agent.graph_branch.planning import PlanChecker, PlanningOutcome
from grasp_agent.graph_branch.schema_paths import SchemaHop, stored_child_to_parent
from grasp_agent.skb.context import SkbContext

BANK_QUERIES = 20  # nearest bank questions that vote (Settings.adapath_bank_queries)
META_PATHS = 20  # meta-paths read back; the start/answer-type choice is made among them here
MIN_VOTERS = 10  # bank questions that must share a route before it is followed


def schema_hops(meta_path: MetaPath) -> list[SchemaHop]:
    """A meta-path as the planner's hops: each step from the previous label, with its stored direction."""
    labels = [meta_path.start_label, *(step.label for step in meta_path.steps)]
    return [SchemaHop(labels[i], step.relation, labels[i + 1], step.outgoing) for i, step in enumerate(meta_path.steps)]


def walks_hierarchy_first(meta_path: MetaPath, cue: str) -> bool:
    """Whether the meta-path starts with a step along its start type's own hierarchy (a self-relation), the
    way the cue ("down" to subtypes, "up" to parents) asks when the relation's name says how it is stored."""
    first = meta_path.steps[0]
    if first.label != meta_path.start_label:
        return False
    child_to_parent = stored_child_to_parent(first.relation)
    return child_to_parent is None or first.outgoing == ((cue == "up") == child_to_parent)


def choose_route(fitting: Sequence[RankedMetaPath]) -> RankedMetaPath:
    """The meta-path with the most vote plus first-choice vote (each similar bank question counts once for
    every route it used and once more for its cheapest one), then the fewest hops. The bank keeps several
    paths per question, so a question whose answer is one hop away also "used" the detours to it, and
    neighbours of other kinds of question add theirs; only the direct route was its first choice.

    Chosen on the valid split (fused Hit@1 in-template / leave-template-out): vote alone 0.592 / 0.471,
    first choice alone 0.578 / 0.524, the sum 0.597 / 0.515 (the heuristic planner: 0.549)."""
    return max(fitting, key=lambda item: (item.vote + item.first_vote, -item.meta_path.hops))


@dataclass
class BankRoutes:
    """Routes read off the bank's vote; whatever the bank does not cover goes to the schema's routes."""

    found: Sequence[RankedMetaPath]
    fallback: SchemaRoutes
    notes: list[str] = field(default_factory=list)
    _backed: set[tuple[SchemaHop, ...]] = field(default_factory=set, init=False)  # routes the bank gave

    def default_target(self, anchor_labels: Sequence[str], frame: str = "") -> str:
        for item in self.found:
            if item.meta_path.start_label in anchor_labels:
                return item.meta_path.answer_label
        if self.found:
            return self.found[0].meta_path.answer_label
        return self.fallback.default_target(anchor_labels, frame)

    def path(
        self, anchor_label: str, target_label: str, context_words: str, *, cue: str | None = None
    ) -> list[SchemaHop] | None:
        fitting = [
            item
            for item in self.found
            if item.meta_path.start_label == anchor_label and item.meta_path.answer_label == target_label
        ]
        if fitting and cue is not None:
            # The mention's words ("subtypes of X") ask for X's hierarchy first: similar bank questions
            # that did not walk it vouch for the wrong route, so only routes that do are followed.
            fitting = [item for item in fitting if walks_hierarchy_first(item.meta_path, cue)]
            if not fitting:
                self.notes.append(
                    f"no bank meta-path from {anchor_label} walks its hierarchy {cue}, as the question "
                    "asks: schema path"
                )
                return self.fallback.path(anchor_label, target_label, context_words, cue=cue)
        if fitting:
            hops = schema_hops(choose_route(fitting).meta_path)
            self._backed.add(tuple(hops))
            return hops
        if self.found:  # an empty vote is noted once by the planner
            self.notes.append(f"the bank has no meta-path from {anchor_label} to {target_label}: shortest schema path")
        return self.fallback.path(anchor_label, target_label, context_words, cue=cue)

    def sure(self, path: Sequence[SchemaHop]) -> bool:
        return tuple(path) in self._backed

    def sure_target(self, anchor_labels: Sequence[str], frame: str, target: str) -> bool:
        return self.fallback.sure_target(anchor_labels, frame, target)

    def learned_loop(self, label: str) -> LearnedLoop | None:
        return self.fallback.learned_loop(label)

    @property
    def used_bank(self) -> bool:
        """Whether some anchor was routed along a bank meta-path."""
        return bool(self._backed)


class PathBankPlanner:
    name = "pathbank"

    def __init__(
        self,
        driver: Driver,
        database: str,
        embedder: GraspEmbedder,
        context: SkbContext,
        *,
        bank_queries: int = BANK_QUERIES,
    ) -> None:
        self._driver = driver
        self._database = database
        self._embedder = embedder
        self._heuristic = HeuristicPlanner(context)
        self._schema_routes = SchemaRoutes(context)
        self._bank_queries = bank_queries

    def plan(
        self, question: str, table: EntityTable, check: PlanChecker, *, exclude_examples: Sequence[str] = ()
    ) -> PlanningOutcome:
        """A bank-routed plan; when the bank cannot be read (none built, database error) the schema's routes,
        with the reason in the outcome's notes."""
        notes: list[str] = []
        try:
            found = self.meta_paths(question, exclude_examples)
        except (GraspError, Neo4jError) as error:
            notes.append(f"Path-Bank unavailable ({error}); schema routes")
            found = []
        if not found and not notes:
            notes.append("the Path-Bank returned no meta-path; schema routes")
        routes = BankRoutes(found, self._schema_routes)
        outcome = checked_outcome(self.name, self._heuristic.build(question, table, routes), check)
        return replace(outcome, notes=(*notes, *dict.fromkeys(routes.notes)))

    def meta_paths(self, question: str, exclude_examples: Sequence[str] = ()) -> list[RankedMetaPath]:
        """The bank's vote for the question, best first (no filter: the planner chooses among them)."""
        vector = self._embedder.embed_query(question)
        return retrieve_meta_paths(
            self._driver, self._database, vector, queries=self._bank_queries, limit=META_PATHS, exclude=exclude_examples
        )
