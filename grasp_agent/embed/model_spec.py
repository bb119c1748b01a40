"""What a sentence-transformers model directory says about itself, read from its own files.

A directory holds config.json (the encoder), modules.json (the pipeline: Transformer -> Pooling -> Normalize),
1_Pooling/config.json and sentence_bert_config.json (max_seq_length, do_lower_case). We read them instead of
assuming, and refuse pipelines the numpy encoder does not reproduce exactly.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from grasp_agent.errors import EmbeddingError

ModelType = Literal["bert", "mpnet"]
SUPPORTED_MODEL_TYPES: tuple[ModelType, ...] = ("bert", "mpnet")
_TRANSFORMER = "sentence_transformers.models.Transformer"
_POOLING = "sentence_transformers.models.Pooling"
_NORMALIZE = "sentence_transformers.models.Normalize"
_POOLING_MODES = ("cls_token", "mean_tokens", "max_tokens", "mean_sqrt_len_tokens", "weightedmean_tokens", "lasttoken")


@dataclass(frozen=True)
class EncoderConfig:
    """The transformer's shape, from config.json."""

    model_type: ModelType
    hidden_size: int
    num_layers: int
    num_heads: int
    intermediate_size: int
    layer_norm_eps: float
    max_position_embeddings: int
    pad_token_id: int
    relative_attention_num_buckets: int

    @property
    def position_offset(self) -> int:
        """First position id a real token gets: 0 for BERT, pad_token_id + 1 for MPNet (RoBERTa-style)."""
        return self.pad_token_id + 1 if self.model_type == "mpnet" else 0

    @property
    def max_tokens(self) -> int:
        """Longest sequence (special tokens included) the position embeddings cover."""
        return self.max_position_embeddings - self.position_offset


@dataclass(frozen=True)
class SentenceModelSpec:
    """A sentence-transformers model directory the numpy encoder can run."""

    model_dir: Path
    encoder: EncoderConfig
    max_seq_length: int
    do_lower_case: bool

    @property
    def weights_path(self) -> Path:
        return self.model_dir / "model.safetensors"

    @property
    def tokenizer_path(self) -> Path:
        return self.model_dir / "tokenizer.json"


def _read_json(path: Path) -> Any:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError as exc:
        raise EmbeddingError(f"model file {path} is missing; a sentence-transformers directory needs it") from exc
    except (OSError, json.JSONDecodeError) as exc:
        raise EmbeddingError(f"model file {path} is not readable JSON: {exc}") from exc


def _require(config: dict[str, Any], key: str, path: Path) -> Any:
    if key not in config:
        raise EmbeddingError(f"{path} has no {key!r}; the numpy encoder needs it")
    return config[key]


def read_encoder_config(path: Path) -> EncoderConfig:
    config = _read_json(path)
    model_type = config.get("model_type")
    if model_type not in SUPPORTED_MODEL_TYPES:
        raise EmbeddingError(f"{path}: model_type {model_type!r} is not supported; allowed: {SUPPORTED_MODEL_TYPES}")
    activation = config.get("hidden_act", "gelu")
    if activation != "gelu":
        raise EmbeddingError(f"{path}: hidden_act {activation!r} is not supported; allowed: 'gelu' (exact, erf)")
    position_type = config.get("position_embedding_type", "absolute")
    if model_type == "bert" and position_type != "absolute":
        raise EmbeddingError(f"{path}: position_embedding_type {position_type!r} is not supported; allowed: 'absolute'")
    return EncoderConfig(
        model_type=model_type,
        hidden_size=int(_require(config, "hidden_size", path)),
        num_layers=int(_require(config, "num_hidden_layers", path)),
        num_heads=int(_require(config, "num_attention_heads", path)),
        intermediate_size=int(_require(config, "intermediate_size", path)),
        layer_norm_eps=float(_require(config, "layer_norm_eps", path)),
        max_position_embeddings=int(_require(config, "max_position_embeddings", path)),
        pad_token_id=int(config.get("pad_token_id", 1 if model_type == "mpnet" else 0)),
        relative_attention_num_buckets=int(config.get("relative_attention_num_buckets", 32)),
    )


def _check_modules(model_dir: Path) -> None:
    """Only Transformer(path "") -> Pooling -> optional Normalize is reproduced; anything else is refused."""
    path = model_dir / "modules.json"
    modules = sorted(_read_json(path), key=lambda module: module.get("idx", 0))
    types = [module.get("type") for module in modules]
    allowed = ([_TRANSFORMER, _POOLING], [_TRANSFORMER, _POOLING, _NORMALIZE])
    if types not in allowed:
        raise EmbeddingError(f"{path}: module pipeline {types} is not supported; allowed: {allowed}")
    if modules[0].get("path", "") != "":
        raise EmbeddingError(
            f"{path}: the Transformer module must live in the model directory itself, got path "
            f"{modules[0].get('path')!r}"
        )
    pooling_path = model_dir / modules[1].get("path", "1_Pooling") / "config.json"
    _check_pooling(pooling_path)


def _check_pooling(path: Path) -> None:
    pooling = _read_json(path)
    enabled = [mode for mode in _POOLING_MODES if pooling.get(f"pooling_mode_{mode}", False)]
    if enabled != ["mean_tokens"]:
        raise EmbeddingError(f"{path}: pooling modes {enabled} are not supported; allowed: ['mean_tokens']")


def read_model_spec(model_dir: Path) -> SentenceModelSpec:
    """Reads and checks a sentence-transformers directory (raises EmbeddingError naming the bad file)."""
    if not model_dir.is_dir():
        raise EmbeddingError(f"model directory {model_dir} does not exist")
    _check_modules(model_dir)
    encoder = read_encoder_config(model_dir / "config.json")
    sbert_path = model_dir / "sentence_bert_config.json"
    sbert = _read_json(sbert_path) if sbert_path.is_file() else {}
    max_seq_length = int(sbert.get("max_seq_length") or encoder.max_tokens)
    if not 2 <= max_seq_length <= encoder.max_tokens:
        raise EmbeddingError(
            f"{sbert_path}: max_seq_length {max_seq_length} is outside 2..{encoder.max_tokens} (position embeddings)"
        )
    for required in ("model.safetensors", "tokenizer.json"):
        if not (model_dir / required).is_file():
            raise EmbeddingError(f"model file {model_dir / required} is missing; the numpy encoder needs it")
    return SentenceModelSpec(
        model_dir=model_dir,
        encoder=encoder,
        max_seq_length=max_seq_length,
        do_lower_case=bool(sbert.get("do_lower_case", False)),
    )
