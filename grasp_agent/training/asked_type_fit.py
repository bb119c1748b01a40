"""`grasp train asked-type`: fit the asked-type classifier (graph_branch.asked_type) on a question set's training
split, judge it on the valid split against the planner's own reading, and keep it only when it reads better.
On generated questions it is judged on wording it was not fitted on: each wording family of the valid split is
read by a model fitted on the train split's other families (a model that learns the generator's phrasings reads
its own valid split perfectly and people's questions no better).

Each question is read exactly as a search reads it (the graph branch's mention extraction and linking), so the
features at fitting time are the features at planning time. The label is the type of the question's answers.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from neo4j import Driver

from grasp_agent.adapath.statements import AdaPathCypher
from grasp_agent.evaluation.query_sets import EvalQuery
from grasp_agent.graph_branch.asked_type import (
    AskedTypeEvidence,
    AskedTypeModel,
    accuracy,
    fit_asked_type,
    majority_type,
    read_right,
    write_model,
)
from grasp_agent.graph_branch.branch import GraphBranch
from grasp_agent.graph_branch.entity_table import EntityTable
from grasp_agent.graph_branch.heuristic_planner import HeuristicPlanner
from grasp_agent.training.fit import SPLIT_NAMES, of_split

TRAIN = SPLIT_NAMES.get("train", ("train",))


@dataclass(frozen=True)
class ReadQuestion:
    """One question as the planner reads it: its evidence, the type its plan asks for without a model, and the
    type its answers have."""

    split: str | None
    evidence: AskedTypeEvidence
    planned: str
    answer_type: str
    wording: str | None = None  # the question's wording family (`level`), for judging on unseen wording


@dataclass(frozen=True)
class AskedTypeFit:
    model: AskedTypeModel
    train: int
    valid: int
    rule_valid: float  # the planner's own reading, on valid
    model_valid: float  # the fitted model, on valid
    written: Path | None  # None: not better than the planner's reading on valid, so not kept


def question_tables(
    branch: GraphBranch, queries: Sequence[EvalQuery], progress: Callable[[int, int], None] | None = None
) -> list[tuple[EvalQuery, EntityTable]]:
    """Each question's entity table, extracted and linked as a search does (read once, planned many ways)."""
    tables = []
    for done, query in enumerate(queries):
        tables.append((query, branch.link(branch.extract(query.text, []))))
        if progress is not None:
            progress(done + 1, len(queries))
    return tables


def read_questions(
    planner: HeuristicPlanner, tables: Sequence[tuple[EvalQuery, EntityTable]], labels: Mapping[str, str]
) -> list[ReadQuestion]:
    """Every question whose answers have a known type, as `planner` reads its table."""
    read: list[ReadQuestion] = []
    for query, table in tables:
        answer_type = majority_type(query.answer_ids, labels)
        if answer_type is not None:
            planned = planner.build(query.text, table).target.type
            evidence = planner.evidence(query.text, table)
            read.append(ReadQuestion(query.split, evidence, planned, answer_type, query.level))
    return read


def answer_labels(
    driver: Driver, database: str, node_labels: Sequence[str], queries: Sequence[EvalQuery]
) -> dict[str, str]:
    ids = sorted({answer for query in queries for answer in query.answer_ids})
    return {str(node_id): label for node_id, _, label in AdaPathCypher(driver, database).named_nodes(node_labels, ids)}


def fit_and_judge(
    skb: str,
    labels: Sequence[str],
    train: Sequence[ReadQuestion],
    valid: Sequence[ReadQuestion],
    out: Path,
    by_wording: bool = False,
) -> AskedTypeFit:
    """Fit on `train`; write to `out` only when the model reads `valid` better than the planner alone does.
    `by_wording`: each valid question is read by a model fitted on the train questions of other wording families
    (`held_out_wording_accuracy`); the model written is still fitted on all of `train`."""
    model = fit_asked_type(skb, [(q.evidence, q.answer_type) for q in train], labels)
    rule = sum(q.planned == q.answer_type for q in valid) / len(valid) if valid else 0.0
    if by_wording:
        learned = held_out_wording_accuracy(skb, labels, train, valid)
    else:
        learned = accuracy(model, [(q.evidence, q.answer_type) for q in valid])
    written = None
    if valid and learned > rule:
        write_model(out, model)
        written = out
    return AskedTypeFit(model, len(train), len(valid), rule, learned, written)


def held_out_wording_accuracy(
    skb: str, labels: Sequence[str], train: Sequence[ReadQuestion], valid: Sequence[ReadQuestion]
) -> float:
    """How often the valid questions are read right by a model fitted without their wording family: per family,
    a model of the other families' train questions (the rules read a family when every train question is of it)."""
    right = 0
    for wording in sorted({q.wording or "" for q in valid}):
        judged = [q for q in valid if (q.wording or "") == wording]
        others = [(q.evidence, q.answer_type) for q in train if (q.wording or "") != wording]
        if not others:
            right += sum(q.planned == q.answer_type for q in judged)
            continue
        right += read_right(fit_asked_type(skb, others, labels), [(q.evidence, q.answer_type) for q in judged])
    return right / len(valid) if valid else 0.0


def fit_asked_type_model(
    driver: Driver,
    database: str,
    branch: GraphBranch,
    queries: Sequence[EvalQuery],
    out: Path,
    progress: Callable[[int, int], None] | None = None,
) -> AskedTypeFit:
    """Read the train and valid splits of `queries` as a search would (`branch` must plan heuristically, without
    an asked-type model), fit on train, judge on valid."""
    planner = branch.planner
    if not isinstance(planner, HeuristicPlanner) or planner.has_asked_type_model:
        raise ValueError("the asked-type model is fitted on the heuristic planner's reading, without a model")
    chosen = [*of_split(queries, "train"), *of_split(queries, "valid")]
    labels = answer_labels(driver, database, branch.context.labels, chosen)
    tables = question_tables(branch, chosen, progress)
    return fit_on_tables(planner, tables, labels, out)


def fit_on_tables(
    planner: HeuristicPlanner,
    tables: Sequence[tuple[EvalQuery, EntityTable]],
    labels: Mapping[str, str],
    out: Path,
    by_wording: bool = False,
) -> AskedTypeFit:
    """`fit_and_judge` on questions already read: the train ones fit, the others judge."""
    read = read_questions(planner, tables, labels)
    train = [q for q in read if q.split in TRAIN]
    valid = [q for q in read if q.split not in TRAIN]
    if not train:
        raise ValueError("the question set has no train questions to fit the asked-type model on")
    return fit_and_judge(planner.context.schema.name, planner.context.labels, train, valid, out, by_wording)
