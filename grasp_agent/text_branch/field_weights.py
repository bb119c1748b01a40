"""mFAR's query-conditioned field weights: w(q) = softmax(W q + b) over K = (field, scorer) keys.

    score(q, node) = sum_k w_k(q) * s_k(q, node)

with s_k the per-key ranking of the query, max-normalized (`multifield.max_normalize`), 0 for a node absent
from it. mFAR's `LinearWeights` (query_cond=True) is softmax(q W) with W initialized to ones; here W and b
start at zero, so an untrained model gives exactly the uniform weights of `multifield.uniform_weights`, and
the bias learns a query-independent prior over keys. The encoder stays frozen: only W and b are trained.

Training (torch, the `[train]` extra; imported only inside `train_field_weights`): for each question the
candidates are the union of its per-key top-N, the positives its gold answers among them; the loss is
InfoNCE over the candidates with every gold positive, -log(sum_pos exp(s/T) / sum_all exp(s/T)). Adam,
seeded shuffling, zero initialization (so a run is deterministic); after each epoch the valid MRR over the
candidates decides: the best epoch is kept, epoch 0 (uniform) included, and `patience` epochs without
improvement stop training. Inference is numpy (`FieldWeightModel`), so the search path needs no torch.
Saved as `weights.npz` (the state dict: `linear.weight` (K, d), `linear.bias` (K,)) and `manifest.json`.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from grasp_agent.optional_imports import require
from grasp_agent.ranking import reciprocal_rank
from grasp_agent.text_branch.candidates import WeightExample
from grasp_agent.text_branch.fields import DOC_FIELD, NodeId, TextBranchError
from grasp_agent.text_branch.multifield import FieldKey, Scorer, uniform_weights

logger = logging.getLogger(__name__)

# Untrained (a new SKB): whole-document BM25 leads and every field key shares 1%. Uniform weights ranked far
# below it: HPO valid questions, MRR over candidates, uniform 0.064 / 0.143 (benchmark / generated), this prior
# 0.220 / 0.171, doc BM25 0.7 + doc dense 0.3 0.225 / 0.147 (docs/benchmarks.md, issue #31).
ZERO_SHOT_PRIOR: dict[FieldKey, float] = {(DOC_FIELD, "bm25"): 1.0}

FORMAT_VERSION = 1
MANIFEST = "manifest.json"
PARAMETERS = "weights.npz"
TRAIN_EXTRA = "pip install 'grasp-agent[train]'"


@dataclass(frozen=True)
class FieldWeightModel:
    """The linear layer of the weighting, as numpy arrays; `weights(q)` is its softmax for one query."""

    keys: tuple[FieldKey, ...]
    weight: np.ndarray  # float32 (K, d)
    bias: np.ndarray  # float32 (K,)
    model_id: str  # the embedder of the query vectors it was trained on

    def __post_init__(self) -> None:
        count = len(self.keys)
        if not count or self.weight.ndim != 2 or self.weight.shape[0] != count or self.bias.shape != (count,):
            raise TextBranchError(
                f"field weight parameters must be weight (K, d) and bias (K,) for K = {count} keys; "
                f"got {self.weight.shape} and {self.bias.shape}"
            )
        if len(set(self.keys)) != count:
            raise TextBranchError(f"field weight keys must be distinct; got {list(self.keys)}")

    @property
    def dimension(self) -> int:
        return int(self.weight.shape[1])

    @classmethod
    def uniform(
        cls, fields: Iterable[str], scorers: Iterable[Scorer], dimension: int, model_id: str
    ) -> FieldWeightModel:
        """The untrained model: zero parameters, so every query gets `uniform_weights(fields, scorers)`."""
        return _zero_model(tuple(uniform_weights(fields, scorers)), dimension, model_id)

    @classmethod
    def uniform_for(cls, keys: Sequence[FieldKey], dimension: int, model_id: str) -> FieldWeightModel:
        """Zero parameters over exactly these keys (e.g. BM25 on every field, dense on a few): equal weights."""
        return _zero_model(tuple(keys), dimension, model_id)

    def weight_matrix(self, query_vectors: np.ndarray) -> np.ndarray:
        """float64 (m, K): the weights of each query of (m, d), each row summing to 1."""
        queries = np.asarray(query_vectors, dtype=np.float64)
        if queries.ndim != 2 or queries.shape[1] != self.dimension:
            raise TextBranchError(
                f"query vectors must have shape (m, {self.dimension}) for model {self.model_id!r}; got {queries.shape}"
            )
        logits = queries @ self.weight.T.astype(np.float64) + self.bias  # (m, K)
        logits -= logits.max(axis=1, keepdims=True)
        exp = np.exp(logits)
        probabilities: np.ndarray = exp / exp.sum(axis=1, keepdims=True)
        return probabilities

    def weights(self, query_vector: np.ndarray) -> dict[FieldKey, float]:
        """The weights of one query (d,), in key order: what `combine_fields` takes."""
        row = self.weight_matrix(np.asarray(query_vector)[None, :])[0]
        return {key: float(weight) for key, weight in zip(self.keys, row, strict=True)}

    def save(self, directory: Path, report: TrainReport | None = None) -> None:
        """Writes `weights.npz` and then `manifest.json` into `directory` (created)."""
        directory.mkdir(parents=True, exist_ok=True)
        state: dict[str, Any] = {"linear.weight": self.weight, "linear.bias": self.bias}  # torch's state-dict names
        np.savez(directory / PARAMETERS, **state)
        manifest = {
            "format": FORMAT_VERSION,
            "keys": [list(key) for key in self.keys],
            "model_id": self.model_id,
            "dimension": self.dimension,
            "report": asdict(report) if report else None,
        }
        (directory / MANIFEST).write_text(json.dumps(manifest, indent=2))

    @classmethod
    def load(cls, directory: Path, keys: Collection[FieldKey], model_id: str) -> FieldWeightModel:
        """The model in `directory`, its rows put in the order of `keys`; refused when trained for other keys
        or on another embedder's query vectors."""
        try:
            manifest = json.loads((directory / MANIFEST).read_text())
            with np.load(directory / PARAMETERS) as arrays:
                weight, bias = arrays["linear.weight"], arrays["linear.bias"]
        except (OSError, ValueError, KeyError) as error:
            raise TextBranchError(f"no readable field weight model in {directory}: {error}") from error
        if manifest.get("format") != FORMAT_VERSION:
            raise TextBranchError(
                f"field weight model in {directory} has format {manifest.get('format')!r}; "
                f"this version reads {FORMAT_VERSION}"
            )
        trained = [(str(name), str(scorer)) for name, scorer in manifest["keys"]]
        wanted = [(str(name), str(scorer)) for name, scorer in keys]
        if set(trained) != set(wanted) or len(trained) != len(wanted):
            raise TextBranchError(
                f"field weight model in {directory} was trained for (field, scorer) keys {trained}; the index has "
                f"{wanted} (missing from the model: {sorted(set(wanted) - set(trained))}, unknown to the index: "
                f"{sorted(set(trained) - set(wanted))}); retrain it for these fields"
            )
        if manifest["model_id"] != model_id:
            raise TextBranchError(
                f"field weight model in {directory} was trained on query vectors of "
                f"{manifest['model_id']!r}, not {model_id!r}; retrain it for this embedder"
            )
        order = [trained.index(key) for key in wanted]
        return cls(tuple(keys), weight[order], bias[order], model_id)


def zero_shot_weights(keys: Sequence[FieldKey], dimension: int, model_id: str) -> FieldWeightModel:
    """The untrained model: every query weighted by ZERO_SHOT_PRIOR (its keys that are among `keys`), the other
    keys sharing 1%; uniform weights when `keys` hold none of them."""
    prior = {key: value for key, value in ZERO_SHOT_PRIOR.items() if key in keys}
    if not prior:
        return FieldWeightModel.uniform_for(keys, dimension, model_id)
    return FieldWeightModel(
        tuple(keys), np.zeros((len(keys), dimension), np.float32), prior_bias(keys, prior), model_id
    )


def open_field_weights(
    directory: Path | None, keys: Sequence[FieldKey], dimension: int, model_id: str
) -> FieldWeightModel:
    """The trained model in `directory` if one was saved there, else the zero-shot weights over `keys`.

    A saved model for other keys or another embedder is an error, not a silent fallback: it is stale.
    """
    if directory is None or not (directory / MANIFEST).is_file():
        logger.info(
            "no trained field weights%s: whole-document BM25 leads (zero-shot)", f" in {directory}" if directory else ""
        )
        return zero_shot_weights(keys, dimension, model_id)
    return FieldWeightModel.load(directory, tuple(keys), model_id)


def candidate_rankings(model: FieldWeightModel, examples: Sequence[WeightExample]) -> list[tuple[NodeId, ...]]:
    """Each example's candidates in `model`'s weighted order."""
    if not examples:
        return []
    weights = model.weight_matrix(np.stack([example.query for example in examples]))
    return [example.candidates.rank(row).ids for example, row in zip(examples, weights, strict=True)]


def mean_reciprocal_rank(model: FieldWeightModel, examples: Sequence[WeightExample]) -> float:
    """MRR of the weighted ranking of each example's candidates (0 where no gold answer is a candidate)."""
    if not examples:
        return 0.0
    rankings = candidate_rankings(model, examples)
    return float(np.mean([reciprocal_rank(ids, set(ex.gold)) for ids, ex in zip(rankings, examples, strict=True)]))


# ---- training (torch) ------------------------------------------------------------------------------------
@dataclass(frozen=True)
class TrainConfig:
    epochs: int = 50
    learning_rate: float = 0.01
    batch_size: int = 32
    temperature: float = 0.05  # on combined scores in [0, 1]
    weight_decay: float = 0.0
    patience: int = 5  # epochs without a better valid MRR before stopping
    seed: int = 0

    def __post_init__(self) -> None:
        bad = {
            name: value
            for name, value in asdict(self).items()
            if name != "seed" and not (value >= 0 if name == "weight_decay" else value > 0)
        }
        if bad:
            raise TextBranchError(f"training settings must be positive (weight_decay non-negative); got {bad}")


@dataclass(frozen=True)
class TrainReport:
    train_questions: int  # with at least one gold candidate (the others carry no signal)
    valid_questions: int
    best_epoch: int  # 0: no epoch beat the uniform weights on the valid split
    epochs_run: int
    valid_mrr_uniform: float  # of the starting point: uniform weights, or the prior when one is given
    valid_mrr_best: float
    losses: tuple[float, ...] = field(default=())  # mean training loss per epoch


def prior_bias(keys: Sequence[FieldKey], prior: Mapping[FieldKey, float]) -> np.ndarray:
    """float32 (K,): the bias whose softmax is `prior` (normalized; keys it leaves out share 1% of the mass), so a
    model with W = 0 and this bias weights every query by the prior."""
    unknown = sorted(set(prior) - set(keys))
    if unknown or any(value <= 0 for value in prior.values()):
        raise TextBranchError(f"a prior needs positive weights on known keys; unknown {unknown}, got {dict(prior)}")
    rest = [key for key in keys if key not in prior]
    total = sum(prior.values())
    mass = {key: 0.99 * value / total if rest else value / total for key, value in prior.items()}
    mass |= {key: 0.01 / len(rest) for key in rest}
    return np.log(np.asarray([mass[key] for key in keys], dtype=np.float64)).astype(np.float32)


def train_field_weights(
    train: Sequence[WeightExample],
    valid: Sequence[WeightExample],
    keys: Sequence[FieldKey],
    model_id: str,
    config: TrainConfig = TrainConfig(),
    prior: Mapping[FieldKey, float] | None = None,
) -> tuple[FieldWeightModel, TrainReport]:
    """Fits W and b on `train` with early stopping on `valid` MRR; returns the best model (the starting point at
    worst). Without `prior` training starts from uniform weights; with one, the logits are the prior's bias plus
    W q + b, so training starts from the prior and `config.weight_decay` pulls W and b back toward it."""
    torch = _import_torch()
    usable = [example for example in train if example.positives.any()]
    if not usable or not valid:
        raise TextBranchError(
            f"training needs train questions with a gold answer among their candidates "
            f"({len(usable)} of {len(train)}) and valid questions ({len(valid)})"
        )
    dimension = len(usable[0].query)
    shapes = {(len(example.query), example.candidates.scores.shape[1]) for example in [*usable, *valid]}
    if shapes != {(dimension, len(keys))}:
        raise TextBranchError(
            f"every example needs a ({dimension},) query and candidate scores for the "
            f"{len(keys)} keys; got (query, keys) shapes {sorted(shapes)}"
        )
    start_bias = prior_bias(keys, prior) if prior else np.zeros(len(keys), np.float32)
    best = FieldWeightModel(tuple(keys), np.zeros((len(keys), dimension), np.float32), start_bias, model_id)
    tensors = _padded(torch, usable, len(keys))
    base = torch.from_numpy(start_bias)
    generator = torch.Generator().manual_seed(config.seed)
    linear = torch.nn.Linear(dimension, len(keys))
    torch.nn.init.zeros_(linear.weight)
    torch.nn.init.zeros_(linear.bias)
    optimizer = torch.optim.Adam(linear.parameters(), lr=config.learning_rate, weight_decay=config.weight_decay)
    uniform_mrr = best_mrr = mean_reciprocal_rank(best, valid)
    best_epoch, losses = 0, []
    for epoch in range(1, config.epochs + 1):
        losses.append(_train_epoch(torch, linear, optimizer, tensors, generator, config, base))
        current = FieldWeightModel(
            tuple(keys),
            linear.weight.detach().numpy().copy(),
            linear.bias.detach().numpy().copy() + start_bias,
            model_id,
        )
        mrr = mean_reciprocal_rank(current, valid)
        logger.debug("field weights epoch %d: loss %.4f, valid MRR %.4f", epoch, losses[-1], mrr)
        if mrr > best_mrr:
            best, best_mrr, best_epoch = current, mrr, epoch
        elif epoch - best_epoch >= config.patience:
            break
    logger.info(
        "field weights: best epoch %d of %d, valid MRR %.4f (uniform %.4f)",
        best_epoch,
        len(losses),
        best_mrr,
        uniform_mrr,
    )
    return best, TrainReport(len(usable), len(valid), best_epoch, len(losses), uniform_mrr, best_mrr, tuple(losses))


def _zero_model(keys: Sequence[FieldKey], dimension: int, model_id: str) -> FieldWeightModel:
    return FieldWeightModel(
        tuple(keys), np.zeros((len(keys), dimension), np.float32), np.zeros(len(keys), np.float32), model_id
    )


def _import_torch() -> Any:
    return require(
        "torch",
        need="training field weights needs torch (the core install leaves it out)",
        hint=TRAIN_EXTRA,
        error_type=TextBranchError,
    )


def _padded(torch: Any, examples: Sequence[WeightExample], key_count: int) -> tuple[Any, Any, Any, Any]:
    """queries (N, d), scores (N, n_max, K), positives (N, n_max) and real (N, n_max), padded with zeros/False."""
    most = max(len(example.candidates.ids) for example in examples)
    scores = np.zeros((len(examples), most, key_count), dtype=np.float32)
    positives = np.zeros((len(examples), most), dtype=bool)
    real = np.zeros((len(examples), most), dtype=bool)
    for row, example in enumerate(examples):
        count = len(example.candidates.ids)
        scores[row, :count] = example.candidates.scores
        positives[row, :count] = example.positives
        real[row, :count] = True
    queries = np.stack([example.query for example in examples]).astype(np.float32)
    return (torch.from_numpy(queries), torch.from_numpy(scores), torch.from_numpy(positives), torch.from_numpy(real))


def _train_epoch(
    torch: Any,
    linear: Any,
    optimizer: Any,
    tensors: tuple[Any, Any, Any, Any],
    generator: Any,
    config: TrainConfig,
    base: Any,
) -> float:
    queries, scores, positives, real = tensors
    order = torch.randperm(len(queries), generator=generator)
    total = 0.0
    for start in range(0, len(order), config.batch_size):
        batch = order[start : start + config.batch_size]
        weights = torch.softmax(linear(queries[batch]) + base, dim=-1)  # (B, K)
        logits = torch.einsum("bnk,bk->bn", scores[batch], weights) / config.temperature  # (B, n)
        logits = logits.masked_fill(~real[batch], float("-inf"))
        gold = logits.masked_fill(~positives[batch], float("-inf"))
        loss = (torch.logsumexp(logits, dim=-1) - torch.logsumexp(gold, dim=-1)).mean()
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        total += float(loss.detach()) * len(batch)
    return total / len(order)
