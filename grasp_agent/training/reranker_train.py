"""Listwise fine-tuning of the MiniLM cross-encoder (`grasp train reranker`): LoRA on every linear map + a head.

Each step scores one group (a positive and up to 23 hard negatives of one question) and takes the
cross-entropy of the softmax over the group's scores with the positive as the target (listwise). The
encoder is the packaged all-MiniLM-L6-v2 loaded into `transformers`' BertModel; pairs are tokenised by
grasp's own tokenizer (`TextTokenizer.encode_pairs`) so training and the numpy reranker read identical
ids. After every epoch the valid questions are reranked (their positives and negatives) and the epoch
with the best valid Hit@1 is the one exported (`rerank.listwise` format). The same command runs on CUDA
with `--device cuda`.

torch, transformers and peft come with the `train` extra; nothing here downloads.
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from grasp_agent.embed.sentence_encoder import load_sentence_encoder
from grasp_agent.embed.text_tokenizer import TextTokenizer
from grasp_agent.optional_imports import require
from grasp_agent.process_memory import peak_rss_mib
from grasp_agent.rerank.listwise import (
    LINEAR_NAMES,
    LinearName,
    ListwiseAdapter,
    ListwiseManifest,
    LoraFactors,
    save_adapter,
    sha256_of,
)
from grasp_agent.training.reranker_data import GROUP_SIZE, RerankDataError, RerankQuestion, listwise_groups

# Where each adapter factor sits in transformers' BertLayer.
_MODULES: dict[str, LinearName] = {
    "attention.self.query": "query",
    "attention.self.key": "key",
    "attention.self.value": "value",
    "attention.output.dense": "attn_out",
    "intermediate.dense": "up",
    "output.dense": "down",
}


@dataclass(frozen=True)
class RerankTrainConfig:
    epochs: int = 2
    learning_rate: float = 3e-4  # LoRA factors and head; the base weights stay frozen
    warmup_ratio: float = 0.05
    rank: int = 16
    alpha: float = 32.0
    group_size: int = GROUP_SIZE
    max_positives: int = 1  # groups per question and epoch
    max_tokens: int = 128  # documents' median is about 100 tokens; 256 costs 1.1-2x the time per step here
    max_query_tokens: int = 48
    seed: int = 0
    device: str = "cpu"
    max_groups: int | None = None  # per epoch; None = all (a cap for smoke runs)


@dataclass
class EpochReport:
    epoch: int
    groups: int
    mean_loss: float
    valid_hit1: float
    valid_mrr: float
    seconds: float


@dataclass
class RerankTrainReport:
    train_questions: int
    valid_questions: int
    fused_valid_hit1: float  # the fused order over the same valid candidates
    fused_valid_mrr: float
    epochs: list[EpochReport] = field(default_factory=list)
    best_epoch: int = 0
    peak_rss_mib: float = 0.0

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


def _imports() -> tuple[Any, Any, Any]:
    need, hint = "reranker training needs torch, transformers and peft", "pip install 'grasp-agent[train]'"
    peft, torch, transformers = (
        require(name, need=need, hint=hint, error_type=RerankDataError) for name in ("peft", "torch", "transformers")
    )
    return torch, transformers, peft


class _Scorer:
    """BertModel (LoRA-wrapped) + mean pooling + unit length + a linear head, as `ListwiseReranker` scores."""

    def __init__(self, model_dir: Path, config: RerankTrainConfig) -> None:
        torch, transformers, peft = _imports()
        self.torch = torch
        torch.manual_seed(config.seed)
        base = transformers.BertModel.from_pretrained(str(model_dir), add_pooling_layer=False, local_files_only=True)
        lora = peft.LoraConfig(
            r=config.rank, lora_alpha=config.alpha, lora_dropout=0.0, target_modules=["query", "key", "value", "dense"]
        )
        self.model = peft.get_peft_model(base, lora).to(config.device)
        hidden = base.config.hidden_size
        self.head = torch.nn.Linear(hidden, 1).to(config.device)
        torch.nn.init.normal_(self.head.weight, std=0.02)
        torch.nn.init.zeros_(self.head.bias)
        self.device = config.device

    def parameter_groups(self, learning_rate: float) -> list[dict[str, Any]]:
        """LoRA factors at the learning rate; the head 10x faster: it reads unit vectors, so scores sharp enough
        for a 24-way softmax need a weight norm in the tens."""
        return [
            {"params": [p for p in self.model.parameters() if p.requires_grad], "lr": learning_rate},
            {"params": list(self.head.parameters()), "lr": 10 * learning_rate},
        ]

    def scores(self, ids: Sequence[np.ndarray]) -> Any:
        torch = self.torch
        longest = max(len(row) for row in ids)
        batch = torch.zeros((len(ids), longest), dtype=torch.long)
        mask = torch.zeros((len(ids), longest), dtype=torch.long)
        for index, row in enumerate(ids):
            batch[index, : len(row)] = torch.from_numpy(row)
            mask[index, : len(row)] = 1
        batch, mask = batch.to(self.device), mask.to(self.device)
        hidden = self.model(
            input_ids=batch, attention_mask=mask, token_type_ids=torch.zeros_like(batch)
        ).last_hidden_state
        weights = mask.unsqueeze(-1).to(hidden.dtype)
        pooled = (hidden * weights).sum(dim=1) / weights.sum(dim=1)
        # Unit length, as the sentence encoder outputs, so the merged weights run on the embedder's ONNX graph.
        return self.head(torch.nn.functional.normalize(pooled, dim=-1)).squeeze(-1)

    def adapter(self, manifest: ListwiseManifest) -> ListwiseAdapter:
        factors: dict[tuple[int, LinearName], LoraFactors] = {}
        for name, module in self.model.named_modules():
            if not hasattr(module, "lora_A") or "default" not in getattr(module, "lora_A", {}):
                continue
            parts = name.split(".")
            layer_index = parts.index("layer") + 1
            suffix = ".".join(parts[layer_index + 1 :])
            if suffix not in _MODULES:
                continue
            factors[(int(parts[layer_index]), _MODULES[suffix])] = LoraFactors(
                module.lora_A["default"].weight.detach().float().cpu().numpy(),
                module.lora_B["default"].weight.detach().float().cpu().numpy(),
            )
        missing = {linear for linear in LINEAR_NAMES} - {linear for _, linear in factors}
        if missing:
            raise RerankDataError(f"LoRA did not wrap {sorted(missing)}; the transformers BertLayer names changed?")
        return ListwiseAdapter(
            manifest,
            factors,
            self.head.weight.detach().float().cpu().numpy().reshape(-1),
            float(self.head.bias.detach().float().cpu().item()),
        )


def _ranking_metrics(scored: Sequence[tuple[list[float], list[bool]]]) -> tuple[float, float]:
    """Hit@1 and MRR of the first positive when each question's candidates are ordered by score (stable)."""
    if not scored:
        return 0.0, 0.0
    hits = reciprocal = 0.0
    for scores, gold in scored:
        order = sorted(range(len(scores)), key=lambda index: -scores[index])
        first = next(rank for rank, index in enumerate(order, start=1) if gold[index])
        hits += first == 1
        reciprocal += 1.0 / first
    return hits / len(scored), reciprocal / len(scored)


def fused_metrics(valid: Sequence[RerankQuestion]) -> tuple[float, float]:
    """The fused order's Hit@1 and MRR over the same candidates the reranker sees (positives + negatives)."""
    scored = []
    for item in valid:
        candidates = [*item.positives, *item.negatives]
        scored.append(
            (
                [-float(candidate.fused_rank) for candidate in candidates],
                [index < len(item.positives) for index in range(len(candidates))],
            )
        )
    return _ranking_metrics(scored)


def _lr_factor(step: int, total: int, warmup: int) -> float:
    """Linear warm-up, then cosine decay to zero."""
    if step < warmup:
        return (step + 1) / warmup
    progress = (step - warmup) / max(1, total - warmup)
    return 0.5 * (1.0 + math.cos(math.pi * min(1.0, progress)))


def train_reranker(
    train: Sequence[RerankQuestion],
    valid: Sequence[RerankQuestion],
    model_dir: Path,
    out_dir: Path,
    skb: str,
    base_model: str,
    config: RerankTrainConfig | None = None,
    progress: Callable[[str], None] | None = None,
) -> RerankTrainReport:
    """Trains, keeps the epoch with the best valid Hit@1 (ties: lower loss comes first, i.e. earlier epoch),
    and writes the adapter folder `out_dir`. Returns what it measured."""
    config = config or RerankTrainConfig()
    if not train:
        raise RerankDataError("no training questions with a positive in the fused pool; nothing to learn from")
    if not valid:
        raise RerankDataError("no valid questions with a positive in the fused pool; the best epoch cannot be chosen")
    encoder = load_sentence_encoder(model_dir)
    tokenizer: TextTokenizer = encoder.tokenizer
    scorer = _Scorer(model_dir, config)
    torch = scorer.torch
    rng = random.Random(config.seed)
    groups_per_epoch = sum(min(config.max_positives, len(item.positives)) for item in train)
    if config.max_groups is not None:
        groups_per_epoch = min(groups_per_epoch, config.max_groups)
    total_steps = groups_per_epoch * config.epochs
    optimizer = torch.optim.AdamW(scorer.parameter_groups(config.learning_rate), weight_decay=0.0)
    warmup = max(1, int(config.warmup_ratio * total_steps))
    scheduler = torch.optim.lr_scheduler.LambdaLR(optimizer, lambda step: _lr_factor(step, total_steps, warmup))
    fused_hit1, fused_mrr = fused_metrics(valid)
    report = RerankTrainReport(len(train), len(valid), fused_hit1, fused_mrr)
    manifest = ListwiseManifest(
        base_model=base_model,
        base_weights_sha256=sha256_of(encoder.spec.weights_path),
        rank=config.rank,
        alpha=config.alpha,
        max_tokens=config.max_tokens,
        max_query_tokens=config.max_query_tokens,
        skb=skb,
    )
    best_hit1 = -1.0
    target = torch.zeros(1, dtype=torch.long, device=config.device)  # the positive is each group's first
    for epoch in range(1, config.epochs + 1):
        start = time.perf_counter()
        scorer.model.train()
        losses = []
        groups = list(listwise_groups(train, rng, group_size=config.group_size, max_positives=config.max_positives))
        for group in groups[:groups_per_epoch]:
            ids = tokenizer.encode_pairs(group.question, group.documents, config.max_tokens, config.max_query_tokens)
            scores = scorer.scores(ids)
            loss = torch.nn.functional.cross_entropy(scores.unsqueeze(0), target)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            scheduler.step()
            losses.append(float(loss.item()))
            if progress is not None and len(losses) % 25 == 0:
                progress(f"epoch {epoch}: {len(losses)}/{groups_per_epoch} groups, loss {np.mean(losses[-25:]):.3f}")
        hit1, mrr = _valid_metrics(scorer, tokenizer, valid, config)
        report.epochs.append(
            EpochReport(epoch, len(losses), float(np.mean(losses)), hit1, mrr, time.perf_counter() - start)
        )
        if progress is not None:
            progress(
                f"epoch {epoch}: loss {np.mean(losses):.3f}, valid Hit@1 {hit1:.3f} MRR {mrr:.3f} "
                f"(fused {fused_hit1:.3f} / {fused_mrr:.3f})"
            )
        if hit1 > best_hit1:
            best_hit1 = hit1
            report.best_epoch = epoch
            report.peak_rss_mib = peak_rss_mib()
            trained = manifest.model_copy(update={"training": report.as_dict()})
            save_adapter(out_dir, scorer.adapter(trained))
    report.peak_rss_mib = peak_rss_mib()
    # The folder holds the best epoch's weights; its manifest also records the epochs after it.
    final = manifest.model_copy(update={"training": report.as_dict()})
    (out_dir / "reranker.json").write_text(final.model_dump_json(indent=1) + "\n", encoding="utf-8")
    return report


def _valid_metrics(
    scorer: _Scorer, tokenizer: TextTokenizer, valid: Sequence[RerankQuestion], config: RerankTrainConfig
) -> tuple[float, float]:
    torch = scorer.torch
    scorer.model.eval()
    scored = []
    with torch.no_grad():
        for item in valid:
            candidates = [*item.positives, *item.negatives]
            ids = tokenizer.encode_pairs(
                item.question, [c.text for c in candidates], config.max_tokens, config.max_query_tokens
            )
            scores = [float(value) for value in scorer.scores(ids).cpu()]
            scored.append((scores, [index < len(item.positives) for index in range(len(candidates))]))
    scorer.model.train()
    return _ranking_metrics(scored)


__all__ = ["EpochReport", "RerankTrainConfig", "RerankTrainReport", "fused_metrics", "train_reranker"]
