"""Leave-template-out for the text branch's field weights: do they carry over to kinds of question they were not
trained on?

For each template T of the question set, weights are trained on the train split without T (early stopping on the
valid split without T) and scored on the test questions of T; beside them, the weights trained on every template
(in-template), the untrained starting point and BM25 over the whole document, on the same questions. Scores are
Hit@1 and MRR of each question's candidate ranking (a gold answer outside the candidates counts as a miss), so no
search is re-run per model. Nothing here reads the test split for training.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from grasp_agent.evaluation.query_sets import EvalQuery
from grasp_agent.ranking import hit_at, reciprocal_rank
from grasp_agent.text_branch.candidates import WeightExample
from grasp_agent.text_branch.field_weights import (
    FieldWeightModel,
    TrainConfig,
    candidate_rankings,
    prior_bias,
    train_field_weights,
)
from grasp_agent.text_branch.fields import TextBranchError
from grasp_agent.text_branch.multifield import FieldKey
from grasp_agent.text_branch.retriever import TextBranch
from grasp_agent.training.fit import SPLIT_NAMES, of_split


@dataclass(frozen=True)
class RankScores:
    hit_at_1: float
    mrr: float

    @classmethod
    def mean(cls, hits: Sequence[float], reciprocal_ranks: Sequence[float]) -> RankScores:
        return cls(float(np.mean(hits)) if hits else 0.0, float(np.mean(reciprocal_ranks)) if hits else 0.0)


@dataclass(frozen=True)
class TemplateRow:
    template: str
    questions: int  # test questions of the template
    untrained: RankScores
    in_template: RankScores  # weights trained on every template
    held_out: RankScores  # weights trained without this template
    bm25: RankScores  # whole-document BM25


@dataclass(frozen=True)
class LeaveTemplateOut:
    keys: tuple[FieldKey, ...]
    rows: tuple[TemplateRow, ...]

    def overall(self, column: str) -> RankScores:
        """The question-weighted mean of one column ("untrained", "in_template", "held_out", "bm25")."""
        total = sum(row.questions for row in self.rows)
        if not total:
            return RankScores(0.0, 0.0)
        scores = [(row.questions, getattr(row, column)) for row in self.rows]
        return RankScores(sum(n * s.hit_at_1 for n, s in scores) / total, sum(n * s.mrr for n, s in scores) / total)

    def below_bm25(self) -> list[str]:
        """Templates whose held-out Hit@1 is below whole-document BM25's."""
        return [row.template for row in self.rows if row.held_out.hit_at_1 < row.bm25.hit_at_1]


def candidate_scores(model: FieldWeightModel, examples: Sequence[WeightExample]) -> RankScores:
    """Hit@1 and MRR of `model`'s ranking of each example's candidates."""
    rankings = candidate_rankings(model, examples)
    golds = [set[Hashable](example.gold) for example in examples]
    return RankScores.mean(
        [hit_at(ids, gold, 1) for ids, gold in zip(rankings, golds, strict=True)],
        [reciprocal_rank(ids, gold) for ids, gold in zip(rankings, golds, strict=True)],
    )


def bm25_scores(branch: TextBranch, questions: Sequence[EvalQuery], k: int = 100) -> dict[str, tuple[float, float]]:
    """Per question id, (hit@1, reciprocal rank) of whole-document BM25's top `k`."""
    found = {}
    for question in questions:
        ranked = list(branch.bm25(question.text, k).ids)
        gold = set[Hashable](question.answer_ids)
        found[question.id] = (hit_at(ranked, gold, 1), reciprocal_rank(ranked, gold))
    return found


def run_leave_template_out(
    branch: TextBranch,
    questions: Sequence[EvalQuery],
    config: TrainConfig | None = None,
    prior: Mapping[FieldKey, float] | None = None,
    progress: Callable[[str], None] | None = None,
) -> LeaveTemplateOut:
    """The protocol on `branch`: every question's candidates and the test questions' BM25 results, then
    `leave_template_out`."""
    examples = branch.weight_examples([q.text for q in questions], [q.answer_ids for q in questions])
    bm25 = bm25_scores(branch, of_split(questions, "test"))
    return leave_template_out(questions, examples, bm25, branch.keys, branch.model_id, config, prior, progress)


def leave_template_out(
    questions: Sequence[EvalQuery],
    examples: Sequence[WeightExample],
    bm25: Mapping[str, tuple[float, float]],
    keys: Sequence[FieldKey],
    model_id: str,
    config: TrainConfig | None = None,
    prior: Mapping[FieldKey, float] | None = None,
    progress: Callable[[str], None] | None = None,
) -> LeaveTemplateOut:
    """The protocol on precomputed candidates (`examples[i]` belongs to `questions[i]`) and BM25 results."""
    if len(questions) != len(examples):
        raise TextBranchError(f"{len(questions)} questions but {len(examples)} candidate sets")
    config = config or TrainConfig()

    def of(split: str, template: str | None = None, *, only: bool = False) -> list[WeightExample]:
        """The split's examples: all, without `template`, or (`only`) of `template` alone."""
        names = SPLIT_NAMES.get(split, (split,))
        return [
            example
            for question, example in zip(questions, examples, strict=True)
            if question.split in names and (template is None or (question.template == template) == only)
        ]

    templates = sorted({q.template for q in questions if q.template and q.split == "test"})
    if not templates:
        raise TextBranchError("leave-template-out needs test questions with a template")
    every, _ = train_field_weights(of("train"), of("valid"), keys, model_id, config, prior)
    dimension = every.dimension
    start = FieldWeightModel(
        tuple(keys),
        np.zeros((len(keys), dimension), np.float32),
        prior_bias(keys, prior) if prior else np.zeros(len(keys), np.float32),
        model_id,
    )
    rows = []
    for template in templates:
        if progress is not None:
            progress(template)
        held, _ = train_field_weights(of("train", template), of("valid", template), keys, model_id, config, prior)
        test = of("test", template, only=True)
        ids = [q.id for q in questions if q.split == "test" and q.template == template]
        rows.append(
            TemplateRow(
                template,
                len(test),
                candidate_scores(start, test),
                candidate_scores(every, test),
                candidate_scores(held, test),
                RankScores.mean([bm25[i][0] for i in ids], [bm25[i][1] for i in ids]),
            )
        )
    return LeaveTemplateOut(tuple(keys), tuple(rows))
