"""The type a question asks for, weighed from several pieces of evidence by a classifier fitted on training
questions (multinomial logistic regression; numpy at inference, no extra dependency).

One word used to decide: the first type word after "which/what" ("Which KCNQ2-related disorder *features* ..."
read "features" as the phenotype type). Now each piece of evidence is a feature and a training split says how
much it counts:
- the planner's rules: the type they chose (the default target included), the type `target_mention` picks,
  the types any type word names, the type a hierarchy cue asks for ("a more specific form of X": X's type);
- the anchors' types (what questions with such anchors asked for, as the answer-type prior counts);
- the type the question's words lead to along the schema's relations from its anchors (`route_reading`);
- the question's own words (anchor mentions masked), and the word right after its wh-word.

Every feature is read from the question and the loaded SKB's schema; the weights come from a training split
(`grasp train asked-type`). A label's probability is a softmax over the SKB's labels; the planner takes the most
likely one and reports them all (a planning note, which `grasp plan` shows). A fit that reads the valid split
no better than the rules alone is not kept, and the rules decide: so for the HPO today (rules and fit both
0.977 on the benchmark's and generated questions' valid split).
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from grasp_agent.errors import DataFileError
from grasp_agent.graph_branch.schema_paths import named_types, target_mention
from grasp_agent.skb.schema import SkbSchema

PACKAGED_DIR = Path(__file__).with_name("pretrained")
_WORD = re.compile(r"[a-z0-9]+")
# The words that open a question or a request (English), shared with `asking_sentence`.
QUESTION_WORDS = "which|what|who|whom|whose|where|list|name|find|identify|show|give"
_WH = re.compile(rf"\b({QUESTION_WORDS})\s+(\w+)", re.IGNORECASE)


@dataclass(frozen=True)
class AskedTypeEvidence:
    """What a question offers about its asked type; `features` names every piece (value 1.0 each)."""

    features: tuple[str, ...]


def question_evidence(
    question: str,
    schema: SkbSchema,
    mentions: Sequence[str],
    anchor_types: Sequence[str],
    hierarchy_type: str | None = None,
    *,
    planned: str | None = None,
    routed: str | None = None,
) -> AskedTypeEvidence:
    """The features of one question (pure). `mentions`: the entity mentions (masked from the words);
    `anchor_types`: the linked anchors' types; `hierarchy_type`: the type a hierarchy cue asks for, if any;
    `planned`: the type the planner's rules chose (so the model learns when to trust them); `routed`: the type
    the schema's routes read from the question's words, if one leads."""
    masked = question
    for mention in mentions:
        found = masked.lower().find(mention.lower()) if mention else -1
        if found >= 0:
            masked = masked[:found] + " " + masked[found + len(mention) :]
    features: list[str] = ["bias"]
    rule = target_mention(question, schema, list(mentions))
    features.append(f"rule:{rule[0]}" if rule else "rule:none")
    if planned is not None:
        features.append(f"planned:{planned}")
    if routed is not None:
        features.append(f"routed:{routed}")
    features.extend(f"named:{label}" for label in dict.fromkeys(named_types(masked, schema)))
    features.extend(f"anchor:{label}" for label in sorted(set(anchor_types)))
    if hierarchy_type is not None:
        features.append(f"hierarchy:{hierarchy_type}")
    words = _WORD.findall(masked.lower())
    features.extend(f"word:{word}" for word in dict.fromkeys(words))
    wh = _WH.search(masked)
    if wh:
        features.append(f"after_wh:{wh.group(2).lower()}")
    return AskedTypeEvidence(tuple(features))


class AskedTypeModel(BaseModel):
    """Weights per feature and label (a feature absent here weighs nothing), readable as JSON."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    skb: str
    labels: tuple[str, ...] = Field(min_length=1)
    weights: dict[str, tuple[float, ...]] = Field(description="feature -> one weight per label")
    questions: int = Field(ge=0, description="Training questions fitted on")

    def probabilities(self, evidence: AskedTypeEvidence) -> dict[str, float]:
        """Softmax over the labels (pure)."""
        logits = [0.0] * len(self.labels)
        for feature in evidence.features:
            row = self.weights.get(feature)
            if row is not None:
                logits = [a + b for a, b in zip(logits, row, strict=True)]
        top = max(logits)
        exps = [math.exp(value - top) for value in logits]
        total = sum(exps)
        return {label: value / total for label, value in zip(self.labels, exps, strict=True)}

    def choose(self, evidence: AskedTypeEvidence, candidates: Iterable[str]) -> tuple[str, float] | None:
        """The most probable of `candidates` this model knows, with its probability; None when it knows none."""
        scores = self.probabilities(evidence)
        known = [label for label in candidates if label in scores]
        if not known:
            return None
        best = max(known, key=lambda label: (scores[label], label))
        return best, scores[best]


def fit_asked_type(
    skb: str,
    rows: Sequence[tuple[AskedTypeEvidence, str]],
    labels: Sequence[str],
    *,
    l2: float = 0.01,
    min_count: int = 2,
    steps: int = 400,
    learning_rate: float = 0.5,
) -> AskedTypeModel:
    """Multinomial logistic regression by full-batch gradient descent (deterministic: zero start, fixed steps).
    Features seen in fewer than `min_count` questions are dropped (they would only memorise); L2 keeps a rare
    word from outweighing the schema's reading."""
    if not rows:
        raise ValueError("no training questions to fit the asked-type model on")
    label_index = {label: i for i, label in enumerate(labels)}
    seen = Counter(feature for evidence, _ in rows for feature in set(evidence.features))
    vocabulary = sorted(feature for feature, count in seen.items() if count >= min_count)
    column = {feature: i for i, feature in enumerate(vocabulary)}
    x = np.zeros((len(rows), len(vocabulary)))
    y = np.zeros((len(rows), len(labels)))
    for r, (evidence, label) in enumerate(rows):
        for feature in evidence.features:
            if feature in column:
                x[r, column[feature]] = 1.0
        y[r, label_index[label]] = 1.0
    w = np.zeros((len(vocabulary), len(labels)))
    for _ in range(steps):
        logits = x @ w
        logits -= logits.max(axis=1, keepdims=True)
        p = np.exp(logits)
        p /= p.sum(axis=1, keepdims=True)
        gradient = x.T @ (p - y) / len(rows) + l2 * w
        w -= learning_rate * gradient
    return AskedTypeModel(
        skb=skb,
        labels=tuple(labels),
        weights={feature: tuple(round(float(v), 5) for v in w[i]) for feature, i in column.items()},
        questions=len(rows),
    )


def read_right(model: AskedTypeModel, rows: Sequence[tuple[AskedTypeEvidence, str]]) -> int:
    """How many of the (evidence, asked type) rows the model reads right."""
    right = 0
    for evidence, label in rows:
        chosen = model.choose(evidence, model.labels)
        right += chosen is not None and chosen[0] == label
    return right


def accuracy(model: AskedTypeModel, rows: Sequence[tuple[AskedTypeEvidence, str]]) -> float:
    return read_right(model, rows) / len(rows) if rows else 0.0


def majority_type(answer_ids: Iterable[str], labels: Mapping[str, str]) -> str | None:
    counts = Counter(labels[a] for a in answer_ids if a in labels)
    return max(counts, key=lambda label: (counts[label], label)) if counts else None


def write_model(path: Path, model: AskedTypeModel) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(model.model_dump_json(indent=0) + "\n", encoding="utf-8")


def read_model(path: Path) -> AskedTypeModel:
    try:
        return AskedTypeModel.model_validate_json(path.read_text(encoding="utf-8"))
    except OSError as error:
        raise DataFileError(path, None, f"cannot read the asked-type model: {error}") from error
    except ValidationError as error:
        raise DataFileError(path, None, f"not an asked-type model: {error}") from error


def packaged_model_path(skb: str) -> Path:
    return PACKAGED_DIR / f"{skb}.asked_type.json"


def find_model(trained: Path, skb: str) -> AskedTypeModel | None:
    """The model `grasp train asked-type` wrote, else the one shipped for this SKB, else None."""
    for path in (trained, packaged_model_path(skb)):
        if path.is_file():
            model = read_model(path)
            return model if model.skb == skb else None
    return None


__all__ = [
    "AskedTypeEvidence",
    "AskedTypeModel",
    "accuracy",
    "find_model",
    "fit_asked_type",
    "majority_type",
    "packaged_model_path",
    "question_evidence",
    "read_model",
    "read_right",
    "write_model",
]
