"""Which type a question asks for when it names none: learned from a training split, per anchor type.

"My daughter has X and Y. What could this be?" names no type; the heuristic planner used to fall back on the SKB's
most populous type (the HPO's phenotypes), which such a question almost never asks for. A training split says
better: for the questions whose anchors include a node of type A, how often the answers were of type T. The
prior picks the T with the highest summed log-probability over the question's anchor types (add-one smoothed),
so two phenotypes ask for what phenotype questions asked for, a gene and a phenotype for what both did.

Fitted by `grasp train answer-types` (and shipped for the HPO); a JSON file of counts, readable by people.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from grasp_agent.errors import DataFileError

PACKAGED_DIR = Path(__file__).with_name("pretrained")


class AnswerTypePrior(BaseModel):
    """Answer-type counts of training questions, overall and per anchor type."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    skb: str
    questions: int = Field(ge=0, description="Training questions counted")
    overall: dict[str, int] = Field(default_factory=dict, description="answer type -> questions")
    by_anchor_type: dict[str, dict[str, int]] = Field(
        default_factory=dict, description="anchor type -> answer type -> questions with such an anchor"
    )

    def knows(self, anchor_types: Sequence[str]) -> bool:
        """Whether training questions had anchors of any of these types (else `choose` says only what questions
        asked for overall)."""
        return any(label in self.by_anchor_type for label in anchor_types)

    def share(self, anchor_types: Sequence[str], candidates: Sequence[str]) -> float:
        """The (add-one smoothed) probability of `choose`'s type given the anchors' types, over `candidates`;
        0.0 when no anchor type was counted. Pure."""
        known = [label for label in anchor_types if label in self.by_anchor_type]
        if not known or not candidates:
            return 0.0
        logs = [
            sum(
                math.log(
                    (self.by_anchor_type[anchor].get(label, 0) + 1)
                    / (sum(self.by_anchor_type[anchor].values()) + len(candidates))
                )
                for anchor in known
            )
            for label in candidates
        ]
        top = max(logs)
        return 1.0 / sum(math.exp(value - top) for value in logs)

    def choose(self, anchor_types: Sequence[str], candidates: Sequence[str]) -> str | None:
        """The most likely answer type among `candidates` given the anchors' types; None without counts."""
        if not self.overall:
            return None
        known = [label for label in anchor_types if label in self.by_anchor_type]
        total = sum(self.overall.values())

        def score(label: str) -> tuple[float, float]:
            prior = math.log((self.overall.get(label, 0) + 1) / (total + len(candidates)))
            if not known:
                return prior, 0.0
            likelihood = 0.0
            for anchor in known:
                counts = self.by_anchor_type[anchor]
                likelihood += math.log((counts.get(label, 0) + 1) / (sum(counts.values()) + len(candidates)))
            return likelihood, prior

        return max(candidates, key=lambda label: (score(label), label))


def fit_answer_type_prior(
    skb: str, questions: Iterable[tuple[Sequence[str], Sequence[str]]], labels: Mapping[str, str]
) -> AnswerTypePrior:
    """Counts from (topic ids, answer ids) pairs; `labels` maps node id -> type. A question counts once, for the
    type most of its answers have; ids without a type are skipped. Pure."""
    overall: Counter[str] = Counter()
    by_anchor: dict[str, Counter[str]] = {}
    counted = 0
    for topics, answers in questions:
        answer_types = Counter(labels[a] for a in answers if a in labels)
        if not answer_types:
            continue
        asked = max(answer_types, key=lambda label: (answer_types[label], label))
        counted += 1
        overall[asked] += 1
        for anchor_type in {labels[t] for t in topics if t in labels}:
            by_anchor.setdefault(anchor_type, Counter())[asked] += 1
    return AnswerTypePrior(
        skb=skb,
        questions=counted,
        overall=dict(sorted(overall.items())),
        by_anchor_type={a: dict(sorted(c.items())) for a, c in sorted(by_anchor.items())},
    )


def write_prior(path: Path, prior: AnswerTypePrior) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(prior.model_dump_json(indent=1) + "\n", encoding="utf-8")


def read_prior(path: Path) -> AnswerTypePrior:
    try:
        return AnswerTypePrior.model_validate_json(path.read_text(encoding="utf-8"))
    except OSError as error:
        raise DataFileError(path, None, f"cannot read the answer-type prior: {error}") from error
    except ValidationError as error:
        raise DataFileError(path, None, f"not an answer-type prior: {error}") from error


def packaged_prior_path(skb: str) -> Path:
    return PACKAGED_DIR / f"{skb}.answer_types.json"


def find_prior(trained: Path, skb: str) -> AnswerTypePrior | None:
    """The prior `grasp train answer-types` wrote, else the one shipped for this SKB, else None."""
    for path in (trained, packaged_prior_path(skb)):
        if path.is_file():
            prior = read_prior(path)
            return prior if prior.skb == skb else None
    return None


__all__ = [
    "AnswerTypePrior",
    "find_prior",
    "fit_answer_type_prior",
    "packaged_prior_path",
    "read_prior",
    "write_prior",
]
