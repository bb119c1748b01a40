"""GRASP's fusion layer (pure): weighted RRF, static and dynamic graph/text fusion, fitting, rerank fusion."""

from grasp_agent.fusion.fitting import (
    DEFAULT_GRID,
    DynamicFit,
    FusionExample,
    GridChoice,
    Metric,
    StaticFit,
    fit_dynamic,
    fit_static,
)
from grasp_agent.fusion.policies import FusionMode, FusionResult, dynamic_fusion, graph_lead_first, static_fusion
from grasp_agent.fusion.rrf import RRF_K, FusedItem, FusionError, rank_map, rank_of, rerank_fusion, weighted_rrf
from grasp_agent.fusion.tables import (
    AGREEMENT_DEPTH,
    BUCKET_LABELS,
    BUCKET_UPPER_BOUNDS,
    DEFAULT_W_BUCKET,
    AgreementMultipliers,
    DynamicFusionTables,
    FusionTablesError,
    RiskMultipliers,
    branches_agree,
    bucket_of,
)

__all__ = [
    "AGREEMENT_DEPTH",
    "BUCKET_LABELS",
    "BUCKET_UPPER_BOUNDS",
    "DEFAULT_GRID",
    "DEFAULT_W_BUCKET",
    "RRF_K",
    "AgreementMultipliers",
    "DynamicFit",
    "DynamicFusionTables",
    "FusedItem",
    "FusionError",
    "FusionExample",
    "FusionMode",
    "FusionResult",
    "FusionTablesError",
    "GridChoice",
    "Metric",
    "RiskMultipliers",
    "StaticFit",
    "branches_agree",
    "bucket_of",
    "dynamic_fusion",
    "fit_dynamic",
    "fit_static",
    "graph_lead_first",
    "rank_map",
    "rank_of",
    "rerank_fusion",
    "static_fusion",
    "weighted_rrf",
]
