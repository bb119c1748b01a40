"""The tables of GRASP's dynamic fusion:
graph weight = clip(w_bucket[bucket(n_cand)] * m_risk[risk] * m_agree[agreement], 0, 1).

n_cand (how many candidates the plan admits) falls into one of five buckets: 1-10, 11-50, 51-100, 101-500,
>500. n_cand = 0 goes to the first bucket: the planner expects (almost) nothing, i.e. the plan is as selective
as plans get, and whenever its graph ranking does come back empty, fusion is text-only whatever the weight.

The defaults are priors until fitted on validation queries (see `fitting.fit_dynamic`):
- w_bucket decreases with n_cand, because a plan that admits few candidates is precise, while one that admits
  hundreds mostly re-ranks the target type by relevance text, which the text branch does as well;
- m_risk scales the weight down as the planner's own risk estimate rises (low 1.0, medium 0.7, high 0.3);
- m_agree scales it by whether the two branches agree: the graph ranking's first answer is, or is not, among the
  text ranking's first AGREEMENT_DEPTH. The plan's risk is the graph branch's own estimate of its confidence;
  agreement is evidence from outside it (a wrong link or a wrong asked type rarely also fools the text). Both
  multipliers are 1.0 until fitted, so tables fitted before them rank as they did.
"""

from __future__ import annotations

import json
from collections.abc import Hashable, Sequence
from pathlib import Path
from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError
from pydantic_core import ErrorDetails

from grasp_agent.fusion.rrf import RRF_K, FusionError
from grasp_agent.ranking import Risk

AGREEMENT_DEPTH = 10  # a first page of results
BUCKET_UPPER_BOUNDS: tuple[int, ...] = (10, 50, 100, 500)  # inclusive; above the last is the fifth bucket
BUCKET_LABELS: tuple[str, ...] = ("1-10", "11-50", "51-100", "101-500", ">500")
DEFAULT_W_BUCKET: tuple[float, float, float, float, float] = (0.8, 0.65, 0.5, 0.35, 0.2)

UnitWeight = Annotated[float, Field(ge=0.0, le=1.0)]
# A reranker is switched on by default only when it raised the valid MRR by at least this much at its fitted
# weight: a smaller gain is within the noise of a few hundred questions and does not pay for its latency.
MIN_RERANK_GAIN = 0.01


class FusionTablesError(FusionError):
    """A fusion tables file is missing or malformed; `.errors` lists each problem."""

    def __init__(self, path: object, message: str, errors: list[str] | None = None) -> None:
        super().__init__(f"{path}: {message}")
        self.path = path
        self.errors = errors or [message]


def bucket_of(n_cand: int) -> int:
    """Index (0-4) of the n_cand bucket; 0 candidates count as the first bucket (see the module docstring)."""
    if n_cand < 0:
        raise FusionError(f"n_cand must be >= 0; got {n_cand}")
    return next((index for index, upper in enumerate(BUCKET_UPPER_BOUNDS) if n_cand <= upper), len(BUCKET_UPPER_BOUNDS))


class RiskMultipliers(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid", allow_inf_nan=False)

    low: float = Field(default=1.0, ge=0.0)
    medium: float = Field(default=0.7, ge=0.0)
    high: float = Field(default=0.3, ge=0.0)

    def of(self, risk: Risk) -> float:
        return {Risk.LOW: self.low, Risk.MEDIUM: self.medium, Risk.HIGH: self.high}[risk]

    def replaced(self, risk: Risk, value: float) -> RiskMultipliers:
        return RiskMultipliers.model_validate({**self.model_dump(), risk.value: value})


class AgreementMultipliers(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid", allow_inf_nan=False)

    agree: float = Field(default=1.0, ge=0.0, description="The graph's first answer is in the text's first page")
    disagree: float = Field(default=1.0, ge=0.0, description="It is not")

    def of(self, agreed: bool) -> float:
        return self.agree if agreed else self.disagree

    def replaced(self, agreed: bool, value: float) -> AgreementMultipliers:
        return AgreementMultipliers.model_validate({**self.model_dump(), ("agree" if agreed else "disagree"): value})


def branches_agree(graph: Sequence[Hashable], text: Sequence[Hashable], depth: int = AGREEMENT_DEPTH) -> bool:
    """Whether the graph ranking's first item is among the text ranking's first `depth` (pure)."""
    return bool(graph) and graph[0] in text[:depth]


class RerankEvidence(BaseModel):
    """What fitting measured for one reranker on the valid split (`grasp train fusion`)."""

    model_config = ConfigDict(frozen=True, extra="forbid", allow_inf_nan=False)

    reranker: str = Field(description="The reranker's model_id")
    questions: int = Field(ge=0, description="Valid questions the weight was fitted on")
    mrr_fused: float = Field(ge=0.0, le=1.0, description="Valid MRR of the fused order (reranker weight 0)")
    mrr_reranked: float = Field(ge=0.0, le=1.0, description="Valid MRR with the reranker at its fitted weight")

    @property
    def gain(self) -> float:
        return self.mrr_reranked - self.mrr_fused

    @property
    def helps(self) -> bool:
        return self.gain >= MIN_RERANK_GAIN


class DynamicFusionTables(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid", allow_inf_nan=False)

    w_bucket: tuple[UnitWeight, UnitWeight, UnitWeight, UnitWeight, UnitWeight] = Field(
        default=DEFAULT_W_BUCKET, description=f"Graph weight per n_cand bucket {', '.join(BUCKET_LABELS)}"
    )
    m_risk: RiskMultipliers = Field(
        default_factory=RiskMultipliers, description="Multiplier of the graph weight per plan risk"
    )
    m_agree: AgreementMultipliers = Field(
        default_factory=AgreementMultipliers, description="Multiplier of the graph weight by the branches' agreement"
    )
    k: float = Field(default=RRF_K, gt=0.0, description="RRF constant")
    fitted_on: int = Field(default=0, ge=0, description="Validation queries the tables were fitted on; 0: priors")
    # Fitted on the same validation queries by `grasp train fusion`; None: use the settings' values.
    static_graph_weight: UnitWeight | None = Field(default=None, description="Static fusion's graph weight")
    rerank_weight: UnitWeight | None = Field(default=None, description="The reranker's weight in the last RRF")
    policy: Literal["static", "dynamic"] | None = Field(
        default=None, description="The policy with the higher valid MRR (ties: static); None: the settings' choice"
    )
    rerank: RerankEvidence | None = Field(default=None, description="Whether the reranker helped on valid")
    embedder: str | None = Field(default=None, description="model_id of the embedder the branches ran with")

    def graph_weight(self, n_cand: int, risk: Risk, agreed: bool | None = None) -> float:
        """`agreed`: whether the branches agree (`branches_agree`); None leaves the agreement multiplier out."""
        # The product can exceed 1 when a multiplier does (a fitted low-risk boost); weights stay in [0, 1].
        agreement = 1.0 if agreed is None else self.m_agree.of(agreed)
        return min(1.0, max(0.0, self.w_bucket[bucket_of(n_cand)] * self.m_risk.of(risk) * agreement))

    def to_json(self) -> str:
        return self.model_dump_json(indent=2) + "\n"

    def save(self, path: Path) -> None:
        path.write_text(self.to_json(), encoding="utf-8")

    @classmethod
    def from_json(cls, text: str, source: object = "<fusion tables>") -> DynamicFusionTables:
        try:
            data = json.loads(text)
        except json.JSONDecodeError as error:
            raise FusionTablesError(
                source, f"not valid JSON ({error.msg} at line {error.lineno}, column {error.colno})"
            ) from error
        if not isinstance(data, dict):
            raise FusionTablesError(source, f"expected a JSON object of fusion tables, got {type(data).__name__}")
        try:
            return cls.model_validate(data)
        except ValidationError as error:
            problems = [_problem(item) for item in error.errors()]
            raise FusionTablesError(source, "invalid fusion tables: " + "; ".join(problems), problems) from error

    @classmethod
    def load(cls, path: Path) -> DynamicFusionTables:
        try:
            text = path.read_text(encoding="utf-8")
        except OSError as error:
            raise FusionTablesError(path, f"cannot read fusion tables ({error.strerror or error})") from error
        return cls.from_json(text, path)


def _problem(item: ErrorDetails) -> str:
    where = ".".join(str(part) for part in item["loc"]) or "<tables>"
    got = "" if item["type"] == "missing" else f" (got {item['input']!r})"
    return f"{where}: {item['msg']}{got}"


__all__ = [
    "AGREEMENT_DEPTH",
    "AgreementMultipliers",
    "BUCKET_LABELS",
    "BUCKET_UPPER_BOUNDS",
    "DEFAULT_W_BUCKET",
    "MIN_RERANK_GAIN",
    "DynamicFusionTables",
    "FusionTablesError",
    "RerankEvidence",
    "RiskMultipliers",
    "branches_agree",
    "bucket_of",
]
