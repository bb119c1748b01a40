"""Listwise training data for the reranker: gold answers and hard negatives from the fused pool.

Each training question runs through the live pipeline (both branches, fusion, no reranking); from the fused
top `pool` the gold answers are the positives and the `negatives` highest-ranked wrong candidates the hard
negatives, each with the query-aware document the reranker will read at search time. Questions without a
positive in the pool teach nothing listwise and are skipped (counted). Stored as JSONL, one question a line.
"""

from __future__ import annotations

import json
import random
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, Protocol

from tqdm import tqdm

from grasp_agent.errors import GraspError
from grasp_agent.evaluation.query_sets import EvalQuery
from grasp_agent.pipeline.options import PlannerName, SearchOptions
from grasp_agent.pipeline.state import PipelineState

POOL = 100  # fused candidates looked at per question
HARD_NEGATIVES = 30  # highest-ranked wrong candidates kept
GROUP_SIZE = 24  # 1 positive + 23 negatives per listwise group


class RerankDataError(GraspError):
    """Training data could not be built or read; the message names the file or the question."""


class PipelineRunner(Protocol):
    """`Grasp.run`: what the data builder needs of the pipeline."""

    def run(self, question: str, options: SearchOptions | None = None) -> PipelineState: ...


@dataclass(frozen=True)
class Candidate:
    node_id: str
    text: str
    fused_rank: int  # 1-based rank in the fused order


@dataclass(frozen=True)
class RerankQuestion:
    question: str
    split: str | None
    template: str | None
    positives: tuple[Candidate, ...]
    negatives: tuple[Candidate, ...]  # in fused order, best first


@dataclass(frozen=True)
class DataSummary:
    questions: int
    kept: int
    no_positive: int  # no gold answer in the fused pool
    no_negative: int  # every pooled candidate is gold
    failed: int  # the pipeline left no fused ranking (noted, not raised)
    positives: int
    negatives: int


def question_candidates(
    state: PipelineState, gold: Iterable[str], *, pool: int = POOL, negatives: int = HARD_NEGATIVES
) -> tuple[list[Candidate], list[Candidate]] | None:
    """(positives, hard negatives) of one pipeline run, or None when it has no fused ranking or documents."""
    final = state.get("final")
    if final is None or not final.ids:
        return None
    wanted = set(gold)
    documents = final.documents or {}
    positives: list[Candidate] = []
    wrong: list[Candidate] = []
    for rank, node_id in enumerate(final.ids[:pool], start=1):
        document = documents.get(node_id)
        if document is None:
            continue
        candidate = Candidate(str(node_id), document.text, rank)
        if str(node_id) in wanted:
            positives.append(candidate)
        elif len(wrong) < negatives:
            wrong.append(candidate)
    return positives, wrong


def build_rerank_data(
    runner: PipelineRunner,
    questions: Sequence[EvalQuery],
    *,
    planner: PlannerName | None = None,
    pool: int = POOL,
    negatives: int = HARD_NEGATIVES,
    progress: bool = False,
) -> tuple[list[RerankQuestion], DataSummary]:
    """Runs every question (fused order, no reranking) and keeps those with a positive in the pool."""
    options = SearchOptions(k=pool, rerank=False, planner=planner, with_cypher=False)
    kept: list[RerankQuestion] = []
    no_positive = no_negative = failed = 0
    for question in tqdm(questions, desc="reranker data", unit="question", disable=not progress):
        found = question_candidates(
            runner.run(question.text, options), question.answer_ids, pool=pool, negatives=negatives
        )
        if found is None:
            failed += 1
            continue
        positives, wrong = found
        if not positives:
            no_positive += 1
            continue
        if not wrong:  # every pooled candidate is gold: nothing to rank against
            no_negative += 1
            continue
        kept.append(RerankQuestion(question.text, question.split, question.template, tuple(positives), tuple(wrong)))
    summary = DataSummary(
        len(questions),
        len(kept),
        no_positive,
        no_negative,
        failed,
        sum(len(item.positives) for item in kept),
        sum(len(item.negatives) for item in kept),
    )
    return kept, summary


def write_rerank_data(path: Path, data: Iterable[RerankQuestion]) -> int:
    path.parent.mkdir(parents=True, exist_ok=True)
    count = 0
    with path.open("w", encoding="utf-8") as handle:
        for item in data:
            handle.write(json.dumps(asdict(item), ensure_ascii=False) + "\n")
            count += 1
    return count


def _candidates(raw: Any, where: str) -> tuple[Candidate, ...]:
    if not isinstance(raw, list):
        raise RerankDataError(f"{where}: expected a list of candidates")
    try:
        return tuple(Candidate(str(item["node_id"]), str(item["text"]), int(item["fused_rank"])) for item in raw)
    except (KeyError, TypeError, ValueError) as exc:
        raise RerankDataError(f"{where}: a candidate lacks node_id, text or fused_rank ({exc})") from exc


def read_rerank_data(path: Path) -> list[RerankQuestion]:
    if not path.is_file():
        raise RerankDataError(f"reranker data {path} does not exist; build it with `grasp train reranker --data-out`")
    data = []
    with path.open(encoding="utf-8") as handle:
        for number, line in enumerate(handle, start=1):
            if not line.strip():
                continue
            where = f"{path}:{number}"
            try:
                raw = json.loads(line)
                question = str(raw["question"])
            except (ValueError, KeyError, TypeError) as exc:
                raise RerankDataError(f"{where}: not a reranker data line ({exc})") from exc
            data.append(
                RerankQuestion(
                    question,
                    raw.get("split"),
                    raw.get("template"),
                    _candidates(raw.get("positives"), where),
                    _candidates(raw.get("negatives"), where),
                )
            )
    return data


@dataclass(frozen=True)
class ListwiseGroup:
    """One softmax group: the positive first, then negatives."""

    question: str
    documents: tuple[str, ...]


def listwise_groups(
    data: Sequence[RerankQuestion], rng: random.Random, *, group_size: int = GROUP_SIZE, max_positives: int = 2
) -> Iterator[ListwiseGroup]:
    """One group per positive (at most `max_positives` per question, drawn afresh each call, so questions with
    many answers do not dominate), its negatives drawn afresh from the question's hard negatives; other
    positives never serve as negatives. Groups come in a shuffled order."""
    if group_size < 2:
        raise RerankDataError(f"group size {group_size}; allowed: >= 2 (a positive and a negative)")
    groups = []
    for item in data:
        for positive in rng.sample(list(item.positives), min(max_positives, len(item.positives))):
            negatives = rng.sample(list(item.negatives), min(group_size - 1, len(item.negatives)))
            groups.append(ListwiseGroup(item.question, (positive.text, *(negative.text for negative in negatives))))
    rng.shuffle(groups)
    yield from groups


__all__ = [
    "GROUP_SIZE",
    "HARD_NEGATIVES",
    "POOL",
    "Candidate",
    "DataSummary",
    "ListwiseGroup",
    "RerankDataError",
    "RerankQuestion",
    "build_rerank_data",
    "listwise_groups",
    "question_candidates",
    "read_rerank_data",
    "write_rerank_data",
]
