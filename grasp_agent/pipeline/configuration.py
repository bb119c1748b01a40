"""Which fusion and reranking configuration a search runs with, and where each value came from.

Precedence, value by value: a GRASP_* setting given explicitly (environment or `Grasp.from_config(**overrides)`)
> tables fitted locally by `grasp train fusion` (`.grasp/fusion/<skb>.json` or GRASP_FUSION_TABLES) > tables
packaged with grasp for this SKB and embedder (`grasp_agent/fusion/pretrained/`) > the settings' defaults.

Reranking is on by default only when the tables in force measured the configured reranker helping on their
valid split (`RerankEvidence.helps`, matched by the reranker's model id), or when a reranker was named
explicitly (GRASP_RERANKER other than auto). The offline bi-encoder did not help on the HPO benchmark (its best
weight on valid is 0), so it never reranks by default; the listwise reranker trained on the HPO train split
(`grasp train reranker`, packaged) is what `auto` picks for the HPO SKB, and the packaged tables record its gain.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Generic, Literal, TypeVar

from grasp_agent.config import Settings
from grasp_agent.fusion.tables import MIN_RERANK_GAIN, DynamicFusionTables
from grasp_agent.text_branch.dense_fields import model_folder

T = TypeVar("T")
TablesOrigin = Literal["fitted locally", "packaged", "built-in priors"]
PACKAGED_FUSION_DIR = Path(__file__).resolve().parent.parent / "fusion" / "pretrained"


@dataclass(frozen=True)
class Sourced(Generic[T]):
    """A value and where it came from: the GRASP_* setting that set it, "fitted locally: <path>",
    "packaged: <path>", or "default"."""

    value: T
    source: str


@dataclass(frozen=True)
class FusionTablesChoice:
    tables: DynamicFusionTables
    origin: TablesOrigin
    path: Path | None

    @property
    def source(self) -> str:
        return f"{self.origin}: {self.path}" if self.path is not None else self.origin


def local_fusion_tables_path(settings: Settings, skb_name: str) -> Path:
    """Where `grasp train fusion` writes and searches read fitted tables (GRASP_FUSION_TABLES overrides)."""
    return settings.fusion_tables or settings.grasp_dir / "fusion" / f"{skb_name}.json"


def packaged_fusion_tables_path(skb_name: str, embedder_id: str) -> Path:
    """Tables fitted on the HPO benchmark's valid split, shipped for the SKB and the default embedder."""
    return PACKAGED_FUSION_DIR / skb_name / f"{model_folder(embedder_id)}.json"


def choose_fusion_tables(settings: Settings, skb_name: str, embedder_id: str) -> FusionTablesChoice:
    """Local tables, else packaged ones for this SKB + embedder (unless GRASP_FUSION_TABLES names a file,
    which then counts alone), else the built-in priors."""
    local = local_fusion_tables_path(settings, skb_name)
    if local.is_file():
        return FusionTablesChoice(DynamicFusionTables.load(local), "fitted locally", local)
    packaged = packaged_fusion_tables_path(skb_name, embedder_id)
    if settings.fusion_tables is None and packaged.is_file():
        return FusionTablesChoice(DynamicFusionTables.load(packaged), "packaged", packaged)
    return FusionTablesChoice(DynamicFusionTables(), "built-in priors", None)


@dataclass(frozen=True)
class SearchConfiguration:
    """The fusion and reranking values in force for searches that do not override them per call."""

    fusion_policy: Sourced[Literal["static", "dynamic"]]
    static_graph_weight: Sourced[float]
    fusion_k: Sourced[float]
    dynamic_tables: Sourced[str]  # a description: fitted on how many questions, from where
    reranker: Sourced[str | None]  # the model_id of the reranker searches may use; None: none configured
    rerank_by_default: Sourced[bool]
    rerank_weight: Sourced[float]
    graph_lead: Sourced[float | None]  # None: the graph's first target is not kept first (`graph_lead_first`)
    # the graph's first target kept first when it alone holds the relevance text's words (`keyword_lead_first`)
    keyword_lead: Sourced[bool] = Sourced(True, "default")
    # the targets the graph scores alike kept in the graph's order (`graph_ties_in_graph_order`)
    graph_ties: Sourced[bool] = Sourced(False, "default")

    def lines(self) -> list[str]:
        """One line per value, for `grasp search` and the UI."""
        reranker = self.reranker.value or "none"
        return [
            f"fusion: {self.fusion_policy.value} RRF ({self.fusion_policy.source})",
            f"static graph weight: {self.static_graph_weight.value:g} ({self.static_graph_weight.source})",
            f"RRF k: {self.fusion_k.value:g} ({self.fusion_k.source})",
            f"dynamic tables: {self.dynamic_tables.value} ({self.dynamic_tables.source})",
            f"reranker: {reranker} ({self.reranker.source})",
            f"rerank by default: {'yes' if self.rerank_by_default.value else 'no'} ({self.rerank_by_default.source})",
            f"reranker weight in the last RRF: {self.rerank_weight.value:g} ({self.rerank_weight.source})",
            f"graph lead kept first: {_lead(self.graph_lead.value)} ({self.graph_lead.source})",
            f"graph's first kept first when it alone holds the relevance text's words: "
            f"{'on' if self.keyword_lead.value else 'off'} ({self.keyword_lead.source})",
            f"targets the graph scores alike kept in its order: {'on' if self.graph_ties.value else 'off'} "
            f"({self.graph_ties.source})",
        ]

    def as_dict(self) -> dict[str, dict[str, object]]:
        return {
            name: {"value": getattr(self, name).value, "source": getattr(self, name).source}
            for name in (
                "fusion_policy",
                "static_graph_weight",
                "fusion_k",
                "dynamic_tables",
                "reranker",
                "rerank_by_default",
                "rerank_weight",
                "graph_lead",
                "keyword_lead",
                "graph_ties",
            )
        }


def _lead(value: float | None) -> str:
    return "off" if value is None else f"from a score lead of {value:g}"


def _explicit(settings: Settings, name: str) -> bool:
    return name in settings.model_fields_set


def _fitted_or_default(settings: Settings, name: str, fitted: T | None, tables: FusionTablesChoice) -> Sourced[T]:
    if _explicit(settings, name):
        return Sourced(getattr(settings, name), f"GRASP_{name.upper()}")
    if fitted is not None:
        return Sourced(fitted, tables.source)
    return Sourced(getattr(settings, name), "default")


def _rerank_by_default(settings: Settings, tables: FusionTablesChoice, reranker_id: str | None) -> Sourced[bool]:
    if reranker_id is None:
        return Sourced(False, "no reranker configured (GRASP_RERANKER=none)")
    if _explicit(settings, "reranker") and settings.reranker != "auto":  # auto names no reranker to insist on
        return Sourced(True, f"GRASP_RERANKER={settings.reranker}")
    evidence = tables.tables.rerank
    if evidence is None or evidence.reranker != reranker_id:
        return Sourced(False, f"{reranker_id} has no measured gain on a valid split ({tables.source})")
    verdict = "helped" if evidence.helps else f"gained less than {MIN_RERANK_GAIN:g} MRR"
    return Sourced(
        evidence.helps,
        f"{verdict} on {evidence.questions} valid questions: MRR {evidence.mrr_fused:.3f} "
        f"fused -> {evidence.mrr_reranked:.3f} reranked ({tables.source})",
    )


def resolve_configuration(
    settings: Settings, tables: FusionTablesChoice, reranker_id: str | None
) -> SearchConfiguration:
    """Pure: the configuration in force for these settings, fusion tables and reranker."""
    fitted = tables.tables
    policy: Sourced[Literal["static", "dynamic"]]
    if settings.fusion is not None:
        policy = Sourced(settings.fusion, "GRASP_FUSION")
    elif fitted.policy is not None:
        policy = Sourced(fitted.policy, tables.source)
    else:
        policy = Sourced("static", "default")
    described = f"fitted on {fitted.fitted_on} valid questions" if fitted.fitted_on else "priors, not fitted"
    return SearchConfiguration(
        fusion_policy=policy,
        static_graph_weight=_fitted_or_default(settings, "fusion_graph_weight", fitted.static_graph_weight, tables),
        fusion_k=_fitted_or_default(settings, "fusion_k", None, tables),
        dynamic_tables=Sourced(described, tables.source),
        reranker=Sourced(
            reranker_id, f"GRASP_RERANKER={settings.reranker}" if _explicit(settings, "reranker") else "default"
        ),
        rerank_by_default=_rerank_by_default(settings, tables, reranker_id),
        rerank_weight=_fitted_or_default(settings, "rerank_weight", fitted.rerank_weight, tables),
        graph_lead=_fitted_or_default(settings, "fusion_graph_lead", None, tables),
        keyword_lead=_fitted_or_default(settings, "fusion_keyword_lead", None, tables),
        graph_ties=_fitted_or_default(settings, "fusion_graph_ties", None, tables),
    )
