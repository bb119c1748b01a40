"""`grasp train fusion`, end to end: the static graph weight and the dynamic tables fitted on the valid split with
the live branches, the policy that did better, the reranker's weight in the last RRF fitted under those values,
all saved as one tables file where searches read it (explicit GRASP_FUSION_GRAPH_WEIGHT / GRASP_RERANK_WEIGHT
still win over it)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from grasp_agent.config import Settings
from grasp_agent.db.connection import open_driver
from grasp_agent.embed.factory import make_embedder
from grasp_agent.errors import GraspError
from grasp_agent.evaluation.query_sets import EvalQuery
from grasp_agent.fusion.fitting import FusionExample, GridChoice, fit_rerank_weight
from grasp_agent.fusion.tables import DynamicFusionTables, RerankEvidence
from grasp_agent.llm.factory import make_llm
from grasp_agent.pipeline.configuration import Sourced, local_fusion_tables_path
from grasp_agent.pipeline.options import FusionName, PlannerName
from grasp_agent.pipeline.parts import PipelineParts, assemble_parts
from grasp_agent.training.fit import FusionFits, fit_fusion, fusion_examples, of_split, rerank_examples

NO_LLM_PLANNERS: tuple[PlannerName, ...] = ("heuristic", "pathbank")  # planners that run without an LLM


@dataclass(frozen=True)
class FusionFitOutcome:
    """What `fit_fusion_tables` fitted and saved."""

    fits: FusionFits
    tables: DynamicFusionTables  # as saved
    rerank: GridChoice | None  # the reranker's weight; None when not fitted (not asked, or no reranker)
    path: Path
    examples: tuple[FusionExample, ...] = ()  # the valid questions' rankings the values were fitted on


def better_policy(fits: FusionFits) -> FusionName:
    """Dynamic when its valid MRR beats static's; a tie keeps static (one weight, nothing bucketed to overfit)."""
    return "dynamic" if fits.dynamic.quality.mrr > fits.static.quality.mrr else "static"


def fitted_tables(fits: FusionFits, embedder_id: str) -> DynamicFusionTables:
    """The dynamic tables carrying the static graph weight, the better policy and the embedder they ran with."""
    return fits.dynamic.tables.model_copy(
        update={"static_graph_weight": fits.static.graph_weight, "policy": better_policy(fits), "embedder": embedder_id}
    )


def with_rerank_weight(
    tables: DynamicFusionTables, choice: GridChoice, reranker_id: str, questions: int
) -> DynamicFusionTables:
    """`tables` with the reranker's fitted weight and the evidence for reranking by default: the valid MRR of
    the fused order (weight 0) against the MRR at the fitted weight."""
    evidence = RerankEvidence(
        reranker=reranker_id, questions=questions, mrr_fused=dict(choice.curve)[0.0], mrr_reranked=choice.score or 0.0
    )
    return tables.model_copy(update={"rerank_weight": choice.value, "rerank": evidence})


def fit_fusion_tables(
    settings: Settings,
    questions: Sequence[EvalQuery],
    planner: PlannerName | None = None,
    rerank: bool = True,
    progress: bool = False,
) -> FusionFitOutcome:
    """Fits on the valid split of `questions` (the graph branch planning with `planner`), and with `rerank`
    also the reranker's weight (running the configured reranker, when there is one); saves the tables to
    `local_fusion_tables_path` of the loaded SKB."""
    valid = of_split(questions, "valid")
    if not valid:
        raise GraspError("the question set has no valid split to fit on")
    llm = None if planner in NO_LLM_PLANNERS else make_llm(settings)
    try:
        with open_driver(settings) as driver:
            parts = assemble_parts(driver, settings, make_embedder(settings), llm, progress=progress)
            examples = fusion_examples(parts, valid, planner, progress=progress)
            fits = fit_fusion(examples, settings.fusion_k)
            tables = fitted_tables(fits, parts.embedder.model_id)
            choice: GridChoice | None = None
            if rerank and parts.reranker is not None:
                choice = _rerank_choice(parts, fits, tables, valid, planner, progress)
                tables = with_rerank_weight(tables, choice, parts.reranker.model_id, choice.examples)
    finally:
        if llm is not None:
            llm.close()
    path = local_fusion_tables_path(settings, parts.schema.name)
    path.parent.mkdir(parents=True, exist_ok=True)
    tables.save(path)
    return FusionFitOutcome(fits, tables, choice, path, tuple(examples))


def _rerank_choice(
    parts: PipelineParts,
    fits: FusionFits,
    tables: DynamicFusionTables,
    valid: Sequence[EvalQuery],
    planner: PlannerName | None,
    progress: bool,
) -> GridChoice:
    """The reranker's weight, its examples fused under the values just fitted, whatever an older file said."""
    policy = better_policy(fits)
    fitted = replace(
        parts,
        fusion_tables=tables,
        configuration=replace(
            parts.configuration,
            fusion_policy=Sourced(policy, "being fitted"),
            static_graph_weight=Sourced(fits.static.graph_weight, "being fitted"),
        ),
    )
    examples = rerank_examples(fitted, valid, planner, progress=progress)
    return fit_rerank_weight(examples, k=parts.settings.rerank_rrf_k)
