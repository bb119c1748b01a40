"""Field weights from the train split and fusion tables from the valid split, on the live pipeline parts.

Each function runs the real branches on the questions; nothing here reads the test split.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from statistics import fmean

from tqdm import tqdm

from grasp_agent.evaluation.query_sets import EvalQuery
from grasp_agent.fusion.fitting import (
    MIN_FIT_EXAMPLES,
    DynamicFit,
    FusionExample,
    RerankExample,
    StaticFit,
    fit_dynamic,
    fit_static,
)
from grasp_agent.fusion.policies import dynamic_fusion, static_fusion
from grasp_agent.fusion.rrf import FusionError
from grasp_agent.pipeline.options import PlannerName, SearchOptions
from grasp_agent.pipeline.parts import PipelineParts
from grasp_agent.ranking import Risk, reciprocal_rank
from grasp_agent.text_branch.field_weights import FieldWeightModel, TrainConfig, TrainReport, train_field_weights
from grasp_agent.text_branch.fields import TextBranchError
from grasp_agent.text_branch.multifield import FieldKey
from grasp_agent.text_branch.retriever import TextBranch

RISK_GRID = (0.5, 0.75, 1.0, 1.25, 1.5)
SPLIT_NAMES = {"valid": ("valid", "val"), "val": ("valid", "val")}  # grasp says valid, STaRK says val


def of_split(questions: Sequence[EvalQuery], split: str) -> list[EvalQuery]:
    names = SPLIT_NAMES.get(split, (split,))
    return [question for question in questions if question.split in names]


def train_weights(
    text_branch: TextBranch,
    questions: Sequence[EvalQuery],
    config: TrainConfig | None = None,
    prior: Mapping[FieldKey, float] | None = None,
) -> tuple[FieldWeightModel, TrainReport]:
    """Field weights trained on the train split with early stopping on the valid split (from `prior` if given)."""
    train, valid = of_split(questions, "train"), of_split(questions, "valid")
    if not train or not valid:
        raise TextBranchError(
            f"field weights need train and valid questions; the set has {len(train)} train and {len(valid)} valid"
        )
    examples = {
        name: text_branch.weight_examples([q.text for q in split], [q.answer_ids for q in split])
        for name, split in (("train", train), ("valid", valid))
    }
    return train_field_weights(
        examples["train"], examples["valid"], text_branch.keys, text_branch.model_id, config or TrainConfig(), prior
    )


@dataclass(frozen=True)
class FusionFits:
    static: StaticFit
    dynamic: DynamicFit
    examples: int
    graph_empty: int  # validation questions where the graph branch ranked nothing (text-only for any weight)


def fusion_examples(
    parts: PipelineParts, questions: Sequence[EvalQuery], planner: PlannerName | None = None, progress: bool = False
) -> list[FusionExample]:
    """Both branches' rankings of each question, with the plan's n_cand and risk (defaults without a plan)."""
    if parts.text_branch is None:
        raise TextBranchError(f"fitting fusion needs the text branch: {parts.text_unavailable}")
    branch = parts.graph_branch(planner)
    examples = []
    for question in tqdm(questions, desc="fusion examples", unit="question", disable=not progress):
        graph = branch.run(question.text)
        text = parts.text_branch.search(question.text, parts.settings.text_top_k)
        plan = graph.planning.plan
        examples.append(
            FusionExample(
                graph.ranking.node_ids,
                list(text.ids),
                set(question.answer_ids),
                plan.n_cand if plan else 50,
                graph.ranking.fusion_risk(plan.risk) if plan else Risk.LOW,
            )
        )
    return examples


def fit_fusion(examples: Sequence[FusionExample], k: float, min_examples: int = MIN_FIT_EXAMPLES) -> FusionFits:
    """The static graph weight (at RRF k = `k`) and the dynamic tables (bucket weights, risk and agreement
    multipliers)."""
    return FusionFits(
        fit_static(examples, k=k),
        fit_dynamic(examples, risk_grid=RISK_GRID, agree_grid=RISK_GRID, min_examples=min_examples),
        len(examples),
        sum(1 for example in examples if not example.graph),
    )


@dataclass(frozen=True)
class OutOfFold:
    """Reciprocal ranks, per question, on questions the values were not fitted on: each fold scored with values
    fitted on the others (the default weight is fitted on none)."""

    default_ranks: tuple[float, ...]  # the default static graph weight
    static_ranks: tuple[float, ...]  # a static weight fitted per fold
    dynamic_ranks: tuple[float, ...]  # dynamic tables fitted per fold
    folds: int

    @property
    def default(self) -> float:
        return fmean(self.default_ranks)

    @property
    def static(self) -> float:
        return fmean(self.static_ranks)

    @property
    def dynamic(self) -> float:
        return fmean(self.dynamic_ranks)


def out_of_fold(
    examples: Sequence[FusionExample],
    k: float,
    default_weight: float,
    folds: int = 5,
    min_examples: int = MIN_FIT_EXAMPLES,
) -> OutOfFold:
    """How the fitted fusion values rank questions they were not fitted on (`folds`-fold, question i in fold
    i mod folds, so the result is deterministic). Judged on the questions it is fitted on, a dynamic table of ten
    values always looks better than one weight; on 65 generated valid questions it did, and cost the test split."""
    if len(examples) < folds:
        raise FusionError(f"out-of-fold judging needs at least {folds} examples; got {len(examples)}")
    scores: dict[str, list[float]] = {"default": [], "static": [], "dynamic": []}
    for fold in range(folds):
        held = [ex for i, ex in enumerate(examples) if i % folds == fold]
        rest = [ex for i, ex in enumerate(examples) if i % folds != fold]
        fits = fit_fusion(rest, k, min_examples)
        for ex in held:
            gold = set(ex.gold)
            scores["default"].append(reciprocal_rank(static_fusion(ex.graph, ex.text, default_weight, k).ids, gold))
            static = static_fusion(ex.graph, ex.text, fits.static.graph_weight, k).ids
            scores["static"].append(reciprocal_rank(static, gold))
            dynamic = dynamic_fusion(ex.graph, ex.text, ex.n_cand, ex.risk, fits.dynamic.tables).ids
            scores["dynamic"].append(reciprocal_rank(dynamic, gold))
    return OutOfFold(tuple(scores["default"]), tuple(scores["static"]), tuple(scores["dynamic"]), folds)


def rerank_examples(
    parts: PipelineParts, questions: Sequence[EvalQuery], planner: PlannerName | None = None, progress: bool = False
) -> list[RerankExample]:
    """Each question through the whole pipeline with reranking on: the reranker's order of the fused head and
    the fused order (under `parts`' fusion settings), for fitting the last RRF's weight."""
    from grasp_agent.api import Grasp  # the pipeline imports training's callers' modules; import when used

    if parts.reranker is None:
        raise TextBranchError("fitting the reranker weight needs a reranker; GRASP_RERANKER is 'none'")
    grasp = Grasp(parts)
    options = SearchOptions(k=100, rerank=True, planner=planner, with_cypher=False)
    examples = []
    for question in tqdm(questions, desc="rerank examples", unit="question", disable=not progress):
        state = grasp.run(question.text, options)
        final, fusion = state.get("final"), state.get("fusion")
        if final is not None and fusion is not None and final.reranked:
            examples.append(RerankExample(final.rerank_order, fusion.ids, set(question.answer_ids)))
    return examples
